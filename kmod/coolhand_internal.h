/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal state of the coolhand core, shared by its files:
 *   coolhand_core.c     registration, zone evaluation, throttling, binding
 *   coolhand_sysfs.c    the paper's Table 1 files and the throttling files
 *   coolhand_netlink.c  the "coolhand" generic netlink family
 *   coolhand_thermal.c  mirror into the kernel thermal framework
 * The emulated platform (coolhand_emul_*.c) is a separate module and uses
 * only the exported API of <linux/coolhand.h>, never this header.
 *
 * Locking, outermost first:
 *   coolhand_lock      zone/throttle id maps and all binding lists; held by
 *                      every netlink request handler for its whole duration.
 *   tz->lock           (thermal core) -> zone->lock
 *   cdev->lock         (thermal core) -> thr->lock
 *   zone->lock, thr->lock   runtime state of one zone / throttle control,
 *                      and every call into the driver's ops.
 *   coolhand_event_lock     innermost: event sequence number + multicast.
 * The core never calls into the thermal core while holding zone->lock or
 * thr->lock.
 */
#ifndef _COOLHAND_INTERNAL_H
#define _COOLHAND_INTERNAL_H

#include <linux/device.h>
#include <linux/idr.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/thermal.h>
#include <linux/workqueue.h>
#include <linux/coolhand.h>

#include "coolhand_compat.h"

extern struct mutex coolhand_lock;
extern struct idr coolhand_zone_idr;
extern struct idr coolhand_throttle_idr;
extern struct class coolhand_class;
extern unsigned int coolhand_default_step_mc;

/**
 * struct coolhand_trip_state - a trip and whether it is currently reached
 * @trip:	the registered trip
 * @reached:	temp rose to >= temp_mc and has not yet dropped below
 *		temp_mc - hyst_mc
 * @alarm:	latched on every upward crossing; cleared by user space
 */
struct coolhand_trip_state {
	struct coolhand_trip trip;
	bool reached;
	bool alarm;
};

/**
 * struct coolhand_zone - a registered sensor ("thermal zone" in the paper)
 * @dev:	class device, /sys/class/coolhand/zone<id>
 * @id:		zone id used in netlink (COOLHAND_A_ZONE_ID)
 * @name:	zone name
 * @kind:	enum coolhand_zone_kind
 * @ops:	sensor driver callbacks
 * @drvdata:	sensor driver data
 * @poll_ms:	polling period for sensors without set_window, ms
 * @poll_work:	polling work (only without set_window)
 * @lock:	protects everything from @num_trips to @hw_high_mc and
 *		serialises calls into @ops
 * @num_trips:	entries in @trips
 * @trips:	trip table and crossing state
 * @passive:	index in @trips of the passive trip, or -1
 * @crit:	index in @trips of the critical trip, or -1
 * @reported_mc: last temperature reported to user space (event), m°C
 * @temp_alarm:	a temperature event happened since temp1_input was read
 * @mode:	how the event window is chosen
 * @step_below_mc: step mode: report at <= reported - step_below, m°C
 * @step_above_mc: step mode: report at >= reported + step_above, m°C
 * @win_low_mc:	window mode: report at <= win_low, m°C
 * @win_high_mc: window mode: report at >= win_high, m°C
 * @tz_low_mc:	window the thermal core asked for via set_trips, m°C
 * @tz_high_mc:	see @tz_low_mc
 * @hw_low_mc:	window last programmed into the sensor, m°C
 * @hw_high_mc:	see @hw_low_mc
 * @hw_valid:	@hw_low_mc/@hw_high_mc hold what the sensor was last given
 * @crit_logged: report-only mode logged the current critical excursion
 * @bindings:	struct coolhand_binding list; protected by coolhand_lock
 * @tzd:	mirrored thermal zone
 * @tz_alert:	the descriptor's thermal-only alert trip (temp_mc 0: none)
 * @tz_trips:	trips handed to the thermal core (must outlive @tzd): the
 *		alert trip if any, then @trips
 * @tz_passive:	index in @tz_trips of the passive trip, or -1
 * @tzp:	thermal zone parameters (must outlive @tzd)
 */
struct coolhand_zone {
	struct device dev;
	int id;
	char name[COOLHAND_NAME_LEN];
	enum coolhand_zone_kind kind;
	const struct coolhand_sensor_ops *ops;
	void *drvdata;
	unsigned int poll_ms;
	struct delayed_work poll_work;

	struct mutex lock; /* zone state and sensor ops */
	unsigned int num_trips;
	struct coolhand_trip_state trips[COOLHAND_MAX_TRIPS];
	int passive;
	int crit;
	int reported_mc;
	bool temp_alarm;
	enum coolhand_event_mode mode;
	u32 step_below_mc;
	u32 step_above_mc;
	int win_low_mc;
	int win_high_mc;
	int tz_low_mc;
	int tz_high_mc;
	int hw_low_mc;
	int hw_high_mc;
	bool hw_valid;
	bool crit_logged;

	struct list_head bindings;

	struct thermal_zone_device *tzd;
	struct coolhand_trip tz_alert;
	struct thermal_trip tz_trips[COOLHAND_MAX_TRIPS + 1];
	int tz_passive;
	struct thermal_zone_params tzp;
	char tz_governor[THERMAL_NAME_LENGTH];
	bool tz_reached[COOLHAND_MAX_TRIPS + 1];
};

#define to_coolhand_zone(d) container_of(d, struct coolhand_zone, dev)

/**
 * struct coolhand_throttle - a registered component throttle control
 * @id:		device id used in netlink (COOLHAND_A_DEV_ID)
 * @name:	control name
 * @dev:	the component's device; holds the throttling files
 * @ops:	component driver callbacks
 * @drvdata:	component driver data
 * @max_level:	deepest level
 * @power_mw:	@max_level + 1 entries or NULL, mW
 * @load_scale:	see struct coolhand_throttle_desc
 * @load:	last load read by get_requested_power, 1/@load_scale;
 *		under @lock
 * @lock:	protects @level and serialises calls into @ops
 * @level:	last level applied or read
 * @bindings:	struct coolhand_binding list; protected by coolhand_lock
 * @cdev:	mirrored thermal cooling device
 * @attr_throttling: "throttling" file on @dev
 * @attr_throttling_max: "throttling_max" file on @dev
 * @attrs:	NULL-terminated list for @group
 * @group:	the files above, added to @dev
 */
struct coolhand_throttle {
	int id;
	char name[COOLHAND_NAME_LEN];
	struct device *dev;
	const struct coolhand_throttle_ops *ops;
	void *drvdata;
	unsigned int max_level;
	u32 *power_mw;
	u32 load_scale;

	struct mutex lock; /* level and throttle ops */
	unsigned int level;
	u32 load;

	struct list_head bindings;

	struct thermal_cooling_device *cdev;
	struct device_attribute attr_throttling;
	struct device_attribute attr_throttling_max;
	struct attribute *attrs[3];
	struct attribute_group group;
};

/**
 * struct coolhand_binding - a throttle control associated with a zone
 * @zone_node:	entry in zone->bindings
 * @thr_node:	entry in thr->bindings
 * @zone:	the zone
 * @thr:	the throttle control
 * @weight:	thermal-core weight of the binding
 * @thermal_bound: bound to the mirrored zone's passive trip
 */
struct coolhand_binding {
	struct list_head zone_node;
	struct list_head thr_node;
	struct coolhand_zone *zone;
	struct coolhand_throttle *thr;
	unsigned int weight;
	bool thermal_bound;
};

/* coolhand_core.c */
const char *coolhand_kind_name(enum coolhand_zone_kind kind);
int coolhand_zone_read_temp(struct coolhand_zone *zone, int *temp_mc);
int __coolhand_zone_read_temp(struct coolhand_zone *zone, int *temp_mc);
void __coolhand_event_window(struct coolhand_zone *zone, int *low, int *high);
void __coolhand_zone_program(struct coolhand_zone *zone);
int coolhand_zone_set_steps(struct coolhand_zone *zone, u32 below_mc,
			    u32 above_mc);
int coolhand_zone_set_window(struct coolhand_zone *zone, int low_mc,
			     int high_mc);
int coolhand_check_name(const char *name);
void __coolhand_binding_free(struct coolhand_binding *b);

/* coolhand_throttle.c */
int coolhand_throttle_get_level(struct coolhand_throttle *thr,
				unsigned int *level);

/* coolhand_sysfs.c */
extern const struct attribute_group *coolhand_zone_groups[];
void coolhand_throttle_init_attrs(struct coolhand_throttle *thr);

/* coolhand_netlink.c */
int coolhand_netlink_init(void);
void coolhand_netlink_exit(void);
void coolhand_event_temp(int zone_id, int temp_mc, int prev_mc, u64 ts_ns);
void coolhand_event_trip(int zone_id, enum coolhand_trip_type type,
			 enum coolhand_trip_direction dir, int trip_mc,
			 int temp_mc, u64 ts_ns);
void coolhand_event_throttle(int dev_id, unsigned int level, u64 ts_ns);

/* coolhand_thermal.c */
int coolhand_thermal_zone_add(struct coolhand_zone *zone);
void coolhand_thermal_zone_remove(struct coolhand_zone *zone);
int coolhand_thermal_cdev_add(struct coolhand_throttle *thr);
void coolhand_thermal_cdev_remove(struct coolhand_throttle *thr);
int coolhand_thermal_bind(struct coolhand_binding *b);
void coolhand_thermal_unbind(struct coolhand_binding *b);
void coolhand_thermal_update(struct coolhand_zone *zone);
int coolhand_thermal_passive(struct coolhand_zone *zone);

#endif /* _COOLHAND_INTERNAL_H */
