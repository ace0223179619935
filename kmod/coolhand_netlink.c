// SPDX-License-Identifier: GPL-2.0
/*
 * coolhand generic netlink family (§3.6 of the paper): multicast events for
 * temperature changes, trip crossings and throttling changes, and commands
 * to dump zones and devices, read a temperature and set the event window
 * or a throttling level. The ABI is in include/uapi/coolhand.h and README.
 *
 * Every event carries a sequence number drawn from one counter for the
 * whole family, so a listener that sees a gap knows it lost events (netlink
 * multicast is lossy) and should resynchronise with a dump. Request
 * handlers run with coolhand_lock held, so zones and devices they look up
 * cannot go away underneath them.
 */

#include <linux/capability.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "coolhand_internal.h"

static DEFINE_MUTEX(coolhand_event_lock);
static u32 coolhand_event_seq;	/* protected by coolhand_event_lock */

static struct genl_family coolhand_genl_family;

enum coolhand_mcgrp {
	COOLHAND_MCGRP_EVENTS,
};

static const struct genl_multicast_group coolhand_mcgrps[] = {
	[COOLHAND_MCGRP_EVENTS] = { .name = COOLHAND_GENL_MCGRP_EVENTS },
};

static struct netlink_range_validation_signed coolhand_temp_range = {
	.min = COOLHAND_TEMP_MIN_MC,
	.max = COOLHAND_TEMP_MAX_MC,
};

static struct netlink_range_validation coolhand_step_range = {
	.min = COOLHAND_STEP_MIN_MC,
	.max = COOLHAND_STEP_MAX_MC,
};

/* Attributes user space may send; everything else is rejected (strict). */
static const struct nla_policy coolhand_nl_policy[COOLHAND_A_MAX + 1] = {
	[COOLHAND_A_ZONE_ID] = { .type = NLA_U32 },
	[COOLHAND_A_DEV_ID] = { .type = NLA_U32 },
	[COOLHAND_A_LEVEL] = { .type = NLA_U32 },
	[COOLHAND_A_WINDOW_LOW] =
		NLA_POLICY_FULL_RANGE_SIGNED(NLA_S32, &coolhand_temp_range),
	[COOLHAND_A_WINDOW_HIGH] =
		NLA_POLICY_FULL_RANGE_SIGNED(NLA_S32, &coolhand_temp_range),
	[COOLHAND_A_STEP_BELOW] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &coolhand_step_range),
	[COOLHAND_A_STEP_ABOVE] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &coolhand_step_range),
};

/*
 * Stamp an event with the next sequence number and multicast it. The
 * counter advances even without listeners, and stamping and sending happen
 * under one lock, so listeners see strictly increasing numbers.
 */
static void coolhand_event_send(struct sk_buff *skb, void *hdr)
{
	mutex_lock(&coolhand_event_lock);
	if (nla_put_u32(skb, COOLHAND_A_SEQ, ++coolhand_event_seq)) {
		mutex_unlock(&coolhand_event_lock);
		genlmsg_cancel(skb, hdr);
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	genlmsg_multicast(&coolhand_genl_family, skb, 0,
			  COOLHAND_MCGRP_EVENTS, GFP_KERNEL);
	mutex_unlock(&coolhand_event_lock);
}

static struct sk_buff *coolhand_event_new(u8 cmd, void **hdr)
{
	struct sk_buff *skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);

	if (!skb)
		return NULL;
	*hdr = genlmsg_put(skb, 0, 0, &coolhand_genl_family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(skb);
		return NULL;
	}
	return skb;
}

static void coolhand_event_abort(struct sk_buff *skb, void *hdr)
{
	genlmsg_cancel(skb, hdr);
	nlmsg_free(skb);
}

/* EVENT_TEMP: ZONE_ID, TEMP, PREV_TEMP, TIMESTAMP_NS, SEQ. */
void coolhand_event_temp(int zone_id, int temp_mc, int prev_mc, u64 ts_ns)
{
	struct sk_buff *skb;
	void *hdr;

	skb = coolhand_event_new(COOLHAND_CMD_EVENT_TEMP, &hdr);
	if (!skb)
		return;
	if (nla_put_u32(skb, COOLHAND_A_ZONE_ID, zone_id) ||
	    nla_put_s32(skb, COOLHAND_A_TEMP, temp_mc) ||
	    nla_put_s32(skb, COOLHAND_A_PREV_TEMP, prev_mc) ||
	    nla_put_u64_64bit(skb, COOLHAND_A_TIMESTAMP_NS, ts_ns,
			      COOLHAND_A_PAD)) {
		coolhand_event_abort(skb, hdr);
		return;
	}
	coolhand_event_send(skb, hdr);
}

/* EVENT_TRIP: ZONE_ID, TRIP_TYPE, TRIP_DIRECTION, TRIP_TEMP, TEMP, ... */
void coolhand_event_trip(int zone_id, enum coolhand_trip_type type,
			 enum coolhand_trip_direction dir, int trip_mc,
			 int temp_mc, u64 ts_ns)
{
	struct sk_buff *skb;
	void *hdr;

	skb = coolhand_event_new(COOLHAND_CMD_EVENT_TRIP, &hdr);
	if (!skb)
		return;
	if (nla_put_u32(skb, COOLHAND_A_ZONE_ID, zone_id) ||
	    nla_put_u32(skb, COOLHAND_A_TRIP_TYPE, type) ||
	    nla_put_u32(skb, COOLHAND_A_TRIP_DIRECTION, dir) ||
	    nla_put_s32(skb, COOLHAND_A_TRIP_TEMP, trip_mc) ||
	    nla_put_s32(skb, COOLHAND_A_TEMP, temp_mc) ||
	    nla_put_u64_64bit(skb, COOLHAND_A_TIMESTAMP_NS, ts_ns,
			      COOLHAND_A_PAD)) {
		coolhand_event_abort(skb, hdr);
		return;
	}
	coolhand_event_send(skb, hdr);
}

/* EVENT_THROTTLE: DEV_ID, LEVEL, TIMESTAMP_NS, SEQ. */
void coolhand_event_throttle(int dev_id, unsigned int level, u64 ts_ns)
{
	struct sk_buff *skb;
	void *hdr;

	skb = coolhand_event_new(COOLHAND_CMD_EVENT_THROTTLE, &hdr);
	if (!skb)
		return;
	if (nla_put_u32(skb, COOLHAND_A_DEV_ID, dev_id) ||
	    nla_put_u32(skb, COOLHAND_A_LEVEL, level) ||
	    nla_put_u64_64bit(skb, COOLHAND_A_TIMESTAMP_NS, ts_ns,
			      COOLHAND_A_PAD)) {
		coolhand_event_abort(skb, hdr);
		return;
	}
	coolhand_event_send(skb, hdr);
}

static int coolhand_put_sysfs_path(struct sk_buff *skb, struct kobject *kobj)
{
	char *path = kobject_get_path(kobj, GFP_KERNEL);
	int ret;

	if (!path)
		return -ENOMEM;
	ret = nla_put_string(skb, COOLHAND_A_SYSFS_PATH, path);
	kfree(path);
	return ret;
}

static int coolhand_put_trips(struct sk_buff *skb, struct coolhand_zone *zone)
{
	struct nlattr *nest;
	unsigned int i;

	for (i = 0; i < zone->num_trips; i++) {
		const struct coolhand_trip *t = &zone->trips[i].trip;

		nest = nla_nest_start(skb, COOLHAND_A_TRIP);
		if (!nest)
			return -EMSGSIZE;
		if (nla_put_u32(skb, COOLHAND_A_TRIP_TYPE, t->type) ||
		    nla_put_s32(skb, COOLHAND_A_TRIP_TEMP, t->temp_mc) ||
		    nla_put_s32(skb, COOLHAND_A_TRIP_HYST, t->hyst_mc)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
		nla_nest_end(skb, nest);
	}
	return 0;
}

static int coolhand_put_zone_devs(struct sk_buff *skb,
				  struct coolhand_zone *zone)
{
	struct coolhand_binding *b;
	struct nlattr *nest;

	lockdep_assert_held(&coolhand_lock);

	nest = nla_nest_start(skb, COOLHAND_A_ZONE_DEVS);
	if (!nest)
		return -EMSGSIZE;
	list_for_each_entry(b, &zone->bindings, zone_node) {
		if (nla_put_u32(skb, COOLHAND_A_DEV_ID, b->thr->id)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

static u32 __coolhand_zone_alarms(struct coolhand_zone *zone)
{
	u32 alarms = 0;

	lockdep_assert_held(&zone->lock);

	if (zone->temp_alarm)
		alarms |= COOLHAND_ALARM_TEMP;
	if (zone->passive >= 0 && zone->trips[zone->passive].alarm)
		alarms |= COOLHAND_ALARM_PASSIVE;
	if (zone->crit >= 0 && zone->trips[zone->crit].alarm)
		alarms |= COOLHAND_ALARM_CRIT;
	return alarms;
}

/* One zone: identity, fresh temperature, event window, trips, devices. */
static int coolhand_fill_zone(struct sk_buff *skb, void *obj, u32 portid,
			      u32 seq, int flags)
{
	struct coolhand_zone *zone = obj;
	int temp_mc, low, high, read_ret;
	u32 below, above, alarms;
	enum coolhand_event_mode mode;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &coolhand_genl_family, flags,
			  COOLHAND_CMD_ZONE_GET);
	if (!hdr)
		return -EMSGSIZE;

	mutex_lock(&zone->lock);
	read_ret = __coolhand_zone_read_temp(zone, &temp_mc);
	__coolhand_event_window(zone, &low, &high);
	mode = zone->mode;
	below = zone->step_below_mc;
	above = zone->step_above_mc;
	alarms = __coolhand_zone_alarms(zone);
	mutex_unlock(&zone->lock);

	if (nla_put_u32(skb, COOLHAND_A_ZONE_ID, zone->id) ||
	    nla_put_string(skb, COOLHAND_A_ZONE_NAME, zone->name) ||
	    nla_put_u32(skb, COOLHAND_A_ZONE_KIND, zone->kind) ||
	    (!read_ret && nla_put_s32(skb, COOLHAND_A_TEMP, temp_mc)) ||
	    nla_put_u32(skb, COOLHAND_A_EVENT_MODE, mode) ||
	    nla_put_s32(skb, COOLHAND_A_WINDOW_LOW, low) ||
	    nla_put_s32(skb, COOLHAND_A_WINDOW_HIGH, high) ||
	    nla_put_u32(skb, COOLHAND_A_STEP_BELOW, below) ||
	    nla_put_u32(skb, COOLHAND_A_STEP_ABOVE, above) ||
	    nla_put_u32(skb, COOLHAND_A_ALARMS, alarms) ||
	    (zone->tzd &&
	     nla_put_u32(skb, COOLHAND_A_THERMAL_ID, coolhand_tz_id(zone->tzd))) ||
	    coolhand_put_sysfs_path(skb, &zone->dev.kobj) ||
	    coolhand_put_trips(skb, zone) ||
	    coolhand_put_zone_devs(skb, zone)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* One throttle control: identity, level, range, power, mirrors. */
static int coolhand_fill_dev(struct sk_buff *skb, void *obj, u32 portid,
			     u32 seq, int flags)
{
	struct coolhand_throttle *thr = obj;
	unsigned int level;
	void *hdr;
	int ret;

	ret = coolhand_throttle_get_level(thr, &level);
	if (ret)
		return ret;

	hdr = genlmsg_put(skb, portid, seq, &coolhand_genl_family, flags,
			  COOLHAND_CMD_DEV_GET);
	if (!hdr)
		return -EMSGSIZE;

	if (nla_put_u32(skb, COOLHAND_A_DEV_ID, thr->id) ||
	    nla_put_string(skb, COOLHAND_A_DEV_NAME, thr->name) ||
	    nla_put_u32(skb, COOLHAND_A_LEVEL, level) ||
	    nla_put_u32(skb, COOLHAND_A_MAX_LEVEL, thr->max_level) ||
	    (thr->power_mw &&
	     nla_put_u32(skb, COOLHAND_A_POWER_MW, thr->power_mw[level])) ||
	    (thr->cdev &&
	     nla_put_u32(skb, COOLHAND_A_THERMAL_ID, thr->cdev->id)) ||
	    coolhand_put_sysfs_path(skb, &thr->dev->kobj)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/*
 * The two kinds of objects requests name by id, zones and devices, and how
 * ZONE_GET and DEV_GET report one. The lookup and the get/dump handlers
 * below serve both.
 */
struct coolhand_nl_objs {
	struct idr *idr;
	int id_attr;
	int (*fill)(struct sk_buff *skb, void *obj, u32 portid, u32 seq,
		    int flags);
};

static const struct coolhand_nl_objs coolhand_nl_zones = {
	.idr = &coolhand_zone_idr,
	.id_attr = COOLHAND_A_ZONE_ID,
	.fill = coolhand_fill_zone,
};

static const struct coolhand_nl_objs coolhand_nl_devs = {
	.idr = &coolhand_throttle_idr,
	.id_attr = COOLHAND_A_DEV_ID,
	.fill = coolhand_fill_dev,
};

/*
 * The object the request's id attribute names, or an ERR_PTR(). An unknown
 * id is -ENOENT with the extack pointing at the id attribute.
 */
static void *coolhand_nl_find(const struct coolhand_nl_objs *objs,
			      struct genl_info *info)
{
	void *obj;

	lockdep_assert_held(&coolhand_lock);

	if (GENL_REQ_ATTR_CHECK(info, objs->id_attr))
		return ERR_PTR(-EINVAL);
	obj = idr_find(objs->idr, nla_get_u32(info->attrs[objs->id_attr]));
	if (!obj) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[objs->id_attr],
				    "no zone or device with this id");
		return ERR_PTR(-ENOENT);
	}
	return obj;
}

/* Mutating commands need CAP_SYS_ADMIN (GENL_ADMIN_PERM checks NET_ADMIN). */
static int coolhand_nl_check_admin(struct sk_buff *skb, struct genl_info *info)
{
	if (!netlink_capable(skb, CAP_SYS_ADMIN)) {
		NL_SET_ERR_MSG(info->extack, "CAP_SYS_ADMIN required");
		return -EPERM;
	}
	return 0;
}

/* ZONE_GET/DEV_GET of one id. */
static int coolhand_nl_get_doit(const struct coolhand_nl_objs *objs,
				struct genl_info *info)
{
	struct sk_buff *msg;
	void *obj;
	int ret;

	msg = nlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	mutex_lock(&coolhand_lock);
	obj = coolhand_nl_find(objs, info);
	ret = IS_ERR(obj) ? PTR_ERR(obj) :
	      objs->fill(msg, obj, info->snd_portid, info->snd_seq, 0);
	mutex_unlock(&coolhand_lock);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

/* ZONE_GET/DEV_GET dumps; cb->args[0]: next id to dump. */
static int coolhand_nl_get_dumpit(const struct coolhand_nl_objs *objs,
				  struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	int id = cb->args[0];
	int ret = 0;
	void *obj;

	mutex_lock(&coolhand_lock);
	while ((obj = idr_get_next(objs->idr, &id))) {
		ret = objs->fill(skb, obj, NETLINK_CB(cb->skb).portid,
				 cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (ret)
			break;
		id++;
	}
	mutex_unlock(&coolhand_lock);
	cb->args[0] = id;
	/* A full skb ends this part of the dump; the next call resumes. */
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret ?: skb->len;
}

static int coolhand_nl_zone_get_doit(struct sk_buff *skb,
				     struct genl_info *info)
{
	return coolhand_nl_get_doit(&coolhand_nl_zones, info);
}

static int coolhand_nl_zone_get_dumpit(struct sk_buff *skb,
				       struct netlink_callback *cb)
{
	return coolhand_nl_get_dumpit(&coolhand_nl_zones, skb, cb);
}

static int coolhand_nl_dev_get_doit(struct sk_buff *skb,
				    struct genl_info *info)
{
	return coolhand_nl_get_doit(&coolhand_nl_devs, info);
}

static int coolhand_nl_dev_get_dumpit(struct sk_buff *skb,
				      struct netlink_callback *cb)
{
	return coolhand_nl_get_dumpit(&coolhand_nl_devs, skb, cb);
}

static int coolhand_nl_temp_get_doit(struct sk_buff *skb,
				     struct genl_info *info)
{
	struct coolhand_zone *zone;
	struct sk_buff *msg;
	int temp_mc, ret;
	u64 now_ns;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	mutex_lock(&coolhand_lock);
	zone = coolhand_nl_find(&coolhand_nl_zones, info);
	ret = IS_ERR(zone) ? PTR_ERR(zone) :
	      coolhand_zone_read_temp(zone, &temp_mc);
	now_ns = ktime_get_ns();
	if (ret)
		goto err_unlock;

	hdr = genlmsg_put_reply(msg, info, &coolhand_genl_family, 0,
				COOLHAND_CMD_TEMP_GET);
	if (!hdr ||
	    nla_put_u32(msg, COOLHAND_A_ZONE_ID, zone->id) ||
	    nla_put_s32(msg, COOLHAND_A_TEMP, temp_mc) ||
	    nla_put_u64_64bit(msg, COOLHAND_A_TIMESTAMP_NS, now_ns,
			      COOLHAND_A_PAD)) {
		ret = -EMSGSIZE;
		goto err_unlock;
	}
	mutex_unlock(&coolhand_lock);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_unlock:
	mutex_unlock(&coolhand_lock);
	nlmsg_free(msg);
	return ret;
}

/*
 * WINDOW_SET: ZONE_ID plus exactly one of the pairs STEP_BELOW+STEP_ABOVE
 * (step mode) or WINDOW_LOW+WINDOW_HIGH (window mode, low < high).
 */
static int coolhand_nl_window_set_doit(struct sk_buff *skb,
				       struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	bool steps = a[COOLHAND_A_STEP_BELOW] || a[COOLHAND_A_STEP_ABOVE];
	bool window = a[COOLHAND_A_WINDOW_LOW] || a[COOLHAND_A_WINDOW_HIGH];
	struct coolhand_zone *zone;
	int ret;

	ret = coolhand_nl_check_admin(skb, info);
	if (ret)
		return ret;
	if (steps == window) {
		NL_SET_ERR_MSG(info->extack,
			       "need either STEP_BELOW+STEP_ABOVE or WINDOW_LOW+WINDOW_HIGH");
		return -EINVAL;
	}
	if (steps && (GENL_REQ_ATTR_CHECK(info, COOLHAND_A_STEP_BELOW) ||
		      GENL_REQ_ATTR_CHECK(info, COOLHAND_A_STEP_ABOVE)))
		return -EINVAL;
	if (window && (GENL_REQ_ATTR_CHECK(info, COOLHAND_A_WINDOW_LOW) ||
		       GENL_REQ_ATTR_CHECK(info, COOLHAND_A_WINDOW_HIGH)))
		return -EINVAL;

	mutex_lock(&coolhand_lock);
	zone = coolhand_nl_find(&coolhand_nl_zones, info);
	if (IS_ERR(zone))
		ret = PTR_ERR(zone);
	else if (steps)
		ret = coolhand_zone_set_steps(zone,
					      nla_get_u32(a[COOLHAND_A_STEP_BELOW]),
					      nla_get_u32(a[COOLHAND_A_STEP_ABOVE]));
	else
		ret = coolhand_zone_set_window(zone,
					       nla_get_s32(a[COOLHAND_A_WINDOW_LOW]),
					       nla_get_s32(a[COOLHAND_A_WINDOW_HIGH]));
	mutex_unlock(&coolhand_lock);
	if (ret == -EINVAL)
		NL_SET_ERR_MSG(info->extack, "window low must be below high");
	return ret;
}

/* LEVEL_SET: DEV_ID + LEVEL (0..max_level). */
static int coolhand_nl_level_set_doit(struct sk_buff *skb,
				      struct genl_info *info)
{
	struct coolhand_throttle *thr;
	int ret;

	ret = coolhand_nl_check_admin(skb, info);
	if (ret)
		return ret;
	if (GENL_REQ_ATTR_CHECK(info, COOLHAND_A_LEVEL))
		return -EINVAL;

	mutex_lock(&coolhand_lock);
	thr = coolhand_nl_find(&coolhand_nl_devs, info);
	ret = IS_ERR(thr) ? PTR_ERR(thr) :
	      coolhand_throttle_set_level(thr,
					  nla_get_u32(info->attrs[COOLHAND_A_LEVEL]));
	mutex_unlock(&coolhand_lock);
	if (ret == -EINVAL)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[COOLHAND_A_LEVEL],
				    "level out of range");
	return ret;
}

static const struct genl_small_ops coolhand_nl_ops[] = {
	{
		.cmd = COOLHAND_CMD_ZONE_GET,
		.doit = coolhand_nl_zone_get_doit,
		.dumpit = coolhand_nl_zone_get_dumpit,
	},
	{
		.cmd = COOLHAND_CMD_DEV_GET,
		.doit = coolhand_nl_dev_get_doit,
		.dumpit = coolhand_nl_dev_get_dumpit,
	},
	{
		.cmd = COOLHAND_CMD_TEMP_GET,
		.doit = coolhand_nl_temp_get_doit,
	},
	{
		.cmd = COOLHAND_CMD_WINDOW_SET,
		.flags = GENL_ADMIN_PERM,
		.doit = coolhand_nl_window_set_doit,
	},
	{
		.cmd = COOLHAND_CMD_LEVEL_SET,
		.flags = GENL_ADMIN_PERM,
		.doit = coolhand_nl_level_set_doit,
	},
};

static struct genl_family coolhand_genl_family = {
	.name = COOLHAND_GENL_NAME,
	.version = COOLHAND_GENL_VERSION,
	.maxattr = COOLHAND_A_MAX,
	.policy = coolhand_nl_policy,
	.module = THIS_MODULE,
	.small_ops = coolhand_nl_ops,
	.n_small_ops = ARRAY_SIZE(coolhand_nl_ops),
	/* Validate header and attributes strictly for every command. */
	.resv_start_op = COOLHAND_CMD_ZONE_GET,
	.mcgrps = coolhand_mcgrps,
	.n_mcgrps = ARRAY_SIZE(coolhand_mcgrps),
};

int coolhand_netlink_init(void)
{
	return genl_register_family(&coolhand_genl_family);
}

void coolhand_netlink_exit(void)
{
	genl_unregister_family(&coolhand_genl_family);
}
