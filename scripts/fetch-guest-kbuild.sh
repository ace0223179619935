#!/usr/bin/env bash
# Obtain a 6.13+ guest kernel WITH a kbuild tree, so coolhand.ko can be built
# for it and loaded in qemu (the lockstep stage on a newer kernel, issue 14).
#
# Debian 12's own kernel is 6.1; the newer one comes from trixie-backports:
# its image (linux-binary-<kver>: /boot/vmlinuz), headers
# (linux-headers-<kver> and linux-headers-<base>-common), kbuild tools
# (linux-kbuild-<base>) and linux-source-<major.minor>. apt runs with a
# PRIVATE configuration (sources list, lists and cache in a temporary
# directory), packages are only downloaded and unpacked (dpkg-deb), never
# installed: the host's apt and dpkg state are not touched.
#
# The trixie kbuild binaries need GLIBC_2.38 (bookworm has 2.36), so
# objtool and modpost are rebuilt from linux-source (objtool needs
# libelf-dev); fixdep and genksyms from the package run as they are. The
# headers' absolute paths (/usr/src/..., /usr/lib/linux-kbuild-...) are
# re-pointed at the unpacked tree. Two config symbols must be cleared on
# the make command line when building with bookworm's gcc-12 and without
# pahole; tests/vm-lib.sh passes them (see --make-args).
#
# Result: $COOLHAND_VM_CACHE/<kver>/{vmlinuz,config,build/} where build/ is
# the kbuild dir for `make -C`. Idempotent: a complete tree is reused with
# no network access.
#
#   scripts/fetch-guest-kbuild.sh               fetch (default kver below)
#   scripts/fetch-guest-kbuild.sh --print       print the kbuild dir, fetch nothing
#   scripts/fetch-guest-kbuild.sh --make-args   print the extra make arguments
#   COOLHAND_KBUILD_KVER=7.3.4+deb13-amd64 (default)
set -euo pipefail

cache="${COOLHAND_VM_CACHE:-/var/cache/coolhand-vm}"
kver="${COOLHAND_KBUILD_KVER:-7.3.4+deb13-amd64}"
mode=fetch
for arg in "$@"; do
  case "$arg" in
    --print) mode=print ;;
    --make-args) mode=make-args ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    *) echo "fetch-guest-kbuild.sh: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

die() { echo "fetch-guest-kbuild.sh: $*" >&2; exit 1; }

base="${kver%-*}"  # 7.3.4+deb13, without the flavour (amd64)
[ "$base" != "$kver" ] || die "kernel version '$kver' has no flavour suffix"
series="$(echo "$base" | sed -n 's/^\([0-9]*\.[0-9]*\)\..*/\1/p')"  # 7.3
[ -n "$series" ] || die "cannot derive the source series from '$kver'"
dest="$cache/$kver"
build="$dest/build"

if [ "$mode" = print ]; then
  echo "$build"
  exit 0
fi
if [ "$mode" = make-args ]; then
  # The headers name gcc-14, bookworm has gcc-12; gcc-12 has no
  # -fmin-function-alignment (Kbuild then uses -falign-functions); no
  # pahole on the host, so no module BTF and no pahole version to compare.
  echo "CC=gcc CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT= CONFIG_DEBUG_INFO_BTF_MODULES= CONFIG_PAHOLE_VERSION=0"
  exit 0
fi
if [ -s "$dest/vmlinuz" ] && [ -e "$dest/.kbuild-complete" ]; then
  echo "fetch-guest-kbuild.sh: $build already present"
  echo "$build"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ] && ! { mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ]; }; then
  command -v sudo >/dev/null || die "cannot write $cache; set COOLHAND_VM_CACHE or run as root"
  SUDO=sudo
fi
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || die "$keyring missing (debian-archive-keyring)"
[ -e /usr/include/gelf.h ] || die "libelf-dev missing (objtool is rebuilt from source): scripts/install-deps.sh --vm"

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
echo "fetch-guest-kbuild.sh: reading trixie(-backports) package lists (private apt state)" >&2
apt-get "${apt_private[@]}" update -qq || die "apt-get update (private trixie lists) failed"

image_pkg=""
for p in "linux-binary-$kver" "linux-image-$kver" "linux-image-$kver-unsigned"; do
  if (cd "$work/dl" && apt-get "${apt_private[@]}" download "$p" >/dev/null 2>&1); then
    image_pkg="$p"
    break
  fi
done
[ -n "$image_pkg" ] || die "no image package for $kver in trixie(-backports)"
for p in "linux-headers-$kver" "linux-headers-$base-common" "linux-kbuild-$base" "linux-source-$series"; do
  echo "fetch-guest-kbuild.sh: downloading $p" >&2
  (cd "$work/dl" && apt-get "${apt_private[@]}" download "$p" >/dev/null 2>&1) ||
    die "cannot download $p from trixie(-backports)"
done

root="$work/root"
mkdir "$root"
for deb in "$work"/dl/*.deb; do
  case "$(basename "$deb")" in
    linux-source-*) dpkg-deb -x "$deb" "$work/src" ;;
    *) dpkg-deb -x "$deb" "$root" ;;
  esac
done
# linux-binary-* ships the image as /usr/lib/modules/<kver>/vmlinuz,
# linux-image-* as /boot/vmlinuz-<kver>.
vmlinuz=""
for f in "$root/usr/lib/modules/$kver/vmlinuz" "$root/boot/vmlinuz-$kver"; do
  [ -s "$f" ] && { vmlinuz="$f"; break; }
done
[ -n "$vmlinuz" ] || die "$image_pkg has no vmlinuz for $kver"

stage="$work/stage"
mkdir -p "$stage"
cp "$vmlinuz" "$stage/vmlinuz"
cp "$root/usr/src/linux-headers-$kver/.config" "$stage/config"
# The three header/kbuild directories side by side, under the names the
# packages' relative symlinks expect, with their absolute paths rewritten.
mkdir -p "$stage/usr/src" "$stage/usr/lib"
cp -a "$root/usr/src/linux-headers-$kver" "$stage/usr/src/"
cp -a "$root/usr/src/linux-headers-$base-common" "$stage/usr/src/"
cp -a "$root/usr/lib/linux-kbuild-$base" "$stage/usr/lib/"
ln -s "usr/src/linux-headers-$kver" "$stage/build"

# Re-point the headers' two absolute paths (KBUILD_OUTPUT and the common
# tree's Makefile): at the staging tree for the modpost build below, then
# at the final location.
hdr_mk="$stage/usr/src/linux-headers-$kver/Makefile"
sed -i "s|/usr/src/linux-headers-$kver|$stage/usr/src/linux-headers-$kver|; s|/usr/src/linux-headers-$base-common|$stage/usr/src/linux-headers-$base-common|" "$hdr_mk"
grep -q "^include $stage/usr/src/linux-headers-$base-common/Makefile" "$hdr_mk" ||
  die "unexpected layout of linux-headers-$kver/Makefile"

# objtool and modpost for this host's glibc, from linux-source.
src_tar="$(ls "$work"/src/usr/src/linux-source-"$series".tar.* | head -n 1)"
echo "fetch-guest-kbuild.sh: extracting tools/, scripts/ and include/ from $(basename "$src_tar")" >&2
tar -xf "$src_tar" -C "$work/src" "linux-source-$series/tools" "linux-source-$series/scripts" \
  "linux-source-$series/include"
lsrc="$work/src/linux-source-$series"
echo "fetch-guest-kbuild.sh: building objtool" >&2
mkdir "$work/objtool"
make -s -C "$lsrc/tools/objtool" O="$work/objtool" -j2 >"$work/objtool.log" 2>&1 ||
  { cat "$work/objtool.log" >&2; die "objtool build failed"; }
kb="$stage/usr/lib/linux-kbuild-$base"
cp "$work/objtool/objtool" "$kb/tools/objtool/objtool.real-x86"
echo "fetch-guest-kbuild.sh: building modpost" >&2
cp -r "$lsrc/scripts/mod" "$work/modpost"
mv "$work/modpost/Makefile" "$work/modpost/Kbuild"
# shellcheck disable=SC2046
make -s -C "$stage/usr/src/linux-headers-$kver" M="$work/modpost" $("$0" --make-args) \
  HOSTCFLAGS="-I$lsrc/scripts/include" KBUILD_MODPOST_NOFINAL=1 modules >"$work/modpost.log" 2>&1 ||
  { cat "$work/modpost.log" >&2; die "modpost build failed"; }
cp "$work/modpost/modpost" "$kb/scripts/mod/modpost.real-lsb-64"
sed -i "s|$stage/|$dest/|g" "$hdr_mk"
touch "$stage/.kbuild-complete"

$SUDO mkdir -p "$cache"
tmpdest="$dest.tmp.$$"
$SUDO rm -rf "$tmpdest" "$dest"
$SUDO cp -a "$stage" "$tmpdest"
$SUDO mv "$tmpdest" "$dest"
$SUDO chmod -R a+rX "$dest"
echo "fetch-guest-kbuild.sh: $build ($image_pkg)" >&2
echo "$build"
