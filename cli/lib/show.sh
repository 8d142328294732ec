# shellcheck shell=sh
# klpc(8): status, list, blocking (read-only commands).

# --- one patch ------------------------------------------------------------

# patch_dir CORE NAME: the sysfs directory of a klpc or livepatch patch.
patch_dir() {
	if [ "$1" = klpc ]; then echo "$KLPC_SYSFS/$2"; else echo "$KLPC_LP/$2"; fi
}

# patch_flag CORE NAME ATTR: 0 or 1 (0 where the core lacks ATTR).
patch_flag() {
	_v=$(rd "$(patch_dir "$1" "$2")/$3")
	[ "$_v" = 1 ] && echo 1 || echo 0
}

# patch_checked CORE NAME: yes or no, whether klpc compared the patch's
# build record with the running kernel (- for the built-in livepatch,
# which has no record).
patch_checked() {
	[ "$1" = klpc ] || {
		echo -
		return 0
	}
	_v=$(rd "$(patch_dir "$1" "$2")/checked")
	echo "${_v:-no}"
}

# patch_state CORE NAME: enabled, disabled, patching or unpatching.
patch_state() {
	_e=$(patch_flag "$1" "$2" enabled)
	if [ "$(patch_flag "$1" "$2" transition)" = 1 ]; then
		[ "$_e" = 1 ] && echo patching || echo unpatching
	else
		[ "$_e" = 1 ] && echo enabled || echo disabled
	fi
}

# patch_json CORE NAME: the patch as a JSON object, without its closing
# brace (list -v adds its objects).
patch_json() {
	printf '{"name":%s,"core":"%s","state":"%s","enabled":%s,"transition":%s,"replace":%s,"forced":%s,"checked":%s' \
		"$(json_str "$2")" "$1" "$(patch_state "$1" "$2")" \
		"$(jbool "$(patch_flag "$1" "$2" enabled)")" \
		"$(jbool "$(patch_flag "$1" "$2" transition)")" \
		"$(jbool "$(patch_flag "$1" "$2" replace)")" \
		"$(jbool "$(patch_flag "$1" "$2" forced)")" \
		"$(json_str "$(patch_checked "$1" "$2")")"
}

# all_patches: "CORE NAME" lines, klpc's first.
all_patches() {
	for _p in $(klpc_patches); do echo "klpc $_p"; done
	for _p in $(lp_patches); do echo "livepatch $_p"; done
}

# funcs_of CORE NAME: "OBJECT FUNCTION SYMPOS PATCHED" lines.
funcs_of() {
	for _o in "$(patch_dir "$1" "$2")"/*/; do
		[ -f "$_o/patched" ] || continue
		_op=$(rd "$_o/patched")
		for _f in "$_o"*,*/; do
			[ -d "$_f" ] || continue
			_f=$(basename "$_f")
			echo "$(basename "$_o") ${_f%,*} ${_f##*,} ${_op:-0}"
		done
	done
}

# core_funcs CORE: "OBJECT FUNCTION" of every patch of CORE, sorted.
core_funcs() {
	if [ "$1" = klpc ]; then _ps=$(klpc_patches); else _ps=$(lp_patches); fi
	for _p in $_ps; do
		funcs_of "$1" "$_p" | awk '{ print $1, $2 }'
	done | sort -u
}

other_core() {
	if [ "$1" = klpc ]; then echo livepatch; else echo klpc; fi
}

# --- status ---------------------------------------------------------------

# status_eval: sets ST_STATE and ST_EXIT from the transition and patches.
status_eval() {
	ST_STATE=settled
	ST_EXIT=0
	if ! core_loaded; then
		ST_STATE=no-core
		ST_EXIT=3
		return 0
	fi
	if [ -n "$ST_TPATCH" ]; then
		if [ "$ST_REVERSED" = 1 ]; then
			ST_STATE=reversing
			ST_EXIT=2
		elif [ "$ST_STALLED" = 1 ]; then
			ST_STATE=stalled
			ST_EXIT=2
		else
			ST_STATE=transition
			ST_EXIT=1
		fi
	elif [ -n "$ST_LPTRANS" ]; then
		ST_STATE=transition
		ST_EXIT=1
	elif [ "$ST_LASTEND" = reversed ]; then
		ST_STATE=reversed
		ST_EXIT=2
	fi
}

# status_read: the ST_* variables.
status_read() {
	ST_TPATCH=$(in_transition)
	ST_TFILE=0
	# readable by root of the initial user namespace only: an open tells
	# (true, not the special built-in ":", whose failed redirection ends sh)
	{ true <"$KLPC_PROC/transition"; } 2>/dev/null && ST_TFILE=1
	ST_TARGET=
	ST_SECS=
	ST_PENDING=
	ST_STALLED=0
	ST_REVERSED=0
	ST_LASTP=-
	ST_LASTEND=-
	if [ "$ST_TFILE" = 1 ]; then
		while read -r _k _v; do
			case $_k in
			patch) [ "$_v" = - ] || ST_TPATCH=$_v ;;
			target) ST_TARGET=$_v ;;
			seconds) ST_SECS=$_v ;;
			pending) ST_PENDING=$_v ;;
			stalled) ST_STALLED=$_v ;;
			reversed) ST_REVERSED=$_v ;;
			last_patch) ST_LASTP=$_v ;;
			last_end) ST_LASTEND=$_v ;;
			esac
		done <"$KLPC_PROC/transition"
	elif [ -n "$ST_TPATCH" ]; then
		ST_TARGET=patched
		[ "$(patch_flag klpc "$ST_TPATCH" enabled)" = 1 ] || ST_TARGET=unpatched
	fi
	ST_LPTRANS=
	for _p in $(lp_patches); do
		[ "$(patch_flag livepatch "$_p" transition)" = 0 ] || ST_LPTRANS=$_p
	done
	status_eval
}

core_param() {
	rd "/sys/module/klpc/parameters/$1"
}

# status_text VERBOSE: VERBOSE 1 (status -v) adds each patch's 'checked'.
status_text() {
	if core_loaded; then
		echo "core:        loaded (version $(rd /sys/module/klpc/version)," \
			"srcversion $(rd /sys/module/klpc/srcversion)," \
			"signal_secs=$(core_param signal_secs)," \
			"stall_reverse_secs=$(core_param stall_reverse_secs))"
	else
		echo "core:        klpc.ko is not loaded"
	fi
	_sig="unsigned patches load (and taint the kernel)"
	[ "$(sig_required)" = 0 ] || _sig="only signed patches load (klpc sign)"
	echo "signatures:  lockdown=$(lockdown_mode) sig_enforce=$(sig_enforce): $_sig"
	_first="patches:    "
	all_patches | while read -r _c _p; do
		_l="$_first $_p ($_c): $(patch_state "$_c" "$_p")"
		[ "$1" = 0 ] || [ "$_c" != klpc ] ||
			_l="$_l, checked against the running kernel: $(patch_checked "$_c" "$_p")"
		echo "$_l"
		_first="            "
	done
	[ -n "$(all_patches)" ] || echo "patches:     none"
	if [ -n "$ST_TPATCH" ]; then
		_l="transition:  $ST_TPATCH to ${ST_TARGET:-?}"
		[ -z "$ST_PENDING" ] || _l="$_l, $ST_PENDING task(s) left, ${ST_SECS} s"
		[ "$ST_STALLED" = 0 ] || _l="$_l, stalled (klpc blocking shows why)"
		[ "$ST_REVERSED" = 0 ] || _l="$_l, reversed"
		[ "$ST_TFILE" = 1 ] || _l="$_l (details: run as root)"
		echo "$_l"
	fi
	[ -z "$ST_LPTRANS" ] || echo "transition:  $ST_LPTRANS (built-in livepatch)"
	[ "$ST_LASTP" = - ] || echo "last:        $ST_LASTP $ST_LASTEND"
	echo "state:       $ST_STATE"
}

status_json() {
	printf '{"core":{"loaded":%s' "$(core_loaded && echo true || echo false)"
	if core_loaded; then
		printf ',"version":%s,"srcversion":%s,"signal_secs":%s,"stall_reverse_secs":%s' \
			"$(json_str "$(rd /sys/module/klpc/version)")" \
			"$(json_str "$(rd /sys/module/klpc/srcversion)")" \
			"$(json_num "$(core_param signal_secs)")" \
			"$(json_num "$(core_param stall_reverse_secs)")"
	fi
	printf '},"lockdown":"%s","sig_enforce":%s,"signatures_required":%s,"patches":[' \
		"$(lockdown_mode)" "$(jbool "$(sig_enforce)")" "$(jbool "$(sig_required)")"
	_sep=
	for _p in $(klpc_patches); do
		printf '%s%s}' "$_sep" "$(patch_json klpc "$_p")"
		_sep=,
	done
	for _p in $(lp_patches); do
		printf '%s%s}' "$_sep" "$(patch_json livepatch "$_p")"
		_sep=,
	done
	printf '],"transition":'
	if [ -n "$ST_TPATCH" ]; then
		printf '{"patch":%s,"target":%s,"seconds":%s,"pending":%s,"stalled":%s,"reversed":%s}' \
			"$(json_str "$ST_TPATCH")" "$(json_str "${ST_TARGET:-unknown}")" \
			"$(json_num "$ST_SECS")" "$(json_num "$ST_PENDING")" \
			"$(jbool "$ST_STALLED")" "$(jbool "$ST_REVERSED")"
	else
		printf null
	fi
	printf ',"livepatch_transition":'
	if [ -n "$ST_LPTRANS" ]; then json_str "$ST_LPTRANS"; else printf null; fi
	printf ',"last_transition":'
	if [ "$ST_LASTP" != - ]; then
		printf '{"patch":%s,"end":%s}' "$(json_str "$ST_LASTP")" "$(json_str "$ST_LASTEND")"
	else
		printf null
	fi
	printf ',"state":"%s","exit":%s}\n' "$ST_STATE" "$ST_EXIT"
}

cmd_status() {
	_json=0
	_verbose=0
	for _a in "$@"; do
		case $_a in
		--json) _json=1 ;;
		-v) _verbose=1 ;;
		*) usage_error "status: unknown argument '$_a'" ;;
		esac
	done
	status_read
	if [ $_json = 1 ]; then status_json; else status_text "$_verbose"; fi
	exit "$ST_EXIT"
}

# --- list -----------------------------------------------------------------

list_text() {
	_all=$(all_patches)
	if [ -z "$_all" ]; then
		core_loaded || echo "klpc.ko is not loaded"
		echo "no patches"
		return 0
	fi
	printf '%-24s %-10s %-11s %-7s %s\n' PATCH CORE STATE REPLACE FORCED
	echo "$_all" | while read -r _c _p; do
		printf '%-24s %-10s %-11s %-7s %s\n' "$_p" "$_c" "$(patch_state "$_c" "$_p")" \
			"$(patch_flag "$_c" "$_p" replace)" "$(patch_flag "$_c" "$_p" forced)"
		[ "$1" = 1 ] || continue
		_other=$(core_funcs "$(other_core "$_c")")
		funcs_of "$_c" "$_p" | while read -r _o _f _s _op; do
			_flag=
			if echo "$_other" | grep -qxF "$_o $_f"; then
				_flag="  [patched by $(other_core "$_c") too]"
			fi
			echo "    $_o: $_f,$_s (object patched: $_op)$_flag"
		done
	done
}

# funcs_json CORE NAME: the patch's objects and functions, as JSON members.
funcs_json() {
	_other=$(core_funcs "$(other_core "$1")")
	printf ',"functions":['
	_fsep=
	funcs_of "$1" "$2" | while read -r _o _f _s _op; do
		_both=false
		! echo "$_other" | grep -qxF "$_o $_f" || _both=true
		printf '%s{"object":%s,"function":%s,"sympos":%s,"object_patched":%s,"both_cores":%s}' \
			"$_fsep" "$(json_str "$_o")" "$(json_str "$_f")" "$(json_num "$_s")" \
			"$(jbool "$_op")" "$_both"
		_fsep=,
	done
	printf ']'
}

list_json() {
	printf '{"core_loaded":%s,"patches":[' "$(core_loaded && echo true || echo false)"
	_sep=
	all_patches | while read -r _c _p; do
		printf '%s%s' "$_sep" "$(patch_json "$_c" "$_p")"
		[ "$1" = 0 ] || funcs_json "$_c" "$_p"
		printf '}'
		_sep=,
	done
	printf ']}\n'
}

cmd_list() {
	_json=0
	_verbose=0
	for _a in "$@"; do
		case $_a in
		--json) _json=1 ;;
		-v | --verbose) _verbose=1 ;;
		*) usage_error "list: unknown argument '$_a'" ;;
		esac
	done
	if [ $_json = 1 ]; then list_json $_verbose; else list_text $_verbose; fi
}

# --- blocking -------------------------------------------------------------

# task_stack TID: the kernel stack of thread TID, one frame a line.
task_stack() {
	_tgid=$(awk '$1 == "Tgid:" { print $2 }' "/proc/$1/status" 2>/dev/null) || _tgid=
	cat "/proc/${_tgid:-$1}/task/$1/stack" 2>/dev/null || echo "(stack unavailable: the task exited?)"
}

# blocking_lines: "PID<tab>COMM<tab>STATE<tab>BLOCKER" from /proc/klpc/tasks
# (a comm may hold blanks, and so may a blocker: "unreliable stack").
blocking_lines() {
	sed -E 's/^([0-9]+) (.*) (patched|unpatched) (.*)$/\1	\2	\3	\4/' \
		"$KLPC_PROC/tasks"
}

blocking_text() {
	_tp=$(trans_field patch)
	if [ "${_tp:--}" = - ]; then
		echo "no transition in progress"
		return 0
	fi
	echo "transition: $_tp to $(trans_field target), $(trans_field pending) task(s) left, $(trans_field seconds) s"
	printf '%-8s %-16s %-10s %s\n' PID COMM STATE BLOCKER
	blocking_lines | while IFS='	' read -r _pid _comm _st _bl; do
		printf '%-8s %-16s %-10s %s\n' "$_pid" "$_comm" "$_st" "$_bl"
		[ "$1" = 0 ] || task_stack "$_pid" | sed 's/^/        /'
	done
}

blocking_json() {
	_tp=$(trans_field patch)
	printf '{"transition":'
	if [ "${_tp:--}" = - ]; then
		printf 'null,"tasks":[]}\n'
		return 0
	fi
	printf '{"patch":%s,"target":%s,"pending":%s,"seconds":%s},"tasks":[' \
		"$(json_str "$_tp")" "$(json_str "$(trans_field target)")" \
		"$(json_num "$(trans_field pending)")" "$(json_num "$(trans_field seconds)")"
	_sep=
	blocking_lines | while IFS='	' read -r _pid _comm _st _bl; do
		printf '%s{"pid":%s,"comm":%s,"state":%s,"blocker":%s' "$_sep" \
			"$(json_num "$_pid")" "$(json_str "$_comm")" "$(json_str "$_st")" \
			"$(json_str "$_bl")"
		if [ "$1" = 1 ]; then
			printf ',"stack":['
			task_stack "$_pid" | awk -v q='"' '{ gsub(/\\/, "\\\\"); gsub(/"/, "\\\"")
				printf "%s%s%s%s", (NR > 1 ? "," : ""), q, $0, q }'
			printf ']'
		fi
		printf '}'
		_sep=,
	done
	printf ']}\n'
}

cmd_blocking() {
	_json=0
	_verbose=0
	for _a in "$@"; do
		case $_a in
		--json) _json=1 ;;
		-v | --verbose) _verbose=1 ;;
		*) usage_error "blocking: unknown argument '$_a'" ;;
		esac
	done
	core_loaded || die "klpc.ko is not loaded: no transition to show"
	need_priv blocking CAP_SYS_ADMIN 21
	if [ $_json = 1 ]; then blocking_json $_verbose; else blocking_text $_verbose; fi
}
