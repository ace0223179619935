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
BASE=$(mktemp -d /dev/shm/coolhand-measure-XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$BASE"
}
trap cleanup EXIT

put() { mkdir -p "$(dirname "$1")"; echo "$2" >"$1"; }

wakeups() {  # PID -> total voluntary context switches over all threads
  local sum=0 n
  for s in /proc/"$1"/task/*/status; do
    n=$(awk '/^voluntary_ctxt_switches/ {print $2}' "$s")
    sum=$((sum + n))
  done
  echo "$sum"
}

# Tree and policy for the event-capable run: a thermal zone (event-driven
# once netlink is subscribed) and a table controller (no time-driven step).
# Zone 900 cannot clash with a real zone on this machine.
EV="$BASE/events"
put "$EV/sys/class/thermal/thermal_zone900/type" skin-therm
put "$EV/sys/class/thermal/thermal_zone900/temp" 45000
put "$EV/sys/class/thermal/cooling_device900/type" Fan
put "$EV/sys/class/thermal/cooling_device900/max_state" 3
put "$EV/sys/class/thermal/cooling_device900/cur_state" 0
cat >"$EV/policy.yaml" <<'EOF'
version: 1
sensors:
  skin:
    source: {kind: thermal_zone, name: skin-therm}
devices:
  fan:
    max_level: 3
    knob: {kind: cooling_device, name: Fan}
controllers:
  guard:
    kind: table
    input: skin
    devices: [fan]
    table:
      - {up_c: 60, down_c: 58, level: 1}
      - {up_c: 65, down_c: 63, level: 3}
EOF

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

"$DAEMON" --config "$EV/policy.yaml" --sysfs-root "$EV/sys" --netlink on 2>"$EV/log" &
EV_PID=$!
PIDS+=("$EV_PID")
"$DAEMON" --config "$PO/policy.yaml" --sysfs-root "$PO/sys" 2>"$PO/log" &
PO_PID=$!
PIDS+=("$PO_PID")

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
