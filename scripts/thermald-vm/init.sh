#!/bin/busybox sh
# /init of the thermald-vs-coolhandd guest (scripts/measure-thermald-vm.sh):
# coolhand.ko and coolhand_emul.ko (two zones, cpu and skin, two devices),
# the mirrored thermal zones on the user_space governor so that only the
# daemon under test moves levels, then for each scenario and each daemon:
# start the daemon, let it settle 5 s, start the scenario's temperature
# driver, count the daemon's wakeups (voluntary context switches summed
# over all its threads) over WINDOW seconds, read VmRSS and Pss, stop both.
# Scenarios: far (35 °C everywhere, steady), near (skin zone alternating
# 44.6/44.8 °C each second below thermald's 45 °C trip and coolhandd's
# 45 °C row, cpu 50 °C), gaming (cpu_therm and skin_therm readings of the
# simulator's unthrottled gaming run, 1740-1800 s, at 10 Hz, /gaming.txt).
# Prints "PEER <daemon> <scenario> wakeups=N vmrss_kb=N pss_kb=N levels=L0,L1"
# (the levels when the window closed). peer_window and peer_scenarios
# (comma-separated) come from the kernel command line.
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mkdir -p /run /var/run
mount -t tmpfs tmpfs /run
dmesg -n 1
WINDOW=${peer_window:-60}
E=/sys/devices/coolhand_emul

insmod /coolhand.ko critical_report_only=1
insmod /coolhand_emul.ko emul_zones=2 emul_devices=2 emul_kind=cpu,skin
for tz in /sys/class/thermal/thermal_zone*; do
	case "$(cat "$tz/type")" in emul_zone*) echo user_space >"$tz/policy" ;; esac
done

wakeups() {
	sum=0
	for s in /proc/"$1"/task/*/status; do
		n=$(awk '/^voluntary_ctxt_switches/ {print $2}' "$s")
		sum=$((sum + n))
	done
	echo "$sum"
}
temps() { echo "$1" >$E/sensor0/temp; echo "$2" >$E/sensor1/temp; }
drive() {
	case "$1" in
	far) while :; do sleep 3600; done ;;
	near) while :; do
			echo 44600 >$E/sensor1/temp; sleep 1
			echo 44800 >$E/sensor1/temp; sleep 1
		done ;;
	gaming) while :; do
			while read -r c s; do
				temps "$c" "$s"
				usleep 100000
			done </gaming.txt
		done ;;
	esac
}
start_temps() {
	case "$1" in
	far) temps 35000 35000 ;;
	near) temps 50000 44600 ;;
	gaming) temps $(head -n 1 /gaming.txt) ;;
	esac
}

# The console's first line may carry terminal escapes: start on a fresh one.
echo
for scenario in $(echo "${peer_scenarios:-far,near,gaming}" | tr , ' '); do
	for daemon in coolhandd thermald; do
		start_temps "$scenario"
		echo 0 >$E/throttle0/throttling
		echo 0 >$E/throttle1/throttling
		case $daemon in
		coolhandd) /coolhandd --config /daemon-policy.yaml >/tmp/$daemon.log 2>&1 & ;;
		thermald) /thermald --no-daemon --ignore-cpuid-check --ignore-default-control \
				--config-file /thermal-conf.xml >/tmp/$daemon.log 2>&1 & ;;
		esac
		pid=$!
		sleep 5
		drive "$scenario" &
		dpid=$!
		w0=$(wakeups $pid)
		sleep "$WINDOW"
		w1=$(wakeups $pid)
		rss=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status)
		pss=$(awk '/^Pss:/ {print $2}' /proc/$pid/smaps_rollup)
		levels="$(cat $E/throttle0/throttling),$(cat $E/throttle1/throttling)"
		kill $dpid
		kill -TERM $pid
		wait $pid 2>/dev/null
		echo "PEER $daemon $scenario wakeups=$((w1 - w0)) vmrss_kb=$rss pss_kb=$pss levels=$levels"
		tail -n 3 /tmp/$daemon.log | sed "s/^/# $daemon: /"
	done
done
echo "PEER-RESULT: DONE"
printf '\000' | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
poweroff -f
