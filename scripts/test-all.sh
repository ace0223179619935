#!/usr/bin/env bash
# Install everything, build, and run every test coolhand has:
#   1. the release build with warnings as errors: unit, config, simulator,
#      daemon end-to-end tests, and the qemu guest tests (kernel module;
#      coolhandd on 6.16 with user thresholds and on 6.1 without; coolhandd
#      across a real S3 suspend, resume_vm);
#   2. the unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer,
#      built with clang (build-asan) together with every libFuzzer target:
#      one build, whose libraries both link;
#   3. every libFuzzer target (policy loader, daemon parsers, simulator
#      model and CSV readers) from that build, for a bounded total time;
#   4. clang-format over the C++ sources;
#   5. clang-tidy (root .clang-tidy) over the shipped sources, failing on any finding.
#      It needs only the release build's compile_commands.json, so it starts
#      right after that build, in the background at nice 19: it fills the
#      cores the later stages leave idle (qemu guests waiting, the fuzzers'
#      one core, link steps) instead of taking ~7 minutes of its own at the
#      end. Its result is collected, and fails the run, in the last stage.
# This is the README's second command and what .ci/run calls.
#
# Environment: JOBS (default: nproc), FUZZ_SECONDS (default 108, shared by all fuzzers),
# COOLHAND_SKIP_VM=1 to leave out the qemu stage locally (never in CI).
# CI=true (set by .ci/run itself): a test that did not run is a failure. The
# tests fail their own missing prerequisites under CI=true, and on top of
# that every ctest run below fails the stage if ctest lists any test under
# "The following tests did not run:" (Skipped, Disabled or Not Run), so a
# test that forgets to check CI still cannot go green by skipping. Locally
# (CI unset) skips are reported and allowed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
jobs=${JOBS:-$(nproc)}
fuzz_seconds=${FUZZ_SECONDS:-108}

stage() { printf '\n==== %s (%ss)\n' "$1" "$SECONDS"; }

# run_ctest CTEST-ARGS...: ctest with its output kept; no tests at all is an
# error; under CI=true so is any test that did not run.
run_ctest() {
  local out status
  out=$(mktemp)
  status=0
  ctest --no-tests=error "$@" 2>&1 | tee "$out" || status=$?
  if [ "$status" -eq 0 ] && grep -q '^The following tests did not run:' "$out"; then
    if [ "${CI:-}" = true ]; then
      echo "test-all.sh: tests were skipped (CI=true forbids it):" >&2
      sed -n '/^The following tests did not run:/,/^$/p' "$out" >&2
      status=1
    else
      echo "test-all.sh: some tests were skipped (allowed outside CI)" >&2
    fi
  fi
  rm -f "$out"
  return "$status"
}

vm_flag=--vm
vm_tests=ON
if [ "${COOLHAND_SKIP_VM:-0}" = 1 ]; then
  if [ "${CI:-}" = true ]; then
    echo "test-all.sh: COOLHAND_SKIP_VM is not allowed in CI" >&2
    exit 1
  fi
  vm_flag=""
  vm_tests=OFF
fi

stage "dependencies"
scripts/install-deps.sh --tests $vm_flag

# Both builds keep line tables only (-g1; clang: line-tables-only), not full
# debug info: file:line in backtraces and sanitizer reports is all CI reads,
# and the variable locations of -g cost ~30% of a heavy file's compile under
# gcc -O2 (docs/benchmarks.md "CI time, session 9"). Same -O levels, so the
# same warnings. Both builds compile the test executables as unity builds
# (COOLHAND_UNITY_TESTS, on by default; docs/benchmarks.md "CI time, session
# 10"): the same test sources and warnings, gtest's and the libraries'
# headers parsed once per batch of up to 32 files instead of once per file.
stage "release build"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOOLHAND_WERROR=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DCOOLHAND_VM_TESTS=$vm_tests
cmake --build build -j "$jobs"

# clang-tidy in the background (see the header); its log is printed in the
# clang-tidy stage. If the script exits early, the trap stops it.
tidy_log=$(mktemp)
# setsid: its own process group, so the trap stops every clang-tidy it runs.
# setsid also starts a new scheduler autogroup, and with autogroups (Debian's
# default) nice only ranks processes within a group: measured, clang-tidy at
# nice 19 still took half the machine from the ASan build. So the new
# group's own nice is set from inside it, after setsid: written from here,
# before the child's setsid, it lowered this script's own group instead
# (measured: the release tests took 12 minutes instead of 4).
JOBS="$jobs" setsid bash -c 'echo 19 >/proc/self/autogroup 2>/dev/null || true
  exec nice -n 19 scripts/run-clang-tidy.sh build' >"$tidy_log" 2>&1 &
tidy_pid=$!
trap 'kill -- "-$tidy_pid" 2>/dev/null || true; rm -f "$tidy_log"' EXIT

stage "tests"
run_ctest --test-dir build --output-on-failure -j "$jobs"

# One clang build serves the sanitizer tests and the fuzzers (COOLHAND_FUZZ
# adds libFuzzer's coverage instrumentation to every object; only the fuzz
# executables link libFuzzer): a separate fuzz build cost ~240 s of CI.
# Debug keeps Eigen's assertions; -O1 (ASan's recommended level) instead of
# Debug's -O0 keeps the fuzzers' executions/s and the sanitizer tests fast
# (docs/benchmarks.md "CI time").
stage "sanitizer and fuzz build (clang, ASan+UBSan)"
CC=clang CXX=clang++ cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-g1 -O1" -DCMAKE_C_FLAGS_DEBUG="-g1 -O1" -DCOOLHAND_WERROR=ON \
  -DCOOLHAND_SANITIZE=ON -DCOOLHAND_FUZZ=ON -DCOOLHAND_VM_TESTS=OFF -DCOOLHAND_BENCHMARKS=OFF \
  -DCOOLHAND_E2E_TESTS=OFF
cmake --build build-asan -j "$jobs"
# The end-to-end suites (label e2e, e2e-dbus) are left out of this build
# (COOLHAND_E2E_TESTS=OFF): they ran only in the release stage already, and
# building them here cost ~57 s of CPU for nothing (ninja log of a CI run).
# ReleaseStartupMemory measures what malloc_trim gives back to the kernel;
# ASan's allocator is not glibc's, so that test runs in the release stage only.
# The Slurm test (label slurm) starts real daemons: once, in the release
# stage; shard and merge code runs sanitized in sim_shard_cli.
# sim_fit (four simulator runs and a Levenberg-Marquardt fit, 143 s under gcc
# -O0 ASan) and BoundTest.EveryBundledControllerIsAtOrBelowTheBound (42
# closed-loop runs and their LPs, 122 s) are long numeric runs: they run in
# the release stage only, to keep CI within its time. Their code runs
# sanitized in the fit unit tests, the other bound tests and the fuzz
# targets fuzz_sim_fit_csv and fuzz_sim_skeleton. So does sim_port_chain (the
# port chain: recordings, a fit, a tune and compare with bounds; 25 s
# release): its parts run sanitized in sim_fit's unit tests, the recording
# replay tests and fuzz_sim_fit_recording.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_ctest --test-dir build-asan --output-on-failure -j "$jobs" -LE 'e2e|slurm' \
  -E '^(ReleaseStartupMemory[.].*|sim_fit|sim_port_chain|BoundTest[.]EveryBundledControllerIsAtOrBelowTheBound)$'

stage "fuzzing every libFuzzer target (${fuzz_seconds}s in all)"
COOLHAND_FUZZ_BUILD="$root/build-asan" scripts/run-fuzz.sh "$fuzz_seconds"

stage "clang-format"
scripts/check-format.sh

stage "clang-tidy (started after the release build; waiting for it)"
tidy_status=0
wait "$tidy_pid" || tidy_status=$?
cat "$tidy_log"
[ "$tidy_status" -eq 0 ] || { echo "test-all.sh: clang-tidy failed" >&2; exit 1; }

stage "done"
echo "test-all.sh: all stages passed in ${SECONDS}s"
