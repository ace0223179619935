#!/usr/bin/env bash
# The port chain's excitation level steps on the command line (issue 13):
# `port lab --excitation` writes the lab policy's excite-N profiles and
# their switches as `run` arguments; a recorded run with those switches
# replays exactly (the switches are in the recording as coolhandctl's
# would be); the backlight takes each of its levels in such a run;
# `run --profile-at` refuses what it cannot use. Exact messages.
# Usage: excitation_cli_test.sh <coolhand-sim> <source dir>
set -euo pipefail

sim="$1"
src="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

# shellcheck source=expect.sh
. "$(dirname "$0")/expect.sh"

model="$src/sim/data/models/gaming-7.yaml"
policy="$src/sim/data/policies/gaming-7.yaml"
excitation="$src/sim/data/workloads/excitation/excitation.csv"

mkdir "$work/lab"
"$sim" port lab -m "$model" -p "$policy" -o "$work/lab" --excitation "$excitation" >"$work/out.txt"
expect_eq "port lab --excitation says what it wrote" \
  "wrote $work/lab/model.yaml and $work/lab/policy.yaml
wrote $work/lab/excitation.args: $(wc -l <"$work/lab/excitation.args") level step(s) over 600 s" \
  "$(cat "$work/out.txt")"
n=$(wc -l <"$work/lab/excitation.args")
if ((n >= 20)); then ok "$n level steps over the 10-minute excitation"; else bad "only $n level steps"; fi
expect_eq "the first switch is at 0 s" "--profile-at=0=excite-1" "$(head -1 "$work/lab/excitation.args")"
expect_eq "the last switch names the last profile" "excite-$n" \
  "$(tail -1 "$work/lab/excitation.args" | sed 's/.*=//')"

# Recorded with the switches, the run replays exactly.
mapfile -t steps <"$work/lab/excitation.args"
"$sim" run -m "$work/lab/model.yaml" -p "$work/lab/policy.yaml" -w "$excitation" "${steps[@]}" \
  -o "$work/run" --record "$work/excite.chrec" >/dev/null
if "$sim" replay -r "$work/excite.chrec" -o "$work/replay" >"$work/replay.txt" 2>&1; then
  ok "the excitation's recording, profile switches and all, replays exactly"
else
  bad "the excitation's recording does not replay: $(cat "$work/replay.txt")"
fi
# The backlight really steps: its trace column takes every level 0..4.
col=$(head -1 "$work/run/trace.csv" | tr ',' '\n' | grep -n '^backlight_level$' | cut -d: -f1)
if [[ -n $col ]]; then
  expect_eq "the backlight takes every level" "0 1 2 3 4" \
    "$(tail -n +2 "$work/run/trace.csv" | cut -d, -f"$col" | sort -u | tr '\n' ' ' | sed 's/ $//')"
else
  bad "trace.csv has no backlight_level column: $(head -1 "$work/run/trace.csv")"
fi

# What --profile-at refuses.
refuse() { # what, expected stderr, args...
  local what="$1" want="$2"
  shift 2
  set +e
  "$sim" run -m "$model" -w "$excitation" --no-trace -o "$work/refused" "$@" >"$work/out.txt" 2>"$work/err"
  local rc=$?
  set -e
  expect_eq "$what: exit status" 1 "$rc"
  expect_eq "$what: message" "$want" "$(cat "$work/err")"
}
refuse "no SECONDS=" \
  "coolhand-sim: --profile-at 'quiet': expected SECONDS=PROFILE, SECONDS a number of seconds from 0 to 1e9 (PROFILE empty: the policy as written)" \
  -p "$policy" --profile-at quiet
refuse "negative time" \
  "coolhand-sim: --profile-at '-5=excite-1': expected SECONDS=PROFILE, SECONDS a number of seconds from 0 to 1e9 (PROFILE empty: the policy as written)" \
  -p "$policy" --profile-at=-5=excite-1
refuse "a profile the policy lacks" \
  "coolhand-sim: $policy: no profile 'excite-1' in the policy (a switch at 30000 ms)" \
  -p "$policy" --profile-at 30=excite-1
refuse "a governor" \
  "coolhand-sim: --profile-at needs a policy: a governor has no profiles" \
  -g step_wise --profile-at 30=excite-1

if ((failures > 0)); then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
