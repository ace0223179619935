# shellcheck shell=bash
# Sourced by the scripts/measure-*.sh that run the real coolhandd on a fake
# sysfs tree in tmpfs (measure-daemon, measure-dbus-cost, measure-memory,
# measure-recorder-cost): one way of making the tree, the policy, a private
# bus and the daemon, and of cleaning up after them.
#
#   measure_init NAME        $BASE, a new directory /dev/shm/coolhand-NAME-XXXXXX,
#                            and PIDS, the processes started below; on exit
#                            every one is killed and $BASE removed (a script
#                            with more to undo defines measure_cleanup_hook,
#                            run once they are dead, before the removal)
#   put FILE VALUE           FILE (and its directories) holding VALUE
#   field PID KEY            KEY's figure in /proc/PID/status (kB, count)
#   wakeups PID              voluntary context switches summed over PID's
#                            threads (/proc/PID/task/*/status)
#   fake_tree DIR TEMP_MC    DIR/sys: thermal zone 900 "skin-therm" at TEMP_MC
#                            (m°C) with a critical trip set at 95 °C, and
#                            cooling device 900 "Fan", max_state 3, at
#                            state 0 (900: cannot clash with a real one)
#   fan_control INPUT [ROWS] on stdout, a policy's devices: and controllers:
#                            tests/data/fan-control.yaml (the fan as `fan`,
#                            max_level 3, and a table controller on it) reading
#                            INPUT, ROWS its table (default: the file's, level 1
#                            at 45/43 °C, level 2 at 48/46 °C)
#   fan_policy FILE [ROWS]   the policy FILE: the zone as `skin` and
#                            fan_control skin ROWS
#   policy_records FILE      with RECORDS set, appends daemon.recorder.records
#                            RECORDS to the policy FILE and says so
#   start_bus DIR            a private dbus-daemon (never the host's bus) on
#                            tests/data/private-bus.conf (the D-Bus tests'
#                            bus) listening on DIR/bus; its address in
#                            $BUS_ADDRESS
#   start_daemon LOG DIR CMD...
#                            CMD... --config DIR/policy.yaml --sysfs-root DIR/sys
#                            in the background (CMD: coolhandd and its options,
#                            or a wrapper that execs it), stderr to LOG; its
#                            pid in $STARTED and PIDS

measure_init() {  # NAME
  BASE=$(mktemp -d "/dev/shm/coolhand-$1-XXXXXX")
  PIDS=()
  trap measure_cleanup EXIT
}

measure_cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if declare -F measure_cleanup_hook >/dev/null; then measure_cleanup_hook; fi
  rm -rf "$BASE"
}

put() { mkdir -p "$(dirname "$1")"; echo "$2" >"$1"; }

field() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }

wakeups() {  # PID
  local sum=0 n s
  for s in /proc/"$1"/task/*/status; do
    n=$(awk '/^voluntary_ctxt_switches/ {print $2}' "$s")
    sum=$((sum + n))
  done
  echo "$sum"
}

fake_tree() {  # DIR TEMP_MC
  put "$1/sys/class/thermal/thermal_zone900/type" skin-therm
  put "$1/sys/class/thermal/thermal_zone900/temp" "$2"
  # A zone is event-driven under thermal netlink only with a set trip
  # (zone_sends_events, daemon/src/discovery.h); the attribute names are
  # 6.1's drivers/thermal/thermal_sysfs.c create_trip_attrs()
  # ("trip_point_%d_type", "trip_point_%d_temp", m°C) and
  # trip_point_type_show() ("critical").
  put "$1/sys/class/thermal/thermal_zone900/trip_point_0_type" critical
  put "$1/sys/class/thermal/thermal_zone900/trip_point_0_temp" 95000
  put "$1/sys/class/thermal/cooling_device900/type" Fan
  put "$1/sys/class/thermal/cooling_device900/max_state" 3
  put "$1/sys/class/thermal/cooling_device900/cur_state" 0
}

# The policies' fan and table, shared with the D-Bus tests' policy.
MEASURE_DATA=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../tests/data" && pwd)

fan_control() {  # INPUT [ROWS]
  {
    if [ -n "${2:-}" ]; then
      sed '/^    table:$/q' "$MEASURE_DATA/fan-control.yaml"
      printf '%s\n' "$2"
    else
      cat "$MEASURE_DATA/fan-control.yaml"
    fi
  } | sed "s/^    input: skin\$/    input: $1/"
}

fan_policy() {  # FILE [ROWS]
  {
    printf 'version: 1\nsensors:\n  skin:\n    source: {kind: thermal_zone, name: skin-therm}\n'
    fan_control skin "${2:-}"
  } >"$1"
}

policy_records() {  # FILE
  if [ -n "${RECORDS:-}" ]; then
    printf 'daemon:\n  recorder:\n    records: %s\n' "$RECORDS" >>"$1"
    echo "policy: daemon.recorder.records $RECORDS"
  fi
}

start_bus() {  # DIR
  mkdir -p "$1"
  local conf=private-bus.conf
  [ "$(id -u)" = 0 ] || conf=private-bus-user.conf
  # Not in a command substitution: the pid must reach PIDS for the cleanup.
  dbus-daemon --config-file="$MEASURE_DATA/$conf" --address="unix:path=$1/bus" --nofork \
    --print-address >"$1/address" 2>/dev/null &
  PIDS+=($!)
  for _ in $(seq 50); do [ -s "$1/address" ] && break; sleep 0.1; done
  [ -s "$1/address" ] || { echo "dbus-daemon did not start" >&2; exit 1; }
  # shellcheck disable=SC2034  # read by the script that sources this file
  BUS_ADDRESS=$(head -1 "$1/address")
}

start_daemon() {  # LOG DIR CMD...
  local log=$1 dir=$2
  shift 2
  "$@" --config "$dir/policy.yaml" --sysfs-root "$dir/sys" 2>"$log" &
  STARTED=$!
  PIDS+=("$STARTED")
}
