#!/bin/busybox sh
# /init of the coolhand kmod test guest (packed by tests/kmod/run-vm-tests.sh
# into an initramfs with busybox, coolhand.ko and coolhand_vmtest).
#
# Runs every check in one boot, prints TAP-like "ok"/"not ok" lines on the
# serial console, then reports the verdict twice: a marker line
# "COOLHAND-VM-RESULT: PASS|FAIL ..." and the isa-debug-exit port (qemu exits
# with 1 for pass, 3 for fail). A guest that panics or hangs produces
# neither, so the runner fails it too.
export PATH=/bin:/sbin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
# Keep kernel messages off the console (they would interleave with the
# results) and start the log afresh: boot messages are not ours to judge.
dmesg -n 1
dmesg -c >/dev/null

KO=/coolhand.ko
T=/coolhand_vmtest
MAIN="emul_zones=2 emul_devices=2 emul_kind=cpu,skin critical_report_only=1"
STRESS_SECONDS=${coolhand_stress_seconds:-4}
CYCLES=${coolhand_cycles:-50}
n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
# check DESCRIPTION COMMAND...: one shell-level check.
check() {
	desc=$1
	shift
	if "$@" >/tmp/check.out 2>&1; then
		ok "$desc"
	else
		not_ok "$desc"
		sed 's/^/#   /' /tmp/check.out
	fi
}
# suite NAME...: run a coolhand_vmtest suite, count its checks and failures.
suite() {
	"$T" "$@" >/tmp/suite.out 2>&1
	rc=$?
	cat /tmp/suite.out
	s_n=$(grep -c '^ok \|^not ok ' /tmp/suite.out)
	s_fail=$(grep -c '^not ok ' /tmp/suite.out)
	n=$((n + s_n))
	failed=$((failed + s_fail))
	if [ "$rc" -ne 0 ] && [ "$s_fail" -eq 0 ]; then
		not_ok "suite $1 exited with status $rc"
	fi
}
loaded() { grep -q '^coolhand ' /proc/modules; }
not_loaded() { ! loaded; }
no_emul_thermal() { ! cat /sys/class/thermal/*/type 2>/dev/null | grep -q '^emul_'; }
insmod_must_fail() { ! insmod "$KO" "$@" && not_loaded; }

start=$(cut -d. -f1 /proc/uptime)
echo "# coolhand kmod tests on $(uname -r), $(grep -c ^processor /proc/cpuinfo) cpu(s)"

# 1. The main suites on one load of the emulated platform.
check "insmod $MAIN" insmod "$KO" $MAIN
if loaded; then
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
	check "rmmod after the main suites" rmmod coolhand
fi
check "unload removed the zones from /sys/class/thermal" no_emul_thermal
check "unload removed /sys/class/coolhand" [ ! -e /sys/class/coolhand ]
check "unload removed /sys/devices/coolhand_emul" [ ! -e /sys/devices/coolhand_emul ]

# 3. A zone without a critical trip hides the crit files.
check "insmod without critical trip" insmod "$KO" emul_zones=1 emul_devices=1 emul_crit_mc=0
if loaded; then
	suite nocrit
	check "rmmod (nocrit)" rmmod coolhand
fi

# 4. Invalid module parameters are refused and leave nothing behind.
check "emul_zones=17 refused" insmod_must_fail emul_zones=17
check "emul_kind=toaster refused" insmod_must_fail emul_zones=1 emul_kind=toaster
check "default_step_mc=0 refused" insmod_must_fail default_step_mc=0
check "critical trip below passive refused" insmod_must_fail emul_zones=1 emul_crit_mc=50000
check "no leftovers after refused loads" [ ! -e /sys/class/coolhand ]

# 5. Without emulation the module only provides the core.
check "insmod without emulated platform" insmod "$KO"
check "core class exists, no zones" sh -c '[ -d /sys/class/coolhand ] && [ -z "$(ls /sys/class/coolhand)" ]'
check "rmmod (core only)" rmmod coolhand

# 6. Load/unload cycles, each exercising the platform a little.
cycle_fail=0
i=0
while [ $i -lt "$CYCLES" ]; do
	i=$((i + 1))
	if ! insmod "$KO" emul_zones=3 emul_devices=3 critical_report_only=1; then
		cycle_fail=$((cycle_fail + 1))
		continue
	fi
	echo $((60000 + i * 100)) >/sys/devices/coolhand_emul/sensor0/temp || cycle_fail=$((cycle_fail + 1))
	echo $((i % 11)) >/sys/devices/coolhand_emul/throttle2/throttling || cycle_fail=$((cycle_fail + 1))
	cat /sys/class/coolhand/zone2/temp1_input >/dev/null || cycle_fail=$((cycle_fail + 1))
	rmmod coolhand || cycle_fail=$((cycle_fail + 1))
done
check "$CYCLES load/unload cycles without error" [ "$cycle_fail" -eq 0 ]
check "module unloaded after the cycles" not_loaded
check "no zones left in /sys/class/thermal after the cycles" no_emul_thermal

# 7. The kernel log: no oops, WARN, BUG or lockdep splat; no warnings from
#    us beyond the expected ones; the critical trip went through the
#    report-only path; taint shows no warning (W, 512) or oops (D, 128).
dmesg -r >/tmp/dmesg.txt
splats='WARNING:|BUG:|Oops|general protection|Call Trace|lockdep|circular locking|INFO: task|rcu_.*stall|UBSAN|KASAN|refcount_t|list_add corruption|list_del corruption|kernel BUG|hung_task'
# Expected: our report-only critical message, the taint notices of an
# unsigned out-of-tree module, and the refusals of the bad-parameter loads.
expected='critical temperature reached \(report only\)|loading out-of-tree module taints kernel|module verification failed|coolhand: invalid emul_\* module parameters|coolhand: default_step_mc must be'
check "dmesg has no oops/WARN/BUG/lockdep splat" sh -c "! grep -E '$splats' /tmp/dmesg.txt"
check "dmesg has no unexpected warnings or errors" sh -c "! grep -E '^<[0-4]>' /tmp/dmesg.txt | grep -vE '$expected'"
check "critical trip handled as report-only" grep -q 'critical temperature reached (report only)' /tmp/dmesg.txt
tainted=$(cat /proc/sys/kernel/tainted)
check "kernel not tainted by a warning or oops (tainted=$tainted)" [ $((tainted & 640)) -eq 0 ]
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
if [ "$failed" -eq 0 ] && [ "$n" -gt 0 ]; then
	echo "COOLHAND-VM-RESULT: PASS ($n checks)"
	code='\000'
else
	echo "COOLHAND-VM-RESULT: FAIL ($failed of $n checks failed)"
	code='\001'
fi
sync
printf "$code" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
# Only reached without isa-debug-exit.
poweroff -f
