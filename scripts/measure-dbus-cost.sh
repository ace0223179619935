#!/usr/bin/env bash
# What coolhandd's D-Bus service costs: the same fake tree in tmpfs (an
# event-capable thermal zone, thermal netlink on, one table controller) run
# with `--bus none` and with `--bus system` on a private dbus-daemon (never
# the host's bus; the service then answers five `coolhandctl status` calls).
# For each run it prints the wakeups (voluntary context switches, summed
# over its threads) in
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
# shellcheck source=scripts/lib/measure-daemon.sh
. "$(dirname "$0")/lib/measure-daemon.sh"
measure_init dbus-cost
fake_tree "$BASE" 46000
fan_policy "$BASE/policy.yaml"
start_bus "$BASE/dbus"
export DBUS_SYSTEM_BUS_ADDRESS=$BUS_ADDRESS

measure() {  # LABEL DAEMON [ARGS...]
  local label=$1 bin=$2
  shift 2
  start_daemon "$BASE/$label.log" "$BASE" "$bin" --netlink on "$@"
  local pid=$STARTED
  sleep 1
  if [ "$label" = bus-system ]; then
    for _ in 1 2 3 4 5; do "$CTL" status >/dev/null; done
  fi
  sleep 2
  local c0 c1 sd
  c0=$(wakeups "$pid")
  sleep "$SETTLE_S"
  c1=$(wakeups "$pid")
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
