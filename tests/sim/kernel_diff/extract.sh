#!/bin/sh
# Extracts the Linux 6.1 sources the differential test builds from Debian's
# linux-source-6.1 tarball into $2 (kept as a cache across runs), then
# generates two translation units from whole, unmodified functions:
#  core_update.c    thermal_core.c's update path (thermal_zone_device_update
#                   and the static functions it calls);
#  cooling_types.h  cpufreq_cooling.c's and devfreq_cooling.c's private
#                   device structs, for the glue to fill in;
#  cooling_power.c  their power-actor ops (get_requested_power, state2power,
#                   power2state and helpers), exported as two ops tables.
# Usage: extract.sh TARBALL OUTDIR
set -eu
tarball=$1
out=$2
src=$out/src
if [ ! -f "$src/.complete" ]; then
  rm -rf "$src"
  mkdir -p "$src"
  top=$(tar -tJf "$tarball" | head -n 1 | cut -d/ -f1)
  tar -xJf "$tarball" -C "$src" --strip-components=1 \
    "$top/drivers/thermal/gov_step_wise.c" "$top/drivers/thermal/gov_bang_bang.c" \
    "$top/drivers/thermal/gov_fair_share.c" "$top/drivers/thermal/gov_power_allocator.c" \
    "$top/drivers/thermal/thermal_helpers.c" "$top/drivers/thermal/thermal_core.c" \
    "$top/drivers/thermal/thermal_core.h" "$top/drivers/thermal/cpufreq_cooling.c" \
    "$top/drivers/thermal/devfreq_cooling.c" "$top/include/linux/thermal.h" \
    "$top/include/uapi/linux/thermal.h" "$top/Makefile"
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
  echo 'static atomic_t in_suspend;'
  for f in thermal_zone_device_set_polling monitor_thermal_zone handle_non_critical_trips \
           handle_critical_trips handle_thermal_trip update_temperature \
           thermal_zone_device_is_enabled thermal_zone_device_update; do
    fn "$th/thermal_core.c" "$f"
  done
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
