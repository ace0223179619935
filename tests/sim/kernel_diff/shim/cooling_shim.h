/* Stand-ins for the cpufreq, Energy Model and devfreq types that the power
 * ops of drivers/thermal/cpufreq_cooling.c and devfreq_cooling.c use
 * (6.1). One CPU per cpufreq policy; the load and current frequency come
 * from the test's glue (kdiff_glue.c). No kernel code is copied here.
 */
#ifndef COOLING_SHIM_H
#define COOLING_SHIM_H

#define CONFIG_SMP 1
#define CONFIG_THERMAL_GOV_POWER_ALLOCATOR 1
#define MICROWATT_PER_MILLIWATT 1000UL

struct em_perf_state {
  unsigned long frequency; /* kHz */
  unsigned long power;     /* uW in 6.1 */
  unsigned long cost;
  unsigned long flags;
};
struct em_perf_domain {
  struct em_perf_state* table;
  int nr_perf_states;
  unsigned long flags;
};

typedef int cpumask_var_t;
struct cpufreq_policy {
  unsigned int cpu; /* the test's cooling-device index */
  cpumask_var_t cpus;
  cpumask_var_t related_cpus;
};
struct freq_qos_request {
  int unused;
};
#define for_each_cpu(cpu, mask) for ((cpu) = 0; (cpu) < 1; (cpu)++)
#define cpumask_weight(mask) 1U
#define cpu_online(cpu) true
/* policy->cur of the cooling device whose policy->cpu is `cpu`, kHz. */
unsigned int cpufreq_quick_get(unsigned int cpu);

struct devfreq_dev_status {
  unsigned long total_time;
  unsigned long busy_time;
  unsigned long current_frequency; /* Hz */
  void* private_data;
};
struct devfreq {
  struct mutex lock;
  struct device dev;
  struct devfreq_dev_status last_status;
};
struct devfreq_cooling_power {
  int (*get_real_power)(struct devfreq* df, u32* power, unsigned long freq, unsigned long voltage);
};
struct dev_pm_qos_request {
  int unused;
};

#endif /* COOLING_SHIM_H */
