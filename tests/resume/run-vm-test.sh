#!/usr/bin/env bash
# Resume from a real suspend, end to end (issue 15): build coolhand.ko and
# coolhand_emul.ko, pack them with the real coolhandd, coolhandctl and
# dbus-daemon (each with the shared libraries ldd names), guest_clocks,
# guest/policy.yaml and guest/init.sh into an initramfs, boot Debian's own
# 6.1 kernel in qemu with ACPI S3 enabled, and report the guest's verdict.
# The guest suspends to RAM for real and checks that coolhandd, without
# logind, notices the resume from the clocks alone (see guest/init.sh).
#
#   run-vm-test.sh --daemon FILE --ctl FILE --clocks FILE [--work-dir DIR]
#                  [--kmod-src DIR] [--missing REASON]
#
# Exit status: 0 pass; 1 fail; 77 skipped because a prerequisite is missing
# (kernel headers, qemu, busybox-static, cpio, dbus-daemon, the guest
# kernel, the binaries). With CI=true a missing prerequisite is a failure.
# A pass needs both isa-debug-exit's pass code and the
# "COOLHAND-VM-RESULT: PASS" marker on the serial console (vm_boot,
# tests/vm-lib.sh).
#
# Environment: COOLHAND_VM_CACHE (see scripts/fetch-guest-kernel.sh),
# COOLHAND_VM_TIMEOUT (s, default 240), COOLHAND_VM_ACCEL (default tcg),
# COOLHAND_VM_APPEND (extra kernel command line, e.g.
# "coolhand_sleep_seconds=5").
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
kmod_src="$repo/kmod"
work=""
daemon=""
ctl=""
clocks=""
missing=""
while [ $# -gt 0 ]; do
  case "$1" in
    --daemon) daemon="$2"; shift 2 ;;
    --ctl) ctl="$2"; shift 2 ;;
    --clocks) clocks="$2"; shift 2 ;;
    --work-dir) work="$2"; shift 2 ;;
    --kmod-src) kmod_src="$2"; shift 2 ;;
    --missing) missing="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "run-vm-test.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -n "$work" ] || work="$(mktemp -d /tmp/coolhand-resume.XXXXXX)"

VM_NAME=resume/run-vm-test.sh
# shellcheck source=../vm-lib.sh
. "$here/../vm-lib.sh"

# ---- prerequisites
[ -z "$missing" ] || skip "$missing"
vm_kernel_headers
vm_check_tools
dbus_daemon="$(command -v dbus-daemon || true)"
[ -n "$dbus_daemon" ] || skip "dbus-daemon not installed (dbus)"
vmlinuz="$("$repo/scripts/fetch-guest-kernel.sh" --print)"
[ -s "$vmlinuz" ] || skip "guest kernel $vmlinuz missing (scripts/fetch-guest-kernel.sh)"
[ -n "$daemon" ] && [ -x "$daemon" ] || skip "coolhandd '$daemon' not built"
[ -n "$ctl" ] && [ -x "$ctl" ] || skip "coolhandctl '$ctl' not built"
[ -n "$clocks" ] && [ -x "$clocks" ] || skip "guest_clocks '$clocks' not built"

# ---- the modules
rm -rf "$work"
mkdir -p "$work"
vm_build_kmod "$kmod_src" "$work/kmod"

# ---- initramfs
root="$work/initramfs"
vm_initramfs_base "$root" "$here/guest/init.sh"
cp "$work/kmod/coolhand.ko" "$work/kmod/coolhand_emul.ko" "$root/"
vm_copy_dynamic "$daemon" "$root" coolhandd
vm_copy_dynamic "$ctl" "$root" coolhandctl
vm_copy_dynamic "$dbus_daemon" "$root" dbus-daemon
cp "$clocks" "$root/guest_clocks"
cp "$here/guest/policy.yaml" "$root/policy.yaml"
chmod +x "$root/guest_clocks"
vm_pack_initramfs "$root" "$work/initramfs.cpio.gz"

# ---- boot, and the guest's verdict
# vm_boot's "-machine pc" (i440fx): its PIIX4 power management offers ACPI
# S3 once disable_s3=0; SeaBIOS takes the guest back through its wake-up
# vector. The RTC follows the host clock (qemu's default -rtc clock=host),
# so it keeps time while the guest sleeps and its alarm wakes the guest.
vm_boot "$work" "$vmlinuz" "${COOLHAND_VM_TIMEOUT:-240}" "" -smp 1 -global PIIX4_PM.disable_s3=0
echo "run-vm-test.sh: PASS ($(grep -c '^ok ' "$vm_log") checks, VM stage ${vm_elapsed}s)"
