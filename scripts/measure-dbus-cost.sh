#!/usr/bin/env bash
# What coolhandd's D-Bus service costs: the same fake tree in tmpfs (an
# event-capable thermal zone, thermal netlink on, one table controller) run
# with `--bus none` and with `--bus system` on a private dbus-daemon (never
# the host's bus; the service then answers five `coolhandctl status` calls).
# For each run it prints the wakeups (voluntary context switches) in
# SETTLE_S seconds after a 3 s settling period, then VmRSS, VmHWM, RssAnon,
# RssFile, the resident pages of libsdbus-c++ (from /proc/PID/smaps), the
# thread count and the open fds.
#
# Usage: scripts/measure-dbus-cost.sh [BUILD_DIR]    (default: build)
#   SETTLE_S=20 scripts/measure-dbus-cost.sh build
#   BASELINE=/path/to/older/coolhandd scripts/measure-dbus-cost.sh build
#     also runs a coolhandd without the service (no --bus option) first.
set -euo pipefail

BUILD=${1:-build}
DAEMON=$(realpath "$BUILD/daemon/coolhandd")
CTL=$(realpath "$BUILD/daemon/ctl/coolhandctl")
SETTLE_S=${SETTLE_S:-20}
BASE=$(mktemp -d /dev/shm/coolhand-dbus-cost-XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$BASE"
}
trap cleanup EXIT

put() { mkdir -p "$(dirname "$1")"; echo "$2" >"$1"; }
field() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }

# Zone 900 cannot clash with a real zone on this machine.
put "$BASE/sys/class/thermal/thermal_zone900/type" skin-therm
put "$BASE/sys/class/thermal/thermal_zone900/temp" 46000
put "$BASE/sys/class/thermal/cooling_device900/type" Fan
put "$BASE/sys/class/thermal/cooling_device900/max_state" 3
put "$BASE/sys/class/thermal/cooling_device900/cur_state" 0
cat >"$BASE/policy.yaml" <<'EOF'
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
      - {up_c: 45, down_c: 43, level: 1}
      - {up_c: 48, down_c: 46, level: 2}
EOF
cat >"$BASE/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <listen>unix:path=$BASE/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/>
  </policy>
</busconfig>
EOF
dbus-daemon --config-file="$BASE/bus.conf" --nofork --print-address >"$BASE/address" 2>/dev/null &
PIDS+=($!)
for _ in $(seq 50); do [ -s "$BASE/address" ] && break; sleep 0.1; done
export DBUS_SYSTEM_BUS_ADDRESS
DBUS_SYSTEM_BUS_ADDRESS=$(head -1 "$BASE/address")

measure() {  # LABEL DAEMON [ARGS...]
  local label=$1 bin=$2
  shift 2
  "$bin" --config "$BASE/policy.yaml" --sysfs-root "$BASE/sys" --netlink on "$@" \
    2>"$BASE/$label.log" &
  local pid=$!
  PIDS+=("$pid")
  sleep 1
  if [ "$label" = bus-system ]; then
    for _ in 1 2 3 4 5; do "$CTL" status >/dev/null; done
  fi
  sleep 2
  local c0 c1 sd
  c0=$(field "$pid" voluntary_ctxt_switches)
  sleep "$SETTLE_S"
  c1=$(field "$pid" voluntary_ctxt_switches)
  sd=$(awk '/^[0-9a-f]+-[0-9a-f]+ / {in_lib = /libsdbus-c\+\+/} in_lib && $1 == "Rss:" {s += $2}
            END {print s + 0}' "/proc/$pid/smaps")
  echo "$label: $((c1 - c0)) wakeups in ${SETTLE_S} s; VmRSS $(field "$pid" VmRSS) kB," \
    "VmHWM $(field "$pid" VmHWM) kB, RssAnon $(field "$pid" RssAnon) kB," \
    "RssFile $(field "$pid" RssFile) kB, libsdbus-c++ Rss ${sd} kB," \
    "threads $(field "$pid" Threads), fds $(ls "/proc/$pid/fd" | wc -l)"
  kill "$pid"
  wait "$pid" || true
}

if [ -n "${BASELINE:-}" ]; then measure baseline "$(realpath "$BASELINE")"; fi
measure bus-none "$DAEMON" --bus none
measure bus-system "$DAEMON" --bus system
grep -q "D-Bus: serving" "$BASE/bus-system.log" || {
  echo "measure-dbus-cost.sh: the service did not start:" >&2
  cat "$BASE/bus-system.log" >&2
  exit 1
}
