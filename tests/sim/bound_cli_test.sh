#!/usr/bin/env bash
# `coolhand-sim bound` on the command line (issue 12): a limit no schedule
# can hold (50 °C ambient, 45 °C limit) is an error giving the lowest peak
# skin any schedule reaches; a decision step that is no whole number of
# model steps is named; a feasible run prints the bound. Exact messages.
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

"$sim" bound --help >"$work/help"
expect_eq "bound --help" 1 "$(grep -c -- '--limit' "$work/help")"

[[ "$failures" -eq 0 ]] || { echo "$failures failure(s)"; exit 1; }
echo "bound_cli_test: all passed"
