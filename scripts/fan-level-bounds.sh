#!/usr/bin/env bash
# scripts/fan-level-bounds.sh: how loose the fan relaxation's bound is on a
# model with one fan (docs/simulator.md, "Models with fans"; figures in
# docs/results.md, "7" gaming handheld with a fan").
#
# `coolhand-sim bound` on a model with a fan solves a relaxation: the fan at
# its strongest cooling with its noise cost dropped. For each fan level L
# this script runs `bound --fan-at 0:L`, the exact bound perf_L with the fan
# held at L throughout and its noise charged, and prints it with that noise,
#   w_fan * (1 - q_L) / W
# with q_L the fan's performance at L and W = sum over devices of weight *
# mean demand over the workload (the runner's denominator; the fan is
# demanded 1 at every step). perf_L is an upper bound on every controller
# that holds the fan at L throughout and the skin at or below the limit,
# and the LP's schedule at L (its CPU/GPU levels relaxed to their convex
# hull) is nearly achievable: max_L perf_L is what a constant fan can
# reach. A controller that moves its fan can do better
# (scripts/fan-schedule-search.sh measures how much); none can beat the
# relaxation's figure (the first line).
# Usage: scripts/fan-level-bounds.sh [--sim PATH] MODEL WORKLOAD.csv...
# Prints one line per workload; progress of each bound on stderr.
set -euo pipefail
die() { echo "fan-level-bounds: $*" >&2; exit 1; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SIM=$ROOT/build/sim/coolhand-sim
if [[ ${1:-} == --sim ]]; then SIM=${2:?--sim needs a path}; shift 2; fi
if [[ ${1:-} == -h || ${1:-} == --help || $# -lt 2 ]]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  [[ $# -ge 2 ]] && exit 0 || exit 2
fi
[[ -x $SIM ]] || die "$SIM: not executable (build coolhand-sim or give --sim)"
MODEL=$1; shift
[[ -r $MODEL ]] || die "$MODEL: cannot read"
for w in "$@"; do [[ -r $w ]] || die "$w: cannot read"; done

# The fan's name, weight and performance table.
read -r _ WFAN QS < <(python3 - "$MODEL" <<'EOF'
import sys, yaml
model = sys.argv[1]
m = yaml.safe_load(open(model))
fans = [d for d in m['devices'] if 'cooling' in d]
if len(fans) != 1:
    sys.exit(f"{model}: expected one device with cooling, found {len(fans)}")
fan = fans[0]
print(fan['name'], fan.get('weight', 1.0), ','.join(str(q) for q in fan['performance']))
EOF
) || die "cannot read the model's fan"
NL=$(tr ',' '\n' <<<"$QS" | wc -l)

bound_of() { # model workload [bound options] -> the bound's figure, or "infeasible"
  local out
  out=$("$SIM" bound -q -m "$1" -w "$2" "${@:3}" 2>&1) || true
  if grep -q 'no schedule keeps' <<<"$out"; then echo infeasible; return; fi
  sed -n 's/.*performance bound with skin <= [0-9.]* °C: \([0-9.]*\).*/\1/p' <<<"$out" | head -1 |
    grep . || die "bound on $1 $2: $out"
}

for w in "$@"; do
  name=$(basename "$w" .csv)
  echo "fan-level-bounds: $name: the relaxation and $NL held fan levels" >&2
  relax=$(bound_of "$MODEL" "$w")
  line="$name: relaxation $relax"
  for ((l = 0; l < NL; l++)); do
    b=$(bound_of "$MODEL" "$w" --fan-at "0:$l")
    line+=$(python3 - "$w" "$b" "$l" "$WFAN" "$QS" <<'EOF'
import sys
wl, b, level, wfan, qs = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
q = float(qs.split(',')[level])
if b == 'infeasible':
    print(f"; fan {level}: infeasible", end='')
    sys.exit()
text = open(wl).read().splitlines()
hdr = next(l for l in text if l.startswith('# weights'))
weights = {k: float(v) for k, v in (x.split('=') for x in hdr.split(':', 1)[1].split())}
rows = [l for l in text if not l.startswith('#')]
cols = rows[0].split(',')
data = [[float(x) for x in r.split(',')] for r in rows[1:] if r.strip()]
total, span = {c: 0.0 for c in weights}, 0.0
for a, nxt in zip(data, data[1:]):
    dt = nxt[0] - a[0]
    span += dt
    for c in weights:
        total[c] += a[cols.index(c)] * dt
W = sum(weights[c] * total[c] / span for c in weights) + wfan
print(f"; fan {level}: {float(b):.4f} (noise {wfan * (1 - q) / W:.4f})", end='')
EOF
)
  done
  echo "$line"
done
