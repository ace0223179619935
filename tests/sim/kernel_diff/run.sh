#!/bin/sh
# The kernel differential test (ctest sim_kernel_diff): extracts Linux 6.1's
# thermal sources from the installed linux-source-6.1 tarball into the build
# directory, builds them unmodified with the user-space shim into a shared
# object, and runs kernel_diff_test against it.
# With --kernel 7.3 (ctest sim_kernel_diff_7.3) the same against a 6.16-or-
# later tarball (TARBALL "-": the one scripts/fetch-kernel-source.sh keeps)
# with extract_616.sh, shim616/ (on top of shim/) and kdiff_glue_616.c, checking the
# simulator's --kernel 7.3 rules.
# Usage: run.sh [--kernel 6.1|7.3] TARBALL WORKDIR CC KERNEL_DIFF_TEST
#               [SCENARIOS [UPDATES]]
# Exit: 0 pass, 1 mismatch or build failure, 77 skipped (no tarball, not CI).
set -eu
kernel=6.1
if [ "${1:-}" = --kernel ]; then
  kernel=$2
  shift 2
fi
here=$(cd "$(dirname "$0")" && pwd)
case $kernel in
  6.1) extract=extract.sh shim=shim glue=kdiff_glue.c fetch="install linux-source-6.1 (scripts/install-deps.sh)" ;;
  7.3) extract=extract_616.sh shim=shim616 glue=kdiff_glue_616.c fetch="run scripts/fetch-kernel-source.sh" ;;
  *) echo "sim_kernel_diff: unknown --kernel '$kernel' (6.1 or 7.3)" >&2; exit 2 ;;
esac
tarball=$1
if [ "$tarball" = - ]; then
  tarball=$("$here/../../../scripts/fetch-kernel-source.sh" --print)
fi
work=$2
cc=$3
exe=$4
shift 4

if [ ! -r "$tarball" ]; then
  if [ "${CI:-}" = "true" ]; then
    echo "sim_kernel_diff: $tarball missing; $fetch" >&2
    exit 1
  fi
  echo "sim_kernel_diff: SKIP: $tarball not installed ($fetch)"
  exit 77
fi

mkdir -p "$work/obj"
"$here/$extract" "$tarball" "$work"
th=$work/src/drivers/thermal
# -include: the shim stands in for the kernel headers the sources pull in;
# thermal_core.h and linux/thermal.h are the kernel's own.
for f in "$th/gov_step_wise.c" "$th/gov_bang_bang.c" "$th/gov_fair_share.c" \
         "$th/gov_power_allocator.c" "$th/thermal_helpers.c" "$work/core_update.c" \
         "$work/cooling_power.c" "$here/$glue"; do
  "$cc" -std=gnu11 -O1 -fPIC -w -Werror=implicit-function-declaration \
    -include "$here/$shim/kshim.h" -I "$here/$shim/include" -I "$here/shim/include" -I "$here/$shim" \
    -I "$work/src/include" -I "$th" -I "$work" \
    -c "$f" -o "$work/obj/$(basename "$f" .c).o"
done
"$cc" -shared -Wl,-z,defs -o "$work/libkdiff.so" "$work"/obj/*.o
if [ $# -eq 0 ]; then set -- 4000 500; fi
[ $# -ge 2 ] || set -- "$1" 500
exec "$exe" "$work/libkdiff.so" "$1" "$2" "$kernel"
