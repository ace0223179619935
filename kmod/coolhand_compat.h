/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The two thermal-framework APIs coolhand builds against: Debian 12's 6.1
 * and the 6.13+ one (verified on Debian's 7.3.4, linux-source-7.3). On 7.3
 * (include/linux/thermal.h, drivers/thermal/thermal_core.c):
 * - struct thermal_zone_device is opaque: thermal_zone_device_priv(),
 *   thermal_zone_device_id() and thermal_zone_device() replace ->devdata,
 *   ->id and ->device;
 * - trips are only the table given at registration (no get_trip_* ops),
 *   registration takes no trip mask;
 * - cooling devices are bound only when a zone or a cooling device
 *   registers, through the zone's .should_bind op
 *   (thermal_zone_bind_cooling_device() is gone);
 * - thermal_zone_params.governor_name is a pointer, not an array;
 * - struct class has no .owner (gone in 6.4).
 * Kernels between 6.2 and 6.12 are not supported by this header.
 */
#ifndef _COOLHAND_COMPAT_H
#define _COOLHAND_COMPAT_H

#include <linux/thermal.h>

/* 1 on 6.13+, 0 before: set by Kbuild from the kernel's VERSION/PATCHLEVEL. */
#ifndef COOLHAND_THERMAL_OPAQUE
#error "COOLHAND_THERMAL_OPAQUE is set by kmod/Kbuild"
#endif

#if COOLHAND_THERMAL_OPAQUE
static inline void *coolhand_tz_priv(struct thermal_zone_device *tzd)
{
	return thermal_zone_device_priv(tzd);
}

static inline int coolhand_tz_id(struct thermal_zone_device *tzd)
{
	return thermal_zone_device_id(tzd);
}

static inline struct device *coolhand_tz_dev(struct thermal_zone_device *tzd)
{
	return thermal_zone_device(tzd);
}
#else
static inline void *coolhand_tz_priv(struct thermal_zone_device *tzd)
{
	return tzd->devdata;
}

static inline int coolhand_tz_id(struct thermal_zone_device *tzd)
{
	return tzd->id;
}

static inline struct device *coolhand_tz_dev(struct thermal_zone_device *tzd)
{
	return &tzd->device;
}
#endif

#endif /* _COOLHAND_COMPAT_H */
