#!/usr/bin/env bash
# A sharded compare on a real single-node Slurm (issue 13, "Scale past one
# machine"): munged with a generated key, slurmctld and slurmd in the
# foreground, all under a temporary root with their own ports, sockets and
# pid files (a system Slurm or munge is left alone). It submits
# scripts/slurm/shard.sbatch as a 4-task array of `coolhand-sim compare
# --shard K/4`, scripts/slurm/merge.sbatch as a job depending on it, and
# checks that the merged Markdown and overlay.svg are byte-identical to
# the single-machine run's and its table the same (wall-time lines aside).
# Every daemon it started is stopped on exit.
#
# Missing Slurm or munge: exit 77 (skip, with the reason) locally, exit 1
# under CI=true. Needs root (slurmd runs jobs as their submitter; CI runs
# as root).
# Usage: slurm_array_test.sh <coolhand-sim> <repo root>
set -euo pipefail

sim="$(realpath "$1")"
repo="$(realpath "$2")"

skip_or_fail() {
  if [ "${CI:-}" = true ]; then
    echo "FAIL: $1 (CI=true: a missing prerequisite fails; scripts/install-deps.sh installs it)"
    exit 1
  fi
  echo "SKIP: $1"
  exit 77
}

for tool in munged munge unmunge slurmctld slurmd sbatch sinfo squeue scancel scontrol; do
  command -v "$tool" >/dev/null || skip_or_fail "$tool not found (Debian: munge, slurmctld, slurmd, slurm-client)"
done
[ "$(id -u)" -eq 0 ] || skip_or_fail "needs root to run slurmd"

root="$(mktemp -d /tmp/coolhand-slurm.XXXXXX)"
pids=()
cleanup() {
  set +e
  if [ -f "$root/slurm.conf" ] && [ ${#pids[@]} -gt 1 ]; then
    # Jobs first, so no slurmstepd outlives slurmd.
    SLURM_CONF="$root/slurm.conf" scancel --quiet --user=root 2>/dev/null
    for _ in $(seq 50); do
      [ -z "$(SLURM_CONF="$root/slurm.conf" squeue -h 2>/dev/null)" ] && break
      sleep 0.1
    done
  fi
  # In reverse order of start: slurmd, slurmctld, munged.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill "${pids[i]}" 2>/dev/null
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  if [ "${failed:-1}" -ne 0 ]; then
    for log in "$root"/*.log "$root"/work/*.out; do
      [ -f "$log" ] && { echo "--- $log"; tail -n 30 "$log"; }
    done
  fi
  rm -rf "$root"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# wait_for SECONDS WHAT COMMAND...: until COMMAND succeeds, or fail.
wait_for() {
  local secs="$1" what="$2"
  shift 2
  local deadline=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    if [ $SECONDS -ge $deadline ]; then
      echo "FAIL: $what not ready after $secs s"
      exit 1
    fi
    sleep 0.2
  done
}

# A TCP port nothing on 127.0.0.1 listens on (connection refused).
free_port() {
  local port
  for _ in $(seq 100); do
    port=$((20000 + RANDOM % 30000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null &&
      ! (exec 3<>"/dev/tcp/127.0.0.1/$((port + 1))") 2>/dev/null; then
      echo "$port"
      return
    fi
  done
  echo "FAIL: no free port" >&2
  exit 1
}

# --- munge: a fresh 1024-byte key, its own socket ---------------------------
mkdir -p "$root/munge" "$root/state" "$root/spool" "$root/work" "$root/shards"
# munged wants its socket directory searchable by all, its key private.
chmod 0755 "$root" "$root/munge"
head -c 1024 /dev/urandom >"$root/munge/munge.key"
chmod 0400 "$root/munge/munge.key"
socket="$root/munge/munge.socket"
munged --foreground --key-file="$root/munge/munge.key" --socket="$socket" \
  --pid-file="$root/munge/munged.pid" --seed-file="$root/munge/munged.seed" \
  --log-file="$root/munged.log" 2>"$root/munged.out" &
pids+=($!)
munge_ok() { munge -n -S "$socket" | unmunge -S "$socket"; }
wait_for 10 munged munge_ok

# --- slurm.conf: one node, one partition, no cgroups, no accounting ---------
port="$(free_port)"
cpus="$(nproc)"
export SLURM_CONF="$root/slurm.conf"
cat >"$SLURM_CONF" <<CONF
ClusterName=coolhand-test
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$root/state
SlurmdSpoolDir=$root/spool
SlurmctldPidFile=$root/slurmctld.pid
SlurmdPidFile=$root/slurmd.pid
SlurmctldLogFile=$root/slurmctld.log
SlurmdLogFile=$root/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
SchedulerParameters=sched_min_interval=0
MinJobAge=300
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF

slurmctld -D -f "$SLURM_CONF" >"$root/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N localhost -f "$SLURM_CONF" >"$root/slurmd.out" 2>&1 &
pids+=($!)
node_idle() { [ "$(sinfo -h -N -o %t)" = idle ]; }
wait_for 30 "slurmd registered and idle" node_idle

# --- the sweep: 4 shards on Slurm, merged after them, against one machine ---
data="$repo/sim/data"
# Three bundled 30-minute workloads x 4 controllers: 12 runs, well under a
# second of simulation in all, so the test's time is Slurm's.
args=(-m "$data/models/reference-umpc.yaml" -w "$data/workloads/gaming.csv"
  -w "$data/workloads/gaming-hot.csv" -w "$data/workloads/hot-ambient.csv"
  -p "$repo/config/policies/reference-umpc.yaml"
  -g step_wise -g bang_bang -g power_allocator)
export COOLHAND_SIM="$sim"

jid="$(sbatch --parsable --array=1-4 --chdir="$root/work" \
  "$repo/scripts/slurm/shard.sbatch" "$root/shards" compare "${args[@]}")"
echo "submitted array job $jid"
# --wait: until the merge has run (it runs after all 4 tasks succeeded); a
# failed task makes the dependency invalid and the merge is cancelled.
timeout 90 sbatch --parsable --wait --dependency="afterok:$jid" --kill-on-invalid-dep=yes \
  --chdir="$root/work" \
  "$repo/scripts/slurm/merge.sbatch" "$root/shards" -o "$root/merged" \
  --markdown "$root/merged.md" >"$root/merge-job-id"
mjid="$(cat "$root/merge-job-id")"
echo "merge job $mjid done"
# sbatch --wait also returns 0 for a merge cancelled because a task failed,
# so the jobs' own states are checked (MinJobAge keeps them for 300 s).
job_states() { scontrol -o show job "$1" | grep -o 'JobState=[A-Z_]*' | sort | uniq -c | xargs; }
tasks_state="$(job_states "$jid")"
merge_state="$(job_states "$mjid")"

failed=0
check() {  # what, command...
  if "${@:2}"; then echo "ok   $1"; else echo "FAIL $1"; failed=1; fi
}
(cd "$root/work" && "$sim" compare "${args[@]}" -o "$root/local" \
  --markdown "$root/local.md" >"$root/local.txt") || failed=1
check "the 4 array tasks completed ($tasks_state)" [ "$tasks_state" = "4 JobState=COMPLETED" ]
check "the merge job completed ($merge_state)" [ "$merge_state" = "1 JobState=COMPLETED" ]
shards=$(find "$root/shards" -name 'compare-shard-*-of-4.json' | wc -l)
check "4 shard files, one per array task (found $shards)" [ "$shards" -eq 4 ]
for k in 1 2 3 4; do
  check "array task $k ran" test -f "$root/work/coolhand-shard-${jid}_$k.out"
done
check "merged Markdown byte-identical to the local run" cmp "$root/local.md" "$root/merged.md"
check "merged overlay.svg byte-identical to the local run" cmp "$root/local/overlay.svg" "$root/merged/overlay.svg"
table() { grep -v -e ' s wall' -e '^wrote ' "$1"; }
same_table() {
  local merged="$root/work/coolhand-merge-$mjid.out"
  [ -s "$root/local.txt" ] && [ -s "$merged" ] &&
    diff <(table "$root/local.txt") <(table "$merged")
}
check "merged table equals the local run's" same_table
check "the table has 12 rows" [ "$(grep -c '^gaming \|^gaming-hot \|^hot-ambient ' "$root/local.txt")" -eq 12 ]
exit "$failed"
