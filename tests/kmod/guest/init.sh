#!/bin/busybox sh
# /init of the coolhand kmod test guest (packed by tests/kmod/run-vm-tests.sh
# into an initramfs with busybox, coolhand.ko, coolhand_emul.ko,
# coolhand_vmtest and, when built, the real coolhandd with its libraries and
# daemon-policy.yaml). The core, coolhand.ko, is always loaded first; the
# emulated platform, coolhand_emul.ko, registers its zones and devices
# through the core's exported API.
#
# Runs every check in one boot, prints TAP-like "ok"/"not ok" lines on the
# serial console, then reports the verdict twice: a marker line
# "COOLHAND-VM-RESULT: PASS|FAIL ..." and the isa-debug-exit port (qemu exits
# with 1 for pass, 3 for fail). A guest that panics or hangs produces
# neither, so the runner fails it too. check, wait_for, now_cs, the kernel
# log checks and the verdict come from /vm-guest-lib.sh (tests/vm-guest-lib.sh).
# shellcheck source-path=SCRIPTDIR source=../../vm-guest-lib.sh
. /vm-guest-lib.sh
vm_guest_start coolhand-kmod

KO=/coolhand.ko
EKO=/coolhand_emul.ko
T=/coolhand_vmtest
# The emulated criticals must not power the guest off.
CORE="critical_report_only=1"
MAIN="emul_zones=2 emul_devices=2 emul_kind=cpu,skin"
STRESS_SECONDS=${coolhand_stress_seconds:-4}
CYCLES=${coolhand_cycles:-50}
# tally NAME RC FILE: count the checks and failures a suite wrote to FILE.
tally() {
	cat "$3"
	s_n=$(grep -c '^ok \|^not ok ' "$3")
	s_fail=$(grep -c '^not ok ' "$3")
	n=$((n + s_n))
	failed=$((failed + s_fail))
	if [ "$2" -ne 0 ] && [ "$s_fail" -eq 0 ]; then
		not_ok "suite $1 exited with status $2"
	fi
}
# suite NAME...: run a coolhand_vmtest suite, count its checks and failures.
suite() {
	"$T" "$@" >/tmp/suite.out 2>&1
	tally "$1" $? /tmp/suite.out
}
# level_is DEVICE OP N: e.g. level_is throttle0 -eq 8
level_is() { [ "$(cat "/sys/devices/coolhand_emul/$1/throttling")" "$2" "$3" ]; }
loaded() { grep -q '^coolhand ' /proc/modules; }
not_loaded() { ! loaded; }
emul_loaded() { grep -q '^coolhand_emul ' /proc/modules; }
# load_both EMUL_PARAMS...: the core, then the emulated platform.
load_both() { insmod "$KO" $CORE && insmod "$EKO" "$@"; }
# unload_both: the emulated platform, then the core.
unload_both() { rmmod coolhand_emul && rmmod coolhand; }
no_emul_thermal() { ! cat /sys/class/thermal/*/type 2>/dev/null | grep -q '^emul_'; }
insmod_must_fail() { ! insmod "$KO" "$@" && not_loaded; }
emul_insmod_must_fail() { ! insmod "$EKO" "$@" && ! emul_loaded && [ ! -e /sys/devices/coolhand_emul ]; }

start=$(cut -d. -f1 /proc/uptime)
echo "# coolhand kmod tests on $(uname -r), $(grep -c ^processor /proc/cpuinfo) cpu(s)"

# 1. The main suites on one load of the core and the emulated platform.
check "insmod coolhand_emul.ko without coolhand.ko is refused" emul_insmod_must_fail $MAIN
check "insmod coolhand.ko $CORE, coolhand_emul.ko $MAIN" load_both $MAIN
if emul_loaded; then
	suite abi
	suite events
	suite thermal
	suite perm

	# 2. Concurrency: levels, temperatures and netlink at once.
	"$T" stress-throttle "$STRESS_SECONDS" >/tmp/st1 2>&1 &
	p1=$!
	"$T" stress-temp "$STRESS_SECONDS" >/tmp/st2 2>&1 &
	p2=$!
	"$T" stress-netlink "$STRESS_SECONDS" >/tmp/st3 2>&1 &
	p3=$!
	wait $p1
	r1=$?
	wait $p2
	r2=$?
	wait $p3
	r3=$?
	cat /tmp/st1 /tmp/st2 /tmp/st3
	check "stress: throttling writer finished cleanly" [ "$r1" -eq 0 ]
	check "stress: temperature writer finished cleanly" [ "$r2" -eq 0 ]
	check "stress: netlink dumper/listener finished cleanly" [ "$r3" -eq 0 ]
	check "module still answers after the stress" cat /sys/class/coolhand/zone0/temp1_input

	# 2b. The platform is a client of the core: the core stays while it is
	#     loaded, and unloading it while user space holds its files, a
	#     subscribed netlink socket and busy writers is safe.
	check "coolhand.ko cannot be unloaded while coolhand_emul.ko is loaded" \
		sh -c '! rmmod coolhand && grep -q "^coolhand .* coolhand_emul" /proc/modules'
	"$T" hold-across-unload >/tmp/hold.out 2>&1 &
	ph=$!
	check "files and netlink held open" wait_for 10 grep -q '^# holding' /tmp/hold.out
	"$T" hammer-until-unload 30 >/tmp/hammer1.out 2>&1 &
	pw1=$!
	"$T" hammer-until-unload 30 >/tmp/hammer2.out 2>&1 &
	pw2=$!
	usleep 500000
	check "rmmod coolhand_emul while files are held and writers are busy" rmmod coolhand_emul
	wait $ph
	tally hold-across-unload $? /tmp/hold.out
	wait $pw1
	rw1=$?
	wait $pw2
	rw2=$?
	cat /tmp/hammer1.out /tmp/hammer2.out
	check "two writers ran across the unload and saw only clean refusals after it" \
		[ $((rw1 + rw2)) -eq 0 ]
	check "core stays loaded with no zones after the platform left" \
		sh -c '[ -d /sys/class/coolhand ] && [ -z "$(ls /sys/class/coolhand)" ]'
	check "unloading the platform removed its zones from /sys/class/thermal" no_emul_thermal
	check "coolhand_emul.ko loads again on the same core" insmod "$EKO" $MAIN
	check "zones are back after the reload" [ -e /sys/devices/coolhand_emul/sensor1/temp ]
	check "rmmod coolhand_emul, then coolhand after the main suites" unload_both
fi
check "unload removed the zones from /sys/class/thermal" no_emul_thermal
check "unload removed /sys/class/coolhand" [ ! -e /sys/class/coolhand ]
check "unload removed /sys/devices/coolhand_emul" [ ! -e /sys/devices/coolhand_emul ]

# 3. The real coolhandd against the module on the real /sys
#    (daemon-policy.yaml): it must take the module's zones from the coolhand
#    family without polling them (reading temp1_input clears temp1_alarm, so
#    a set alarm proves no read), program their windows with WINDOW_SET,
#    throttle when hot, release when cool, re-apply a level another writer
#    changed (EVENT_THROTTLE), restore the original levels on SIGTERM, and
#    fall back on this 6.1 kernel's thermal family (no THRESHOLD_ADD) and,
#    without CAP_SYS_ADMIN, from WINDOW_SET to the event_window file.
D=/coolhandd
E=/sys/devices/coolhand_emul
L=/tmp/coolhandd.log
if [ ! -x "$D" ]; then
	echo "# coolhandd checks not run: no coolhandd in the initramfs (standalone tests/kmod build)"
else
	check "insmod both modules for the daemon checks" load_both $MAIN
fi
if [ -x "$D" ] && emul_loaded; then
	d_start=$(now_cs)
	suite thermal-thresholds
	for tz in /sys/class/thermal/thermal_zone*; do
		case "$(cat "$tz/type")" in emul_zone*) echo user_space >"$tz/policy" ;; esac
	done
	Z1=$(dirname "$(grep -lx emul_zone1 /sys/class/coolhand/zone*/name)")
	echo 3 >$E/throttle0/throttling # the originals the daemon must restore
	echo 2 >$E/throttle1/throttling
	# Level 0 is the value found at start (issue 10): the levels run from
	# there to throttling_max 10, so table level 8 of max_level 10 is
	# 3 + 7 * 8 / 10 = 8.6, written as 9 (docs/daemon.md, rounded to nearest).
	HOT8=9
	"$D" --config /daemon-policy.yaml --verbose >$L 2>&1 &
	dpid=$!
	check "coolhandd starts" wait_for 10 grep -q 'running:' $L
	check "coolhandd subscribed to the coolhand family" grep -q 'coolhand netlink: subscribed' $L
	check "both module zones are event-driven from the coolhand family" \
		sh -c "[ \$(grep -c 'event-driven (coolhand netlink)' $L) -eq 2 ]"
	case "$(uname -r)" in
	6.1.*)
		check "6.1 thermal family: no thresholds, the daemon says so and falls back" \
			grep -q 'thermal netlink: subscribed (family version 1, thresholds no)' $L ;;
	*)
		check "6.13+ thermal family: thresholds, the daemon says so" \
			grep -q 'thermal netlink: subscribed (family version 2, thresholds yes)' $L ;;
	esac
	check "coolhandd wrote nothing at start (levels 3 and 2 as found)" \
		sh -c "[ \$(cat $E/throttle0/throttling) -eq 3 ] && [ \$(cat $E/throttle1/throttling) -eq 2 ]"
	check "WINDOW_SET put the skin zone in window mode" \
		sh -c "grep -qx window $Z1/event_mode && grep -q 'coolhand netlink: zone ${Z1##*zone} window' $L"
	echo 52000 >$E/sensor1/temp
	check "throttles when hot (throttle0 at level 8: $HOT8)" wait_for 5 level_is throttle0 -eq $HOT8
	check "the skin zone was not polled (temp1_alarm still set)" grep -qx 1 $Z1/temp1_alarm
	echo 30000 >$E/sensor1/temp
	check "releases when cool (throttle0 back to level 0: 3, as found)" wait_for 5 level_is throttle0 -eq 3
	echo 9 >$E/throttle1/throttling
	check "a level changed by another writer is re-applied (level 0: 2)" wait_for 5 level_is throttle1 -eq 2
	kill -TERM $dpid
	wait $dpid
	check "coolhandd exits 0 on SIGTERM" [ $? -eq 0 ]
	check "SIGTERM restored throttle0's original level 3" level_is throttle0 -eq 3
	check "SIGTERM restored throttle1's original level 2" level_is throttle1 -eq 2
	check "temperatures came from coolhand events" grep -q 'event skin = 52000' $L
	check "coolhand events accepted, none dropped or lost" grep -Eq \
		'coolhand netlink: received [1-9][0-9]*, accepted [1-9][0-9]*, spoofed 0, malformed 0, foreign 0, overruns 0, gaps 0' $L
	# With thresholds (6.13+) the daemon never joins the sampling group.
	case "$(uname -r)" in
	6.1.*)
		check "thermal family events arrive too (mirror zones' SAMPLING_TEMP)" \
			grep -Eq 'thermal netlink: received [1-9][0-9]*, accepted [1-9][0-9]*, spoofed 0, malformed 0' $L ;;
	*)
		check "6.13+: thermal family messages, if any, all accepted" \
			grep -Eq 'thermal netlink: received ([0-9]+), accepted \1, spoofed 0, malformed 0' $L ;;
	esac
	grep 'netlink: received' $L | sed 's/^<6>/# coolhandd: /'
	check "module zones read once at start, never polled" \
		sh -c "[ \$(grep -c 'sample skin =' $L) -eq 1 ] && [ \$(grep -c 'sample cpu =' $L) -eq 1 ]"
	[ "$failed" -eq 0 ] || sed 's/^/#   coolhandd: /' $L

	# Without CAP_SYS_ADMIN: one line, then the event_window file.
	echo "1000 1000" >$Z1/event_step # step mode until the daemon writes
	"$T" without-cap-sys-admin "$D" --config /daemon-policy.yaml >$L.2 2>&1 &
	dpid=$!
	check "no CAP_SYS_ADMIN: coolhandd starts" wait_for 10 grep -q 'running:' $L.2
	check "no CAP_SYS_ADMIN: WINDOW_SET refused, said once" \
		sh -c "[ \$(grep -c 'WINDOW_SET not permitted' $L.2) -eq 1 ]"
	check "no CAP_SYS_ADMIN: the window went to event_window instead" grep -qx window $Z1/event_mode
	echo 52000 >$E/sensor1/temp
	check "no CAP_SYS_ADMIN: still throttles when hot" wait_for 5 level_is throttle0 -eq $HOT8
	kill -TERM $dpid
	wait $dpid
	check "no CAP_SYS_ADMIN: exits 0 and restores level 3" sh -c "[ $? -eq 0 ] && [ \$(cat $E/throttle0/throttling) -eq 3 ]"
	[ "$failed" -eq 0 ] || sed 's/^/#   coolhandd (no CAP_SYS_ADMIN): /' $L.2

	# The platform goes away under a running daemon (its netlink sockets,
	# programmed windows and applied levels): the kernel stays sound, the
	# daemon notices (TZ_DELETE of the mirrors), keeps running and still
	# exits cleanly.
	echo 52000 >$E/sensor1/temp
	"$D" --config /daemon-policy.yaml --verbose >$L.3 2>&1 &
	dpid=$!
	check "coolhandd starts for the unload check" wait_for 10 grep -q 'running:' $L.3
	check "coolhandd throttles before the unload" wait_for 5 level_is throttle0 -eq $HOT8
	check "rmmod coolhand_emul while coolhandd runs" rmmod coolhand_emul
	check "coolhandd saw both zones go (thermal zone deleted; lost)" \
		wait_for 5 sh -c "[ \$(grep -c 'thermal zone [0-9]* deleted; lost' $L.3) -eq 2 ]"
	check "coolhandd survives the platform's unload" kill -0 $dpid
	check "coolhand.ko still loaded under the daemon" loaded
	kill -TERM $dpid
	wait $dpid
	check "coolhandd exits 0 on SIGTERM after the platform left" [ $? -eq 0 ]
	grep -iE 'lost|vanish|gone|removed|fail' $L.3 | head -n 8 | sed 's/^/# coolhandd after unload: /'
	[ "$failed" -eq 0 ] || sed 's/^/#   coolhandd (unload): /' $L.3
	check "rmmod coolhand after the daemon checks" rmmod coolhand
	d_cs=$(($(now_cs) - d_start))
	echo "# coolhandd checks took $((d_cs / 100)).$((d_cs % 100 / 10)) s"
fi

# 4. A zone without a critical trip hides the crit files.
check "insmod without critical trip" load_both emul_zones=1 emul_devices=1 emul_crit_mc=0
if emul_loaded; then
	suite nocrit
	check "rmmod both (nocrit)" unload_both
fi

# 4b. 6.13+: the module's mirror of the core's private passive count
#     (zone<N>/thermal_passive) against the kernel's own trip crossings, on
#     three zones with different trips (passive.cpp). On 6.1 the file is
#     the core's tz->passive itself.
case "$(uname -r)" in
6.1.*) echo "# passive suite not run: on 6.1 thermal_passive reads the core's tz->passive" ;;
*)
	check "insmod with three zones of different passive trips" load_both emul_zones=3 \
		emul_devices=3 emul_kind=cpu,skin,component emul_passive_mc=60000,55000,70000 \
		emul_passive_hyst_mc=2000,5000,0 emul_alert_mc=50000,0,65000 \
		emul_alert_hyst_mc=3000,0,1000 emul_binding=0:0,1:1,2:2 emul_governor=step_wise
	if emul_loaded; then
		p_start=$(now_cs)
		suite passive
		p_cs=$(($(now_cs) - p_start))
		echo "# passive suite took $((p_cs / 100)).$((p_cs % 100 / 10)) s"
		check "rmmod both (passive)" unload_both
	fi
	;;
esac

# 5. Invalid module parameters are refused and leave nothing behind.
check "default_step_mc=0 refused" insmod_must_fail default_step_mc=0
check "no leftovers after the refused core" [ ! -e /sys/class/coolhand ]
check "insmod the core for the platform's parameter checks" insmod "$KO"
check "emul_zones=17 refused" emul_insmod_must_fail emul_zones=17
check "emul_kind=toaster refused" emul_insmod_must_fail emul_zones=1 emul_kind=toaster
check "critical trip below passive refused" emul_insmod_must_fail emul_zones=1 emul_crit_mc=50000
check "rising power table refused" emul_insmod_must_fail emul_devices=1 emul_max_level=2 \
	emul_power_mw=100:200:50
check "power table of the wrong length refused" emul_insmod_must_fail emul_devices=1 \
	emul_max_level=2 emul_power_mw=300:200
check "load scale 50 refused" emul_insmod_must_fail emul_devices=1 emul_load_scale=50
check "binding to a missing device refused" emul_insmod_must_fail emul_zones=1 emul_devices=1 \
	emul_binding=0:1
check "alert trip not below the passive trip refused" emul_insmod_must_fail emul_zones=1 \
	emul_alert_mc=60000
check "no zones left after refused platform loads" sh -c '[ -z "$(ls /sys/class/coolhand)" ]'
check "rmmod coolhand after the refused platform loads" rmmod coolhand

# 6. The core alone: no zones, no devices, no platform.
check "insmod coolhand.ko alone" insmod "$KO"
check "core class exists, no zones" sh -c '[ -d /sys/class/coolhand ] && [ -z "$(ls /sys/class/coolhand)" ]'
check "core alone creates no platform and no thermal zones" \
	sh -c '[ ! -e /sys/devices/coolhand_emul ] && ! grep -q "^coolhand_emul " /proc/modules'
check "core alone: no emulated thermal zones" no_emul_thermal
check "rmmod (core only)" rmmod coolhand

# 7. Load/unload cycles, each exercising the platform a little.
cycle_fail=0
c_start=$(now_cs)
i=0
while [ $i -lt "$CYCLES" ]; do
	i=$((i + 1))
	if ! load_both emul_zones=3 emul_devices=3; then
		cycle_fail=$((cycle_fail + 1))
		rmmod coolhand 2>/dev/null
		continue
	fi
	echo $((60000 + i * 100)) >/sys/devices/coolhand_emul/sensor0/temp || cycle_fail=$((cycle_fail + 1))
	echo $((i % 11)) >/sys/devices/coolhand_emul/throttle2/throttling || cycle_fail=$((cycle_fail + 1))
	cat /sys/class/coolhand/zone2/temp1_input >/dev/null || cycle_fail=$((cycle_fail + 1))
	unload_both || cycle_fail=$((cycle_fail + 1))
done
c_cs=$(($(now_cs) - c_start))
echo "# $CYCLES load/unload cycles took $((c_cs / 100)).$((c_cs % 100 / 10)) s"
check "$CYCLES load/unload cycles without error" [ "$cycle_fail" -eq 0 ]
check "both modules unloaded after the cycles" sh -c '! grep -q "^coolhand" /proc/modules'
check "no zones left in /sys/class/thermal after the cycles" no_emul_thermal

# 8. The kernel log: no oops, WARN, BUG or lockdep splat; no warnings from
#    us beyond the expected ones; the critical trip went through the
#    report-only path; taint shows no warning (W, 512) or oops (D, 128).
vm_check_kernel_log
# Expected: our report-only critical message, the taint notices of an
# unsigned out-of-tree module, the refusals of the bad-parameter loads and
# the unknown symbols of coolhand_emul.ko loaded without coolhand.ko.
expected='critical temperature reached \(report only\)|loading out-of-tree module taints kernel|module verification failed|coolhand_emul: invalid emul_\* module parameters|coolhand: default_step_mc must be|coolhand_emul: Unknown symbol coolhand_'
check "dmesg has no unexpected warnings or errors" sh -c "! grep -E '^<[0-4]>' /tmp/dmesg.txt | grep -vE '$expected'"
check "critical trip handled as report-only" grep -q 'critical temperature reached (report only)' /tmp/dmesg.txt
if [ -e /proc/lockdep ]; then
	echo "# lockdep is active in this kernel"
else
	echo "# lockdep is not built into this kernel (CONFIG_PROVE_LOCKING off): relying on WARN/BUG/taint checks"
fi
if [ "$failed" -ne 0 ]; then
	echo "# ---- dmesg ----"
	sed 's/^/# /' /tmp/dmesg.txt
fi

end=$(cut -d. -f1 /proc/uptime)
echo "# guest test time: $((end - start)) s (uptime $end s)"
vm_finish
