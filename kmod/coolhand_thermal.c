// SPDX-License-Identifier: GPL-2.0
/*
 * Mirror of coolhand zones and throttle controls into the kernel thermal
 * framework (6.1 and 6.13+ API, coolhand_compat.h): every zone becomes a
 * thermal_zoneN with the same trips, every throttle control a
 * cooling_deviceN with power ops when it has a power table, and each
 * coolhand binding binds the cooling device
 * to the zone's passive trip. So /sys/class/thermal, the "thermal" netlink
 * family and the kernel governors (step_wise, power_allocator, ...) see and
 * drive them, next to a user-space policy.
 */

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/thermal.h>

#include "coolhand_internal.h"

static bool critical_report_only;
module_param(critical_report_only, bool, 0644);
MODULE_PARM_DESC(critical_report_only,
		 "Only report critical trips (log, alarm, netlink) instead of the kernel's emergency shutdown; for test rigs (default: off)");

static unsigned int passive_delay_ms = 250;
module_param(passive_delay_ms, uint, 0444);
MODULE_PARM_DESC(passive_delay_ms,
		 "Thermal-core polling period of a zone while its passive trip is active, ms (default 250)");

static int coolhand_tz_num_trips(struct coolhand_zone *zone)
{
	return zone->num_trips + (zone->tz_alert.temp_mc ? 1 : 0);
}

#if COOLHAND_THERMAL_OPAQUE
/*
 * 6.13+ counts the passive trips it considers crossed in the private
 * tz->passive (thermal_trip_crossed(), thermal_core.c) and exports no
 * accessor. The module mirrors it from the temperatures it hands to the
 * core, with the core's rule (thermal_zone_handle_trips()): a trip is
 * reached when T >= its temperature and left when T < temperature -
 * hysteresis. The core reads the temperature once per update; other
 * get_temp calls (reads of thermal_zoneN/temp, hwmon) also advance the
 * mirror, which differs from the core only if such a read sees another
 * temperature than the next update does.
 */
static void __coolhand_tz_mirror_trips(struct coolhand_zone *zone, int temp)
{
	int i;

	lockdep_assert_held(&zone->lock);
	if (temp <= THERMAL_TEMP_INVALID)
		return;
	for (i = 0; i < coolhand_tz_num_trips(zone); i++) {
		const struct thermal_trip *t = &zone->tz_trips[i];

		if (!zone->tz_reached[i] && temp >= t->temperature)
			zone->tz_reached[i] = true;
		else if (zone->tz_reached[i] &&
			 temp < t->temperature - t->hysteresis)
			zone->tz_reached[i] = false;
	}
}

static int coolhand_tz_get_temp(struct thermal_zone_device *tzd, int *temp)
{
	struct coolhand_zone *zone = coolhand_tz_priv(tzd);
	int ret;

	mutex_lock(&zone->lock);
	ret = __coolhand_zone_read_temp(zone, temp);
	if (!ret)
		__coolhand_tz_mirror_trips(zone, *temp);
	mutex_unlock(&zone->lock);
	return ret;
}
#else
static int coolhand_tz_get_temp(struct thermal_zone_device *tzd, int *temp)
{
	return coolhand_zone_read_temp(coolhand_tz_priv(tzd), temp);
}

static int coolhand_tz_check_trip(struct coolhand_zone *zone, int trip)
{
	return trip < 0 || trip >= coolhand_tz_num_trips(zone) ? -EINVAL : 0;
}

static int coolhand_tz_get_trip_type(struct thermal_zone_device *tzd, int trip,
				     enum thermal_trip_type *type)
{
	struct coolhand_zone *zone = coolhand_tz_priv(tzd);

	if (coolhand_tz_check_trip(zone, trip))
		return -EINVAL;
	*type = zone->tz_trips[trip].type;
	return 0;
}

static int coolhand_tz_get_trip_temp(struct thermal_zone_device *tzd, int trip,
				     int *temp)
{
	struct coolhand_zone *zone = coolhand_tz_priv(tzd);

	if (coolhand_tz_check_trip(zone, trip))
		return -EINVAL;
	*temp = zone->tz_trips[trip].temperature;
	return 0;
}

static int coolhand_tz_get_trip_hyst(struct thermal_zone_device *tzd, int trip,
				     int *hyst)
{
	struct coolhand_zone *zone = coolhand_tz_priv(tzd);

	if (coolhand_tz_check_trip(zone, trip))
		return -EINVAL;
	*hyst = zone->tz_trips[trip].hysteresis;
	return 0;
}
#endif

/* The thermal core's own interrupt window, intersected with ours. */
static int coolhand_tz_set_trips(struct thermal_zone_device *tzd, int low,
				 int high)
{
	struct coolhand_zone *zone = coolhand_tz_priv(tzd);

	mutex_lock(&zone->lock);
	zone->tz_low_mc = low;
	zone->tz_high_mc = high;
	__coolhand_zone_program(zone);
	mutex_unlock(&zone->lock);
	return 0;
}

/*
 * Called by the thermal core on every update while the temperature is at or
 * above the critical trip. The crossing itself was already reported by
 * coolhand (temp1_crit_alarm, EVENT_TRIP). Report-only mode logs once per
 * excursion; leaving the trip (coolhand's own evaluation) re-arms the log.
 */
static void coolhand_tz_critical(struct thermal_zone_device *tzd)
{
	struct coolhand_zone *zone = coolhand_tz_priv(tzd);
	bool log;

	if (!READ_ONCE(critical_report_only)) {
		thermal_zone_device_critical(tzd);
		return;
	}
	mutex_lock(&zone->lock);
	log = !zone->crit_logged;
	zone->crit_logged = true;
	mutex_unlock(&zone->lock);
	if (log)
		dev_crit(&zone->dev,
			 "%s: critical temperature reached (report only)\n",
			 zone->name);
}

#if COOLHAND_THERMAL_OPAQUE
static bool coolhand_tz_should_bind(struct thermal_zone_device *tzd,
				    const struct thermal_trip *trip,
				    struct thermal_cooling_device *cdev,
				    struct cooling_spec *c);
#endif

/* Not const: the 6.1 core writes .critical when a driver leaves it NULL. */
static struct thermal_zone_device_ops coolhand_tz_ops = {
	.get_temp = coolhand_tz_get_temp,
#if COOLHAND_THERMAL_OPAQUE
	.should_bind = coolhand_tz_should_bind,
#else
	.get_trip_type = coolhand_tz_get_trip_type,
	.get_trip_temp = coolhand_tz_get_trip_temp,
	.get_trip_hyst = coolhand_tz_get_trip_hyst,
#endif
	.set_trips = coolhand_tz_set_trips,
	.critical = coolhand_tz_critical,
};

static const enum thermal_trip_type coolhand_trip_types[] = {
	[COOLHAND_TRIP_PASSIVE] = THERMAL_TRIP_PASSIVE,
	[COOLHAND_TRIP_CRITICAL] = THERMAL_TRIP_CRITICAL,
};

/*
 * The thermal framework's trip table: the thermal-only alert trip (if any)
 * first, then the coolhand trips in order.
 */
int coolhand_thermal_zone_add(struct coolhand_zone *zone)
{
	struct thermal_zone_device *tzd;
	unsigned int i, n = 0;
	int ret;

	zone->tz_passive = -1;
	if (zone->tz_alert.temp_mc) {
		zone->tz_trips[n].temperature = zone->tz_alert.temp_mc;
		zone->tz_trips[n].hysteresis = zone->tz_alert.hyst_mc;
		zone->tz_trips[n].type = THERMAL_TRIP_PASSIVE;
		n++;
	}
	for (i = 0; i < zone->num_trips; i++, n++) {
		const struct coolhand_trip *t = &zone->trips[i].trip;

		zone->tz_trips[n].temperature = t->temp_mc;
		zone->tz_trips[n].hysteresis = t->hyst_mc;
		zone->tz_trips[n].type = coolhand_trip_types[t->type];
		if ((int)i == zone->passive)
			zone->tz_passive = n;
#if COOLHAND_THERMAL_OPAQUE
		/* Marks the trip coolhand bindings attach to (should_bind). */
		zone->tz_trips[n].priv = (int)i == zone->passive ? zone : NULL;
#endif
	}

#if COOLHAND_THERMAL_OPAQUE
	zone->tzp.governor_name = zone->tz_governor[0] ? zone->tz_governor :
							 NULL;
	tzd = thermal_zone_device_register_with_trips(zone->name,
						      zone->tz_trips,
						      n, zone,
						      &coolhand_tz_ops,
						      &zone->tzp,
						      passive_delay_ms, 0);
#else
	strscpy(zone->tzp.governor_name, zone->tz_governor,
		sizeof(zone->tzp.governor_name));
	tzd = thermal_zone_device_register_with_trips(zone->name,
						      zone->tz_trips,
						      n, 0, zone,
						      &coolhand_tz_ops,
						      &zone->tzp,
						      passive_delay_ms, 0);
#endif
	if (IS_ERR(tzd))
		return PTR_ERR(tzd);
	mutex_lock(&zone->lock);
	zone->tzd = tzd;
	mutex_unlock(&zone->lock);

	ret = sysfs_create_link(&zone->dev.kobj, &coolhand_tz_dev(tzd)->kobj,
				"thermal_zone");
	if (ret)
		goto err_unregister;
	ret = thermal_zone_device_enable(tzd);
	if (ret)
		goto err_remove_link;
	return 0;

err_remove_link:
	sysfs_remove_link(&zone->dev.kobj, "thermal_zone");
err_unregister:
	mutex_lock(&zone->lock);
	zone->tzd = NULL;
	mutex_unlock(&zone->lock);
	thermal_zone_device_unregister(tzd);
	return ret;
}

void coolhand_thermal_zone_remove(struct coolhand_zone *zone)
{
	struct thermal_zone_device *tzd;

	sysfs_remove_link(&zone->dev.kobj, "thermal_zone");
	mutex_lock(&zone->lock);
	tzd = zone->tzd;
	zone->tzd = NULL;
	mutex_unlock(&zone->lock);
	thermal_zone_device_unregister(tzd);
}

/* Run the zone's governor on the new temperature. */
void coolhand_thermal_update(struct coolhand_zone *zone)
{
	thermal_zone_device_update(zone->tzd, THERMAL_EVENT_UNSPECIFIED);
}

/*
 * The mirrored zone's passive count (set by step_wise and power_allocator):
 * while it is non-zero the thermal core polls at passive_delay_ms, else at
 * the polling delay. A lock-step driver that triggers every update itself
 * (the core's timer kept from firing: no polling, a long passive delay)
 * reads it between updates to keep the core's schedule. zone->lock keeps @tzd registered; tz->lock
 * cannot be taken under it (set_trips takes them in the other order), so
 * the count is read as a snapshot. -ENODEV while no zone is mirrored.
 *
 * 6.13+ keeps the count private: there it is the module's mirror of it
 * (__coolhand_tz_mirror_trips()), the passive trips reached.
 */
int coolhand_thermal_passive(struct coolhand_zone *zone)
{
	int passive = -ENODEV;

	mutex_lock(&zone->lock);
#if COOLHAND_THERMAL_OPAQUE
	if (zone->tzd) {
		int i;

		passive = 0;
		for (i = 0; i < coolhand_tz_num_trips(zone); i++)
			if (zone->tz_reached[i] &&
			    zone->tz_trips[i].type == THERMAL_TRIP_PASSIVE)
				passive++;
	}
#else
	if (zone->tzd)
		passive = READ_ONCE(zone->tzd->passive);
#endif
	mutex_unlock(&zone->lock);
	return passive;
}

static int coolhand_cdev_get_max_state(struct thermal_cooling_device *cdev,
				       unsigned long *state)
{
	struct coolhand_throttle *thr = cdev->devdata;

	*state = thr->max_level;
	return 0;
}

static int coolhand_cdev_get_cur_state(struct thermal_cooling_device *cdev,
				       unsigned long *state)
{
	unsigned int level;
	int ret;

	ret = coolhand_throttle_get_level(cdev->devdata, &level);
	if (!ret)
		*state = level;
	return ret;
}

static int coolhand_cdev_set_cur_state(struct thermal_cooling_device *cdev,
				       unsigned long state)
{
	struct coolhand_throttle *thr = cdev->devdata;

	if (state > thr->max_level)
		return -EINVAL;
	return coolhand_throttle_set_level(thr, state);
}

/*
 * Requested power: the table's power at the current level, weighed by the
 * load the component reports when it has a load scale, with the integer
 * arithmetic of 6.1's cpufreq_cooling.c (power * load / 100, load 0 allowed)
 * and devfreq_cooling.c (power * load >> 10, load at least 1). The load is
 * kept for power2state, as those drivers keep their last load.
 */
static int coolhand_cdev_get_requested_power(struct thermal_cooling_device *cdev,
					     u32 *power)
{
	struct coolhand_throttle *thr = cdev->devdata;
	unsigned int level;
	u32 load = 0;
	int ret;

	ret = coolhand_throttle_get_level(thr, &level);
	if (ret)
		return ret;
	*power = thr->power_mw[level];
	if (!thr->load_scale)
		return 0;

	mutex_lock(&thr->lock);
	ret = thr->ops->get_load(thr, &load);
	if (!ret) {
		if (thr->load_scale == 1024)
			load = max(load, 1U);
		thr->load = load;
	}
	mutex_unlock(&thr->lock);
	if (ret)
		return ret;
	if (thr->load_scale == 1024)
		*power = (*power * load) >> 10;
	else
		*power = *power * load / 100;
	return 0;
}

static int coolhand_cdev_state2power(struct thermal_cooling_device *cdev,
				     unsigned long state, u32 *power)
{
	struct coolhand_throttle *thr = cdev->devdata;

	if (state > thr->max_level)
		return -EINVAL;
	*power = thr->power_mw[state];
	return 0;
}

/*
 * The least throttled level whose power fits in @power (mW), normalised to
 * full load by the last load when the component has a load scale (6.1's
 * cpufreq_power2state: power * 100 / (load ?: 1); devfreq_cooling_power2state:
 * (s32)(power << 10) / load). The deepest level is the fallback.
 */
static int coolhand_cdev_power2state(struct thermal_cooling_device *cdev,
				     u32 power, unsigned long *state)
{
	struct coolhand_throttle *thr = cdev->devdata;
	unsigned int level;
	u32 load;

	mutex_lock(&thr->lock);
	load = thr->load;
	mutex_unlock(&thr->lock);
	if (thr->load_scale == 100)
		power = power * 100 / (load ?: 1);
	else if (thr->load_scale == 1024)
		power = (s32)(power << 10) / (s32)max(load, 1U);

	for (level = 0; level < thr->max_level; level++)
		if (thr->power_mw[level] <= power)
			break;
	*state = level;
	return 0;
}

static const struct thermal_cooling_device_ops coolhand_cdev_ops = {
	.get_max_state = coolhand_cdev_get_max_state,
	.get_cur_state = coolhand_cdev_get_cur_state,
	.set_cur_state = coolhand_cdev_set_cur_state,
};

static const struct thermal_cooling_device_ops coolhand_cdev_power_ops = {
	.get_max_state = coolhand_cdev_get_max_state,
	.get_cur_state = coolhand_cdev_get_cur_state,
	.set_cur_state = coolhand_cdev_set_cur_state,
	.get_requested_power = coolhand_cdev_get_requested_power,
	.state2power = coolhand_cdev_state2power,
	.power2state = coolhand_cdev_power2state,
};

int coolhand_thermal_cdev_add(struct coolhand_throttle *thr)
{
	struct thermal_cooling_device *cdev;

	cdev = thermal_cooling_device_register(thr->name, thr,
					       thr->power_mw ?
					       &coolhand_cdev_power_ops :
					       &coolhand_cdev_ops);
	if (IS_ERR(cdev))
		return PTR_ERR(cdev);
	thr->cdev = cdev;
	return 0;
}

void coolhand_thermal_cdev_remove(struct coolhand_throttle *thr)
{
	thermal_cooling_device_unregister(thr->cdev);
	thr->cdev = NULL;
}

#if COOLHAND_THERMAL_OPAQUE
/*
 * 6.13+ binds only while a zone or a cooling device registers, asking the
 * zone's .should_bind. coolhand binds after both exist, so a binding change
 * re-registers the throttle's cooling device (it gets a new id) while
 * coolhand_lock is held: should_bind then answers from thr->bindings, plus
 * the binding being added, minus the one being dropped. New zones and
 * cooling devices have no bindings, so any other registration (with
 * coolhand_rebind_thr NULL) binds nothing.
 */
static struct coolhand_throttle *coolhand_rebind_thr;
static struct coolhand_binding *coolhand_rebind_add;
static struct coolhand_binding *coolhand_rebind_drop;

static bool coolhand_tz_should_bind(struct thermal_zone_device *tzd,
				    const struct thermal_trip *trip,
				    struct thermal_cooling_device *cdev,
				    struct cooling_spec *c)
{
	struct coolhand_zone *zone = coolhand_tz_priv(tzd);
	struct coolhand_throttle *thr = READ_ONCE(coolhand_rebind_thr);
	struct coolhand_binding *b;

	if (!thr || cdev->devdata != thr || trip->priv != zone)
		return false;
	b = coolhand_rebind_add;
	if (b && b->zone == zone) {
		c->weight = b->weight;
		return true;
	}
	list_for_each_entry(b, &thr->bindings, thr_node) {
		if (b->zone == zone && b != coolhand_rebind_drop) {
			c->weight = b->weight;
			return true;
		}
	}
	return false;
}

static int coolhand_thermal_rebind(struct coolhand_throttle *thr,
				   struct coolhand_binding *add,
				   struct coolhand_binding *drop)
{
	int ret;

	lockdep_assert_held(&coolhand_lock);

	coolhand_thermal_cdev_remove(thr);
	coolhand_rebind_add = add;
	coolhand_rebind_drop = drop;
	WRITE_ONCE(coolhand_rebind_thr, thr);
	ret = coolhand_thermal_cdev_add(thr);
	WRITE_ONCE(coolhand_rebind_thr, NULL);
	coolhand_rebind_add = NULL;
	coolhand_rebind_drop = NULL;
	return ret;
}

int coolhand_thermal_bind(struct coolhand_binding *b)
{
	int ret;

	lockdep_assert_held(&coolhand_lock);

	if (b->zone->tz_passive < 0)
		return 0;
	ret = coolhand_thermal_rebind(b->thr, b, NULL);
	if (ret)
		return ret;
	b->thermal_bound = true;
	return 0;
}

void coolhand_thermal_unbind(struct coolhand_binding *b)
{
	lockdep_assert_held(&coolhand_lock);

	if (!b->thermal_bound)
		return;
	b->thermal_bound = false;
	if (coolhand_thermal_rebind(b->thr, NULL, b))
		dev_err(b->thr->dev, "%s: cooling device re-registration failed\n",
			b->thr->name);
}
#else
/*
 * Bind the cooling device to the zone's passive trip, over its whole range.
 * Zones without a passive trip get no thermal binding (a critical trip
 * shuts down rather than throttles). coolhand bindings are made after both
 * objects exist, which the 6.1 core's .bind callbacks (run only when a
 * zone or cooling device registers) cannot express, so this binds
 * directly, as drivers binding at runtime do. Both objects stay registered
 * while coolhand_lock is held. The core's own list walk in
 * thermal_zone_bind_cooling_device() is unlocked in 6.1, like for every
 * such caller.
 */
int coolhand_thermal_bind(struct coolhand_binding *b)
{
	struct coolhand_zone *zone = b->zone;
	int ret;

	lockdep_assert_held(&coolhand_lock);

	if (zone->tz_passive < 0)
		return 0;
	ret = thermal_zone_bind_cooling_device(zone->tzd, zone->tz_passive,
					       b->thr->cdev, THERMAL_NO_LIMIT,
					       THERMAL_NO_LIMIT, b->weight);
	if (ret)
		return ret;
	b->thermal_bound = true;
	return 0;
}

void coolhand_thermal_unbind(struct coolhand_binding *b)
{
	lockdep_assert_held(&coolhand_lock);

	if (!b->thermal_bound)
		return;
	thermal_zone_unbind_cooling_device(b->zone->tzd, b->zone->tz_passive,
					   b->thr->cdev);
	b->thermal_bound = false;
}
#endif
