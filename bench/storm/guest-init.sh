#!/bin/busybox sh
# /init of the event storm guest (packed by scripts/measure-storm.sh with
# busybox, coolhand.ko [+ coolhand_emul.ko], the storm driver, the real
# coolhandd with its libraries and storm-policy.yaml).
#
# 1. Loads the module with one emulated zone and one throttle device.
# 2. Takes the family's event sequence number before the daemon starts
#    (storm seq), starts coolhandd, lets it settle, samples its memory, then
#    storm_rounds times (default 2: the second shows whether memory keeps
#    growing) writes 40 °C / 58 °C alternately to the emulated sensor at
#    storm_rate writes per second for storm_seconds seconds (kernel command
#    line; defaults 20000 and 60), with the daemon's CPU time over the round
#    and its memory right after and 5 s later.
# 3. Stops the daemon (its exit log carries its coolhand netlink counters)
#    and takes the sequence number again: the events the module produced
#    while the daemon listened are the difference, less the two probes.
# 4. When thermald was packed, runs it for 20 s on the same zones and
#    prints its memory the same way.
# Prints "STORM: ..." lines and "STORM-RESULT: DONE" when every figure was
# taken (isa-debug-exit 0), else "STORM-RESULT: FAILED ..." (exit 1).
export PATH=/bin:/sbin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
dmesg -n 1

RATE=${storm_rate:-20000}
SECONDS_=${storm_seconds:-60}
ROUNDS=${storm_rounds:-2}
EMUL="emul_zones=1 emul_devices=1 emul_kind=cpu critical_report_only=1"
E=/sys/devices/coolhand_emul
S=$E/sensor0/temp
D=/coolhandd
L=/tmp/coolhandd.log

finish() {  # CODE MESSAGE
	echo "STORM-RESULT: $2"
	sync
	if [ "$1" -eq 0 ]; then code='\000'; else code='\001'; fi
	printf "$code" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
	poweroff -f
}
die() { echo "# $*"; [ -f $L ] && tail -n 40 $L | sed 's/^/#   coolhandd: /'; finish 1 "FAILED: $*"; }

# The module may have been split into coolhand.ko and coolhand_emul.ko:
# load whichever exist, the emul_* parameters going to the one that has them.
if [ -e /coolhand_emul.ko ]; then
	insmod /coolhand.ko critical_report_only=1 || die "insmod coolhand.ko"
	insmod /coolhand_emul.ko emul_zones=1 emul_devices=1 emul_kind=cpu || die "insmod coolhand_emul.ko"
else
	insmod /coolhand.ko $EMUL || die "insmod coolhand.ko"
fi
[ -w $S ] || die "no $S"
# Only the daemon drives the levels (as in tests/kmod): user_space governor.
for tz in /sys/class/thermal/thermal_zone*; do
	case "$(cat "$tz/type")" in emul_zone*) echo user_space >"$tz/policy" ;; esac
done

ticks() { awk '{print $14 + $15}' /proc/$1/stat; }       # utime + stime, 1/100 s
busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8}' /proc/stat; }
mem() {  # PID LABEL
	f=/proc/$1/smaps_rollup
	echo "STORM: memory $2: Pss $(awk '$1 == "Pss:" {print $2}' $f) kB," \
		"Private_Dirty $(awk '$1 == "Private_Dirty:" {print $2}' $f) kB," \
		"VmRSS $(awk '$1 == "VmRSS:" {print $2}' /proc/$1/status) kB," \
		"RssAnon $(awk '$1 == "RssAnon:" {print $2}' /proc/$1/status) kB"
}

# Probes: 58 °C then back to 35 °C, each outside the fresh zone's step
# window (kmod/README 3.3), each one event.
/storm seq $S 58000 >/tmp/seq0 || die "first probe"
/storm seq $S 35000 >/tmp/seq1 || die "second probe"
seq1=$(cat /tmp/seq1)

"$D" --config /storm-policy.yaml --bus none >$L 2>&1 &
dpid=$!
i=0
until grep -q 'running:' $L; do
	i=$((i + 1))
	[ $i -lt 200 ] || die "coolhandd did not start"
	kill -0 $dpid 2>/dev/null || die "coolhandd exited at start"
	sleep 0.1
done
grep -q 'coolhand netlink: subscribed' $L || die "coolhandd did not subscribe to the coolhand family"
# storm_round: one storm of SECONDS_ at RATE, with the daemon's CPU share and the
# module's interrupts over it, and the daemon's memory after it.
storm_round() {
	t0=$(ticks $dpid)
	set -- $(busy)
	b0=$1 a0=$2
	irq0=$(cat $E/sensor0/interrupts)
	up0=$(cut -d' ' -f1 /proc/uptime)
	/storm write $S "$RATE" "$SECONDS_" 40000 58000 >/tmp/storm.out || die "storm: $(cat /tmp/storm.out)"
	up1=$(cut -d' ' -f1 /proc/uptime)
	t1=$(ticks $dpid)
	set -- $(busy)
	b1=$1 a1=$2
	irq1=$(cat $E/sensor0/interrupts)
	sed 's/^/STORM: round '$rnd': /' /tmp/storm.out
	awk -v t="$((t1 - t0))" -v u0="$up0" -v u1="$up1" -v b="$((b1 - b0))" -v a="$((a1 - a0))" \
		-v n="$(grep -c ^processor /proc/cpuinfo)" -v r="$rnd" 'BEGIN {
		printf "STORM: round %d: CPU over %.1f s: coolhandd %.2f s = %.1f%% of one CPU;", r, u1 - u0, t / 100, t / (u1 - u0);
		printf " whole guest (%d vCPUs, storm driver and kernel included) %.1f%% busy\n", n, 100 * b / a }'
	echo "STORM: round $rnd: sensor0 interrupts: $((irq1 - irq0))"
	mem $dpid "right after round $rnd"
	sleep 5
	mem $dpid "5 s after round $rnd"
	# The storm ends at 40 °C, below the row's 50 °C release: level 0 is due.
	echo "STORM: round $rnd: 5 s after: sensor $(cat $S) m°C, throttle0 level" \
		"$(cat $E/throttle0/throttling) (the policy wants 0)"
}
sleep 5
mem $dpid "before the storm"
rnd=1
while [ $rnd -le "$ROUNDS" ]; do
	storm_round
	rnd=$((rnd + 1))
done

kill -TERM $dpid
wait $dpid
drc=$?
[ $drc -eq 0 ] || die "coolhandd exited with $drc"
# The daemon leaves the window it last programmed: probe far outside it.
/storm seq $S 90000 0 58000 >/tmp/seq2 || die "last probe"
seq2=$(cat /tmp/seq2)
produced=$((seq2 - seq1 - 1))
line=$(grep 'coolhand netlink: received' $L) || die "no coolhand netlink counters in the daemon's log"
echo "STORM: coolhandd $(echo "$line" | sed 's/^.*coolhand netlink: /coolhand netlink: /')"
grep 'thermal netlink: received' $L | sed 's/^.*thermal netlink: /STORM: coolhandd thermal netlink: /'
received=$(echo "$line" | sed -n 's/.*received \([0-9]*\).*/\1/p')
overruns=$(echo "$line" | sed -n 's/.*overruns \([0-9]*\).*/\1/p')
gaps=$(echo "$line" | sed -n 's/.*gaps \([0-9]*\).*/\1/p')
counted=$(echo "$line" | sed -n 's/.*lost \([0-9]*\).*/\1/p')
echo "STORM: events the module produced while coolhandd ran: $produced (sequence $seq1 -> $seq2)"
lost=$((produced - received))
echo "STORM: events coolhandd did not receive: $lost; the daemon counted: lost ${counted:-?} (overruns $overruns, gaps $gaps)"
if [ "$lost" -eq 0 ] || [ $((overruns + gaps)) -gt 0 ]; then
	echo "STORM: every lost event is accounted for (none lost, or the loss was counted)"
else
	echo "STORM: UNCOUNTED LOSS: $lost events lost and no overrun or gap counted"
fi
grep -i 'resync' $L | head -3 | sed 's/^/STORM: log: /'

# Peer: Debian's thermald (when packed) on the same zones, no D-Bus (as
# coolhandd ran here), its default 4 s polling, measured the same way.
if [ -x /thermald ]; then
	/thermald --no-daemon --ignore-cpuid-check >/tmp/thermald.log 2>&1 &
	tpid=$!
	sleep 20
	if kill -0 $tpid 2>/dev/null; then
		mem $tpid "peer thermald $(/thermald --version 2>/dev/null | head -1) after 20 s"
		kill -TERM $tpid
		wait $tpid
	else
		echo "STORM: peer thermald exited early:"
		sed 's/^/STORM:   thermald: /' /tmp/thermald.log | head -20
	fi
fi
finish 0 DONE
