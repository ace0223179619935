/* User-space stand-ins for the kernel facilities that Linux 6.1's thermal
 * governors (drivers/thermal/gov_*.c), thermal_helpers.c and the update path
 * of thermal_core.c use. Force-included (-include) before each kernel source
 * file the differential test extracts from linux-source-6.1 at test time.
 * Locking, tracing, netlink and sysfs are no-ops: the test runs one thread.
 * Written for this test from the kernel's documented interfaces; no kernel
 * code is copied here.
 */
#ifndef KSHIM_H
#define KSHIM_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef int32_t s32;
typedef uint64_t u64;
typedef int64_t s64;

#define __init
#define __exit
#define __used __attribute__((used))
#define __section(s) __attribute__((section(s)))
#define __printf(a, b)
#define __must_check
#define unlikely(x) (x)
#define likely(x) (x)
#define EXPORT_SYMBOL(x)
#define EXPORT_SYMBOL_GPL(x)
#define MODULE_LICENSE(x)
#define IS_ENABLED(x) 0
#define BIT(n) (1UL << (n))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define HZ 1000
#define WARN_ON(c) (c)
#define WARN_ONCE(c, ...) (c)
#define WARN(c, ...) (c)
#define IS_ERR(p) ((unsigned long)(p) >= (unsigned long)-4095)
#define ERR_PTR(e) ((void*)(long)(e))
#define PTR_ERR(p) ((long)(p))
#define GFP_KERNEL 0
#define ENOTSUPP 524
#define CONFIG_THERMAL 1
#define THERMAL_NAME_LENGTH 20

#define container_of(ptr, type, member) ((type*)((char*)(ptr)-offsetof(type, member)))

#define min(a, b)           \
  ({                        \
    __typeof__(a) _a = (a); \
    __typeof__(b) _b = (b); \
    _a < _b ? _a : _b;      \
  })
#define max(a, b)           \
  ({                        \
    __typeof__(a) _a = (a); \
    __typeof__(b) _b = (b); \
    _a > _b ? _a : _b;      \
  })
#define min_t(t, a, b) min((t)(a), (t)(b))
#define max_t(t, a, b) max((t)(a), (t)(b))
#define clamp(v, lo, hi) min(max(v, lo), hi)
#define clamp_val(v, lo, hi) clamp_t(__typeof__(v), v, lo, hi)
#define clamp_t(t, v, lo, hi) min_t(t, max_t(t, v, lo), hi)
#define abs(x)              \
  ({                        \
    __typeof__(x) _x = (x); \
    _x < 0 ? -_x : _x;      \
  })
#define DIV_ROUND_CLOSEST_ULL(x, d) \
  ({                                \
    u64 _x = (x);                   \
    u32 _d = (d);                   \
    (_x + _d / 2) / _d;             \
  })
static inline s64 div_s64(s64 x, s32 y) {
  return x / y;
}
static inline u64 div64_u64(u64 x, u64 y) {
  return x / y;
}
static inline unsigned int jiffies_to_msecs(unsigned long j) {
  return (unsigned int)(j * 1000 / HZ);
}
static inline unsigned long msecs_to_jiffies(unsigned int m) {
  return (unsigned long)m * HZ / 1000;
}
static inline int test_bit(int nr, const unsigned long* addr) {
  return (int)((*addr >> nr) & 1UL);
}

#define pr_fmt(fmt) fmt
#define pr_warn(...) ((void)0)
#define pr_warn_once(...) ((void)0)
#define pr_info(...) ((void)0)
#define pr_err(...) ((void)0)
#define pr_debug(...) ((void)0)
#define dev_dbg(...) ((void)0)
#define dev_warn(...) ((void)0)
#define dev_err(...) ((void)0)
#define dev_info(...) ((void)0)
#define dev_err_ratelimited(...) ((void)0)

static inline void* kzalloc(size_t n, int f) {
  (void)f;
  return calloc(1, n);
}
static inline void* kcalloc(size_t n, size_t s, int f) {
  (void)f;
  return calloc(n, s);
}
static inline void* kmalloc(size_t n, int f) {
  (void)f;
  return calloc(1, n);
}
static inline void kfree(const void* p) {
  free((void*)p);
}

struct mutex {
  int unused;
};
#define mutex_lock(m) ((void)(m))
#define mutex_unlock(m) ((void)(m))
#define mutex_init(m) ((void)(m))
#define lockdep_assert_held(m) ((void)(m))
typedef struct {
  int counter;
} atomic_t;
#define atomic_read(a) ((a)->counter)

struct list_head {
  struct list_head *next, *prev;
};
static inline void INIT_LIST_HEAD(struct list_head* l) {
  l->next = l;
  l->prev = l;
}
static inline void list_add_tail(struct list_head* n, struct list_head* h) {
  n->prev = h->prev;
  n->next = h;
  h->prev->next = n;
  h->prev = n;
}
#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_for_each_entry(pos, head, member)                                           \
  for (pos = list_entry((head)->next, __typeof__(*pos), member); &pos->member != (head); \
       pos = list_entry(pos->member.next, __typeof__(*pos), member))

struct device {
  int unused;
};
struct device_node;
struct attribute {
  const char* name;
};
struct attribute_group {
  const char* name;
};
struct device_attribute {
  struct attribute attr;
};
struct ida {
  int unused;
};
struct work_struct {
  int unused;
};
struct delayed_work {
  struct work_struct work;
};
struct workqueue_struct;
extern struct workqueue_struct* system_freezable_power_efficient_wq;
/* The core arms a zone's poll with mod_delayed_work / cancel_delayed_work;
 * the test records the delay (jiffies; 0 = cancelled) instead. */
bool mod_delayed_work(struct workqueue_struct* wq, struct delayed_work* w, unsigned long delay);
bool cancel_delayed_work(struct delayed_work* w);
static inline bool device_is_registered(struct device* d) {
  (void)d;
  return true;
}

#define BUILD_BUG_ON(c) ((void)sizeof(char[1 - 2 * !!(c)]))

/* Tracepoints are no-ops. */
#define trace_thermal_temperature(...) ((void)0)
#define trace_cdev_update(...) ((void)0)
#define trace_thermal_zone_trip(...) ((void)0)
#define trace_thermal_power_cpu_get_power_simple(...) ((void)0)
#define trace_thermal_power_cpu_limit(...) ((void)0)
#define trace_thermal_power_devfreq_get_power(...) ((void)0)
#define trace_thermal_power_devfreq_limit(...) ((void)0)
#define trace_thermal_power_allocator(...) ((void)0)
#define trace_thermal_power_allocator_pid(...) ((void)0)

#endif /* KSHIM_H */
