#!/usr/bin/env bash
# Load check of the end-to-end suite (issue 15): run the e2e tests (label
# e2e: the daemon against a fake sysfs tree, and the D-Bus/logind tests on a
# private bus) RUNS times in a row while two CPU hogs compete for the cores.
# Prints one line per run and "passes/runs"; exits non-zero on any failure.
#
# Usage: scripts/e2e-load-check.sh [BUILD_DIR] [RUNS]   (defaults: build 20)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
runs=${2:-20}
logs=$(mktemp -d)
hogs=()
stop_hogs() {
  local p
  for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${hogs[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap stop_hogs EXIT
for _ in 1 2; do
  sh -c 'while :; do :; done' &
  hogs+=($!)
done
echo "e2e-load-check: two CPU hogs (pids ${hogs[*]}), $runs runs, logs in $logs"
passes=0
for i in $(seq 1 "$runs"); do
  start=$SECONDS
  if ctest --test-dir "$build" -L e2e --no-tests=error --output-on-failure >"$logs/run$i.log" 2>&1 &&
    ! grep -q '^The following tests did not run:' "$logs/run$i.log"; then
    passes=$((passes + 1))
    echo "run $i: pass ($((SECONDS - start)) s, $(grep -c 'Passed' "$logs/run$i.log") tests)"
  else
    echo "run $i: FAIL ($((SECONDS - start)) s): $logs/run$i.log"
  fi
done
echo "e2e-load-check: $passes/$runs runs passed"
[ "$passes" -eq "$runs" ]
