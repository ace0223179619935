/* The 6.1 shim (../shim/kshim.h) plus what the 6.13+ thermal governors,
 * thermal_helpers.c and update path of thermal_core.c use on top, for the
 * sources the differential test extracts from linux-source-7.3 at test
 * time (run.sh --kernel 7.3, extract.sh). Written for this test
 * from the kernel's documented interfaces; no kernel code is copied here.
 */
#ifndef KSHIM_7_3_H
#define KSHIM_7_3_H

#include "../shim/kshim.h"

#define IS_ERR_OR_NULL(p) (!(p) || IS_ERR(p))
static inline u64 div_u64(u64 x, u32 y) {
  return x / y;
}
#define kzalloc_obj(obj) calloc(1, sizeof(obj))
#define kzalloc_objs(type, n) ((type*)calloc((n), sizeof(type)))
#define fallthrough __attribute__((__fallthrough__))
#define __counted_by(m)

/* The trip lists (trips_high, trips_reached) and the poll work. */
static inline void list_add(struct list_head* n, struct list_head* h) {
  n->next = h->next;
  n->prev = h;
  h->next->prev = n;
  h->next = n;
}
static inline void list_del(struct list_head* e) {
  e->prev->next = e->next;
  e->next->prev = e->prev;
  e->next = e;
  e->prev = e;
}
static inline void list_move(struct list_head* e, struct list_head* h) {
  list_del(e);
  list_add(e, h);
}
static inline int list_empty(const struct list_head* h) {
  return h->next == h;
}
#define LIST_HEAD(name) struct list_head name = {&(name), &(name)}
#define list_first_entry(head, type, member) list_entry((head)->next, type, member)
#define list_last_entry(head, type, member) list_entry((head)->prev, type, member)
#define list_for_each_entry_reverse(pos, head, member)                                   \
  for (pos = list_entry((head)->prev, __typeof__(*pos), member); &pos->member != (head); \
       pos = list_entry(pos->member.prev, __typeof__(*pos), member))
#define list_for_each_entry_safe(pos, n, head, member)            \
  for (pos = list_entry((head)->next, __typeof__(*pos), member),  \
      n = list_entry(pos->member.next, __typeof__(*pos), member); \
       &pos->member != (head); pos = n, n = list_entry(n->member.next, __typeof__(*n), member))
#define list_for_each_entry_safe_reverse(pos, n, head, member)    \
  for (pos = list_entry((head)->prev, __typeof__(*pos), member),  \
      n = list_entry(pos->member.prev, __typeof__(*pos), member); \
       &pos->member != (head); pos = n, n = list_entry(n->member.prev, __typeof__(*n), member))
#define INIT_DELAYED_WORK(w, f) ((void)(w), (void)(f))
/* The kernel rounds delays over a second to a whole second of absolute
 * time; the test's delays over a second are whole seconds already. */
#define round_jiffies_relative(j) (j)

struct completion {
  int unused;
};

/* Scope-based locking (guard, scoped_guard) and classes are no-ops: one
 * thread. */
#define DEFINE_GUARD(name, type, lock, unlock)
#define DEFINE_CLASS(name, type, exit, init, ...)
#define guard(name) (void)
#define scoped_guard(name, ...) \
  for (int scoped_once_ = ((void)(__VA_ARGS__), 1); scoped_once_; scoped_once_ = 0)

#define trace_thermal_power_actor(...) ((void)0)

#endif /* KSHIM_7_3_H */
