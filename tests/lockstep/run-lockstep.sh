#!/usr/bin/env bash
# The kernel in the loop (issue 14): build coolhand.ko and coolhand_emul.ko,
# boot one qemu guest with Debian's kernel that runs every governor x
# workload in lock step (guest/init.sh, guest/lockstep_guest.cpp), then
# repeat every run in the simulator and compare step by step
# (lockstep_compare). One boot serves all runs.
#
#   run-lockstep.sh --guest FILE --compare FILE --kmod-src DIR --data DIR
#                   [--kernel 6.1|7.3] [--work-dir DIR] [--missing REASON]
#                   [--markdown FILE] [--daemon FILE --policy FILE]
#                   [--guest-policy FILE]
#
# --daemon and --policy add the real coolhandd (issue 14's user_space row):
# one "coolhandd" run per workload, the daemon on its lockstep clock running
# --policy with only its sources and knobs remapped to the emulated platform
# (`lockstep_guest daemon-policy`, generated here at every run and kept as
# WORK/initramfs/daemon-policy.yaml), compared with the simulator running
# --policy itself through the shared loop. --guest-policy gives the daemon
# another policy than the simulator gets (the positive control: a setpoint
# moved by 1 °C must fail the comparison).
#
# --data is sim/data (models/reference-umpc.yaml, workloads/*.csv).
# --kernel 6.1: Debian 12's installed headers and fetch-guest-kernel.sh's
# image; --kernel 7.3: the trixie-backports kernel (COOLHAND_KBUILD_KVER,
# default 7.3.4+deb13-amd64) with the tree scripts/fetch-guest-kbuild.sh
# put in the cache. lockstep_compare picks the simulator's rules from the
# guest's `uname -r` (6.1, or 6.13+ for 7.3).
# --markdown also writes the faithfulness table (docs/results.md).
#
# Environment: COOLHAND_LOCKSTEP_GOVERNORS (default "step_wise bang_bang
# fair_share power_allocator", plus "coolhandd" with --daemon), COOLHAND_LOCKSTEP_WORKLOADS (default
# "gaming gaming-charging navigation gaming-hot"), COOLHAND_LOCKSTEP_SEED
# (default 1), COOLHAND_VM_TIMEOUT (s, default 540), COOLHAND_VM_ACCEL
# (default tcg), COOLHAND_VM_CACHE (scripts/fetch-guest-kernel.sh).
#
# Exit status: 0 every run agrees; 1 a failure or a disagreement; 77
# skipped because a prerequisite is missing (a failure under CI=true).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
guest="" compare="" kmod_src="" data="" work="" missing="" markdown="" kernel=6.1
daemon="" policy="" guest_policy=""
while [ $# -gt 0 ]; do
  case "$1" in
    --guest) guest="$2"; shift 2 ;;
    --compare) compare="$2"; shift 2 ;;
    --kmod-src) kmod_src="$2"; shift 2 ;;
    --data) data="$2"; shift 2 ;;
    --kernel) kernel="$2"; shift 2 ;;
    --work-dir) work="$2"; shift 2 ;;
    --missing) missing="$2"; shift 2 ;;
    --markdown) markdown="$2"; shift 2 ;;
    --daemon) daemon="$2"; shift 2 ;;
    --policy) policy="$2"; shift 2 ;;
    --guest-policy) guest_policy="$2"; shift 2 ;;
    -h|--help) sed -n '2,36p' "$0"; exit 0 ;;
    *) echo "run-lockstep.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -n "$work" ] || work="$(mktemp -d /dev/shm/coolhand-lockstep.XXXXXX)"

VM_NAME=run-lockstep.sh
# shellcheck source=../vm-lib.sh
. "$here/../vm-lib.sh"

# ---- prerequisites
[ -z "$missing" ] || skip "$missing"
vm_check_tools
case "$kernel" in
  6.1) vm_kernel_headers ;;
  7.3) vm_kernel_headers "${COOLHAND_KBUILD_KVER:-7.3.4+deb13-amd64}" ;;
  *) fail "--kernel $kernel: only 6.1 (Debian 12) and 7.3 (trixie-backports) are supported" ;;
esac
vmlinuz="$kvmlinuz"
[ -s "$vmlinuz" ] || skip "guest kernel $vmlinuz missing (scripts/fetch-guest-kernel.sh, fetch-guest-kbuild.sh)"
[ -x "$guest" ] || skip "lockstep_guest '$guest' not built"
[ -x "$compare" ] || skip "lockstep_compare '$compare' not built"
model="$data/models/reference-umpc.yaml"
[ -r "$model" ] || fail "no model $model"

default_governors="step_wise bang_bang fair_share power_allocator"
if [ -n "$daemon" ]; then
  [ -x "$daemon" ] || skip "coolhandd '$daemon' not built"
  [ -r "$policy" ] || fail "--daemon needs --policy (the policy coolhandd and the simulator run)"
  command -v strip >/dev/null || skip "strip not installed (binutils)"
  default_governors="$default_governors coolhandd"
fi
governors="${COOLHAND_LOCKSTEP_GOVERNORS:-$default_governors}"
workloads="${COOLHAND_LOCKSTEP_WORKLOADS:-gaming gaming-charging navigation gaming-hot}"
seed="${COOLHAND_LOCKSTEP_SEED:-1}"

# ---- modules
rm -rf "$work"
mkdir -p "$work"
vm_build_kmod "$kmod_src" "$work/kmod"

# ---- initramfs
root="$work/initramfs"
vm_initramfs_base "$root"
cp "$work/kmod/coolhand.ko" "$work/kmod/coolhand_emul.ko" "$root/"
vm_copy_dynamic "$guest" "$root" lockstep_guest
if [ -n "$daemon" ]; then
  vm_copy_dynamic "$daemon" "$root" coolhandd
  strip --strip-debug "$root/coolhandd"  # ~40 MB of debug info in RelWithDebInfo
  "$guest" daemon-policy "$model" "${guest_policy:-$policy}" >"$root/daemon-policy.yaml" ||
    fail "cannot remap ${guest_policy:-$policy} to the emulated platform"
fi
cp "$model" "$root/model.yaml"
mkdir -p "$root/workloads"
runs=0
: >"$root/runs"
for w in $workloads; do
  [ -r "$data/workloads/$w.csv" ] || fail "no workload $data/workloads/$w.csv"
  cp "$data/workloads/$w.csv" "$root/workloads/"
  for g in $governors; do
    [ "$g" != coolhandd ] || [ -n "$daemon" ] || fail "coolhandd runs need --daemon and --policy"
    echo "$g $w $seed" >>"$root/runs"
    runs=$((runs + 1))
  done
done
cp "$here/guest/init.sh" "$root/init"
chmod +x "$root/init"
vm_pack_initramfs "$root" "$work/initramfs.cpio.gz"

# ---- boot: one vCPU (the machine's two cores are shared)
log="$work/serial.log"
echo "run-lockstep.sh: booting $vmlinuz (${COOLHAND_VM_ACCEL:-tcg}), $runs runs"
t0=$SECONDS
set +e
timeout "${COOLHAND_VM_TIMEOUT:-540}" "$qemu" -accel "${COOLHAND_VM_ACCEL:-tcg}" -cpu max \
  -m 512 -smp 1 -kernel "$vmlinuz" -initrd "$work/initramfs.cpio.gz" \
  -append "console=ttyS0 quiet panic=-1" \
  -nographic -no-reboot -net none -monitor none \
  -device isa-debug-exit,iobase=0xf4,iosize=0x04 </dev/null >"$log" 2>&1
status=$?
set -e
elapsed=$((SECONDS - t0))
tr -d '\r' <"$log" | grep -v '^LOCKSTEP-L ' || true
echo "run-lockstep.sh: qemu exited with $status after ${elapsed}s"
[ "$status" -ne 124 ] || fail "guest timed out after ${COOLHAND_VM_TIMEOUT:-540}s"
[ "$status" -eq 1 ] || fail "guest did not report a pass through isa-debug-exit (qemu status $status)"
grep -q '^LOCKSTEP-RESULT: PASS' "$log" || fail "no pass marker on the serial console"

# ---- the desktop side
md_args=()
[ -z "$markdown" ] || md_args=(--markdown "$markdown")
[ -z "$policy" ] || md_args+=(--policy "$policy")
t1=$SECONDS
"$compare" "$log" "$model" "$data/workloads" --expect "$runs" "${md_args[@]}" ||
  fail "the kernel and the simulator disagree (see above)"
echo "run-lockstep.sh: PASS ($runs runs; VM ${elapsed}s, comparison $((SECONDS - t1))s)"
