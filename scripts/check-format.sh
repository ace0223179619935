#!/usr/bin/env bash
# Fail when a C++ source differs from the root .clang-format style.
# kmod/ is kernel C and is checked with checkpatch instead.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.hpp' | grep -v '^kmod/')
[ "${#files[@]}" -gt 0 ] || { echo "check-format.sh: no sources found" >&2; exit 1; }
clang-format --dry-run --Werror "${files[@]}"
echo "check-format.sh: ${#files[@]} files formatted"
