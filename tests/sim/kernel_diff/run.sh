#!/bin/sh
# The kernel differential test (ctest sim_kernel_diff, sim_kernel_diff_7.3):
# extracts a kernel's thermal sources from a linux-source tarball into the
# build directory (extract.sh), builds them unmodified with the user-space
# shim and kdiff_glue.c into a shared object, and runs kernel_diff_test
# against it with the simulator's rules for the same kernel (--kernel).
#   6.1  Debian 12's installed linux-source-6.1 tarball; shim/.
#   7.3  TARBALL "-": linux-source-7.3 cut down by
#        scripts/fetch-kernel-source.sh; shim-7.3/ on top of shim/.
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
# code: KDIFF_KERNEL for kdiff_glue.c, major * 100 + minor.
case $kernel in
  6.1) shim=shim code=601 fetch="install linux-source-6.1 (scripts/install-deps.sh --tests)" ;;
  7.3) shim=shim-7.3 code=703 fetch="run scripts/fetch-kernel-source.sh (scripts/install-deps.sh --tests)" ;;
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

# Objects are rebuilt every run: the link takes every .o in obj/.
rm -rf "$work/obj"
mkdir -p "$work/obj"
"$here/extract.sh" "$kernel" "$tarball" "$work"
th=$work/src/drivers/thermal
# -include: the shim stands in for the kernel headers the sources pull in;
# thermal_core.h and linux/thermal.h are the kernel's own.
for f in "$th/gov_step_wise.c" "$th/gov_bang_bang.c" "$th/gov_fair_share.c" \
         "$th/gov_power_allocator.c" "$th/thermal_helpers.c" "$work/core_update.c" \
         "$work/cooling_power.c" "$here/kdiff_glue.c"; do
  "$cc" -std=gnu11 -O1 -fPIC -w -Werror=implicit-function-declaration -DKDIFF_KERNEL=$code \
    -include "$here/$shim/kshim.h" -I "$here/$shim/include" -I "$here/shim/include" -I "$here/$shim" \
    -I "$work/src/include" -I "$th" -I "$work" \
    -c "$f" -o "$work/obj/$(basename "$f" .c).o"
done
"$cc" -shared -Wl,-z,defs -o "$work/libkdiff.so" "$work"/obj/*.o
if [ $# -eq 0 ]; then set -- 4000 500; fi
[ $# -ge 2 ] || set -- "$1" 500
exec "$exe" "$work/libkdiff.so" "$1" "$2" "$kernel"
