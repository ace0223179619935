#!/bin/sh
# The kernel differential test (ctest sim_kernel_diff): extracts Linux 6.1's
# thermal sources from the installed linux-source-6.1 tarball into the build
# directory, builds them unmodified with the user-space shim into a shared
# object, and runs kernel_diff_test against it.
# Usage: run.sh TARBALL WORKDIR CC KERNEL_DIFF_TEST [SCENARIOS [UPDATES]]
# Exit: 0 pass, 1 mismatch or build failure, 77 skipped (no tarball, not CI).
set -eu
tarball=$1
work=$2
cc=$3
exe=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)

if [ ! -r "$tarball" ]; then
  if [ "${CI:-}" = "true" ]; then
    echo "sim_kernel_diff: $tarball missing; install linux-source-6.1 (scripts/install-deps.sh)" >&2
    exit 1
  fi
  echo "sim_kernel_diff: SKIP: $tarball not installed (apt-get install linux-source-6.1)"
  exit 77
fi

mkdir -p "$work/obj"
"$here/extract.sh" "$tarball" "$work"
th=$work/src/drivers/thermal
# -include: the shim stands in for the kernel headers the sources pull in;
# thermal_core.h and linux/thermal.h are the kernel's own.
for f in "$th/gov_step_wise.c" "$th/gov_bang_bang.c" "$th/gov_fair_share.c" \
         "$th/gov_power_allocator.c" "$th/thermal_helpers.c" "$work/core_update.c" \
         "$work/cooling_power.c" "$here/kdiff_glue.c"; do
  "$cc" -std=gnu11 -O1 -fPIC -w -Werror=implicit-function-declaration \
    -include "$here/shim/kshim.h" -I "$here/shim/include" -I "$here/shim" \
    -I "$work/src/include" -I "$th" -I "$work" \
    -c "$f" -o "$work/obj/$(basename "$f" .c).o"
done
"$cc" -shared -Wl,-z,defs -o "$work/libkdiff.so" "$work"/obj/*.o
exec "$exe" "$work/libkdiff.so" "$@"
