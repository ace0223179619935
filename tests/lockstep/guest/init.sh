#!/bin/busybox sh
# /init of the lockstep guest (packed by tests/lockstep/run-lockstep.sh
# with busybox, coolhand.ko, coolhand_emul.ko, lockstep_guest with its
# libraries, the model, the workloads and /runs: one "GOVERNOR WORKLOAD
# SEED" per line). The core is loaded once with passive_delay_ms=3600000
# (one hour: the thermal core's timer never fires within a run of a few
# seconds, see lockstep_guest.cpp; not 0, because 6.1's power_allocator
# divides its derivative term by the passive delay and oopses on 0); for
# every run the emulated
# platform is loaded afresh with the model's zones (fresh governor state),
# the run prints its trace on the console, and the platform is unloaded.
#
# Verdict: "LOCKSTEP-RESULT: PASS|FAIL" and the isa-debug-exit port (qemu
# exits with 1 for pass, 3 for fail). Whether the kernel agrees with the
# simulator is judged on the host (lockstep_compare), not here.
export PATH=/bin:/sbin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
dmesg -n 1

kver=$(uname -r)
failed=0
start=$(cut -d. -f1 /proc/uptime)
if ! insmod /coolhand.ko critical_report_only=1 passive_delay_ms=3600000; then
	echo "LOCKSTEP-ERROR: insmod coolhand.ko failed"
	failed=1
fi
while [ "$failed" -eq 0 ] && read -r gov workload seed; do
	[ -n "$gov" ] || continue
	label="$kver/$gov/$workload/$seed"
	if ! params=$(/lockstep_guest params /model.yaml "$gov"); then
		echo "LOCKSTEP-ERROR: $label: no emul parameters"
		failed=1
		break
	fi
	# shellcheck disable=SC2086 # one word per parameter
	if ! insmod /coolhand_emul.ko $params; then
		echo "LOCKSTEP-ERROR: $label: insmod coolhand_emul.ko $params failed"
		dmesg | tail -n 5
		failed=1
		break
	fi
	t0=$(cut -d. -f1 /proc/uptime)
	if ! /lockstep_guest run /model.yaml "/workloads/$workload.csv" "$gov" "$seed" "$label"; then
		echo "LOCKSTEP-ERROR: $label: run failed"
		failed=1
	fi
	t1=$(cut -d. -f1 /proc/uptime)
	echo "LOCKSTEP-TIME $label $((t1 - t0)) s"
	rmmod coolhand_emul || failed=1
done </runs
end=$(cut -d. -f1 /proc/uptime)
echo "LOCKSTEP-TIME total $((end - start)) s"
if [ "$failed" -eq 0 ]; then
	echo "LOCKSTEP-RESULT: PASS"
	code='\000'
else
	echo "LOCKSTEP-RESULT: FAIL"
	code='\001'
fi
sync
printf "$code" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
poweroff -f
