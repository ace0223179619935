#!/usr/bin/env bash
# Obtain a 6.13+ guest kernel WITH a kbuild tree, so coolhand.ko can be built
# for it and loaded in qemu (the lockstep stage on a newer kernel, issue 14).
#
# Debian 12's own kernel is 6.1; the newer one comes from trixie-backports:
# its image (linux-binary-<kver>: /boot/vmlinuz), headers
# (linux-headers-<kver> and linux-headers-<base>-common) and kbuild tools
# (linux-kbuild-<base>), downloaded with a PRIVATE apt configuration
# (scripts/lib/private-apt.sh) and only unpacked (dpkg-deb), never
# installed: the host's apt and dpkg state are not touched. Its
# linux-source-<major.minor> is the one scripts/fetch-kernel-source.sh
# keeps whole in the cache (--full; downloaded there once, shared with the
# kernel differential test).
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
prog=fetch-guest-kbuild.sh
# shellcheck source=scripts/lib/private-apt.sh
. "$(dirname "$0")/lib/private-apt.sh"

cache="${COOLHAND_VM_CACHE:-/var/cache/coolhand-vm}"
kver="${COOLHAND_KBUILD_KVER:-7.3.4+deb13-amd64}"
mode=fetch
for arg in "$@"; do
  case "$arg" in
    --print) mode=print ;;
    --make-args) mode=make-args ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "$prog: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

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
  echo "$prog: $build already present"
  echo "$build"
  exit 0
fi

cache_init
[ -e /usr/include/gelf.h ] || die "libelf-dev missing (objtool is rebuilt from source): scripts/install-deps.sh --vm"
# linux-source-<series>, whole, from the cache (downloaded there if missing).
COOLHAND_KSRC_VER="$series" "$(dirname "$0")/fetch-kernel-source.sh" --full >&2
src_tar="$(COOLHAND_KSRC_VER="$series" "$(dirname "$0")/fetch-kernel-source.sh" --print-full)"

work_init
private_apt_init
image_pkg=""
for p in "linux-binary-$kver" "linux-image-$kver" "linux-image-$kver-unsigned"; do
  if apt_download "$p"; then
    image_pkg="$p"
    mv "$work"/dl/*.deb "$work/"
    break
  fi
done
[ -n "$image_pkg" ] || die "no image package for $kver in trixie(-backports)"
for p in "linux-headers-$kver" "linux-headers-$base-common" "linux-kbuild-$base"; do
  echo "$prog: downloading $p" >&2
  apt_download "$p" || die "cannot download $p from trixie(-backports)"
  mv "$work"/dl/*.deb "$work/"
done

root="$work/root"
mkdir "$root"
for deb in "$work"/*.deb; do
  dpkg-deb -x "$deb" "$root"
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
mkdir "$work/src"
echo "$prog: extracting tools/, scripts/ and include/ from $(basename "$src_tar")" >&2
tar -xf "$src_tar" -C "$work/src" "linux-source-$series/tools" "linux-source-$series/scripts" \
  "linux-source-$series/include"
lsrc="$work/src/linux-source-$series"
echo "$prog: building objtool" >&2
mkdir "$work/objtool"
make -s -C "$lsrc/tools/objtool" O="$work/objtool" -j2 >"$work/objtool.log" 2>&1 ||
  { cat "$work/objtool.log" >&2; die "objtool build failed"; }
kb="$stage/usr/lib/linux-kbuild-$base"
cp "$work/objtool/objtool" "$kb/tools/objtool/objtool.real-x86"
echo "$prog: building modpost" >&2
cp -r "$lsrc/scripts/mod" "$work/modpost"
mv "$work/modpost/Makefile" "$work/modpost/Kbuild"
# shellcheck disable=SC2046
make -s -C "$stage/usr/src/linux-headers-$kver" M="$work/modpost" $("$0" --make-args) \
  HOSTCFLAGS="-I$lsrc/scripts/include" KBUILD_MODPOST_NOFINAL=1 modules >"$work/modpost.log" 2>&1 ||
  { cat "$work/modpost.log" >&2; die "modpost build failed"; }
cp "$work/modpost/modpost" "$kb/scripts/mod/modpost.real-lsb-64"
sed -i "s|$stage/|$dest/|g" "$hdr_mk"
touch "$stage/.kbuild-complete"

cache_publish "$stage" "$dest"
echo "$prog: $build ($image_pkg)" >&2
echo "$build"
