/* SPDX-License-Identifier: GPL-2.0 */
/*
 * coolhand_emul.ko's shared definitions: the emulated sensors and
 * components (coolhand_emul_dev.c: their coolhand ops and sysfs files)
 * and the platform built from module parameters (coolhand_emul_main.c).
 */
#ifndef _COOLHAND_EMUL_H
#define _COOLHAND_EMUL_H

#include <linux/atomic.h>
#include <linux/coolhand.h>
#include <linux/device.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>

#define COOLHAND_EMUL_MAX	16

/**
 * struct coolhand_emul_sensor - one emulated temperature sensor
 * @dev:	/sys/devices/coolhand_emul/sensor<i>
 * @notify_lock: serialises interrupts against detaching @zone
 * @zone:	the registered zone, NULL while detached; under @notify_lock
 * @lock:	protects the fields below
 * @temp_mc:	current temperature, m°C
 * @low_mc:	interrupt at or below this temperature, m°C
 * @high_mc:	interrupt at or above this temperature, m°C
 * @interrupts:	number of interrupts raised
 */
struct coolhand_emul_sensor {
	struct device dev;
	struct mutex notify_lock; /* see @notify_lock above */
	struct coolhand_zone *zone;

	spinlock_t lock; /* see @lock above */
	int temp_mc;
	int low_mc;
	int high_mc;
	unsigned long interrupts;
};

#define to_emul_sensor(d) container_of(d, struct coolhand_emul_sensor, dev)

/**
 * struct coolhand_emul_device - one emulated throttleable component
 * @dev:	/sys/devices/coolhand_emul/throttle<i>; gets the throttling files
 * @thr:	the registered throttle control
 * @level:	applied level; serialised by the core's throttle lock
 * @load:	load user space set (throttle<i>/load), 1/load_scale
 * @power_mw:	power table, @max_level + 1 entries, mW
 */
struct coolhand_emul_device {
	struct device dev;
	struct coolhand_throttle *thr;
	unsigned int level;
	atomic_t load;
	u32 power_mw[];
};

#define to_emul_device(d) container_of(d, struct coolhand_emul_device, dev)

/* coolhand_emul_main.c */
extern bool emul_lockstep;

/* coolhand_emul_dev.c */
extern const struct coolhand_sensor_ops coolhand_emul_sensor_ops;
extern const struct coolhand_throttle_ops coolhand_emul_throttle_ops;
extern const struct attribute_group *coolhand_emul_sensor_groups[];
extern const struct attribute_group *coolhand_emul_device_groups[];
void coolhand_emul_sensor_release(struct device *dev);
void coolhand_emul_device_release(struct device *dev);

#endif /* _COOLHAND_EMUL_H */
