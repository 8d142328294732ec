# shellcheck shell=sh
# The torture driver's load on the rest of the system (sourced by
# torture.sh): background jobs of unusual tasks, stopped and frozen tasks,
# CPU hot-plug, memory pressure and the klpc command.  None of it changes
# what the model predicts: klpc must give the same answers whatever runs
# beside it.
#
# JOBS: "pid:kind ..." of the background jobs; kinds: forks, execthr,
# threads, uring, busy (tasks to stop and freeze), cm (readers of
# klpc_cm_target's files, waited for before that module goes).

JOBS_MAX=6
CG_DIR=/sys/fs/cgroup/klpc-torture
CPU_FILE=/sys/devices/system/cpu/cpu1/online

# job_start KIND CMD...: CMD in the background, as a job of KIND.
job_start() {
	_kind=$1
	shift
	"$@" >/dev/null 2>"$KLPC_TMP/job.err" &
	JOBS="$JOBS $!:$_kind"
	note "job $!: $_kind: $*"
}

# jobs_reap: forget the jobs that ended; one that failed fails the run
# (exec from threads and io_uring reads must keep working).
jobs_reap() {
	_left=
	for _j in $JOBS; do
		if kill -0 "${_j%%:*}" 2>/dev/null; then
			_left="$_left $_j"
			continue
		fi
		_rc=0
		wait "${_j%%:*}" || _rc=$?
		case ${_j#*:} in busy | forks | cm) continue ;; esac
		[ "$_rc" = 0 ] || die "job ${_j%%:*} (${_j#*:}) exited with $_rc"
	done
	JOBS=$_left
}

# jobs_wait [KIND]: let the jobs (of KIND) go on and wait for them.
jobs_wait() {
	load_resume
	for _j in $JOBS; do
		[ -z "${1:-}" ] || [ "${_j#*:}" = "$1" ] || continue
		wait_until 120 eval "! kill -0 ${_j%%:*} 2>/dev/null" ||
			die "job $_j still runs after 120 s"
	done
	jobs_reap
}

# busy_job: a running job that can be stopped or frozen, in R.
busy_job() {
	R=
	for _j in $JOBS; do
		[ "${_j#*:}" != busy ] || R=${_j%%:*}
	done
	[ -n "$R" ]
}

# op_jobs: start a job of unusual tasks, for a few seconds.
op_jobs() {
	jobs_reap
	# shellcheck disable=SC2086 # a list of jobs
	set -- $JOBS
	[ $# -lt $JOBS_MAX ] || return 0
	rand 5
	_secs=$((R + 2))
	rand_pick forks execthr threads uring busy cm
	case $R in
	forks) job_start forks "$KLPC_HAMMER" forks "$_secs" ;;
	execthr) job_start execthr "$KLPC_TASKS" execthr 8 ;;
	threads) job_start threads "$KLPC_TASKS" threads 64 "$_secs" ;;
	uring) job_start uring "$KLPC_TASKS" uring-read /proc/cmdline 16 ;;
	busy) job_start busy "$KLPC_HAMMER" getppid $((_secs * 3)) ;;
	cm)
		m_is cmt loaded || return 0
		job_start cm "$KLPC_HAMMER" fork-read /proc/klpc_cm "$_secs"
		;;
	esac
}

# op_stop: SIGSTOP a busy job, or SIGCONT the stopped ones.
op_stop() {
	if [ -n "$STOPPED" ]; then
		note "SIGCONT $STOPPED"
		# shellcheck disable=SC2086 # a list of pids
		kill -CONT $STOPPED 2>/dev/null || true
		STOPPED=
	elif busy_job; then
		note "SIGSTOP $R"
		kill -STOP "$R" 2>/dev/null || true
		STOPPED=$R
	fi
}

# op_freeze: freeze a cgroup v2 holding a busy job, or thaw it.
op_freeze() {
	[ -e "$CG_DIR/cgroup.freeze" ] || return 0
	if [ "$(cat "$CG_DIR/cgroup.freeze")" = 1 ]; then
		note "thaw $CG_DIR"
		echo 0 >"$CG_DIR/cgroup.freeze"
	elif busy_job; then
		note "freeze $CG_DIR with job $R"
		echo "$R" >"$CG_DIR/cgroup.procs" 2>/dev/null || return 0
		echo 1 >"$CG_DIR/cgroup.freeze"
	fi
}

# load_resume: thaw and continue every job.
load_resume() {
	[ ! -e "$CG_DIR/cgroup.freeze" ] || echo 0 >"$CG_DIR/cgroup.freeze"
	if [ -n "$STOPPED" ]; then
		# shellcheck disable=SC2086 # a list of pids
		kill -CONT $STOPPED 2>/dev/null || true
		STOPPED=
	fi
}

# freezer_setup: the cgroup the freeze operation uses, if cgroup v2 has
# a freezer here.
freezer_setup() {
	if [ ! -e /sys/fs/cgroup/cgroup.controllers ]; then
		# no cgroups (the debug kernel): no freezing
		mkdir -p /sys/fs/cgroup 2>/dev/null || return 0
		mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null || return 0
	fi
	mkdir -p "$CG_DIR" 2>/dev/null || true
}

# op_cpu: take CPU 1 offline, or bring it back.
op_cpu() {
	[ -w "$CPU_FILE" ] || return 0
	if [ "$(cat "$CPU_FILE")" = 1 ]; then
		note "cpu1 offline"
		echo 0 >"$CPU_FILE" || die "cannot take cpu1 offline"
	else
		note "cpu1 online"
		echo 1 >"$CPU_FILE" || die "cannot bring cpu1 online"
	fi
}

# op_memory: a burst of memory pressure: a file of up to a few hundred MB
# in the RAM root (at most a third of the memory available: the debug
# kernel's KASAN takes much of it), the page cache dropped, the file
# removed.
op_memory() {
	rand 4
	_mb=$((128 + R * 96))
	_avail=$(awk '$1 == "MemAvailable:" { print int($2 / 3072) }' /proc/meminfo)
	[ "$_mb" -le "$_avail" ] || _mb=$_avail
	note "memory: ${_mb} MB"
	dd if=/dev/zero of="$KLPC_TMP/pressure" bs=1M count="$_mb" 2>/dev/null || true
	echo 3 >/proc/sys/vm/drop_caches
	rm -f "$KLPC_TMP/pressure"
}

# op_cli: the klpc command's read-only operations, which must succeed
# and name every patch registered ('klpc status' exits 1 while a
# transition runs, 2 when it stalled or was reversed: klpc.8).
op_cli() {
	rand_pick status list blocking json
	note "klpc $R"
	_rc=0
	case $R in
	status) _out=$(klpc status 2>&1) || _rc=$? ;;
	list) _out=$(klpc list 2>&1) || _rc=$? ;;
	json) _out=$(klpc status --json 2>&1) || _rc=$? ;;
	blocking) _out=$(klpc blocking 2>&1) || _rc=$? ;;
	esac
	case $R:$_rc in
	*:0 | status:[12] | json:[12]) ;;
	*) die "klpc $R exited with $_rc: $_out" ;;
	esac
	[ "$R" != blocking ] || return 0
	for _s in $M_LIST; do
		case $_out in
		*"$(slot_name "$_s")"*) ;;
		*) die "klpc $R does not name patch $(slot_name "$_s"): $_out" ;;
		esac
	done
}
