#!/usr/bin/env bash
# Run clang-tidy with the root .clang-tidy over the project's C++ sources
# (policies, config, sim, daemon and their tests, benchmarks and fuzzers) and
# fail on any finding. kmod/ is kernel C, checked by checkpatch instead.
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
pattern="^$PWD/(policies|config|sim|daemon|tests/(policies|config|sim|daemon)|bench|fuzz)/"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# GCC-only options in the compile commands are not clang-tidy's business.
if ! run-clang-tidy -p "$build" -j "${JOBS:-$(nproc)}" -quiet \
    -extra-arg=-Wno-unknown-warning-option -warnings-as-errors='*' "$pattern" >"$log" 2>&1; then
  grep -E "(warning|error):" "$log" | sort -u >&2 || cat "$log" >&2
  echo "run-clang-tidy.sh: findings above" >&2
  exit 1
fi
n=$(grep -c "^clang-tidy" "$log" || true)
echo "run-clang-tidy.sh: $n translation units clean"
