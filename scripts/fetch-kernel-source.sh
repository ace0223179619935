#!/usr/bin/env bash
# Obtain the newer kernel sources the simulator's 6.16 baselines are checked
# against (ctest sim_kernel_diff_6.16, tests/sim/kernel_diff/extract_616.sh):
# Debian's linux-source-<ver> from trixie-backports, <ver> 6.16 or later.
# Debian's archive no longer holds 6.16's own sources, headers or kbuild
# (only the 6.16.12 image the thresholds test boots); 6.12 (trixie) is too
# old and 7.3 has the 6.13+ rules (docs/simulator.md, "Kernel baselines").
#
# As scripts/fetch-threshold-kernel.sh: apt runs with a PRIVATE
# configuration (its own sources list, lists and cache in a temporary
# directory), so the host's apt state is never touched, and the package is
# only downloaded and unpacked, never installed.
#
# Result: $COOLHAND_VM_CACHE/linux-source-<ver>-thermal.tar.xz (default
# cache /var/cache/coolhand-vm): the package's tarball cut down to what the
# test reads (drivers/thermal, the thermal headers, the top Makefile), so a
# fresh build directory extracts it in a second instead of decompressing
# the whole 160 MB tree. <ver> = $COOLHAND_KSRC_VER (default 7.3, the
# version the test was verified with). When that package has left the
# archive and COOLHAND_KSRC_VER is not set, the newest linux-source-<ver>
# >= 6.16 is taken; the chosen tarball is recorded in
# $COOLHAND_VM_CACHE/kernel-source for --print. Idempotent: an existing
# tarball is reused without network access.
#
#   scripts/fetch-kernel-source.sh            fetch
#   scripts/fetch-kernel-source.sh --print    print the tarball path, fetch nothing
set -euo pipefail

cache="${COOLHAND_VM_CACHE:-/var/cache/coolhand-vm}"
ver="${COOLHAND_KSRC_VER:-7.3}"
if [ -z "${COOLHAND_KSRC_VER:-}" ] && [ -s "$cache/kernel-source" ]; then
  ver="$(cat "$cache/kernel-source")"
fi
print_only=0
for arg in "$@"; do
  case "$arg" in
    --print) print_only=1 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "fetch-kernel-source.sh: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

die() { echo "fetch-kernel-source.sh: $*" >&2; exit 1; }

tarball="$cache/linux-source-$ver-thermal.tar.xz"
if [ "$print_only" -eq 1 ]; then
  echo "$tarball"
  exit 0
fi
if [ -s "$tarball" ]; then
  echo "fetch-kernel-source.sh: $tarball already present"
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
echo "fetch-kernel-source.sh: reading trixie(-backports) package lists (private apt state)"
apt-get "${apt_private[@]}" update -qq || die "apt-get update (private trixie lists) failed"
download() {  # version -> linux-source-<version>_*.deb in $work/dl
  rm -f "$work"/dl/*.deb
  (cd "$work/dl" && apt-get "${apt_private[@]}" download "linux-source-$1" >/dev/null 2>&1)
}
if ! download "$ver"; then
  [ -z "${COOLHAND_KSRC_VER:-}" ] || die "no linux-source-$ver in trixie(-backports)"
  newest="$(apt-cache "${apt_private[@]}" pkgnames linux-source- |
    sed -n 's/^linux-source-\([0-9]*\.[0-9]*\)$/\1/p' | sort -V |
    awk -F. '$1 > 6 || ($1 == 6 && $2 >= 16)' | tail -n 1)"
  [ -n "$newest" ] || die "no linux-source-<ver> >= 6.16 in trixie(-backports)"
  echo "fetch-kernel-source.sh: linux-source-$ver is gone; using linux-source-$newest"
  ver="$newest"
  tarball="$cache/linux-source-$ver-thermal.tar.xz"
  download "$ver" || die "cannot download linux-source-$ver"
fi
deb="$(ls "$work"/dl/*.deb | head -n 1)"
mkdir "$work/root"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work/root" "./usr/src/linux-source-$ver.tar.xz"
full="$work/root/usr/src/linux-source-$ver.tar.xz"
[ -s "$full" ] || die "$deb has no linux-source-$ver.tar.xz"
top="linux-source-$ver"  # Debian's tarballs hold one directory of that name
mkdir "$work/x"
tar -xJf "$full" -C "$work/x" "$top/drivers/thermal" "$top/include/linux/thermal.h" \
  "$top/include/uapi/linux/thermal.h" "$top/Makefile"
tar -cJf "$work/thermal.tar.xz" -C "$work/x" "$top"

$SUDO mkdir -p "$cache"
# Publish atomically so a concurrent run never sees a half-written tarball.
$SUDO cp "$work/thermal.tar.xz" "$tarball.tmp.$$"
$SUDO mv "$tarball.tmp.$$" "$tarball"
$SUDO chmod a+r "$tarball"
echo "$ver" | $SUDO tee "$cache/kernel-source" >/dev/null
echo "fetch-kernel-source.sh: $tarball ($(basename "$deb"))"
