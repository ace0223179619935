#!/bin/sh
# Extracts the thermal sources the differential test builds from a
# linux-source tarball into $3 (kept as a cache across runs), then generates
# from whole, unmodified functions:
#  core_update.c    thermal_core.c's update path: thermal_zone_device_update
#                   and the static functions it calls (from 6.13, as 7.3
#                   has it: __thermal_zone_device_update, the trip lists and
#                   crossings, and thermal_zone_device_init with
#                   kdiff_zone_init(), the glue's way to run it);
#  cooling_types.h  cpufreq_cooling.c's and devfreq_cooling.c's private
#                   device structs, for the glue to fill in;
#  cooling_power.c  their power-actor ops (get_requested_power, state2power,
#                   power2state and helpers), exported as two ops tables.
# KERNEL is run.sh's --kernel: 6.1 (Debian 12's linux-source-6.1) or 7.3
# (linux-source-7.3, cut down by scripts/fetch-kernel-source.sh).
# Usage: extract.sh KERNEL TARBALL OUTDIR
set -eu
kernel=$1
tarball=$2
out=$3
src=$out/src
# Per kernel: the thermal core's private headers the sources include (6.1's
# thermal_netlink.h is a stand-in in shim/include; from 6.13 the kernel's
# own are used), and the update path's functions with the static state and
# never-called helpers they need.
case $kernel in
  6.1)
    headers=""
    core_prologue='static atomic_t in_suspend;'
    core_fns="thermal_zone_device_set_polling monitor_thermal_zone handle_non_critical_trips
              handle_critical_trips handle_thermal_trip update_temperature
              thermal_zone_device_is_enabled thermal_zone_device_update"
    core_epilogue=""
    ;;
  7.3)
    headers="thermal_netlink.h thermal_debugfs.h thermal_thresholds.h"
    core_prologue='static struct workqueue_struct *thermal_wq;
/* Never called: the glue reads temperatures without failing. */
static void thermal_zone_recheck(struct thermal_zone_device *tz, int error)
{ (void)tz; (void)error; }
static void thermal_zone_device_check(struct work_struct *work) { (void)work; }'
    core_fns="thermal_zone_device_set_polling monitor_thermal_zone thermal_get_tz_governor
              handle_critical_trips move_trip_to_sorted_list move_to_trips_high
              move_to_trips_reached move_to_trips_invalid thermal_governor_trip_crossed
              thermal_trip_crossed thermal_zone_handle_trips __thermal_zone_device_update
              thermal_zone_device_update thermal_zone_device_init"
    core_epilogue='void kdiff_zone_init(struct thermal_zone_device *tz) { thermal_zone_device_init(tz); }'
    ;;
  *) echo "extract.sh: unknown kernel '$kernel' (6.1 or 7.3)" >&2; exit 2 ;;
esac

if [ ! -f "$src/.complete" ]; then
  rm -rf "$src"
  mkdir -p "$src"
  top=$(tar -tJf "$tarball" | head -n 1 | cut -d/ -f1)
  th="$top/drivers/thermal"
  set --
  for f in gov_step_wise.c gov_bang_bang.c gov_fair_share.c gov_power_allocator.c \
           thermal_helpers.c thermal_core.c thermal_core.h cpufreq_cooling.c \
           devfreq_cooling.c $headers; do
    set -- "$@" "$th/$f"
  done
  tar -xJf "$tarball" -C "$src" --strip-components=1 "$@" \
    "$top/include/linux/thermal.h" "$top/include/uapi/linux/thermal.h" "$top/Makefile"
  touch "$src/.complete"
fi

# fn FILE NAME: the definition of NAME (signature line through the first
# line that is a lone closing brace).
fn() {
  awk -v name="$2" '
    !found && $0 ~ "^[a-z].*[ *]" name "\\(" && $0 !~ ";$" { found = 1 }
    found { print }
    found && /^}/ { exit }
  ' "$1" | grep . || { echo "extract.sh: $2 not found in $1" >&2; exit 1; }
}
# struct_def FILE NAME: the definition of struct NAME.
struct_def() {
  awk -v name="$2" '
    $0 ~ "^struct " name " {" { found = 1 }
    found { print }
    found && /^};/ { exit }
  ' "$1" | grep . || { echo "extract.sh: struct $2 not found in $1" >&2; exit 1; }
}

th=$src/drivers/thermal
{
  echo '#include "thermal_core.h"'
  echo 'static struct thermal_governor *def_governor;'
  echo "$core_prologue"
  for f in $core_fns; do
    fn "$th/thermal_core.c" "$f"
  done
  [ -z "$core_epilogue" ] || echo "$core_epilogue"
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
