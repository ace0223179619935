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
# A run whose governor is "coolhandd" (issue 14's user_space row) loads the
# platform with the zones and devices of the policy run by the real daemon
# instead (`lockstep_guest daemon-params`: no trips, no bindings, the
# user_space governor, window-mode interrupts), and lockstep_guest
# daemon-run starts /coolhandd on its lockstep clock with
# /daemon-policy.yaml (the reference policy with only its sources and
# knobs remapped, made on the host), feeds it the model's samples and
# advances its clock step by step (guest/daemon_run.cpp). The daemon's log
# goes to /tmp/coolhandd.log and is printed when the run fails.
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
	if [ "$gov" = coolhandd ]; then
		params=$(/lockstep_guest daemon-params /model.yaml /daemon-policy.yaml) || params=""
	else
		params=$(/lockstep_guest params /model.yaml "$gov") || params=""
	fi
	if [ -z "$params" ]; then
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
	if [ "$gov" = coolhandd ]; then
		mkdir -p /tmp/state /tmp/rec
		if ! /lockstep_guest daemon-run /model.yaml /daemon-policy.yaml \
			"/workloads/$workload.csv" "$seed" "$label" /tmp/coolhandd.log \
			/coolhandd --config /daemon-policy.yaml --netlink on --logind off --bus none \
			--state-dir /tmp/state --record-dir /tmp/rec; then
			echo "LOCKSTEP-ERROR: $label: coolhandd run failed; its log:"
			tail -n 30 /tmp/coolhandd.log
			failed=1
		fi
	elif ! /lockstep_guest run /model.yaml "/workloads/$workload.csv" "$gov" "$seed" "$label"; then
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
