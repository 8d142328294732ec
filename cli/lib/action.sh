# shellcheck shell=sh
# klpc(8): load, unload, enable, disable, force: the commands that change
# what runs, each waiting for its transition and logging one line.

# kmsg_mark, then kmsg_since NAME: the kernel log lines about klpc or NAME
# logged since the mark.  The mark is the log's last line (its timestamp
# makes it unique), not a count of lines: once the ring buffer is full,
# every new line pushes an old one out and the count stays the same.  A
# mark that has been pushed out too shows the whole log.
kmsg_mark() {
	KMSG_LAST=$(dmesg 2>/dev/null | tail -n 1) || KMSG_LAST=
}

kmsg_since() {
	dmesg 2>/dev/null | awk -v last="$KMSG_LAST" '
		seen { print; next }
		$0 == last { seen = 1; next }
		{ all[n++] = $0 }
		END { if (!seen) for (i = 0; i < n; i++) print all[i] }' |
		grep -e 'klpc' -e "$1" | grep -v 'klpc\[[0-9]*\]: user=' |
		sed -e 's/^\[[^]]*\] */    kernel: /' | tail -n 20 || true
}

# uptime_s: whole seconds since boot, in UP (no exec: this runs in loops).
uptime_s() {
	read -r UP _ </proc/uptime
	UP=${UP%.*}
}

# parse_wait_opts CMD ARGS...: OPT_ARG (the one operand), OPT_WAIT, OPT_KEEP.
parse_wait_opts() {
	_cmd=$1
	shift
	OPT_ARG=
	OPT_WAIT=60
	OPT_KEEP=0
	while [ $# -gt 0 ]; do
		case $1 in
		--wait)
			need_arg "$@"
			need_secs "$1" "$2"
			OPT_WAIT=$2
			shift
			;;
		--wait=*)
			need_secs --wait "${1#*=}"
			OPT_WAIT=${1#*=}
			;;
		--keep) OPT_KEEP=1 ;;
		-*) usage_error "$_cmd: unknown option '$1'" ;;
		*)
			[ -z "$OPT_ARG" ] || usage_error "$_cmd: one patch at a time"
			OPT_ARG=$1
			;;
		esac
		shift
	done
	[ -n "$OPT_ARG" ] || usage_error "$_cmd: which patch?"
}

# need_no_transition ACTION NAME: no other patch's transition is running.
need_no_transition() {
	_tp=$(in_transition)
	[ -n "$_tp" ] && [ "$_tp" != "$2" ] || return 0
	die "patch '$_tp' is in transition: wait for it to finish (klpc status), see what blocks it (klpc blocking), or reverse it (klpc disable/enable $_tp)"
}

# sysfs_write FILE VALUE: one write; on failure, SYSFS_ERR has the errno text.
sysfs_write() {
	SYSFS_ERR=
	_o=$(env printf '%s\n' "$2" 2>&1 >"$1") && return 0
	SYSFS_ERR=${_o##*: }
	return 1
}

# --- the core -------------------------------------------------------------

# core_file: the klpc.ko to load: $KLPC_CORE, else DKMS's, else none
# (modprobe finds it).
core_file() {
	if [ -n "${KLPC_CORE:-}" ]; then
		echo "$KLPC_CORE"
	elif [ -f "/lib/modules/$(uname -r)/updates/dkms/klpc.ko" ]; then
		echo "/lib/modules/$(uname -r)/updates/dkms/klpc.ko"
	fi
}

# ensure_core: load klpc.ko unless it is loaded.
ensure_core() {
	core_loaded && return 0
	_core=$(core_file)
	kmsg_mark
	if [ -n "$_core" ]; then
		[ -f "$_core" ] || die "klpc.ko is missing: $_core does not exist (KLPC_CORE)"
		ko_check "$_core"
		ko_need_kver "$_core" "$(uname -r)"
		ko_need_signed "$_core"
		_out=$(insmod "$_core" 2>&1) || load_failed "$_core" klpc "$_out"
	else
		modinfo klpc >/dev/null 2>&1 ||
			die "klpc.ko is missing: no klpc module for kernel $(uname -r) (install klpc-dkms: apt install ./klpc-dkms_*.deb; or set KLPC_CORE=/path/to/klpc.ko)"
		_out=$(modprobe klpc 2>&1) || load_failed klpc klpc "$_out"
		_core=$(modinfo -F filename klpc 2>/dev/null || echo klpc)
	fi
	core_loaded || die "klpc.ko loaded but /sys/kernel/klpc is missing"
	klog load-core klpc ok "$_core"
	echo "klpc: loaded the core ($_core)"
}

# load_failed FILE NAME OUTPUT: explain why insmod of FILE failed, and die.
load_failed() {
	_why=${3##*: }
	case $3 in
	*"Key was rejected"* | *"Required key not available"*)
		_why="the kernel refused its signature ($_why)"
		if ko_signed "$1"; then
			_why="$_why: it is signed, but with a key the kernel does not trust; enrol the certificate as a MOK (mokutil --import /var/lib/dkms/mok.pub, reboot, confirm) or sign it with an enrolled key (klpc sign)"
		else
			_why="$_why: it is not signed; sign it (klpc sign $1)"
		fi
		;;
	*"Operation not permitted"*)
		_why="refused ($_why): lockdown=$(lockdown_mode) allows only modules signed with a trusted key (klpc sign $1; the certificate enrolled as a MOK)"
		;;
	*"Invalid module format"*)
		_why="the kernel refused its format: built for another kernel or configuration than $(uname -r)?"
		;;
	*"File exists"*) _why="'$2' is already loaded" ;;
	esac
	err "cannot load $1: $_why"
	kmsg_since "$2" >&2
	action_log failed "$_why"
	exit "$KLPC_ERR"
}

# --- waiting --------------------------------------------------------------

# progress NAME T0: one line on a terminal (tasks left, seconds).
progress() {
	[ -t 1 ] || return 0
	_left=$(trans_field pending)
	uptime_s
	printf '\r%s: transition, %s task(s) left, %s s ' "$1" "${_left:-?}" \
		"$((UP - $2))"
}

# wait_done NAME SECS: 0 once NAME's transition ended, 1 after SECS.
wait_done() {
	uptime_s
	_t0=$UP
	while [ "$(rd "$KLPC_SYSFS/$1/transition")" = 1 ]; do
		uptime_s
		if [ $((UP - _t0)) -ge "$2" ]; then
			[ ! -t 1 ] || echo
			return 1
		fi
		progress "$1" "$_t0"
		sleep 0.2
	done
	[ ! -t 1 ] || printf '\r%60s\r' ''
	return 0
}

# settle ACTION NAME: wait OPT_WAIT seconds for NAME's transition; on a
# stall, show what blocks it and reverse it (unless OPT_KEEP). Sets
# SETTLED: ok, kept (still in transition) or reversed.
settle() {
	SETTLED=ok
	wait_done "$2" "$OPT_WAIT" && return 0
	echo "klpc: $2: the transition did not finish in $OPT_WAIT s; what blocks it:"
	blocking_text 1 | sed 's/^/  /'
	if [ "$OPT_KEEP" = 1 ]; then
		SETTLED=kept
		echo "klpc: $2: left in transition (--keep): 'klpc blocking -v' shows what blocks it, 'klpc force $2 --yes' ends it"
		return 0
	fi
	_back=1
	[ "$(patch_flag klpc "$2" enabled)" = 1 ] && _back=0
	echo "klpc: $2: reversing the transition"
	sysfs_write "$KLPC_SYSFS/$2/enabled" "$_back" ||
		warn "$2: cannot reverse the transition: $SYSFS_ERR"
	SETTLED=reversed
	wait_done "$2" "$OPT_WAIT" ||
		warn "$2: the reversal did not finish in $OPT_WAIT s either; it goes on in the kernel (klpc status)"
}

# settle_exit ACTION NAME: log the result; exit 1 if kept, 2 if reversed.
settle_exit() {
	case $SETTLED in
	ok)
		action_log ok
		echo "klpc: $2: $(patch_state klpc "$2")"
		;;
	kept)
		action_log in-transition "stalled after $OPT_WAIT s, kept"
		exit 1
		;;
	reversed)
		action_log reversed "stalled after $OPT_WAIT s"
		exit 2
		;;
	esac
}

# --- commands -------------------------------------------------------------

cmd_load() {
	parse_wait_opts load "$@"
	_file=$OPT_ARG
	[ ! -f "$_file" ] || ko_info "$_file"
	action load "$(modname "$_file")"
	need_root load
	ko_check "$_file"
	_name=$(modname "$_file")
	ko_need_patch "$_file"
	ko_need_kver "$_file" "$(uname -r)"
	if is_loaded "$_name"; then
		die "patch '$_name' is already loaded ($(patch_state klpc "$_name")); 'klpc enable $_name' enables it again"
	fi
	need_no_transition load "$_name"
	ko_need_signed "$_file"
	ensure_core
	kmsg_mark
	_out=$(insmod "$_file" 2>&1) || load_failed "$_file" "$_name" "$_out"
	# where it came from, for 'klpc info NAME'
	if mkdir -p "$KLPC_RUNDIR" 2>/dev/null; then
		case $_file in
		/*) echo "$_file" ;;
		*) echo "$PWD/$_file" ;;
		esac >"$KLPC_RUNDIR/$_name.path" || true
	fi
	echo "klpc: $_name: loaded, patching"
	settle load "$_name"
	if [ "$SETTLED" = reversed ] && [ "$(patch_flag klpc "$_name" transition)" = 0 ]; then
		if rmmod "$_name" 2>/dev/null; then echo "klpc: $_name: removed"; fi
	fi
	settle_exit load "$_name"
}

# set_enabled ACTION NAME VALUE: write 'enabled', explaining a refusal.
set_enabled() {
	kmsg_mark
	sysfs_write "$KLPC_SYSFS/$2/enabled" "$3" && return 0
	err "cannot $1 '$2': $SYSFS_ERR"
	kmsg_since "$2" >&2
	action_log failed "$SYSFS_ERR"
	exit "$KLPC_ERR"
}

cmd_enable() {
	_act=$1
	shift
	parse_wait_opts "$_act" "$@"
	_name=$(modname "$OPT_ARG")
	action "$_act" "$_name"
	need_root "$_act"
	need_patch "$_name"
	need_no_transition "$_act" "$_name"
	_want=1
	[ "$_act" = enable ] || _want=0
	if [ "$(patch_flag klpc "$_name" enabled)" = $_want ]; then
		if [ "$(patch_flag klpc "$_name" transition)" = 0 ]; then
			echo "klpc: $_name: already ${_act}d"
			return 0
		fi
		# its transition already goes that way: wait for it
		echo "klpc: $_name: already ${_act}d, in transition"
	else
		set_enabled "$_act" "$_name" $_want
	fi
	settle "$_act" "$_name"
	settle_exit "$_act" "$_name"
}

cmd_unload() {
	parse_wait_opts unload "$@"
	_name=$(modname "$OPT_ARG")
	action unload "$_name"
	need_root unload
	need_patch "$_name"
	need_no_transition unload "$_name"
	if [ "$(patch_flag klpc "$_name" forced)" = 1 ]; then
		die "'$_name' was forced: its module can never be removed (a task may still run its code); 'klpc disable $_name' turns it off"
	fi
	if [ "$(patch_flag klpc "$_name" enabled)" = 1 ]; then
		set_enabled unload "$_name" 0
		settle unload "$_name"
		[ "$SETTLED" = ok ] || settle_exit unload "$_name"
	fi
	wait_done "$_name" "$OPT_WAIT" || die "'$_name' is still in transition"
	kmsg_mark
	_out=$(rmmod "$_name" 2>&1) || {
		err "cannot remove '$_name': ${_out##*: }"
		kmsg_since "$_name" >&2
		action_log failed "${_out##*: }"
		exit "$KLPC_ERR"
	}
	rm -f "$KLPC_RUNDIR/$_name.path"
	action_log ok
	echo "klpc: $_name: unloaded"
}

cmd_force() {
	_name=
	_yes=0
	for _a in "$@"; do
		case $_a in
		--yes | -y) _yes=1 ;;
		-*) usage_error "force: unknown option '$_a'" ;;
		*) _name=$(modname "$_a") ;;
		esac
	done
	[ -n "$_name" ] || usage_error "force: which patch?"
	action force "$_name"
	need_root force
	need_patch "$_name"
	[ "$(patch_flag klpc "$_name" transition)" = 1 ] ||
		die "'$_name' is not in transition: there is nothing to force"
	echo "klpc: WARNING: forcing moves every task still running the old code to the new state
  at once: a task may then run a mix of old and new functions, and the modules of
  '$_name' and of every enabled patch can never be removed (until reboot)." >&2
	[ $_yes = 1 ] || die "not forced: add --yes to confirm"
	kmsg_mark
	sysfs_write "$KLPC_SYSFS/$_name/force" 1 || {
		err "cannot force '$_name': $SYSFS_ERR"
		kmsg_since "$_name" >&2
		action_log failed "$SYSFS_ERR"
		exit "$KLPC_ERR"
	}
	action_log ok
	echo "klpc: $_name: forced, $(patch_state klpc "$_name")"
}
