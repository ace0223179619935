#!/usr/bin/env bash
# checkpatch.pl --strict over the module sources (kernel style).
#   run-checkpatch.sh KMOD_DIR WORK_DIR
# checkpatch.pl comes from $CHECKPATCH, an unpacked kernel tree under
# /usr/src, or Debian's linux-source-6.1 tarball (unpacked into WORK_DIR).
# Exit 77 (skipped) when none is installed.
set -euo pipefail
kmod="$1"
work="$2"

cp_pl="${CHECKPATCH:-}"
if [ -z "$cp_pl" ]; then
  for f in /usr/src/linux-source-*/scripts/checkpatch.pl "$work"/linux-source-*/scripts/checkpatch.pl; do
    [ -f "$f" ] && cp_pl="$f"
  done
fi
if [ -z "$cp_pl" ]; then
  tarball="$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | tail -n 1 || true)"
  if [ -n "$tarball" ]; then
    mkdir -p "$work"
    tar -xf "$tarball" -C "$work" --wildcards '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
      '*/scripts/const_structs.checkpatch'
    cp_pl="$(ls "$work"/linux-source-*/scripts/checkpatch.pl | tail -n 1)"
  fi
fi
if [ -z "$cp_pl" ]; then
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
