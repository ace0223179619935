#!/usr/bin/env bash
# `compare --bound --fan-bound tight|relaxed` on a model with one fan (issue
# 13): the tight figure is at most the relaxation's and at least every run
# that holds the limit; its floor V is the best such run's performance;
# it equals `bound --fan-bound tight --fan-floor V` run alone; where the
# relaxation's limit never binds no box is tightened; the merge of shards
# prints what one machine does; a fanless model's figures do not change
# with --fan-bound. A one-node model (10 J/K, 0.2 W/K, a fan adding 0.1 or
# 0.2 W/K; 4 W at full speed holds 45 °C with the fan off, 35 °C with it
# at full) and 5 min runs: the whole test takes about 1 s CPU.
# Usage: compare_tight_cli_test.sh <coolhand-sim> <sim data dir>
set -euo pipefail

sim="$(realpath "$1")"
data="$(realpath "$2")"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0

# shellcheck source=expect.sh
. "$here/expect.sh"
# Everything but the lines that report wall time or name output paths.
results() { grep -v -e ' s wall' -e '^wrote ' "$1"; }

cp "$here/data/fan1.yaml" fan1.yaml
# hot: the limit binds (step_wise holds it, bang_bang and none do not);
# cool: a 15 °C room, where the limit never binds.
printf 'time_s,cpu,ambient_c\n0,1,25\n300,1,25\n' >hot.csv
printf 'time_s,cpu,ambient_c\n0,1,15\n300,1,15\n' >cool.csv
args=(-m fan1.yaml -w hot.csv -w cool.csv -g step_wise -g bang_bang -g none --bound)

"$sim" compare "${args[@]}" --markdown tight.md -o tight >tight.txt 2>/dev/null
"$sim" compare "${args[@]}" --fan-bound relaxed -o relaxed >relaxed.txt 2>/dev/null
# The figure on "bound W:" lines, and the holding runs' best performance.
figure() { sed -n "s/^bound $2: \([0-9.]*\) with.*/\1/p" "$1"; }
best_holding() {
  awk -v w="$2" '$1 == w && $3 + 0 <= 33.0 { if ($6 > b) b = $6 } END { printf "%.4f", b }' "$1"
}
tight="$(figure tight.txt hot)"
relaxed="$(figure relaxed.txt hot)"
held="$(best_holding tight.txt hot)"
expect_eq "hot: the tight note names its floor" 1 \
  "$(grep -c "^  fan bound: tight (--fan-bound tight.*max(V $held, dual [0-9.]*)), V = step_wise's performance, the best of the runs that hold the limit; [0-9]* tightening LPs" tight.txt)"
expect_eq "hot: tight ($tight) < relaxed ($relaxed), >= the best holding run ($held)" 1 \
  "$(awk -v t="$tight" -v r="$relaxed" -v h="$held" \
    'BEGIN { print (t != "" && r != "" && t + 0 < r + 0 && t + 0 >= h + 0 && h + 0 > 0) }')"
expect_eq "relaxed: its note" 2 \
  "$(grep -c '^  fan bound: the relaxation (--fan-bound relaxed); fan relaxation:' relaxed.txt)"
expect_eq "cool: nothing tightened where the limit never binds" 1 \
  "$(grep -c '^  fan bound: tight .*min(relaxation 1.0000, max(V [0-9.]*, dual 1.0000)).*; no box tightened' tight.txt)"
expect_eq "cool: the same figure either way" "$(figure relaxed.txt cool)" "$(figure tight.txt cool)"

# `bound` alone with compare's floor, read exactly from a shard file.
"$sim" compare "${args[@]}" --shard 1/1 --shard-file one.json >/dev/null 2>&1
floor="$(sed -n 's/^ *"floor": \([-0-9.e+]*\),*$/\1/p' one.json | head -n 1)"
alone="$("$sim" bound -q -m fan1.yaml -w hot.csv --fan-bound tight --fan-floor "$floor" |
  sed -n 's/.*performance bound with skin <= 33.00 °C: \([0-9.]*\).*/\1/p')"
expect_eq "hot: compare's tight figure = bound --fan-floor $floor alone" "$tight" "$alone"

# 3 shards merged: the same output as one machine.
for k in 1 2 3; do
  "$sim" compare "${args[@]}" --shard "$k/3" --shard-file "c$k.json" >/dev/null 2>&1
done
"$sim" merge c3.json c1.json c2.json --markdown merged.md -o merged >merged.txt
expect_eq "3 shards: Markdown" "$(cat tight.md)" "$(cat merged.md)"
expect_eq "3 shards: table" "$(results tight.txt)" "$(results merged.txt)"
"$sim" compare "${args[@]}" --fan-bound relaxed --shard 2/3 --shard-file r2.json >/dev/null 2>&1
set +e
"$sim" merge c1.json r2.json c3.json >/dev/null 2>err.txt
rc=$?
set -e
expect_eq "shards of tight and relaxed runs: refused" 1 "$rc"
expect_eq "shards of tight and relaxed runs: named" 1 "$(grep -c 'fan_bound' err.txt)"

# A fanless model: one bound, the same under either choice.
printf 'time_s,cpu,gpu,modem,backlight,charger,ambient_c\n0,1,1,0.5,1,0,35\n120,1,1,0.5,1,0,35\n' >u.csv
uargs=(-m "$data/models/reference-umpc.yaml" -w u.csv -g step_wise --bound)
"$sim" compare "${uargs[@]}" -o u1 >u1.txt 2>/dev/null
"$sim" compare "${uargs[@]}" --fan-bound relaxed -o u2 >u2.txt 2>/dev/null
expect_eq "fanless: the same output either way" "$(results u1.txt)" "$(results u2.txt)"
expect_eq "fanless: no fan note" 0 "$(grep -c 'fan' u1.txt)"

set +e
"$sim" compare -m fan1.yaml -w hot.csv -g none --fan-bound tight >/dev/null 2>err.txt
rc=$?
set -e
expect_eq "--fan-bound without --bound: refused" 1 "$((rc != 0))"
expect_eq "--fan-bound without --bound: named" 1 "$(grep -c -- '--fan-bound requires --bound' err.txt)"

[[ $failures -eq 0 ]] || exit 1
