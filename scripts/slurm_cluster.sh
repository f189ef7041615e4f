#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, with accounting, for trying profiles/slurm and for the tests:
# munged, MariaDB, slurmdbd, slurmctld and slurmd run as root from Debian's packages (make slurm-packages),
# without systemd, every file under one directory but two links to it, where clients look whatever they are
# told: munge's default socket (Slurm 22.05's clients reach slurmdbd through it whatever AuthInfo says; a
# running munged of the machine's own is used as it is) and /etc/slurm/slurm.conf (the executor's job steps
# drop SLURM_CONF from their environment). Neither is touched where the machine has its own. Its ports are
# free ones picked at start.
#
#   sudo scripts/slurm_cluster.sh up DIR     start it; prints `export SLURM_CONF=DIR/slurm.conf`
#   sudo scripts/slurm_cluster.sh down DIR   stop every daemon it started and remove DIR
#
# The node is this machine (its CPUs and memory), in one partition `debug`; the account `jaxpitfalls`
# holds root and the user who ran sudo, so the executor's account check (sacctmgr) and status queries
# (sacct, which keeps each job's comment: the rule and wildcards) see a complete cluster.
set -euo pipefail

usage() { echo "usage: $0 up|down DIR" >&2; exit 2; }
[[ $# -eq 2 ]] || usage
action=$1
dir=$(realpath -m "$2")

MUNGE_SOCKET=/run/munge/munge.socket.2  # munge's default
SYSTEM_CONF=/etc/slurm/slurm.conf      # where Slurm's clients look without SLURM_CONF

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...: until COMMAND succeeds, or fail naming the log to read
    local seconds=$1 what=$2; shift 2
    local deadline=$((SECONDS + seconds))
    while ((SECONDS < deadline)); do
        if timeout 10 "$@" >/dev/null 2>&1; then return 0; fi
        sleep 0.2
    done
    echo "slurm_cluster: $what did not come up within ${seconds}s; see $dir/log/" >&2
    return 1
}

stop() {
    for pidfile in "$dir"/run/*.pid; do
        [[ -f $pidfile ]] || continue
        kill "$(cat "$pidfile")" 2>/dev/null || true
    done
    for pidfile in "$dir"/run/*.pid; do
        local pid; pid=$(cat "$pidfile" 2>/dev/null) || continue  # a daemon that exited removes its own file
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
}

up() {
    for daemon in munged mariadbd slurmdbd slurmctld slurmd sacctmgr; do
        command -v "$daemon" >/dev/null || { echo "slurm_cluster: $daemon not found: run 'make slurm-packages'" >&2; exit 1; }
    done
    [[ $EUID -eq 0 ]] || { echo "slurm_cluster: run it as root (sudo): its daemons run as root" >&2; exit 1; }
    [[ ! -e $dir ]] || { echo "slurm_cluster: $dir exists; 'down' it first" >&2; exit 1; }
    if [[ -e $SYSTEM_CONF && ! -L $SYSTEM_CONF ]]; then
        echo "slurm_cluster: $SYSTEM_CONF is this machine's own Slurm; not starting a test cluster beside it" >&2
        exit 1
    fi
    mkdir -p "$dir"/{run,log,munge,mysql,state,spool}
    chmod 700 "$dir/munge"
    local host cpus memory db_port dbd_port ctld_port slurmd_port
    host=$(hostname -s)
    cpus=$(nproc)
    memory=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024 ))  # MB, less 1 GiB for the OS
    db_port=$(free_port); dbd_port=$(free_port); ctld_port=$(free_port); slurmd_port=$(free_port)

    if ! munge -n >/dev/null 2>&1; then
        dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
        chmod 400 "$dir/munge/munge.key"
        mkdir -p "$(dirname "$MUNGE_SOCKET")"
        munged --force --key-file="$dir/munge/munge.key" --socket="$MUNGE_SOCKET" --pid-file="$dir/run/munged.pid" \
            --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munge.seed"
        wait_for 10 munged munge -n
    fi

    mariadb-install-db --user=root --datadir="$dir/mysql" --auth-root-authentication-method=normal \
        >"$dir/log/mariadb-install.log" 2>&1
    mariadbd --user=root --datadir="$dir/mysql" --socket="$dir/run/mysql.sock" --bind-address=127.0.0.1 \
        --port="$db_port" --pid-file="$dir/run/mariadbd.pid" --log-error="$dir/log/mariadbd.log" </dev/null >>"$dir/log/mariadbd.log" 2>&1 &
    wait_for 30 MariaDB mariadb --socket="$dir/run/mysql.sock" -uroot -e "select 1"
    mariadb --socket="$dir/run/mysql.sock" -uroot -e \
        "create user 'slurm'@'127.0.0.1' identified by 'slurm'; grant all on slurm_acct_db.* to 'slurm'@'127.0.0.1';"

    local auth="AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCKET"
    cat >"$dir/slurmdbd.conf" <<EOF
$auth
DbdHost=localhost
DbdPort=$dbd_port
SlurmUser=root
PidFile=$dir/run/slurmdbd.pid
LogFile=$dir/log/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db_port
StorageUser=slurm
StoragePass=slurm
StorageLoc=slurm_acct_db
EOF
    chmod 600 "$dir/slurmdbd.conf"
    cat >"$dir/slurm.conf" <<EOF
ClusterName=jaxpitfalls
SlurmctldHost=$host
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
$auth
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
MinJobAge=600
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=5
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$dbd_port
AccountingStorageEnforce=associations
AccountingStoreFlags=job_comment
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
    mkdir -p "$(dirname "$SYSTEM_CONF")"
    ln -sfn "$dir/slurm.conf" "$SYSTEM_CONF"
    export SLURM_CONF=$dir/slurm.conf
    slurmdbd  # reads slurmdbd.conf beside $SLURM_CONF
    wait_for 30 slurmdbd sacctmgr -n list cluster
    sacctmgr -i add cluster jaxpitfalls >/dev/null
    sacctmgr -i add account jaxpitfalls description=tests organization=jaxpitfalls >/dev/null
    for user in $(printf '%s\n' root "${SUDO_USER:-root}" | sort -u); do
        sacctmgr -i add user "$user" account=jaxpitfalls defaultaccount=jaxpitfalls >/dev/null
    done
    slurmctld
    wait_for 30 slurmctld scontrol ping
    slurmd
    wait_for 30 "slurmd (node $host idle)" bash -c "sinfo -h -n $host -o %t | grep -q idle"
    echo "export SLURM_CONF=$dir/slurm.conf"
}

case $action in
    up) up ;;
    down)
        stop
        if [[ $(readlink "$SYSTEM_CONF" 2>/dev/null) == "$dir/slurm.conf" ]]; then rm -f "$SYSTEM_CONF"; fi
        rm -rf "$dir" ;;
    *) usage ;;
esac
