#!/usr/bin/env bash
# Obtain the qemu guest kernel for the user-threshold VM test
# (tests/thresholds): a Debian kernel new enough to have thermal netlink user
# thresholds (mainline 6.13+), taken from trixie-backports because Debian 12's
# own kernel is 6.1.
#
# The host stays a bookworm system: apt runs with a PRIVATE configuration
# (its own sources list, package lists and cache under the cache directory),
# so the host's sources and package state are never touched, and the image
# package is only downloaded and unpacked (dpkg-deb), never installed.
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

cache="${COOLHAND_VM_CACHE:-/var/cache/coolhand-vm}"
kver="${COOLHAND_THR_KVER:-6.16.12+deb13-amd64}"
if [ -z "${COOLHAND_THR_KVER:-}" ] && [ -s "$cache/threshold-kver" ]; then
  kver="$(cat "$cache/threshold-kver")"
fi
print_only=0
for arg in "$@"; do
  case "$arg" in
    --print) print_only=1 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "fetch-threshold-kernel.sh: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

die() { echo "fetch-threshold-kernel.sh: $*" >&2; exit 1; }

dest="$cache/$kver"
vmlinuz="$dest/vmlinuz"
if [ "$print_only" -eq 1 ]; then
  echo "$vmlinuz"
  exit 0
fi
if [ -s "$vmlinuz" ]; then
  echo "fetch-threshold-kernel.sh: $vmlinuz already present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ] && ! { mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ]; }; then
  command -v sudo >/dev/null || die "cannot write $cache; set COOLHAND_VM_CACHE or run as root"
  SUDO=sudo
fi
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || die "$keyring missing (debian-archive-keyring)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
chmod 0777 "$work"  # apt-get download runs as _apt where it can
mkdir -p "$work/etc" "$work/lists/partial" "$work/cache/archives/partial" "$work/dl"
cat >"$work/etc/sources.list" <<SOURCES
deb [signed-by=$keyring] http://deb.debian.org/debian trixie main
deb [signed-by=$keyring] http://deb.debian.org/debian trixie-backports main
SOURCES
chmod -R a+rwX "$work"
apt_private=(
  -o "Dir::Etc::sourcelist=$work/etc/sources.list" -o "Dir::Etc::sourceparts=/nonexistent"
  -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
  -o "Dir::State::status=/var/lib/dpkg/status" -o "APT::Get::List-Cleanup=false"
)
echo "fetch-threshold-kernel.sh: reading trixie(-backports) package lists (private apt state)"
apt-get "${apt_private[@]}" update -qq || die "apt-get update (private trixie lists) failed"
# The package holding /boot/vmlinuz: linux-binary-<ver> on newer Debian
# kernels (6.19 in trixie-backports), linux-image-<ver> (or its -unsigned
# build) on older ones.
download() {  # kernel version -> that package in $work/dl
  local p
  for p in "linux-binary-$1" "linux-image-$1" "linux-image-$1-unsigned"; do
    rm -f "$work"/dl/*.deb
    (cd "$work/dl" && apt-get "${apt_private[@]}" download "$p" >/dev/null 2>&1) || continue
    dpkg-deb -c "$work"/dl/*.deb | grep "\./boot/vmlinuz-$1\$" >/dev/null && return 0
  done
  return 1
}
if ! download "$kver"; then
  [ -z "${COOLHAND_THR_KVER:-}" ] || die "no package with /boot/vmlinuz-$kver in trixie(-backports)"
  newest="$(apt-cache "${apt_private[@]}" pkgnames linux-image-6. |
    sed -n 's/^linux-image-\(6\.\(1[3-9]\|[2-9][0-9]\)\.[0-9]*+deb13-amd64\)$/\1/p' | sort -V | tail -n 1)"
  [ -n "$newest" ] || die "no 6.13+ amd64 kernel image in trixie(-backports)"
  echo "fetch-threshold-kernel.sh: linux-image-$kver is gone; using linux-image-$newest"
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

tmpdest="$dest.tmp.$$"
$SUDO mkdir -p "$cache"
$SUDO rm -rf "$tmpdest"
$SUDO mkdir -p "$tmpdest"
$SUDO cp "$work/root/boot/vmlinuz-$kver" "$tmpdest/vmlinuz"
[ -e "$work/root/boot/config-$kver" ] && $SUDO cp "$work/root/boot/config-$kver" "$tmpdest/config"
# Publish atomically so a concurrent run never sees a half-written cache.
$SUDO rm -rf "$dest"
$SUDO mv "$tmpdest" "$dest"
$SUDO chmod -R a+rX "$dest"
echo "$kver" | $SUDO tee "$cache/threshold-kver" >/dev/null
echo "fetch-threshold-kernel.sh: $vmlinuz ($pkg)"
