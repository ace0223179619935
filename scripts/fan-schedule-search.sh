#!/usr/bin/env bash
# scripts/fan-schedule-search.sh: how much a fan that moves beats the best
# constant one, with perfect foresight (docs/simulator.md, "Models with
# fans"; figures in docs/results.md, "How much of each gap is the bound's").
#
# `bound --fan-at S:LEVEL ...` is the exact bound (the fine LP's dual value)
# with the model's one fan held to a piecewise-constant schedule, its noise
# charged. This script searches such schedules by coordinate ascent: the run
# cut into segments of SEG seconds (a multiple of the LP's decision step),
# starting from the best constant level, it tries every other level in each
# segment in turn and keeps any that raises the bound, pass after pass until
# a pass changes nothing (or PASSES passes). The result is the bound of the
# best schedule found: every controller whose fan follows that schedule is
# below it, and the LP's own schedule at it (levels relaxed to fractions of
# a decision step) nearly reaches it, so it is what a moving fan can nearly
# reach, a LOWER estimate of the best any fan schedule can do. It is no
# upper bound on controllers with other fan schedules: the relaxation
# (`bound` without --fan-at, the first figure) stays the only one.
# Usage: scripts/fan-schedule-search.sh [--sim PATH] [--seg S] [--passes N]
#        MODEL WORKLOAD.csv
# Prints the relaxation, each constant level, each improvement and the best
# schedule as --fan-at arguments on stdout; one line per LP on stderr.
set -euo pipefail
die() { echo "fan-schedule-search: $*" >&2; exit 1; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SIM=$ROOT/build/sim/coolhand-sim
SEG=150
PASSES=3
while [[ $# -gt 0 ]]; do
  case $1 in
    --sim) SIM=${2:?--sim needs a path}; shift 2 ;;
    --seg) SEG=${2:?--seg needs seconds}; shift 2 ;;
    --passes) PASSES=${2:?--passes needs a number}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) break ;;
  esac
done
[[ $# -eq 2 ]] || die "expected MODEL WORKLOAD.csv (see --help)"
[[ -x $SIM ]] || die "$SIM: not executable (build coolhand-sim or give --sim)"
[[ -r $1 ]] || die "$1: cannot read"
[[ -r $2 ]] || die "$2: cannot read"
[[ $SEG =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--seg $SEG: expected seconds"
[[ $PASSES =~ ^[1-9][0-9]*$ ]] || die "--passes $PASSES: expected a whole number >= 1"

exec python3 - "$SIM" "$1" "$2" "$SEG" "$PASSES" <<'EOF'
import re, subprocess, sys, yaml
sim, model, workload, seg, passes = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5])
m = yaml.safe_load(open(model))
fans = [d for d in m['devices'] if 'cooling' in d]
if len(fans) != 1:
    sys.exit(f"fan-schedule-search: {model}: expected one device with cooling, found {len(fans)}")
levels = len(fans[0]['power_w'])
rows = [l for l in open(workload).read().splitlines() if l and not l.startswith('#')]
duration = float(rows[-1].split(',')[0])
count = max(1, int(-(-duration // seg)))

def bound(schedule):
    args = [sim, 'bound', '-q', '-m', model, '-w', workload]
    prev = None
    for i, level in enumerate(schedule):
        if level != prev:
            args += ['--fan-at', f'{i * seg:g}:{level}']
            prev = level
    out = subprocess.run(args, capture_output=True, text=True)
    text = out.stdout + out.stderr
    if 'no schedule keeps' in text:
        value = None
    else:
        found = re.search(r'performance bound with skin <= [0-9.]+ °C: ([0-9.]+)', text)
        if not found:
            sys.exit(f"fan-schedule-search: {' '.join(args)}: {text}")
        value = float(found.group(1))
    print(f"fan-schedule-search: {''.join(map(str, schedule))}: {value}", file=sys.stderr)
    return value, args[7:]

relax, _ = bound([])
print(f"relaxation (no --fan-at): {relax}")
best, best_schedule = -1.0, None
for level in range(levels):
    value, _ = bound([level] * count)
    print(f"fan held at {level}: {value}")
    if value is not None and value > best:
        best, best_schedule = value, [level] * count
if best_schedule is None:
    sys.exit("fan-schedule-search: no constant fan level holds the limit")
for p in range(passes):
    changed = False
    for i in range(count):
        for level in range(levels):
            if level == best_schedule[i]:
                continue
            trial = best_schedule[:i] + [level] + best_schedule[i + 1:]
            value, _ = bound(trial)
            if value is not None and value > best + 5e-5:
                best, best_schedule, changed = value, trial, True
                print(f"pass {p + 1}: segment {i} ({i * seg:g} s) to {level}: {value}")
    if not changed:
        break
_, args = bound(best_schedule)
print(f"best found: {best} with {' '.join(args)}")
EOF
