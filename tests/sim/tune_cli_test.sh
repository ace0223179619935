#!/usr/bin/env bash
# `coolhand-sim tune` on the command line (issue 13): one machine against the
# same run split into 3 shards and merged (by `merge` and by `tune
# --from-shards`): the tuned policy, the evaluations and the plot are byte
# for byte the same; bad arguments are errors with exact messages.
# Usage: tune_cli_test.sh <coolhand-sim> <sim data dir> <reference policy>
set -euo pipefail

sim="$1"
data="$2"
policy="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

# shellcheck source=expect.sh
. "$(dirname "$0")/expect.sh"

same_files() {  # what, dir a, dir b
  local f
  for f in policy.yaml evaluations.csv convergence.svg; do
    if cmp -s "$2/$f" "$3/$f"; then
      printf 'ok   %s: %s identical\n' "$1" "$f"
    else
      printf 'FAIL %s: %s differs\n' "$1" "$f"
      failures=$((failures + 1))
    fi
  done
}

base=(-p "$policy" -w "$data/workloads/gaming.csv" -w "$data/workloads/hot-start.csv"
  --param controllers.skin_pid_cpu.setpoint_c=-1..0 --param controllers.skin_pid_cpu.kp=0.2..2
  --no-bound -q)
# A tolerance per skin node and one workload's own, a workload's
# performance bias and a limit margin: the shards' run identity carries
# each, from which `merge` runs the same command.
args=("${base[@]}" --global 9 --local 6 --tolerance 0.3 --tolerance back_skin=0.2
  --tolerance hot-start:back_skin=0.25 --performance-bias hot-start=-0.0015 --limit-margin 0.05)

"$sim" tune "${args[@]}" -o "$work/one" >/dev/null
for k in 1 2 3; do "$sim" tune "${args[@]}" --shard "$k/3" -o "$work/shards" >/dev/null; done
"$sim" merge -q "$work"/shards/tune-shard-{1,2,3}-of-3.json -o "$work/merged" >/dev/null
"$sim" tune "${args[@]}" --from-shards "$work"/shards/tune-shard-{3,1,2}-of-3.json \
  -o "$work/from" >/dev/null
same_files "merge of 3 shards" "$work/one" "$work/merged"
same_files "tune --from-shards" "$work/one" "$work/from"
expect_eq "the tuned policy has a header" "# tune: Tuned by \`coolhand-sim tune\` for model 'reference-umpc'." \
  "$(head -1 "$work/one/policy.yaml")"

# A run the time budget stops says how to reproduce it; that rerun
# evaluates exactly the same candidates.
out="$("$sim" tune "${base[@]}" --global 40 --time-budget 0.001 -o "$work/budget" 2>/dev/null || true)"
rerun="$(sed -n 's/.*rerun with \(--global [0-9]* --local [0-9]*\) to reproduce.*/\1/p' <<<"$out")"
expect_eq "the budget stops the run and says how to rerun it" "1" "$([[ -n "$rerun" ]] && echo 1 || echo 0)"
# shellcheck disable=SC2086
"$sim" tune "${base[@]}" $rerun -o "$work/rerun" >/dev/null
if cmp -s "$work/budget/evaluations.csv" "$work/rerun/evaluations.csv"; then
  echo "ok   the rerun evaluates the same candidates"
else
  echo "FAIL the rerun evaluates other candidates"
  failures=$((failures + 1))
fi

# --baselines-model: the kernel baselines run on another model (in the port
# chain, the device) and the targets are theirs. On a copy of the reference
# with a back cover that sheds heat worse, step_wise overshoots on gaming:
# the allowed °C·s is its run's there (no baseline holds the limit), where on
# -m's model it holds the limit and sets the performance to meet.
sed -e 's/^name: reference-umpc/name: hotter-umpc/' \
  -e 's/to_ambient_w_per_k: 0.27}/to_ambient_w_per_k: 0.2}/' "$data/models/reference-umpc.yaml" >"$work/hotter.yaml"
bl=(-p "$policy" -w "$data/workloads/gaming.csv" --param controllers.skin_pid_cpu.kp=0.2..2 --no-bound -q
  -g step_wise --global 1 --local 0)
"$sim" tune "${bl[@]}" --baselines-model "$work/hotter.yaml" -o "$work/bl" >/dev/null
"$sim" tune "${bl[@]}" -o "$work/bl0" >/dev/null
"$sim" run -m "$work/hotter.yaml" -g step_wise -w "$data/workloads/gaming.csv" --no-trace -o "$work/blrun" >/dev/null
sw_deg_s="$(sed -n 's/.*"degree_seconds_over_limit": \([0-9.]*\).*/\1/p' "$work/blrun/metrics.json")"
expect_eq "--baselines-model: step_wise's °C·s on that model are the allowed ones" \
  "$(printf '%.1f -' "$sw_deg_s")" \
  "$(awk '$1 == "#" && $3 == "gaming" {print $7, $9}' "$work/bl/policy.yaml")"
expect_eq "without it: step_wise holds the limit on -m's model and sets the performance" \
  "0.0 step_wise" "$(awk '$1 == "#" && $3 == "gaming" {print $7, $9}' "$work/bl0/policy.yaml")"
expect_eq "the header names the baselines' model" "1" \
  "$(grep -c "(step_wise, run on model 'hotter-umpc')" "$work/bl/policy.yaml")"

run_err() {  # args... -> "rc: stderr"
  local rc=0
  "$sim" "$@" >/dev/null 2>"$work/err" || rc=$?
  printf '%s: %s' "$rc" "$(cat "$work/err")"
}

expect_eq "unknown key in --param" \
  "1: coolhand-sim: --param controllers.skin_pid.kp=0..1: character 13: no key 'skin_pid' under 'controllers' (did you mean 'skin_pid_cpu'?)" \
  "$(run_err tune -p "$policy" --param controllers.skin_pid.kp=0..1 -q)"
expect_eq "merge with a shard missing" \
  "1: coolhand-sim: shards 2 of 3 are missing" \
  "$(run_err merge -q "$work"/shards/tune-shard-{1,3}-of-3.json -o "$work/x")"
expect_eq "--shard out of range" \
  "1: coolhand-sim: --shard '4/3': expected K/N, whole numbers with 1 <= K <= N <= 100000 (e.g. 2/4)" \
  "$(run_err tune "${args[@]}" --shard 4/3 -o "$work/x")"
expect_eq "--shard with --time-budget" \
  "1: coolhand-sim: --shard runs every candidate it owns: no --time-budget" \
  "$(run_err tune "${args[@]}" --shard 1/3 --time-budget 10 -o "$work/x")"
expect_eq "--from-shards of another run" \
  "1: coolhand-sim: the shards are from another run than this command's (model, workloads, policy, parameters or settings differ: seed)" \
  "$(run_err tune "${args[@]}" --seed 2 --from-shards "$work"/shards/tune-shard-{1,2,3}-of-3.json -o "$work/x")"

expect_eq "the header names each skin node's tolerance" "1" \
  "$(grep -c "+ tolerance front_skin 0.300, back_skin 0.200;" "$work/one/policy.yaml")"
expect_eq "--tolerance for a node the model lacks" \
  "1: coolhand-sim: --tolerance 'side_skin=0.1': no skin node 'side_skin' in the model (its skin nodes: front_skin, back_skin)" \
  "$(run_err tune "${bl[@]}" --tolerance side_skin=0.1 -o "$work/x")"
expect_eq "the header names each workload's own tolerance" "1" \
  "$(grep -cxF "# tune: Tolerance per workload (--tolerance WORKLOAD:NODE=T, winning over the above): hot-start back_skin 0.250." "$work/one/policy.yaml")"
expect_eq "--tolerance that is not a number" \
  "1: coolhand-sim: --tolerance 'back_skin=0.1C': expected °C (a number), NODE=°C or WORKLOAD:NODE=°C" \
  "$(run_err tune "${bl[@]}" --tolerance back_skin=0.1C -o "$work/x")"
expect_eq "--tolerance for a workload not in the suite" \
  "1: coolhand-sim: --tolerance 'web:back_skin=0.1': no workload 'web' in the suite (its workloads: gaming, hot-start)" \
  "$(run_err tune "${base[@]}" --tolerance web:back_skin=0.1 -o "$work/x")"
expect_eq "--from-shards with another node's tolerance" \
  "1: coolhand-sim: the shards are from another run than this command's (model, workloads, policy, parameters or settings differ: limit_margin_c, performance_bias, tolerance_c, workload_tolerance_c)" \
  "$(run_err tune "${base[@]}" --global 9 --local 6 --tolerance 0.3 --from-shards "$work"/shards/tune-shard-{1,2,3}-of-3.json -o "$work/x")"
sed 's/"version": 4/"version": 1/' "$work/shards/tune-shard-1-of-3.json" >"$work/old-shard.json"
expect_eq "merge of a version-1 tune shard" \
  "1: coolhand-sim: $work/old-shard.json: tune shard format version 1 (this coolhand-sim reads 4: the objective's bound share is of compare's bound, fan_bound); run its shards again with this build" \
  "$(run_err merge -q "$work/old-shard.json" -o "$work/x")"

expect_eq "the header names the performance bias" \
  "# tune: Performance bias (device - model, --performance-bias): hot-start -0.001500." \
  "$(grep -F "Performance bias" "$work/one/policy.yaml")"
expect_eq "--performance-bias for a workload not in the suite" \
  "1: coolhand-sim: --performance-bias 'video=0.01': no workload 'video' in the suite (its workloads: gaming, hot-start)" \
  "$(run_err tune "${base[@]}" --performance-bias video=0.01 -o "$work/x")"
expect_eq "--performance-bias given twice for a workload" \
  "1: coolhand-sim: --performance-bias 'gaming=0.02': gaming's bias given twice" \
  "$(run_err tune "${base[@]}" --performance-bias gaming=0.01 --performance-bias gaming=0.02 -o "$work/x")"
expect_eq "--performance-bias that is not a number" \
  "1: coolhand-sim: --performance-bias 'gaming=0.01x': expected WORKLOAD=D, D a number" \
  "$(run_err tune "${base[@]}" --performance-bias gaming=0.01x -o "$work/x")"
expect_eq "--performance-bias without a workload" \
  "1: coolhand-sim: --performance-bias '0.01': expected WORKLOAD=D (e.g. gaming-hot=-0.0012)" \
  "$(run_err tune "${base[@]}" --performance-bias 0.01 -o "$work/x")"
expect_eq "--local-step outside (0, 1]" \
  "1: coolhand-sim: --local-step 0: expected a fraction of the range in (0, 1]" \
  "$(run_err tune "${base[@]}" --local-step 0 -o "$work/x")"
expect_eq "the header names the local stage's first step" "1" \
  "$(grep -c "(NLopt COBYLA, first step 0.25 of each range, ended by: " "$work/one/policy.yaml")"
expect_eq "--from-shards with another performance bias" \
  "1: coolhand-sim: the shards are from another run than this command's (model, workloads, policy, parameters or settings differ: performance_bias)" \
  "$(run_err tune "${base[@]}" --global 9 --local 6 --tolerance 0.3 --tolerance back_skin=0.2 --tolerance hot-start:back_skin=0.25 --performance-bias hot-start=-0.0016 --limit-margin 0.05 --from-shards "$work"/shards/tune-shard-{1,2,3}-of-3.json -o "$work/x")"

expect_eq "the header names the limit margin" \
  "# tune: °C·s counted from limit - 0.050 °C on this model (--limit-margin: the device's measured excess near the limit plus a margin)." \
  "$(grep -F "°C·s counted from" "$work/one/policy.yaml")"
expect_eq "--limit-margin out of range" \
  "1: coolhand-sim: --limit-margin 7: expected °C within ±5" \
  "$(run_err tune "${base[@]}" --limit-margin 7 -o "$work/x")"
expect_eq "--limit-margin that is not a number" \
  "Could not convert: --limit-margin = 0.1C" \
  "$(run_err tune "${base[@]}" --limit-margin 0.1C -o "$work/x" | sed -n 's/^[1-9][0-9]*: //p')"
expect_eq "--from-shards with another workload's own tolerance" \
  "1: coolhand-sim: the shards are from another run than this command's (model, workloads, policy, parameters or settings differ: workload_tolerance_c)" \
  "$(run_err tune "${base[@]}" --global 9 --local 6 --tolerance 0.3 --tolerance back_skin=0.2 --tolerance hot-start:back_skin=0.26 --performance-bias hot-start=-0.0015 --limit-margin 0.05 --from-shards "$work"/shards/tune-shard-{1,2,3}-of-3.json -o "$work/x")"
expect_eq "--from-shards with another limit margin" \
  "1: coolhand-sim: the shards are from another run than this command's (model, workloads, policy, parameters or settings differ: limit_margin_c)" \
  "$(run_err tune "${base[@]}" --global 9 --local 6 --tolerance 0.3 --tolerance back_skin=0.2 --tolerance hot-start:back_skin=0.25 --performance-bias hot-start=-0.0015 --limit-margin 0.04 --from-shards "$work"/shards/tune-shard-{1,2,3}-of-3.json -o "$work/x")"

expect_eq "--baselines-model that does not exist" \
  "1: coolhand-sim: $work/none.yaml: cannot open: No such file or directory" \
  "$(run_err tune "${bl[@]}" --baselines-model "$work/none.yaml" -o "$work/x")"

if [[ "$failures" -gt 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
