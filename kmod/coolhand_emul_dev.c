// SPDX-License-Identifier: GPL-2.0
/*
 * coolhand_emul.ko's emulated sensors and components: the coolhand sensor
 * and throttle ops of each and their files under /sys/devices/coolhand_emul
 * (sensor<i>/{temp,notify,window,interrupts}, throttle<i>/load). Split
 * from the platform setup in coolhand_emul_main.c.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "coolhand_emul.h"

static int coolhand_emul_read_temp(struct coolhand_zone *zone, int *temp_mc)
{
	struct coolhand_emul_sensor *s = coolhand_zone_get_drvdata(zone);

	spin_lock(&s->lock);
	*temp_mc = s->temp_mc;
	spin_unlock(&s->lock);
	return 0;
}

static int coolhand_emul_set_window(struct coolhand_zone *zone, int low_mc,
				    int high_mc)
{
	struct coolhand_emul_sensor *s = coolhand_zone_get_drvdata(zone);

	spin_lock(&s->lock);
	s->low_mc = low_mc;
	s->high_mc = high_mc;
	spin_unlock(&s->lock);
	return 0;
}

const struct coolhand_sensor_ops coolhand_emul_sensor_ops = {
	.read_temp = coolhand_emul_read_temp,
	.set_window = coolhand_emul_set_window,
};

static ssize_t temp_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct coolhand_emul_sensor *s = to_emul_sensor(dev);
	int temp_mc;

	spin_lock(&s->lock);
	temp_mc = s->temp_mc;
	spin_unlock(&s->lock);
	return sysfs_emit(buf, "%d\n", temp_mc);
}

/* Set the temperature; interrupt when it left the programmed window. */
static ssize_t temp_store(struct device *dev, struct device_attribute *attr,
			  const char *buf, size_t count)
{
	struct coolhand_emul_sensor *s = to_emul_sensor(dev);
	bool interrupt;
	int temp_mc;

	if (kstrtoint(buf, 10, &temp_mc) || temp_mc < COOLHAND_TEMP_MIN_MC ||
	    temp_mc > COOLHAND_TEMP_MAX_MC)
		return -EINVAL;

	mutex_lock(&s->notify_lock);
	spin_lock(&s->lock);
	s->temp_mc = temp_mc;
	interrupt = !emul_lockstep &&
		    (temp_mc <= s->low_mc || temp_mc >= s->high_mc);
	if (interrupt)
		s->interrupts++;
	spin_unlock(&s->lock);
	if (interrupt && s->zone)
		coolhand_zone_notify(s->zone);
	mutex_unlock(&s->notify_lock);
	return count;
}
static DEVICE_ATTR_RW(temp);

/*
 * Writing 1 raises the interrupt now, whatever the window: the EC's update
 * of the zone (coolhand events, then thermal_zone_device_update). Lock-step
 * drivers call it once per zone update they want the thermal core to make.
 */
static ssize_t notify_store(struct device *dev, struct device_attribute *attr,
			    const char *buf, size_t count)
{
	struct coolhand_emul_sensor *s = to_emul_sensor(dev);
	unsigned int v;
	int ret = 0;

	if (kstrtouint(buf, 10, &v) || v != 1)
		return -EINVAL;
	mutex_lock(&s->notify_lock);
	spin_lock(&s->lock);
	s->interrupts++;
	spin_unlock(&s->lock);
	if (s->zone)
		ret = coolhand_zone_notify(s->zone);
	else
		ret = -ENODEV;
	mutex_unlock(&s->notify_lock);
	return ret ?: count;
}
static DEVICE_ATTR_WO(notify);

static ssize_t window_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct coolhand_emul_sensor *s = to_emul_sensor(dev);
	int low, high;

	spin_lock(&s->lock);
	low = s->low_mc;
	high = s->high_mc;
	spin_unlock(&s->lock);
	return sysfs_emit(buf, "%d %d\n", low, high);
}
static DEVICE_ATTR_RO(window);

static ssize_t interrupts_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct coolhand_emul_sensor *s = to_emul_sensor(dev);
	unsigned long n;

	spin_lock(&s->lock);
	n = s->interrupts;
	spin_unlock(&s->lock);
	return sysfs_emit(buf, "%lu\n", n);
}
static DEVICE_ATTR_RO(interrupts);

static struct attribute *coolhand_emul_sensor_attrs[] = {
	&dev_attr_temp.attr,
	&dev_attr_window.attr,
	&dev_attr_interrupts.attr,
	&dev_attr_notify.attr,
	NULL
};

static const struct attribute_group coolhand_emul_sensor_group = {
	.attrs = coolhand_emul_sensor_attrs,
};

const struct attribute_group *coolhand_emul_sensor_groups[] = {
	&coolhand_emul_sensor_group,
	NULL
};

static int coolhand_emul_get_level(struct coolhand_throttle *thr,
				   unsigned int *level)
{
	struct coolhand_emul_device *d = coolhand_throttle_get_drvdata(thr);

	*level = d->level;
	return 0;
}

static int coolhand_emul_set_level(struct coolhand_throttle *thr,
				   unsigned int level)
{
	struct coolhand_emul_device *d = coolhand_throttle_get_drvdata(thr);

	d->level = level;
	return 0;
}

static int coolhand_emul_get_load(struct coolhand_throttle *thr, u32 *load)
{
	struct coolhand_emul_device *d = coolhand_throttle_get_drvdata(thr);

	*load = atomic_read(&d->load);
	return 0;
}

const struct coolhand_throttle_ops coolhand_emul_throttle_ops = {
	.get_level = coolhand_emul_get_level,
	.set_level = coolhand_emul_set_level,
	.get_load = coolhand_emul_get_load,
};

/*
 * The component's load as its driver would measure it (busy time since
 * the previous request), in 1/load_scale; set by whoever drives the
 * emulated workload. Only read with a load scale.
 */
static ssize_t load_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&to_emul_device(dev)->load));
}

static ssize_t load_store(struct device *dev, struct device_attribute *attr,
			  const char *buf, size_t count)
{
	unsigned int load;

	if (kstrtouint(buf, 10, &load) || load > 1024)
		return -EINVAL;
	atomic_set(&to_emul_device(dev)->load, load);
	return count;
}
static DEVICE_ATTR_RW(load);

static struct attribute *coolhand_emul_device_attrs[] = {
	&dev_attr_load.attr,
	NULL
};

static const struct attribute_group coolhand_emul_device_group = {
	.attrs = coolhand_emul_device_attrs,
};

const struct attribute_group *coolhand_emul_device_groups[] = {
	&coolhand_emul_device_group,
	NULL
};

void coolhand_emul_sensor_release(struct device *dev)
{
	kfree(to_emul_sensor(dev));
}

void coolhand_emul_device_release(struct device *dev)
{
	kfree(to_emul_device(dev));
}
