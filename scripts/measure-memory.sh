#!/usr/bin/env bash
# coolhandd's steady memory, measured honestly: the real daemon against a
# fake tree in tmpfs (an event-capable thermal zone, thermal netlink on, one
# table controller).
# 1. bus: the D-Bus service connected to a private dbus-daemon (never the
#    host's bus), five `coolhandctl status` calls answered, the daemon alone
#    for MINUTES (default 10); figures after 60 s and after MINUTES, then its
#    Pss by mapping (smaps, summed per file, largest first).
# 2. Side by side for 60 s, each after RELOADS (default 10) policy reloads:
#    trim (as 1), notrim (malloc_trim() made a no-op by an LD_PRELOAD shim
#    built here, to decide whether the call earns its place) and no-bus
#    (--bus none).
# Figures, per run: from /proc/PID/smaps_rollup Rss, Pss, Pss_Anon,
# Pss_File, Private_Dirty, Private_Clean, Shared_Clean; from
# /proc/PID/status VmRSS, VmHWM, RssAnon, RssFile (labelled as such); and the
# memory cgroup's usage when one could be made (below).
#
# cgroup: the issue asks for memory.current of the unit's cgroup under
# `systemd-run --scope`. That needs systemd as PID 1 (checked, and said when
# absent). Failing that, when the cgroup-v1 memory controller is mounted and
# writable, each run starts inside its own child memory cgroup and the script
# prints memory.usage_in_bytes and memory.stat's rss and cache: the v1
# counterparts, labelled as v1.
#
# RECORDS=N sets the policy's daemon.recorder.records (the flight
# recorder's ring, 32-byte records; unset: the default, 262144 = 8 MiB).
# Two runs of one binary that differ only in RECORDS show what the ring's
# size costs (docs/benchmarks.md, "Flight recorder").
#
# Usage: scripts/measure-memory.sh [BUILD_DIR]    (default: build)
#   MINUTES=10 RELOADS=10 scripts/measure-memory.sh build
#   MINUTES=1 RELOADS=2 RECORDS=1024 scripts/measure-memory.sh build
set -euo pipefail

BUILD=${1:-build}
DAEMON=$(realpath "$BUILD/daemon/coolhandd")
CTL=$(realpath "$BUILD/daemon/ctl/coolhandctl")
MINUTES=${MINUTES:-10}
RELOADS=${RELOADS:-10}
CGROUPS=()
# shellcheck source=scripts/lib/measure-daemon.sh
. "$(dirname "$0")/lib/measure-daemon.sh"
measure_init memory
measure_cleanup_hook() {
  for c in "${CGROUPS[@]}"; do rmdir "$c" 2>/dev/null || true; done
}

rollup() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/smaps_rollup"; }

# ---- the fake tree and policy
fake_tree "$BASE" 46000
fan_policy "$BASE/policy.yaml"
policy_records "$BASE/policy.yaml"

# ---- the malloc_trim shim: a no-op that says once that it ran
cat >"$BASE/notrim.c" <<'EOF'
#include <stddef.h>
#include <unistd.h>
int malloc_trim(size_t pad) {
  static const char msg[] = "notrim shim: malloc_trim skipped\n";
  (void)pad;
  (void)!write(2, msg, sizeof msg - 1);
  return 0;
}
EOF
cc -shared -fPIC -O2 -o "$BASE/notrim.so" "$BASE/notrim.c"

# ---- cgroup: systemd scope if systemd runs this machine, else v1 memory
pid1=$(cat /proc/1/comm)
if [ -d /run/systemd/system ] && [ "$pid1" = systemd ]; then
  echo "note: systemd is PID 1 but this script does not use systemd-run yet;" \
    "memory.current not measured"
else
  echo "memory.current (systemd-run --scope): not available: PID 1 is '$pid1'," \
    "not systemd, so there is no systemd to create a scope"
fi
CG_PARENT=""
own=$(awk -F: '$2 == "memory" {print $3}' /proc/self/cgroup)
if [ -n "$own" ] && [ -w "/sys/fs/cgroup/memory$own" ]; then
  CG_PARENT="/sys/fs/cgroup/memory$own"
else
  echo "cgroup v1 memory controller not writable here: no cgroup figure"
fi

# ---- a private bus per D-Bus run (two services cannot share one name):
# start_bus DIR (scripts/lib/measure-daemon.sh)

declare -A PID_OF CG_OF
start() {  # LABEL BUS_ADDRESS PRELOAD DAEMON_ARGS...
  local label=$1 addr=$2 preload=$3 cg=""
  shift 3
  if [ -n "$CG_PARENT" ]; then
    cg="$CG_PARENT/coolhand-$label-$$"
    mkdir "$cg"
    CGROUPS+=("$cg")
  fi
  start_daemon "$BASE/$label.log" "$BASE" in_cgroup "$cg" "$addr" "$preload" "$DAEMON" --netlink on "$@"
  PID_OF[$label]=$STARTED
  CG_OF[$label]=$cg
}

# In the background subshell start_daemon makes: joins the cgroup before
# exec, so every page is charged to it.
in_cgroup() {  # CGROUP BUS_ADDRESS PRELOAD CMD...
  [ -z "$1" ] || echo "$BASHPID" >"$1/cgroup.procs"
  export DBUS_SYSTEM_BUS_ADDRESS="$2"
  if [ -n "$3" ]; then export LD_PRELOAD="$3"; fi
  shift 3
  exec "$@"
}

report() {  # LABEL WHEN
  local label=$1 when=$2 pid=${PID_OF[$1]} cg=${CG_OF[$1]} line k
  kill -0 "$pid" 2>/dev/null || { echo "$label: daemon exited" >&2; cat "$BASE/$label.log" >&2; exit 1; }
  line="$label $when: smaps_rollup"
  for k in Rss Pss Pss_Anon Pss_File Private_Dirty Private_Clean Shared_Clean; do
    line+=" $k $(rollup "$pid" "$k")"
  done
  line+=" kB; status VmRSS $(field "$pid" VmRSS) VmHWM $(field "$pid" VmHWM)"
  line+=" RssAnon $(field "$pid" RssAnon) RssFile $(field "$pid" RssFile) kB"
  if [ -n "$cg" ]; then
    line+="; cgroup-v1 memory.usage_in_bytes $(($(cat "$cg/memory.usage_in_bytes") / 1024)) kB"
    line+=" (rss $(($(awk '$1 == "rss" {print $2}' "$cg/memory.stat") / 1024))"
    line+=", cache $(($(awk '$1 == "cache" {print $2}' "$cg/memory.stat") / 1024)) kB)"
  fi
  echo "$line"
}

check_service() {  # LABEL
  grep -q "D-Bus: serving" "$BASE/$1.log" || {
    echo "measure-memory.sh: $1: the service did not start" >&2
    cat "$BASE/$1.log" >&2
    exit 1
  }
}
stop() {  # LABEL...
  local label
  for label in "$@"; do kill -TERM "${PID_OF[$label]}"; done
  for label in "$@"; do wait "${PID_OF[$label]}" || true; done
}

# ---- 1. the steady daemon, alone: no other process maps its binary, so its
# Pss is what one coolhandd costs (shared libraries are still divided among
# every process on this machine that maps them, as on a handheld).
start_bus "$BASE/bus"
BUS=$BUS_ADDRESS
start bus "$BUS" "" --bus system
sleep 2
for _ in 1 2 3 4 5; do DBUS_SYSTEM_BUS_ADDRESS=$BUS "$CTL" status >/dev/null; done
check_service bus
sleep 58
report bus "after 60 s"
remaining=$((MINUTES * 60 - 60))
if ((remaining > 0)); then sleep "$remaining"; fi
report bus "after $MINUTES min"
echo "bus after $MINUTES min: Pss by mapping (kB, summed per file; Private_Dirty beside it):"
awk '/^[0-9a-f]+-[0-9a-f]+ / {name = (NF >= 6 ? $6 : "[anonymous]")}
     $1 == "Pss:" {pss[name] += $2}
     $1 == "Private_Dirty:" {pd[name] += $2}
     END {for (n in pss) if (pss[n] > 0 || pd[n] > 0) printf "%7d %7d  %s\n", pss[n], pd[n], n}' \
  "/proc/${PID_OF[bus]}/smaps" | sort -rn | sed 's/^/  /'
stop bus

# ---- 2. does malloc_trim earn its place? Side by side for 60 s: with the
# call, without it (shim), and without D-Bus; RELOADS policy reloads each.
# Private_Dirty and RssAnon are the figures to compare here (Pss divides the
# binary's pages among the three).
start_bus "$BASE/bus-notrim"
BUS_NOTRIM=$BUS_ADDRESS
start trim "$BUS" "" --bus system
start notrim "$BUS_NOTRIM" "$BASE/notrim.so" --bus system
start no-bus "" "" --bus none
sleep 2
for _ in 1 2 3 4 5; do
  DBUS_SYSTEM_BUS_ADDRESS=$BUS "$CTL" status >/dev/null
  DBUS_SYSTEM_BUS_ADDRESS=$BUS_NOTRIM "$CTL" status >/dev/null
done
for _ in $(seq "$RELOADS"); do
  kill -HUP "${PID_OF[trim]}" "${PID_OF[notrim]}" "${PID_OF[no-bus]}"
  sleep 0.5
done
check_service trim
check_service notrim
grep -q "notrim shim: malloc_trim skipped" "$BASE/notrim.log" || {
  echo "measure-memory.sh: the shim did not replace malloc_trim" >&2
  exit 1
}
! grep -q "notrim shim" "$BASE/trim.log" || { echo "shim leaked into the trim run" >&2; exit 1; }
sleep $((58 - RELOADS / 2 > 1 ? 58 - RELOADS / 2 : 1))
for label in trim notrim no-bus; do report "$label" "after 60 s, $RELOADS reloads"; done
stop trim notrim no-bus
