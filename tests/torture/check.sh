# shellcheck shell=sh
# The torture driver's invariants (sourced by torture.sh), checked after
# every step: each 'inv' counts one, and the first that fails stops the
# run with the seed, the step and the last operations.

# inv WHAT EXPECTED ACTUAL: one invariant.
inv() {
	CHECKS=$((CHECKS + 1))
	[ "$2" = "$3" ] || die "invariant: $1: expected '$2', got '$3'"
}

# trans_ended SLOT: SLOT's 'transition' reads 0.
trans_ended() {
	slot_var "$1"
	readf "$_D/transition"
	[ "$_F" = 0 ]
}

# trans_poll: if the transition the model waits for has ended, say so.
trans_poll() {
	[ -n "$M_TRANS" ] || return 0
	trans_ended "$M_TRANS" || return 0
	note "transition of $M_TRANS ended ($(m_get "$M_TRANS" enabled))"
	COUNT_DONE=$((COUNT_DONE + 1))
	m_complete
}

# settle: wait for the transition an operation started; it may stay open
# only if the sleeper holds it (may_block).
settle() {
	[ -n "$M_TRANS" ] || return 0
	if may_block; then
		# give it a moment, then let it be
		if ! wait_until 2 trans_ended "$M_TRANS"; then
			COUNT_HELD=$((COUNT_HELD + 1))
			return 0
		fi
	else
		wait_until "$SETTLE_SECS" trans_ended "$M_TRANS" ||
			die "invariant: the transition of $(slot_name "$M_TRANS") still runs after $((SETTLE_SECS * KLPC_TIMEOUT_SCALE)) s and nothing may hold it: $(blocking_summary)"
	fi
	trans_poll
}

# readf FILE: _F = FILE's first line ('?' if it cannot be read), with
# the shell's read: no fork.
readf() {
	_F='?'
	IFS= read -r _F 2>/dev/null <"$1" || true
}

# mods_read: _MODS = " name name ... " of /proc/modules.
mods_read() {
	_MODS=' '
	while read -r _m _rest; do _MODS="$_MODS$_m "; done </proc/modules
}

# mod_in NAME: NAME is in _MODS (1 or 0 in _L).
mod_in() {
	case $_MODS in *" $1 "*) _L=1 ;; *) _L=0 ;; esac
}

# check_patches: each patch slot's module, sysfs directory and files.
check_patches() {
	mods_read
	for _s in $PATCH_SLOTS; do
		slot_var "$_s"
		mod_in "$_N"
		m_val "$_s" loaded
		inv "$_N loaded" "$_V" "$_L"
		if [ "$_V" = 0 ]; then
			_L=0
			[ ! -d "$_D" ] || _L=1
			inv "$_D exists" 0 "$_L"
			continue
		fi
		for _f in enabled forced; do
			readf "$_D/$_f"
			m_val "$_s" "$_f"
			inv "$_D/$_f" "$_V" "$_F"
		done
		if [ "$_s" != "$M_TRANS" ]; then
			readf "$_D/transition"
			inv "$_D/transition" 0 "$_F"
		fi
		check_refcnt "$_s" "$_N"
	done
	for _s in $TARGET_SLOTS; do
		slot_var "$_s"
		mod_in "$_N"
		m_val "$_s" loaded
		inv "$_N loaded" "$_V" "$_L"
	done
}

# check_refcnt SLOT NAME: a patch that is neither enabled, in transition
# nor forced holds no reference on its module (it can be removed); an
# enabled one holds at least one.
check_refcnt() {
	readf "/sys/module/$2/refcnt"
	if m_is "$1" enabled || [ "$1" = "$M_TRANS" ]; then
		CHECKS=$((CHECKS + 1))
		[ "$_F" -ge 1 ] 2>/dev/null || die "invariant: $2 is enabled with refcnt $_F"
	elif ! m_is "$1" forced; then
		inv "$2 refcnt (disabled)" 0 "$_F"
	fi
}

# proc_field FILE KEY: _F = the value of "KEY value" in FILE.
proc_field() {
	_F='?'
	while read -r _k _v; do
		[ "$_k" != "$2" ] || _F=$_v
	done <"$1"
}

# check_tasks: /proc/klpc/tasks lists no task without a transition, and
# only tasks that exist (or just exited) with one.
check_tasks() {
	if [ -z "$M_TRANS" ]; then
		_l=
		while read -r _line; do _l="$_l$_line;"; done </proc/klpc/tasks
		inv "/proc/klpc/tasks without a transition" "" "$_l"
		proc_field /proc/klpc/stats pending
		inv "pending tasks without a transition" 0 "$_F"
		proc_field /proc/klpc/stats entries
		inv "task table entries without a transition" 0 "$_F"
		proc_field /proc/klpc/transition patch
		inv "/proc/klpc/transition patch" - "$_F"
		return 0
	fi
	_pids=
	while read -r _pid _rest; do _pids="$_pids $_pid"; done </proc/klpc/tasks
	for _pid in $_pids; do
		CHECKS=$((CHECKS + 1))
		[ ! -d "/proc/$_pid" ] || continue
		# it may have exited since: then a new read no longer lists it
		! grep -q "^$_pid " /proc/klpc/tasks ||
			die "invariant: /proc/klpc/tasks lists task $_pid, which does not exist"
	done
}

# check_behaviour: what each patched function returns, when no
# transition runs (during one, a task may run either version).
check_behaviour() {
	[ -z "$M_TRANS" ] || return 0
	m_top cmd
	readf /proc/cmdline
	inv /proc/cmdline "${_T:-$ORIG_CMDLINE}" "$_F"
	m_top ver
	readf /proc/version
	inv /proc/version "${_T:-$ORIG_VERSION}" "$_F"
	if m_is tgt loaded; then
		if m_is mod enabled; then _v='patched by klpc'; else _v=original; fi
		readf /proc/klpc_target
		_F=${_F#message=}
		inv "klpc_target's message" "$_v" "${_F%% dup=*}"
	fi
	if m_is cbm loaded; then
		if m_is demo enabled; then _v='patched by klpc_test_cb_demo'; else _v=original; fi
		readf /proc/klpc_cb_mod
		inv /proc/klpc_cb_mod "$_v" "$_F"
	fi
	if m_is sht loaded; then
		inv /proc/klpc_shadow_target "$(m_shadow_text)" "$(cat /proc/klpc_shadow_target)"
		if m_shadow_patched; then
			readf /sys/module/klpc_shadow_patch/parameters/live_vars
			inv "klpc_shadow_patch's live_vars" "$(m_shadow_live)" "$_F"
		fi
	fi
}

# check_cm: the consistency counter of klpc_cm_target: no task ever ran
# an old caller with a new callee or the reverse (after a forced
# transition, counted ones are forgiven: force allows mixed versions).
check_cm() {
	m_is cmt loaded || return 0
	readf /proc/klpc_cm
	inv "klpc_cm mismatches" "$CM_BASE" "${_F##*mismatches=}"
}

# cm_resync: after a forced transition, the counter as it is now is the
# new base.
cm_resync() {
	[ "$CM_RESYNC" = 1 ] || return 0
	CM_RESYNC=0
	m_is cmt loaded || return 0
	readf /proc/klpc_cm
	CM_BASE=${_F##*mismatches=}
}

# check_log: no kernel log line of the suite's list since the last check.
check_log() {
	dmesg >"$KLPC_TMP/dmesg"
	_n=$(wc -l <"$KLPC_TMP/dmesg")
	if [ "$_n" -lt "$LOG_SEEN" ]; then LOG_SEEN=0; fi
	tail -n +$((LOG_SEEN + 1)) "$KLPC_TMP/dmesg" >"$KLPC_TMP/dmesg.new"
	LOG_SEEN=$_n
	CHECKS=$((CHECKS + 1))
	if grep -E -f "$BAD_RE" "$KLPC_TMP/dmesg.new" >"$KLPC_TMP/dmesg.bad"; then
		REPORTS=$((REPORTS + 1))
		die "kernel report: $(head -n 5 "$KLPC_TMP/dmesg.bad")"
	fi
}

# check_state: the invariants of klpc's state and of the functions.
check_state() {
	check_patches
	check_tasks
	check_behaviour
	check_cm
}

# check_all: every invariant, after a step.  A transition the model
# still waits for may end while they are read (a replace patch then
# disables the others): a first pass that fails is taken again once that
# is known; only the second pass's failure counts.
check_all() {
	trans_poll
	cm_resync
	if (
		export SOFT=1
		check_state
		echo "$CHECKS" >"$KLPC_TMP/checks"
	) 2>/dev/null; then
		CHECKS=$(cat "$KLPC_TMP/checks")
	else
		trans_poll
		check_state
	fi
	check_log
}
