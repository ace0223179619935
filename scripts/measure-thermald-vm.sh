#!/usr/bin/env bash
# thermald (Debian's package) and coolhandd side by side on the same
# emulated zones (issue 14): boot Debian 12's kernel in qemu with
# coolhand.ko + coolhand_emul.ko, run each daemon in turn under the same
# three temperature scenarios for WINDOW_S seconds each and print their
# wakeups, VmRSS and Pss (scripts/thermald-vm/init.sh says how).
#
#   scripts/measure-thermald-vm.sh [BUILD_DIR]      (default: build)
#   WINDOW_S=60 scripts/measure-thermald-vm.sh build
#   SCENARIOS=far,gaming scripts/measure-thermald-vm.sh   (default far,near,gaming)
#
# Needs scripts/install-deps.sh --vm (qemu, headers, busybox-static,
# thermald) and a built coolhandd and coolhand-sim. Takes about
# 6 x (WINDOW_S + 6) s plus the boot. TCG inflates CPU time; wakeup counts
# and memory are what it measures.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
build="$(realpath "${1:-build}")"
WINDOW_S=${WINDOW_S:-60}
VM_NAME=measure-thermald-vm.sh
. "$repo/tests/vm-lib.sh"
vm_check_tools
thermald="$(command -v thermald || true)"
[ -n "$thermald" ] || [ -x /usr/sbin/thermald ] && thermald=${thermald:-/usr/sbin/thermald}
[ -x "$thermald" ] || fail "thermald not installed (scripts/install-deps.sh --vm)"
[ -x "$build/daemon/coolhandd" ] || fail "$build/daemon/coolhandd not built"
[ -x "$build/sim/coolhand-sim" ] || fail "$build/sim/coolhand-sim not built"
kver=""
for b in /lib/modules/*/build; do [ -e "$b/Makefile" ] && kver="$(basename "$(dirname "$b")")"; done
[ -n "$kver" ] || fail "no kernel headers"
vmlinuz="$("$repo/scripts/fetch-guest-kernel.sh" --print)"
[ -s "$vmlinuz" ] || fail "no guest kernel (scripts/fetch-guest-kernel.sh)"

work="$(mktemp -d /dev/shm/coolhand-peer.XXXXXX)"
trap 'rm -rf "$work"' EXIT
make -s -C "$repo/kmod" BUILD_DIR="$work/kmod" KVER="$kver" -j2 >"$work/build.log" 2>&1 ||
  { cat "$work/build.log"; fail "kbuild failed"; }
# The gaming stimulus: cpu_therm and skin_therm as the simulator reads them
# in the last minute of its unthrottled gaming run (1740-1800 s: cpu
# 57-58 °C, skin 54.1-54.7 °C, above both daemons' trips), in m°C.
"$build/sim/coolhand-sim" run -g none -o "$work/sim" >/dev/null
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  $1 >= 1740 && $1 < 1800 { printf "%d %d\n", $col["cpu_therm_reading_c"] * 1000, $col["skin_therm_reading_c"] * 1000 }' \
  "$work/sim/trace.csv" >"$work/gaming.txt"

root="$work/initramfs"
vm_initramfs_base "$root"
cp "$work/kmod/coolhand.ko" "$work/kmod/coolhand_emul.ko" "$work/gaming.txt" "$root/"
vm_copy_dynamic "$build/daemon/coolhandd" "$root" coolhandd
vm_copy_dynamic "$thermald" "$root" thermald
cp "$repo/tests/kmod/guest/daemon-policy.yaml" "$root/daemon-policy.yaml"
cp "$repo/scripts/thermald-vm/thermal-conf.xml" "$root/thermal-conf.xml"
cp "$repo/scripts/thermald-vm/init.sh" "$root/init"
chmod +x "$root/init"
vm_pack_initramfs "$root" "$work/initramfs.cpio.gz"

timeout $((6 * (WINDOW_S + 20) + 120)) "$qemu" -accel "${COOLHAND_VM_ACCEL:-tcg}" -cpu max \
  -m 512 -smp 1 -kernel "$vmlinuz" -initrd "$work/initramfs.cpio.gz" \
  -append "console=ttyS0 quiet panic=-1 peer_window=$WINDOW_S peer_scenarios=${SCENARIOS:-far,near,gaming}" \
  -nographic -no-reboot -net none -monitor none \
  -device isa-debug-exit,iobase=0xf4,iosize=0x04 </dev/null >"$work/serial.log" 2>&1 || true
tr -d '\r' <"$work/serial.log" | sed -n 's/.*\(PEER\)/\1/p; /^# /p' || true
grep -aq '^PEER-RESULT: DONE' "$work/serial.log" || fail "the guest did not finish (serial log above)"
