#!/bin/busybox sh
# /init of the resume guest (packed by tests/resume/run-vm-test.sh with
# busybox, coolhand.ko, coolhand_emul.ko, guest_clocks, policy.yaml, and the
# real coolhandd, coolhandctl and dbus-daemon with their shared libraries).
#
# What it proves: coolhandd without logind (--logind off) notices a REAL
# suspend from CLOCK_BOOTTIME running ahead of CLOCK_MONOTONIC
# (ResumeDetector, checked after every wake-up) and writes every device's
# level again. Steps, each a TAP-like "ok"/"not ok" line on the serial
# console:
#  1. both modules load; a private system bus runs; coolhandd starts with
#     --logind off and its D-Bus service, and throttles when the emulated
#     EC reports 52 C (level 8: throttle0 = 9, the fake knob "fw" = 20;
#     level 0 is the value found at start, throttle0's 3, so its levels run
#     3..10 and level 8 is 3 + 7 * 8 / 10 = 8.6, written as 9);
#     the counter "resumes" (coolhandctl status --json) is 0;
#  2. "firmware" sets fw to 77 behind the daemon's back; nothing tells the
#     daemon, so fw stays 77 (checked: the daemon does not poll it);
#  3. a real suspend to RAM (ACPI S3, qemu -global PIIX4_PM.disable_s3=0),
#     woken by the RTC alarm; positive control: CLOCK_BOOTTIME -
#     CLOCK_MONOTONIC grew by at least MIN_JUMP_MS (guest_clocks before and
#     after), and the kernel logged the S3 wake-up; otherwise the test fails;
#  4. the daemon wakes: the thermal core re-reads every zone after a resume
#     (a SAMPLING_TEMP event for the mirrored zones) and, to be certain, the
#     EC reports 58 C (still level 8, outside the daemon's window, so the
#     module sends an event); the daemon counts exactly one resume, writes
#     fw back to 20, and logs it;
#  5. another wake-up without a suspend (52 C) counts no further resume;
#  6. SIGTERM: clean exit, originals restored (fw 100, throttle0 3);
#  7. the kernel log: the boot marker (positive control), no oops/WARN/BUG,
#     no taint from a warning or oops.
# Verdict (vm_finish of /vm-guest-lib.sh, tests/vm-guest-lib.sh, which also
# gives check, wait_for and the kernel-log checks): "COOLHAND-VM-RESULT:
# PASS|FAIL" and isa-debug-exit (qemu exits
# 1 for pass, 3 for fail); a guest that hangs or panics produces neither.
# shellcheck source-path=SCRIPTDIR source=../../vm-guest-lib.sh
. /vm-guest-lib.sh
vm_guest_start coolhand-resume

# Seconds the guest sleeps (RTC alarm, 1 s resolution) and the least growth
# of CLOCK_BOOTTIME - CLOCK_MONOTONIC that counts as a real suspend: above
# the daemon's min_sleep (1 s, ResumeDetector), below the alarm's delay.
SLEEP_SECONDS=${coolhand_sleep_seconds:-4}
MIN_JUMP_MS=2000
E=/sys/devices/coolhand_emul
FW=/sys/kernel/debug/coolhand/fw
LOG=/tmp/coolhandd.log
finish() {
	if [ "$failed" -ne 0 ]; then
		echo "# coolhandd log:"
		sed 's/^/#   /' "$LOG" 2>/dev/null
		echo "# dmesg:"
		dmesg | tail -n 40 | sed 's/^/#   /'
	fi
	vm_finish
}
level_is() { [ "$(cat "$E/$1/throttling")" "$2" "$3" ]; }
fw_is() { [ "$(cat "$FW")" = "$1" ]; }
logged_times() { [ "$(grep -c "$1" "$LOG")" -eq "$2" ]; }
# counter NAME: a counter from the daemon's GetStatus (coolhandctl status
# --json); prints nothing and fails when the daemon does not answer.
counter() {
	timeout 5 /coolhandctl status --json >/tmp/status.json 2>/tmp/status.err || {
		cat /tmp/status.err >&2
		return 1
	}
	sed -n "s/.*\"$1\": *\([0-9][0-9]*\).*/\1/p" /tmp/status.json | grep .
}
resumes_are() { [ "$(counter resumes)" = "$1" ]; }
# clock_offset: CLOCK_BOOTTIME - CLOCK_MONOTONIC in ms (guest_clocks).
clock_offset() { /guest_clocks | awk '{ print $4 - $2 }'; }

echo "# coolhand resume test on $(uname -r); sleep states: $(cat /sys/power/state); mem_sleep: $(cat /sys/power/mem_sleep)"

# 1. Modules, bus, daemon.
check "insmod coolhand.ko and coolhand_emul.ko" \
	sh -c 'insmod /coolhand.ko critical_report_only=1 && insmod /coolhand_emul.ko emul_zones=2 emul_devices=2 emul_kind=cpu,skin'
[ -d $E ] || finish
# Only the daemon drives the levels: the kernel's governor stays out.
for tz in /sys/class/thermal/thermal_zone*; do
	case "$(cat "$tz/type")" in emul_zone*) echo user_space >"$tz/policy" ;; esac
done
echo 3 >$E/throttle0/throttling
mkdir -p /sys/kernel/debug && mount -t tmpfs tmpfs /sys/kernel/debug && mkdir /sys/kernel/debug/coolhand &&
	echo 100 >"$FW"
check "fake firmware knob holds its original value (100)" fw_is 100

mkdir -p /etc /run
cat >/etc/bus.conf <<'EOF'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <listen>unix:path=/run/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
EOF
/dbus-daemon --config-file=/etc/bus.conf --fork --print-address >/tmp/bus.address 2>/tmp/bus.log
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/bus
check "private system bus is up" wait_for 10 test -S /run/bus
[ -S /run/bus ] || cat /tmp/bus.log

echo 30000 >$E/sensor1/temp
/coolhandd --config /policy.yaml --logind off --bus system --verbose >"$LOG" 2>&1 &
DPID=$!
check "coolhandd starts" wait_for 20 grep -q 'running:' "$LOG"
grep -q 'running:' "$LOG" || finish
check "coolhandd answers on the bus (resumes 0)" wait_for 10 resumes_are 0
check "nothing written at 30 C (throttle0 3 and fw 100, as found)" wait_for 5 sh -c "[ \$(cat $E/throttle0/throttling) -eq 3 ] && [ \$(cat $FW) = 100 ]"
echo 52000 >$E/sensor1/temp
check "throttles at 52 C (throttle0 at level 8: 9)" wait_for 5 level_is throttle0 -eq 9
check "fw at level 8's value (20)" wait_for 5 fw_is 20

# 2. The "firmware" resets the knob; the daemon has no way to notice.
echo 77 >"$FW"
usleep 1500000
check "fw changed behind the daemon's back stays changed (77): nothing polls it" fw_is 77
check "no resume counted before the suspend" resumes_are 0
check "coolhandd still running before the suspend" kill -0 $DPID

# 3. A real suspend to RAM, woken by the RTC alarm.
# coolhand_pm_test=devices on the kernel command line (CONFIG_PM_DEBUG's
# /sys/power/pm_test) runs the suspend without sleeping: the clocks do not
# diverge, and the positive control below must fail. It proves the control.
if [ -n "${coolhand_pm_test:-}" ]; then
	echo "# pm_test=$coolhand_pm_test: suspend without sleeping; this run must FAIL"
	echo "$coolhand_pm_test" >/sys/power/pm_test
fi
before=$(/guest_clocks)
echo 0 >/sys/class/rtc/rtc0/wakealarm
echo "+$SLEEP_SECONDS" >/sys/class/rtc/rtc0/wakealarm
echo "# before suspend: $before"
if echo mem >/sys/power/state; then sleep_rc=0; else sleep_rc=$?; fi
after=$(/guest_clocks)
echo "# after resume:   $after"
jump=$(($(echo "$after" | awk '{ print $4 - $2 }') - $(echo "$before" | awk '{ print $4 - $2 }')))
echo "# CLOCK_BOOTTIME - CLOCK_MONOTONIC grew by $jump ms over a ${SLEEP_SECONDS} s RTC alarm"
check "echo mem >/sys/power/state succeeded" [ "$sleep_rc" -eq 0 ]
check "positive control: CLOCK_BOOTTIME ran ahead of CLOCK_MONOTONIC by >= $MIN_JUMP_MS ms ($jump ms)" \
	[ "$jump" -ge "$MIN_JUMP_MS" ]
check "the kernel went through S3 and back (dmesg)" \
	sh -c "dmesg | grep -q 'ACPI: PM: Preparing to enter system sleep state S3' && dmesg | grep -q 'PM: suspend exit'"

# 4. Wake the daemon with an event that changes no level (58 C: level 8
#    still, outside its fine window around 52 C).
echo 58000 >$E/sensor1/temp
check "coolhandd woke after the resume (event skin = 58000)" wait_for 10 grep -q 'event skin = 58000' "$LOG"
check "exactly one resume counted (GetStatus counter resumes = 1)" wait_for 5 resumes_are 1
check "fw written back to level 8's value (20) after the resume" wait_for 5 fw_is 20
check "throttle0 still at level 8 (9)" level_is throttle0 -eq 9
check "the daemon said why (one 'resumed from suspend' line)" \
	logged_times 'resumed from suspend: re-applying device levels' 1

# 5. A wake-up without a suspend is no resume.
echo 52000 >$E/sensor1/temp
check "coolhandd woke again (a second event skin = 52000)" wait_for 10 logged_times 'event skin = 52000' 2
check "still exactly one resume after a plain wake-up" resumes_are 1

# 6. Exit.
kill -TERM $DPID
wait $DPID
rc=$?
check "SIGTERM: clean exit (status $rc)" [ "$rc" -eq 0 ]
check "SIGTERM: fw back to its original (100)" fw_is 100
check "SIGTERM: throttle0 back to its original (3)" level_is throttle0 -eq 3

# 7. The kernel log.
vm_check_kernel_log
finish
