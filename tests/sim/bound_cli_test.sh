#!/usr/bin/env bash
# `coolhand-sim bound` on the command line (issue 12): a limit no schedule
# can hold (50 °C ambient, 45 °C limit) is an error giving the lowest peak
# skin any schedule reaches; a decision step that is no whole number of
# model steps is named; a feasible run prints the bound, and --schedule
# writes the LP's schedule (one row per decision step, powers within each
# device's range, performance that adds up to the printed figures);
# --fan-at holds a model's fan to a schedule. Exact messages.
# Usage: bound_cli_test.sh <coolhand-sim> <sim data dir>
set -euo pipefail

sim="$1"
data="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

# shellcheck source=expect.sh
. "$(dirname "$0")/expect.sh"

# Two hours in a 50 °C car: even with every device at its lowest power the
# skin passes 45 °C.
cat >"$work/car.csv" <<'CSV'
time_s,cpu,gpu,modem,backlight,charger,ambient_c
0,0.5,0.5,0.1,0.8,0,50
7200,0.5,0.5,0.1,0.8,0,50
CSV
set +e
out="$("$sim" bound -m "$data/models/reference-umpc.yaml" -w "$work/car.csv" 2>"$work/err")"
rc=$?
set -e
expect_eq "infeasible limit: exit status" 1 "$rc"
expect_eq "infeasible limit: stdout" "" "$out"
expect_eq "infeasible limit: message" \
  "coolhand-sim: bound: car: no schedule keeps the skin at or below 45.00 °C: the lowest peak skin any schedule reaches is 54.15 °C (every device at its lowest-power level throughout)" \
  "$(cat "$work/err")"

set +e
"$sim" bound -w "$work/car.csv" --limit 60 --step 0.25 >/dev/null 2>"$work/err"
rc=$?
set -e
expect_eq "bad decision step: exit status" 1 "$rc"
expect_eq "bad decision step: message" \
  "coolhand-sim: bound: car: the decision step must be a positive multiple of the model's 100 ms step, not 250 ms" \
  "$(cat "$work/err")"

# A feasible limit: the bound and the LP's size, progress on stderr.
"$sim" bound -w "$work/car.csv" --limit 60 --step 60 >"$work/out" 2>"$work/err"
expect_eq "feasible: bound line" 1 \
  "$(grep -c '^  performance bound with skin <= 60.00 °C: 0.8022 (no controller can deliver more)$' "$work/out")"
expect_eq "feasible: progress names the LP" 1 \
  "$(grep -c '^bound: 72000 model steps in 120 decision steps of 60000 ms; LP with' "$work/err")"

# --schedule: the car run's LP schedule, 120 decision steps of 60 s.
"$sim" bound -q -w "$work/car.csv" --limit 60 --step 60 --schedule "$work/s.csv" >"$work/out"
expect_eq "schedule: reported" 1 \
  "$(grep -c "^  wrote the LP's schedule (120 decision steps) to $work/s.csv\$" "$work/out")"
expect_eq "schedule: header" \
  "time_s,cpu_power_w,cpu_performance,gpu_power_w,gpu_performance,modem_power_w,modem_performance,backlight_power_w,backlight_performance,charger_power_w,charger_performance,demand_share,performance,front_skin_peak_c,back_skin_peak_c" \
  "$(head -1 "$work/s.csv")"
expect_eq "schedule: one row per decision step" 120 "$(tail -n +2 "$work/s.csv" | wc -l)"
expect_eq "schedule: rows 60 s apart from 0" 0 \
  "$(awk -F, 'NR > 1 && $1 != (NR - 2) * 60' "$work/s.csv" | wc -l)"
# Each device's power lies within its levels' range in reference-umpc.yaml
# (cpu 0.8-6, gpu 0.9-7, modem 0.6-2.2, backlight 0.51-1.6, charger
# 0.35-2.6 W), and its performance within its levels' (lowest .. 1).
expect_eq "schedule: powers and performance within the levels' range" 0 \
  "$(awk -F, 'BEGIN { split("0.8 0.9 0.6 0.51 0.35", lo, " "); split("6 7 2.2 1.6 2.6", hi, " ");
                      split("0.35 0.3 0.25 0.66 0.17", plo, " ") }
     NR > 1 { for (d = 1; d <= 5; ++d) {
                p = $(2 * d); q = $(2 * d + 1)
                if (p < lo[d] - 1e-6 || p > hi[d] + 1e-6 || q < plo[d] - 1e-6 || q > 1 + 1e-6) print } }' \
     "$work/s.csv" | wc -l)"
# The limit binds: some step throttles the CPU.
expect_eq "schedule: the CPU is throttled somewhere" 1 \
  "$(awk -F, 'NR > 1 && $2 < 5.99 { n = 1 } END { print n + 0 }' "$work/s.csv")"
# The demand shares sum to 1; the performance column weighted by them (here
# a plain mean too: the demand is constant) is the schedule's printed
# performance, within the printed rounding, and within 0.001 of the bound.
sched="$(sed -n 's/^  the LP.s schedule (decision step 60 s): performance \([0-9.]*\), peak skin \([0-9.]*\) °C$/\1 \2/p' "$work/out")"
expect_eq "schedule: figures agree with the printed ones" ok \
  "$(awk -F, -v perf="${sched% *}" -v peak="${sched#* }" -v bound=0.8022 '
     NR > 1 { share += $12; weighted += $12 * $13; mean += $13; n++
              for (c = 14; c <= 15; ++c) if ($c > max) max = $c }
     END { mean /= n
           d1 = share - 1; d2 = weighted - perf; d3 = mean - perf; d4 = max - peak; d5 = bound - weighted
           if (d1 < 0) d1 = -d1; if (d2 < 0) d2 = -d2; if (d3 < 0) d3 = -d3; if (d4 < 0) d4 = -d4
           if (d1 < 1e-4 && d2 < 6e-5 && d3 < 6e-5 && d4 < 6e-3 && d5 >= 0 && d5 < 1e-3) print "ok"
           else printf "share %g, weighted %g, mean %g vs %s; max peak %g vs %s; bound %s\n",
                       share, weighted, mean, perf, max, peak, bound }' "$work/s.csv")"
set +e
"$sim" bound -q -w "$work/car.csv" -w "$work/car.csv" --limit 60 --step 60 --schedule "$work/t.csv" \
  >/dev/null 2>"$work/err"
rc=$?
set -e
expect_eq "schedule: two workloads refused" 1 "$rc"
expect_eq "schedule: two workloads message" "coolhand-sim: bound --schedule: one workload, not 2" \
  "$(cat "$work/err")"

"$sim" bound --help >"$work/help"
expect_eq "bound --help" 1 "$(grep -c -- '--limit' "$work/help")"
expect_eq "bound --help names --fan-at" 1 "$(grep -c -- '--fan-at TEXT' "$work/help")"

# --fan-at: a bad argument, a model without a fan, and gaming-7's fan held
# off then at full (its note line; the held figure at most the relaxation's).
set +e
"$sim" bound -q --fan-at 300 >/dev/null 2>"$work/err"
rc=$?
set -e
expect_eq "fan-at: bad argument refused" 1 "$rc"
expect_eq "fan-at: bad argument message" \
  "coolhand-sim: --fan-at '300': expected S:LEVEL, a time in seconds and a fan level (e.g. 300:2)" \
  "$(cat "$work/err")"
set +e
"$sim" bound -q -w "$work/car.csv" --limit 60 --fan-at 0:0 >/dev/null 2>"$work/err"
rc=$?
set -e
expect_eq "fan-at: no fan refused" 1 "$rc"
expect_eq "fan-at: no fan message" \
  "coolhand-sim: bound: car: holding the fan to a schedule needs a model with one fan; this one has 0" \
  "$(cat "$work/err")"
printf 'time_s,cpu,gpu,modem,backlight,charger,ambient_c\n0,1,1,0.5,1,0,30\n120,1,1,0.5,1,0,30\n' >"$work/g7.csv"
relaxed="$("$sim" bound -q -m "$data/models/gaming-7.yaml" -w "$work/g7.csv" --step 6 |
  sed -n 's/.*performance bound with skin <= 45.00 °C: \([0-9.]*\).*/\1/p')"
"$sim" bound -q -m "$data/models/gaming-7.yaml" -w "$work/g7.csv" --step 6 \
  --fan-at 0:0 --fan-at 60:3 >"$work/out"
held="$(sed -n 's/.*performance bound with skin <= 45.00 °C: \([0-9.]*\).*/\1/p' "$work/out")"
expect_eq "fan-at: the held note" 1 "$(grep -c '^  fan held to the --fan-at schedule' "$work/out")"
expect_eq "fan-at: the bound line names the schedule" 1 \
  "$(grep -c '(no controller whose fan follows the --fan-at schedule can deliver more)$' "$work/out")"
expect_eq "fan-at: not every controller's bound" 0 "$(grep -c 'no controller can deliver more' "$work/out")"
expect_eq "fan-at: no relaxation note" 0 "$(grep -c 'fan relaxation' "$work/out")"
expect_eq "fan-at: held ($held) at most the relaxation ($relaxed), below 1" 1 \
  "$(awk -v h="$held" -v r="$relaxed" 'BEGIN { print (h != "" && h + 0 <= r + 0 && h + 0 < 1) }')"

# --fan-bound tight (bound_fan_tight.cpp): its line names the method, its
# figure is at most the relaxation's (10 min at 25 °C with a 33 °C limit, 30 s steps:
# 0.9431 against 0.9512); bad options refused.
printf 'time_s,cpu,gpu,modem,backlight,charger,ambient_c\n0,1,1,0.5,1,0,25\n600,1,1,0.5,1,0,25\n' >"$work/g7h.csv"
relaxed="$("$sim" bound -q -m "$data/models/gaming-7.yaml" -w "$work/g7h.csv" --step 30 --limit 33 |
  sed -n 's/.*performance bound with skin <= 33.00 °C: \([0-9.]*\).*/\1/p')"
"$sim" bound -q -m "$data/models/gaming-7.yaml" -w "$work/g7h.csv" --step 30 --limit 33 \
  --fan-bound tight --fan-floor 0.5 >"$work/out"
tight="$(sed -n 's/.*performance bound with skin <= 33.00 °C: \([0-9.]*\).*/\1/p' "$work/out")"
expect_eq "fan-bound tight: its note" 1 "$(grep -c '^  fan bound: tight (--fan-bound tight' "$work/out")"
expect_eq "fan-bound tight: ($tight) below the relaxation ($relaxed)" 1 \
  "$(awk -v t="$tight" -v r="$relaxed" 'BEGIN { print (t != "" && t + 0 < r + 0) }')"
set +e
"$sim" bound -q --fan-bound tight --fan-floor 2 >/dev/null 2>"$work/err"
rc=$?
set -e
expect_eq "fan-floor out of range refused" 1 "$rc"
expect_eq "fan-floor out of range message" "coolhand-sim: --fan-floor 2: a performance in [0, 1]" \
  "$(cat "$work/err")"
set +e
"$sim" bound -q --fan-floor 0.5 >/dev/null 2>"$work/err"
rc=$?
set -e
expect_eq "fan-floor without tight refused" 1 "$rc"
expect_eq "fan-floor without tight message" "coolhand-sim: --fan-floor needs --fan-bound tight" \
  "$(cat "$work/err")"
set +e
"$sim" bound -q -w "$work/car.csv" --limit 60 --fan-bound tight >/dev/null 2>"$work/err"
rc=$?
set -e
expect_eq "fan-bound tight without a fan refused" 1 "$rc"
expect_eq "fan-bound tight without a fan message" \
  "coolhand-sim: bound: car: --fan-bound tight needs a model with a fan; this one has none" \
  "$(cat "$work/err")"

[[ "$failures" -eq 0 ]] || { echo "$failures failure(s)"; exit 1; }
echo "bound_cli_test: all passed"
