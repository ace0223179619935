#!/usr/bin/env bash
# Builds the policy-loader fuzzer (fuzz/config) with clang in its own build
# dir and runs it for a bounded time. Exits non-zero on any crash, sanitizer
# report, timeout or out-of-memory; the failing input is kept in
# <build>/fuzz-artifacts/ for reproduction:
#   <build>/fuzz/config/fuzz_config_loader <artifact>
#
# Usage: scripts/run-fuzz.sh [seconds]   (default 60)
# Env:   COOLHAND_FUZZ_BUILD  build dir (default build-fuzz in the repo)
set -euo pipefail

seconds="${1:-60}"
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${COOLHAND_FUZZ_BUILD:-$root/build-fuzz}"

CC=clang CXX=clang++ cmake -S "$root" -B "$build" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCOOLHAND_FUZZ=ON -DCOOLHAND_TESTS=OFF -DCOOLHAND_BENCHMARKS=OFF \
  -DCOOLHAND_DAEMON=OFF -DCOOLHAND_VM_TESTS=OFF >/dev/null
cmake --build "$build" --target fuzz_config_loader -j2

# New inputs go to a scratch corpus; the checked-in seeds stay untouched.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"

"$build/fuzz/config/fuzz_config_loader" \
  -max_total_time="$seconds" \
  -timeout=10 \
  -rss_limit_mb=2048 \
  -max_len=16384 \
  -print_final_stats=1 \
  -dict="$root/fuzz/config/yaml.dict" \
  -artifact_prefix="$artifacts/" \
  "$work" "$root/fuzz/config/corpus"
