// SPDX-License-Identifier: GPL-2.0
/*
 * coolhand sysfs: the zone files of Table 1 of the paper (hwmon-style
 * names), the §3.8 event granularity files, and the throttling files added
 * to each component's device. Every store is range-checked: garbage and
 * out-of-range values get -EINVAL and change nothing. Temperatures in m°C.
 */

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "coolhand_internal.h"

/*
 * Parse exactly two decimal integers separated by blanks, with an optional
 * trailing newline. Anything else is -EINVAL.
 */
static int coolhand_parse_pair(const char *buf, size_t count, s64 *a, s64 *b)
{
	char tmp[64], *p, *tok[3];
	int n = 0;

	if (count >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, buf, count);
	tmp[count] = '\0';

	p = strim(tmp);
	while (p && *p && n < ARRAY_SIZE(tok)) {
		tok[n++] = strsep(&p, " \t");
		p = p ? skip_spaces(p) : NULL;
	}
	if (n != 2 || (p && *p))
		return -EINVAL;
	if (kstrtos64(tok[0], 10, a) || kstrtos64(tok[1], 10, b))
		return -EINVAL;
	return 0;
}

/* Alarm files accept only "0" (clear). */
static int coolhand_parse_clear(const char *buf)
{
	unsigned int v;

	if (kstrtouint(buf, 10, &v) || v != 0)
		return -EINVAL;
	return 0;
}

static ssize_t name_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", to_coolhand_zone(dev)->name);
}
static DEVICE_ATTR_RO(name);

static ssize_t kind_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  coolhand_kind_name(to_coolhand_zone(dev)->kind));
}
static DEVICE_ATTR_RO(kind);

/* A fresh sensor read; reading it clears temp1_alarm. */
static ssize_t temp1_input_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct coolhand_zone *zone = to_coolhand_zone(dev);
	int temp_mc, ret;

	mutex_lock(&zone->lock);
	ret = __coolhand_zone_read_temp(zone, &temp_mc);
	if (!ret)
		zone->temp_alarm = false;
	mutex_unlock(&zone->lock);
	if (ret)
		return ret;
	return sysfs_emit(buf, "%d\n", temp_mc);
}
static DEVICE_ATTR_RO(temp1_input);

/*
 * The alarm and trip files, one pair of functions for all of them: each
 * file's attribute says which flag or trip it shows.
 *   temp1_alarm          the temperature alarm (an event since temp1_input
 *                        was read)
 *   temp1_crit[_alarm]   the critical trip and its latched alarm
 *   temp1_passive[_alarm] the passive trip and its latched alarm
 * Alarm files accept "0" to clear. Trip tables are fixed at registration;
 * a zone without a trip hides its files (coolhand_trip_attr_visible).
 */
enum coolhand_attr_src {
	COOLHAND_SRC_TEMP,
	COOLHAND_SRC_PASSIVE,
	COOLHAND_SRC_CRIT,
};

struct coolhand_zone_attr {
	struct device_attribute dattr;
	enum coolhand_attr_src src;
};

#define to_coolhand_zone_attr(a) container_of(a, struct coolhand_zone_attr, dattr)

#define COOLHAND_ZONE_ATTR(_name, _mode, _show, _store, _src)		\
	static struct coolhand_zone_attr coolhand_attr_##_name = {	\
		.dattr = __ATTR(_name, _mode, _show, _store),		\
		.src = _src,						\
	}

/* Index in zone->trips of the trip behind @src, or -1. */
static int coolhand_src_trip(const struct coolhand_zone *zone,
			     enum coolhand_attr_src src)
{
	if (src == COOLHAND_SRC_CRIT)
		return zone->crit;
	if (src == COOLHAND_SRC_PASSIVE)
		return zone->passive;
	return -1;
}

/* The alarm flag behind @src, or NULL for a missing trip. */
static bool *__coolhand_alarm(struct coolhand_zone *zone,
			      enum coolhand_attr_src src)
{
	int idx;

	lockdep_assert_held(&zone->lock);

	if (src == COOLHAND_SRC_TEMP)
		return &zone->temp_alarm;
	idx = coolhand_src_trip(zone, src);
	return idx < 0 ? NULL : &zone->trips[idx].alarm;
}

static ssize_t coolhand_alarm_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	struct coolhand_zone *zone = to_coolhand_zone(dev);
	bool *alarm, value = false;

	mutex_lock(&zone->lock);
	alarm = __coolhand_alarm(zone, to_coolhand_zone_attr(attr)->src);
	if (alarm)
		value = *alarm;
	mutex_unlock(&zone->lock);
	if (!alarm)
		return -ENODATA;
	return sysfs_emit(buf, "%d\n", value);
}

static ssize_t coolhand_alarm_store(struct device *dev,
				    struct device_attribute *attr,
				    const char *buf, size_t count)
{
	struct coolhand_zone *zone = to_coolhand_zone(dev);
	bool *alarm;

	if (coolhand_parse_clear(buf))
		return -EINVAL;
	mutex_lock(&zone->lock);
	alarm = __coolhand_alarm(zone, to_coolhand_zone_attr(attr)->src);
	if (alarm)
		*alarm = false;
	mutex_unlock(&zone->lock);
	return alarm ? count : -ENODATA;
}

static ssize_t coolhand_trip_temp_show(struct device *dev,
				       struct device_attribute *attr,
				       char *buf)
{
	struct coolhand_zone *zone = to_coolhand_zone(dev);
	int idx = coolhand_src_trip(zone, to_coolhand_zone_attr(attr)->src);

	if (idx < 0)
		return -ENODATA;
	return sysfs_emit(buf, "%d\n", zone->trips[idx].trip.temp_mc);
}

COOLHAND_ZONE_ATTR(temp1_alarm, 0644, coolhand_alarm_show,
		   coolhand_alarm_store, COOLHAND_SRC_TEMP);
COOLHAND_ZONE_ATTR(temp1_crit, 0444, coolhand_trip_temp_show, NULL,
		   COOLHAND_SRC_CRIT);
COOLHAND_ZONE_ATTR(temp1_crit_alarm, 0644, coolhand_alarm_show,
		   coolhand_alarm_store, COOLHAND_SRC_CRIT);
COOLHAND_ZONE_ATTR(temp1_passive, 0444, coolhand_trip_temp_show, NULL,
		   COOLHAND_SRC_PASSIVE);
COOLHAND_ZONE_ATTR(temp1_passive_alarm, 0644, coolhand_alarm_show,
		   coolhand_alarm_store, COOLHAND_SRC_PASSIVE);

static ssize_t event_mode_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct coolhand_zone *zone = to_coolhand_zone(dev);
	enum coolhand_event_mode mode;

	mutex_lock(&zone->lock);
	mode = zone->mode;
	mutex_unlock(&zone->lock);
	return sysfs_emit(buf, "%s\n",
			  mode == COOLHAND_EVENT_WINDOW ? "window" : "step");
}
static DEVICE_ATTR_RO(event_mode);

/* "<below> <above>" in m°C; writing selects step mode. */
static ssize_t event_step_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct coolhand_zone *zone = to_coolhand_zone(dev);
	u32 below, above;

	mutex_lock(&zone->lock);
	below = zone->step_below_mc;
	above = zone->step_above_mc;
	mutex_unlock(&zone->lock);
	return sysfs_emit(buf, "%u %u\n", below, above);
}

static ssize_t event_step_store(struct device *dev,
				struct device_attribute *attr,
				const char *buf, size_t count)
{
	struct coolhand_zone *zone = to_coolhand_zone(dev);
	s64 below, above;

	if (coolhand_parse_pair(buf, count, &below, &above) ||
	    below < COOLHAND_STEP_MIN_MC || below > COOLHAND_STEP_MAX_MC ||
	    above < COOLHAND_STEP_MIN_MC || above > COOLHAND_STEP_MAX_MC)
		return -EINVAL;
	return coolhand_zone_set_steps(zone, below, above) ?: count;
}
static DEVICE_ATTR_RW(event_step);

/* "<low> <high>" in m°C: the effective window; writing selects window mode. */
static ssize_t event_window_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct coolhand_zone *zone = to_coolhand_zone(dev);
	int low, high;

	mutex_lock(&zone->lock);
	__coolhand_event_window(zone, &low, &high);
	mutex_unlock(&zone->lock);
	return sysfs_emit(buf, "%d %d\n", low, high);
}

static ssize_t event_window_store(struct device *dev,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	struct coolhand_zone *zone = to_coolhand_zone(dev);
	s64 low, high;

	if (coolhand_parse_pair(buf, count, &low, &high) ||
	    low < COOLHAND_TEMP_MIN_MC || high > COOLHAND_TEMP_MAX_MC ||
	    low >= high)
		return -EINVAL;
	return coolhand_zone_set_window(zone, low, high) ?: count;
}
static DEVICE_ATTR_RW(event_window);

/* tz->passive of the mirrored thermal zone (see coolhand_thermal_passive). */
static ssize_t thermal_passive_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	int passive = coolhand_thermal_passive(to_coolhand_zone(dev));

	if (passive < 0)
		return passive;
	return sysfs_emit(buf, "%d\n", passive);
}
static DEVICE_ATTR_RO(thermal_passive);

static struct attribute *coolhand_zone_attrs[] = {
	&dev_attr_name.attr,
	&dev_attr_kind.attr,
	&dev_attr_temp1_input.attr,
	&coolhand_attr_temp1_alarm.dattr.attr,
	&dev_attr_event_mode.attr,
	&dev_attr_event_step.attr,
	&dev_attr_event_window.attr,
	&dev_attr_thermal_passive.attr,
	NULL
};

static const struct attribute_group coolhand_zone_group = {
	.attrs = coolhand_zone_attrs,
};

/* Every file here is a struct coolhand_zone_attr of a trip. */
static struct attribute *coolhand_trip_attrs[] = {
	&coolhand_attr_temp1_crit.dattr.attr,
	&coolhand_attr_temp1_crit_alarm.dattr.attr,
	&coolhand_attr_temp1_passive.dattr.attr,
	&coolhand_attr_temp1_passive_alarm.dattr.attr,
	NULL
};

/* The crit and passive files exist only when the zone has that trip. */
static umode_t coolhand_trip_attr_visible(struct kobject *kobj,
					  struct attribute *attr, int n)
{
	struct coolhand_zone *zone = to_coolhand_zone(kobj_to_dev(kobj));
	struct device_attribute *dattr =
		container_of(attr, struct device_attribute, attr);

	if (coolhand_src_trip(zone, to_coolhand_zone_attr(dattr)->src) < 0)
		return 0;
	return attr->mode;
}

static const struct attribute_group coolhand_trip_group = {
	.attrs = coolhand_trip_attrs,
	.is_visible = coolhand_trip_attr_visible,
};

const struct attribute_group *coolhand_zone_groups[] = {
	&coolhand_zone_group,
	&coolhand_trip_group,
	NULL
};

/* Throttling files, added to the component's own device (§3.5). */
static ssize_t throttling_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct coolhand_throttle *thr =
		container_of(attr, struct coolhand_throttle, attr_throttling);
	unsigned int level;
	int ret;

	ret = coolhand_throttle_get_level(thr, &level);
	if (ret)
		return ret;
	return sysfs_emit(buf, "%u\n", level);
}

static ssize_t throttling_store(struct device *dev,
				struct device_attribute *attr,
				const char *buf, size_t count)
{
	struct coolhand_throttle *thr =
		container_of(attr, struct coolhand_throttle, attr_throttling);
	unsigned int level;
	int ret;

	if (kstrtouint(buf, 10, &level) || level > thr->max_level)
		return -EINVAL;
	ret = coolhand_throttle_set_level(thr, level);
	return ret ?: count;
}

static ssize_t throttling_max_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	struct coolhand_throttle *thr =
		container_of(attr, struct coolhand_throttle,
			     attr_throttling_max);

	return sysfs_emit(buf, "%u\n", thr->max_level);
}

void coolhand_throttle_init_attrs(struct coolhand_throttle *thr)
{
	struct device_attribute *a;

	a = &thr->attr_throttling;
	sysfs_attr_init(&a->attr);
	a->attr.name = "throttling";
	a->attr.mode = 0644;
	a->show = throttling_show;
	a->store = throttling_store;

	a = &thr->attr_throttling_max;
	sysfs_attr_init(&a->attr);
	a->attr.name = "throttling_max";
	a->attr.mode = 0444;
	a->show = throttling_max_show;

	thr->attrs[0] = &thr->attr_throttling.attr;
	thr->attrs[1] = &thr->attr_throttling_max.attr;
	thr->attrs[2] = NULL;
	thr->group.attrs = thr->attrs;
}
