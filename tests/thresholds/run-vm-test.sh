#!/usr/bin/env bash
# Run the real coolhandd against a kernel with thermal netlink user
# thresholds: boot Debian's trixie-backports kernel (scripts/
# fetch-threshold-kernel.sh) in qemu with an ACPI thermal zone from
# guest/tz.asl, pack the daemon with its shared libraries, the probe and
# guest/init.sh into an initramfs, and report the guest's verdict.
#
#   run-vm-test.sh --daemon FILE --probe FILE [--work-dir DIR] [--missing REASON]
#                  [--fallback]
#
# --fallback boots Debian 12's own kernel instead (scripts/
# fetch-guest-kernel.sh, 6.1: no user thresholds) and has the guest check
# the daemon's fallback to sampling events.
#
# Exit status: 0 pass; 1 fail; 77 skipped because a prerequisite is missing
# (qemu, busybox-static, cpio, iasl, the guest kernel, the binaries).
# With CI=true a missing prerequisite is a failure instead of a skip.
# A pass needs both isa-debug-exit's pass code and the
# "COOLHAND-VM-RESULT: PASS" marker on the serial console (vm_boot,
# tests/vm-lib.sh).
#
# Environment: COOLHAND_VM_CACHE and COOLHAND_THR_KVER (see the fetch
# script), COOLHAND_VM_TIMEOUT (s, default 240), COOLHAND_VM_ACCEL (default
# tcg), COOLHAND_VM_APPEND (extra kernel command line, e.g.
# "coolhand_idle_seconds=10").
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
work=""
daemon=""
probe=""
missing=""
fallback=0
while [ $# -gt 0 ]; do
  case "$1" in
    --daemon) daemon="$2"; shift 2 ;;
    --probe) probe="$2"; shift 2 ;;
    --work-dir) work="$2"; shift 2 ;;
    --missing) missing="$2"; shift 2 ;;
    --fallback) fallback=1; shift ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "run-vm-test.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -n "$work" ] || work="$(mktemp -d /tmp/coolhand-thr.XXXXXX)"

VM_NAME=run-vm-test.sh
# shellcheck source=../vm-lib.sh
. "$here/../vm-lib.sh"

# ---- prerequisites
[ -z "$missing" ] || skip "$missing"
vm_check_tools
command -v iasl >/dev/null || skip "iasl not installed (acpica-tools; scripts/install-deps.sh --vm)"
expect=thresholds
fetch=fetch-threshold-kernel.sh
if [ "$fallback" -eq 1 ]; then
  expect=fallback
  fetch=fetch-guest-kernel.sh
fi
vmlinuz="$("$repo/scripts/$fetch" --print)"
[ -s "$vmlinuz" ] || skip "guest kernel $vmlinuz missing (scripts/$fetch)"
[ -n "$daemon" ] && [ -x "$daemon" ] || skip "coolhandd '$daemon' not built"
[ -n "$probe" ] && [ -x "$probe" ] || skip "thresholds_probe '$probe' not built"

# ---- the ACPI table
rm -rf "$work"
mkdir -p "$work"
iasl -p "$work/tz" "$here/guest/tz.asl" >"$work/iasl.log" 2>&1 || {
  cat "$work/iasl.log"
  fail "iasl could not compile guest/tz.asl"
}

# ---- initramfs: busybox, coolhandd with its libraries and loader, the probe
root="$work/initramfs"
vm_initramfs_base "$root" "$here/guest/init.sh"
vm_copy_dynamic "$daemon" "$root" coolhandd
cp "$probe" "$root/thresholds_probe"
cp "$here/guest/policy.yaml" "$root/policy.yaml"
chmod +x "$root/thresholds_probe"
vm_pack_initramfs "$root" "$work/initramfs.cpio.gz"

# ---- boot, and the guest's verdict
# tz.asl places its CMOS region under \_SB.PCI0.S08.RTC, where vm_boot's
# "-machine pc" puts the RTC. One vCPU: the machine's two cores are shared.
echo "run-vm-test.sh: expecting $expect"
vm_boot "$work" "$vmlinuz" "${COOLHAND_VM_TIMEOUT:-240}" "coolhand_expect=$expect" -smp 1 \
  -acpitable file="$work/tz.aml"
echo "run-vm-test.sh: PASS ($(grep -c '^ok ' "$vm_log") checks, VM stage ${vm_elapsed}s)"
