#!/usr/bin/env bash
# Bit-exact replay of the real coolhandd driven by the module's events
# (issue 11, "on the qemu guest with the module's events too"): build
# coolhand.ko and coolhand_emul.ko, pack them with the real coolhandd (and
# the shared libraries ldd names), guest/policy.yaml and guest/init.sh into
# an initramfs, boot Debian's own 6.1 kernel in qemu, and let the guest run
# the daemon through a temperature ramp on the emulated zones until it has
# throttled both module devices and dumped its flight recorder (SIGUSR1).
# The recording comes out base64 on the guest's second serial port (a file
# here); then, on the host:
#   - its sha256 must match the one the guest printed;
#   - `coolhand-sim export` must find netlink records of the module's family
#     (family 2) in it, and step and device_decision records;
#   - `coolhand-sim replay --recording` with the embedded policy must report
#     zero differences (exit 0, "no difference"), and the same policy given
#     with --policy --exact too;
#   - positive control: the policy with the PID's setpoint moved from 46 to
#     47 C must fail --exact replay (exit 1, naming the differing record).
#
#   run-vm-test.sh --daemon FILE --sim FILE [--work-dir DIR] [--kmod-src DIR]
#                  [--reuse-kmod DIR]... [--missing REASON]
#
# --reuse-kmod: a directory where another VM test builds the same two
# modules (kmod_vm, resume_vm). Its .ko files are copied instead of building
# again when both are there, their vermagic names the installed headers'
# kernel, and no file under --kmod-src is newer than them; otherwise the
# modules are built here as usual (about 8 s of the test's cost).
#
# Exit status: 0 pass; 1 fail; 77 skipped because a prerequisite is missing
# (kernel headers, qemu, busybox-static, cpio, the guest kernel, the
# binaries). With CI=true a missing prerequisite is a failure.
#
# Environment: COOLHAND_VM_CACHE (see scripts/fetch-guest-kernel.sh),
# COOLHAND_VM_TIMEOUT (s, default 180), COOLHAND_VM_ACCEL (default tcg),
# COOLHAND_VM_APPEND (extra kernel command line).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
kmod_src="$repo/kmod"
work=""
daemon=""
sim=""
missing=""
reuse_dirs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --daemon) daemon="$2"; shift 2 ;;
    --sim) sim="$2"; shift 2 ;;
    --work-dir) work="$2"; shift 2 ;;
    --kmod-src) kmod_src="$2"; shift 2 ;;
    --reuse-kmod) reuse_dirs+=("$2"); shift 2 ;;
    --missing) missing="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "run-vm-test.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -n "$work" ] || work="$(mktemp -d /tmp/coolhand-replay-vm.XXXXXX)"

VM_NAME=replay_vm/run-vm-test.sh
# shellcheck source=../vm-lib.sh
. "$here/../vm-lib.sh"

# ---- prerequisites
[ -z "$missing" ] || skip "$missing"
vm_kernel_headers
vm_check_tools
command -v base64 >/dev/null || skip "base64 not installed (coreutils)"
command -v strip >/dev/null || skip "strip not installed (binutils)"
vmlinuz="$("$repo/scripts/fetch-guest-kernel.sh" --print)"
[ -s "$vmlinuz" ] || skip "guest kernel $vmlinuz missing (scripts/fetch-guest-kernel.sh)"
[ -n "$daemon" ] && [ -x "$daemon" ] || skip "coolhandd '$daemon' not built"
[ -n "$sim" ] && [ -x "$sim" ] || skip "coolhand-sim '$sim' not built"

# ---- the modules
rm -rf "$work"
mkdir -p "$work"
# fresh_kmod DIR: both modules in DIR, built for $kver from today's sources.
fresh_kmod() {
  local ko
  command -v modinfo >/dev/null || return 1
  for ko in coolhand coolhand_emul; do
    [ -s "$1/$ko.ko" ] || return 1
    [ "$(modinfo -F vermagic "$1/$ko.ko" | cut -d' ' -f1)" = "$kver" ] || return 1
    [ -z "$(find "$kmod_src" -newer "$1/$ko.ko" -print -quit)" ] || return 1
  done
}
reused=""
for dir in "${reuse_dirs[@]}"; do
  if fresh_kmod "$dir"; then
    mkdir -p "$work/kmod"
    cp "$dir/coolhand.ko" "$dir/coolhand_emul.ko" "$work/kmod/"
    reused=$dir
    echo "$VM_NAME: reusing coolhand.ko and coolhand_emul.ko from $dir (built for $kver, newer than $kmod_src)"
    break
  fi
done
[ -n "$reused" ] || vm_build_kmod "$kmod_src" "$work/kmod"

# ---- initramfs
root="$work/initramfs"
vm_initramfs_base "$root" "$here/guest/init.sh"
cp "$work/kmod/coolhand.ko" "$work/kmod/coolhand_emul.ko" "$root/"
vm_copy_dynamic "$daemon" "$root" coolhandd
# Without its debug sections (~40 MB in a RelWithDebInfo build): the
# initramfs is packed, and unpacked by an emulated CPU, at every run.
strip --strip-debug "$root/coolhandd"
cp "$here/guest/policy.yaml" "$root/policy.yaml"
vm_pack_initramfs "$root" "$work/initramfs.cpio.gz"

# ---- boot: ttyS0 is the console (the log), ttyS1 carries the recording.
ttys1="$work/ttyS1.txt"
vm_boot "$work" "$vmlinuz" "${COOLHAND_VM_TIMEOUT:-180}" "" -smp 1 -serial "file:$ttys1"
log="$vm_log"

# ---- the recording, out of the guest
rec="$work/guest.chrec"
tr -d '\r' <"$ttys1" | sed -n '/^COOLHAND-RECORDING-BEGIN$/,/^COOLHAND-RECORDING-END$/p' |
  sed '1d;$d' | base64 -d >"$rec" || fail "ttyS1 does not hold a base64 recording"
want_sha="$(tr -d '\r' <"$log" | sed -n 's/^COOLHAND-RECORDING-SHA256: \([0-9a-f]*\)$/\1/p')"
got_sha="$(sha256sum "$rec" | cut -d' ' -f1)"
[ -n "$want_sha" ] || fail "the guest printed no sha256"
[ "$want_sha" = "$got_sha" ] || fail "recording damaged on the way out: sha256 $got_sha, guest said $want_sha"
echo "run-vm-test.sh: recording $(wc -c <"$rec") bytes, sha256 matches the guest's"

# ---- what it holds: the module's events, steps and decisions
"$sim" export --recording "$rec" --output "$work/export" >"$work/export.log" 2>&1 ||
  { cat "$work/export.log"; fail "coolhand-sim export failed"; }
# rows of a table whose column COL (by header name) equals VALUE; "" counts all
rows() {
  local file="$work/export/$1.csv"
  [ -s "$file" ] || { echo 0; return; }
  awk -F, -v col="$2" -v val="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
    col == "" || $c == val { n++ } END { print n + 0 }' "$file"
}
module_events=$(rows netlink family 2)
thermal_events=$(rows netlink family 1)
steps=$(rows step "" "")
decisions=$(rows device_decision "" "")
echo "run-vm-test.sh: netlink records: $module_events of the module's family, $thermal_events of the thermal family; $steps steps, $decisions device decisions"
[ "$module_events" -gt 0 ] || fail "no netlink record of the module's family (2) in the recording"
[ "$steps" -gt 10 ] || fail "only $steps steps recorded"

# ---- bit-exact replay with the embedded policy
check_exact() {  # LABEL ARGS...: replay must report no difference
  local label=$1 out
  shift
  out="$work/replay-$label"
  if ! "$sim" replay --recording "$rec" "$@" --out "$out" >"$out.stdout" 2>"$out.stderr"; then
    cat "$out.stdout" "$out.stderr"
    fail "$label: replay reported a difference"
  fi
  grep -E 'bit-exact with .*no difference' "$out.stdout" || {
    cat "$out.stdout"
    fail "$label: no 'no difference' line"
  }
}
check_exact embedded
check_exact same-policy --policy "$here/guest/policy.yaml" --exact

# ---- positive control: another setpoint must fail exactly
grep -q '^    setpoint_c: 46$' "$here/guest/policy.yaml" || fail "the guest policy has no 'setpoint_c: 46' to mutate"
sed 's/^    setpoint_c: 46$/    setpoint_c: 47/' "$here/guest/policy.yaml" >"$work/mutant.yaml"
set +e
"$sim" replay --recording "$rec" --policy "$work/mutant.yaml" --exact --out "$work/replay-mutant" \
  >"$work/mutant.stdout" 2>"$work/mutant.stderr"
mutant_status=$?
set -e
cat "$work/mutant.stderr"
[ "$mutant_status" -eq 1 ] || fail "the mutant (setpoint 47 C) replayed with status $mutant_status, not 1"
grep -q 'the replay differs from the daemon' "$work/mutant.stderr" ||
  fail "the mutant's failure does not name a differing record"

echo "run-vm-test.sh: PASS ($(grep -c '^ok ' "$log") guest checks, $module_events module events, $steps steps replayed exactly; VM stage ${vm_elapsed}s, whole test $SECONDS s)"
