#!/usr/bin/env bash
# checkpatch.pl --strict over the module sources (kernel style).
#   run-checkpatch.sh KMOD_DIR WORK_DIR
# checkpatch.pl comes from $CHECKPATCH, an unpacked kernel tree under
# /usr/src, or Debian's linux-source-6.1 tarball. Unpacking the three files
# from the tarball means decompressing all of it (~50 s), so they are kept
# in ${COOLHAND_VM_CACHE:-/var/cache/coolhand-vm}/checkpatch (or WORK_DIR if
# that is not writable). Exit 77 (skipped) when none is installed, except
# in CI (CI=true), where that fails.
set -euo pipefail
kmod="$1"
work="$2"

cache="${COOLHAND_VM_CACHE:-/var/cache/coolhand-vm}/checkpatch"
mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ] || cache="$work/unpacked"
cp_pl="${CHECKPATCH:-}"
if [ -z "$cp_pl" ]; then
  for f in /usr/src/linux-source-*/scripts/checkpatch.pl "$cache"/linux-source-*/scripts/checkpatch.pl; do
    [ -f "$f" ] && cp_pl="$f"
  done
fi
if [ -z "$cp_pl" ]; then
  tarball="$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | tail -n 1 || true)"
  if [ -n "$tarball" ]; then
    tmp="$(mktemp -d "$cache.XXXXXX")"
    tar -xf "$tarball" -C "$tmp" --wildcards '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
      '*/scripts/const_structs.checkpatch'
    mkdir -p "$cache"
    for d in "$tmp"/linux-source-*; do
      [ -e "$cache/$(basename "$d")" ] || mv "$d" "$cache/"
    done
    rm -rf "$tmp"
    cp_pl="$(ls "$cache"/linux-source-*/scripts/checkpatch.pl | tail -n 1)"
  fi
fi
if [ -z "$cp_pl" ]; then
  if [ "${CI:-}" = true ]; then
    echo "run-checkpatch.sh: FAIL: no checkpatch.pl in CI (scripts/install-deps.sh --vm installs linux-source-6.1)" >&2
    exit 1
  fi
  echo "run-checkpatch.sh: SKIP: no checkpatch.pl (install linux-source-6.1 or set CHECKPATCH)"
  exit 77
fi

cd "$kmod"
# Paths without "./": checkpatch relaxes some rules for include/uapi/ only
# when the path starts there (UAPI headers cannot use BIT()).
mapfile -t files < <(find . -name '*.[ch]' | sed 's|^\./||' | sort)
mkdir -p "$work"
perl "$cp_pl" --no-tree --strict --terse --show-types -f "${files[@]}" | tee "$work/checkpatch.out" || true
if [ -s "$work/checkpatch.out" ]; then
  echo "run-checkpatch.sh: checkpatch reported problems" >&2
  exit 1
fi
echo "run-checkpatch.sh: ${#files[@]} files clean"
