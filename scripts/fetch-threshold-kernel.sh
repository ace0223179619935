#!/usr/bin/env bash
# Obtain the qemu guest kernel for the user-threshold VM test
# (tests/thresholds): a Debian kernel new enough to have thermal netlink user
# thresholds (mainline 6.13+), taken from trixie-backports because Debian 12's
# own kernel is 6.1.
#
# The host stays a bookworm system: apt runs with a PRIVATE configuration
# (scripts/lib/private-apt.sh: its own sources list, package lists and
# cache in a temporary directory), so the host's sources and package state
# are never touched, and the image package is only downloaded and unpacked
# (dpkg-deb), never installed.
#
# Result: $COOLHAND_VM_CACHE/<kver>/vmlinuz and config, with <kver> =
# $COOLHAND_THR_KVER (default 6.16.12+deb13-amd64, the kernel the test was
# verified on). When that package has left the archive (backports keep only
# recent kernels) and COOLHAND_THR_KVER is not set, the newest 6.13+ amd64
# image in trixie(-backports) is taken instead; the chosen version is
# recorded in $COOLHAND_VM_CACHE/threshold-kver for --print. Idempotent: an
# existing, non-empty vmlinuz is reused without network access.
#
#   scripts/fetch-threshold-kernel.sh            fetch
#   scripts/fetch-threshold-kernel.sh --print    print the vmlinuz path, fetch nothing
set -euo pipefail
prog=fetch-threshold-kernel.sh
# shellcheck source=scripts/lib/private-apt.sh
. "$(dirname "$0")/lib/private-apt.sh"

cache="${COOLHAND_VM_CACHE:-/var/cache/coolhand-vm}"
kver="${COOLHAND_THR_KVER:-6.16.12+deb13-amd64}"
if [ -z "${COOLHAND_THR_KVER:-}" ] && [ -s "$cache/threshold-kver" ]; then
  kver="$(cat "$cache/threshold-kver")"
fi
print_only=0
for arg in "$@"; do
  case "$arg" in
    --print) print_only=1 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "$prog: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

dest="$cache/$kver"
vmlinuz="$dest/vmlinuz"
if [ "$print_only" -eq 1 ]; then
  echo "$vmlinuz"
  exit 0
fi
if [ -s "$vmlinuz" ]; then
  echo "$prog: $vmlinuz already present"
  exit 0
fi

cache_init
work_init
private_apt_init
# The package holding /boot/vmlinuz: linux-binary-<ver> on newer Debian
# kernels (6.19 in trixie-backports), linux-image-<ver> (or its -unsigned
# build) on older ones.
download() {  # kernel version -> that package in $work/dl
  local p
  for p in "linux-binary-$1" "linux-image-$1" "linux-image-$1-unsigned"; do
    apt_download "$p" || continue
    dpkg-deb -c "$work"/dl/*.deb | grep "\./boot/vmlinuz-$1\$" >/dev/null && return 0
  done
  return 1
}
if ! download "$kver"; then
  [ -z "${COOLHAND_THR_KVER:-}" ] || die "no package with /boot/vmlinuz-$kver in trixie(-backports)"
  newest="$(apt_pkgnames linux-image-6. |
    sed -n 's/^linux-image-\(6\.\(1[3-9]\|[2-9][0-9]\)\.[0-9]*+deb13-amd64\)$/\1/p' | sort -V | tail -n 1)"
  [ -n "$newest" ] || die "no 6.13+ amd64 kernel image in trixie(-backports)"
  echo "$prog: linux-image-$kver is gone; using linux-image-$newest"
  kver="$newest"
  dest="$cache/$kver"
  vmlinuz="$dest/vmlinuz"
  download "$kver" || die "no package with /boot/vmlinuz-$kver in trixie(-backports)"
fi
deb="$(ls "$work"/dl/*.deb | head -n 1)"
pkg="$(basename "$deb")"
mkdir "$work/root"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work/root" ./boot
[ -s "$work/root/boot/vmlinuz-$kver" ] || die "$deb has no boot/vmlinuz-$kver"

mkdir "$work/stage"
cp "$work/root/boot/vmlinuz-$kver" "$work/stage/vmlinuz"
[ -e "$work/root/boot/config-$kver" ] && cp "$work/root/boot/config-$kver" "$work/stage/config"
cache_publish "$work/stage" "$dest"
cache_record threshold-kver "$kver"
echo "$prog: $vmlinuz ($pkg)"
