/* kdiff_glue.c for the 6.13+ thermal core (sim_kernel_diff_6.16): the same
 * kd_* interface over the governors, thermal core update path and
 * cpufreq/devfreq power ops of a 6.16-or-later linux-source tarball
 * (extract_616.sh). What changed since 6.1: zones carry their trips
 * (struct thermal_trip_desc, with the core's trips_high/trips_reached
 * lists), instances hang off their trip, ops are held by value, and a
 * binding tells the governor (update_tz, THERMAL_TZ_BIND_CDEV).
 * It plays the parts of a thermal zone driver (temperature and trips from
 * arrays), of cooling-device drivers (state kept here) and of
 * thermal_zone_bind_cooling_device, and records the poll delay the core
 * arms. The functions named kd_* are the C interface the driver dlopen()s.
 */
#include "cooling_types.h"
#include "thermal_core.h"

#define KD_MAX 16
#define KD_MAX_TRIPS 8

struct kd_cdev {
  struct thermal_cooling_device cdev;
  struct thermal_cooling_device_ops ops;
  unsigned long state;
  u32 load;       /* cpufreq: percent; devfreq: busy time of 1024 */
  u32 last_grant; /* last power handed to power2state, mW (diagnostics) */
  int (*driver_power2state)(struct thermal_cooling_device*, u32, unsigned long*);
  int actor; /* 0 none, 1 cpufreq, 2 devfreq */
  struct em_perf_state em_table[32];
  struct em_perf_domain em;
  struct cpufreq_policy policy;
  struct cpufreq_cooling_device cpufreq;
  struct devfreq devfreq;
  struct devfreq_cooling_device dfc;
};

/* tz ends in its trips (a flexible array), so it comes last and the zone
 * is allocated with room for KD_MAX_TRIPS of them. */
struct kd_zone {
  struct thermal_zone_params tzp;
  int temp;
  unsigned long delay_jiffies;
  struct thermal_zone_device tz;
};

static struct kd_cdev cdevs[KD_MAX];
static int ncdevs;
static struct kd_zone* zones[KD_MAX];
static int nzones;
static struct thermal_instance instances[KD_MAX * KD_MAX];
static int ninstances;

struct workqueue_struct* system_freezable_power_efficient_wq;
extern const struct thermal_cooling_device_ops kdiff_cpufreq_power_ops;
extern const struct thermal_cooling_device_ops kdiff_devfreq_power_ops;
void kdiff_zone_init(struct thermal_zone_device* tz);
/* Governors register themselves in this section (THERMAL_GOVERNOR_DECLARE). */
extern struct thermal_governor* __start___governor_thermal_table[];
extern struct thermal_governor* __stop___governor_thermal_table[];

bool mod_delayed_work(struct workqueue_struct* wq, struct delayed_work* w, unsigned long delay) {
  (void)wq;
  container_of(w, struct kd_zone, tz.poll_queue)->delay_jiffies = delay;
  return true;
}

bool cancel_delayed_work(struct delayed_work* w) {
  container_of(w, struct kd_zone, tz.poll_queue)->delay_jiffies = 0;
  return true;
}

/* Energy Model frequency of a state, kHz: table index = max_state - state. */
static unsigned long kd_freq_khz(struct kd_cdev* c) {
  return c->em_table[c->cdev.max_state - c->state].frequency;
}

unsigned int cpufreq_quick_get(unsigned int cpu) {
  return (unsigned int)kd_freq_khz(&cdevs[cpu]);
}

u32 kdiff_cpufreq_load(unsigned int cpu) {
  return cdevs[cpu].load;
}

static void kd_refresh_devfreq_status(struct kd_cdev* c) {
  c->devfreq.last_status.total_time = 1024;
  c->devfreq.last_status.busy_time = c->load;
  c->devfreq.last_status.current_frequency = kd_freq_khz(c) * 1000;
}

static int kd_get_max_state(struct thermal_cooling_device* cdev, unsigned long* state) {
  *state = cdev->max_state;
  return 0;
}

static int kd_get_cur_state(struct thermal_cooling_device* cdev, unsigned long* state) {
  *state = container_of(cdev, struct kd_cdev, cdev)->state;
  return 0;
}

/* The devfreq status follows the new state at once (devfreq's own polling is
 * not modelled, as in the simulator). */
static int kd_set_cur_state(struct thermal_cooling_device* cdev, unsigned long state) {
  struct kd_cdev* c = container_of(cdev, struct kd_cdev, cdev);

  c->state = state;
  if (c->actor == 2) kd_refresh_devfreq_status(c);
  return 0;
}

/* Records the grant, then runs the driver's power2state. */
static int kd_power2state(struct thermal_cooling_device* cdev, u32 power, unsigned long* state) {
  struct kd_cdev* c = container_of(cdev, struct kd_cdev, cdev);

  c->last_grant = power;
  return c->driver_power2state(cdev, power, state);
}

static int kd_get_temp(struct thermal_zone_device* tz, int* temp) {
  *temp = container_of(tz, struct kd_zone, tz)->temp;
  return 0;
}

int thermal_zone_trip_id(const struct thermal_zone_device* tz, const struct thermal_trip* trip) {
  return (int)(trip_to_trip_desc(trip) - tz->trips);
}

/* Trip changes by the driver (set_trips) and user thresholds are not part
 * of the test. */
void thermal_zone_set_trips(struct thermal_zone_device* tz, int low, int high) {
  (void)tz;
  (void)low;
  (void)high;
}

void thermal_thresholds_handle(struct thermal_zone_device* tz, int* low, int* high) {
  (void)tz;
  (void)low;
  (void)high;
}

static void kd_critical(struct thermal_zone_device* tz) {
  (void)tz;
}

void kd_reset(void) {
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
int kd_add_cdev(unsigned int max_state, const unsigned int* power_mw, int actor) {
  struct kd_cdev* c = &cdevs[ncdevs];
  unsigned int i;

  if (ncdevs == KD_MAX || max_state >= 32) return -1;
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
int kd_add_zone(const char* governor, int ntrips, const int* temp, const int* type, const int* hyst,
                unsigned int polling_ms, unsigned int passive_ms, unsigned int sustainable_mw,
                const int* k, const int* has_k, int integral_cutoff) {
  struct kd_zone* z;
  struct thermal_governor** g;
  int i;

  if (nzones == KD_MAX || ntrips > KD_MAX_TRIPS) return -1;
  z = calloc(1, sizeof(*z) + KD_MAX_TRIPS * sizeof(struct thermal_trip_desc));
  zones[nzones] = z;
  INIT_LIST_HEAD(&z->tz.trips_high);
  INIT_LIST_HEAD(&z->tz.trips_reached);
  INIT_LIST_HEAD(&z->tz.trips_invalid);
  z->tz.num_trips = ntrips;
  /* thermal_zone_device_register_with_trips: every trip starts invalid,
   * thermal_zone_device_init moves the valid ones to trips_high. */
  for (i = 0; i < ntrips; i++) {
    struct thermal_trip_desc* td = &z->tz.trips[i];

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
  z->tzp.sustainable_power = sustainable_mw;
  z->tzp.integral_cutoff = integral_cutoff;
  z->tz.id = nzones;
  z->tz.tzp = &z->tzp;
  z->tz.mode = THERMAL_DEVICE_ENABLED;
  z->tz.state = TZ_STATE_READY;
  z->tz.polling_delay_jiffies = msecs_to_jiffies(polling_ms);
  z->tz.passive_delay_jiffies = msecs_to_jiffies(passive_ms);
  kdiff_zone_init(&z->tz);
  if (strcmp(governor, "none") != 0) {
    for (g = __start___governor_thermal_table; g < __stop___governor_thermal_table; g++)
      if (strcmp((*g)->name, governor) == 0) z->tz.governor = *g;
    if (!z->tz.governor) return -2;
    if (z->tz.governor->bind_to_tz && z->tz.governor->bind_to_tz(&z->tz)) return -3;
  }
  if (has_k[0]) z->tzp.k_po = k[0];
  if (has_k[1]) z->tzp.k_pu = k[1];
  if (has_k[2]) z->tzp.k_i = k[2];
  if (has_k[3]) z->tzp.k_d = k[3];
  return nzones++;
}

/* thermal_bind_cdev_to_trip's list work, then the governor is told. */
int kd_bind(int zone, int trip, int cdev, unsigned long lower, unsigned long upper,
            unsigned int weight) {
  struct thermal_instance* in = &instances[ninstances];

  if (ninstances == KD_MAX * KD_MAX) return -1;
  in->id = ninstances;
  in->cdev = &cdevs[cdev].cdev;
  in->trip = &zones[zone]->tz.trips[trip].trip;
  in->lower = lower;
  in->upper = upper;
  in->target = THERMAL_NO_TARGET;
  in->weight = weight;
  list_add_tail(&in->trip_node, &zones[zone]->tz.trips[trip].thermal_instances);
  list_add_tail(&in->cdev_node, &cdevs[cdev].cdev.thermal_instances);
  if (zones[zone]->tz.governor && zones[zone]->tz.governor->update_tz)
    zones[zone]->tz.governor->update_tz(&zones[zone]->tz, THERMAL_TZ_BIND_CDEV);
  return ninstances++;
}

void kd_set_load(int cdev, unsigned int load) {
  cdevs[cdev].load = load;
  if (cdevs[cdev].actor == 2) kd_refresh_devfreq_status(&cdevs[cdev]);
}

void kd_update(int zone, int temp) {
  zones[zone]->temp = temp;
  thermal_zone_device_update(&zones[zone]->tz, THERMAL_EVENT_UNSPECIFIED);
}

unsigned long kd_cur_state(int cdev) {
  return cdevs[cdev].state;
}

unsigned int kd_last_grant(int cdev) {
  return cdevs[cdev].last_grant;
}

unsigned int kd_delay_ms(int zone) {
  return jiffies_to_msecs(zones[zone]->delay_jiffies);
}
