#!/usr/bin/env bash
# coolhand-sim command-line input honesty (issue 12): an unknown subcommand
# (of coolhand-sim or of port) is an error, a workload without ambient_c warns once, `port` names file,
# line and column of bad YAML and edits flow style, `port check` refuses
# what it cannot use and writes nothing, and `compare -p` without `-g`
# says the baseline targets were not checked. Exact messages.
# Usage: cli_test.sh <coolhand-sim> <sim data dir> <policy>
set -euo pipefail

sim="$1"
data="$2"
policy="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

# shellcheck source=expect.sh
. "$(dirname "$0")/expect.sh"

# An unknown subcommand, even with --help after it, is an error naming it.
set +e
out="$("$sim" frobnicate --help 2>"$work/err")"
rc=$?
set -e
expect_eq "frobnicate --help exit status" 2 "$rc"
expect_eq "frobnicate --help stdout" "" "$out"
expect_eq "frobnicate --help stderr" \
  "coolhand-sim: unknown subcommand 'frobnicate' (one of: run, replay, export, compare, bound, merge, fit, tune, port; see coolhand-sim --help)" \
  "$(cat "$work/err")"

# So is one of port's: it names port's subcommands; port alone asks for one.
for args in "port bogus" "port bogus --help" "port"; do
  set +e
  # shellcheck disable=SC2086 # the words are the arguments
  out="$("$sim" $args 2>"$work/err")"
  rc=$?
  set -e
  expect_eq "$args exit status" 2 "$rc"
  expect_eq "$args stdout" "" "$out"
  if [[ "$args" == "port" ]]; then
    expect_eq "$args stderr" \
      "coolhand-sim: port: give a subcommand (one of: inspect, lab, paste, check; see coolhand-sim port --help)" \
      "$(cat "$work/err")"
  else
    expect_eq "$args stderr" \
      "coolhand-sim: port: unknown subcommand 'bogus' (one of: inspect, lab, paste, check; see coolhand-sim port --help)" \
      "$(cat "$work/err")"
  fi
done

# A known subcommand's --help still works.
"$sim" run --help >"$work/help"
expect_eq "run --help" "1" "$(grep -c -- '--workload' "$work/help")"

# A workload without ambient_c: one warning naming the file and the value used.
cat >"$work/no-ambient.csv" <<'CSV'
time_s,cpu,gpu,modem,backlight,charger
0,0.5,0.5,0,0.5,0
5,0.5,0.5,0,0.5,0
CSV
"$sim" run -m "$data/models/reference-umpc.yaml" -w "$work/no-ambient.csv" -g none --no-trace \
  -o "$work/out" >/dev/null 2>"$work/err"
expect_eq "no ambient_c warns once" \
  "coolhand-sim: $work/no-ambient.csv:1: warning: no ambient_c column; using the model's ambient_c, 25 °C" \
  "$(cat "$work/err")"

# A workload lacking a device column is an error, exit 1.
cat >"$work/no-charger.csv" <<'CSV'
time_s,cpu,gpu,modem,backlight,ambient_c
0,0.5,0.5,0,0.5,25
5,0.5,0.5,0,0.5,25
CSV
set +e
"$sim" run -m "$data/models/reference-umpc.yaml" -w "$work/no-charger.csv" -g none --no-trace \
  -o "$work/out" >/dev/null 2>"$work/err"
rc=$?
set -e
expect_eq "missing device column exit status" 1 "$rc"
expect_eq "missing device column message" \
  "coolhand-sim: $work/no-charger.csv:1: no column for device 'charger' of model 'reference-umpc' (give its demand in [0,1]; a column of 0 keeps it idle)" \
  "$(cat "$work/err")"

# compare -p without -g: no claim that the targets hold against baselines.
cat >"$work/two.csv" <<'CSV'
time_s,cpu,gpu,modem,backlight,charger,ambient_c
0,0.5,0.5,0,0.5,0,25
20,0.5,0.5,0,0.5,0,25
CSV
"$sim" compare -m "$data/models/reference-umpc.yaml" -w "$work/two.csv" -p "$policy" \
  -o "$work/cmp" >"$work/out.txt"
expect_eq "compare -p without -g" \
  "targets: no kernel baseline to compare against (add e.g. -g step_wise -g power_allocator); max skin <= limit + 0.5 °C holds" \
  "$(grep '^targets:' "$work/out.txt")"

# replay --trace reads the simulator's own trace.csv (issue 11): the
# <sensor>_reading_c columns feed the policy and the rest are ignored, said
# once on stderr; sensors.csv and plot.svg are written.
"$sim" run -m "$data/models/reference-umpc.yaml" -w "$work/two.csv" -p "$policy" \
  -o "$work/run" >/dev/null
"$sim" replay -p "$policy" -t "$work/run/trace.csv" -o "$work/replay" >"$work/out.txt" 2>"$work/err"
expect_eq "replay --trace of trace.csv warns once" \
  "coolhand-sim: $work/run/trace.csv:1: warning: ignoring 23 columns that are not physical sensors of the policy: ambient_c, max_skin_c, power_w, performance, cpu_c, gpu_c, modem_c, charger_c, board_c, battery_c, display_c, front_skin_c, back_skin_c, cpu_level, gpu_level, modem_level, backlight_level, charger_level, cpu_demand, gpu_demand, modem_demand, backlight_demand, charger_demand" \
  "$(cat "$work/err")"
expect_eq "replay --trace sensors.csv header" \
  "time_s,cpu_therm,gpu_therm,modem_therm,charger_therm,skin_therm,battery_therm,front_fir,back_fir,front_skin,back_skin,skin,board_slow,skin_ctl" \
  "$(head -1 "$work/replay/sensors.csv")"
# One row per engine step, as many as decisions.csv has.
expect_eq "replay --trace sensors.csv rows" \
  "$(wc -l <"$work/replay/decisions.csv")" "$(wc -l <"$work/replay/sensors.csv")"
expect_eq "replay --trace plot panels (one per virtual sensor)" 7 \
  "$(grep -c 'and its inputs (dashed)' "$work/replay/plot.svg")"

# --kernel picks the governors' kernel rules; anything else is an error
# (6.16 too: the newer rules are named after 7.3, the kernel they are
# checked against).
for bad in 5.4 6.16; do
  set +e
  "$sim" run -g step_wise --kernel "$bad" --no-trace -o "$work/k$bad" >/dev/null 2>"$work/err"
  rc=$?
  set -e
  expect_eq "run --kernel $bad exit status" 1 "$rc"
  expect_eq "run --kernel $bad stderr" "coolhand-sim: unknown kernel '$bad' (one of: 6.1, 7.3)" \
    "$(cat "$work/err")"
done
"$sim" compare -g step_wise --kernel 7.3 -w "$data/workloads/navigation.csv" \
  -o "$work/cmp73" >"$work/cmp73.txt"
expect_eq "compare --kernel 7.3 runs" 1 "$(grep -c '^1 runs' "$work/cmp73.txt")"

# compare --markdown DIR/table.md -o DIR into a DIR that does not exist yet
# (the table used to be written before the directory was made), and a
# --markdown whose own directory is not -o's.
set +e
"$sim" compare -g step_wise -w "$data/workloads/navigation.csv" \
  --markdown "$work/new/table.md" -o "$work/new" >/dev/null 2>"$work/err"
rc=$?
set -e
expect_eq "compare --markdown DIR/x.md -o DIR, DIR new: exit status" 0 "$rc"
expect_eq "compare --markdown DIR/x.md -o DIR, DIR new: stderr" "" "$(cat "$work/err")"
expect_eq "compare --markdown DIR/x.md -o DIR: the table" 1 \
  "$(grep -c '^| navigation | step_wise |' "$work/new/table.md" 2>/dev/null || true)"
expect_eq "compare --markdown DIR/x.md -o DIR: overlay.svg" yes \
  "$([ -s "$work/new/overlay.svg" ] && echo yes || echo no)"
"$sim" compare -g step_wise -w "$data/workloads/navigation.csv" \
  --markdown "$work/md/sub/table.md" -o "$work/svg" >/dev/null
expect_eq "compare --markdown in another new directory" 1 \
  "$(grep -c '^| navigation | step_wise |' "$work/md/sub/table.md")"

# `port` (the port chain's YAML front end): a policy that does not parse is
# one error naming file, line and column, exit 1; a flow-style policy with
# comments gets its lab copy.
printf 'version: 1\nsensors: [\n' >"$work/bad.yaml"
set +e
"$sim" port lab -m "$data/models/tablet-10.yaml" -p "$work/bad.yaml" -o "$work" >/dev/null 2>"$work/err"
rc=$?
set -e
expect_eq "port lab, bad policy: exit status" 1 "$rc"
expect_eq "port lab, bad policy: message" \
  "coolhand-sim: port lab: $work/bad.yaml:3:1: end of sequence flow not found" "$(cat "$work/err")"
cat >"$work/flow.yaml" <<'YAML'
# a flow-style policy
version: 1
sensors: {skin: {source: {kind: thermal_zone, name: skin-therm}}}  # the one sensor
devices: {cpu: {max_level: 3}}
controllers: {g: {kind: step_wise, input: skin, devices: [cpu], threshold_c: 45, hysteresis_c: 2, period: 1s}}
YAML
"$sim" port lab -m "$data/models/tablet-10.yaml" -p "$work/flow.yaml" -o "$work" >/dev/null
expect_eq "port lab, flow policy: its sensors" \
  "sensors: {front_skin_tc: {source: {kind: thermal_zone, name: front-skin-tc}}, back_skin_tc: {source: {kind: thermal_zone, name: back-skin-tc}}, skin: {source: {kind: thermal_zone, name: skin-therm}}}  # the one sensor" \
  "$(grep '^sensors:' "$work/policy.yaml")"
expect_eq "port lab, flow policy: sampling added" \
  "sampling: {fine_granularity_c: 0.1, coarse_granularity_c: 0.1}" "$(tail -n 1 "$work/policy.yaml")"

# `port check` (the port chain's device check): each input it cannot use is
# one error naming the file (and line and column where the parser knows
# them), exit 1, and nothing is written; a check of two seeds prints the
# limit and writes one line per (workload, skin node) and per workload.
tablet="$data/models/tablet-10.yaml"
tpolicy="$data/policies/tablet-10.yaml"
check_refuses() {  # what, expected stderr, port check's arguments...
  local what=$1 want=$2 rc
  shift 2
  set +e
  "$sim" port check "$@" -o "$work/chk" >"$work/chk.out" 2>"$work/chk.err"
  rc=$?
  set -e
  expect_eq "port check, $what: exit status" 1 "$rc"
  expect_eq "port check, $what: message" "$want" "$(cat "$work/chk.err")"
  expect_eq "port check, $what: nothing written" "no" "$([[ -e $work/chk ]] && echo yes || echo no)"
}
check_refuses "bad policy" "coolhand-sim: port check: $work/bad.yaml:3:1: end of sequence flow not found" \
  -m "$tablet" --fitted "$tablet" -p "$work/bad.yaml" -w "$work/two.csv" --noise-seeds 1
check_refuses "missing fitted model" \
  "coolhand-sim: port check: $work/none.yaml: cannot open: No such file or directory" \
  -m "$tablet" --fitted "$work/none.yaml" -p "$tpolicy" -w "$work/two.csv" --noise-seeds 1
check_refuses "workload without a device column" \
  "coolhand-sim: port check: $work/no-charger.csv:1: no column for device 'charger' of model 'tablet-10' (give its demand in [0,1]; a column of 0 keeps it idle)" \
  -m "$tablet" --fitted "$tablet" -p "$tpolicy" -w "$work/no-charger.csv" --noise-seeds 1
check_refuses "policy of another device" \
  "coolhand-sim: port check: $policy on $tablet: policy device 'gpu' has max_level 7 but the model's has 6 'tablet-10'" \
  -m "$tablet" --fitted "$tablet" -p "$policy" -w "$work/two.csv" --noise-seeds 1
check_refuses "extra seeds overlapping 1..K" \
  "coolhand-sim: port check: the extra seeds from 2 overlap seeds 1..2: start them above 2" \
  -m "$tablet" --fitted "$tablet" -p "$tpolicy" -w "$work/two.csv" --noise-seeds 2 --extra-seeds 1 --extra-seed0 2
"$sim" port check -m "$tablet" --fitted "$tablet" -p "$tpolicy" -w "$work/two.csv" -w "$data/workloads/idle.csv" \
  --noise-seeds 1 --extra-seeds 1 -j 2 -o "$work/chk" >"$work/chk.out"
expect_eq "port check: the limit" "limit 41.0000" "$(head -n 1 "$work/chk.out")"
expect_eq "port check: peaks.txt, one line per workload and skin node" \
  "idle back_skin idle front_skin two back_skin two front_skin" "$(cut -d' ' -f1,2 "$work/chk/peaks.txt" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "port check: performance.txt, one line per workload, the same model twice" \
  "idle +0.0000000000 two +0.0000000000" "$(cut -d' ' -f1,4 "$work/chk/performance.txt" | tr '\n' ' ' | sed 's/ $//')"

if ((failures > 0)); then
  echo "$failures check(s) failed"
  exit 1
fi
