/* The 6.1 cooling stand-ins (../shim/cooling_shim.h) plus the Energy Model
 * accessor that 6.13+'s cpufreq_cooling.c and devfreq_cooling.c read the
 * table through (under RCU, a no-op here). No kernel code is copied here.
 */
#ifndef COOLING_SHIM_7_3_H
#define COOLING_SHIM_7_3_H

#include "../shim/cooling_shim.h"

#define em_perf_state_from_pd(pd) ((pd)->table)
#define rcu_read_lock() ((void)0)
#define rcu_read_unlock() ((void)0)

#endif /* COOLING_SHIM_7_3_H */
