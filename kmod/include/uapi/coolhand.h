/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * coolhand generic netlink ABI, shared by coolhand.ko and user space.
 *
 * Family COOLHAND_GENL_NAME ("coolhand"), version COOLHAND_GENL_VERSION,
 * multicast group COOLHAND_GENL_MCGRP_EVENTS ("events"). Resolve the family
 * and group ids by name through nlctrl (libnl: genl_ctrl_resolve() and
 * genl_ctrl_resolve_grp()).
 *
 * Units: every temperature is in millidegrees Celsius (m°C) as a signed
 * 32-bit value, power in milliwatts, time in nanoseconds of CLOCK_MONOTONIC.
 * Attribute and command numbers are ABI: append only, never renumber.
 * kmod/README describes every message in prose.
 *
 * The header only holds constants, so it is valid C and C++.
 */
#ifndef _UAPI_COOLHAND_H
#define _UAPI_COOLHAND_H

#define COOLHAND_GENL_NAME		"coolhand"
#define COOLHAND_GENL_VERSION		1
#define COOLHAND_GENL_MCGRP_EVENTS	"events"

/* Longest zone or device name, including the terminating NUL. */
#define COOLHAND_NAME_LEN		20

/* Limits on what user space may write (sysfs and netlink alike). */
#define COOLHAND_TEMP_MIN_MC		(-273150)
#define COOLHAND_TEMP_MAX_MC		500000
#define COOLHAND_STEP_MIN_MC		1
#define COOLHAND_STEP_MAX_MC		100000

/* COOLHAND_A_ZONE_KIND: what a zone's sensor measures. */
enum coolhand_zone_kind {
	COOLHAND_KIND_CPU = 0,
	COOLHAND_KIND_COMPONENT = 1,
	COOLHAND_KIND_CLUSTER = 2,
	COOLHAND_KIND_SKIN = 3,
};

/* COOLHAND_A_TRIP_TYPE */
enum coolhand_trip_type {
	COOLHAND_TRIP_PASSIVE = 0,
	COOLHAND_TRIP_CRITICAL = 1,
};

/* COOLHAND_A_TRIP_DIRECTION */
enum coolhand_trip_direction {
	COOLHAND_TRIP_UP = 1,	/* temp rose to >= trip temp */
	COOLHAND_TRIP_DOWN = 2,	/* temp fell below trip temp - hysteresis */
};

/* COOLHAND_A_EVENT_MODE: how a zone's event window is chosen. */
enum coolhand_event_mode {
	/* Window recentred on every reported temperature: (T - below, T + above). */
	COOLHAND_EVENT_STEP = 0,
	/* Fixed window (low, high) set by user space. */
	COOLHAND_EVENT_WINDOW = 1,
};

enum coolhand_cmd {
	COOLHAND_CMD_UNSPEC = 0,
	/* Request ZONE_ID -> one zone; NLM_F_DUMP -> all zones. */
	COOLHAND_CMD_ZONE_GET = 1,
	/* Request DEV_ID -> one device; NLM_F_DUMP -> all devices. */
	COOLHAND_CMD_DEV_GET = 2,
	/* Request ZONE_ID -> reply ZONE_ID, TEMP, TIMESTAMP_NS (fresh read). */
	COOLHAND_CMD_TEMP_GET = 3,
	/*
	 * CAP_SYS_ADMIN. ZONE_ID and either STEP_BELOW + STEP_ABOVE (step mode)
	 * or WINDOW_LOW + WINDOW_HIGH (window mode, low < high).
	 */
	COOLHAND_CMD_WINDOW_SET = 4,
	/* CAP_SYS_ADMIN. DEV_ID + LEVEL (0..MAX_LEVEL). */
	COOLHAND_CMD_LEVEL_SET = 5,
	/* Multicast events (group "events"); never accepted as requests. */
	COOLHAND_CMD_EVENT_TEMP = 6,
	COOLHAND_CMD_EVENT_TRIP = 7,
	COOLHAND_CMD_EVENT_THROTTLE = 8,
	__COOLHAND_CMD_MAX,
};

#define COOLHAND_CMD_MAX (__COOLHAND_CMD_MAX - 1)

enum coolhand_attr {
	COOLHAND_A_UNSPEC = 0,
	COOLHAND_A_PAD = 1,		/* padding for 64-bit attributes */
	COOLHAND_A_ZONE_ID = 2,		/* u32 */
	COOLHAND_A_ZONE_NAME = 3,	/* NUL-terminated string */
	COOLHAND_A_ZONE_KIND = 4,	/* u32, enum coolhand_zone_kind */
	COOLHAND_A_TEMP = 5,		/* s32, m°C */
	COOLHAND_A_PREV_TEMP = 6,	/* s32, m°C: previously reported temp */
	COOLHAND_A_SEQ = 7,		/* u32, per-family event sequence number */
	COOLHAND_A_TIMESTAMP_NS = 8,	/* u64, CLOCK_MONOTONIC ns */
	COOLHAND_A_TRIP = 9,		/* nest: TRIP_TYPE, TRIP_TEMP, TRIP_HYST */
	COOLHAND_A_TRIP_TYPE = 10,	/* u32, enum coolhand_trip_type */
	COOLHAND_A_TRIP_TEMP = 11,	/* s32, m°C */
	COOLHAND_A_TRIP_HYST = 12,	/* s32, m°C, >= 0 */
	COOLHAND_A_TRIP_DIRECTION = 13,	/* u32, enum coolhand_trip_direction */
	COOLHAND_A_EVENT_MODE = 14,	/* u32, enum coolhand_event_mode */
	COOLHAND_A_WINDOW_LOW = 15,	/* s32, m°C */
	COOLHAND_A_WINDOW_HIGH = 16,	/* s32, m°C */
	COOLHAND_A_STEP_BELOW = 17,	/* u32, m°C, 1..COOLHAND_STEP_MAX_MC */
	COOLHAND_A_STEP_ABOVE = 18,	/* u32, m°C, 1..COOLHAND_STEP_MAX_MC */
	COOLHAND_A_DEV_ID = 19,		/* u32 */
	COOLHAND_A_DEV_NAME = 20,	/* NUL-terminated string */
	COOLHAND_A_LEVEL = 21,		/* u32, throttling level */
	COOLHAND_A_MAX_LEVEL = 22,	/* u32 */
	COOLHAND_A_POWER_MW = 23,	/* u32, mW at the current level */
	COOLHAND_A_ZONE_DEVS = 24,	/* nest of DEV_ID (u32) */
	COOLHAND_A_THERMAL_ID = 25,	/* u32, N of thermal_zoneN/cooling_deviceN */
	COOLHAND_A_SYSFS_PATH = 26,	/* string, kobject path below /sys */
	COOLHAND_A_ALARMS = 27,		/* u32, COOLHAND_ALARM_* bits */
	__COOLHAND_A_MAX,
};

#define COOLHAND_A_MAX (__COOLHAND_A_MAX - 1)

/* COOLHAND_A_ALARMS bits: the zone's temp1_*alarm sysfs files. */
#define COOLHAND_ALARM_TEMP		(1U << 0)
#define COOLHAND_ALARM_PASSIVE		(1U << 1)
#define COOLHAND_ALARM_CRIT		(1U << 2)

#endif /* _UAPI_COOLHAND_H */
