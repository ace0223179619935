#!/usr/bin/env bash
# Build coolhand.ko and coolhand_emul.ko against the installed Debian
# headers, pack them with the guest test program, the real coolhandd (with its shared libraries and the
# dynamic loader, as ldd lists them) and tests/kmod/guest/init.sh into an
# initramfs, boot Debian's own kernel in qemu and report the guest's verdict.
#
#   run-vm-tests.sh --guest-bin FILE [--daemon-bin FILE] [--work-dir DIR]
#                   [--kmod-src DIR] [--missing REASON] [--kernel 6.1|7.3]
#
# --kernel 6.1 (default): Debian 12's installed headers and
# scripts/fetch-guest-kernel.sh's image; 7.3: trixie-backports' kernel with
# the kbuild tree of scripts/fetch-guest-kbuild.sh (tests/vm-lib.sh,
# vm_guest_kernel).
#
# Without --daemon-bin (a standalone tests/kmod build has no coolhandd) the
# guest skips its daemon checks and says so; with CI=true that is a failure.
#
# Exit status: 0 pass; 1 fail; 77 skipped because a prerequisite is missing
# (headers, qemu, busybox-static, cpio, the guest kernel, the test program).
# With CI=true a missing prerequisite is a failure instead of a skip.
# A pass needs both the isa-debug-exit code of a passing guest and the
# "COOLHAND-VM-RESULT: PASS" marker on the serial console (vm_boot,
# tests/vm-lib.sh).
#
# Environment: COOLHAND_VM_CACHE (guest kernel cache, see
# scripts/fetch-guest-kernel.sh), COOLHAND_VM_TIMEOUT (s, default 600),
# COOLHAND_VM_SMP (vCPUs, default 2: the stress test wants real
# parallelism), COOLHAND_VM_ACCEL (default tcg), COOLHAND_VM_APPEND (extra kernel command line, e.g.
# "coolhand_cycles=5 coolhand_stress_seconds=1" for a quick run).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
kmod_src="$repo/kmod"
work=""
guest_bin=""
daemon_bin=""
missing=""
kernel=6.1
while [ $# -gt 0 ]; do
  case "$1" in
    --kmod-src) kmod_src="$2"; shift 2 ;;
    --work-dir) work="$2"; shift 2 ;;
    --guest-bin) guest_bin="$2"; shift 2 ;;
    --daemon-bin) daemon_bin="$2"; shift 2 ;;
    --missing) missing="$2"; shift 2 ;;
    --kernel) kernel="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "run-vm-tests.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -n "$work" ] || work="$(mktemp -d /tmp/coolhand-vm.XXXXXX)"

VM_NAME=run-vm-tests.sh
# shellcheck source=../vm-lib.sh
. "$here/../vm-lib.sh"

# ---- prerequisites
[ -z "$missing" ] || skip "$missing"
vm_guest_kernel "$kernel"
vm_check_tools
vmlinuz="$kvmlinuz"
[ -s "$vmlinuz" ] || skip "guest kernel $vmlinuz missing (scripts/fetch-guest-kernel.sh, fetch-guest-kbuild.sh)"
[ -n "$guest_bin" ] && [ -x "$guest_bin" ] || skip "guest test program '$guest_bin' not built"
if [ -z "$daemon_bin" ] && [ "${CI:-}" = true ]; then
  fail "CI=true and no --daemon-bin: the guest's coolhandd checks would not run"
fi
[ -z "$daemon_bin" ] || [ -x "$daemon_bin" ] || fail "coolhandd '$daemon_bin' not built"

# ---- build the module
mkdir -p "$work"
vm_build_kmod "$kmod_src" "$work/kmod"

# ---- initramfs: busybox, the modules, the test program, /init
root="$work/initramfs"
vm_initramfs_base "$root" "$here/guest/init.sh"
cp "$work/kmod/coolhand.ko" "$work/kmod/coolhand_emul.ko" "$root/"
cp "$guest_bin" "$root/coolhand_vmtest"
if [ -n "$daemon_bin" ]; then
  vm_copy_dynamic "$daemon_bin" "$root" coolhandd
  cp "$here/guest/daemon-policy.yaml" "$root/daemon-policy.yaml"
fi
chmod +x "$root/coolhand_vmtest"
vm_pack_initramfs "$root" "$work/initramfs.cpio.gz"

# ---- boot, and the guest's verdict
vm_boot "$work" "$vmlinuz" "${COOLHAND_VM_TIMEOUT:-600}" "" -smp "${COOLHAND_VM_SMP:-2}"
echo "run-vm-tests.sh: PASS ($(grep -c '^ok ' "$vm_log") checks, VM stage ${vm_elapsed}s)"
