#!/usr/bin/env bash
# scripts/port-device.sh: port a coolhand policy to a device with the
# simulator, from recordings to a tuned and checked policy (issue 13; docs:
# docs/simulator.md, "The port chain"):
#   1. record: the device's policy runs on the true MODEL (with a lab's
#      thermocouple on each skin node, configured as policy sensors) over
#      the 10-minute excitation workload and ordinary use; each run is
#      written as a coolhandd flight recording (`run --record`);
#   2. fit: SKELETON fitted to the recordings (`fit --recording`, each with
#      the workload that ran as --demand), the thermocouples as reference
#      skin channels; checked on a trace of a workload the fit never saw;
#   3. estimator: the virtual skin sensors (fir) fitted on the FITTED
#      model's simulated traces (the excitation and ordinary use) and pasted
#      into the policy (front_skin -> front_fir, back_skin -> back_fir, when
#      the policy has them), a brightness sensor of the policy ({kind:
#      backlight, name: DEVICE}) among their inputs as `fit --brightness`;
#   4. tune: the policy tuned against the FITTED model over the suite
#      (every bundled workload: hot-ambient, hot-car, gaming-hot and
#      gaming-charging among them) less the workloads whose bound on the
#      fitted model says no schedule holds the limit, with the policy's
#      tune: block or, when it has none, the two PIDs' setpoints and gains,
#      each skin node within a tolerance of its own that leaves room for
#      the fit's error on that cover;
#      the kernel baselines it must beat run on the true MODEL (the device:
#      their runs are measurements a vendor makes, as the recordings are);
#   5. device check (constraint-bias modifier adaptation, Marchetti,
#      Chachuat and Bonvin, Ind. Eng. Chem. Res. 48 (2009) 6022-6033): the
#      tuned policy runs on the TRUE model (a thermal-chamber check with the
#      lab thermocouples) and on the fitted one over the tune's suite
#      (`coolhand-sim port check`: every run on every core); each
#      cover's bias, the largest (device peak - fitted peak) where that
#      cover's peak is within 0.5 °C of its allowance, sets its tolerance
#      to 0.5 - bias - 0.03 (at least 0), and each such constraint
#      (workload, cover) its own from its own bias (tune --tolerance
#      WORKLOAD:NODE=T); the limit's bias, the same over
#      every peak within 0.5 °C of the limit, has the re-tunes count the
#      fitted model's °C·s from the limit - (bias + 0.03) (tune
#      --limit-margin); the device's peaks are its worst over the tune's
#      noise seeds and 12 more (1001-1012), the fitted model's over the
#      tune's; each workload's performance
#      bias, device - fitted of its worst seed's performance, the lowest
#      measured in any round (a positive one less 0.0001, at least 0), is
#      given to the re-tunes (tune --performance-bias), which judge that
#      workload's baseline target on fitted performance + bias; tune runs again from the tuned policy
#      (a local stage, its first step 1/32 of each range);
#      at most 2 re-tunes, until no cover's, constraint's or the limit's bias rises by > 0.02 °C and no
#      workload's performance bias falls by > 0.0002; the chain's policy
#      is the last checked one whose device peaks hold the limit + 0.5;
#   6. compare: the tuned policy on the TRUE model against the policy as
#      ported and every kernel governor, with the performance bound.
# Usage: scripts/port-device.sh [options] MODEL SKELETON POLICY OUTDIR
#   --sim PATH          coolhand-sim (default: build/sim/coolhand-sim, else on PATH)
#   --time-budget S     the tunes' time budget in seconds (default 240;
#                       with the device check: the first tune 1/2 of it,
#                       each re-tune 1/4)
#   --use W.csv         an ordinary-use workload to record (repeatable;
#                       default gaming, gaming-hot, gaming-charging, video;
#                       adding hot-car lets the fit identify the charger's
#                       and backlight's throttled levels, but moved the
#                       tablet's and UMPC's tunes to worse policies:
#                       docs/results.md, "gaming-7: the chain's margin")
#   --validate W.csv    the unseen workload the fit is checked on (default navigation)
#   --suite W.csv       a tune/compare workload (repeatable; default every bundled one)
#   --excitation W.csv  the excitation workload (default workloads/excitation/excitation.csv)
#   --global G --local L  tune's stage sizes (default: tune's; the
#                       device check's re-tunes take --local L too)
#   --noise-seeds K     tune each candidate on sensor-noise seeds 1..K and
#                       count its worst run (default 4: on one seed the tuned
#                       policies rode the tolerance's edge and missed it on
#                       other seeds; docs/results.md, "Other devices")
#   --tolerance T | NODE=T
#                       °C over the limit tune allows the candidates' skin
#                       on the FITTED model, each skin node's peak against
#                       its own (repeatable; T: every node's, NODE=T: that
#                       skin node's, winning over T; default per node:
#                       compare's 0.5 less the fit's error on that cover,
#                       0.5 - 2 x its thermocouple's (NODE_tc) held-out
#                       rms, at least 0; compare judges the hottest node
#                       with 0.5 on the true model either way)
#   --no-device-check   leave out step 5: the first tune's policy, with the
#                       held-out-rms tolerances, is the chain's
#   -h, --help
# Writes OUTDIR/{lab,rec,fit,est,tune,check,compare}/ and OUTDIR/summary.txt;
# OUTDIR/tune/policy.yaml is the chain's policy (with the device check, the
# last checked one whose device peaks hold the limit + 0.5 °C, else the
# last re-tune's; the first tune's is OUTDIR/tune/policy-before-check.yaml;
# each round's peaks.txt, performance.txt and re-tune under
# OUTDIR/check/rN/).
# Progress on stderr; any step that fails stops the script with its message.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "port-device: $*" >&2; exit 1; }
say() { echo "port-device: $*" >&2; }

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SIM=""
BUDGET=240
USE=()
SUITE=()
VALIDATE=""
EXCITATION=""
GLOBAL_ARGS=()
LOCAL_ARGS=()
DEVCHECK=1
NOISE_SEEDS=4
TOLERANCES=()
ARGS=()
while (($#)); do
  case $1 in
  -h | --help) usage; exit 0 ;;
  --sim) SIM=${2:?--sim needs a path}; shift 2 ;;
  --time-budget) BUDGET=${2:?--time-budget needs seconds}; shift 2 ;;
  --use) USE+=("${2:?--use needs a workload}"); shift 2 ;;
  --suite) SUITE+=("${2:?--suite needs a workload}"); shift 2 ;;
  --validate) VALIDATE=${2:?--validate needs a workload}; shift 2 ;;
  --excitation) EXCITATION=${2:?--excitation needs a workload}; shift 2 ;;
  --noise-seeds) NOISE_SEEDS=${2:?--noise-seeds needs a count}; shift 2 ;;
  --tolerance) TOLERANCES+=("${2:?--tolerance needs °C or NODE=°C}"); shift 2 ;;
  --global) GLOBAL_ARGS=("$1" "${2:?$1 needs a number}"); shift 2 ;;
  --local) LOCAL_ARGS=("$1" "${2:?$1 needs a number}"); shift 2 ;;
  --no-device-check) DEVCHECK=0; shift ;;
  --) shift; ARGS+=("$@"); break ;;
  -*) die "unknown option '$1' (see --help)" ;;
  *) ARGS+=("$1"); shift ;;
  esac
done
((${#ARGS[@]} == 4)) || { usage >&2; die "expected MODEL SKELETON POLICY OUTDIR, got ${#ARGS[@]} argument(s)"; }
MODEL=${ARGS[0]} SKEL=${ARGS[1]} POLICY=${ARGS[2]} OUT=${ARGS[3]}
for f in "$MODEL" "$SKEL" "$POLICY"; do [[ -r $f ]] || die "$f: cannot read"; done
[[ $BUDGET =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--time-budget '$BUDGET': expected seconds"
[[ $NOISE_SEEDS =~ ^[1-9][0-9]*$ ]] || die "--noise-seeds '$NOISE_SEEDS': expected a count >= 1"
plain=""  # --tolerance T: every node's
for t in "${TOLERANCES[@]}"; do
  [[ $t =~ ^([A-Za-z_][A-Za-z0-9_]*=)?[0-9]+([.][0-9]+)?$ ]] || die "--tolerance '$t': expected °C >= 0 or NODE=°C"
  [[ $t == *=* ]] && continue
  [[ -z $plain ]] || die "--tolerance '$t': every node's tolerance given twice"
  plain=$t
done
if [[ -z $SIM ]]; then
  if [[ -x $ROOT/build/sim/coolhand-sim ]]; then SIM=$ROOT/build/sim/coolhand-sim
  else SIM=$(command -v coolhand-sim) || die "no coolhand-sim (build it or give --sim)"; fi
fi
[[ -x $SIM ]] || die "--sim $SIM: not executable"
W=$ROOT/sim/data/workloads
[[ -n $EXCITATION ]] || EXCITATION=$W/excitation/excitation.csv
((${#USE[@]})) || USE=("$W/gaming.csv" "$W/gaming-hot.csv" "$W/gaming-charging.csv" "$W/video.csv")
[[ -n $VALIDATE ]] || VALIDATE=$W/navigation.csv
if ((${#SUITE[@]} == 0)); then
  for f in "$W"/*.csv; do SUITE+=("$f"); done
fi
for f in "$EXCITATION" "${USE[@]}" "$VALIDATE" "${SUITE[@]}"; do [[ -r $f ]] || die "$f: cannot read"; done
mkdir -p "$OUT"/{lab,rec,fit,est,tune,check,compare}
started=$SECONDS

# What the chain needs of MODEL and POLICY, read by their own parsers
# (`coolhand-sim port inspect`: one fact a line).
FACTS=$("$SIM" port inspect -m "$MODEL" -p "$POLICY") || die "cannot read $MODEL and $POLICY (see above)"
fact() { sed -n "s/^$1 //p" <<<"$FACTS"; }
SKIN_NODES=$(fact skin_nodes)
[[ -n $SKIN_NODES ]] || die "$MODEL: no skin nodes"
for t in "${TOLERANCES[@]}"; do
  [[ $t != *=* || " $SKIN_NODES " == *" ${t%%=*} "* ]] ||
    die "--tolerance '$t': no skin node '${t%%=*}' in $MODEL (its skin nodes: $SKIN_NODES)"
done

# --- 0. The lab setup (`coolhand-sim port lab`): a thermocouple on each
# skin node, as a sensor of the model and of the policy (which reads but
# never acts on it), so that the recording carries a reference skin
# channel; its event windows at 0.1 °C everywhere, so every sensor reports
# each 0.1 °C it moves. The copies are MODEL and POLICY edited in place.
# The lab policy also steps each device's levels during the excitation
# (profiles excite-N, switched as coolhandctl would: OUT/lab/excitation.args),
# so the fit sees every level's heat, not only the levels the policy uses at
# 25 °C (docs/simulator.md, "Learning a device").
"$SIM" port lab -m "$MODEL" -p "$POLICY" -o "$OUT/lab" --excitation "$EXCITATION" >/dev/null ||
  die "cannot make the lab copies"
mapfile -t excite_args <"$OUT/lab/excitation.args"

# --- 1. Recordings from the true model.
say "1/6 recording $(( ${#USE[@]} + 1 )) workload(s) on the true model $(basename "$MODEL")"
fit_args=()
for wl in "$EXCITATION" "${USE[@]}"; do
  name=$(basename "$wl" .csv)
  steps=()
  [[ $wl == "$EXCITATION" ]] && steps=("${excite_args[@]}")
  "$SIM" run -m "$OUT/lab/model.yaml" -p "$OUT/lab/policy.yaml" -w "$wl" --no-trace \
    "${steps[@]}" -o "$OUT/rec/$name" --record "$OUT/rec/$name.chrec" >"$OUT/rec/$name.out" ||
    die "run --record on $name failed (see above)"
  fit_args+=(-r "$OUT/rec/$name.chrec" --demand "$wl")
done
"$SIM" replay -r "$OUT/rec/$(basename "$EXCITATION" .csv).chrec" -o "$OUT/rec/replay" >"$OUT/rec/replay.out" ||
  die "the excitation recording does not replay exactly"
val=$(basename "$VALIDATE" .csv)
"$SIM" run -m "$OUT/lab/model.yaml" -p "$OUT/lab/policy.yaml" -w "$VALIDATE" -o "$OUT/rec/validate-$val" \
  >/dev/null || die "the validation run failed"

# --- 2. The fit.
say "2/6 fitting $(basename "$SKEL") to the recordings"
refs=()
for n in $SKIN_NODES; do refs+=(--reference-skin "${n}_tc=$n"); done
"$SIM" fit -s "$SKEL" "${fit_args[@]}" "${refs[@]}" --skin-out /dev/null \
  -o "$OUT/fit/model.yaml" --validate "$OUT/rec/validate-$val/trace.csv" \
  >"$OUT/fit/fit.out" 2>"$OUT/fit/fit.err" || { cat "$OUT/fit/fit.err" >&2; die "fit failed"; }
grep -v 'iteration' "$OUT/fit/fit.err" >&2 || true
# tune's tolerance on the fitted model, per skin node: compare's 0.5 °C on
# the true model less the fitted model's error on that cover, as the fit
# measured it on the part of the recordings it did not fit (the cover's
# thermocouple's held-out rms; 2 x: the peak is one sample of that error,
# and hot workloads drive the model beyond the recordings, to levels the
# fit names as not identifiable). Tuned with compare's 0.5 on the fitted
# model, the chain's policy sits at the tolerance there and crosses it on
# the device (gaming-7's hot-car, 45.51 °C; docs/simulator.md, "The port
# chain"). Per cover, because the covers' errors differ (umpc-8-intel:
# front glass 0.205 °C, back 0.092) and tune judges each node's peak
# against its own: one margin from the worst cover held the back, which
# peaks, 0.23 °C tighter than its own error asks (docs/results.md).
declare -A tol=()
for n in $SKIN_NODES; do
  if [[ -n $plain ]]; then tol[$n]=$plain; continue; fi
  rms=$(awk -v s="${n}_tc" '$1 == "held-out" && $2 == s { for (i = 3; i < NF; ++i) if ($i == "rms") { print $(i + 1); exit } }' "$OUT/fit/fit.out")
  [[ -n $rms ]] || die "fit printed no held-out error for ${n}_tc, $n's thermocouple"
  tol[$n]=$(awk -v e="$rms" 'BEGIN { t = 0.5 - 2 * e; printf "%.3f", (t > 0 ? t : 0) }')
  [[ ${tol[$n]} =~ ^[0-9]+[.][0-9]+$ ]] || die "cannot derive $n's tolerance from the held-out rms '$rms'"
  say "  tune's tolerance on $n ${tol[$n]} °C: 0.5 - 2 x ${rms} °C (${n}_tc's held-out rms)"
done
for t in "${TOLERANCES[@]}"; do
  if [[ $t == *=* ]]; then tol[${t%%=*}]=${t#*=}; fi
done
tol_args=()
TOLERANCE=""  # for the messages: "front_skin 0.090 °C, back_skin 0.316 °C"
for n in $SKIN_NODES; do
  tol_args+=(--tolerance "$n=${tol[$n]}")
  TOLERANCE+="${TOLERANCE:+, }$n ${tol[$n]} °C"
done

# --- 3. The virtual skin sensors, fitted on the fitted model's traces.
say "3/6 fitting the skin estimators on the fitted model's traces"
est_args=()
# The excitation too: it moves each device (the backlight among them) on
# its own, without which a brightness input's taps are barely determined.
declare -A est_seen=()
for wl in "$EXCITATION" "${USE[@]}" "$W/hot-car.csv" "$W/hot-start.csv" "$W/web.csv"; do
  name=$(basename "$wl" .csv)
  [[ -z ${est_seen[$name]:-} ]] || continue  # e.g. --use hot-car
  est_seen[$name]=1
  "$SIM" run -m "$OUT/fit/model.yaml" -w "$wl" -g step_wise -o "$OUT/est/$name" >/dev/null ||
    die "the fitted model does not run $name"
  est_args+=(-d "$OUT/est/$name/trace.csv")
done
skin_refs=()
for n in $SKIN_NODES; do skin_refs+=(--reference-skin "${n}_c"); done
# The policy's brightness sensors ({kind: backlight, name: DEVICE}), which
# its estimators may take as inputs: each is the model device's brightness.
brightness=()
while read -r b; do [[ -n $b ]] && brightness+=(--brightness "$b"); done < <(fact brightness)
# The estimators' inputs: the policy's front_fir's, else the reference's.
skin_inputs=$(fact fir | sed -n 's/^front_fir //p')
[[ -n $skin_inputs ]] || skin_inputs=skin_therm,battery_therm,charger_therm,modem_therm
# The policy's ema sensors among those inputs ({kind: ema, input: SENSOR,
# time_constant: T}), as `fit --ema NAME=SENSOR:SECONDS`: the fit computes
# them from their input's trace as the engine would.
emas=()
while read -r e; do
  [[ ",$skin_inputs," == *",${e%%=*},"* ]] && emas+=(--ema "$e")
done < <(fact ema)
"$SIM" fit -q --skin-only -s "$OUT/fit/model.yaml" "${est_args[@]}" "${skin_refs[@]}" --step 2 \
  --skin-inputs "$skin_inputs" "${brightness[@]}" "${emas[@]}" --skin-out "$OUT/est/skin.yaml" \
  --validate "$OUT/rec/validate-$val/trace.csv" \
  >"$OUT/est/fit.out" || die "the skin estimator fit failed"
# Each skin node's estimator (<node>_fir) in place of the policy's sensor
# (<node less _skin>_fir: front_skin -> front_fir), edited in place.
pastes=()
for n in $SKIN_NODES; do pastes+=(--sensor "${n%_skin}_fir=${n}_fir"); done
"$SIM" port paste -p "$POLICY" -e "$OUT/est/skin.yaml" "${pastes[@]}" -o "$OUT/tune/start.yaml" \
  >/dev/null || die "cannot paste the estimators"

# --- 4. Tune against the fitted model.
say "4/6 tuning against the fitted model (budget ${BUDGET} s, noise seeds 1..$NOISE_SEEDS, tolerance $TOLERANCE)"
params=()
# (The paste changes no controller and no tune: block: POLICY's facts hold.)
has_controller() { grep -qxF "$1" < <(fact controller); }
if [[ $(fact tune_block) != yes ]]; then
  for c in skin_pid_cpu skin_pid_gpu; do
    has_controller $c || continue
    params+=(--param "controllers.$c.setpoint_c=-1..0")
  done
  has_controller skin_pid_cpu && params+=(--param controllers.skin_pid_cpu.kp=0.2..2 --param controllers.skin_pid_cpu.ki=0.001..0.03)
  has_controller skin_pid_gpu && params+=(--param controllers.skin_pid_gpu.kp=0.1..1.5 --param controllers.skin_pid_gpu.ki=0.0005..0.02)
  ((${#params[@]})) || die "$POLICY has no tune: block and no skin_pid_cpu/skin_pid_gpu to tune"
fi
# A workload on which no schedule holds the limit on the fitted model (its
# bound is infeasible: e.g. hot-car's 40 °C cabin) would make every
# candidate violate; it is tuned for but not held to the limit: left out of
# the tune's suite, kept in the comparison.
suite_args=()
tune_args=()
for wl in "${SUITE[@]}"; do
  suite_args+=(-w "$wl")
  if "$SIM" bound -q -m "$OUT/fit/model.yaml" -w "$wl" >>"$OUT/tune/bounds.out" 2>&1; then
    tune_args+=(-w "$wl")
  else
    say "  $(basename "$wl" .csv): no schedule holds the limit on the fitted model; not in the tune's suite"
  fi
done
((${#tune_args[@]})) || die "no workload of the suite can be held at the limit on the fitted model"
# The baselines' targets come from the device (MODEL), not the fitted model:
# compare judges there, and a governor that holds the limit on the fitted
# model by less than the fit's error (umpc-8-intel's bang_bang on
# navigation: 44.95 °C fitted, 45.94 °C true) sets a bar no policy meets
# there, which tune then trades against the targets that matter
# (docs/simulator.md, "The port chain").
# run_tune START DIR BUDGET STAGE_ARGS... : tune START into DIR with the
# current per-node tolerances (tol_args).
run_tune() {
  local start=$1 dir=$2 budget=$3
  shift 3
  "$SIM" tune -p "$start" -m "$OUT/fit/model.yaml" --baselines-model "$MODEL" \
    "${tune_args[@]}" "${params[@]}" \
    "$@" --noise-seeds "$NOISE_SEEDS" "${tol_args[@]}" --time-budget "$budget" -o "$dir" >"$dir/tune.out" ||
    die "tune failed"
  cat "$dir/tune.out" >&2
}
# With the device check, the first tune has 1/2 of the budget and each of
# the (at most 2) re-tunes 1/4, so the default chain stays within its time
# target (docs/benchmarks.md, "The port chain").
first_budget=$BUDGET
if ((DEVCHECK)); then first_budget=$(awk -v b="$BUDGET" 'BEGIN { printf "%.1f", b / 2 }'); fi
run_tune "$OUT/tune/start.yaml" "$OUT/tune" "$first_budget" "${GLOBAL_ARGS[@]}" "${LOCAL_ARGS[@]}"

# --- 5. The device check (constraint-bias modifier adaptation: Marchetti,
# Chachuat, Bonvin, "Modifier-adaptation methodology for real-time
# optimization", Ind. Eng. Chem. Res. 48 (2009) 6022-6033). The held-out
# rms of ordinary use is a poor guess of the fitted model's error at the
# peak, and its sign differs by device (gaming-7's front glass runs 0.18 °C
# hotter on the device than on the fitted model in hot-car's 40 °C cabin,
# umpc-8-intel's 0.45 °C cooler). So the tuned policy runs on the device
# (a thermal-chamber check with the lab thermocouples: the skin nodes'
# peaks, a measurement of the kind the recordings and the baselines' runs
# already are) and on the fitted model over the tune's suite, noise seeds
# 1..K, each cover's worst peak of each; the bias of a cover is the largest
# (device peak - fitted peak) over the workloads where the constraint
# matters: either peak within CLOSE of the cover's allowance (limit + its
# tolerance; the device's too, since a cover the fitted model puts well
# below it may reach it on the device: gaming-7's back on hot-car, 44.79
# fitted, 45.00 device). CLOSE is compare's 0.5 °C: within it the cover is
# what the policy regulates; further below, the peak is set by the
# workload, not the policy, and its error says little about the error at
# the limit. One
# number per cover, never per workload (the workloads a device meets are
# not the suite's). The bias kept is the largest measured in any round so
# far (the operating point moves when the policy changes; a cover measured
# hot near its allowance once stays corrected). The corrected tolerance is
# 0.5 - bias - MARGIN, at least 0 (above the held-out-rms tolerance where
# the fitted model runs hot); MARGIN covers what one round's check cannot
# see: the bias moving by up to SETTLE when the re-tune moves the policy,
# and a noise seed the check did not run (compare's seed 5 against seeds
# 1..4: at most +0.006 °C on the three devices; docs/results.md, "The
# device check"). Then tune again from the tuned policy (a local stage:
# --global 1), and check again; at most ROUNDS re-tunes, ending when no
# cover's kept bias rose by more than SETTLE.
#
# The performance targets get the same correction. The baselines' targets
# are device measurements (tune --baselines-model) but a candidate's
# performance is the fitted model's prediction, and a bias of 7e-6 (one 4 s
# CPU step of umpc-8-intel's on-off) made every candidate miss its target on
# the fitted model while the device met it. So per workload the check takes
# the worst (lowest) performance over the seeds on each model, its bias
# (device - fitted), keeps per workload the lowest measured in any round,
# and gives it to the re-tunes (tune --performance-bias), which judge the
# workload's baseline target and bound share on fitted performance + bias;
# a positive bias (the device did better on the check's seeds) less
# PMARGIN, never below 0: it lets the fitted model run below a target on
# the strength of seeds 1..K, and on a seed the check did not run the
# device can fall below their worst (tablet-10's navigation: 1.0000 on
# seeds 1-4, 0.999924 on compare's seed 5, below step_wise's 1.0000, with
# no margin; docs/results.md, "The device check"). A negative bias is
# used in full: it already moves the target the cautious way. Per workload, unlike the covers: the targets exist
# only per suite workload and are measured on the device on those same
# workloads. A kept bias that fell by more than PSETTLE (SETTLE's 0.02 °C at
# tune's exchange rate of 0.01 performance per °C; the first round: below
# -PSETTLE, against the 0 the first tune assumed) asks for a re-tune too.
#
# A re-tune searches the tuned policy's neighbourhood: COBYLA's first step
# RETUNE_STEP of each parameter's range (tune --local-step), not the
# quarter a first tune takes from its global stage's best. With a quarter,
# umpc-8-intel's re-tune never came closer to its start than the first
# step (264 of its 266 evaluations missed a target, the start the best);
# with 1/32 it moved (docs/results.md, "The device check").
#
# The chain's policy is the last checked one whose device peaks, every
# cover's worst over the seeds on every workload of the check, hold the
# limit + ALLOWED (compare's 0.5 °C): a re-tune that the check after it
# measured over that on the device is not shipped when an earlier checked
# policy held it (tablet-10: after 2 re-tunes, with the biases still
# moving, the last one's back cover reached 41.52 °C on gaming-hot on the
# device; docs/results.md, "The device check"). Where none holds it, the
# last re-tune's, as the summary says.
#
# The device's peaks are its worst over more noise seeds than the tune's:
# seeds 1..K, paired with the fitted model's, and EXTRA_SEEDS more on the
# device alone (EXTRA_SEED0 on, disjoint from 1..K and from the seeds
# docs/results.md judges compare with, 1-5, so that judgement stays out of
# sample). The tune counts a candidate's worst over 1..K, and a peak's
# spread over noise is not small beside the margins here: umpc-8-intel's
# chain policy put gaming-hot's back cover at 44.93-44.95 °C on the device
# over seeds 1-4, 45.003 on seed 5, and over 1001-1016 at 44.92-45.02 (4
# of 16 above the limit; docs/results.md, "The device check counts °C·s").
# So each bias is the device's worst over 1..K and the extra seeds less the
# fitted model's worst over 1..K: what the tune's statistic misses on the
# device, noise included. The performance biases keep seeds 1..K.
CLOSE=0.5 MARGIN=0.03 SETTLE=0.02 ROUNDS=2 PMARGIN=0.0001 PSETTLE=0.0002 RETUNE_STEP=0.03125 ALLOWED=0.5
EXTRA_SEEDS=12 EXTRA_SEED0=1001
declare -A round_holds=()
# pused B: the performance bias a re-tune is given for a kept bias B.
pused() { awk -v b="$1" -v m="$PMARGIN" 'BEGIN { u = b; if (b > 0) { u = b - m; if (u < 0) u = 0 }; printf "%.10f", u }'; }
declare -A bias=() pbias=() cbias=() ctol=()
lbias="" lmargin=""
summary_check=()
# check ROUND POLICY: the check's peaks into $OUT/check/rROUND/peaks.txt
# ("workload node fitted device", worst over the seeds), each cover's bias
# into bias[] (largest so far) and its tolerance into tol[]; the
# performances into performance.txt ("workload fitted device bias", worst
# over the seeds) and each workload's bias into pbias[] (lowest so far);
# the bias at the limit into lbias (largest so far) and the re-tunes'
# --limit-margin into lmargin; prints one line per cover, one for the
# limit and one for the performance biases; succeeds when a cover's or the
# limit's bias moved (new, or up by more than SETTLE) or a workload's
# performance bias fell by more than PSETTLE: the policy needs a re-tune.
check() {
  local r=$1 pol=$2 dir=$OUT/check/r$1 retune=1 line b w k out
  # The runs, each as `run --seed S --no-trace` makes it, on every core,
  # and their worst per seed set (`coolhand-sim port check`): peaks.txt,
  # performance.txt and the device's skin limit ("limit C").
  out=$("$SIM" port check -m "$MODEL" --fitted "$OUT/fit/model.yaml" -p "$pol" "${tune_args[@]}" \
    --noise-seeds "$NOISE_SEEDS" --extra-seeds "$EXTRA_SEEDS" --extra-seed0 "$EXTRA_SEED0" -o "$dir") ||
    die "device check: the policy's runs failed (see above)"
  local pline="" pw pb pold
  while read -r pw _ _ pb; do  # workload, fitted, device, bias
    pold=${pbias[$pw]:-0}
    if [[ -z ${pbias[$pw]:-} ]] || awk -v b="$pb" -v o="$pold" 'BEGIN { exit !(b < o) }'; then pbias[$pw]=$pb; fi
    awk -v b="${pbias[$pw]}" -v o="$pold" -v s="$PSETTLE" 'BEGIN { exit !(o - b > s) }' && retune=0
    pline+="${pline:+, }$pw $(printf "%+.6f" "$pb")"
  done <"$dir/performance.txt"
  local limit
  limit=$(sed -n 's/^limit //p' <<<"$out")
  [[ -n $limit ]] || die "device check: port check printed no limit"
  round_holds[$r]=0
  awk -v a="$(awk -v l="$limit" -v x="$ALLOWED" 'BEGIN { print l + x }')" '$4 > a { over = 1 } END { exit over }' \
    "$dir/peaks.txt" && round_holds[$r]=1
  # Each constraint's own bias (a constraint-bias modifier per constraint,
  # as Marchetti et al. have them): every (workload, cover) whose peak on
  # either model is within CLOSE of its allowance this round (limit + its
  # own tolerance, else its cover's) keeps the largest (device - fitted)
  # measured on it in any round, and its own tolerance 0.5 - that - MARGIN
  # (at least 0), which the re-tunes get as WORKLOAD:NODE=T. A cover's
  # bias below (the largest over its close workloads) stays every other
  # workload's; on its own constraints the measured bias is used, so one
  # workload where the device runs hotter (umpc-8-intel's gaming-hot back,
  # +0.066 °C) no longer takes 0.07 °C from another where the fitted model
  # runs hotter (its hot-car back, -0.050 °C), which no candidate then met
  # on the fitted model while the device held it (docs/results.md). A
  # constraint whose kept bias rose by more than SETTLE asks for a re-tune;
  # one measured for the first time does not (it had its cover's, at
  # least as large).
  local key cold cline="" allow
  while read -r w n b; do
    key=$w:$n cold=${cbias[$key]:-}
    if [[ -z $cold ]] || awk -v b="$b" -v o="$cold" 'BEGIN { exit !(b > o) }'; then cbias[$key]=$b; fi
    [[ -n $cold ]] && awk -v b="${cbias[$key]}" -v o="$cold" -v s="$SETTLE" 'BEGIN { exit !(b - o > s) }' && retune=0
    ctol[$key]=$(awk -v b="${cbias[$key]}" -v m="$MARGIN" 'BEGIN { t = 0.5 - b - m; printf "%.3f", (t > 0 ? t : 0) }')
    cline+="${cline:+, }$w $n $(printf '%+.3f' "$b") -> ${ctol[$key]}"
  done < <(while read -r w n f d; do
      allow=$(awk -v l="$limit" -v t="${ctol[$w:$n]:-${tol[$n]}}" 'BEGIN { print l + t }')
      awk -v w="$w" -v n="$n" -v f="$f" -v d="$d" -v a="$allow" -v c="$CLOSE" \
        'BEGIN { if (f >= a - c || d >= a - c) printf "%s %s %.4f\n", w, n, d - f }'
    done <"$dir/peaks.txt")
  line="device check $r: each constraint within $CLOSE °C of its allowance, its bias -> its own tolerance: ${cline:-none}"
  say "  $line"
  summary_check+=("$line")
  for n in $SKIN_NODES; do
    # The largest bias over the workloads close to n's allowance, and where.
    line=$(awk -v n="$n" -v a="$(awk -v l="$limit" -v t="${tol[$n]}" 'BEGIN { print l + t }')" -v c="$CLOSE" '
      $2 == n && ($3 >= a - c || $4 >= a - c) { ++k; b = $4 - $3; if (k == 1 || b > best) { best = b; w = $1 } }
      END { if (k) printf "%.4f %s %d\n", best, w, k }' "$dir/peaks.txt")
    local old=${bias[$n]:-} was=${tol[$n]} msg
    if [[ -z $line ]]; then
      msg="no workload within $CLOSE °C of its allowance"
    else
      read -r b w k <<<"$line"
      msg=$(printf "bias %+.3f °C (%s; %d workload(s) within %s °C of its allowance)" "$b" "$w" "$k" "$CLOSE")
      if [[ -z $old ]] || awk -v b="$b" -v o="$old" 'BEGIN { exit !(b > o) }'; then bias[$n]=$b; fi
    fi
    if [[ -n ${bias[$n]:-} ]]; then
      awk -v b="${bias[$n]}" -v o="${old:-x}" -v s="$SETTLE" 'BEGIN { exit !(o == "x" || b - o > s) }' && retune=0
      tol[$n]=$(awk -v b="${bias[$n]}" -v m="$MARGIN" 'BEGIN { t = 0.5 - b - m; printf "%.3f", (t > 0 ? t : 0) }')
      line=$(printf "device check %d: %s %s; kept bias %+.3f °C, tolerance %s -> %s °C" "$r" "$n" "$msg" "${bias[$n]}" "$was" "${tol[$n]}")
    else
      line="device check $r: $n $msg; tolerance $was °C kept"
    fi
    say "  $line"
    summary_check+=("$line")
  done
  # The °C·s targets: the same correction at the limit itself. The bias
  # is the largest (device - fitted) peak over every (workload, cover)
  # where either peak is within CLOSE of the limit, the largest over the
  # rounds; the re-tunes count the fitted model's °C·s from limit - (bias
  # + MARGIN) (tune --limit-margin).
  line=$(awk -v l="$limit" -v c="$CLOSE" '
    $3 >= l - c || $4 >= l - c { ++k; b = $4 - $3; if (k == 1 || b > best) { best = b; w = $1 " " $2 } }
    END { if (k) printf "%.4f %s %d\n", best, w, k }' "$dir/peaks.txt")
  local lold=${lbias:-} lw ln
  if [[ -n $line ]]; then
    read -r b lw ln k <<<"$line"
    if [[ -z $lold ]] || awk -v b="$b" -v o="$lold" 'BEGIN { exit !(b > o) }'; then lbias=$b; fi
    msg=$(printf "bias %+.3f °C (%s %s; %d peak(s) within %s °C of the limit)" "$b" "$lw" "$ln" "$k" "$CLOSE")
  else
    msg="no peak within $CLOSE °C of the limit"
  fi
  if [[ -n ${lbias:-} ]]; then
    awk -v b="$lbias" -v o="${lold:-x}" -v s="$SETTLE" 'BEGIN { exit !(o == "x" || b - o > s) }' && retune=0
    lmargin=$(awk -v b="$lbias" -v m="$MARGIN" 'BEGIN { printf "%.3f", b + m }')
    line=$(printf "device check %d: the limit (°C·s) %s; kept bias %+.3f °C, °C·s counted from the limit - %s °C" "$r" "$msg" "$lbias" "$lmargin")
  else
    line="device check $r: the limit (°C·s) $msg; °C·s counted from the limit itself"
  fi
  say "  $line"
  summary_check+=("$line")
  line="device check $r: performance bias (device - fitted, each's worst seed): $pline"
  say "  $line"
  summary_check+=("$line")
  line="device check $r: kept performance bias (lowest so far; a positive one less $PMARGIN, at least 0):"
  for pw in $(printf '%s\n' "${!pbias[@]}" | sort); do
    line+=" $pw $(awk -v b="$(pused "${pbias[$pw]}")" 'BEGIN { printf "%+.6f", b }')"
  done
  say "  $line"
  summary_check+=("$line")
  # 0 (success: re-tune) when a cover's kept bias is new or rose by more
  # than SETTLE, or a workload's kept performance bias fell by more than
  # PSETTLE, else 1.
  return $retune
}
retunes=0
if ((DEVCHECK)); then
  say "5/6 checking the tuned policy on the device (noise seeds 1..$NOISE_SEEDS, margin $MARGIN °C, at most $ROUNDS re-tune(s))"
  cp "$OUT/tune/policy.yaml" "$OUT/tune/policy-before-check.yaml"
  pol=$OUT/tune/policy-before-check.yaml
  retune_budget=$(awk -v b="$BUDGET" -v r="$ROUNDS" 'BEGIN { printf "%.1f", b / 2 / r }')
  r=1 settled=1
  while check $r "$pol"; do
    if ((retunes == ROUNDS)); then
      settled=0
      summary_check+=("device check: biases still moving after $ROUNDS re-tune(s)")
      break
    fi
    tol_args=()
    for n in $SKIN_NODES; do tol_args+=(--tolerance "$n=${tol[$n]}"); done
    for key in $(printf '%s\n' "${!ctol[@]}" | sort); do tol_args+=(--tolerance "$key=${ctol[$key]}"); done
    for pw in "${!pbias[@]}"; do
      tol_args+=(--performance-bias "$pw=$(pused "${pbias[$pw]}")")
    done
    [[ -z $lmargin ]] || tol_args+=(--limit-margin "$lmargin")
    mkdir -p "$OUT/check/r$r/tune"
    say "  re-tuning from the round's policy (budget $retune_budget s, tolerance ${tol_args[*]})"
    run_tune "$pol" "$OUT/check/r$r/tune" "$retune_budget" --global 1 --local-step "$RETUNE_STEP" "${LOCAL_ARGS[@]}"
    pol=$OUT/check/r$r/tune/policy.yaml
    retunes=$((retunes + 1))
    r=$((r + 1))
  done
  if ((settled)); then
    if ((retunes)); then summary_check+=("device check: biases settled after $retunes re-tune(s)")
    else summary_check+=("device check: no cover within $CLOSE °C of its allowance and no performance bias below -$PSETTLE: no re-tune"); fi
  fi
  say "  ${summary_check[-1]}"
  # The last checked round whose device peaks hold the limit + ALLOWED
  # (round k checked the first tune's policy for k = 1, re-tune k-1's
  # after); none: the last.
  keep=$r
  for ((k = r; k >= 1; --k)); do
    if ((round_holds[$k])); then keep=$k; break; fi
  done
  pol=$OUT/tune/policy-before-check.yaml
  ((keep == 1)) || pol=$OUT/check/r$((keep - 1))/tune/policy.yaml
  cp "$pol" "$OUT/tune/policy.yaml"
  if ((round_holds[$keep])); then
    why="the last checked one whose device peaks hold the limit + $ALLOWED °C (check $keep)"
  else
    why="no checked one's device peaks hold the limit + $ALLOWED °C: the last"
  fi
  summary_check+=("the chain's policy: $( ((keep > 1)) && echo "round $((keep - 1))'s re-tune" || echo "the first tune's"), $why (OUT/tune/policy.yaml; the first tune's: policy-before-check.yaml)")
  say "  ${summary_check[-1]}"
fi

# --- 6. The tuned policy on the true model, against every governor.
say "6/6 comparing on the true model $(basename "$MODEL")"
"$SIM" compare -m "$MODEL" "${suite_args[@]}" -p "$OUT/tune/policy.yaml" -p "$POLICY" \
  -g step_wise -g bang_bang -g fair_share -g power_allocator -g none --bound \
  --markdown "$OUT/compare/compare.md" -o "$OUT/compare" >"$OUT/compare/compare.out" ||
  die "compare failed"

{
  echo "port chain: $MODEL / $SKEL / $POLICY"
  echo "fit (held-out part of each recording, and the unseen $val):"
  grep -E '^  (held-out|skin node|node  )' "$OUT/fit/fit.out" || true
  echo "skin estimators (fitted model's traces; on $val of the true model):"
  grep -E '^  estimator' "$OUT/est/fit.out" || true
  echo "tune's tolerance on the fitted model: $TOLERANCE"
  if ((DEVCHECK)); then
    echo "device check (margin $MARGIN °C, close: within $CLOSE °C of the allowance, settled: no bias up > $SETTLE °C):"
    printf '  %s\n' "${summary_check[@]}"
  fi
  echo "compare on the true model:"
  cat "$OUT/compare/compare.out"
  echo "chain wall time: $((SECONDS - started)) s"
} >"$OUT/summary.txt"
cat "$OUT/summary.txt"
