#!/bin/sh
# extract.sh for the 6.13+ thermal core (sim_kernel_diff_6.16): extracts the
# thermal sources from a linux-source tarball of 6.16 or later (Debian's
# linux-source-7.3, scripts/fetch-kernel-source.sh) into $2 (kept as a cache
# across runs), then generates, from whole, unmodified functions:
#  core_update.c    thermal_core.c's update path (thermal_zone_device_update,
#                   __thermal_zone_device_update, the trip lists and
#                   crossings, thermal_zone_device_init) plus
#                   kdiff_zone_init(), the glue's way to run the static
#                   thermal_zone_device_init;
#  cooling_types.h, cooling_power.c  as extract.sh does for 6.1.
# Usage: extract_616.sh TARBALL OUTDIR
set -eu
tarball=$1
out=$2
src=$out/src
if [ ! -f "$src/.complete" ]; then
  rm -rf "$src"
  mkdir -p "$src"
  top=$(tar -tJf "$tarball" | head -n 1 | cut -d/ -f1)
  th="$top/drivers/thermal"
  tar -xJf "$tarball" -C "$src" --strip-components=1 \
    "$th/gov_step_wise.c" "$th/gov_bang_bang.c" "$th/gov_fair_share.c" \
    "$th/gov_power_allocator.c" "$th/thermal_helpers.c" "$th/thermal_core.c" \
    "$th/thermal_core.h" "$th/thermal_netlink.h" "$th/thermal_debugfs.h" \
    "$th/thermal_thresholds.h" "$th/cpufreq_cooling.c" "$th/devfreq_cooling.c" \
    "$top/include/linux/thermal.h" "$top/include/uapi/linux/thermal.h" "$top/Makefile"
  touch "$src/.complete"
fi

fn() {
  awk -v name="$2" '
    !found && $0 ~ "^[a-z].*[ *]" name "\\(" && $0 !~ ";$" { found = 1 }
    found { print }
    found && /^}/ { exit }
  ' "$1" | grep . || { echo "extract_616.sh: $2 not found in $1" >&2; exit 1; }
}
struct_def() {
  awk -v name="$2" '
    $0 ~ "^struct " name " {" { found = 1 }
    found { print }
    found && /^};/ { exit }
  ' "$1" | grep . || { echo "extract_616.sh: struct $2 not found in $1" >&2; exit 1; }
}

th=$src/drivers/thermal
{
  echo '#include "thermal_core.h"'
  echo 'static struct thermal_governor *def_governor;'
  echo 'static struct workqueue_struct *thermal_wq;'
  echo '/* Never called: the glue reads temperatures without failing. */'
  echo 'static void thermal_zone_recheck(struct thermal_zone_device *tz, int error)'
  echo '{ (void)tz; (void)error; }'
  echo 'static void thermal_zone_device_check(struct work_struct *work) { (void)work; }'
  for f in thermal_zone_device_set_polling monitor_thermal_zone thermal_get_tz_governor \
           handle_critical_trips move_trip_to_sorted_list move_to_trips_high \
           move_to_trips_reached move_to_trips_invalid thermal_governor_trip_crossed \
           thermal_trip_crossed thermal_zone_handle_trips __thermal_zone_device_update \
           thermal_zone_device_update thermal_zone_device_init; do
    fn "$th/thermal_core.c" "$f"
  done
  echo 'void kdiff_zone_init(struct thermal_zone_device *tz) { thermal_zone_device_init(tz); }'
} > "$out/core_update.c.tmp"
mv "$out/core_update.c.tmp" "$out/core_update.c"

{
  echo '#include <linux/thermal.h>'
  echo '#include "cooling_shim.h"'
  grep '^#define SCALE_ERROR_MITIGATION' "$th/devfreq_cooling.c"
  struct_def "$th/cpufreq_cooling.c" cpufreq_cooling_device
  struct_def "$th/devfreq_cooling.c" devfreq_cooling_device
} > "$out/cooling_types.h.tmp"
mv "$out/cooling_types.h.tmp" "$out/cooling_types.h"

{
  echo '#include "cooling_types.h"'
  echo 'u32 kdiff_cpufreq_load(unsigned int cpu);'
  echo 'static u32 get_load(struct cpufreq_cooling_device *c, int cpu, int i)'
  echo '{ (void)cpu; (void)i; return kdiff_cpufreq_load(c->policy->cpu); }'
  for f in get_level cpu_freq_to_power cpu_power_to_freq get_dynamic_power \
           cpufreq_get_requested_power cpufreq_state2power cpufreq_power2state; do
    fn "$th/cpufreq_cooling.c" "$f"
  done
  echo 'static unsigned long get_voltage(struct devfreq *df, unsigned long f)'
  echo '{ (void)df; (void)f; return 0; }'
  for f in _normalize_load get_perf_idx devfreq_cooling_get_requested_power \
           devfreq_cooling_state2power devfreq_cooling_power2state; do
    fn "$th/devfreq_cooling.c" "$f"
  done
  echo 'const struct thermal_cooling_device_ops kdiff_cpufreq_power_ops = {'
  echo '  .get_requested_power = cpufreq_get_requested_power,'
  echo '  .state2power = cpufreq_state2power, .power2state = cpufreq_power2state };'
  echo 'const struct thermal_cooling_device_ops kdiff_devfreq_power_ops = {'
  echo '  .get_requested_power = devfreq_cooling_get_requested_power,'
  echo '  .state2power = devfreq_cooling_state2power,'
  echo '  .power2state = devfreq_cooling_power2state };'
} > "$out/cooling_power.c.tmp"
mv "$out/cooling_power.c.tmp" "$out/cooling_power.c"
