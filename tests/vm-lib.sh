# Shared by the qemu guest tests (tests/kmod/run-vm-tests.sh,
# tests/thresholds, tests/resume and tests/replay_vm run-vm-test.sh);
# sourced, not run. The caller sets VM_NAME (its script name, for messages)
# before sourcing. The guest side of the same tests is tests/vm-guest-lib.sh.
#
# skip: a missing prerequisite: exit 77 (ctest SKIP_RETURN_CODE) locally,
#       but a failure under CI=true, where nothing may be skipped.
# fail: a real failure.
# vm_check_tools: qemu, a static busybox, cpio and gzip; sets $qemu and
#       $busybox.
# vm_initramfs_base ROOT [INIT]: an initramfs tree with busybox and its
#       applets, an /etc/passwd with root and nobody, tests/vm-guest-lib.sh
#       as /vm-guest-lib.sh and INIT (the test's guest/init.sh, which
#       sources it) as /init. INIT is optional only for tests/lockstep, not
#       converted yet, which installs its own /init.
# vm_copy_dynamic BIN ROOT DEST: BIN as ROOT/DEST, plus every library ldd
#       resolves for it and the loader, at the paths ldd names (the loader's
#       default search path finds them in the guest).
# vm_pack_initramfs ROOT OUT: a gzipped newc cpio of ROOT.
# vm_boot WORK VMLINUZ TIMEOUT_S APPEND [QEMU_ARG...]: boot VMLINUZ with
#       WORK/initramfs.cpio.gz under TCG (COOLHAND_VM_ACCEL), 512 MiB, the
#       serial console (ttyS0) in WORK/serial.log and printed afterwards,
#       kernel command line "console=ttyS0 quiet panic=-1 APPEND
#       $COOLHAND_VM_APPEND", isa-debug-exit, within TIMEOUT_S seconds;
#       QEMU_ARGs are added (-smp, a second -serial, -acpitable, ...). Then
#       the verdict: fails unless the guest passed twice, through
#       isa-debug-exit (qemu exits with (value << 1) | 1, the guest writes 0
#       on a pass; a panic or hang gives neither) and with the
#       "COOLHAND-VM-RESULT: PASS" line of tests/vm-guest-lib.sh's
#       vm_finish, and printed no "not ok" line. Sets $vm_log and
#       $vm_elapsed (s). A guest whose kernel crashed before its /init
#       started (an oops or panic on the console and no "COOLHAND-VM-INIT"
#       line, which tests/vm-guest-lib.sh's vm_guest_start prints first) is
#       booted once more, saying so: nothing of ours had run yet. Seen
#       once: Debian's 7.3 kernel under TCG with -smp 2, "Oops: int3" in
#       sched_clock_cpu 1.8 s into boot (session 13's CI).
vm_lib_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

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
  local root=$1 init=${2:-} applet
  rm -rf "$root"
  mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,etc}
  cp "$busybox" "$root/bin/busybox"
  for applet in $("$busybox" --list); do
    # A "busybox" link would overwrite the binary with a self-link (ELOOP).
    [ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"
  done
  echo "root:x:0:0:root:/:/bin/sh" >"$root/etc/passwd"
  echo "nobody:x:65534:65534:nobody:/:/bin/false" >>"$root/etc/passwd"
  cp "$vm_lib_dir/vm-guest-lib.sh" "$root/vm-guest-lib.sh"
  if [ -n "$init" ]; then
    cp "$init" "$root/init"
    chmod +x "$root/init"
  fi
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

vm_boot() {
  local work=$1 vmlinuz=$2 timeout_s=$3 append=$4 t0 status attempt
  shift 4
  vm_log="$work/serial.log"
  for attempt in 1 2; do
    t0=$SECONDS
    vm_boot_once "$work" "$vmlinuz" "$timeout_s" "$append" "$@"
    status=$vm_status
    if [ "$attempt" -eq 1 ] && [ "$status" -ne 1 ] && ! grep -q '^COOLHAND-VM-INIT' "$vm_log" &&
      grep -qE 'Oops|Kernel panic|BUG: ' "$vm_log"; then
      echo "$VM_NAME: the guest kernel crashed before /init started (above): booting once more"
      continue
    fi
    break
  done
  vm_elapsed=$((SECONDS - t0))
  echo "$VM_NAME: qemu exited with $status after ${vm_elapsed}s"
  [ "$status" -ne 124 ] || fail "guest timed out after ${timeout_s}s"
  [ "$status" -eq 1 ] || fail "guest did not report a pass through isa-debug-exit (qemu status $status)"
  grep -q '^COOLHAND-VM-RESULT: PASS' "$vm_log" || fail "no pass marker on the serial console"
  ! grep -q '^not ok ' "$vm_log" || fail "failed checks in the guest"
}

# vm_boot_once WORK VMLINUZ TIMEOUT_S APPEND [QEMU_ARG...]: one boot of
# vm_boot's, its serial console in $vm_log and printed, qemu's exit status
# in $vm_status.
vm_boot_once() {
  local work=$1 vmlinuz=$2 timeout_s=$3 append=$4
  shift 4
  echo "$VM_NAME: booting $vmlinuz (${COOLHAND_VM_ACCEL:-tcg}) $*"
  # log_buf_len=4M: the guest checks the whole kernel log at the end
  # (vm_check_kernel_log); kmod_vm's 50 load/unload cycles overflowed the
  # default ring on a loaded host, and the positive control (a marker
  # planted at the start) caught it: a splat in the lost part would have
  # gone unseen.
  # TCG by default: /dev/kvm exists on some of these machines but hangs the
  # guest (nested virtualisation without the CPU features qemu needs).
  set +e
  timeout "$timeout_s" "$qemu" -machine pc -accel "${COOLHAND_VM_ACCEL:-tcg}" -m 512 \
    -kernel "$vmlinuz" -initrd "$work/initramfs.cpio.gz" \
    -append "console=ttyS0 quiet panic=-1 log_buf_len=4M $append ${COOLHAND_VM_APPEND:-}" \
    -display none -serial stdio -no-reboot -net none -monitor none \
    -device isa-debug-exit,iobase=0xf4,iosize=0x04 "$@" </dev/null >"$vm_log" 2>&1
  vm_status=$?
  set -e
  tr -d '\r' <"$vm_log" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g'
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
