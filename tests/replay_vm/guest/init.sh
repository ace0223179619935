#!/bin/busybox sh
# /init of the replay guest (packed by tests/replay_vm/run-vm-test.sh with
# busybox, coolhand.ko, coolhand_emul.ko, policy.yaml and the real coolhandd
# with its shared libraries).
#
# What it produces: a flight recording (issue 11) of the real coolhandd
# driven by the module's generic-netlink events and throttling the
# module's real devices, copied out for the host to replay bit-exactly.
# Steps, each a TAP-like "ok"/"not ok" line on the serial console:
#  1. both modules load (emulated cpu and skin zones, throttle0/1); the
#     mirrored thermal zones get the user_space governor so only the daemon
#     drives the levels; coolhandd starts (no D-Bus, no logind) and says the
#     module's family is subscribed;
#  2. a scripted ramp: every 0.15 s the guest writes both zones' temperatures
#     (sensor<i>/temp), up from 40/45 C to 53/58 C and down to 43/48 C; the
#     module sends the daemon an event each time a zone leaves the window
#     the daemon set; at the peak both devices must be throttled (throttle0
#     by skin_guard or skin_pid, throttle1 by cpu_guard);
#  3. SIGUSR1: the daemon dumps its recording into /tmp/rec; the guest
#     prints its size and sha256 on the console and writes it, base64 between
#     COOLHAND-RECORDING-BEGIN/END lines, to the second serial port (ttyS1,
#     a file on the host);
#  4. SIGTERM: clean exit;
#  5. the kernel log: the boot marker (positive control), no oops/WARN/BUG.
# Verdict (vm_finish of /vm-guest-lib.sh, tests/vm-guest-lib.sh, which also
# gives check, wait_for and the kernel-log checks): "COOLHAND-VM-RESULT:
# PASS|FAIL" and isa-debug-exit (qemu exits
# 1 for pass, 3 for fail). The replay itself runs on the host.
# shellcheck source-path=SCRIPTDIR source=../../vm-guest-lib.sh
. /vm-guest-lib.sh
vm_guest_start coolhand-replay

E=/sys/devices/coolhand_emul
LOG=/tmp/coolhandd.log
finish() {
	if [ "$failed" -ne 0 ]; then
		echo "# coolhandd log (last 60 lines):"
		tail -n 60 "$LOG" 2>/dev/null | sed 's/^/#   /'
		echo "# dmesg:"
		dmesg | tail -n 40 | sed 's/^/#   /'
	fi
	vm_finish
}
level() { cat "$E/$1/throttling"; }
# set_temps CPU_MC SKIN_MC: what the emulated sensors report next.
set_temps() {
	echo "$1" >$E/sensor0/temp
	echo "$2" >$E/sensor1/temp
}

echo "# coolhand replay guest on $(uname -r)"

# 1. Modules and daemon.
check "insmod coolhand.ko and coolhand_emul.ko" \
	sh -c 'insmod /coolhand.ko critical_report_only=1 && insmod /coolhand_emul.ko emul_zones=2 emul_devices=2 emul_kind=cpu,skin'
[ -d $E ] || finish
for tz in /sys/class/thermal/thermal_zone*; do
	case "$(cat "$tz/type")" in emul_zone*) echo user_space >"$tz/policy" ;; esac
done
set_temps 45000 40000
soc0=$(level throttle0)
charger0=$(level throttle1)
mkdir -p /run /tmp/rec
/coolhandd --config /policy.yaml --logind off --bus none --record-dir /tmp/rec --verbose >"$LOG" 2>&1 &
DPID=$!
check "coolhandd starts" wait_for 20 grep -q 'running:' "$LOG"
grep -q 'running:' "$LOG" || finish
echo 41000 >$E/sensor1/temp
check "an event for a module zone reaches the daemon (event skin = 41000)" \
	wait_for 5 grep -q 'event skin = 41000 ' "$LOG"

# 2. The ramp: 0.5 C a step, 0.15 s apart.
i=0
while [ $i -le 26 ]; do
	set_temps $((45000 + i * 500)) $((40000 + i * 500))
	usleep 150000
	i=$((i + 1))
done
echo "# peak: cpu 58 C, skin 53 C; soc $(level throttle0) (was $soc0), charger $(level throttle1) (was $charger0)"
check "soc (throttle0) throttled at the peak" wait_for 5 sh -c "[ \$(cat $E/throttle0/throttling) -ne $soc0 ]"
check "charger (throttle1) throttled at the peak" wait_for 5 sh -c "[ \$(cat $E/throttle1/throttling) -ne $charger0 ]"
i=0
while [ $i -le 20 ]; do
	set_temps $((58000 - i * 500)) $((53000 - i * 500))
	usleep 150000
	i=$((i + 1))
done
usleep 1000000
echo "# end: cpu 48 C, skin 43 C; soc $(level throttle0), charger $(level throttle1)"
check "coolhandd still running after the ramp" kill -0 $DPID
events=$(grep -c 'event \(cpu\|skin\) = ' "$LOG")
check "the daemon logged module events during the ramp ($events)" [ "$events" -ge 10 ]

# 3. Dump and copy out.
kill -USR1 $DPID
check "SIGUSR1 dumps the flight recorder" wait_for 10 grep -q 'flight recorder: SIGUSR1 dumped to ' "$LOG"
rec=$(sed -n 's/.*flight recorder: SIGUSR1 dumped to \(\/tmp\/rec\/[^ ]*\.chrec\).*/\1/p' "$LOG" | head -n 1)
check "the recording exists and is not empty ($rec)" test -s "$rec"
if [ -s "$rec" ]; then
	echo "COOLHAND-RECORDING-SIZE: $(wc -c <"$rec")"
	echo "COOLHAND-RECORDING-SHA256: $(sha256sum "$rec" | cut -d' ' -f1)"
	stty -F /dev/ttyS1 raw -echo 2>/dev/null
	check "recording written to ttyS1 (base64)" sh -c "{ echo COOLHAND-RECORDING-BEGIN && base64 $rec && echo COOLHAND-RECORDING-END; } >/dev/ttyS1"
fi

# 4. Exit.
kill -TERM $DPID
wait $DPID
rc=$?
check "SIGTERM: clean exit (status $rc)" [ "$rc" -eq 0 ]

# 5. The kernel log.
vm_check_kernel_log
finish
