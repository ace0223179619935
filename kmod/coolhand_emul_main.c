// SPDX-License-Identifier: GPL-2.0
/*
 * coolhand_emul.ko, the emulated platform: an "embedded controller" with N
 * temperature sensors and M throttleable components, for tests, the
 * simulator and trace replay. It is a module of its own and a client of
 * coolhand.ko like a real platform driver: it uses only the exported API of
 * <linux/coolhand.h>, and the core never calls into it. Loading it needs
 * coolhand.ko; while it is loaded, coolhand.ko cannot be unloaded (it uses
 * its symbols).
 *
 * Created at module load from module parameters (emul_zones, emul_devices,
 * ...). User space sets temperatures by writing m°C to
 * /sys/devices/coolhand_emul/sensor<i>/temp. Like the EC of §3.8 of the
 * paper, the emulated controller decides whether a change is meaningful
 * from the window the core programmed (the policy's granularity and the
 * trips): only a temperature <= low or >= high raises an "interrupt"
 * (coolhand_zone_notify()); any other write just updates the reading.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/coolhand.h>
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/thermal.h>

#include "coolhand_emul.h"

static unsigned int emul_zones;
module_param(emul_zones, uint, 0444);
MODULE_PARM_DESC(emul_zones, "Number of emulated zones (0..16, default 0)");

static unsigned int emul_devices;
module_param(emul_devices, uint, 0444);
MODULE_PARM_DESC(emul_devices,
		 "Number of emulated throttle devices (0..16, default 0)");

static char *emul_kind[COOLHAND_EMUL_MAX];
static unsigned int emul_kind_count;
module_param_array(emul_kind, charp, &emul_kind_count, 0444);
MODULE_PARM_DESC(emul_kind,
		 "Kind of each emulated zone: cpu, component, cluster or skin (default component)");

/*
 * Per-zone and per-device arrays: entry i belongs to zone (device) i; a
 * shorter list repeats its last entry, an empty one means the default.
 */
static unsigned int emul_max_level[COOLHAND_EMUL_MAX] = { 10 };
static unsigned int emul_max_level_count;
module_param_array(emul_max_level, uint, &emul_max_level_count, 0444);
MODULE_PARM_DESC(emul_max_level,
		 "throttling_max of each emulated device (1..1000, default 10)");

static char *emul_power_mw[COOLHAND_EMUL_MAX];
static unsigned int emul_power_mw_count;
module_param_array(emul_power_mw, charp, &emul_power_mw_count, 0444);
MODULE_PARM_DESC(emul_power_mw,
		 "Power table of each emulated device: mW per level 0..max, colon-separated, non-increasing (default 3000 falling linearly to 500)");

static unsigned int emul_load_scale[COOLHAND_EMUL_MAX];
static unsigned int emul_load_scale_count;
module_param_array(emul_load_scale, uint, &emul_load_scale_count, 0444);
MODULE_PARM_DESC(emul_load_scale,
		 "Load scale of each emulated device: 0 = power table is drawn power (default); 100 / 1024 = full-load power weighed by throttle<i>/load, as cpufreq / devfreq cooling");

static int emul_start_mc = 35000;
module_param(emul_start_mc, int, 0444);
MODULE_PARM_DESC(emul_start_mc,
		 "Initial temperature of the emulated sensors, m°C (default 35000)");

static int emul_passive_mc[COOLHAND_EMUL_MAX] = { 60000 };
static unsigned int emul_passive_mc_count;
module_param_array(emul_passive_mc, int, &emul_passive_mc_count, 0444);
MODULE_PARM_DESC(emul_passive_mc,
		 "Passive trip of each emulated zone, m°C; 0 = none (default 60000)");

static int emul_passive_hyst_mc[COOLHAND_EMUL_MAX] = { 2000 };
static unsigned int emul_passive_hyst_mc_count;
module_param_array(emul_passive_hyst_mc, int, &emul_passive_hyst_mc_count,
		   0444);
MODULE_PARM_DESC(emul_passive_hyst_mc,
		 "Hysteresis of each zone's passive trip, m°C (default 2000)");

static int emul_crit_mc[COOLHAND_EMUL_MAX] = { 95000 };
static unsigned int emul_crit_mc_count;
module_param_array(emul_crit_mc, int, &emul_crit_mc_count, 0444);
MODULE_PARM_DESC(emul_crit_mc,
		 "Critical trip of each emulated zone, m°C; 0 = none (default 95000)");

static int emul_alert_mc[COOLHAND_EMUL_MAX];
static unsigned int emul_alert_mc_count;
module_param_array(emul_alert_mc, int, &emul_alert_mc_count, 0444);
MODULE_PARM_DESC(emul_alert_mc,
		 "Thermal-only alert trip of each zone below its passive trip (power_allocator's switch-on), m°C; 0 = none (default)");

static int emul_alert_hyst_mc[COOLHAND_EMUL_MAX];
static unsigned int emul_alert_hyst_mc_count;
module_param_array(emul_alert_hyst_mc, int, &emul_alert_hyst_mc_count, 0444);
MODULE_PARM_DESC(emul_alert_hyst_mc,
		 "Hysteresis of each zone's alert trip, m°C (default 0)");

static bool emul_bind = true;
module_param(emul_bind, bool, 0444);
MODULE_PARM_DESC(emul_bind,
		 "Bind every emulated device to every emulated zone (default on)");

static char *emul_binding[COOLHAND_EMUL_MAX * COOLHAND_EMUL_MAX];
static unsigned int emul_binding_count;
module_param_array(emul_binding, charp, &emul_binding_count, 0444);
MODULE_PARM_DESC(emul_binding,
		 "Bindings as <zone>:<device> index pairs; when given, only these (instead of emul_bind)");

static char *emul_governor;
module_param(emul_governor, charp, 0444);
MODULE_PARM_DESC(emul_governor,
		 "Thermal governor of the mirrored zones at registration (default: the kernel's)");

bool emul_lockstep;
module_param(emul_lockstep, bool, 0444);
MODULE_PARM_DESC(emul_lockstep,
		 "Temperature writes never interrupt; only a write to sensor<i>/notify does (lock-step drivers; default off)");

/* Entry @i of a per-zone/per-device array of @count entries, or @def. */
static int coolhand_emul_entry(const int *arr, unsigned int count,
			       unsigned int i, int def)
{
	if (!count)
		return def;
	return arr[min(i, count - 1)];
}

static struct device *emul_root;
static struct coolhand_emul_sensor *emul_sensor[COOLHAND_EMUL_MAX];
static struct coolhand_emul_device *emul_device[COOLHAND_EMUL_MAX];

static unsigned int coolhand_emul_max_level(unsigned int i)
{
	return emul_max_level_count ?
	       emul_max_level[min(i, emul_max_level_count - 1)] : 10;
}

/*
 * Zone @i's trips from the emul_* arrays (checked by
 * coolhand_emul_check_params; the core checks the alert trip).
 */
static void coolhand_emul_zone_trips(unsigned int i,
				     struct coolhand_sensor_desc *desc,
				     struct coolhand_trip *trips)
{
	int passive = coolhand_emul_entry(emul_passive_mc,
					  emul_passive_mc_count, i, 60000);
	int crit = coolhand_emul_entry(emul_crit_mc, emul_crit_mc_count, i,
				       95000);

	desc->num_trips = 0;
	if (passive)
		trips[desc->num_trips++] = (struct coolhand_trip) {
			.temp_mc = passive,
			.hyst_mc = coolhand_emul_entry(emul_passive_hyst_mc,
						       emul_passive_hyst_mc_count,
						       i, 2000),
			.type = COOLHAND_TRIP_PASSIVE,
		};
	if (crit)
		trips[desc->num_trips++] = (struct coolhand_trip) {
			.temp_mc = crit,
			.type = COOLHAND_TRIP_CRITICAL,
		};
	desc->trips = trips;
	desc->tz_alert = (struct coolhand_trip) {
		.temp_mc = coolhand_emul_entry(emul_alert_mc,
					       emul_alert_mc_count, i, 0),
		.hyst_mc = coolhand_emul_entry(emul_alert_hyst_mc,
					       emul_alert_hyst_mc_count, i, 0),
		.type = COOLHAND_TRIP_PASSIVE,
	};
}

/*
 * Device @i's power table into @power_mw (@max_level + 1 entries): its
 * emul_power_mw entry (colon-separated mW, exactly that many values, each
 * at most the one before), or 3000 mW unthrottled falling linearly to
 * 500 mW at the deepest level.
 */
static int coolhand_emul_power(unsigned int i, unsigned int max_level,
			       u32 *power_mw)
{
	char *copy, *cur, *tok;
	unsigned int l = 0;
	int ret = 0;

	if (i >= emul_power_mw_count || !emul_power_mw[i][0]) {
		for (l = 0; l <= max_level; l++)
			power_mw[l] = 3000 - l * 2500 / max_level;
		return 0;
	}
	copy = kstrdup(emul_power_mw[i], GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	cur = copy;
	while ((tok = strsep(&cur, ":"))) {
		if (l > max_level || kstrtou32(tok, 10, &power_mw[l]) ||
		    (l && power_mw[l] > power_mw[l - 1])) {
			ret = -EINVAL;
			break;
		}
		l++;
	}
	kfree(copy);
	if (!ret && l != max_level + 1)
		ret = -EINVAL;
	return ret;
}

/* "<zone>:<device>" with both indices in range. */
static int coolhand_emul_parse_binding(const char *s, unsigned int *zone,
				       unsigned int *device)
{
	char extra;

	if (sscanf(s, "%u:%u%c", zone, device, &extra) != 2 ||
	    *zone >= emul_zones || *device >= emul_devices)
		return -EINVAL;
	return 0;
}

static int coolhand_emul_check_params(enum coolhand_zone_kind *kinds)
{
	unsigned int i, z, d;

	if (emul_zones > COOLHAND_EMUL_MAX || emul_devices > COOLHAND_EMUL_MAX ||
	    emul_start_mc < COOLHAND_TEMP_MIN_MC ||
	    emul_start_mc > COOLHAND_TEMP_MAX_MC)
		return -EINVAL;

	for (i = 0; i < COOLHAND_EMUL_MAX; i++) {
		if (coolhand_emul_max_level(i) < 1 ||
		    coolhand_emul_max_level(i) > 1000)
			return -EINVAL;
		kinds[i] = COOLHAND_KIND_COMPONENT;
		if (i < emul_kind_count && coolhand_kind_parse(emul_kind[i],
							       &kinds[i]))
			return -EINVAL;
	}
	for (i = 0; i < emul_zones; i++) {
		int passive = coolhand_emul_entry(emul_passive_mc,
						  emul_passive_mc_count, i,
						  60000);
		int hyst = coolhand_emul_entry(emul_passive_hyst_mc,
					       emul_passive_hyst_mc_count, i,
					       2000);
		int crit = coolhand_emul_entry(emul_crit_mc, emul_crit_mc_count,
					       i, 95000);

		if (passive < 0 || crit < 0 || hyst < 0 || hyst > passive ||
		    (passive && crit && crit <= passive))
			return -EINVAL;
	}
	for (i = 0; i < emul_binding_count; i++)
		if (coolhand_emul_parse_binding(emul_binding[i], &z, &d))
			return -EINVAL;
	return 0;
}

static int coolhand_emul_add_sensor(unsigned int i, enum coolhand_zone_kind kind)
{
	struct coolhand_sensor_desc desc = {
		.kind = kind,
		.ops = &coolhand_emul_sensor_ops,
		.governor = emul_governor,
	};
	struct coolhand_trip trips[COOLHAND_MAX_TRIPS];
	struct coolhand_emul_sensor *s;
	struct coolhand_zone *zone;
	char name[COOLHAND_NAME_LEN];
	int ret;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	mutex_init(&s->notify_lock);
	spin_lock_init(&s->lock);
	s->temp_mc = emul_start_mc;
	/* No window yet: every write interrupts until the core sets one. */
	s->low_mc = INT_MAX;
	s->high_mc = INT_MIN;

	device_initialize(&s->dev);
	s->dev.parent = emul_root;
	s->dev.groups = coolhand_emul_sensor_groups;
	s->dev.release = coolhand_emul_sensor_release;
	ret = dev_set_name(&s->dev, "sensor%u", i);
	if (ret)
		goto err_put;
	ret = device_add(&s->dev);
	if (ret)
		goto err_put;

	coolhand_emul_zone_trips(i, &desc, trips);
	snprintf(name, sizeof(name), "emul_zone%u", i);
	desc.name = name;

	zone = coolhand_zone_register(&s->dev, &desc, s);
	if (IS_ERR(zone)) {
		ret = PTR_ERR(zone);
		goto err_del;
	}
	mutex_lock(&s->notify_lock);
	s->zone = zone;
	mutex_unlock(&s->notify_lock);
	emul_sensor[i] = s;
	return 0;

err_del:
	device_del(&s->dev);
err_put:
	put_device(&s->dev);
	return ret;
}

static void coolhand_emul_remove_sensor(struct coolhand_emul_sensor *s)
{
	struct coolhand_zone *zone;

	mutex_lock(&s->notify_lock);
	zone = s->zone;
	s->zone = NULL;
	mutex_unlock(&s->notify_lock);
	coolhand_zone_unregister(zone);
	device_unregister(&s->dev);
}

static int coolhand_emul_add_device(unsigned int i)
{
	struct coolhand_throttle_desc desc = {
		.max_level = coolhand_emul_max_level(i),
		.ops = &coolhand_emul_throttle_ops,
		.load_scale = i < emul_load_scale_count ? emul_load_scale[i] : 0,
	};
	struct coolhand_emul_device *d;
	char name[COOLHAND_NAME_LEN];
	int ret;

	d = kzalloc(struct_size(d, power_mw, desc.max_level + 1), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	ret = coolhand_emul_power(i, desc.max_level, d->power_mw);
	if (ret) {
		kfree(d);
		return ret;
	}
	desc.power_mw = d->power_mw;

	device_initialize(&d->dev);
	d->dev.parent = emul_root;
	d->dev.groups = coolhand_emul_device_groups;
	d->dev.release = coolhand_emul_device_release;
	ret = dev_set_name(&d->dev, "throttle%u", i);
	if (ret)
		goto err_put;
	ret = device_add(&d->dev);
	if (ret)
		goto err_put;

	snprintf(name, sizeof(name), "emul_throttle%u", i);
	desc.name = name;
	d->thr = coolhand_throttle_register(&d->dev, &desc, d);
	if (IS_ERR(d->thr)) {
		ret = PTR_ERR(d->thr);
		goto err_del;
	}
	emul_device[i] = d;
	return 0;

err_del:
	device_del(&d->dev);
err_put:
	put_device(&d->dev);
	return ret;
}

static void coolhand_emul_remove_device(struct coolhand_emul_device *d)
{
	coolhand_throttle_unregister(d->thr);
	device_unregister(&d->dev);
}

static void coolhand_emul_remove_all(void)
{
	unsigned int i;

	for (i = 0; i < COOLHAND_EMUL_MAX; i++) {
		if (emul_sensor[i])
			coolhand_emul_remove_sensor(emul_sensor[i]);
		emul_sensor[i] = NULL;
	}
	for (i = 0; i < COOLHAND_EMUL_MAX; i++) {
		if (emul_device[i])
			coolhand_emul_remove_device(emul_device[i]);
		emul_device[i] = NULL;
	}
	if (emul_root)
		root_device_unregister(emul_root);
	emul_root = NULL;
}

/* emul_binding's pairs, or with emul_bind every device to every zone. */
static int coolhand_emul_bind_all(void)
{
	unsigned int i, z, d;
	int ret;

	for (i = 0; i < emul_binding_count; i++) {
		coolhand_emul_parse_binding(emul_binding[i], &z, &d);
		ret = coolhand_bind(emul_sensor[z]->zone, emul_device[d]->thr,
				    THERMAL_WEIGHT_DEFAULT);
		if (ret)
			return ret;
	}
	for (z = 0; !emul_binding_count && emul_bind && z < emul_zones; z++) {
		for (d = 0; d < emul_devices; d++) {
			ret = coolhand_bind(emul_sensor[z]->zone,
					    emul_device[d]->thr,
					    THERMAL_WEIGHT_DEFAULT);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int __init coolhand_emul_init(void)
{
	enum coolhand_zone_kind kinds[COOLHAND_EMUL_MAX];
	unsigned int i;
	int ret;

	ret = coolhand_emul_check_params(kinds);
	if (ret) {
		pr_err("invalid emul_* module parameters\n");
		return ret;
	}
	if (!emul_zones && !emul_devices)
		return 0;

	emul_root = root_device_register("coolhand_emul");
	if (IS_ERR(emul_root)) {
		ret = PTR_ERR(emul_root);
		emul_root = NULL;
		return ret;
	}

	for (i = 0; i < emul_devices; i++) {
		ret = coolhand_emul_add_device(i);
		if (ret)
			goto err_exit;
	}
	for (i = 0; i < emul_zones; i++) {
		ret = coolhand_emul_add_sensor(i, kinds[i]);
		if (ret)
			goto err_exit;
	}
	ret = coolhand_emul_bind_all();
	if (ret)
		goto err_exit;
	return 0;

err_exit:
	coolhand_emul_remove_all();
	return ret;
}

static void __exit coolhand_emul_exit(void)
{
	coolhand_emul_remove_all();
}

module_init(coolhand_emul_init);
module_exit(coolhand_emul_exit);

MODULE_DESCRIPTION("coolhand emulated platform: an embedded controller with emulated sensors and throttleable devices, for tests");
MODULE_AUTHOR("coolhand developers");
MODULE_LICENSE("GPL");
