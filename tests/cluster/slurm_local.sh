# shellcheck shell=bash
# A single-node Slurm cluster on localhost, with accounting (slurmdbd + MariaDB), for the
# cluster test. Sourced by tests/cluster/run_slurm.sh; needs root and Debian 12.
#
#   slurm_up      install what is missing (slurm-wlm, munge, slurmdbd, mariadb-server),
#                 start every daemon that is not running, wait for an idle node; sets
#                 SLURM_TEST_ACCOUNT and SLURM_TEST_PARTITION
#   slurm_down    stop the daemons slurm_up started, newest first, and no other
#
# Daemons that already run are used as they are: their configuration is not rewritten.
# Adapted from the reference script ../shared/tools/slurm-local-setup.sh of this project's
# design notes (no systemd: the daemons are plain background processes with PID files).

SLURM_STARTED=() # "name pidfile" of each daemon slurm_up started

_slurm_log() { printf '[slurm-test] %s\n' "$*"; }
_alive() { [[ -s $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

_wait_for() { # $1 seconds, $2.. command: poll until it succeeds
	local t=$1 i
	shift
	for ((i = 0; i < 2 * t; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.5
	done
	return 1
}

_started() { # $1 name, $2 pidfile: record a daemon this script started
	_wait_for 30 test -s "$2" || {
		_slurm_log "$1 did not write $2"
		return 1
	}
	SLURM_STARTED+=("$1 $2")
	_slurm_log "started $1 (pid $(cat "$2"))"
}

slurm_down() {
	local i name pidfile pid
	for ((i = ${#SLURM_STARTED[@]} - 1; i >= 0; i--)); do
		read -r name pidfile <<<"${SLURM_STARTED[i]}"
		if _alive "$pidfile"; then
			pid=$(cat "$pidfile")
			_slurm_log "stopping $name (pid $pid)"
			kill "$pid" 2>/dev/null || true
			_wait_for 30 bash -c "! kill -0 $pid" || kill -9 "$pid" 2>/dev/null || true
		fi
	done
	SLURM_STARTED=()
}

_install_missing() {
	local pkgs=(slurm-wlm slurmctld slurmd slurm-client munge slurmdbd mariadb-server) missing=() p
	for p in "${pkgs[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	if ((${#missing[@]})); then
		_slurm_log "installing ${missing[*]}"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	fi
}

_write_slurm_conf() {
	local host=$1 cluster=$2 partition=$3 cpus mem
	cpus=$(nproc)
	mem=$(($(free -m | awk '/^Mem:/{print $2}') - 1024))
	install -d -m 0755 /etc/slurm
	# through a temporary name: a Slurm command reading it meanwhile sees the old or the new file
	cat >/etc/slurm/slurm.conf.dprank-tmp <<EOF
# Written by dprank tests/cluster/slurm_local.sh: one node on localhost
ClusterName=${cluster}
SlurmctldHost=${host}(127.0.0.1)
SlurmUser=slurm
AuthType=auth/munge
CryptoType=crypto/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
ReturnToService=2
SlurmctldPidFile=/run/slurm/slurmctld.pid
SlurmdPidFile=/run/slurm/slurmd.pid
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=30
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=6819
MinJobAge=300
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
# Fail fast when the controller is down: snakemake-executor-plugin-slurm runs
# `scontrol show config` whenever Snakemake starts, which waits MessageTimeout (10 s by
# default) on a machine with Slurm installed and stopped. Localhost RPCs need far less.
MessageTimeout=3
KillWait=5
Waittime=0
NodeName=${host} NodeAddr=127.0.0.1 CPUs=${cpus} RealMemory=${mem} State=UNKNOWN
PartitionName=${partition} Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
	mv /etc/slurm/slurm.conf.dprank-tmp /etc/slurm/slurm.conf
	_slurm_log "wrote /etc/slurm/slurm.conf (node $host, $cpus CPUs, $mem MB)"
}

_start_accounting() {
	local cluster=$1 pass=dprank-slurm-test
	install -d -o mysql -g root -m 0755 /run/mysqld
	if ! _alive /run/mysqld/mysqld.pid; then
		[[ -d /var/lib/mysql/mysql ]] ||
			mariadb-install-db --user=mysql --datadir=/var/lib/mysql >/dev/null
		setsid /usr/sbin/mariadbd --user=mysql --bind-address=127.0.0.1 \
			--pid-file=/run/mysqld/mysqld.pid --socket=/run/mysqld/mysqld.sock \
			--innodb-buffer-pool-size=256M --innodb-lock-wait-timeout=900 \
			>/var/log/mariadbd-dprank-test.log 2>&1 </dev/null &
		_wait_for 60 mariadb-admin ping || {
			_slurm_log "mariadbd did not start: see /var/log/mariadbd-dprank-test.log"
			return 1
		}
		_started mariadbd /run/mysqld/mysqld.pid
	fi
	if ! _alive /run/slurm/slurmdbd.pid; then
		mariadb -e "CREATE DATABASE IF NOT EXISTS slurm_acct_db;
			CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY '${pass}';
			ALTER USER 'slurm'@'localhost' IDENTIFIED BY '${pass}';
			GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost'; FLUSH PRIVILEGES;"
		cat >/etc/slurm/slurmdbd.conf <<EOF
AuthType=auth/munge
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=6819
SlurmUser=slurm
LogFile=/var/log/slurm/slurmdbd.log
PidFile=/run/slurm/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageLoc=slurm_acct_db
StorageUser=slurm
StoragePass=${pass}
EOF
		chown slurm:slurm /etc/slurm/slurmdbd.conf
		chmod 0600 /etc/slurm/slurmdbd.conf
		/usr/sbin/slurmdbd
		_started slurmdbd /run/slurm/slurmdbd.pid
	fi
	_wait_for 60 sacctmgr -n list cluster || {
		_slurm_log "slurmdbd does not answer: see /var/log/slurm/slurmdbd.log"
		return 1
	}
	sacctmgr -n -P list cluster format=cluster | grep -qx "$cluster" ||
		sacctmgr -i add cluster "$cluster" >/dev/null
}

slurm_up() {
	local host cluster partition
	[[ $(id -u) == 0 ]] || {
		_slurm_log "needs root (it installs packages and starts daemons)"
		return 1
	}
	_install_missing
	host=$(hostname -s)
	getent hosts "$host" >/dev/null || echo "127.0.0.1 $host" >>/etc/hosts
	install -d -o munge -g munge -m 0755 /run/munge
	install -d -o munge -g munge -m 0700 /var/log/munge /var/lib/munge
	install -d -o slurm -g slurm -m 0755 /run/slurm /var/spool/slurmctld /var/log/slurm
	install -d -m 0755 /var/spool/slurmd
	if [[ ! -s /etc/munge/munge.key ]]; then
		install -d -o munge -g munge -m 0700 /etc/munge
		dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
		chown munge:munge /etc/munge/munge.key
		chmod 0400 /etc/munge/munge.key
	fi
	if ! _alive /run/munge/munged.pid; then
		runuser -u munge -- /usr/sbin/munged
		_started munged /run/munge/munged.pid
		_wait_for 10 test -S /run/munge/munge.socket.2
	fi
	# A running controller keeps its configuration; otherwise write ours.
	if ! _alive /run/slurm/slurmctld.pid && ! _alive /run/slurm/slurmd.pid; then
		_write_slurm_conf "$host" dprank-test debug
	fi
	cluster=$(sed -n 's/^ClusterName=//p' /etc/slurm/slurm.conf)
	_start_accounting "$cluster"
	if ! _alive /run/slurm/slurmctld.pid; then
		/usr/sbin/slurmctld
		_started slurmctld /run/slurm/slurmctld.pid
		_wait_for 30 bash -c 'scontrol ping | grep -q UP'
	fi
	if ! _alive /run/slurm/slurmd.pid; then
		/usr/sbin/slurmd
		_started slurmd /run/slurm/slurmd.pid
	fi
	SLURM_TEST_ACCOUNT=${SLURM_TEST_ACCOUNT:-dprank}
	sacctmgr -n -P list account format=account | grep -qx "$SLURM_TEST_ACCOUNT" ||
		sacctmgr -i add account "$SLURM_TEST_ACCOUNT" Description=dprank-test Organization=dprank >/dev/null
	sacctmgr -n -P list assoc user=root account="$SLURM_TEST_ACCOUNT" format=user | grep -qx root ||
		sacctmgr -i add user root Account="$SLURM_TEST_ACCOUNT" >/dev/null
	if ! _wait_for 60 bash -c "sinfo -h -n '$host' -o %T | grep -Eq '^(idle|mixed|allocated)'"; then
		scontrol update NodeName="$host" State=RESUME 2>/dev/null || true
		_wait_for 30 bash -c "sinfo -h -n '$host' -o %T | grep -Eq '^(idle|mixed|allocated)'" || {
			_slurm_log "node $host not ready: $(sinfo -h -n "$host" -o %T); see /var/log/slurm/"
			return 1
		}
	fi
	partition=$(sinfo -h -o %P | sed -n 's/\*$//p' | head -1)
	SLURM_TEST_PARTITION=${SLURM_TEST_PARTITION:-${partition:-debug}}
	export SLURM_TEST_ACCOUNT SLURM_TEST_PARTITION
	_wait_for 30 sacct -X -n || {
		_slurm_log "sacct does not work (the executor plugin polls with it)"
		return 1
	}
	_slurm_log "ready: node $host, partition $SLURM_TEST_PARTITION, account $SLURM_TEST_ACCOUNT"
}
