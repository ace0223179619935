/* Thermal netlink events are no-ops in the differential test. */
#define thermal_notify_tz_trip_up(...) ((void)0)
#define thermal_notify_tz_trip_down(...) ((void)0)
#define thermal_notify_cdev_state_update(...) ((void)0)
#define thermal_notify_tz_enable(...) ((void)0)
#define thermal_notify_tz_disable(...) ((void)0)
#define thermal_genl_sampling_temp(...) ((void)0)
