#!/usr/bin/env bash
# Run clang-tidy with the root .clang-tidy over the project's shipped C++
# sources (policies, recorder, config, sim, daemon and coolhandctl, with the headers
# they include) and fail on any finding. Tests, benchmarks and fuzzers are
# not checked: gtest/benchmark macros trip many checks for no gain. kmod/ is
# kernel C, checked by checkpatch instead.
#
# Usage: scripts/run-clang-tidy.sh [BUILD_DIR]   (default: build; needs its
# compile_commands.json, which every CMake build here writes)
# JOBS sets the parallelism (default: nproc).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
db="$build/compile_commands.json"
[ -s "$db" ] || { echo "run-clang-tidy.sh: $db missing; configure $build first" >&2; exit 1; }
command -v run-clang-tidy >/dev/null || { echo "run-clang-tidy.sh: run-clang-tidy missing (apt-get install clang-tidy)" >&2; exit 1; }

# Only translation units of our own, compiled in this build.
pattern="^$PWD/(policies|recorder|config|sim|daemon)/"
log=$(mktemp)
trap 'rm -f "$log" "$log.plain"' EXIT
# GCC-only options in the compile commands are not clang-tidy's business.
# run-clang-tidy 14 has no -warnings-as-errors, so findings are found in its
# output: any "file:line:col: warning|error:" line fails the run.
run-clang-tidy -p "$build" -j "${JOBS:-$(nproc)}" -quiet \
  -extra-arg=-Wno-unknown-warning-option "$pattern" >"$log" 2>&1 || true
sed 's/\x1b\[[0-9;]*m//g' "$log" >"$log.plain"
if grep -qE '^/[^ ]+:[0-9]+:[0-9]+: (warning|error):' "$log.plain"; then
  grep -E '^/[^ ]+:[0-9]+:[0-9]+: (warning|error):' "$log.plain" | sort -u >&2
  echo "run-clang-tidy.sh: findings above" >&2
  exit 1
fi
n=$(grep -c "^clang-tidy" "$log.plain" || true)
[ "$n" -gt 0 ] || { cat "$log.plain" >&2; echo "run-clang-tidy.sh: no translation unit checked" >&2; exit 1; }
echo "run-clang-tidy.sh: $n translation units clean"
