/* Glue between the differential test's driver (kernel_diff_test.cpp) and a
 * kernel's governors, thermal core update path and cpufreq/devfreq power
 * ops, built at test time from a linux-source tarball into one shared
 * object (run.sh, extract.sh). It plays the parts of a thermal zone driver
 * (temperature and trips from arrays), of cooling-device drivers (state
 * kept here) and of the core's binding of a cooling device to a trip, and
 * records the poll delay the core arms. The functions named kd_* are the C
 * interface the driver dlopen()s.
 *
 * run.sh passes the kernel as KDIFF_KERNEL = major * 100 + minor: 601 for
 * Debian 12's 6.1, 703 for 7.3 (the simulator's --kernel 7.3 rules). Where
 * the kernel's own structures differ, KD_TRIP_DESCS picks the layout: the
 * thermal core of 6.13 and later (as 7.3 has it) keeps each zone's trips in
 * the zone (struct thermal_trip_desc, a flexible array, with the core's
 * trips_high/trips_reached/trips_invalid lists), hangs instances off their
 * trip, holds the zone ops by value, and tells the governor of a binding
 * (update_tz, THERMAL_TZ_BIND_CDEV); 6.1 asks the driver for each trip
 * through ops and keeps the instances on the zone. Only 6.1 and 7.3 are
 * tested.
 */
#include "cooling_types.h"
#include "thermal_core.h"

#ifndef KDIFF_KERNEL
#error "run.sh passes KDIFF_KERNEL (601 for 6.1, 703 for 7.3)"
#endif
#define KD_TRIP_DESCS (KDIFF_KERNEL >= 613)

#define KD_MAX 16
#define KD_MAX_TRIPS 8

struct kd_cdev {
  struct thermal_cooling_device cdev;
  struct thermal_cooling_device_ops ops;
  unsigned long state;
  u32 load; /* cpufreq: percent; devfreq: busy time of 1024 */
  u32 last_grant; /* last power handed to power2state, mW (diagnostics) */
  int (*driver_power2state)(struct thermal_cooling_device *, u32, unsigned long *);
  int actor; /* 0 none, 1 cpufreq, 2 devfreq */
  struct em_perf_state em_table[32];
  struct em_perf_domain em;
  struct cpufreq_policy policy;
  struct cpufreq_cooling_device cpufreq;
  struct devfreq devfreq;
  struct devfreq_cooling_device dfc;
};

/* tz comes last: from 6.13 it ends in its trips (a flexible array), and
 * each zone is allocated with room for KD_MAX_TRIPS of them. */
struct kd_zone {
  struct thermal_zone_params tzp;
  int temp;
#if !KD_TRIP_DESCS
  struct thermal_zone_device_ops ops;
  int ntrips;
  int trip_temp[KD_MAX_TRIPS];
  int trip_type[KD_MAX_TRIPS];
  int trip_hyst[KD_MAX_TRIPS];
#endif
  unsigned long delay_jiffies;
  struct thermal_zone_device tz;
};
#if KD_TRIP_DESCS
#define KD_ZONE_SIZE (sizeof(struct kd_zone) + KD_MAX_TRIPS * sizeof(struct thermal_trip_desc))
#else
#define KD_ZONE_SIZE sizeof(struct kd_zone)
#endif

static struct kd_cdev cdevs[KD_MAX];
static int ncdevs;
static struct kd_zone *zones[KD_MAX];
static int nzones;
static struct thermal_instance instances[KD_MAX * KD_MAX];
static int ninstances;

struct workqueue_struct *system_freezable_power_efficient_wq;
extern const struct thermal_cooling_device_ops kdiff_cpufreq_power_ops;
extern const struct thermal_cooling_device_ops kdiff_devfreq_power_ops;
#if KD_TRIP_DESCS
/* extract.sh's way to run thermal_core.c's static thermal_zone_device_init. */
void kdiff_zone_init(struct thermal_zone_device *tz);
#endif
/* Governors register themselves in this section (THERMAL_GOVERNOR_DECLARE). */
extern struct thermal_governor *__start___governor_thermal_table[];
extern struct thermal_governor *__stop___governor_thermal_table[];

bool mod_delayed_work(struct workqueue_struct *wq, struct delayed_work *w, unsigned long delay)
{
  (void)wq;
  container_of(w, struct kd_zone, tz.poll_queue)->delay_jiffies = delay;
  return true;
}

bool cancel_delayed_work(struct delayed_work *w)
{
  container_of(w, struct kd_zone, tz.poll_queue)->delay_jiffies = 0;
  return true;
}

/* Energy Model frequency of a state, kHz: table index = max_state - state. */
static unsigned long kd_freq_khz(struct kd_cdev *c)
{
  return c->em_table[c->cdev.max_state - c->state].frequency;
}

unsigned int cpufreq_quick_get(unsigned int cpu)
{
  return (unsigned int)kd_freq_khz(&cdevs[cpu]);
}

u32 kdiff_cpufreq_load(unsigned int cpu)
{
  return cdevs[cpu].load;
}

static void kd_refresh_devfreq_status(struct kd_cdev *c)
{
  c->devfreq.last_status.total_time = 1024;
  c->devfreq.last_status.busy_time = c->load;
  c->devfreq.last_status.current_frequency = kd_freq_khz(c) * 1000;
}

static int kd_get_max_state(struct thermal_cooling_device *cdev, unsigned long *state)
{
  *state = cdev->max_state;
  return 0;
}

static int kd_get_cur_state(struct thermal_cooling_device *cdev, unsigned long *state)
{
  *state = container_of(cdev, struct kd_cdev, cdev)->state;
  return 0;
}

/* The devfreq status follows the new state at once (devfreq's own polling is
 * not modelled, as in the simulator). */
static int kd_set_cur_state(struct thermal_cooling_device *cdev, unsigned long state)
{
  struct kd_cdev *c = container_of(cdev, struct kd_cdev, cdev);

  c->state = state;
  if (c->actor == 2)
    kd_refresh_devfreq_status(c);
  return 0;
}

/* Records the grant, then runs the driver's power2state. */
static int kd_power2state(struct thermal_cooling_device *cdev, u32 power, unsigned long *state)
{
  struct kd_cdev *c = container_of(cdev, struct kd_cdev, cdev);

  c->last_grant = power;
  return c->driver_power2state(cdev, power, state);
}

static int kd_get_temp(struct thermal_zone_device *tz, int *temp)
{
  *temp = container_of(tz, struct kd_zone, tz)->temp;
  return 0;
}

#if KD_TRIP_DESCS
int thermal_zone_trip_id(const struct thermal_zone_device *tz, const struct thermal_trip *trip)
{
  return (int)(trip_to_trip_desc(trip) - tz->trips);
}

/* Trip changes by the driver (set_trips) and user thresholds are not part
 * of the test. */
void thermal_zone_set_trips(struct thermal_zone_device *tz, int low, int high)
{
  (void)tz;
  (void)low;
  (void)high;
}

void thermal_thresholds_handle(struct thermal_zone_device *tz, int *low, int *high)
{
  (void)tz;
  (void)low;
  (void)high;
}
#else
/* Trip ops refuse an index out of range, as a zone driver's do (the
 * governors ask for trip -1 when a zone has no switch-on trip). */
static int kd_get_trip_temp(struct thermal_zone_device *tz, int trip, int *temp)
{
  struct kd_zone *z = container_of(tz, struct kd_zone, tz);

  if (trip < 0 || trip >= z->ntrips)
    return -EINVAL;
  *temp = z->trip_temp[trip];
  return 0;
}

static int kd_get_trip_type(struct thermal_zone_device *tz, int trip, enum thermal_trip_type *type)
{
  struct kd_zone *z = container_of(tz, struct kd_zone, tz);

  if (trip < 0 || trip >= z->ntrips)
    return -EINVAL;
  *type = (enum thermal_trip_type)z->trip_type[trip];
  return 0;
}

static int kd_get_trip_hyst(struct thermal_zone_device *tz, int trip, int *hyst)
{
  struct kd_zone *z = container_of(tz, struct kd_zone, tz);

  if (trip < 0 || trip >= z->ntrips)
    return -EINVAL;
  *hyst = z->trip_hyst[trip];
  return 0;
}
#endif

static void kd_critical(struct thermal_zone_device *tz)
{
  (void)tz;
}

void kd_reset(void)
{
  int i;

  /* As the core does when a zone goes away: the governor frees what its
   * bind_to_tz allocated (power_allocator's params). */
  for (i = 0; i < nzones; i++) {
    if (zones[i]->tz.governor && zones[i]->tz.governor->unbind_from_tz)
      zones[i]->tz.governor->unbind_from_tz(&zones[i]->tz);
    free(zones[i]);
  }
  memset(cdevs, 0, sizeof(cdevs));
  memset(zones, 0, sizeof(zones));
  memset(instances, 0, sizeof(instances));
  ncdevs = nzones = ninstances = 0;
}

/* power_mw: full-load power per state (state 0 first), or NULL. */
int kd_add_cdev(unsigned int max_state, const unsigned int *power_mw, int actor)
{
  struct kd_cdev *c = &cdevs[ncdevs];
  unsigned int i;

  if (ncdevs == KD_MAX || max_state >= 32)
    return -1;
  c->ops.get_max_state = kd_get_max_state;
  c->ops.get_cur_state = kd_get_cur_state;
  c->ops.set_cur_state = kd_set_cur_state;
  c->actor = actor;
  c->cdev.id = ncdevs;
  c->cdev.max_state = max_state;
  c->cdev.ops = &c->ops;
  INIT_LIST_HEAD(&c->cdev.thermal_instances);
  for (i = 0; i <= max_state; i++) {
    c->em_table[i].frequency = 100000UL * (i + 1);
    c->em_table[i].power = power_mw ? 1000UL * power_mw[max_state - i] : 0;
  }
  c->em.table = c->em_table;
  c->em.nr_perf_states = (int)max_state + 1;
  if (actor == 1) {
    c->ops.get_requested_power = kdiff_cpufreq_power_ops.get_requested_power;
    c->ops.state2power = kdiff_cpufreq_power_ops.state2power;
    c->driver_power2state = kdiff_cpufreq_power_ops.power2state;
    c->ops.power2state = kd_power2state;
    c->policy.cpu = (unsigned int)ncdevs;
    c->cpufreq.max_level = max_state;
    c->cpufreq.em = &c->em;
    c->cpufreq.policy = &c->policy;
    c->cdev.devdata = &c->cpufreq;
  } else if (actor == 2) {
    c->ops.get_requested_power = kdiff_devfreq_power_ops.get_requested_power;
    c->ops.state2power = kdiff_devfreq_power_ops.state2power;
    c->driver_power2state = kdiff_devfreq_power_ops.power2state;
    c->ops.power2state = kd_power2state;
    c->dfc.cdev = &c->cdev;
    c->dfc.devfreq = &c->devfreq;
    c->dfc.max_state = max_state;
    c->dfc.em_pd = &c->em;
    c->cdev.devdata = &c->dfc;
    kd_refresh_devfreq_status(c);
  }
  return ncdevs++;
}

/* k: k_po, k_pu, k_i, k_d written after the governor binds (as sysfs would);
 * has_k[i] says which are written. */
int kd_add_zone(const char *governor, int ntrips, const int *temp, const int *type,
                const int *hyst, unsigned int polling_ms, unsigned int passive_ms,
                unsigned int sustainable_mw, const int *k, const int *has_k, int integral_cutoff)
{
  struct kd_zone *z;
  struct thermal_governor **g;
  int i;

  if (nzones == KD_MAX || ntrips > KD_MAX_TRIPS)
    return -1;
  z = calloc(1, KD_ZONE_SIZE);
  if (!z)
    return -1;
  zones[nzones] = z;
#if KD_TRIP_DESCS
  INIT_LIST_HEAD(&z->tz.trips_high);
  INIT_LIST_HEAD(&z->tz.trips_reached);
  INIT_LIST_HEAD(&z->tz.trips_invalid);
  /* thermal_zone_device_register_with_trips: every trip starts invalid,
   * thermal_zone_device_init moves the valid ones to trips_high. */
  for (i = 0; i < ntrips; i++) {
    struct thermal_trip_desc *td = &z->tz.trips[i];

    td->trip.temperature = temp[i];
    td->trip.type = (enum thermal_trip_type)type[i];
    td->trip.hysteresis = hyst[i];
    INIT_LIST_HEAD(&td->thermal_instances);
    INIT_LIST_HEAD(&td->list_node);
    td->threshold = INT_MAX;
    list_add_tail(&td->list_node, &z->tz.trips_invalid);
  }
  z->tz.ops.get_temp = kd_get_temp;
  z->tz.ops.critical = kd_critical;
#else
  z->ntrips = ntrips;
  for (i = 0; i < ntrips; i++) {
    z->trip_temp[i] = temp[i];
    z->trip_type[i] = type[i];
    z->trip_hyst[i] = hyst[i];
  }
  z->ops.get_temp = kd_get_temp;
  z->ops.get_trip_temp = kd_get_trip_temp;
  z->ops.get_trip_type = kd_get_trip_type;
  z->ops.get_trip_hyst = kd_get_trip_hyst;
  z->ops.critical = kd_critical;
  z->tz.ops = &z->ops;
  INIT_LIST_HEAD(&z->tz.thermal_instances);
#endif
  z->tzp.sustainable_power = sustainable_mw;
  z->tzp.integral_cutoff = integral_cutoff;
  z->tz.id = nzones;
  z->tz.tzp = &z->tzp;
  z->tz.num_trips = ntrips;
  z->tz.mode = THERMAL_DEVICE_ENABLED;
  z->tz.polling_delay_jiffies = msecs_to_jiffies(polling_ms);
  z->tz.passive_delay_jiffies = msecs_to_jiffies(passive_ms);
#if KD_TRIP_DESCS
  z->tz.state = TZ_STATE_READY;
  kdiff_zone_init(&z->tz);
#else
  z->tz.temperature = THERMAL_TEMP_INVALID; /* thermal_zone_device_init */
#endif
  if (strcmp(governor, "none") != 0) {
    for (g = __start___governor_thermal_table; g < __stop___governor_thermal_table; g++)
      if (strcmp((*g)->name, governor) == 0)
        z->tz.governor = *g;
    if (!z->tz.governor)
      return -2;
    if (z->tz.governor->bind_to_tz && z->tz.governor->bind_to_tz(&z->tz))
      return -3;
  }
  if (has_k[0]) z->tzp.k_po = k[0];
  if (has_k[1]) z->tzp.k_pu = k[1];
  if (has_k[2]) z->tzp.k_i = k[2];
  if (has_k[3]) z->tzp.k_d = k[3];
  return nzones++;
}

/* The core's binding of a cooling device to a trip, its list work
 * (thermal_zone_bind_cooling_device in 6.1, thermal_bind_cdev_to_trip from
 * 6.13, which then tells the governor). */
int kd_bind(int zone, int trip, int cdev, unsigned long lower, unsigned long upper,
            unsigned int weight)
{
  struct thermal_instance *in = &instances[ninstances];

  if (ninstances == KD_MAX * KD_MAX)
    return -1;
  in->id = ninstances;
  in->cdev = &cdevs[cdev].cdev;
  in->lower = lower;
  in->upper = upper;
  in->target = THERMAL_NO_TARGET;
  in->weight = weight;
#if KD_TRIP_DESCS
  in->trip = &zones[zone]->tz.trips[trip].trip;
  list_add_tail(&in->trip_node, &zones[zone]->tz.trips[trip].thermal_instances);
#else
  in->tz = &zones[zone]->tz;
  in->trip = trip;
  list_add_tail(&in->tz_node, &zones[zone]->tz.thermal_instances);
#endif
  list_add_tail(&in->cdev_node, &cdevs[cdev].cdev.thermal_instances);
#if KD_TRIP_DESCS
  if (zones[zone]->tz.governor && zones[zone]->tz.governor->update_tz)
    zones[zone]->tz.governor->update_tz(&zones[zone]->tz, THERMAL_TZ_BIND_CDEV);
#endif
  return ninstances++;
}

void kd_set_load(int cdev, unsigned int load)
{
  cdevs[cdev].load = load;
  if (cdevs[cdev].actor == 2)
    kd_refresh_devfreq_status(&cdevs[cdev]);
}

void kd_update(int zone, int temp)
{
  zones[zone]->temp = temp;
  thermal_zone_device_update(&zones[zone]->tz, THERMAL_EVENT_UNSPECIFIED);
}

unsigned long kd_cur_state(int cdev)
{
  return cdevs[cdev].state;
}

unsigned int kd_last_grant(int cdev)
{
  return cdevs[cdev].last_grant;
}

unsigned int kd_delay_ms(int zone)
{
  return jiffies_to_msecs(zones[zone]->delay_jiffies);
}
