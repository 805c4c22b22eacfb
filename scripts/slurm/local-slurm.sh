#!/usr/bin/env bash
# A real, single-host Slurm cluster in a directory, for CI and for trying the fleet job array
# without a cluster: munged, slurmctld and N slurmd daemons (nodes cb1..cbN, each with fake
# `gpu` GRES) on 127.0.0.1, with a minimal slurm.conf, its own munge key and free ports. No systemd,
# no files outside DIR; runs as root (CI) or as any user (SlurmUser and SlurmdUser are that user).
#
#   scripts/slurm/local-slurm.sh install              apt-get install the Slurm and munge daemons (if missing)
#   scripts/slurm/local-slurm.sh start DIR [NODES [GPUS]]   default 2 nodes of 2 GPUs; prints SLURM_CONF
#   scripts/slurm/local-slurm.sh stop DIR
#
# After `start`, `export SLURM_CONF=DIR/slurm.conf` points sbatch/squeue/sinfo at it.
# Exit status of start: 0 up (every node idle), 1 something is missing or did not come up (the
# message says what, with the daemon's log).
set -euo pipefail

die() { echo "local-slurm: $*" >&2; exit 1; }
# The usage is the comment block at the top of this file.
usage() { awk 'NR > 1 && /^#/ && !/^#SBATCH/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
packages=(slurmctld slurmd slurm-client munge)

install_deps() {
  if (need_binaries) 2>/dev/null; then echo "local-slurm: ${packages[*]} already installed"; return; fi
  local sudo=""
  if [[ $(id -u) -ne 0 ]]; then command -v sudo >/dev/null || die "install needs root or sudo"; sudo=sudo; fi
  $sudo apt-get update -qq
  # Debian's postinst scripts try to start the daemons with the system's config; nothing here
  # depends on that (start uses its own config and key).
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}"
}

need_binaries() {
  local missing=()
  for b in munged munge slurmctld slurmd sbatch squeue sinfo scontrol; do
    command -v "$b" >/dev/null || [[ -x /usr/sbin/$b ]] || missing+=("$b")
  done
  [[ ${#missing[@]} -eq 0 ]] || die "not installed: ${missing[*]} (Debian: apt-get install ${packages[*]}, or $0 install)"
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# A base port with base..base+2+NODES free.
pick_ports() {
  local nodes=$1 tries base ok p
  for tries in $(seq 1 50); do
    base=$((20000 + (RANDOM * 7 + $$) % 30000))
    ok=1
    for ((p = base; p <= base + 2 + nodes; p++)); do port_free "$p" || { ok=0; break; }; done
    [[ $ok -eq 1 ]] && { echo "$base"; return; }
  done
  die "no free ports found"
}

log_tail() { [[ -f "$1" ]] && { echo "--- last lines of $1:" >&2; tail -n 15 "$1" >&2; }; return 0; }

start() {
  local dir=$1 nodes=${2:-2} gpus=${3:-2}
  need_binaries
  export PATH="$PATH:/usr/sbin"
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  [[ ! -e "$dir/slurm.conf" ]] || die "$dir already holds a cluster (stop it first)"
  local user host base
  user=$(id -un)
  host=$(hostname -s)
  base=$(pick_ports "$nodes")
  # munge: the key directory private to us, the socket directory searchable by all (munged checks both).
  mkdir -p "$dir/munge-etc" "$dir/munge-run" "$dir/state" "$dir/log" "$dir/dev"
  chmod 700 "$dir/munge-etc"
  chmod 755 "$dir/munge-run" "$dir"
  dd if=/dev/urandom of="$dir/munge-etc/munge.key" bs=1024 count=1 status=none
  chmod 400 "$dir/munge-etc/munge.key"
  munged --socket="$dir/munge-run/munge.socket" --key-file="$dir/munge-etc/munge.key" \
    --pid-file="$dir/munge-run/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge-etc/seed" \
    ${MUNGED_FORCE:+--force} || { log_tail "$dir/log/munged.log"; die "munged did not start"; }
  munge -S "$dir/munge-run/munge.socket" -n | unmunge -S "$dir/munge-run/munge.socket" >/dev/null ||
    { log_tail "$dir/log/munged.log"; die "munge does not round-trip a credential"; }

  # Fake GPUs: Slurm's gpu GRES needs device files; plain files are logged as "not a valid
  # character device" and still counted, which is all a CPU-only cluster needs.
  local g
  for ((g = 0; g < gpus; g++)); do : > "$dir/dev/nvidia$g"; done
  : > "$dir/plugstack.conf"
  cat > "$dir/slurm.conf" <<CONF
# Written by scripts/slurm/local-slurm.sh: one host, $nodes nodes of $gpus fake GPUs.
ClusterName=cudabench
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$dir/munge-run/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
PlugStackConfig=$dir/plugstack.conf
MailProg=/bin/true
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
GresTypes=gpu
NodeName=cb[1-$nodes] NodeHostname=$host NodeAddr=127.0.0.1 Port=$((base + 3))-$((base + 2 + nodes)) CPUs=1 RealMemory=256 Gres=gpu:$gpus State=UNKNOWN
PartitionName=cb Nodes=ALL Default=YES MaxTime=30 State=UP
CONF
  echo "NodeName=cb[1-$nodes] Name=gpu File=$dir/dev/nvidia[0-$((gpus - 1))]" > "$dir/gres.conf"
  export SLURM_CONF="$dir/slurm.conf"

  slurmctld -f "$SLURM_CONF" || { log_tail "$dir/log/slurmctld.log"; die "slurmctld did not start"; }
  local i up=0
  for i in $(seq 1 100); do scontrol ping 2>/dev/null | grep -q "is UP" && { up=1; break; }; sleep 0.2; done
  [[ $up -eq 1 ]] || { log_tail "$dir/log/slurmctld.log"; die "slurmctld does not answer (scontrol ping)"; }
  local n
  for ((n = 1; n <= nodes; n++)); do
    mkdir -p "$dir/spool/cb$n"
    slurmd -f "$SLURM_CONF" -N "cb$n" || { log_tail "$dir/log/slurmd-cb$n.log"; die "slurmd cb$n did not start"; }
  done
  for i in $(seq 1 150); do
    [[ $(sinfo -h -o '%t' -N | grep -c '^idle') -eq $nodes ]] && break
    sleep 0.2
  done
  if [[ $(sinfo -h -o '%t' -N | grep -c '^idle') -ne $nodes ]]; then
    sinfo -N -o '%N %t %E' >&2
    for ((n = 1; n <= nodes; n++)); do log_tail "$dir/log/slurmd-cb$n.log"; done
    die "the nodes did not become idle (their state and reason above)"
  fi
  echo "local-slurm: up: $nodes nodes (cb1..cb$nodes) of $gpus GPUs, ports $base-$((base + 2 + nodes)), as $user"
  echo "export SLURM_CONF=$SLURM_CONF"
}

# Stops the daemons of these pid files together (each takes a second or two to shut down).
stop_pids() {
  local pids=() f pid i
  for f in "$@"; do [[ -f "$f" ]] && pid=$(cat "$f") && [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && pids+=("$pid"); done
  for i in $(seq 1 100); do
    local alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [[ $alive -eq 0 ]] && return 0
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
}

stop() {
  local dir=$1
  [[ -f "$dir/slurm.conf" ]] || return 0
  export PATH="$PATH:/usr/sbin" SLURM_CONF="$dir/slurm.conf"
  scancel --quiet --full -p cb 2>/dev/null || true
  stop_pids "$dir"/slurmd-*.pid "$dir/slurmctld.pid"
  stop_pids "$dir/munge-run/munged.pid"  # last: the others talk to it while they stop
}

case "${1:-}" in
  install) install_deps ;;
  start) [[ $# -ge 2 ]] || die "usage: $0 start DIR [NODES [GPUS]]"; start "$2" "${3:-2}" "${4:-2}" ;;
  stop) [[ $# -eq 2 ]] || die "usage: $0 stop DIR"; stop "$2" ;;
  -h|--help) usage; exit 0 ;;
  "") echo "local-slurm: a command is required (install, start, stop)" >&2; usage >&2; exit 2 ;;
  *) echo "local-slurm: unknown command '$1'" >&2; usage >&2; exit 2 ;;
esac
