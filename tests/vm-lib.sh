# Shared by the qemu guest tests (tests/kmod/run-vm-tests.sh,
# tests/thresholds/run-vm-test.sh); sourced, not run. The caller sets
# VM_NAME (its script name, for messages) before sourcing.
#
# skip: a missing prerequisite: exit 77 (ctest SKIP_RETURN_CODE) locally,
#       but a failure under CI=true, where nothing may be skipped.
# fail: a real failure.
# vm_check_tools: qemu, a static busybox, cpio and gzip; sets $qemu and
#       $busybox.
# vm_initramfs_base ROOT: an initramfs tree with busybox and its applets
#       and an /etc/passwd with root and nobody.
# vm_copy_dynamic BIN ROOT DEST: BIN as ROOT/DEST, plus every library ldd
#       resolves for it and the loader, at the paths ldd names (the loader's
#       default search path finds them in the guest).
# vm_pack_initramfs ROOT OUT: a gzipped newc cpio of ROOT.
# vm_kernel_headers [KVER]: sets $kver, $kdir (the kbuild dir), $kvmlinuz
#       (the guest image) and $kbuild_args (extra make arguments). Without
#       KVER: the Debian ABI version whose kbuild tree is installed
#       (/lib/modules/<ver>/build; scripts/fetch-guest-kernel.sh's image).
#       With KVER not installed: the tree scripts/fetch-guest-kbuild.sh put
#       in the cache (e.g. 7.3.4+deb13-amd64). Skips when missing. Needs
#       $repo.
# vm_guest_kernel 6.1|7.3: vm_kernel_headers for a kernel series: 6.1 is
#       Debian 12's installed headers, 7.3 trixie-backports' kernel
#       (COOLHAND_KBUILD_KVER, default 7.3.4+deb13-amd64, from
#       scripts/fetch-guest-kbuild.sh).
# vm_build_kmod KMOD_SRC OUT: coolhand.ko and coolhand_emul.ko built for
#       $kver into OUT (Kbuild turns warnings into errors; any other warning
#       fails too).

skip() {
  if [ "${CI:-}" = true ]; then
    echo "$VM_NAME: FAIL (CI=true, prerequisite missing): $*" >&2
    exit 1
  fi
  echo "$VM_NAME: SKIP: $*"
  exit 77
}
fail() { echo "$VM_NAME: FAIL: $*" >&2; exit 1; }

vm_check_tools() {
  qemu="$(command -v qemu-system-x86_64 || true)"
  [ -n "$qemu" ] || skip "qemu-system-x86_64 not installed (scripts/install-deps.sh --vm)"
  busybox=/bin/busybox
  [ -x "$busybox" ] && ! ldd "$busybox" >/dev/null 2>&1 ||
    skip "static /bin/busybox not installed (busybox-static)"
  command -v cpio >/dev/null || skip "cpio not installed"
  command -v gzip >/dev/null || skip "gzip not installed"
}

vm_initramfs_base() {
  local root=$1 applet
  rm -rf "$root"
  mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,etc}
  cp "$busybox" "$root/bin/busybox"
  for applet in $("$busybox" --list); do
    # A "busybox" link would overwrite the binary with a self-link (ELOOP).
    [ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"
  done
  echo "root:x:0:0:root:/:/bin/sh" >"$root/etc/passwd"
  echo "nobody:x:65534:65534:nobody:/:/bin/false" >>"$root/etc/passwd"
}

vm_copy_dynamic() {
  local bin=$1 root=$2 dest=$3 lib
  cp "$bin" "$root/$dest"
  chmod +x "$root/$dest"
  ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' |
    while read -r lib; do
      mkdir -p "$root$(dirname "$lib")"
      cp -L "$lib" "$root$lib"
    done
}

vm_pack_initramfs() {
  (cd "$1" && find . | cpio -o -H newc --quiet | gzip -1) >"$2"
}

vm_kernel_headers() {
  local build
  kver="${1:-}"
  kbuild_args=()
  if [ -z "$kver" ]; then
    for build in /lib/modules/*/build; do
      [ -e "$build/Makefile" ] && kver="$(basename "$(dirname "$build")")"
    done
    [ -n "$kver" ] || skip "no kernel headers under /lib/modules/*/build (scripts/install-deps.sh --vm)"
  fi
  if [ -e "/lib/modules/$kver/build/Makefile" ]; then
    kdir="/lib/modules/$kver/build"
    kvmlinuz="$("$repo/scripts/fetch-guest-kernel.sh" --print)"
    case "$kvmlinuz" in
      */"$kver"/vmlinuz) ;;
      *) fail "fetch-guest-kernel.sh's image $kvmlinuz is not for $kver" ;;
    esac
    return 0
  fi
  kdir="$(COOLHAND_KBUILD_KVER="$kver" "$repo/scripts/fetch-guest-kbuild.sh" --print)"
  [ -e "$(dirname "$kdir")/.kbuild-complete" ] ||
    skip "no kbuild tree for $kver at $kdir (scripts/fetch-guest-kbuild.sh, run by scripts/install-deps.sh --vm)"
  kvmlinuz="$(dirname "$kdir")/vmlinuz"
  # shellcheck disable=SC2207
  kbuild_args=($("$repo/scripts/fetch-guest-kbuild.sh" --make-args))
}

vm_guest_kernel() {
  case "$1" in
    6.1) vm_kernel_headers ;;
    7.3) vm_kernel_headers "${COOLHAND_KBUILD_KVER:-7.3.4+deb13-amd64}" ;;
    *) fail "--kernel $1: only 6.1 (Debian 12) and 7.3 (trixie-backports) are supported" ;;
  esac
}

vm_build_kmod() {
  local src=$1 out=$2 ko
  echo "$VM_NAME: building coolhand.ko and coolhand_emul.ko for $kver in $out"
  rm -rf "$out"
  mkdir -p "$out"
  make -s -C "$src" BUILD_DIR="$out" KVER="$kver" KDIR="$kdir" "${kbuild_args[@]}" -j2 >"$out.log" 2>&1 || {
    cat "$out.log"
    fail "module build failed"
  }
  grep -i 'warning' "$out.log" | grep -v 'Skipping BTF' && fail "module build printed warnings"
  for ko in coolhand coolhand_emul; do
    [ -s "$out/$ko.ko" ] || fail "no $out/$ko.ko after the build"
  done
}
