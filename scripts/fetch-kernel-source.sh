#!/usr/bin/env bash
# Obtain the newer kernel's sources, downloaded once for two users:
# Debian's linux-source-<ver> from trixie-backports (<ver> 7.3, the kernel
# the simulator's `--kernel 7.3` rules are verified against; Debian's
# archive holds no 6.16 sources, docs/simulator.md "Kernel baselines").
#  - ctest sim_kernel_diff_7.3 (tests/sim/kernel_diff/extract.sh) reads
#    $COOLHAND_VM_CACHE/linux-source-<ver>-thermal.tar.xz: the tarball cut
#    down to what the test reads (drivers/thermal, the thermal headers, the
#    top Makefile), so a fresh build directory extracts it in a second
#    instead of decompressing the whole tree;
#  - scripts/fetch-guest-kbuild.sh rebuilds the 7.3 kbuild's objtool and
#    modpost from $COOLHAND_VM_CACHE/linux-source-<ver>.tar.xz, the whole
#    tarball as the package ships it, kept beside the cut (--full).
# Default cache /var/cache/coolhand-vm. apt runs with a PRIVATE
# configuration (scripts/lib/private-apt.sh): the host's apt state is never
# touched, and the package is only downloaded and unpacked.
#
# <ver> = $COOLHAND_KSRC_VER (default 7.3). When that package has left the
# archive and COOLHAND_KSRC_VER is not set, the newest linux-source-<ver>
# >= 7.3 is taken; the chosen version is recorded in
# $COOLHAND_VM_CACHE/kernel-source for --print. Idempotent: what is already
# in the cache is reused without network access.
#
#   scripts/fetch-kernel-source.sh               the cut tarball (and the whole
#                                                one, when it has to download)
#   scripts/fetch-kernel-source.sh --full        also the whole tarball
#   scripts/fetch-kernel-source.sh --print       print the cut tarball's path, fetch nothing
#   scripts/fetch-kernel-source.sh --print-full  print the whole tarball's path, fetch nothing
set -euo pipefail
prog=fetch-kernel-source.sh
# shellcheck source=scripts/lib/private-apt.sh
. "$(dirname "$0")/lib/private-apt.sh"

cache="${COOLHAND_VM_CACHE:-/var/cache/coolhand-vm}"
ver="${COOLHAND_KSRC_VER:-7.3}"
if [ -z "${COOLHAND_KSRC_VER:-}" ] && [ -s "$cache/kernel-source" ]; then
  ver="$(cat "$cache/kernel-source")"
fi
mode=fetch
want_full=0
for arg in "$@"; do
  case "$arg" in
    --full) want_full=1 ;;
    --print) mode=print ;;
    --print-full) mode=print-full ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    *) echo "$prog: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

paths() {  # the two tarballs of $ver
  thermal="$cache/linux-source-$ver-thermal.tar.xz"
  full="$cache/linux-source-$ver.tar.xz"
}
paths
case $mode in
  print) echo "$thermal"; exit 0 ;;
  print-full) echo "$full"; exit 0 ;;
esac
if [ -s "$thermal" ] && { [ "$want_full" -eq 0 ] || [ -s "$full" ]; }; then
  echo "$prog: $thermal already present"
  [ "$want_full" -eq 0 ] || echo "$prog: $full already present"
  exit 0
fi

cache_init
work_init
if [ ! -s "$full" ]; then
  private_apt_init
  if ! apt_download "linux-source-$ver"; then
    [ -z "${COOLHAND_KSRC_VER:-}" ] || die "no linux-source-$ver in trixie(-backports)"
    newest="$(apt_pkgnames linux-source- |
      sed -n 's/^linux-source-\([0-9]*\.[0-9]*\)$/\1/p' | sort -V |
      awk -F. '$1 > 7 || ($1 == 7 && $2 >= 3)' | tail -n 1)"
    [ -n "$newest" ] || die "no linux-source-<ver> >= 7.3 in trixie(-backports)"
    echo "$prog: linux-source-$ver is gone; using linux-source-$newest"
    ver="$newest"
    paths
    apt_download "linux-source-$ver" || die "cannot download linux-source-$ver"
  fi
  deb="$(ls "$work"/dl/*.deb | head -n 1)"
  echo "$prog: unpacking $(basename "$deb")"
  mkdir "$work/root"
  dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work/root" "./usr/src/linux-source-$ver.tar.xz"
  [ -s "$work/root/usr/src/linux-source-$ver.tar.xz" ] || die "$deb has no linux-source-$ver.tar.xz"
  cache_publish "$work/root/usr/src/linux-source-$ver.tar.xz" "$full"
  rm -rf "$work/root"
  echo "$prog: $full ($(basename "$deb"))"
fi

if [ ! -s "$thermal" ]; then
  top="linux-source-$ver"  # Debian's tarballs hold one directory of that name
  mkdir "$work/x"
  tar -xJf "$full" -C "$work/x" "$top/drivers/thermal" "$top/include/linux/thermal.h" \
    "$top/include/uapi/linux/thermal.h" "$top/Makefile"
  tar -cJf "$work/thermal.tar.xz" -C "$work/x" "$top"
  cache_publish "$work/thermal.tar.xz" "$thermal"
  echo "$prog: $thermal"
fi
cache_record kernel-source "$ver"
