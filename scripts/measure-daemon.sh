#!/usr/bin/env bash
# Measure coolhandd's own cost against a fake sysfs tree in tmpfs:
#   1. wakeups in 60 s at steady temperature with event-capable sensors
#      (thermal zones, thermal netlink subscribed, no time-driven controller);
#   2. wakeups in 60 s with polling-only sensors (hwmon) at 45 °C against a
#      60 °C limit;
#   3. RSS (VmRSS and peak VmHWM) after RSS_MINUTES (default 10) of the
#      polling run.
# A wakeup is one voluntary context switch: the sum of
# voluntary_ctxt_switches over /proc/PID/task/*/status, sampled after a 3 s
# settling period and again WINDOW_S seconds later.
#
# Usage: scripts/measure-daemon.sh [BUILD_DIR]    (default: build)
#   WINDOW_S=60 RSS_MINUTES=10 scripts/measure-daemon.sh build-daemon
set -euo pipefail

BUILD=${1:-build}
DAEMON=$(realpath "$BUILD/daemon/coolhandd")
WINDOW_S=${WINDOW_S:-60}
RSS_MINUTES=${RSS_MINUTES:-10}
# shellcheck source=scripts/lib/measure-daemon.sh
. "$(dirname "$0")/lib/measure-daemon.sh"
measure_init measure

# Tree and policy for the event-capable run: a thermal zone (event-driven
# once netlink is subscribed) and a table controller (no time-driven step).
EV="$BASE/events"
fake_tree "$EV" 45000
fan_policy "$EV/policy.yaml" "      - {up_c: 60, down_c: 58, level: 1}
      - {up_c: 65, down_c: 63, level: 3}"

# Polling-only: an hwmon sensor at 45 °C, limit 60 °C, default sampling
# bounds (250 ms .. 30 s).
PO="$BASE/polling"
put "$PO/sys/class/hwmon/hwmon0/name" k10temp
put "$PO/sys/class/hwmon/hwmon0/temp1_label" Tctl
put "$PO/sys/class/hwmon/hwmon0/temp1_input" 45000
put "$PO/sys/class/thermal/cooling_device0/type" Fan
put "$PO/sys/class/thermal/cooling_device0/max_state" 3
put "$PO/sys/class/thermal/cooling_device0/cur_state" 0
sed -e 's/source: {kind: thermal_zone, name: skin-therm}/source: {kind: hwmon, name: k10temp, label: Tctl}/' \
  "$EV/policy.yaml" >"$PO/policy.yaml"

start_daemon "$EV/log" "$EV" "$DAEMON" --netlink on
EV_PID=$STARTED
start_daemon "$PO/log" "$PO" "$DAEMON"
PO_PID=$STARTED

sleep 3
grep -q "event-driven" "$EV/log" || { echo "event run: sensor is not event-driven"; cat "$EV/log"; exit 1; }
ev0=$(wakeups "$EV_PID")
po0=$(wakeups "$PO_PID")
sleep "$WINDOW_S"
ev1=$(wakeups "$EV_PID")
po1=$(wakeups "$PO_PID")
echo "event-capable sensors, steady: $((ev1 - ev0)) wakeups in ${WINDOW_S} s"
echo "polling-only sensor at 45 C (limit 60 C): $((po1 - po0)) wakeups in ${WINDOW_S} s"
grep -E "VmRSS|VmHWM" /proc/"$EV_PID"/status | sed 's/^/event run after '"$((WINDOW_S + 3))"' s: /'

remaining=$((RSS_MINUTES * 60 - WINDOW_S - 3))
if ((remaining > 0)); then sleep "$remaining"; fi
echo "polling run after ${RSS_MINUTES} min:"
grep -E "VmRSS|VmHWM" /proc/"$PO_PID"/status | sed 's/^/  /'
echo "polling run: $(($(wakeups "$PO_PID") - po0)) wakeups in $((RSS_MINUTES * 60 - 3)) s"
kill -TERM "$EV_PID" "$PO_PID"
wait "$EV_PID" "$PO_PID" || true
echo "exit logs:"
tail -n 1 "$EV/log" "$PO/log"
