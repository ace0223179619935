// SPDX-License-Identifier: GPL-2.0
/*
 * coolhand core: the platform-independent "thermal sysfs driver" of §3.2 of
 * "Cool Hand Linux" (OLS 2007). Sensor drivers register zones, component
 * drivers register throttle controls, platform code binds them. The core
 * decides which temperature changes are worth an event (the granularity
 * user space asked for), tracks trip crossings, applies throttling levels
 * and hands everything to sysfs, netlink and the thermal framework.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "coolhand_internal.h"

unsigned int coolhand_default_step_mc = 1000;
module_param_named(default_step_mc, coolhand_default_step_mc, uint, 0444);
MODULE_PARM_DESC(default_step_mc,
		 "Event step below and above the last reported temperature of a new zone, m°C (1..100000, default 1000)");

/* Guards the id maps and every binding list (coolhand_internal.h). */
DEFINE_MUTEX(coolhand_lock);
DEFINE_IDR(coolhand_zone_idr);
DEFINE_IDR(coolhand_throttle_idr);

struct class coolhand_class = {
	.name = "coolhand",
#if !COOLHAND_THERMAL_OPAQUE
	.owner = THIS_MODULE,
#endif
};

static const char * const coolhand_kind_names[] = {
	[COOLHAND_KIND_CPU] = "cpu",
	[COOLHAND_KIND_COMPONENT] = "component",
	[COOLHAND_KIND_CLUSTER] = "cluster",
	[COOLHAND_KIND_SKIN] = "skin",
};

const char *coolhand_kind_name(enum coolhand_zone_kind kind)
{
	if ((unsigned int)kind >= ARRAY_SIZE(coolhand_kind_names))
		return "unknown";
	return coolhand_kind_names[kind];
}

/**
 * coolhand_kind_parse() - parse a zone kind name
 * @s: "cpu", "component", "cluster" or "skin" (as shown in the zone's
 *     "kind" file), optionally followed by a newline
 * @kind: the kind, set on success
 *
 * For drivers that take the kind of a sensor from firmware or a parameter.
 *
 * Return: 0 or -EINVAL.
 */
int coolhand_kind_parse(const char *s, enum coolhand_zone_kind *kind)
{
	int i = sysfs_match_string(coolhand_kind_names, s);

	if (i < 0)
		return -EINVAL;
	*kind = i;
	return 0;
}
EXPORT_SYMBOL_GPL(coolhand_kind_parse);

/* Reads the sensor; the caller holds zone->lock. */
int __coolhand_zone_read_temp(struct coolhand_zone *zone, int *temp_mc)
{
	lockdep_assert_held(&zone->lock);
	return zone->ops->read_temp(zone, temp_mc);
}

int coolhand_zone_read_temp(struct coolhand_zone *zone, int *temp_mc)
{
	int ret;

	mutex_lock(&zone->lock);
	ret = __coolhand_zone_read_temp(zone, temp_mc);
	mutex_unlock(&zone->lock);
	return ret;
}

static int coolhand_clamp_mc(s64 v)
{
	return clamp_t(s64, v, INT_MIN, INT_MAX);
}

/*
 * The event window (low, high) of a zone, in m°C: a sample T is reported
 * when T <= low or T >= high. Step mode centres it on the last reported
 * temperature R: (R - step_below, R + step_above); since steps are >= 1 an
 * unchanged temperature is never reported. Window mode uses the fixed
 * window user space set.
 */
void __coolhand_event_window(struct coolhand_zone *zone, int *low, int *high)
{
	lockdep_assert_held(&zone->lock);

	if (zone->mode == COOLHAND_EVENT_WINDOW) {
		*low = zone->win_low_mc;
		*high = zone->win_high_mc;
	} else {
		*low = coolhand_clamp_mc((s64)zone->reported_mc -
					 zone->step_below_mc);
		*high = coolhand_clamp_mc((s64)zone->reported_mc +
					  zone->step_above_mc);
	}
}

/*
 * Program the sensor's interrupt window. It is the intersection of
 * - the event window (the granularity user space asked for),
 * - the next crossing of every trip: a reached trip is left at
 *   T <= temp - hyst - 1, an unreached one is crossed at T >= temp,
 * - the window the thermal core asked for through set_trips,
 * so the sensor interrupts for every change any consumer cares about and
 * for nothing else. Unchanged windows are not reprogrammed.
 */
void __coolhand_zone_program(struct coolhand_zone *zone)
{
	int low, high;
	unsigned int i;

	lockdep_assert_held(&zone->lock);

	if (!zone->ops->set_window)
		return;

	__coolhand_event_window(zone, &low, &high);
	for (i = 0; i < zone->num_trips; i++) {
		const struct coolhand_trip_state *ts = &zone->trips[i];

		if (ts->reached)
			low = max(low, coolhand_clamp_mc((s64)ts->trip.temp_mc -
							 ts->trip.hyst_mc - 1));
		else
			high = min(high, ts->trip.temp_mc);
	}
	low = max(low, zone->tz_low_mc);
	high = min(high, zone->tz_high_mc);

	if (zone->hw_valid && zone->hw_low_mc == low && zone->hw_high_mc == high)
		return;
	if (zone->ops->set_window(zone, low, high)) {
		zone->hw_valid = false;
		dev_err_ratelimited(&zone->dev, "cannot set sensor window\n");
		return;
	}
	zone->hw_low_mc = low;
	zone->hw_high_mc = high;
	zone->hw_valid = true;
}

/*
 * Evaluate a fresh sample T of a zone:
 * - T is meaningful when it lies outside the event window (see
 *   __coolhand_event_window). Then it is reported (EVENT_TEMP, carrying the
 *   previously reported temperature), becomes the new reported temperature
 *   and sets temp1_alarm.
 * - A trip is crossed upward when T >= its temp while not reached: it
 *   becomes reached, its alarm latches, EVENT_TRIP(UP) is sent. A reached
 *   trip is crossed downward when T < temp - hyst: EVENT_TRIP(DOWN). Trip
 *   events do not depend on the event window.
 * - The sensor window is then reprogrammed.
 * Events are sent with zone->lock held so that they leave in the order the
 * samples were evaluated.
 */
static void __coolhand_zone_evaluate(struct coolhand_zone *zone, int temp_mc)
{
	u64 now_ns = ktime_get_ns();
	int low, high;
	unsigned int i;

	lockdep_assert_held(&zone->lock);

	__coolhand_event_window(zone, &low, &high);
	if (temp_mc <= low || temp_mc >= high) {
		coolhand_event_temp(zone->id, temp_mc, zone->reported_mc,
				    now_ns);
		zone->reported_mc = temp_mc;
		zone->temp_alarm = true;
	}

	for (i = 0; i < zone->num_trips; i++) {
		struct coolhand_trip_state *ts = &zone->trips[i];

		if (!ts->reached && temp_mc >= ts->trip.temp_mc) {
			ts->reached = true;
			ts->alarm = true;
			coolhand_event_trip(zone->id, ts->trip.type,
					    COOLHAND_TRIP_UP, ts->trip.temp_mc,
					    temp_mc, now_ns);
		} else if (ts->reached &&
			   (s64)temp_mc < (s64)ts->trip.temp_mc - ts->trip.hyst_mc) {
			ts->reached = false;
			if (ts->trip.type == COOLHAND_TRIP_CRITICAL)
				zone->crit_logged = false;
			coolhand_event_trip(zone->id, ts->trip.type,
					    COOLHAND_TRIP_DOWN, ts->trip.temp_mc,
					    temp_mc, now_ns);
		}
	}

	__coolhand_zone_program(zone);
}

/**
 * coolhand_zone_notify() - tell the core that a zone's temperature changed
 * @zone: the zone
 *
 * Called by a sensor driver when the temperature left the window given to
 * set_window (its interrupt), and by the core's polling for other sensors.
 * Reads the sensor, sends the events the change deserves and lets the
 * thermal core's governor run. Must not be called concurrently with or after
 * coolhand_zone_unregister() of @zone; may sleep.
 *
 * Return: 0, or the error of the sensor read.
 */
int coolhand_zone_notify(struct coolhand_zone *zone)
{
	int temp_mc, ret;

	mutex_lock(&zone->lock);
	ret = __coolhand_zone_read_temp(zone, &temp_mc);
	if (!ret)
		__coolhand_zone_evaluate(zone, temp_mc);
	mutex_unlock(&zone->lock);

	if (!ret)
		coolhand_thermal_update(zone);
	return ret;
}
EXPORT_SYMBOL_GPL(coolhand_zone_notify);

/**
 * coolhand_zone_set_steps() - event granularity around the current temperature
 * @zone: the zone
 * @below_mc: report temperatures <= reported - @below_mc, m°C
 * @above_mc: report temperatures >= reported + @above_mc, m°C
 *
 * Switches the zone to step mode. Steps must be within
 * COOLHAND_STEP_MIN_MC..COOLHAND_STEP_MAX_MC.
 *
 * Return: 0 or -EINVAL (nothing changed).
 */
int coolhand_zone_set_steps(struct coolhand_zone *zone, u32 below_mc,
			    u32 above_mc)
{
	if (below_mc < COOLHAND_STEP_MIN_MC || below_mc > COOLHAND_STEP_MAX_MC ||
	    above_mc < COOLHAND_STEP_MIN_MC || above_mc > COOLHAND_STEP_MAX_MC)
		return -EINVAL;

	mutex_lock(&zone->lock);
	zone->mode = COOLHAND_EVENT_STEP;
	zone->step_below_mc = below_mc;
	zone->step_above_mc = above_mc;
	__coolhand_zone_program(zone);
	mutex_unlock(&zone->lock);
	return 0;
}

/**
 * coolhand_zone_set_window() - fixed event window
 * @zone: the zone
 * @low_mc: report temperatures <= @low_mc, m°C
 * @high_mc: report temperatures >= @high_mc, m°C
 *
 * Switches the zone to window mode: every sample outside (@low_mc, @high_mc)
 * is reported until user space moves the window. Both limits must lie in
 * COOLHAND_TEMP_MIN_MC..COOLHAND_TEMP_MAX_MC and @low_mc < @high_mc.
 *
 * Return: 0 or -EINVAL (nothing changed).
 */
int coolhand_zone_set_window(struct coolhand_zone *zone, int low_mc,
			     int high_mc)
{
	if (low_mc < COOLHAND_TEMP_MIN_MC || high_mc > COOLHAND_TEMP_MAX_MC ||
	    low_mc >= high_mc)
		return -EINVAL;

	mutex_lock(&zone->lock);
	zone->mode = COOLHAND_EVENT_WINDOW;
	zone->win_low_mc = low_mc;
	zone->win_high_mc = high_mc;
	__coolhand_zone_program(zone);
	mutex_unlock(&zone->lock);
	return 0;
}

static void coolhand_zone_poll(struct work_struct *work)
{
	struct coolhand_zone *zone = container_of(to_delayed_work(work),
						  struct coolhand_zone,
						  poll_work);

	coolhand_zone_notify(zone);
	queue_delayed_work(system_freezable_power_efficient_wq,
			   &zone->poll_work, msecs_to_jiffies(zone->poll_ms));
}

static void coolhand_zone_release(struct device *dev)
{
	kfree(to_coolhand_zone(dev));
}

int coolhand_check_name(const char *name)
{
	if (!name || !name[0] || strlen(name) >= COOLHAND_NAME_LEN)
		return -EINVAL;
	return 0;
}

static int coolhand_check_sensor_desc(const struct coolhand_sensor_desc *desc)
{
	bool seen[2] = { false, false };
	unsigned int i;

	if (!desc || coolhand_check_name(desc->name) || !desc->ops ||
	    !desc->ops->read_temp ||
	    (unsigned int)desc->kind >= ARRAY_SIZE(coolhand_kind_names))
		return -EINVAL;
	if (!desc->ops->set_window && !desc->poll_ms)
		return -EINVAL;
	if (desc->num_trips > COOLHAND_MAX_TRIPS ||
	    (desc->num_trips && !desc->trips))
		return -EINVAL;
	if (desc->governor && strlen(desc->governor) >= THERMAL_NAME_LENGTH)
		return -EINVAL;

	for (i = 0; i < desc->num_trips; i++) {
		const struct coolhand_trip *t = &desc->trips[i];

		if ((unsigned int)t->type >= ARRAY_SIZE(seen) || seen[t->type])
			return -EINVAL;
		if (t->temp_mc <= 0 || t->temp_mc > COOLHAND_TEMP_MAX_MC ||
		    t->hyst_mc < 0 || t->hyst_mc > t->temp_mc)
			return -EINVAL;
		seen[t->type] = true;
	}
	if (desc->tz_alert.temp_mc &&
	    (!seen[COOLHAND_TRIP_PASSIVE] || desc->tz_alert.temp_mc < 0 ||
	     desc->tz_alert.hyst_mc < 0 ||
	     desc->tz_alert.hyst_mc > desc->tz_alert.temp_mc))
		return -EINVAL;
	for (i = 0; desc->tz_alert.temp_mc && i < desc->num_trips; i++)
		if (desc->trips[i].type == COOLHAND_TRIP_PASSIVE &&
		    desc->tz_alert.temp_mc >= desc->trips[i].temp_mc)
			return -EINVAL;
	return 0;
}

static void coolhand_zone_init_state(struct coolhand_zone *zone,
				     const struct coolhand_sensor_desc *desc)
{
	unsigned int i;

	zone->passive = -1;
	zone->crit = -1;
	zone->num_trips = desc->num_trips;
	for (i = 0; i < desc->num_trips; i++) {
		zone->trips[i].trip = desc->trips[i];
		if (desc->trips[i].type == COOLHAND_TRIP_PASSIVE)
			zone->passive = i;
		else
			zone->crit = i;
	}
	zone->mode = COOLHAND_EVENT_STEP;
	zone->step_below_mc = coolhand_default_step_mc;
	zone->step_above_mc = coolhand_default_step_mc;
	zone->tz_low_mc = INT_MIN;
	zone->tz_high_mc = INT_MAX;
	zone->tz_alert = desc->tz_alert;
	if (desc->governor)
		strscpy(zone->tz_governor, desc->governor,
			sizeof(zone->tz_governor));
}

/**
 * coolhand_zone_register() - register a sensor as a coolhand zone
 * @parent: the sensor's device, or NULL
 * @desc: name, kind, ops and trips; only @desc->ops must outlive the zone
 * @drvdata: driver data, see coolhand_zone_get_drvdata()
 *
 * Creates /sys/class/coolhand/zone<id>, mirrors the zone into the thermal
 * framework and reads the first temperature (no event). Trips already
 * exceeded at registration are reported by the first notify.
 *
 * Return: the zone or an ERR_PTR().
 */
struct coolhand_zone *
coolhand_zone_register(struct device *parent,
		       const struct coolhand_sensor_desc *desc, void *drvdata)
{
	struct coolhand_zone *zone;
	int temp_mc, ret;

	ret = coolhand_check_sensor_desc(desc);
	if (ret)
		return ERR_PTR(ret);

	zone = kzalloc(sizeof(*zone), GFP_KERNEL);
	if (!zone)
		return ERR_PTR(-ENOMEM);

	strscpy(zone->name, desc->name, sizeof(zone->name));
	zone->kind = desc->kind;
	zone->ops = desc->ops;
	zone->drvdata = drvdata;
	zone->poll_ms = desc->poll_ms;
	mutex_init(&zone->lock);
	INIT_LIST_HEAD(&zone->bindings);
	INIT_DELAYED_WORK(&zone->poll_work, coolhand_zone_poll);
	coolhand_zone_init_state(zone, desc);

	mutex_lock(&zone->lock);
	ret = __coolhand_zone_read_temp(zone, &temp_mc);
	mutex_unlock(&zone->lock);
	if (ret)
		goto err_free;
	zone->reported_mc = temp_mc;

	mutex_lock(&coolhand_lock);
	ret = idr_alloc(&coolhand_zone_idr, NULL, 0, 0, GFP_KERNEL);
	mutex_unlock(&coolhand_lock);
	if (ret < 0)
		goto err_free;
	zone->id = ret;

	device_initialize(&zone->dev);
	zone->dev.class = &coolhand_class;
	zone->dev.parent = parent;
	zone->dev.groups = coolhand_zone_groups;
	zone->dev.release = coolhand_zone_release;
	ret = dev_set_name(&zone->dev, "zone%d", zone->id);
	if (ret)
		goto err_put;
	ret = device_add(&zone->dev);
	if (ret)
		goto err_put;

	mutex_lock(&zone->lock);
	__coolhand_zone_program(zone);
	mutex_unlock(&zone->lock);

	ret = coolhand_thermal_zone_add(zone);
	if (ret)
		goto err_del;

	if (!zone->ops->set_window)
		queue_delayed_work(system_freezable_power_efficient_wq,
				   &zone->poll_work,
				   msecs_to_jiffies(zone->poll_ms));

	mutex_lock(&coolhand_lock);
	idr_replace(&coolhand_zone_idr, zone, zone->id);
	mutex_unlock(&coolhand_lock);
	return zone;

err_del:
	device_del(&zone->dev);
err_put:
	mutex_lock(&coolhand_lock);
	idr_remove(&coolhand_zone_idr, zone->id);
	mutex_unlock(&coolhand_lock);
	put_device(&zone->dev);
	return ERR_PTR(ret);
err_free:
	kfree(zone);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(coolhand_zone_register);

void __coolhand_binding_free(struct coolhand_binding *b)
{
	lockdep_assert_held(&coolhand_lock);

	coolhand_thermal_unbind(b);
	sysfs_remove_link(&b->zone->dev.kobj, dev_name(b->thr->dev));
	list_del(&b->zone_node);
	list_del(&b->thr_node);
	kfree(b);
}

/**
 * coolhand_zone_unregister() - remove a zone
 * @zone: the zone, or NULL
 *
 * Unbinds its throttle controls and removes it from sysfs, netlink and the
 * thermal framework. No zone op is called after this returns.
 */
void coolhand_zone_unregister(struct coolhand_zone *zone)
{
	struct coolhand_binding *b, *tmp;

	if (!zone)
		return;

	mutex_lock(&coolhand_lock);
	idr_remove(&coolhand_zone_idr, zone->id);
	list_for_each_entry_safe(b, tmp, &zone->bindings, zone_node)
		__coolhand_binding_free(b);
	mutex_unlock(&coolhand_lock);

	cancel_delayed_work_sync(&zone->poll_work);
	coolhand_thermal_zone_remove(zone);
	device_unregister(&zone->dev);
}
EXPORT_SYMBOL_GPL(coolhand_zone_unregister);

void *coolhand_zone_get_drvdata(struct coolhand_zone *zone)
{
	return zone->drvdata;
}
EXPORT_SYMBOL_GPL(coolhand_zone_get_drvdata);

int coolhand_zone_id(struct coolhand_zone *zone)
{
	return zone->id;
}
EXPORT_SYMBOL_GPL(coolhand_zone_id);

static int __init coolhand_init(void)
{
	int ret;

	if (coolhand_default_step_mc < COOLHAND_STEP_MIN_MC ||
	    coolhand_default_step_mc > COOLHAND_STEP_MAX_MC) {
		pr_err("default_step_mc must be %d..%d\n",
		       COOLHAND_STEP_MIN_MC, COOLHAND_STEP_MAX_MC);
		return -EINVAL;
	}

	ret = class_register(&coolhand_class);
	if (ret)
		return ret;
	ret = coolhand_netlink_init();
	if (ret)
		goto err_unregister_class;
	return 0;

err_unregister_class:
	class_unregister(&coolhand_class);
	return ret;
}

static void __exit coolhand_exit(void)
{
	coolhand_netlink_exit();
	class_unregister(&coolhand_class);
	idr_destroy(&coolhand_zone_idr);
	idr_destroy(&coolhand_throttle_idr);
}

module_init(coolhand_init);
module_exit(coolhand_exit);

MODULE_DESCRIPTION("coolhand: thermal zones, throttling controls and netlink thermal events for handhelds");
MODULE_AUTHOR("coolhand developers");
MODULE_LICENSE("GPL");
