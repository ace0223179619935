#!/usr/bin/env bash
# The port chain on one device, cheaply (issue 13): scripts/port-device.sh
# on the 10" tablet (sim/data/models/tablet-10.yaml, its skeleton and its
# hand-ported policy) with short inputs: the excitation and two ordinary-use
# workloads recorded, a three-workload suite (gaming, gaming-hot at 35 °C,
# gaming-charging), a small tune (24 + 12 evaluations; its time budget is
# far above what they take, so the counts, not the machine's load, end it:
# with a 12 s budget a loaded machine cut the global stage to 8 of 24 and
# the result changed). Checks:
#   - every recording replays exactly (the chain replays the excitation's;
#     here every one);
#   - the fitted model's prediction error: each sensor's held-out rms
#     <= 0.6 °C (the thermocouples' <= 0.2 °C), and on navigation (30 °C, charging), which the fit never
#     saw, each skin node open loop within 0.5 °C rms of the true one;
#   - tune ran with the script's tolerance per skin node, 0.5 - 2 x that
#     cover's thermocouple's held-out rms (the summary and the first tuned
#     policy's header);
#   - the device check's rounds (`coolhand-sim port check`), recomputed
#     from runs of the test's own (`run --seed S --no-trace` of the round's
#     policy): peaks.txt and performance.txt byte for byte (each cover's
#     peak the device's worst over 16 seeds and the fitted model's over 4,
#     each workload's performance the worst over seeds 1..4), one line per
#     workload and cover and one per workload, each cover's bias and corrected
#     tolerance and the limit's bias and margin as the summary prints them,
#     the lowest performance bias kept, and the chain's policy the last
#     checked one whose device peaks hold the limit + 0.5 °C, with its
#     re-tune's tolerances and biases in its header; --no-device-check
#     leaves it out;
#   - the tuned policy holds its limit on the TRUE model: max skin <= limit
#     + 0.5 °C on every workload of the suite.
# And the exact messages of `fit --recording` for what cannot be mapped, and
# the script's for a bad --noise-seeds or --tolerance.
# Usage: port_chain_test.sh COOLHAND_SIM SOURCE_DIR
set -euo pipefail
SIM=$1
SRC=$2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/port_chain.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
W=$SRC/sim/data/workloads
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
at_most() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 <= b + 0) }'; }
used() { awk -v b="$1" 'BEGIN { u = b; if (b > 0) { u = b - 0.0001; if (u < 0) u = 0 }; printf "%+.6f", u }'; }
rms_of() { awk -v l="$1" '$0 ~ l { for (i = 1; i < NF; ++i) if ($i == "rms") { print $(i + 1); exit } }' "$2"; }

OUT=$TMP/tablet
"$SRC/scripts/port-device.sh" --sim "$SIM" --time-budget 120 --global 24 --local 12 \
  --use "$W/gaming.csv" --use "$W/gaming-hot.csv" \
  --suite "$W/gaming.csv" --suite "$W/gaming-hot.csv" --suite "$W/gaming-charging.csv" \
  "$SRC/sim/data/models/tablet-10.yaml" "$SRC/sim/data/skeletons/tablet-10.skeleton.yaml" \
  "$SRC/sim/data/policies/tablet-10.yaml" "$OUT" >"$TMP/chain.out" 2>"$TMP/chain.err" ||
  { cat "$TMP/chain.err"; fail "port-device.sh failed"; }
cat "$TMP/chain.out"

for r in "$OUT"/rec/*.chrec; do
  "$SIM" replay -r "$r" -o "$TMP/rep" >/dev/null || fail "$(basename "$r") does not replay exactly"
done
# Each sensor's held-out error within 0.6 °C (cpu_therm and gpu_therm carry
# 0.3 °C of noise, skin_therm 0.2 °C and 1 °C steps: 0.35 °C rms alone);
# the thermocouples on the covers within 0.2 °C.
n=0
while read -r sensor rms; do
  n=$((n + 1))
  lim=0.6
  [[ $sensor == *_tc ]] && lim=0.2
  at_most "$rms" $lim || fail "held-out $sensor rms $rms °C (limit $lim)"
done < <(awk '$1 == "held-out" { for (i = 1; i < NF; ++i) if ($i == "rms") print $2, $(i + 1) }' "$OUT/fit/fit.out")
((n == 8)) || fail "expected a held-out error for each of the 6 sensors and 2 thermocouples, got $n"
for node in front_skin back_skin; do
  r=$(rms_of "skin node $node" "$OUT/fit/fit.out")
  at_most "$r" 0.5 || fail "fitted model: $node off by ${r:-?} °C rms on navigation (limit 0.5)"
done
# tune's tolerance on the fitted model, per skin node: 0.5 - 2 x the held-out
# rms of that node's thermocouple (scripts/port-device.sh), as the summary
# and the tuned policy's header say.
tol_of() {
  awk -v s="$1_tc" '$1 == "held-out" && $2 == s { for (i = 3; i < NF; ++i) if ($i == "rms") {
    t = 0.5 - 2 * $(i + 1); printf "%.3f", (t > 0 ? t : 0); exit } }' "$OUT/fit/fit.out"
}
front=$(tol_of front_skin) back=$(tol_of back_skin)
[[ -n $front && -n $back ]] || fail "fit printed no held-out rms for a cover's thermocouple"
want="front_skin $front °C, back_skin $back °C"
grep -qxF "tune's tolerance on the fitted model: $want" "$OUT/summary.txt" ||
  fail "summary: expected tune's tolerance $want, got '$(grep "tolerance" "$OUT/summary.txt")'"
header_of() { [[ $1 != "$2" ]] && echo "+ tolerance front_skin $1, back_skin $2;" || echo "+ tolerance $1;"; }
header=$(header_of "$front" "$back")
grep -qF "$header" "$OUT/tune/policy-before-check.yaml" ||
  fail "the first tune's policy's header does not name tune's tolerances '$header': $(grep -m1 -o '+ tolerance [^;]*' "$OUT/tune/policy-before-check.yaml")"

# The device check (scripts/port-device.sh, step 5), recomputed: each
# round's peaks.txt holds, per workload and cover, the worst of the
# metrics.json peaks over the noise seeds on each model (the device's
# 1..4 and 1001..1012, the fitted model's 1..4), which the test's own runs
# of the round's policy reproduce byte for byte; a cover's
# bias is the largest device - fitted peak where either is within 0.5 °C of
# its allowance (limit + its tolerance that round), the largest so far is
# kept, and its tolerance becomes 0.5 - that - 0.03 (at least 0); the line
# the summary prints says so. The chain's policy is the last re-tune's,
# whose header names the last tolerances.
DEVICE=$SRC/sim/data/models/tablet-10.yaml
limit=$(awk '/^skin:/ { s = 1 } s && /limit_c:/ { print $2; exit }' "$DEVICE")
SUITE_WL=(gaming gaming-charging gaming-hot)  # the suite, in `sort` order
# The lines peaks.txt and performance.txt must have: one per workload and
# skin node, one per workload (sorted as `sort` sorts them).
want_pairs=$(for wl in "${SUITE_WL[@]}"; do for node in back_skin front_skin; do echo "$wl $node"; done; done)
want_wls=$(printf '%s\n' "${SUITE_WL[@]}")
rounds=$(find "$OUT/check" -mindepth 1 -maxdepth 1 -type d -name 'r*' | wc -l)
((rounds >= 1 && rounds <= 3)) || fail "expected 1 to 3 device-check rounds, got $rounds"
declare -A ctol=([front_skin]=$front [back_skin]=$back) cbias=() cpbias=() hdr_at=() pbw_at=() lm_at=()
declare -A wbias=() wtol=() wtol_at=()  # per constraint, WORKLOAD:NODE
clbias=""
for ((r = 1; r <= rounds; ++r)); do
  D=$OUT/check/r$r
  [[ $(cut -d' ' -f1,2 "$D/peaks.txt") == "$want_pairs" ]] ||
    fail "check r$r: peaks.txt's lines are not one per workload and skin node: $(cut -d' ' -f1,2 "$D/peaks.txt" | tr '\n' ',')"
  [[ $(cut -d' ' -f1 "$D/performance.txt") == "$want_wls" ]] ||
    fail "check r$r: performance.txt's lines are not one per workload: $(cut -d' ' -f1 "$D/performance.txt" | tr '\n' ',')"
  # The round's runs, made again here as the check makes each: the round's
  # policy (round 1: the first tune's; round k: re-tune k-1's) with `run
  # --seed S --no-trace`, every workload on the device with seeds 1..4 and
  # 1001..1012 and on the fitted model with 1..4. From their metrics.json,
  # each skin node's peak and (seeds 1..4) the performance, reduced to the
  # worst of each (the highest peak, the lowest performance) and printed
  # as peaks.txt and performance.txt: the files must be these bytes.
  pol=$OUT/tune/policy-before-check.yaml
  ((r == 1)) || pol=$OUT/check/r$((r - 1))/tune/policy.yaml
  R=$TMP/runs-r$r
  mkdir -p "$R"
  : >"$R/peaks"
  : >"$R/performance"
  for wl in "${SUITE_WL[@]}"; do
    for s in 1 2 3 4 $(seq 1001 1012); do
      for model in device fitted; do
        m=$DEVICE
        if [[ $model == fitted ]]; then
          ((s <= 4)) || continue
          m=$OUT/fit/model.yaml
        fi
        "$SIM" run -m "$m" -p "$pol" -w "$W/$wl.csv" --seed "$s" --no-trace -o "$R/$model-$wl-$s" >/dev/null ||
          fail "check r$r: run of $wl seed $s on the $model model failed"
        awk -v w="$wl" -v k="$model" -v own=$((s <= 4)) -v perf="$R/performance" '
          own && /^  "performance":/ { gsub(/[",:]/, ""); print w, k, $2 >>perf }
          /"max_skin_by_node_c"/ { b = 1; next }
          b && /}/ { b = 0; next }
          b { gsub(/[",:]/, ""); print w, $1, k, $2 }' "$R/$model-$wl-$s/metrics.json" >>"$R/peaks"
      done
    done
  done
  want=$(awk '{ k = $1 " " $2; if ($3 == "device") { if (!(k in d) || $4 > d[k]) d[k] = $4 }
                                else if (!(k in f) || $4 > f[k]) f[k] = $4 }
              END { for (k in d) printf "%s %.4f %.4f\n", k, f[k], d[k] }' "$R/peaks" | LC_ALL=C sort)
  [[ $(cat "$D/peaks.txt") == "$want" ]] ||
    fail "check r$r: peaks.txt is not its runs' worst peaks: $(diff <(echo "$want") "$D/peaks.txt" | tr '\n' ' ')"
  want=$(awk '{ if ($2 == "device") { if (!($1 in d) || $3 < d[$1]) d[$1] = $3 }
                else if (!($1 in f) || $3 < f[$1]) f[$1] = $3 }
              END { for (k in d) printf "%s %.10f %.10f %+.10f\n", k, f[k], d[k], d[k] - f[k] }' "$R/performance" |
    LC_ALL=C sort)
  [[ $(cat "$D/performance.txt") == "$want" ]] ||
    fail "check r$r: performance.txt is not its runs' lowest performances: $(diff <(echo "$want") "$D/performance.txt" | tr '\n' ' ')"
  # Each constraint (workload, cover) within 0.5 °C of its allowance (the
  # limit + its own tolerance, else its cover's), in peaks.txt's order:
  # its device - fitted bias, the largest over the rounds kept, and its own
  # tolerance 0.5 - that - 0.03, as the summary's line says; the re-tune
  # after the round gets them (--tolerance WORKLOAD:NODE=T).
  cwant=""
  while read -r w n f d; do
    a=$(awk -v l="$limit" -v t="${wtol[$w:$n]:-${ctol[$n]}}" 'BEGIN { print l + t }')
    awk -v f="$f" -v d="$d" -v a="$a" 'BEGIN { exit !(f >= a - 0.5 || d >= a - 0.5) }' || continue
    b=$(awk -v f="$f" -v d="$d" 'BEGIN { printf "%.4f", d - f }')
    if [[ -z ${wbias[$w:$n]:-} ]] || awk -v b="$b" -v o="${wbias[$w:$n]}" 'BEGIN { exit !(b > o) }'; then wbias[$w:$n]=$b; fi
    wtol[$w:$n]=$(awk -v b="${wbias[$w:$n]}" 'BEGIN { t = 0.5 - b - 0.03; printf "%.3f", (t > 0 ? t : 0) }')
    cwant+="${cwant:+, }$w $n $(printf '%+.3f' "$b") -> ${wtol[$w:$n]}"
  done <"$D/peaks.txt"
  b=""
  grep -qxF "  device check $r: each constraint within 0.5 °C of its allowance, its bias -> its own tolerance: ${cwant:-none}" "$OUT/summary.txt" ||
    fail "summary: expected check $r's constraints '${cwant:-none}', got '$(grep -F "device check $r: each constraint" "$OUT/summary.txt")'"
  # As tune's header lists them: the suite's order, then the skin nodes'.
  wtol_at[$r]=""
  for wl in gaming gaming-hot gaming-charging; do
    for node in front_skin back_skin; do
      [[ -z ${wtol[$wl:$node]:-} ]] || wtol_at[$r]+="${wtol_at[$r]:+, }$wl $node ${wtol[$wl:$node]}"
    done
  done
  for node in front_skin back_skin; do
    read -r b wl < <(awk -v n="$node" -v a="$(awk -v l="$limit" -v t="${ctol[$node]}" 'BEGIN { print l + t }')" '
      $2 == n && ($3 >= a - 0.5 || $4 >= a - 0.5) { d = $4 - $3; if (!k++ || d > m) { m = d; w = $1 } }
      END { if (k) printf "%.4f %s\n", m, w }' "$D/peaks.txt") || true
    line=$(grep -F "device check $r: $node " "$OUT/summary.txt" || true)
    [[ -n $line ]] || { fail "summary: no device check $r line for $node"; continue; }
    if [[ -z ${b:-} ]]; then
      [[ $line == *"no workload within 0.5 °C of its allowance"* ]] || fail "check r$r $node: no close workload, but: $line"
    else
      # Rounded as the script rounds it: to 4 places, then to 3 (a difference
      # of two 4-place peaks can end in 5, and the two ways then differ).
      bf=$(printf '%+.3f' "$b")
      [[ $line == *"bias $bf °C ($wl;"* ]] || fail "check r$r $node: expected bias $bf °C on $wl: $line"
      if [[ -z ${cbias[$node]:-} ]] || awk -v b="$b" -v o="${cbias[$node]}" 'BEGIN { exit !(b > o) }'; then cbias[$node]=$b; fi
      ctol[$node]=$(awk -v b="${cbias[$node]}" 'BEGIN { t = 0.5 - b - 0.03; printf "%.3f", (t > 0 ? t : 0) }')
      [[ $line == *"tolerance "*" -> ${ctol[$node]} °C" ]] || fail "check r$r $node: expected tolerance ${ctol[$node]} °C: $line"
    fi
    b=""
  done
  # The limit's bias (°C·s): the largest device - fitted peak over every
  # (workload, cover) where either is within 0.5 °C of the limit, the
  # largest so far kept; the re-tunes count °C·s from the limit - (it +
  # 0.03).
  read -r b wl nd < <(awk -v l="$limit" '$3 >= l - 0.5 || $4 >= l - 0.5 { d = $4 - $3; if (!k++ || d > m) { m = d; w = $1 " " $2 } }
    END { if (k) printf "%.4f %s\n", m, w }' "$D/peaks.txt") || true
  line=$(grep -F "device check $r: the limit " "$OUT/summary.txt" || true)
  if [[ -z ${b:-} ]]; then
    [[ $line == *"no peak within 0.5 °C of the limit"* ]] || fail "check r$r limit: no close peak, but: $line"
  else
    bf=$(printf '%+.3f' "$b")
    [[ $line == *"bias $bf °C ($wl $nd;"* ]] || fail "check r$r limit: expected bias $bf °C on $wl $nd: $line"
    if [[ -z $clbias ]] || awk -v b="$b" -v o="$clbias" 'BEGIN { exit !(b > o) }'; then clbias=$b; fi
  fi
  if [[ -n $clbias ]]; then
    lm_at[$r]=$(awk -v b="$clbias" 'BEGIN { printf "%.3f", b + 0.03 }')
    [[ $line == *"°C·s counted from the limit - ${lm_at[$r]} °C" ]] || fail "check r$r limit: expected a margin of ${lm_at[$r]} °C: $line"
  fi
  b=""
  # Each workload's performance bias: the lowest performance over seeds
  # 1..4 on each model (the test's runs' metrics.json), device - fitted;
  # the summary's line names each, and the kept one is the lowest so far.
  want=""
  for wl in "${SUITE_WL[@]}"; do
    lowest() {
      for s in 1 2 3 4; do
        awk '/^  "performance":/ { gsub(/[",]/, ""); print $2; exit }' "$R/$1-$wl-$s/metrics.json"
      done | sort -g | head -1
    }
    d=$(lowest device) f=$(lowest fitted)
    [[ -n $d && -n $f ]] || { fail "check r$r: no performance in $wl's metrics.json"; continue; }
    pb=$(awk -v d="$d" -v f="$f" 'BEGIN { printf "%+.6f", d - f }')
    want+="${want:+, }$wl $pb"
    got=$(awk -v w="$wl" '$1 == w { print $4 }' "$D/performance.txt")
    awk -v a="$got" -v d="$d" -v f="$f" 'BEGIN { exit !(a != "" && (a - (d - f)) ^ 2 < 1e-18) }' ||
      fail "check r$r: $wl performance bias '$got' in performance.txt, its runs' $d - $f"
    if [[ -z ${cpbias[$wl]:-} ]] || awk -v b="$got" -v o="${cpbias[$wl]}" 'BEGIN { exit !(b < o) }'; then cpbias[$wl]=$got; fi
  done
  grep -qxF "  device check $r: performance bias (device - fitted, each's worst seed): $want" "$OUT/summary.txt" ||
    fail "summary: expected check $r's performance biases '$want', got '$(grep -F "device check $r: performance bias" "$OUT/summary.txt")'"
  # What a re-tune is given: a positive kept bias less 0.0001 (at least 0),
  # a negative one in full.
  kept=""
  for wl in "${SUITE_WL[@]}"; do kept+=" $wl $(used "${cpbias[$wl]}")"; done
  grep -qxF "  device check $r: kept performance bias (lowest so far; a positive one less 0.0001, at least 0):$kept" "$OUT/summary.txt" ||
    fail "summary: expected check $r's kept performance biases '$kept', got '$(grep -F "device check $r: kept performance" "$OUT/summary.txt")'"
  # What round r's re-tune (if any) was given, as its header names them:
  # the tolerances and each nonzero bias as used, in the suite's order.
  hdr_at[$r]=$(header_of "${ctol[front_skin]}" "${ctol[back_skin]}")
  pbw_at[$r]=""
  for wl in gaming gaming-hot gaming-charging; do
    p=$(used "${cpbias[$wl]}")
    [[ $p == +0.000000 || $p == -0.000000 ]] || pbw_at[$r]+="${pbw_at[$r]:+, }$wl $p"
  done
done
grep -qE "^  device check: (biases settled after [0-9]+ re-tune|no cover within|biases still moving)" "$OUT/summary.txt" ||
  fail "summary: the device check says neither that it settled nor that it did not"
grep -qE "^port-device:   device check 1: back_skin " "$TMP/chain.err" || fail "stderr: no device check line"
# The chain's policy: the last checked one whose device peaks (peaks.txt's
# 4th column) hold the limit + 0.5 °C, else the last re-tune's.
keep=$rounds
for ((k = rounds; k >= 1; --k)); do
  if awk -v a="$(awk -v l="$limit" 'BEGIN { print l + 0.5 }')" '$4 > a { o = 1 } END { exit o }' "$OUT/check/r$k/peaks.txt"; then keep=$k; break; fi
done
want=$OUT/tune/policy-before-check.yaml
((keep == 1)) || want=$OUT/check/r$((keep - 1))/tune/policy.yaml
cmp -s "$OUT/tune/policy.yaml" "$want" || fail "the chain's policy is not $want (check $keep's)"
grep -qF "  the chain's policy: " "$OUT/summary.txt" || fail "summary: no line naming the chain's policy"
if ((keep > 1)); then
  # Its re-tune (round keep-1's) was given that round's tolerances and
  # performance biases, which its header names.
  header=${hdr_at[$((keep - 1))]}
  grep -qF "$header" "$OUT/tune/policy.yaml" ||
    fail "the chain's policy's header does not name the corrected tolerances '$header': $(grep -m1 -o '+ tolerance [^;]*' "$OUT/tune/policy.yaml")"
  want=${wtol_at[$((keep - 1))]}
  if [[ -n $want ]]; then
    grep -qxF "# tune: Tolerance per workload (--tolerance WORKLOAD:NODE=T, winning over the above): $want." "$OUT/tune/policy.yaml" ||
      fail "the chain's policy's header does not name each constraint's tolerance '$want': $(grep -F 'Tolerance per workload' "$OUT/tune/policy.yaml")"
  fi
  want=${lm_at[$((keep - 1))]:-}
  if [[ -n $want ]]; then
    grep -qxF "# tune: °C·s counted from limit - $want °C on this model (--limit-margin: the device's measured excess near the limit plus a margin)." "$OUT/tune/policy.yaml" ||
      fail "the chain's policy's header does not name the limit margin $want: $(grep -F '°C·s counted' "$OUT/tune/policy.yaml")"
  fi
  want=${pbw_at[$((keep - 1))]}
  if [[ -n $want ]]; then
    grep -qxF "# tune: Performance bias (device - model, --performance-bias): $want." "$OUT/tune/policy.yaml" ||
      fail "the chain's policy's header does not name the performance biases '$want': $(grep -F 'Performance bias' "$OUT/tune/policy.yaml")"
  fi
fi
# The tuned policy's rows of compare on the true model: column 3 is max skin.
rows=$(awk '$2 == "policy" && NF > 4' "$OUT/compare/compare.out" | wc -l)
((rows == 3)) || fail "expected 3 rows of the tuned policy in compare's table, got $rows"
while read -r scenario skin; do
  at_most "$skin" "$(awk -v l="$limit" 'BEGIN { print l + 0.5 }')" ||
    fail "tuned policy: max skin $skin °C on $scenario over the limit $limit + 0.5 (true model)"
done < <(awk '$2 == "policy" && NF > 4 { print $1, $3 }' "$OUT/compare/compare.out")

# --no-device-check: the first tune's policy is the chain's, no check runs.
"$SRC/scripts/port-device.sh" --sim "$SIM" --no-device-check --time-budget 120 --global 24 --local 12 \
  --use "$W/gaming.csv" --suite "$W/gaming-hot.csv" \
  "$SRC/sim/data/models/tablet-10.yaml" "$SRC/sim/data/skeletons/tablet-10.skeleton.yaml" \
  "$SRC/sim/data/policies/tablet-10.yaml" "$TMP/nocheck" >/dev/null 2>"$TMP/nocheck.err" ||
  { cat "$TMP/nocheck.err"; fail "port-device.sh --no-device-check failed"; }
! grep -q "device check" "$TMP/nocheck/summary.txt" "$TMP/nocheck.err" || fail "--no-device-check: a device check ran"
[[ -z $(ls -A "$TMP/nocheck/check") && ! -e $TMP/nocheck/tune/policy-before-check.yaml ]] ||
  fail "--no-device-check: check/ or policy-before-check.yaml written"

# Exact errors of fit --recording.
REC=$OUT/rec/gaming.chrec
SKEL=$SRC/sim/data/skeletons/tablet-10.skeleton.yaml
expect_err() {  # expect_err "MESSAGE" ARGS...: exit 1 and MESSAGE on stderr
  local want=$1
  shift
  if "$SIM" fit -q "$@" -o "$TMP/x.yaml" >/dev/null 2>"$TMP/err"; then
    fail "fit $* succeeded; expected: $want"
  elif ! grep -qxF "$want" "$TMP/err"; then
    fail "fit $*: expected '$want', got '$(cat "$TMP/err")'"
  fi
}
sed 's/name: battery_therm,/name: battery_thrm,/' "$SKEL" >"$TMP/badsensor.yaml"
expect_err "coolhand-sim: fit: $REC: no sensor 'battery_thrm' of the skeleton in the recording (its physical sensors: front_skin_tc, back_skin_tc, cpu_therm, gpu_therm, modem_therm, charger_therm, skin_therm, battery_therm, backlight_brightness)" \
  -s "$TMP/badsensor.yaml" -r "$REC" --ambient 25
sed 's/- name: modem$/- name: wwan/' "$SKEL" >"$TMP/baddevice.yaml"
expect_err "coolhand-sim: fit: $REC: no device 'wwan' of the skeleton in the recording (its devices: cpu, gpu, modem, backlight, charger)" \
  -s "$TMP/baddevice.yaml" -r "$REC" --ambient 25
expect_err "coolhand-sim: fit: $REC: a recording has no ambient: give --ambient C, --ambient-sensor NAME or a --demand workload with an ambient_c column" \
  -s "$SKEL" -r "$REC"
expect_err "coolhand-sim: fit: $REC: --ambient-sensor 'air': no physical sensor of that name in the recording (its physical sensors: front_skin_tc, back_skin_tc, cpu_therm, gpu_therm, modem_therm, charger_therm, skin_therm, battery_therm, backlight_brightness)" \
  -s "$SKEL" -r "$REC" --ambient-sensor air
expect_err "coolhand-sim: fit: give one --demand per --recording, in the same order (2 recording(s), 1 workload(s))" \
  -s "$SKEL" -r "$REC" -r "$REC" --demand "$W/gaming.csv"
expect_err "coolhand-sim: fit: give --data CSV or --recording FILE" -s "$SKEL"
head -c 100 "$REC" >"$TMP/cut.chrec"
hs=$(od -An -tu4 -j12 -N4 "$REC" | tr -d ' ')  # the header's size (u32 at byte 12)
expect_err "coolhand-sim: fit: $TMP/cut.chrec: byte 12: header size $hs is outside [72, 100] (the file's size)" \
  -s "$SKEL" -r "$TMP/cut.chrec" --ambient 25
"$SIM" fit -q -s "$SKEL" -r "$REC" --ambient 25 --max-iterations 1 -o "$TMP/x.yaml" >/dev/null 2>"$TMP/warn"
grep -qxF "coolhand-sim: $REC: warning: no --demand workload: every device's demand taken as 1, so power_w is the device's mean power at each level in this use" "$TMP/warn" ||
  fail "no warning for a recording without --demand: $(cat "$TMP/warn")"
"$SIM" run -m "$OUT/lab/model.yaml" -g none -w "$W/gaming.csv" --record "$TMP/x.chrec" -o "$TMP/g" 2>"$TMP/err" >/dev/null &&
  fail "run --record with a governor succeeded"
grep -qxF "coolhand-sim: --record needs a policy: a governor runs no coolhandd loop" "$TMP/err" ||
  fail "run --record -g: $(cat "$TMP/err")"
# The script refuses a noise-seed count tune would refuse, before any run.
if "$SRC/scripts/port-device.sh" --sim "$SIM" --noise-seeds 0 "$SRC/sim/data/models/tablet-10.yaml" "$SKEL" \
  "$SRC/sim/data/policies/tablet-10.yaml" "$TMP/ns0" >/dev/null 2>"$TMP/err"; then
  fail "port-device.sh --noise-seeds 0 succeeded"
elif ! grep -qxF "port-device: --noise-seeds '0': expected a count >= 1" "$TMP/err"; then
  fail "port-device.sh --noise-seeds 0: $(cat "$TMP/err")"
fi

if "$SRC/scripts/port-device.sh" --sim "$SIM" --tolerance -1 "$SRC/sim/data/models/tablet-10.yaml" "$SKEL" \
  "$SRC/sim/data/policies/tablet-10.yaml" "$TMP/tolneg" >/dev/null 2>"$TMP/err"; then
  fail "port-device.sh --tolerance -1 succeeded"
elif ! grep -qxF "port-device: --tolerance '-1': expected °C >= 0 or NODE=°C" "$TMP/err"; then
  fail "port-device.sh --tolerance -1: $(cat "$TMP/err")"
fi

if "$SRC/scripts/port-device.sh" --sim "$SIM" --tolerance side_skin=0.2 "$SRC/sim/data/models/tablet-10.yaml" "$SKEL" \
  "$SRC/sim/data/policies/tablet-10.yaml" "$TMP/tolnode" >/dev/null 2>"$TMP/err"; then
  fail "port-device.sh --tolerance side_skin=0.2 succeeded"
elif ! grep -qxF "port-device: --tolerance 'side_skin=0.2': no skin node 'side_skin' in $SRC/sim/data/models/tablet-10.yaml (its skin nodes: front_skin back_skin)" "$TMP/err"; then
  fail "port-device.sh --tolerance side_skin=0.2: $(cat "$TMP/err")"
fi

((fails == 0)) || { echo "$fails check(s) failed"; exit 1; }
echo "port chain: all checks passed"
