#!/usr/bin/env bash
# What the flight recorder costs coolhandd in Private_Dirty, the ring apart
# (issue 11: "Private_Dirty grows by no more than the ring's size").
#
# Two builds of one tree: BUILD (the daemon as shipped) and NULL_BUILD
# (configured with -DCOOLHAND_NULL_RECORDER=ON: the recorder replaced by a
# null one at the link seam, daemon/src/flight_recorder_null.cpp). RUNS
# times, one daemon of each build is started side by side (--bus none) with
# the same policy on the same fake tree in tmpfs. After SETTLE_S seconds
# (default 20), and again after one SIGUSR1 dump into a record directory,
# the script reads /proc/PID/smaps and sums Private_Dirty by mapping:
#   ring    the anonymous mapping of exactly the ring's size (records x 32
#           bytes, from the daemon's own log line);
#   heap    [heap];
#   anon    other anonymous mappings (malloc's mmap'd chunks, the .bss
#           that overflows the file's last page);
#   binary  coolhandd's own file mappings (relocated data, .data);
#   stack   [stack];
#   libs    every shared library's private dirty pages (relocations, .data).
# Then, per category, the median of the runs for each build and the
# difference. The recorder's fixed part is total(recorder) - total(null)
# - ring; its parts are the differences per category.
#
# POLICY=small (default): one thermal zone, a table on one fan (the
#   policy of measure-memory.sh).
# POLICY=fir: the reference policy's estimator on four zones (two 4-input
#   fir filters of 15 taps, EMAs, a max, a weighted sum), a table on a fan.
#   Its checkpoint payload is large (the filters' histories).
# RECORDS=N sets daemon.recorder.records (default: the policy's default).
#
# Usage: scripts/measure-recorder-cost.sh [BUILD] [NULL_BUILD]
#   (defaults: build build-null; configure the second with
#   -DCOOLHAND_NULL_RECORDER=ON and build only its coolhandd target)
#   RUNS=5 SETTLE_S=20 POLICY=small scripts/measure-recorder-cost.sh build build-null
set -euo pipefail

BUILD=${1:-build}
NULL_BUILD=${2:-build-null}
RUNS=${RUNS:-5}
SETTLE_S=${SETTLE_S:-20}
POLICY=${POLICY:-small}
REC=$(realpath "$BUILD/daemon/coolhandd")
NUL=$(realpath "$NULL_BUILD/daemon/coolhandd")
grep -q COOLHAND_NULL_RECORDER:BOOL=ON "$NULL_BUILD/CMakeCache.txt" ||
  { echo "$NULL_BUILD is not configured with -DCOOLHAND_NULL_RECORDER=ON" >&2; exit 2; }
! grep -q COOLHAND_NULL_RECORDER:BOOL=ON "$BUILD/CMakeCache.txt" ||
  { echo "$BUILD is a null-recorder build" >&2; exit 2; }
# A freshly linked or copied binary's pages may still be dirty in the page
# cache, and would count in its Private_Dirty: write them back first.
sync "$REC" "$NUL"
# shellcheck source=scripts/lib/measure-daemon.sh
. "$(dirname "$0")/lib/measure-daemon.sh"
measure_init reccost

# ---- the fake tree (zones 901+ beside fake_tree's zone 900 and fan)
zone() {  # N TYPE TEMP_MC
  put "$BASE/sys/class/thermal/thermal_zone$1/type" "$2"
  put "$BASE/sys/class/thermal/thermal_zone$1/temp" "$3"
}
fake_tree "$BASE" 46000
case "$POLICY" in
  small) fan_policy "$BASE/policy.yaml" ;;
  fir)
    zone 901 battery-therm 38000
    zone 902 charger-therm 36000
    zone 903 modem-therm 35000
    w15='[0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1]'
    cat >"$BASE/policy.yaml" <<EOF
version: 1
sampling:
  min_interval: 1s
  max_interval: 20s
sensors:
  skin_therm: {source: {kind: thermal_zone, name: skin-therm}}
  battery_therm: {source: {kind: thermal_zone, name: battery-therm}}
  charger_therm: {source: {kind: thermal_zone, name: charger-therm}}
  modem_therm: {source: {kind: thermal_zone, name: modem-therm}}
  front_fir:
    kind: fir
    inputs: [skin_therm, battery_therm, charger_therm, modem_therm]
    weights: [$w15, $w15, $w15, $w15]
    tap_period: 8s
  back_fir:
    kind: fir
    inputs: [skin_therm, battery_therm, charger_therm, modem_therm]
    weights: [$w15, $w15, $w15, $w15]
    tap_period: 8s
  front_skin: {kind: ema, input: front_fir, time_constant: 10s}
  back_skin: {kind: ema, input: back_fir, time_constant: 10s}
  skin: {kind: max, inputs: [front_skin, back_skin]}
  board_slow: {kind: ema, input: skin_therm, time_constant: 180s}
  skin_ctl:
    kind: weighted_sum
    inputs: [skin, skin_therm, board_slow]
    weights: [1, 0.6, -0.6]
$(fan_control skin_ctl)
EOF
    ;;
  *) echo "POLICY must be small or fir" >&2; exit 2 ;;
esac
echo "policy: $POLICY; $RUNS runs, ${SETTLE_S} s each"
policy_records "$BASE/policy.yaml"
echo "recorder: $REC"
echo "null:     $NUL"

CATS=(total ring heap anon binary stack libs)
# Private_Dirty (kB) by category of PID's mappings; RING_KB: the ring's size.
categorise() {  # PID EXE RING_KB
  awk -v exe="$2" -v ring="$3" '
    /^[0-9a-f]+-[0-9a-f]+ / {
      name = (NF >= 6 ? $6 : ""); cat = ""
      if (name == exe) cat = "binary"
      else if (name == "[heap]") cat = "heap"
      else if (name == "[stack]") cat = "stack"
      else if (name == "") cat = "anon"
      else if (name ~ /^\[/) cat = "anon"
      else cat = "libs"
      next
    }
    $1 == "Size:" { size = $2; if (cat == "anon" && ring > 0 && size == ring) cat = "ring"; next }
    $1 == "Private_Dirty:" { pd[cat] += $2; total += $2 }
    END { printf "%d %d %d %d %d %d %d\n", total, pd["ring"], pd["heap"], pd["anon"],
                  pd["binary"], pd["stack"], pd["libs"] }' "/proc/$1/smaps"
}

start() {  # LABEL EXE RUN: starts a daemon, its pid in $STARTED
  mkdir -p "$BASE/rec-$1-$3"
  start_daemon "$BASE/$1-$3.log" "$BASE" "$2" --netlink off --bus none --record-dir "$BASE/rec-$1-$3"
}

ring_kb() {  # LOG: the ring's KiB from "flight recorder: N records (K KiB)"
  sed -n 's/.*flight recorder: [0-9]* records (\([0-9]*\) KiB).*/\1/p' "$1" | head -1
}

declare -A ROWS  # "BUILD POINT" -> lines of category figures
for run in $(seq "$RUNS"); do
  start rec "$REC" "$run"
  prec=$STARTED
  start null "$NUL" "$run"
  pnull=$STARTED
  sleep "$SETTLE_S"
  for p in "$prec" "$pnull"; do
    kill -0 "$p" 2>/dev/null || { echo "a daemon exited:" >&2; cat "$BASE"/*-"$run".log >&2; exit 1; }
  done
  rkb=$(ring_kb "$BASE/rec-$run.log")
  [ -n "$rkb" ] || { echo "no ring size in the log" >&2; cat "$BASE/rec-$run.log" >&2; exit 1; }
  r=$(categorise "$prec" "$REC" "$rkb")
  n=$(categorise "$pnull" "$NUL" 0)
  [ "$(echo "$r" | cut -d' ' -f2)" = "$rkb" ] ||
    { echo "run $run: no ring mapping of $rkb kB found" >&2; exit 1; }
  ROWS["rec start"]+="$r"$'\n'
  ROWS["null start"]+="$n"$'\n'
  echo "run $run after ${SETTLE_S} s: recorder [$r]  null [$n]  (total ring heap anon binary stack libs, kB)"
  # One dump each (the null daemon's fails and says so), then again.
  kill -USR1 "$prec" "$pnull"
  sleep 2
  ls "$BASE/rec-rec-$run"/recording-*.chrec >/dev/null ||
    { echo "run $run: the recorder's dump is missing" >&2; cat "$BASE/rec-$run.log" >&2; exit 1; }
  grep -q "null recorder" "$BASE/null-$run.log" ||
    { echo "run $run: the null build did not say it is null" >&2; exit 1; }
  r=$(categorise "$prec" "$REC" "$rkb")
  n=$(categorise "$pnull" "$NUL" 0)
  ROWS["rec dump"]+="$r"$'\n'
  ROWS["null dump"]+="$n"$'\n'
  echo "run $run after a dump: recorder [$r]  null [$n]"
  kill -TERM "$prec" "$pnull"
  wait "$prec" "$pnull" || true
done

median() {  # column N of stdin's lines
  awk -v c="$1" '{print $c}' | sort -n | awk '{v[NR] = $1} END {
    if (NR % 2) print v[(NR + 1) / 2]; else printf "%g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

for point in start dump; do
  if [ "$point" = start ]; then when="after ${SETTLE_S} s"; else when="after one dump"; fi
  echo "medians of $RUNS runs, $when (kB):"
  printf '  %-8s %9s %9s %9s\n' category recorder null difference
  for i in "${!CATS[@]}"; do
    a=$(printf '%s' "${ROWS["rec $point"]}" | median $((i + 1)))
    b=$(printf '%s' "${ROWS["null $point"]}" | median $((i + 1)))
    printf '  %-8s %9s %9s %9s\n' "${CATS[$i]}" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN {print a - b}')"
    if [ "${CATS[$i]}" = total ]; then tot=$(awk -v a="$a" -v b="$b" 'BEGIN {print a - b}'); fi
    if [ "${CATS[$i]}" = ring ]; then ring=$a; fi
  done
  echo "  fixed part beyond the ring: $(awk -v t="$tot" -v r="$ring" 'BEGIN {print t - r}') kB"
done
