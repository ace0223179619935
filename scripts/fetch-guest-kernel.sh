#!/usr/bin/env bash
# Obtain the qemu guest kernel for the kernel-module VM tests (tests/kmod).
#
# The guest must boot the exact Debian kernel whose headers coolhand.ko is
# built against, so the ABI version is taken from the installed headers
# (/lib/modules/<ver>/build, e.g. 6.1.0-56-amd64), never from `uname -r`
# (the host may run any kernel). The image package is downloaded with
# `apt-get download` and only unpacked (dpkg-deb --fsys-tarfile) into a cache
# directory: installing it would rebuild an initramfs nobody needs (~40 s)
# and touch the host's /boot. Unlike the trixie fetches, apt uses the host's
# own (bookworm) configuration here, which has the headers' kernel
# (scripts/lib/private-apt.sh without private_apt_init).
#
# Result: $COOLHAND_VM_CACHE/<ver>/vmlinuz (+ config, System.map, and the
# module tree lib/modules/<ver> for the guest's virtio/9p modules).
# Idempotent: an existing, non-empty vmlinuz is reused without network access.
#
#   scripts/fetch-guest-kernel.sh            fetch for the headers' version
#   scripts/fetch-guest-kernel.sh --print    print the vmlinuz path, fetch nothing
#   COOLHAND_VM_CACHE=/some/dir scripts/fetch-guest-kernel.sh
set -euo pipefail
prog=fetch-guest-kernel.sh
# shellcheck source=scripts/lib/private-apt.sh
. "$(dirname "$0")/lib/private-apt.sh"

cache="${COOLHAND_VM_CACHE:-/var/cache/coolhand-vm}"
print_only=0
for arg in "$@"; do
  case "$arg" in
    --print) print_only=1 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "$prog: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

# The newest Debian ABI version that has a kbuild tree installed.
kver=""
for build in /lib/modules/*/build; do
  [ -e "$build/Makefile" ] || continue
  kver="$(basename "$(dirname "$build")")"
done
[ -n "$kver" ] || die "no kernel headers under /lib/modules/*/build (install linux-headers-amd64)"

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
pkg="linux-image-$kver"
# Debian also publishes signed builds as linux-image-<ver>-unsigned; either
# contains the same /boot/vmlinuz-<ver>.
if ! apt_download "$pkg" && ! apt_download "$pkg-unsigned"; then
  echo "$prog: $pkg not in the package lists, running apt-get update"
  $SUDO apt-get update -qq || die "apt-get update failed"
  apt_download "$pkg" || apt_download "$pkg-unsigned" || die "apt-get download $pkg failed"
fi
deb="$(ls "$work"/dl/*.deb | head -n 1)"
[ -n "$deb" ] || die "no .deb downloaded for $pkg"

root="$work/root"
mkdir "$root"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$root" \
  "./boot" "./lib/modules/$kver/kernel/drivers/virtio" \
  "./lib/modules/$kver/kernel/net/9p" "./lib/modules/$kver/kernel/fs/9p" \
  "./lib/modules/$kver/kernel/fs/netfs" "./lib/modules/$kver/kernel/fs/fscache" \
  2>/dev/null || dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$root" ./boot
[ -s "$root/boot/vmlinuz-$kver" ] || die "$deb has no boot/vmlinuz-$kver"

stage="$work/stage"
mkdir "$stage"
cp "$root/boot/vmlinuz-$kver" "$stage/vmlinuz"
for f in config System.map; do
  if [ -e "$root/boot/$f-$kver" ]; then cp "$root/boot/$f-$kver" "$stage/$f"; fi
done
if [ -d "$root/lib/modules/$kver" ]; then
  mkdir -p "$stage/lib/modules"
  cp -a "$root/lib/modules/$kver" "$stage/lib/modules/"
fi
cache_publish "$stage" "$dest"
echo "$prog: $vmlinuz ($pkg)"
