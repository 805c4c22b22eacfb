#!/usr/bin/env bash
# CTest `slurm_fleet_job_array` (label slurm; CI runs it, it needs no GPU): a real single-host
# Slurm (scripts/slurm/local-slurm.sh: munged, slurmctld, two slurmd nodes cb1 and cb2 with two
# fake GPUs each) runs scripts/slurm/cudabench-fleet.sbatch as a job array of two tasks. Each task
# runs the real `cudabench run --devices all`, whose per-GPU processes are the fake cudabench
# (CUDABENCH_ROUND_COMMAND; cb2's GPU 1 slow); `cudabench fleet collect` must then merge four GPUs
# on two nodes and flag cb2 GPU 1 with its clock. A second job runs without the fake and must say
# there is no GPU (exit 3). Prints how long each part took. It fails, never skips: a missing Slurm
# or a daemon that cannot start is a failure with the reason.
#   tests/slurm/test_slurm_fleet.sh CUDABENCH FAKE_CUDABENCH
set -uo pipefail

cudabench=$1
fake=$2
repo=$(cd "$(dirname "$0")/../.." && pwd)
slurm="$repo/scripts/slurm/local-slurm.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/cudabench-slurm.XXXXXX")
chmod 755 "$work"
status=1
cleanup() {
  "$slurm" stop "$work/cluster" || true
  if [[ $status -eq 0 ]]; then rm -rf "$work"; else echo "test_slurm_fleet: kept $work for a look" >&2; fi
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# Waits for a job (every array task) to leave the queue.
wait_job() {
  local id=$1 i
  for i in $(seq 1 600); do
    [[ -z "$(squeue -h -j "$id" 2>/dev/null)" ]] && return 0
    sleep 0.2
  done
  squeue -j "$id" >&2
  fail "job $id still queued or running after 120 s"
}

t0=$(now)
"$slurm" start "$work/cluster" 2 2 || fail "a single-host Slurm did not come up (the reason is above)"
export SLURM_CONF="$work/cluster/slurm.conf" PATH="$PATH:/usr/sbin"
t1=$(now)

# The job array: one task per node, fake GPUs, the real cudabench scheduling them.
mkdir -p "$work/logs"
job=$(CUDABENCH="$cudabench" CUDABENCH_ROUND_COMMAND="$fake" FAKE_DEVICE_COUNT=2 FAKE_SLOW_DEVICE=cb2:1 \
  sbatch --parsable --array=0-1 --gpus-per-node=2 --time=5 --output="$work/logs/%A_%a.out" \
  "$repo/scripts/slurm/cudabench-fleet.sbatch" "$work/fleet" --suite quick) || fail "sbatch refused the job array"
wait_job "${job%%;*}"
t2=$(now)
cat "$work"/logs/*.out
for f in cb1-gpu-0 cb1-gpu-1 cb2-gpu-0 cb2-gpu-1 cb1-fleet cb2-fleet; do
  [[ -f "$work/fleet/$f.json" ]] || fail "the job array left no $f.json (task logs above)"
done
grep -q "cb1: cudabench exited with code 0" "$work"/logs/*.out || fail "cb1's task did not end with exit code 0"
grep -q "cb2: cudabench exited with code 0" "$work"/logs/*.out || fail "cb2's task did not end with exit code 0"

"$cudabench" fleet collect "$work/fleet" -o "$work/fleet.json" > "$work/collect.txt" || fail "fleet collect failed"
cat "$work/collect.txt"
grep -q "fleet: 4 GPUs on 2 hosts (4 with a result)" "$work/collect.txt" || fail "collect did not merge 4 GPUs on 2 nodes"
grep -q "cb2 GPU 1 (Fake GPU.*outlier on 10 of 10 workloads.*SM clock 1410 MHz vs fleet 1980" "$work/collect.txt" ||
  fail "cb2 GPU 1 was not flagged with its clock"
[[ $(grep -c "outlier on" "$work/collect.txt") -eq 1 ]] || fail "more than one outlier GPU"
grep -q '"hosts": \[' "$work/fleet.json" || fail "fleet.json has no host list"
t3=$(now)

# Without the fake: the real cudabench on a node without a GPU says so and exits 3.
job=$(env -u CUDABENCH_ROUND_COMMAND CUDABENCH="$cudabench" \
  sbatch --parsable --array=0-0 --gpus-per-node=2 --time=5 --output="$work/logs/nogpu-%A_%a.out" \
  "$repo/scripts/slurm/cudabench-fleet.sbatch" "$work/nogpu" --suite quick) || fail "sbatch refused the no-GPU job"
wait_job "${job%%;*}"
t4=$(now)
cat "$work"/logs/nogpu-*.out
grep -q -- "--devices all: no GPU to run on" "$work"/logs/nogpu-*.out || fail "the no-GPU task did not say there is no GPU"
grep -q "cudabench exited with code 3" "$work"/logs/nogpu-*.out || fail "the no-GPU task did not exit 3"

echo "test_slurm_fleet: PASS; Slurm up in $(secs "$t0" "$t1") s, job array (2 nodes x 2 GPUs) $(secs "$t1" "$t2") s," \
     "collect and checks $(secs "$t2" "$t3") s, no-GPU job $(secs "$t3" "$t4") s; total $(secs "$t0" "$(now)") s"
status=0
