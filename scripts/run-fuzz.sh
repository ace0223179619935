#!/usr/bin/env bash
# Builds every libFuzzer target with clang (ASan+UBSan, see fuzz/CMakeLists.txt)
# and runs each for a share of a bounded total time:
#   fuzz/config  fuzz_config_loader     the policy loader
#                fuzz_device_file       the device-description loader
#                fuzz_limit_expr        named-limit expressions (skin - 0.5)
#   fuzz/daemon  fuzz_sysfs_parse       the daemon's sysfs attribute parsers
#                fuzz_thermal_netlink   thermal generic-netlink messages
#                fuzz_coolhand_netlink  coolhand generic-netlink messages
#                fuzz_state_file        the knob-originals state file
#                fuzz_probe_archive     probe archives (--sysfs-root FILE) and scrub
#   fuzz/sim     fuzz_sim_model         the simulator's model loader
#                fuzz_sim_csv           workload / sensor-trace CSV reader
#                fuzz_sim_recording     recordings through export and replay --recording
#                fuzz_sim_skeleton      coolhand-sim fit's skeleton reader and model writer
#                fuzz_sim_fit_csv       coolhand-sim fit's data binding and prediction
#                fuzz_sim_fit_recording fit --recording's binding of a recording
#                fuzz_sim_shard         shard files through coolhand-sim merge's checks
#                fuzz_tune_params       tune's --param / `tune:` reader and substitution
#                fuzz_sim_port_yaml     coolhand-sim port's YAML reading and in-place edits
#                fuzz_bound_fan_at      bound --fan-at's S:LEVEL reader
#   fuzz/recorder fuzz_recording        flight-recorder files and replay ports
# Exits non-zero on any crash, sanitizer report, timeout or out-of-memory;
# the failing input is kept in <build>/fuzz-artifacts/<target>- for
# reproduction:
#   <build>/fuzz/<area>/<target> <artifact>
#
# Usage: scripts/run-fuzz.sh [total-seconds]   (default: $FUZZ_SECONDS, else 108)
#        scripts/run-fuzz.sh --runs N [target...]   (N executions each, for
#        measuring; prints each target's execution count and time)
# Env:   COOLHAND_FUZZ_BUILD  build dir (default build-fuzz in the repo). A
#        dir not configured yet is configured for the fuzz targets alone
#        (Debug at -O1, like CI's build-asan); a configured one keeps its
#        settings (scripts/test-all.sh passes its build-asan, whose
#        sanitizer tests link the same libraries), only COOLHAND_SANITIZE and
#        COOLHAND_FUZZ are switched on.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
build="${COOLHAND_FUZZ_BUILD:-$root/build-fuzz}"

# target, area, dictionary, seed corpus (relative to fuzz/; "-" for none)
targets=(
  "fuzz_config_loader config config/yaml.dict config/corpus"
  "fuzz_device_file config config/yaml.dict ../config/devices"
  "fuzz_limit_expr config - config/corpus-limits"
  "fuzz_sysfs_parse daemon - -"
  "fuzz_thermal_netlink daemon - -"
  "fuzz_coolhand_netlink daemon - -"
  "fuzz_state_file daemon - daemon/corpus/state_file"
  "fuzz_probe_archive daemon - daemon/corpus/probe_archive"
  "fuzz_sim_model sim sim/model.dict sim/corpus-model"
  "fuzz_sim_csv sim sim/csv.dict sim/corpus-csv"
  "fuzz_sim_recording sim recorder/recording.dict recorder/corpus"
  "fuzz_sim_skeleton sim sim/model.dict sim/corpus-skeleton"
  "fuzz_sim_fit_csv sim sim/csv.dict sim/corpus-fit-csv"
  "fuzz_sim_fit_recording sim recorder/recording.dict sim/corpus-fit-recording"
  "fuzz_sim_shard sim sim/shard.dict sim/corpus-shard"
  "fuzz_tune_params sim config/yaml.dict sim/corpus-tune"
  "fuzz_tune_shards sim sim/shard.dict sim/corpus-tune-shards"
  "fuzz_sim_port_yaml sim config/yaml.dict sim/corpus-port-yaml"
  "fuzz_bound_fan_at sim - sim/corpus-fan-at"
  "fuzz_recording recorder recorder/recording.dict recorder/corpus"
)

runs=""
selected=()
if [[ "${1:-}" == "--runs" ]]; then
  runs="$2"
  shift 2
  selected=("$@")
  total=0
else
  total="${1:-${FUZZ_SECONDS:-108}}"
fi

names=()
for t in "${targets[@]}"; do
  read -r name _ <<<"$t"
  names+=("$name")
done

# A new build dir: Ninja (it builds the selected targets side by side; Make
# took them one after another), ASan's recommended -O1 with Debug's checks
# (Eigen's assertions stay on), line tables only (-g1, as CI's build-asan:
# enough for the sanitizers' stack traces), warnings as errors (as CI), no tests. A build dir configured earlier
# keeps its generator and settings, so its fuzz-artifacts are never thrown
# away and CI's build-asan is not rebuilt.
fresh=()
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  fresh=(-G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g1 -O1" -DCMAKE_C_FLAGS_DEBUG="-g1 -O1"
         -DCOOLHAND_WERROR=ON -DCOOLHAND_TESTS=OFF -DCOOLHAND_BENCHMARKS=OFF -DCOOLHAND_VM_TESTS=OFF)
fi
CC=clang CXX=clang++ cmake -S "$root" -B "$build" "${fresh[@]}" \
  -DCOOLHAND_SANITIZE=ON -DCOOLHAND_FUZZ=ON -DCOOLHAND_DAEMON=ON >/dev/null
# Build only the selected targets (all of them without a selection).
build_names=("${names[@]}")
((${#selected[@]} > 0)) && build_names=("${selected[@]}")
cmake --build "$build" --target "${build_names[@]}" -j2

each=$((total / ${#targets[@]}))
if [[ -z "$runs" && "$each" -lt 1 ]]; then
  echo "run-fuzz.sh: total time ${total}s is less than 1 s per target" >&2
  exit 2
fi

artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"
# New inputs go to a scratch corpus per target; the checked-in seeds stay untouched.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for t in "${targets[@]}"; do
  read -r name area dict corpus <<<"$t"
  if ((${#selected[@]} > 0)) && [[ ! " ${selected[*]} " =~ " $name " ]]; then continue; fi
  args=(-timeout=10 -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1
        -artifact_prefix="$artifacts/$name-")
  if [[ -n "$runs" ]]; then args+=(-runs="$runs"); else args+=(-max_total_time="$each"); fi
  [[ "$dict" != "-" ]] && args+=(-dict="$root/fuzz/$dict")
  mkdir -p "$work/$name"
  dirs=("$work/$name")
  [[ "$corpus" != "-" ]] && dirs+=("$root/fuzz/$corpus")
  if [[ -n "$runs" ]]; then echo "==== $name ($runs runs)"; else echo "==== $name (${each}s)"; fi
  start=$SECONDS
  "$build/fuzz/$area/$name" "${args[@]}" "${dirs[@]}" 2>"$work/$name.log" || {
    tail -50 "$work/$name.log"
    echo "run-fuzz.sh: $name failed; input in $artifacts/" >&2
    exit 1
  }
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$work/$name.log" | tr '\n' ' '
  echo "wall $((SECONDS - start)) s"
done
