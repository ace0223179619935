#!/usr/bin/env bash
# Event storm benchmark: 10^4 thermal netlink events per second for 60 s
# into the real coolhandd, inside a qemu guest (the host kernel cannot be
# made to send coolhand events, and the daemon drops spoofed senders).
#
# Builds coolhand.ko (and coolhand_emul.ko when the tree has it) against the
# installed Debian headers and the static storm driver (bench/storm/storm.c),
# packs them with the daemon (and its libraries), bench/storm/guest-init.sh
# and bench/storm/storm-policy.yaml into an initramfs, boots Debian's kernel
# and prints the guest's "STORM:" lines: the writes made, the daemon's CPU
# share, its memory before and after, the events produced against those the
# daemon received, and its netlink loss counters. When Debian's thermald is
# installed, the guest also runs it on the same zones afterwards and prints
# its memory the same way (a like-for-like peer figure).
#
# Usage: scripts/measure-storm.sh [BUILD_DIR]          (default: build)
#   STORM_RATE=20000 STORM_SECONDS=60 scripts/measure-storm.sh build
# The default is 2*10^4 writes/s: a write raises an event only when it falls
# outside the window the daemon programmed, and while the daemon lags behind
# the storm about every other write lands inside it, so 2*10^4 writes/s make
# about 10^4 events/s (the guest prints the module's interrupt count).
# Environment: STORM_RATE (writes/s), STORM_SECONDS, STORM_ROUNDS (storms
# back to back, default 2), COOLHAND_VM_SMP
# (default 2: driver and daemon on their own vCPUs), COOLHAND_VM_TIMEOUT
# (s, default 900), COOLHAND_VM_CACHE (scripts/fetch-guest-kernel.sh).
# CPU time under TCG (no KVM here) is inflated against real hardware.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
BUILD=${1:-build}
daemon_bin=$(realpath "$BUILD/daemon/coolhandd")
work=$(mktemp -d /tmp/coolhand-storm.XXXXXX)
trap 'rm -rf "$work"' EXIT

VM_NAME=measure-storm.sh
# shellcheck source=tests/vm-lib.sh
. "$repo/tests/vm-lib.sh"
kver=""
for build in /lib/modules/*/build; do
  [ -e "$build/Makefile" ] && kver="$(basename "$(dirname "$build")")"
done
[ -n "$kver" ] || skip "no kernel headers under /lib/modules/*/build (scripts/install-deps.sh --vm)"
vm_check_tools
vmlinuz="$("$repo/scripts/fetch-guest-kernel.sh" --print)"
[ -s "$vmlinuz" ] || skip "guest kernel $vmlinuz missing (scripts/fetch-guest-kernel.sh)"
[ -x "$daemon_bin" ] || fail "coolhandd '$daemon_bin' not built"

make -s -C "$repo/kmod" BUILD_DIR="$work/kmod" KVER="$kver" -j2 >"$work/build.log" 2>&1 || {
  cat "$work/build.log"
  fail "module build failed"
}
root="$work/initramfs"
vm_initramfs_base "$root"
for ko in coolhand.ko coolhand_emul.ko; do
  [ ! -e "$work/kmod/$ko" ] || cp "$work/kmod/$ko" "$root/$ko"
done
[ -s "$root/coolhand.ko" ] || fail "no coolhand.ko after the build"
cc -static -O2 -Wall -Wextra -Werror -o "$root/storm" "$repo/bench/storm/storm.c"
vm_copy_dynamic "$daemon_bin" "$root" coolhandd
cp "$repo/bench/storm/storm-policy.yaml" "$root/storm-policy.yaml"
# A peer measured in the same guest, on the same zones, when installed:
# Debian's thermald (apt-get install thermald).
if thermald=$(command -v thermald); then
  vm_copy_dynamic "$thermald" "$root" thermald
  mkdir -p "$root/etc" "$root/run" "$root/var/run"
  cp -r /etc/thermald "$root/etc/thermald"
else
  echo "measure-storm.sh: thermald not installed: no peer figure"
fi
cp "$repo/bench/storm/guest-init.sh" "$root/init"
chmod +x "$root/init"
vm_pack_initramfs "$root" "$work/initramfs.cpio.gz"

log="$work/serial.log"
smp=${COOLHAND_VM_SMP:-2}
echo "measure-storm.sh: booting $vmlinuz (tcg, $smp vCPUs)," \
  "${STORM_RATE:-20000} writes/s for ${STORM_SECONDS:-60} s"
set +e
timeout "${COOLHAND_VM_TIMEOUT:-900}" "$qemu" -accel tcg -m 512 -smp "$smp" \
  -kernel "$vmlinuz" -initrd "$work/initramfs.cpio.gz" \
  -append "console=ttyS0 quiet panic=-1 storm_rate=${STORM_RATE:-20000} storm_seconds=${STORM_SECONDS:-60} storm_rounds=${STORM_ROUNDS:-2}" \
  -nographic -no-reboot -net none -monitor none \
  -device isa-debug-exit,iobase=0xf4,iosize=0x04 </dev/null >"$log" 2>&1
status=$?
set -e
tr -d '\r' <"$log" | grep -o -E '(STORM|# ).*' || true
[ "$status" -ne 124 ] || fail "guest timed out"
if [ "$status" -ne 1 ] || ! grep -q 'STORM-RESULT: DONE' "$log"; then
  tr -d '\r' <"$log" | tail -40
  fail "the guest did not finish the measurement (qemu status $status)"
fi
