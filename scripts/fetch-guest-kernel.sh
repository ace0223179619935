#!/usr/bin/env bash
# Obtain the qemu guest kernel for the kernel-module VM tests (tests/kmod).
#
# The guest must boot the exact Debian kernel whose headers coolhand.ko is
# built against, so the ABI version is taken from the installed headers
# (/lib/modules/<ver>/build, e.g. 6.1.0-56-amd64), never from `uname -r`
# (the host may run any kernel). The image package is downloaded with
# `apt-get download` and only unpacked (dpkg-deb --fsys-tarfile) into a cache
# directory: installing it would rebuild an initramfs nobody needs (~40 s)
# and touch the host's /boot.
#
# Result: $COOLHAND_VM_CACHE/<ver>/vmlinuz (+ config, System.map, and the
# module tree lib/modules/<ver> for the guest's virtio/9p modules).
# Idempotent: an existing, non-empty vmlinuz is reused without network access.
#
#   scripts/fetch-guest-kernel.sh            fetch for the headers' version
#   scripts/fetch-guest-kernel.sh --print    print the vmlinuz path, fetch nothing
#   COOLHAND_VM_CACHE=/some/dir scripts/fetch-guest-kernel.sh
set -euo pipefail

cache="${COOLHAND_VM_CACHE:-/var/cache/coolhand-vm}"
print_only=0
for arg in "$@"; do
  case "$arg" in
    --print) print_only=1 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "fetch-guest-kernel.sh: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

die() { echo "fetch-guest-kernel.sh: $*" >&2; exit 1; }

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
  echo "fetch-guest-kernel.sh: $vmlinuz already present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ] && ! { mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ]; }; then
  command -v sudo >/dev/null || die "cannot write $cache; set COOLHAND_VM_CACHE or run as root"
  SUDO=sudo
fi

pkg="linux-image-$kver"
# Debian also publishes signed builds as linux-image-<ver>-unsigned; either
# contains the same /boot/vmlinuz-<ver>.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
# `apt-get download` runs as the _apt user where possible; let it write here.
chmod 0777 "$work"

download() {
  apt-get download "$1" >/dev/null 2>&1
}
if ! download "$pkg" && ! download "$pkg-unsigned"; then
  echo "fetch-guest-kernel.sh: $pkg not in the package lists, running apt-get update"
  $SUDO apt-get update -qq || die "apt-get update failed"
  download "$pkg" || download "$pkg-unsigned" || die "apt-get download $pkg failed"
fi
deb="$(ls ./*.deb | head -n 1)"
[ -n "$deb" ] || die "no .deb downloaded for $pkg"

mkdir root
dpkg-deb --fsys-tarfile "$deb" | tar -x -C root \
  "./boot" "./lib/modules/$kver/kernel/drivers/virtio" \
  "./lib/modules/$kver/kernel/net/9p" "./lib/modules/$kver/kernel/fs/9p" \
  "./lib/modules/$kver/kernel/fs/netfs" "./lib/modules/$kver/kernel/fs/fscache" \
  2>/dev/null || dpkg-deb --fsys-tarfile "$deb" | tar -x -C root ./boot
[ -s "root/boot/vmlinuz-$kver" ] || die "$deb has no boot/vmlinuz-$kver"

tmpdest="$dest.tmp.$$"
$SUDO mkdir -p "$cache"
$SUDO rm -rf "$tmpdest"
$SUDO mkdir -p "$tmpdest"
$SUDO cp "root/boot/vmlinuz-$kver" "$tmpdest/vmlinuz"
for f in config System.map; do
  [ -e "root/boot/$f-$kver" ] && $SUDO cp "root/boot/$f-$kver" "$tmpdest/$f"
done
if [ -d "root/lib/modules/$kver" ]; then
  $SUDO mkdir -p "$tmpdest/lib/modules"
  $SUDO cp -a "root/lib/modules/$kver" "$tmpdest/lib/modules/"
fi
# Publish atomically so a concurrent run never sees a half-written cache.
$SUDO rm -rf "$dest"
$SUDO mv "$tmpdest" "$dest"
$SUDO chmod -R a+rX "$dest"
echo "fetch-guest-kernel.sh: $vmlinuz ($pkg)"
