/* SPDX-License-Identifier: GPL-2.0 */
/*
 * coolhand driver API: the platform-independent core that sensor drivers
 * and component drivers register with (§3.2-3.3 of "Cool Hand Linux",
 * OLS 2007).
 *
 * A sensor driver registers a zone (name, kind, trips, read_temp and an
 * optional set_window op). A component driver registers a throttle control
 * on its own struct device (max level, get/set ops, optional per-level power
 * table). A platform driver binds throttle controls to zones. The core owns
 * all sysfs and netlink interaction and mirrors every zone and throttle
 * control into the kernel thermal framework.
 *
 * All temperatures are in millidegrees Celsius (m°C), powers in mW.
 * Every function here may sleep.
 */
#ifndef _LINUX_COOLHAND_H
#define _LINUX_COOLHAND_H

#include <linux/types.h>
#include <uapi/coolhand.h>

struct device;
struct coolhand_zone;
struct coolhand_throttle;

/* Largest trip table of a zone: at most one passive and one critical trip. */
#define COOLHAND_MAX_TRIPS	2

/**
 * struct coolhand_trip - a trip point of a zone
 * @temp_mc:	trip temperature, m°C, > 0 (the thermal core ignores trips <= 0)
 * @hyst_mc:	hysteresis, m°C, >= 0: the trip is left below @temp_mc - @hyst_mc
 * @type:	COOLHAND_TRIP_PASSIVE or COOLHAND_TRIP_CRITICAL
 */
struct coolhand_trip {
	int temp_mc;
	int hyst_mc;
	enum coolhand_trip_type type;
};

/**
 * struct coolhand_sensor_ops - callbacks of a sensor driver
 * @read_temp:	read the current temperature in m°C. Required.
 * @set_window:	optional, for sensors that can interrupt: raise an interrupt
 *		(and then call coolhand_zone_notify()) as soon as the
 *		temperature is <= @low_mc or >= @high_mc. Without it the core
 *		polls every &coolhand_sensor_desc.poll_ms.
 *
 * Both are called in process context with the zone's lock held; they must
 * not call back into the coolhand core.
 */
struct coolhand_sensor_ops {
	int (*read_temp)(struct coolhand_zone *zone, int *temp_mc);
	int (*set_window)(struct coolhand_zone *zone, int low_mc, int high_mc);
};

/**
 * struct coolhand_sensor_desc - what a sensor driver registers
 * @name:	zone name, 1..COOLHAND_NAME_LEN-1 characters (also the
 *		thermal zone type)
 * @kind:	what the sensor measures
 * @ops:	sensor callbacks; must outlive the zone
 * @trips:	@num_trips trip points, copied by the core
 * @num_trips:	0..COOLHAND_MAX_TRIPS, at most one of each type
 * @poll_ms:	polling interval for sensors without set_window, ms (> 0)
 * @governor:	thermal governor for the mirrored zone, NULL for the default
 * @tz_alert:	optional (temp_mc 0: none): an extra passive trip below the
 *		passive trip, mirrored only into the thermal framework, where
 *		it comes first: power_allocator's switch-on trip, as in a
 *		device tree with two passive trips. Not a coolhand trip: no
 *		events, alarms or sysfs files. Its type field is ignored.
 */
struct coolhand_sensor_desc {
	const char *name;
	enum coolhand_zone_kind kind;
	const struct coolhand_sensor_ops *ops;
	const struct coolhand_trip *trips;
	unsigned int num_trips;
	unsigned int poll_ms;
	const char *governor;
	struct coolhand_trip tz_alert;
};

/**
 * struct coolhand_throttle_ops - callbacks of a component driver
 * @get_level:	read the current throttling level (0..max_level). Required.
 * @set_level:	apply a throttling level; 0 is full performance, max_level
 *		the deepest throttling that keeps device state. Required.
 * @get_load:	the component's load since the previous call, in units of
 *		1/load_scale (see struct coolhand_throttle_desc). Required
 *		with a load_scale, unused otherwise.
 *
 * Called in process context with the throttle's lock held; they must not
 * call back into the coolhand core.
 */
struct coolhand_throttle_ops {
	int (*get_level)(struct coolhand_throttle *thr, unsigned int *level);
	int (*set_level)(struct coolhand_throttle *thr, unsigned int level);
	int (*get_load)(struct coolhand_throttle *thr, u32 *load);
};

/**
 * struct coolhand_throttle_desc - what a component driver registers
 * @name:	control name, 1..COOLHAND_NAME_LEN-1 characters (also the
 *		thermal cooling device type)
 * @max_level:	deepest throttling level, >= 1
 * @ops:	callbacks; must outlive the control
 * @power_mw:	optional: power drawn at each level 0..@max_level, mW,
 *		non-increasing; copied by the core. Enables the thermal power
 *		ops (power_allocator governor).
 * @load_scale:	0: @power_mw is the power drawn at each level. 100 or 1024:
 *		@power_mw is full-load power and the thermal power ops weigh
 *		it by the load (ops->get_load), as 6.1's cpufreq_cooling.c
 *		(load in percent) or devfreq_cooling.c (busy time / 1024)
 *		do: requested = power * load / scale, and power2state
 *		compares the grant normalised to full load
 *		(grant * scale / load) with the table.
 */
struct coolhand_throttle_desc {
	const char *name;
	unsigned int max_level;
	const struct coolhand_throttle_ops *ops;
	const u32 *power_mw;
	u32 load_scale;
};

struct coolhand_zone *
coolhand_zone_register(struct device *parent,
		       const struct coolhand_sensor_desc *desc, void *drvdata);
void coolhand_zone_unregister(struct coolhand_zone *zone);
void *coolhand_zone_get_drvdata(struct coolhand_zone *zone);
int coolhand_zone_id(struct coolhand_zone *zone);
int coolhand_zone_notify(struct coolhand_zone *zone);

struct coolhand_throttle *
coolhand_throttle_register(struct device *dev,
			   const struct coolhand_throttle_desc *desc,
			   void *drvdata);
void coolhand_throttle_unregister(struct coolhand_throttle *thr);
void *coolhand_throttle_get_drvdata(struct coolhand_throttle *thr);
int coolhand_throttle_set_level(struct coolhand_throttle *thr,
				unsigned int level);

int coolhand_kind_parse(const char *s, enum coolhand_zone_kind *kind);

int coolhand_bind(struct coolhand_zone *zone, struct coolhand_throttle *thr,
		  unsigned int weight);
void coolhand_unbind(struct coolhand_zone *zone,
		     struct coolhand_throttle *thr);

#endif /* _LINUX_COOLHAND_H */
