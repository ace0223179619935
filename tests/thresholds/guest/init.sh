#!/bin/busybox sh
# /init of the user-threshold test guest (packed by
# tests/thresholds/run-vm-test.sh with busybox, the real coolhandd and its
# shared libraries, thresholds_probe, policy.yaml; the kernel gets the ACPI
# zone of tz.asl through qemu -acpitable).
#
# The scenario, each step a TAP-like "ok"/"not ok" line on the serial console:
#  1. the ACPI zone exists and follows the CMOS byte the test writes;
#  2. coolhandd starts with netlink, reports family version >= 2 and
#     thresholds, and binds the zone as an event-driven sensor;
#  3. the kernel holds exactly the up/down thresholds the daemon logged
#     (THRESHOLD_GET through thresholds_probe), bracketing the temperature;
#  4. at a steady temperature the daemon sleeps: no voluntary context
#     switch in its threads and no sysfs read of the zone while the kernel
#     keeps polling it (the zone is read once per window the kernel
#     accepts, never on a timer);
#  5. 40 -> 55 C: a THRESHOLD_UP event throttles the knob; 55 -> 45 C: a
#     THRESHOLD_DOWN event releases it; new thresholds follow each time;
#  6. SIGTERM while throttled: clean exit, knob restored, thresholds flushed;
#  7. no kernel warnings (with a positive control: a marker line written
#     to /dev/kmsg at boot must be found in the captured log).
# With coolhand_expect=fallback on the kernel command line (Debian 12's 6.1,
# no thresholds) steps 3-5 check the fallback instead: version 1, no
# threshold command, sampling events (one per kernel poll) drive the knob,
# and the zone is still never read on a timer.
# Verdict (vm_finish of /vm-guest-lib.sh, tests/vm-guest-lib.sh, which also
# gives check, wait_for and the kernel-log checks): "COOLHAND-VM-RESULT:
# PASS|FAIL" and isa-debug-exit (qemu exits
# 1 for pass, 3 for fail); a guest that hangs or panics produces neither.
# shellcheck source-path=SCRIPTDIR source=../../vm-guest-lib.sh
. /vm-guest-lib.sh
vm_guest_start coolhand-thr
export LD_LIBRARY_PATH=/lib/x86_64-linux-gnu

IDLE_SECONDS=${coolhand_idle_seconds:-6}
# thresholds (a 6.13+ kernel) or fallback (an older kernel, e.g. 6.1).
MODE=${coolhand_expect:-thresholds}
KNOB=/sys/kernel/debug/coolhand/knob
LOG=/tmp/coolhandd.log
P=/thresholds_probe
finish() {
	echo "# coolhandd log:"
	sed 's/^/#   /' "$LOG" 2>/dev/null
	vm_finish
}
# CMOS byte 0x50 = temperature in C: one 2-byte write at port 0x70 sets the
# index and then the data register (/dev/port writes successive ports).
set_temp() { printf "\\120\\$(printf %03o "$1")" | dd of=/dev/port bs=2 seek=56 count=1 2>/dev/null; }
zone_is() { [ "$(cat "$ZONE/temp")" = "$1" ]; }
knob_is() { [ "$(cat "$KNOB")" = "$1" ]; }
logged() { grep -q "$1" "$LOG"; }
# The log lines some checks expect to be absent. Each wording is also
# checked present elsewhere (noted beside it), so a changed wording fails a
# check instead of silently passing the absent one.
SAMPLE_LINE="netlink: sample zone"         # present: fallback steps 3-5
# alive: the daemon is running (a zombie or a vanished pid is not).
alive() { [ -r "/proc/$DPID/status" ] && ! grep -q '^State:[[:space:]]*[ZX]' "/proc/$DPID/status"; }
# wakeups: voluntary context switches summed over the daemon's threads; fails
# (and prints nothing) when the daemon is not running, so a dead daemon can
# never read as "0 wakeups".
wakeups() {
	alive || { echo "coolhandd (pid $DPID) is not running" >&2; return 1; }
	cat /proc/"$DPID"/task/*/status | awk '/^voluntary_ctxt_switches/ { s += $2; n++ } END { if (n) print s; else exit 1 }'
}
# armed_timers: prints "TIMERFDS ARMED": the daemon's timerfds, and those
# whose it_value is not (0, 0), i.e.
# armed (fs/timerfd.c, timerfd_show). No armed timer means nothing can wake
# the daemon but a netlink event, however long the idle window.
armed_timers() {
	alive || { echo "coolhandd (pid $DPID) is not running" >&2; return 1; }
	t_fds=0
	t_all=0
	t_armed=0
	for f in /proc/"$DPID"/fdinfo/*; do
		[ -r "$f" ] && t_fds=$((t_fds + 1))
		grep -q '^clockid:' "$f" 2>/dev/null && grep -q '^it_value:' "$f" 2>/dev/null || continue
		t_all=$((t_all + 1))
		grep -q '^it_value: (0, 0)$' "$f" || { t_armed=$((t_armed + 1)); echo "# armed: fd ${f##*/}: $(grep '^it_value:' "$f")" >&2; }
	done
	# Positive control: the scan saw the daemon's descriptors (netlink, the
	# event loop's epoll and signalfd at least), so "0 armed" means something.
	[ "$t_fds" -ge 3 ] || { echo "only $t_fds fds seen in /proc/$DPID/fdinfo" >&2; return 1; }
	echo "$t_all $t_armed"
}
# idle_window SECONDS: sets w_delta (voluntary switches over the window) and
# timers_before/timers_after ("total armed"); status 1 if the daemon died.
idle_window() {
	w0=$(wakeups) || return 1
	timers_before=$(armed_timers) || return 1
	sleep "$1"
	w1=$(wakeups) || return 1
	timers_after=$(armed_timers) || return 1
	w_delta=$((w1 - w0))
}
# The kernel's thresholds must equal the last ones the daemon logged.
last_window() { grep "$WINDOW_LINE" "$LOG" | tail -n 1 | sed 's/.*up \(-*[0-9]*\) m°C, down \(-*[0-9]*\) m°C/\1 \2/'; }
kernel_holds_window() {
	set -- $(last_window)
	[ -n "$2" ] || { echo "no window in the daemon log"; return 1; }
	"$P" get "$TZ" >/tmp/probe.out || return 1
	cat /tmp/probe.out
	grep -qx "threshold $1 up" /tmp/probe.out && grep -qx "threshold $2 down" /tmp/probe.out &&
		grep -qx 'count 2' /tmp/probe.out
}
# brackets T: the last window's down threshold <= T < its up threshold.
brackets() {
	t=$1
	set -- $(last_window)
	[ -n "$2" ] && [ "$2" -le "$t" ] && [ "$t" -lt "$1" ]
}

echo "# coolhand threshold test on $(uname -r), expecting: $MODE"

# 1. The zone.
ZONE=""
for z in /sys/class/thermal/thermal_zone*; do
	[ "$(cat "$z/type" 2>/dev/null)" = acpitz ] && ZONE=$z
done
check "ACPI thermal zone (type acpitz) registered" [ -n "$ZONE" ]
[ -n "$ZONE" ] || finish
TZ=${ZONE##*thermal_zone}
WINDOW_LINE="netlink: zone $TZ thresholds:" # present: thresholds steps 3-5
set_temp 40
check "zone follows the CMOS byte (40 C)" wait_for 5 zone_is 40000

mount -t tmpfs tmpfs /sys/kernel/debug && mkdir /sys/kernel/debug/coolhand && echo 100 >"$KNOB"
check "fake knob under /sys holds its original value" knob_is 100

# 2. The daemon.
/coolhandd --config /policy.yaml --netlink on --verbose >"$LOG" 2>&1 &
DPID=$!
check "coolhandd starts" wait_for 20 logged 'coolhandd .* running'
check "zone bound as an event-driven sensor" logged "sensor tz: thermal_zone$TZ (acpitz), event-driven"
check "knob unthrottled at 40 C" knob_is 100
reads() { grep -c '^<7>\(sample\|recheck\) tz ' "$LOG"; }
samples_before=$(grep -c '^<7>sample tz ' "$LOG")

if [ "$MODE" = thresholds ]; then
	check "netlink family version >= 2 with thresholds" \
		grep -Eq 'thermal netlink: subscribed \(family version ([2-9]|[1-9][0-9]+), thresholds yes\)' "$LOG"

	# 3. Thresholds in the kernel.
	check "THRESHOLD_ADD accepted (daemon logged a window)" logged "$WINDOW_LINE"
	check "daemon's window brackets 40 C" brackets 40000
	check "kernel holds the daemon's thresholds at 40 C (THRESHOLD_GET)" kernel_holds_window

	# 4. Idle: the kernel polls the zone every second, the daemon sleeps.
	reads_before=$(reads)
	check "daemon alive before the idle window" alive
	w_delta=""
	idle_window "$IDLE_SECONDS"
	check "daemon alive after the idle window" alive
	echo "# idle: ${w_delta:-?} voluntary context switches in ${IDLE_SECONDS} s; timerfds (total armed): ${timers_before:-?} -> ${timers_after:-?}"
	check "no daemon wakeups in ${IDLE_SECONDS} s at a steady temperature" [ "${w_delta:-x}" = 0 ]
	# The window above is shorter than max_interval (30 s): prove that no
	# timer is armed at all, so no longer window could see a wakeup either.
	check "no timer armed while idle (before and after the window)" \
		sh -c "[ \"\${1#* }\" = 0 ] && [ \"\${2#* }\" = 0 ]" _ "${timers_before:-x x}" "${timers_after:-x x}"
	check "no sysfs read of the zone while idle" [ "$(reads)" -eq "$reads_before" ]
	check "no sampling events received (group not joined)" sh -c "! grep -q '$SAMPLE_LINE' $LOG"

	# 5. Crossings.
	set_temp 55
	check "zone at 55 C" wait_for 5 zone_is 55000
	check "THRESHOLD_UP event at 55 C" wait_for 5 logged "netlink: threshold_up zone $TZ at 55000 m°C"
	check "knob throttled to level 2 (20)" wait_for 5 knob_is 20
	check "daemon's new window brackets 55 C" wait_for 5 brackets 55000
	check "kernel holds the new thresholds" kernel_holds_window
	set_temp 45
	check "THRESHOLD_DOWN event at 45 C" wait_for 5 logged "netlink: threshold_down zone $TZ at 45000 m°C"
	check "knob released (100)" wait_for 5 knob_is 100
	check "daemon's new window brackets 45 C" wait_for 5 brackets 45000
	check "kernel holds the new thresholds" kernel_holds_window
	check "zone not polled after start" [ "$(grep -c '^<7>sample tz ' "$LOG")" -eq "$samples_before" ]
	check "zone read once per window the kernel accepted (recheck)" \
		[ "$(grep -c '^<7>recheck tz ' "$LOG")" -eq "$(grep -c "$WINDOW_LINE" "$LOG")" ]
else
	# 3-5 on a kernel without thresholds: the fallback to sampling events.
	check "netlink family version 1, no thresholds" \
		logged 'thermal netlink: subscribed (family version 1, thresholds no)'
	check "no THRESHOLD command sent" sh -c "! grep -q '$WINDOW_LINE' $LOG"
	# genl_family_rcv_msg: a command the family does not have is -EOPNOTSUPP
	# (net/netlink/genetlink.c), which libnl names "Operation not supported".
	check "THRESHOLD_GET unknown to this kernel (EOPNOTSUPP)" \
		sh -c "if $P get $TZ 2>/tmp/probe.err; then echo 'THRESHOLD_GET succeeded'; exit 1; fi
			cat /tmp/probe.err; grep -qx 'thresholds_probe: THRESHOLD_GET: Operation not supported' /tmp/probe.err"
	reads_before=$(reads)
	check "daemon alive before the idle window" alive
	w_delta=""
	idle_window "$IDLE_SECONDS"
	check "daemon alive after the idle window" alive
	echo "# idle: ${w_delta:-?} voluntary context switches in ${IDLE_SECONDS} s (one per kernel poll)"
	check "sampling events arrive while idle" logged "$SAMPLE_LINE $TZ at 40000 m°C"
	check "no sysfs read of the zone while idle" [ "$(reads)" -eq "$reads_before" ]
	set_temp 55
	check "sampling event at 55 C" wait_for 5 logged "$SAMPLE_LINE $TZ at 55000 m°C"
	check "knob throttled to level 2 (20)" wait_for 5 knob_is 20
	set_temp 45
	check "sampling event at 45 C" wait_for 5 logged "$SAMPLE_LINE $TZ at 45000 m°C"
	check "knob released (100)" wait_for 5 knob_is 100
	check "zone not polled after start" [ "$(grep -c '^<7>sample tz ' "$LOG")" -eq "$samples_before" ]
fi

# 6. Exit while throttled.
set_temp 56
check "throttled again at 56 C" wait_for 5 knob_is 20
kill -TERM "$DPID"
wait "$DPID"
rc=$?
check "SIGTERM: clean exit (status $rc)" [ "$rc" -eq 0 ]
check "SIGTERM: original knob value restored" knob_is 100
if [ "$MODE" = thresholds ]; then
	check "SIGTERM: daemon's thresholds flushed" sh -c "$P get $TZ | grep -qx 'count 0'"
fi

# The daemon's counters (logged at exit): every message from the kernel was
# decoded; none spoofed, malformed, overrun or missing.
check "every netlink message from the kernel decoded (counters)" grep -Eq \
	'thermal netlink: received [1-9][0-9]*, accepted [1-9][0-9]*, spoofed 0, malformed 0, foreign [0-9]+, overruns 0, gaps 0' "$LOG"

# 7. The kernel log.
vm_check_kernel_log
check "no ACPI errors from the test zone" sh -c "! grep -E 'ACPI (BIOS )?Error' /tmp/dmesg.txt"
finish
