#!/usr/bin/env bash
# `tune --fan-bound tight|relaxed` (task TIGHTBOUND): tune's bound is
# compare's. On a model with one fan the header's bound is `bound --fan-bound
# tight --fan-floor V`'s figure, V the best kernel baseline holding the limit
# on the tuned model (0 with --baselines-model, whose runs are on another
# model, and 0 where no baseline ran); with --fan-bound relaxed it is plain
# `bound`'s. The option's errors and a merge of shards of the other choice are
# refused. A one-node model with a fan (compare_tight_cli_test.sh's) and a
# 5 min workload: about 1 s CPU.
# Usage: tune_bound_cli_test.sh <coolhand-sim>
set -euo pipefail

sim="$(realpath "$1")"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0

# shellcheck source=expect.sh
. "$here/expect.sh"

cp "$here/data/fan1.yaml" fan1.yaml
# The same model with the node 0.01 W/K better cooled: the "device" the
# baselines may run on (--baselines-model).
sed 's/to_ambient_w_per_k: 0.2, initial_c/to_ambient_w_per_k: 0.21, initial_c/; s/^name: fan1/name: fan1-device/' \
  fan1.yaml >device.yaml
cat >pol.yaml <<'YAML'
version: 1
sensors: {t: {source: {kind: thermal_zone, name: t}}}
devices: {cpu: {max_level: 2}, fan: {max_level: 2}}
controllers: {g: {kind: step_wise, input: t, devices: [cpu], threshold_c: 32, hysteresis_c: 1, period: 1s}}
YAML
# hot: the limit binds, and step_wise holds it (compare_tight_cli_test.sh).
printf 'time_s,cpu,ambient_c\n0,1,25\n300,1,25\n' >hot.csv
base=(-m fan1.yaml -w hot.csv -p pol.yaml --param controllers.g.threshold_c=30..33 --global 3
  --local 0)
args=("${base[@]}" -g step_wise -g bang_bang)

# The header's bound column for workload hot, and `bound`'s figure.
header_bound() { awk '$1 == "#" && $3 == "hot" { print $(NF - 1) }' "$1/policy.yaml"; }
bound_alone() {
  "$sim" bound -q -m "${1:-fan1.yaml}" -w hot.csv "${@:2}" |
    sed -n 's/.*performance bound with skin <= 33.00 °C: \([0-9.]*\).*/\1/p'
}
floor_of() { sed -n 's/^tune: the performance bound of hot (the tight fan bound, floor V = \(.*\))$/\1/p' "$1"; }

"$sim" tune "${args[@]}" -o tight >/dev/null 2>tight.err
floor="$(floor_of tight.err)"
held="$("$sim" run -m fan1.yaml -w hot.csv -g step_wise --no-trace -o sw >/dev/null &&
  sed -n 's/^  "performance": \([0-9.e-]*\),*$/\1/p' sw/metrics.json)"
expect_eq "tight: V is step_wise's performance, the best baseline holding the limit" 1 \
  "$(awk -v v="$floor" -v h="$held" 'BEGIN { print (v != "" && v + 0 == h + 0 && v > 0) }')"
tight="$(header_bound tight)"
expect_eq "tight: the header's bound = bound --fan-bound tight --fan-floor V" \
  "$(bound_alone fan1.yaml --fan-bound tight --fan-floor "$floor")" "$tight"
expect_eq "tight: the header says which bound" 1 \
  "$(grep -c "^# tune: Bound: the tight fan bound (--fan-bound tight), compare --bound's: .* with V the best kernel baseline's performance that holds the limit (0 where none): hot min(" tight/policy.yaml)"
expect_eq "tight is the default" "$tight" \
  "$("$sim" tune "${args[@]}" --fan-bound tight -q -o t2 >/dev/null && header_bound t2)"

"$sim" tune "${args[@]}" --fan-bound relaxed -o relaxed >/dev/null 2>relaxed.err
relaxed="$(header_bound relaxed)"
expect_eq "relaxed: the header's bound = bound's relaxation" "$(bound_alone)" "$relaxed"
expect_eq "relaxed: below the relaxation, tight ($tight < $relaxed)" 1 \
  "$(awk -v t="$tight" -v r="$relaxed" 'BEGIN { print (t != "" && t + 0 < r + 0) }')"
expect_eq "relaxed: the header says which bound" 1 \
  "$(grep -c '^# tune: Bound: the fan relaxation (--fan-bound relaxed)' relaxed/policy.yaml)"
expect_eq "relaxed: no floor on stderr" 0 "$(grep -c 'floor V' relaxed.err || true)"

# Baselines on another model: their runs are no performance reached on the
# tuned one, so V = 0.
"$sim" tune "${args[@]}" --baselines-model device.yaml -o other >/dev/null 2>other.err
expect_eq "--baselines-model: V = 0" "0" "$(floor_of other.err)"
expect_eq "--baselines-model: the header's bound = bound --fan-bound tight (floor 0)" \
  "$(bound_alone fan1.yaml --fan-bound tight)" "$(header_bound other)"
expect_eq "--baselines-model: the header says why V = 0" 1 \
  "$(grep -c "with V 0 (the baselines run on model 'fan1-device', not on this one)" other/policy.yaml)"
"$sim" tune "${base[@]}" -g none -o none >/dev/null 2>none.err
expect_eq "-g none: V = 0" "0" "$(floor_of none.err)"

run_err() {
  local rc=0
  "$sim" "$@" >/dev/null 2>err.txt || rc=$?
  printf '%s: %s' "$rc" "$(cat err.txt)"
}
# CLI11's own messages (its exit status is not 0 or 1: its error's code).
refused() { # what, message, tune arguments...
  local rc=0
  "$sim" tune "${@:3}" >/dev/null 2>err.txt || rc=$?
  expect_eq "$1: refused" 1 "$((rc > 1))"
  expect_eq "$1: named" "$2" "$(head -n 1 err.txt)"
}
refused "--fan-bound with a word that is no choice" "--fan-bound: loose not in {relaxed,tight}" \
  "${args[@]}" --fan-bound loose -o x
refused "--fan-bound with --no-bound" "--no-bound excludes --fan-bound" \
  "${args[@]}" --fan-bound relaxed --no-bound -o x

# Shards carry the choice: a merge with the other one is refused.
for k in 1 2; do
  "$sim" tune "${args[@]}" -q --shard "$k/2" -o shards >/dev/null
done
expect_eq "a tune shard names its fan bound" 2 "$(cat shards/*.json | grep -c '"fan_bound": "tight"')"
expect_eq "merge of the shards = one machine" "$(cat tight/policy.yaml)" \
  "$("$sim" merge -q shards/tune-shard-{1,2}-of-2.json -o merged >/dev/null && cat merged/policy.yaml)"
expect_eq "--from-shards of the tight run with --fan-bound relaxed" \
  "1: coolhand-sim: the shards are from another run than this command's (model, workloads, policy, parameters or settings differ: fan_bound)" \
  "$(run_err tune "${args[@]}" -q --fan-bound relaxed --from-shards shards/tune-shard-{1,2}-of-2.json -o x)"
sed 's/"fan_bound": "tight"/"fan_bound": "loose"/' shards/tune-shard-1-of-2.json >bad.json
expect_eq "merge of a shard whose fan_bound is no choice" \
  "1: coolhand-sim: bad.json: fan_bound 'loose': not relaxed or tight" \
  "$(run_err merge -q bad.json shards/tune-shard-2-of-2.json -o x)"

[[ $failures -eq 0 ]] || exit 1
