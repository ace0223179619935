// SPDX-License-Identifier: GPL-2.0
/*
 * coolhand throttle controls: component drivers register them, the core
 * applies and reports their levels, and platform code binds them to zones
 * (split from coolhand_core.c, which keeps the zones and the module).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "coolhand_internal.h"

int coolhand_throttle_get_level(struct coolhand_throttle *thr,
				unsigned int *level)
{
	unsigned int l;
	int ret;

	mutex_lock(&thr->lock);
	ret = thr->ops->get_level(thr, &l);
	if (!ret && l > thr->max_level)
		ret = -EIO;
	if (!ret) {
		thr->level = l;
		*level = l;
	}
	mutex_unlock(&thr->lock);
	return ret;
}

/**
 * coolhand_throttle_set_level() - apply a throttling level
 * @thr: the throttle control
 * @level: 0 (full performance) .. max_level (deepest throttling)
 *
 * Used by the throttling sysfs file, the netlink LEVEL_SET command and the
 * thermal core (cooling device cur_state). A change of level is reported
 * with EVENT_THROTTLE.
 *
 * Return: 0, -EINVAL for an out-of-range level (nothing changed), or the
 * driver's error.
 */
int coolhand_throttle_set_level(struct coolhand_throttle *thr,
				unsigned int level)
{
	int ret;

	if (level > thr->max_level)
		return -EINVAL;

	mutex_lock(&thr->lock);
	ret = thr->ops->set_level(thr, level);
	if (!ret && thr->level != level) {
		thr->level = level;
		coolhand_event_throttle(thr->id, level, ktime_get_ns());
	}
	mutex_unlock(&thr->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(coolhand_throttle_set_level);

static int
coolhand_check_throttle_desc(struct device *dev,
			     const struct coolhand_throttle_desc *desc)
{
	unsigned int i;

	if (!dev || !desc || coolhand_check_name(desc->name) || !desc->ops ||
	    !desc->ops->get_level || !desc->ops->set_level ||
	    desc->max_level < 1 || desc->max_level > U16_MAX)
		return -EINVAL;
	if (desc->power_mw) {
		for (i = 1; i <= desc->max_level; i++)
			if (desc->power_mw[i] > desc->power_mw[i - 1])
				return -EINVAL;
	}
	if (desc->load_scale &&
	    ((desc->load_scale != 100 && desc->load_scale != 1024) ||
	     !desc->power_mw || !desc->ops->get_load))
		return -EINVAL;
	return 0;
}

/**
 * coolhand_throttle_register() - register a component's throttle control
 * @dev: the component's device; gets the files throttling and
 *	 throttling_max. At most one control per device.
 * @desc: name, levels, ops and power table; only @desc->ops must outlive
 *	  the control
 * @drvdata: driver data, see coolhand_throttle_get_drvdata()
 *
 * Also registers a thermal cooling device of type @desc->name.
 *
 * Return: the control or an ERR_PTR().
 */
struct coolhand_throttle *
coolhand_throttle_register(struct device *dev,
			   const struct coolhand_throttle_desc *desc,
			   void *drvdata)
{
	struct coolhand_throttle *thr;
	int ret;

	ret = coolhand_check_throttle_desc(dev, desc);
	if (ret)
		return ERR_PTR(ret);

	thr = kzalloc(sizeof(*thr), GFP_KERNEL);
	if (!thr)
		return ERR_PTR(-ENOMEM);

	strscpy(thr->name, desc->name, sizeof(thr->name));
	thr->ops = desc->ops;
	thr->drvdata = drvdata;
	thr->max_level = desc->max_level;
	thr->load_scale = desc->load_scale;
	mutex_init(&thr->lock);
	INIT_LIST_HEAD(&thr->bindings);
	if (desc->power_mw) {
		thr->power_mw = kmemdup(desc->power_mw,
					(desc->max_level + 1) * sizeof(u32),
					GFP_KERNEL);
		if (!thr->power_mw) {
			ret = -ENOMEM;
			goto err_free;
		}
	}
	ret = coolhand_throttle_get_level(thr, &thr->level);
	if (ret)
		goto err_free;
	thr->dev = get_device(dev);

	mutex_lock(&coolhand_lock);
	ret = idr_alloc(&coolhand_throttle_idr, NULL, 0, 0, GFP_KERNEL);
	mutex_unlock(&coolhand_lock);
	if (ret < 0)
		goto err_put_dev;
	thr->id = ret;

	coolhand_throttle_init_attrs(thr);
	ret = sysfs_create_group(&dev->kobj, &thr->group);
	if (ret)
		goto err_remove_id;

	ret = coolhand_thermal_cdev_add(thr);
	if (ret)
		goto err_remove_group;

	mutex_lock(&coolhand_lock);
	idr_replace(&coolhand_throttle_idr, thr, thr->id);
	mutex_unlock(&coolhand_lock);
	return thr;

err_remove_group:
	sysfs_remove_group(&dev->kobj, &thr->group);
err_remove_id:
	mutex_lock(&coolhand_lock);
	idr_remove(&coolhand_throttle_idr, thr->id);
	mutex_unlock(&coolhand_lock);
err_put_dev:
	put_device(dev);
err_free:
	kfree(thr->power_mw);
	kfree(thr);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(coolhand_throttle_register);

/**
 * coolhand_throttle_unregister() - remove a throttle control
 * @thr: the control, or NULL
 *
 * Unbinds it from all zones and removes its files, netlink presence and
 * cooling device. No throttle op is called after this returns.
 */
void coolhand_throttle_unregister(struct coolhand_throttle *thr)
{
	struct coolhand_binding *b, *tmp;

	if (!thr)
		return;

	mutex_lock(&coolhand_lock);
	idr_remove(&coolhand_throttle_idr, thr->id);
	list_for_each_entry_safe(b, tmp, &thr->bindings, thr_node)
		__coolhand_binding_free(b);
	mutex_unlock(&coolhand_lock);

	coolhand_thermal_cdev_remove(thr);
	sysfs_remove_group(&thr->dev->kobj, &thr->group);
	put_device(thr->dev);
	kfree(thr->power_mw);
	kfree(thr);
}
EXPORT_SYMBOL_GPL(coolhand_throttle_unregister);

void *coolhand_throttle_get_drvdata(struct coolhand_throttle *thr)
{
	return thr->drvdata;
}
EXPORT_SYMBOL_GPL(coolhand_throttle_get_drvdata);

/**
 * coolhand_bind() - associate a throttle control with a zone
 * @zone: the zone
 * @thr: the throttle control
 * @weight: thermal-core weight (THERMAL_WEIGHT_DEFAULT for the default)
 *
 * Adds the link /sys/class/coolhand/zone<id>/<device name> and binds the
 * cooling device to the zone's passive trip in the thermal framework, so
 * the zone's kernel governor can drive it.
 *
 * Return: 0, -EEXIST if already bound, or another error.
 */
int coolhand_bind(struct coolhand_zone *zone, struct coolhand_throttle *thr,
		  unsigned int weight)
{
	struct coolhand_binding *b;
	int ret;

	mutex_lock(&coolhand_lock);
	list_for_each_entry(b, &zone->bindings, zone_node) {
		if (b->thr == thr) {
			ret = -EEXIST;
			goto out_unlock;
		}
	}

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	b->zone = zone;
	b->thr = thr;
	b->weight = weight;

	ret = sysfs_create_link(&zone->dev.kobj, &thr->dev->kobj,
				dev_name(thr->dev));
	if (ret)
		goto err_free;
	ret = coolhand_thermal_bind(b);
	if (ret)
		goto err_remove_link;

	list_add_tail(&b->zone_node, &zone->bindings);
	list_add_tail(&b->thr_node, &thr->bindings);
	mutex_unlock(&coolhand_lock);
	return 0;

err_remove_link:
	sysfs_remove_link(&zone->dev.kobj, dev_name(thr->dev));
err_free:
	kfree(b);
out_unlock:
	mutex_unlock(&coolhand_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(coolhand_bind);

/**
 * coolhand_unbind() - undo coolhand_bind()
 * @zone: the zone
 * @thr: the throttle control
 */
void coolhand_unbind(struct coolhand_zone *zone, struct coolhand_throttle *thr)
{
	struct coolhand_binding *b, *tmp;

	mutex_lock(&coolhand_lock);
	list_for_each_entry_safe(b, tmp, &zone->bindings, zone_node)
		if (b->thr == thr)
			__coolhand_binding_free(b);
	mutex_unlock(&coolhand_lock);
}
EXPORT_SYMBOL_GPL(coolhand_unbind);
