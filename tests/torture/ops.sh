# shellcheck shell=sh
# shellcheck disable=SC2034 # CM_* are check.sh's
# The torture driver's operations on patches and target modules (sourced
# by torture.sh, after model.sh).  Each one predicts klpc's answer from the
# model, does it, and fails the run when klpc answers otherwise; then it
# updates the model with what happened.

# outcome_of TEXT: the errno name an error message shows ('ok' if empty).
outcome_of() {
	[ -n "$1" ] || {
		echo ok
		return 0
	}
	for _e in EBUSY EINVAL ENODEV ENOENT ENOMEM EPERM EEXIST EAGAIN EFAULT; do
		case $1 in *"$(errno_text "$_e")"*)
			echo "$_e"
			return 0
			;;
		esac
	done
	echo "unknown($1)"
}

# klpc_rmmod NAME: delete_module(2) with O_NONBLOCK, as rmmod does; a
# failure prints the kernel's errno text.
klpc_rmmod() {
	perl -e '
		# 176: delete_module on x86_64; 04000: O_NONBLOCK
		syscall(176, $ARGV[0], 04000) == 0 and exit 0;
		print STDERR "rmmod $ARGV[0]: $!\n";
		exit 1;
	' "$1"
}

# fault_plan: whether the next operation runs in a task that fails its
# Nth allocation (FAULT_N, random; 0: none), when FAULTS is on (the debug
# kernel's failslab, through the task's fail-nth); FAULTED says so.
fault_plan() {
	FAULTED=0
	FAULT_N=0
	[ "$FAULTS" = 1 ] || return 0
	rand 100
	[ "$R" -lt "$FAULT_PCT" ] || return 0
	rand 300
	FAULT_N=$((R + 1))
	FAULTED=1
}

# arm_fault: in a subshell, before the operation (a builtin, or an exec:
# fail-nth is the task's and survives exec, not fork).
arm_fault() {
	[ "$FAULT_N" = 0 ] || echo "$FAULT_N" >/proc/self/fail-nth
}

# faulty_insmod FILE PARAM...: klpc_insmod under fault_plan's fault.
faulty_insmod() {
	(
		arm_fault
		exec perl -e "$KLPC_INSMOD_PL" "$@"
	)
}

# faulty_write VALUE FILE: write_sysfs under fault_plan's fault (env's
# printf, which words the errno; the shell's says "I/O error").
faulty_write() {
	(
		arm_fault
		exec env printf '%s\n' "$1" >"$2"
	)
}

# expect_outcome WHAT WANT GOT: the run fails unless klpc answered WHAT
# as predicted; an injected fault may turn a success into a failure,
# nothing else.  Returns 1 when the operation did not happen.
expect_outcome() {
	case $3 in
	ok)
		[ "$2" = ok ] || [ "$2" = reverse ] ||
			die "$1: succeeded, the model expected $2"
		return 0
		;;
	esac
	[ "$2" = "$3" ] && return 1
	if [ "$FAULTED" = 1 ]; then
		FAULTS_HIT=$((FAULTS_HIT + 1))
		note "  $1: failed with $3 (the injected fault, at allocation $FAULT_N)"
		return 1
	fi
	die "$1: failed with $3, the model expected $2"
}

# proc_params SLOT: random parameters of a proc patch, into the model;
# prints them as insmod arguments.
proc_params() {
	rand 100
	if [ "$R" -lt 85 ]; then m_set "$1" cmd "torture-$1-$STEP"; else m_set "$1" cmd ''; fi
	rand 100
	if [ "$R" -lt 30 ] || [ -z "$(m_get "$1" cmd)" ]; then
		m_set "$1" ver "torture-version-$1-$STEP"
	else
		m_set "$1" ver ''
	fi
	rand 100
	if [ "$R" -lt 15 ]; then m_set "$1" replace 1; else m_set "$1" replace 0; fi
	rand_pick 0 0 1 2
	m_set "$1" state "$R"
	rand 100
	if [ "$R" -lt 8 ]; then m_set "$1" ppr -19; else m_set "$1" ppr 0; fi
	rand 100
	if [ "$R" -lt 30 ]; then m_set "$1" tcb 1; else m_set "$1" tcb 0; fi
	PARAMS=
	[ -z "$(m_get "$1" cmd)" ] || PARAMS="cmdline=$(m_get "$1" cmd)"
	[ -z "$(m_get "$1" ver)" ] || PARAMS="$PARAMS version=$(m_get "$1" ver)"
	for _f in replace state tcb; do
		_v=$(m_get "$1" $_f)
		[ "$_v" = 0 ] && continue
		[ $_f = tcb ] && _f=target_cb
		PARAMS="$PARAMS $_f=$_v"
	done
	[ "$(m_get "$1" ppr)" = 0 ] || PARAMS="$PARAMS pre_patch_ret=$(m_get "$1" ppr)"
}

# unloaded_slots / loaded_slots: the patch slots whose module is not
# loaded, or is.
unloaded_slots() {
	for _s in $PATCH_SLOTS; do m_is "$_s" loaded || printf '%s ' "$_s"; done
}

loaded_slots() {
	for _s in $PATCH_SLOTS; do ! m_is "$_s" loaded || printf '%s ' "$_s"; done
}

# pick_loaded: R = a patch slot whose module is loaded; false if none.
pick_loaded() {
	_used=$(loaded_slots)
	[ -n "$_used" ] || return 1
	# shellcheck disable=SC2086 # a list of slots
	rand_pick $_used
}

# op_load: load a patch module not loaded, with random parameters.
op_load() {
	_free=$(unloaded_slots)
	[ -n "$_free" ] || {
		op_unload
		return 0
	}
	# shellcheck disable=SC2086 # a list of slots
	rand_pick $_free
	load_slot "$R"
}

# load_slot SLOT: insmod SLOT's module (a proc patch with random
# parameters), as the model predicts.
load_slot() {
	_s=$1
	PARAMS=
	case $_s in
	a | b | c) proc_params "$_s" ;;
	demo)
		m_set demo cmd "patched by klpc_test_cb_demo"
		rand 100
		if [ "$R" -lt 15 ]; then m_set demo replace 1; else m_set demo replace 0; fi
		[ "$(m_get demo replace)" = 0 ] || PARAMS=replace=1
		;;
	esac
	_want=$(predict_load "$_s")
	note "load $_s $PARAMS (expect $_want)"
	fault_plan
	# shellcheck disable=SC2086 # the parameters are words
	_err=$(faulty_insmod "$KLPC_MODDIR/$(slot_file "$_s").ko" $PARAMS 2>&1) || true
	if expect_outcome "insmod $(slot_file "$_s") $PARAMS" "$_want" "$(outcome_of "$_err")"; then
		m_loaded "$_s"
	elif is_loaded "$(slot_file "$_s")"; then
		die "insmod $(slot_file "$_s") failed ($_err) and left the module loaded"
	fi
}

# op_unload: remove a patch module (allowed or not).
op_unload() {
	pick_loaded || return 0
	unload_slot "$R"
}

# unload_slot SLOT: remove SLOT's module, as the model predicts.
unload_slot() {
	_want=$(predict_unload "$1")
	note "unload $1 (expect $_want)"
	FAULTED=0
	_err=$(klpc_rmmod "$(slot_name "$1")" 2>&1) || true
	if expect_outcome "rmmod $(slot_name "$1")" "$_want" "$(outcome_of "$_err")"; then
		m_unloaded "$1"
	fi
}

# write_enabled SLOT 1|0: write 'enabled', as the model predicts; WROTE
# says whether the write took effect (1), or was refused or failed by an
# injected fault (0).
write_enabled() {
	WROTE=0
	_want=$(predict_enable "$1" "$2")
	note "enabled $1 <- $2 (expect $_want)"
	fault_plan
	_err=$(faulty_write "$2" "$(patch_dir "$(slot_name "$1")")/enabled" 2>&1) || true
	if expect_outcome "write $2 to $(slot_name "$1")/enabled" "$_want" "$(outcome_of "$_err")"; then
		[ "$_want" != reverse ] || COUNT_REVERSED=$((COUNT_REVERSED + 1))
		m_start "$1" "$2"
		WROTE=1
	fi
}

# op_enable / op_disable: write 1 or 0 to a loaded patch's 'enabled'
# (replaced patches too, which must refuse); a proc patch's
# pre_patch_ret may change first (it is writable at run time).
op_enable() {
	pick_loaded || return 0
	_s=$R
	case $_s in a | b | c)
		rand 100
		if [ "$R" -lt 20 ]; then
			if [ "$(m_get "$_s" ppr)" = 0 ]; then _v=-19; else _v=0; fi
			write_sysfs "$_v" "/sys/module/$(slot_name "$_s")/parameters/pre_patch_ret" ||
				die "cannot set pre_patch_ret of $_s"
			m_set "$_s" ppr "$_v"
		fi
		;;
	esac
	write_enabled "$_s" "$1"
}

# op_reverse: write the opposite of what a transition heads for, right
# after starting it, or to the transition a sleeper holds open.
op_reverse() {
	if [ -n "$M_TRANS" ]; then
		_s=$M_TRANS
		if m_is "$_s" enabled; then write_enabled "$_s" 0; else write_enabled "$_s" 1; fi
		return 0
	fi
	pick_loaded || return 0
	_s=$R
	if m_is "$_s" enabled; then _v=0; else _v=1; fi
	# both writes must be allowed, whichever way the first one ends: a
	# re-enable would call a pre_patch callback set to fail
	[ "$(predict_enable "$_s" "$_v")" = ok ] && [ "$(m_get "$_s" ppr)" = 0 ] || return 0
	write_enabled "$_s" "$_v"
	# an injected fault may have failed the first write (seed 201, step
	# 460, debug kernel: the write of 0 failed in the kernel's own
	# allocation, and the write of 1 'at once' then found the patch still
	# enabled): nothing to reverse then
	[ "$WROTE" = 1 ] || return 0
	quick_reverse "$_s" $((1 - _v))
}

# quick_reverse SLOT 1|0: write it at once: the transition just started
# is reversed, or, if it completed first, the next one starts; which of
# the two happened, /proc/klpc/transition tells.
quick_reverse() {
	note "enabled $1 <- $2 at once (a reverse, or a new transition)"
	_err=$(write_sysfs "$2" "$(patch_dir "$(slot_name "$1")")/enabled" 2>&1) ||
		die "write $2 to $(slot_name "$1")/enabled right after the opposite: $_err"
	if ! trans_was_reversed "$(slot_name "$1")"; then
		m_complete
		# completed: if a replace patch retired the others, it is alone
	else
		COUNT_REVERSED=$((COUNT_REVERSED + 1))
	fi
	m_start "$1" "$2"
}

# trans_was_reversed NAME: the transition of patch NAME that runs or that
# ended last was reversed (/proc/klpc/transition).
trans_was_reversed() {
	_tp=$(awk '$1 == "patch" { print $2 }' /proc/klpc/transition)
	if [ "$_tp" = "$1" ]; then
		[ "$(awk '$1 == "reversed" { print $2 }' /proc/klpc/transition)" = 1 ]
	else
		[ "$(awk '$1 == "last_end" { print $2 }' /proc/klpc/transition)" = reversed ]
	fi
}

# op_force: force the transition in progress; with none (or with -N),
# 'force' of a patch not in transition must be refused.
op_force() {
	if [ -n "$M_TRANS" ] && [ "$NOFORCE" = 0 ]; then
		_s=$M_TRANS
	else
		pick_loaded || return 0
		_s=$R
		[ "$_s" != "$M_TRANS" ] || return 0
	fi
	_want=$(predict_force "$_s")
	note "force $_s (expect $_want)"
	FAULTED=0
	_err=$(write_sysfs 1 "$(patch_dir "$(slot_name "$_s")")/force" 2>&1) || true
	if expect_outcome "write 1 to $(slot_name "$_s")/force" "$_want" "$(outcome_of "$_err")"; then
		COUNT_FORCED=$((COUNT_FORCED + 1))
		m_forced
		# a forced task may have run one old and one new function
		CM_RESYNC=1
	fi
}

# op_target: load a target module, or remove it (klpc_cm_target only
# once nothing uses it: the sleeper, the readers, klpc-cm-patch).
op_target() {
	# shellcheck disable=SC2086 # a list of slots
	rand_pick $TARGET_SLOTS
	_s=$R
	if ! m_is "$_s" loaded; then
		busy_loadable || [ "$_s" != busy ] || return 0
		target_load "$_s"
		return 0
	fi
	if [ "$_s" = cmt ]; then
		sleeper_release
		jobs_wait cm
	fi
	unload_slot "$_s"
	[ "$_s" != busy ] || BUSY_BLOCK=0
}

# target_load SLOT: insmod a target module, which must succeed
# (klpc_test_cb_busy's work asleep in its function, at random).
target_load() {
	_p=
	if [ "$1" = busy ]; then
		rand 2
		BUSY_BLOCK=$R
		_p=block_transition=$R
	fi
	note "load target $1 $_p"
	# shellcheck disable=SC2086 # no parameter, or one
	_err=$(klpc_insmod "$KLPC_MODDIR/$(slot_file "$1").ko" $_p 2>&1) ||
		die "insmod $(slot_file "$1"): $_err"
	m_set "$1" loaded 1
	[ "$1" != cmt ] || CM_BASE=0
}

# busy_loadable: klpc_test_cb_busy may load: its init waits for its work
# function to start, which klpc-test-cb-demo, if it patches it, replaces
# by one that does not tell (its insmod would never return).
busy_loadable() {
	! m_is demo enabled && [ "$M_TRANS" != demo ]
}

# busy_release: klpc_test_cb_busy's work function may return.
busy_release() {
	[ "$BUSY_BLOCK" = 1 ] || return 0
	note "kworker: released"
	write_sysfs 0 /sys/module/klpc_test_cb_busy/parameters/block_transition ||
		die "cannot release klpc_test_cb_busy's work"
	BUSY_BLOCK=0
}

# --- the sleeper: a task asleep in klpc_cm_sleeper(), killable only -------

# sleeper_alive: the sleeper task exists.
sleeper_alive() {
	[ -n "$SLEEPER" ] && kill -0 "$SLEEPER" 2>/dev/null
}

# op_sleeper: put a task to sleep in klpc_cm_sleeper(), which holds any
# transition of klpc-cm-patch open; or release it, or kill it.
op_sleeper() {
	if sleeper_alive; then
		rand 2
		if [ "$R" = 0 ]; then sleeper_release; else sleeper_kill; fi
		return 0
	fi
	m_is cmt loaded || return 0
	sleeper_start
}

# sleeper_start: the sleeper, in the version of klpc_cm_sleeper() that
# runs now (SLEEPER_V: klpc-cm-patch's 'enabled' then).
sleeper_start() {
	note "sleeper: asleep in klpc_cm_sleeper()"
	m_val cm enabled
	SLEEPER_V=$_V
	write_sysfs k /proc/klpc_cm_sleep || die "cannot arm /proc/klpc_cm_sleep"
	cat /proc/klpc_cm_sleep >/dev/null 2>&1 &
	SLEEPER=$!
	wait_until 20 sleeping_in klpc_cm_wait "$SLEEPER" ||
		die "the sleeper $SLEEPER did not go to sleep in klpc_cm_wait()"
}

sleeper_release() {
	sleeper_alive || return 0
	note "sleeper: released"
	write_sysfs 1 /proc/klpc_cm_sleep || die "cannot release the sleeper"
	sleeper_reap
}

sleeper_kill() {
	note "sleeper: killed"
	kill -9 "$SLEEPER" 2>/dev/null || true
	sleeper_reap
}

sleeper_reap() {
	wait_until 20 eval '! sleeper_alive' ||
		die "the sleeper $SLEEPER did not exit: $(tr '\n' ' ' <"/proc/$SLEEPER/stack" 2>&1)"
	wait "$SLEEPER" 2>/dev/null || true
	SLEEPER=
}

# op_hold: a transition of klpc-cm-patch that the sleeper holds open: the
# target and the patch loaded if need be, the sleeper asleep in the
# version the transition moves away from, then the patch enabled or
# disabled.
op_hold() {
	[ -z "$M_TRANS" ] || return 0
	m_is cmt loaded || target_load cmt
	if ! m_is cm loaded; then
		load_slot cm
		settle
		m_is cm loaded || return 0
	fi
	m_val cm enabled
	if sleeper_alive && [ "$SLEEPER_V" != "$_V" ]; then sleeper_release; fi
	sleeper_alive || sleeper_start
	if m_is cm enabled; then write_enabled cm 0; else write_enabled cm 1; fi
}

# may_block: a transition may stay open: the sleeper sleeps in a function
# of klpc-cm-patch, or the kworker in one of klpc-test-cb-demo's, which a
# replace patch's transition covers too.
may_block() {
	m_is "$M_TRANS" replace && { sleeper_alive || [ "$BUSY_BLOCK" = 1 ]; } && return 0
	case $M_TRANS in
	cm) sleeper_alive ;;
	demo) [ "$BUSY_BLOCK" = 1 ] ;;
	*) return 1 ;;
	esac
}

# op_kworker: klpc_test_cb_busy's work asleep in its function (loaded
# with it), or released.
op_kworker() {
	if [ "$BUSY_BLOCK" = 1 ]; then
		busy_release
	elif ! m_is busy loaded && busy_loadable; then
		target_load busy
	fi
}

# --- shadow objects --------------------------------------------------------

# op_shadow: add, poke or delete an object of klpc_shadow_target (only
# with no transition running, when the model knows which code runs).
op_shadow() {
	[ -z "$M_TRANS" ] && m_is sht loaded || return 0
	rand 10
	_objs=$M_SHADOW_OBJS
	if [ "$R" -lt 4 ] || [ -z "$_objs" ]; then
		note "shadow: add"
		write_sysfs add /proc/klpc_shadow_target || die "shadow add failed"
		m_shadow_add
		return 0
	fi
	_r=$R
	# shellcheck disable=SC2086 # a list of id:count words
	rand_pick $_objs
	_id=${R%%:*}
	if [ "$_r" -lt 8 ]; then
		note "shadow: poke $_id"
		write_sysfs "poke $_id" /proc/klpc_shadow_target || die "shadow poke $_id failed"
		m_shadow_poke "$_id"
	else
		note "shadow: del $_id"
		write_sysfs "del $_id" /proc/klpc_shadow_target || die "shadow del $_id failed"
		m_shadow_del "$_id"
	fi
}
