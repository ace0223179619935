#!/usr/bin/env bash
# tests/vm-lib.sh's vm_boot, with a stand-in for qemu (no guest boots): a
# guest kernel that crashes before its /init starts (an oops on the console
# and no "COOLHAND-VM-INIT" line) is booted once more, and only once; a
# crash after /init started, ours to answer for, fails at once.
# Usage: vm_boot_retry_test.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work=$(mktemp -d "${TMPDIR:-/tmp}/vm_boot_retry.XXXXXX")
trap 'rm -rf "$work"' EXIT
# shellcheck source-path=SCRIPTDIR source=vm-lib.sh
. "$here/vm-lib.sh"
# shellcheck disable=SC2034  # read by vm-lib.sh's messages
VM_NAME=vm-boot-retry
fails=0

# fake-qemu SCRIPT...: a qemu whose Nth run prints the Nth of the given
# consoles ("crash": an oops before /init; "ours": /init started, then an
# oops; "pass": /init started and passed) and exits as qemu would (1 on a
# pass through isa-debug-exit, 0 after a panic with -no-reboot).
fake_qemu() {
  printf '%s\n' "$@" >"$work/plan"
  : >"$work/runs"
  cat >"$work/qemu" <<'EOF'
#!/usr/bin/env bash
dir=$(dirname "$0")
echo run >>"$dir/runs"
kind=$(sed -n "$(wc -l <"$dir/runs")p" "$dir/plan")
case $kind in
crash) echo "[    1.837639] Oops: int3: 0000 [#1] SMP NOPTI"; exit 0 ;;
ours) echo "COOLHAND-VM-INIT: test"; echo "[    9.1] BUG: kernel NULL pointer dereference"; exit 0 ;;
pass) echo "COOLHAND-VM-INIT: test"; echo "ok 1 - fine"; echo "COOLHAND-VM-RESULT: PASS (1 checks)"; exit 1 ;;
esac
exit 0
EOF
  chmod +x "$work/qemu"
  qemu=$work/qemu
}

# expect CASE WANT_STATUS WANT_RUNS PLAN...
expect() {
  local name=$1 want=$2 want_runs=$3 status runs
  shift 3
  fake_qemu "$@"
  set +e
  (vm_boot "$work" /nonexistent/vmlinuz 10 "") >"$work/out" 2>&1
  status=$?
  set -e
  runs=$(wc -l <"$work/runs")
  if [[ $status -eq $want && $runs -eq $want_runs ]]; then
    echo "ok   $name: status $status after $runs boot(s)"
  else
    echo "FAIL $name: status $status after $runs boot(s), expected $want after $want_runs"
    cat "$work/out"
    fails=$((fails + 1))
  fi
}

expect "a crash before /init, then a pass" 0 2 crash pass
grep -q "crashed before /init started (above): booting once more" "$work/out" ||
  { echo "FAIL the retry is not said"; fails=$((fails + 1)); }
expect "a crash after /init started: no retry" 1 1 ours pass
expect "two crashes before /init: one retry only" 1 2 crash crash pass
expect "a pass" 0 1 pass

((fails == 0)) || { echo "$fails failure(s)"; exit 1; }
echo "all passed"
