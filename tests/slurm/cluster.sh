#!/usr/bin/env bash
# cluster.sh start DIR | stop DIR: a one-node Slurm cluster on this machine for `make test-slurm`
# (Debian's slurm-wlm and munge: tools/install-deps.sh slurm). `start` writes DIR/slurm.conf
# (this host as controller and only node, partition "debug", no cgroups, no accounting), a munge
# key, starts munged, slurmctld and slurmd in the background with their pid, log and state files
# in DIR, and waits until `sinfo` shows the node idle; the caller then uses
# SLURM_CONF=DIR/slurm.conf. `stop` stops the three daemons by their pid files. Ports 16817/16818
# (SLURM_TEST_PORT=N: N and N+1) so a real cluster's daemons on this machine are not disturbed.
set -eu
cmd=${1:?usage: cluster.sh start|stop DIR}
dir=${2:?usage: cluster.sh start|stop DIR}
port=${SLURM_TEST_PORT:-16817}

stop_pid() { # stop_pid FILE: TERM the daemon of the pid file, then KILL after 10 s
  local f=$1 pid i
  [ -f "$f" ] || return 0
  pid=$(cat "$f" 2>/dev/null || true)
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || { rm -f "$f"; return 0; }
  kill "$pid" 2>/dev/null || true
  for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
  rm -f "$f"
}

if [ "$cmd" = stop ]; then
  stop_pid "$dir/slurmd.pid"
  stop_pid "$dir/slurmctld.pid"
  stop_pid "$dir/munged.pid"
  exit 0
fi
[ "$cmd" = start ] || { echo "usage: cluster.sh start|stop DIR" >&2; exit 2; }
for t in munged slurmctld slurmd sinfo sbatch; do
  command -v "$t" >/dev/null || { echo "cluster.sh: $t not found (tools/install-deps.sh slurm)" >&2; exit 1; }
done
mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
chmod 700 "$dir" "$dir/munge"
host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ { print int($2 / 1024 / 2) }' /proc/meminfo)
cat > "$dir/slurm.conf" <<CONF
# one-node test cluster (tests/slurm/cluster.sh)
ClusterName=ovtatest
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SlurmctldTimeout=30
SlurmdTimeout=60
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
CONF
[ -f "$dir/munge/munge.key" ] || { dd if=/dev/urandom bs=1 count=1024 of="$dir/munge/munge.key" 2>/dev/null; chmod 400 "$dir/munge/munge.key"; }
export SLURM_CONF=$dir/slurm.conf
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/munge.seed"
slurmctld -c -f "$dir/slurm.conf"      # -c: a fresh state (no jobs of an earlier run)
slurmd -f "$dir/slurm.conf" -N "$host"
for i in $(seq 1 60); do
  st=$(sinfo -h -N -o %T 2>/dev/null | head -1 || true)
  [ "$st" = idle ] && { echo "cluster.sh: one-node cluster up (SLURM_CONF=$dir/slurm.conf)"; exit 0; }
  sleep 1
done
echo "cluster.sh: the node did not become idle (state '${st:-}'); logs in $dir" >&2
tail -5 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
exit 1
