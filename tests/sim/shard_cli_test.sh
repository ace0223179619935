#!/usr/bin/env bash
# `compare --shard K/N`, `bound --shard K/N` and `coolhand-sim merge` (issue
# 13): the merge of N shards writes what the single-machine command writes
# (Markdown and overlay.svg byte for byte; the table on stdout the same but
# for the lines reporting wall time), whatever the order of the files,
# with bounds among the units and with more shards than work units; a missing, duplicate or foreign shard,
# a file that is no shard and a bad K/N are refused with exact messages.
# Usage: shard_cli_test.sh <coolhand-sim> <sim data dir> <policy YAML>
set -euo pipefail

sim="$1"
data="$2"
policy="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0

# shellcheck source=expect.sh
. "$(dirname "$0")/expect.sh"
same_file() {  # what, a, b
  if cmp -s "$2" "$3"; then ok "$1"; else bad "$1"; diff "$2" "$3" | head -5 || true; fi
}
# Everything but the lines that report wall time or name output paths.
results() { grep -v -e ' s wall' -e '^wrote ' -e 'solved in' "$1"; }
# run_err WHAT EXPECTED-MESSAGE COMMAND...: exit 1 with exactly that message.
run_err() {
  local what="$1" msg="$2" rc=0
  shift 2
  "$@" >/dev/null 2>err.txt || rc=$?
  expect_eq "$what: exit status" 1 "$rc"
  expect_eq "$what: message" "$msg" "$(cat err.txt)"
}

# Two bundled 30-minute workloads on which every controller throttles
# differently for the runs; 5 and 3 s for anything with a bound, whose LPs
# are what costs time here.
awk -F, '/^#/ || NR == 4 || $1 + 0 <= 5' "$data/workloads/gaming.csv" >g5.csv
awk -F, '/^#/ || NR == 4 || $1 + 0 <= 3' "$data/workloads/hot-ambient.csv" >h3.csv
model=(-m "$data/models/reference-umpc.yaml")
ctl=(-p "$policy" -g step_wise -g bang_bang)
args=("${model[@]}" -w "$data/workloads/gaming-hot.csv" -w "$data/workloads/hot-ambient.csv"
  "${ctl[@]}")
bargs=("${model[@]}" -w "$work/g5.csv" -w "$work/h3.csv" "${ctl[@]}" --bound)

# --- compare: one machine, then 3 shards merged (files in any order) ------
"$sim" compare "${args[@]}" --markdown single.md -o single >single.txt
for k in 1 2 3; do
  "$sim" compare "${args[@]}" --shard "$k/3" --shard-file "c$k.json" >/dev/null 2>&1
done
"$sim" merge c3.json c1.json c2.json --markdown merged.md -o merged >merged.txt
same_file "compare, 3 shards: Markdown" single.md merged.md
same_file "compare, 3 shards: overlay.svg" single/overlay.svg merged/overlay.svg
same_file "compare, 3 shards: table" <(results single.txt) <(results merged.txt)
# The rows must differ for the comparison to mean something.
distinct="$(awk 'NF == 7 && $1 ~ /^(gaming-hot|hot-ambient)$/ {print $1, $3, $6}' single.txt |
  sort -u | wc -l)"
expect_eq "compare: 6 rows, at least 4 of them different" "6 yes" \
  "$(grep -c '^gaming-hot \|^hot-ambient ' single.txt) $([ "$distinct" -ge 4 ] && echo yes)"

# --- compare --bound: 10 shards for 2 bounds + 6 cells, default names -----
mkdir many
for k in $(seq 10); do
  (cd many && "$sim" compare "${bargs[@]}" --shard "$k/10" >/dev/null 2>&1)
done
"$sim" compare "${bargs[@]}" --markdown bsingle.md -o bsingle >bsingle.txt 2>/dev/null
"$sim" merge many/compare-shard-*-of-10.json --markdown bmerged.md -o bmerged >bmerged.txt
same_file "compare --bound, 10 shards for 8 units: Markdown" bsingle.md bmerged.md
same_file "compare --bound, 10 shards for 8 units: overlay.svg" bsingle/overlay.svg \
  bmerged/overlay.svg
same_file "compare --bound, 10 shards for 8 units: table" <(results bsingle.txt) \
  <(results bmerged.txt)
expect_eq "compare --bound: 2 bounds" 2 "$(grep -c '^bound ' bsingle.txt)"

# --- bound over two workloads, 2 shards -----------------------------------
"$sim" bound -q "${model[@]}" -w g5.csv -w h3.csv >lp-single.txt
for k in 1 2; do
  "$sim" bound -q "${model[@]}" -w g5.csv -w h3.csv --shard "$k/2" --shard-file "b$k.json" \
    >/dev/null
done
"$sim" merge b2.json b1.json >lp-merged.txt
same_file "bound, 2 shards: output" <(results lp-single.txt) <(results lp-merged.txt)
expect_eq "bound: one block per workload" 2 "$(grep -c 'performance bound with skin' lp-merged.txt)"

# --- refusals --------------------------------------------------------------
run_err "missing shard" \
  "coolhand-sim: merge: missing shard(s) 2/3 of this compare run (2 given)" \
  "$sim" merge c1.json c3.json
run_err "duplicate shard" "coolhand-sim: merge: shard 1/3 given twice: c1.json and ./c1.json" \
  "$sim" merge c1.json c2.json ./c1.json c3.json
"$sim" compare "${args[@]}" --seed 2 --shard 2/3 --shard-file other2.json >/dev/null 2>&1
run_err "shard of another run (seed)" \
  "coolhand-sim: merge: other2.json is from a different run than c1.json (they differ in \"seed\")" \
  "$sim" merge c1.json other2.json c3.json
run_err "shards of different kinds" \
  "coolhand-sim: merge: b1.json is a bound shard but c1.json is a compare shard" \
  "$sim" merge c1.json b1.json
run_err "shards of different N" \
  "coolhand-sim: merge: many/compare-shard-2-of-10.json is shard 2/10 but c1.json is shard 1/3: not the same run" \
  "$sim" merge c1.json many/compare-shard-2-of-10.json
run_err "not a shard file" \
  "coolhand-sim: merge: g5.csv: not a coolhand-sim shard file (no \"format\": \"coolhand-sim shard\")" \
  "$sim" merge g5.csv
sed 's/"version": 1/"version": 2/' c1.json >v2.json
run_err "newer format version" \
  "coolhand-sim: merge: v2.json: shard file format version 2; this coolhand-sim reads version 1" \
  "$sim" merge v2.json
run_err "bound with -o" \
  "coolhand-sim: merge: bound shards merge to standard output only; -o and --markdown are for compare" \
  "$sim" merge b1.json b2.json -o somewhere
run_err "--shard 0/3" \
  "coolhand-sim: --shard '0/3': expected K/N, whole numbers with 1 <= K <= N <= 100000 (e.g. 2/4)" \
  "$sim" compare "${args[@]}" --shard 0/3
run_err "--shard 4/3" \
  "coolhand-sim: --shard '4/3': expected K/N, whole numbers with 1 <= K <= N <= 100000 (e.g. 2/4)" \
  "$sim" bound -w g5.csv --shard 4/3
printf '{"format": "coolhand-sim shard", "version": 4, "kind": "tune", "run": {}, "shard": {"index": 1, "count": 1}, "body": {}}\n' >tune.json
run_err "a tune shard without its run goes to tune's merge, which names the gap" \
  "coolhand-sim: tune.json: not a valid tune shard file: [json.exception.out_of_range.403] key 'model' not found" \
  "$sim" merge tune.json

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
