# Shared by the /init of the qemu guest tests (tests/kmod, tests/resume,
# tests/thresholds, tests/replay_vm); copied into every initramfs as
# /vm-guest-lib.sh by tests/vm-lib.sh's vm_initramfs_base and sourced, not
# run, by busybox sh. Nothing here is bash.
#
# vm_guest_start NAME: the line "COOLHAND-VM-INIT: NAME" on the console;
#       PATH, /proc, /sys, /dev and a tmpfs /tmp; kernel
#       messages off the console (they would interleave with the results);
#       the kernel log started afresh (boot messages are not ours to judge)
#       with a positive-control line, $DMESG_MARK, planted in it, so an
#       empty or unreadable capture fails vm_check_kernel_log.
# ok DESC / not_ok DESC: one TAP-like "ok N - DESC" / "not ok N - DESC"
#       line; $n counts the checks, $failed the failures.
# check DESC COMMAND...: one check, ok when COMMAND succeeds; its output is
#       printed under a failure.
# wait_for SECONDS COMMAND...: retry COMMAND every 0.1 s until it succeeds
#       or SECONDS have passed (CLOCK_BOOTTIME, /proc/uptime); the last
#       attempt's output is printed on a timeout.
# now_cs: CLOCK_BOOTTIME in centiseconds, for section timings.
# vm_check_kernel_log: the kernel log captured in /tmp/dmesg.txt; checks
#       the positive control, no oops/WARN/BUG/lockdep splat, and no taint
#       by a warning (W, 512) or an oops (D, 128).
# vm_finish: the verdict twice, as the host's tests/vm-lib.sh (vm_boot)
#       expects: the line "COOLHAND-VM-RESULT: PASS|FAIL ..." and the
#       isa-debug-exit port (qemu exits 1 for pass, 3 for fail); then power
#       off. A guest that panics or hangs produces neither.

vm_guest_start() {
	# First, so that the host can tell a guest kernel that crashed before
	# /init from a failure of ours (tests/vm-lib.sh, vm_boot).
	echo "COOLHAND-VM-INIT: $1"
	export PATH=/bin:/sbin
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mount -t devtmpfs devtmpfs /dev
	mount -t tmpfs tmpfs /tmp
	dmesg -n 1
	dmesg -c >/dev/null
	DMESG_MARK="$1: kernel log positive control"
	echo "$DMESG_MARK" >/dev/kmsg
	n=0
	failed=0
}

ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }

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

now_cs() { cut -d' ' -f1 /proc/uptime | tr -d .; }

wait_for() {
	w_end=$(($(now_cs) + $1 * 100))
	shift
	until "$@" >/tmp/wait.out 2>&1; do
		[ "$(now_cs)" -lt "$w_end" ] || { cat /tmp/wait.out; return 1; }
		usleep 100000
	done
}

VM_SPLATS='WARNING:|BUG:|Oops|general protection|Call Trace|lockdep|circular locking|INFO: task|rcu_.*stall|UBSAN|KASAN|refcount_t|list_add corruption|list_del corruption|kernel BUG|hung_task'

vm_check_kernel_log() {
	dmesg -r >/tmp/dmesg.txt
	check "kernel log captured (positive control: the boot marker is in it)" \
		grep -q "$DMESG_MARK" /tmp/dmesg.txt
	check "dmesg has no oops/WARN/BUG/lockdep splat" sh -c "! grep -E '$VM_SPLATS' /tmp/dmesg.txt"
	vm_tainted=$(cat /proc/sys/kernel/tainted)
	check "kernel not tainted by a warning or oops (tainted=$vm_tainted)" \
		[ $((vm_tainted & 640)) -eq 0 ]
}

vm_finish() {
	if [ "$failed" -eq 0 ] && [ "$n" -gt 0 ]; then
		echo "COOLHAND-VM-RESULT: PASS ($n checks)"
		code=0
	else
		echo "COOLHAND-VM-RESULT: FAIL ($failed of $n checks failed)"
		code=1
	fi
	sync
	printf '%b' "\\00$code" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
	# Only reached without isa-debug-exit.
	poweroff -f
}
