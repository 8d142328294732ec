# shellcheck shell=sh
# The torture driver's model of klpc (sourced by torture.sh): what each
# patch of the pool is, which operation klpc must accept and how it must
# refuse the others, and what every patched function returns once no
# transition runs.  The rules are klp-core/core.c's, written again from
# the documented behaviour, so that the driver can tell a wrong answer
# from a right one without asking klpc.
#
# Patch slots (PATCH_SLOTS), each one patch module of the pool:
#   a b c  klpc-test-proc-{a,b,c}: /proc/cmdline and /proc/version, with
#          random parameters at each load: atomic replace, a system state
#          (id 1, version 1 or 2), a failing pre_patch callback, and a
#          callbacks-only object for the klpc_target module
#   mod    klpc-sample-mod: a function of the klpc_target module
#   cm     klpc-cm-patch: the consistency checker's caller/callee pair in
#          klpc_cm_target, and the function the sleeper sleeps in
#   sh     klpc-shadow-patch: shadow variables on klpc_shadow_target's
#          objects, freed by its post_unpatch callback
#   demo   klpc-test-cb-demo: callbacks on vmlinux (/proc/cmdline) and on
#          two modules, one of which (klpc_test_cb_busy) a kworker may be
#          asleep in (a kthread that holds its transitions); atomic
#          replace at random
# Target modules (TARGET_SLOTS): tgt (klpc-target), cmt (klpc-cm-target,
# which klpc-cm-patch links against), sht (klpc-shadow-target), busy
# (klpc-test-cb-busy, its work asleep in its function at random) and cbm
# (klpc-test-cb-mod).
#
# Per slot S the model keeps M_S_<field>: loaded, enabled (what the patch's
# 'enabled' reads: the target of its transition), replaced, forced, and
# the parameters of the loaded module: replace, state, cmd, ver, tcb, ppr
# (pre_patch_ret).  M_LIST is klpc's list of patches in order, replaced
# ones gone; M_TRANS the slot in transition ('' if none).

PATCH_SLOTS='a b c mod cm sh demo'
TARGET_SLOTS='tgt cmt sht busy cbm'

# m_get SLOT FIELD: print M_SLOT_FIELD; m_val sets _V to it instead
# (without the fork of a command substitution: the checks run after
# every step, and a fork costs milliseconds under TCG).
m_get() {
	eval "printf '%s\n' \"\${M_${1}_$2}\""
}

m_val() {
	eval "_V=\${M_${1}_$2}"
}

# m_set SLOT FIELD VALUE
m_set() {
	eval "M_${1}_$2=\$3"
}

# m_is SLOT FIELD: M_SLOT_FIELD is 1.
m_is() {
	eval "[ \"\${M_${1}_$2}\" = 1 ]"
}

# slot_file SLOT: the module file (without .ko) of a patch or target slot.
slot_file() {
	case $1 in
	a | b | c) echo "klpc-test-proc-$1" ;;
	mod) echo klpc-sample-mod ;;
	cm) echo klpc-cm-patch ;;
	sh) echo klpc-shadow-patch ;;
	demo) echo klpc-test-cb-demo ;;
	tgt) echo klpc-target ;;
	cmt) echo klpc-cm-target ;;
	sht) echo klpc-shadow-target ;;
	busy) echo klpc-test-cb-busy ;;
	cbm) echo klpc-test-cb-mod ;;
	esac
}

# slot_name SLOT: its module name, which is also the patch's name;
# slot_var SLOT sets _N to it and _D to the patch's sysfs directory.
slot_name() {
	slot_file "$1" | tr - _
}

slot_var() {
	eval "_N=\$SN_$1"
	_D=$KLPC_SYSFS/$_N
}

m_init() {
	for _s in $PATCH_SLOTS $TARGET_SLOTS; do
		eval "SN_$_s=$(slot_name "$_s")"
		for _f in loaded enabled replaced forced replace state tcb ppr; do
			m_set "$_s" "$_f" 0
		done
		m_set "$_s" cmd ''
		m_set "$_s" ver ''
	done
	M_LIST=
	M_TRANS=
	# shadow objects of klpc_shadow_target: "id:pokes ..." (pokes
	# counted by the patched poke function, '?' when not known)
	M_SHADOW_OBJS=
	M_SHADOW_NEXT=1
}

# m_tail: the last patch on klpc's list.
m_tail() {
	_t=
	for _s in $M_LIST; do _t=$_s; done
	echo "$_t"
}

# m_disabled_below SLOT: a disabled patch listed before SLOT.
m_disabled_below() {
	for _s in $M_LIST; do
		[ "$_s" != "$1" ] || return 1
		m_is "$_s" enabled || return 0
	done
	return 1
}

# m_enabled_above SLOT: an enabled patch listed after SLOT.
m_enabled_above() {
	_after=0
	for _s in $M_LIST; do
		if [ "$_s" = "$1" ]; then
			_after=1
		elif [ $_after = 1 ] && m_is "$_s" enabled; then
			return 0
		fi
	done
	return 1
}

# m_states_ok SLOT: SLOT's system state is compatible with those of the
# enabled patches (only the proc patches have one: id 1): a newer or the
# same version, and a replace patch must carry every state.
m_states_ok() {
	m_val "$1" state
	_mine=$_V
	for _s in $M_LIST; do
		if [ "$_s" = "$1" ] || ! m_is "$_s" enabled; then continue; fi
		m_val "$_s" state
		_theirs=$_V
		[ "$_theirs" -gt 0 ] || continue
		if [ "$_mine" -eq 0 ]; then
			m_is "$1" replace && return 1
		elif [ "$_mine" -lt "$_theirs" ]; then
			return 1
		fi
	done
	return 0
}

# m_pre_patch_fails SLOT: its vmlinux pre_patch callback returns an error.
m_pre_patch_fails() {
	m_val "$1" ppr
	[ "$_V" != 0 ]
}

# predict_load SLOT: the errno name the insmod of SLOT's module (with
# the parameters already in the model) must fail with, or 'ok'.
predict_load() {
	if [ "$1" = cm ] && ! m_is cmt loaded; then
		echo ENOENT # klpc_cm_callee is klpc_cm_target's
	elif [ -n "$M_TRANS" ]; then
		echo EBUSY
	elif [ -n "$(m_tail)" ] && ! m_is "$(m_tail)" enabled &&
		! m_is "$1" replace; then
		echo EBUSY
	elif ! m_states_ok "$1"; then
		echo EINVAL
	elif m_pre_patch_fails "$1"; then
		echo ENODEV
	else
		echo ok
	fi
}

# predict_enable SLOT 1|0: what writing 1 or 0 to SLOT's 'enabled' gives
# ('ok', 'reverse' or an errno name).
predict_enable() {
	if [ "$(m_get "$1" enabled)" = "$2" ]; then
		echo EINVAL
	elif [ "$M_TRANS" = "$1" ]; then
		echo reverse
	elif [ -n "$M_TRANS" ]; then
		echo EBUSY
	elif [ "$2" = 0 ]; then
		if m_enabled_above "$1"; then echo EBUSY; else echo ok; fi
	elif m_is "$1" replaced; then
		echo EINVAL
	elif m_disabled_below "$1" && ! m_is "$1" replace; then
		echo EBUSY
	elif ! m_states_ok "$1"; then
		echo EINVAL
	elif m_pre_patch_fails "$1"; then
		echo ENODEV
	else
		echo ok
	fi
}

# predict_unload SLOT: removing SLOT's module: a patch is pinned while
# enabled, in transition, or once forced; klpc_cm_target while
# klpc-cm-patch (which links against it) is loaded.  delete_module(2)
# with O_NONBLOCK, as rmmod calls it, says EWOULDBLOCK (EAGAIN) for both.
predict_unload() {
	case $1 in
	tgt | sht | busy | cbm) echo ok ;;
	cmt) if m_is cm loaded; then echo EAGAIN; else echo ok; fi ;;
	*)
		if m_is "$1" enabled || [ "$M_TRANS" = "$1" ] || m_is "$1" forced; then
			echo EAGAIN
		else
			echo ok
		fi
		;;
	esac
}

# predict_force SLOT: writing 1 to SLOT's 'force'.
predict_force() {
	if [ "$M_TRANS" = "$1" ]; then echo ok; else echo EINVAL; fi
}

# words_without WORDS KEY: _W = WORDS less those that are KEY or start
# with "KEY:" (the slots of M_LIST, the id:pokes of M_SHADOW_OBJS).
words_without() {
	_W=
	for _w in $1; do
		[ "${_w%%:*}" = "$2" ] || _W="$_W $_w"
	done
	_W=${_W# }
}

# m_list_remove SLOT
m_list_remove() {
	words_without "$M_LIST" "$1"
	M_LIST=$_W
}

# m_loaded SLOT: the patch module loaded: its transition to patched runs.
m_loaded() {
	m_set "$1" loaded 1
	m_set "$1" enabled 1
	m_set "$1" replaced 0
	m_set "$1" forced 0
	M_LIST=${M_LIST:+$M_LIST }$1
	M_TRANS=$1
	[ "$1" != sh ] || m_shadow_reset
}

# m_unloaded SLOT
m_unloaded() {
	m_set "$1" loaded 0
	m_set "$1" enabled 0
	m_list_remove "$1"
	case $1 in
	sht)
		M_SHADOW_OBJS=
		M_SHADOW_NEXT=1
		;;
	esac
}

# m_start SLOT 1|0: SLOT's transition to patched (1) or unpatched (0)
# starts, or, if it runs, is reversed.
m_start() {
	m_set "$1" enabled "$2"
	M_TRANS=$1
}

# m_complete: the transition of M_TRANS ended where 'enabled' says.  A
# replace patch that ends patched retires every other patch; one that
# ends unpatched runs its post_unpatch callbacks (the shadow patch frees
# its counters).
m_complete() {
	_p=$M_TRANS
	M_TRANS=
	if m_is "$_p" enabled; then
		m_is "$_p" replace || return 0
		for _s in $M_LIST; do
			[ "$_s" != "$_p" ] || continue
			m_set "$_s" enabled 0
			m_set "$_s" replaced 1
		done
		M_LIST=$_p
	elif [ "$_p" = sh ]; then
		m_shadow_reset
	fi
}

# m_forced: the transition of M_TRANS was forced: its patch and every
# enabled patch are pinned for good; then it completes.
m_forced() {
	for _s in $M_LIST; do
		if m_is "$_s" enabled || [ "$_s" = "$M_TRANS" ]; then
			m_set "$_s" forced 1
		fi
	done
	m_complete
}

# m_top FIELD: _T = FIELD (cmd or ver) of the last enabled patch that
# sets it: the text its /proc file shows; empty for the original.
m_top() {
	_T=
	for _s in $M_LIST; do
		case $_s in a | b | c | demo) ;; *) continue ;; esac
		m_is "$_s" enabled || continue
		m_val "$_s" "$1"
		[ -z "$_V" ] || _T=$_V
	done
}

# m_shadow_patched: the shadow patch's functions run.
m_shadow_patched() {
	m_is sh enabled && m_is sht loaded
}

# m_shadow_reset: every poke counter gone (post_unpatch, a new patch).
m_shadow_reset() {
	_l=
	for _o in $M_SHADOW_OBJS; do _l="$_l ${_o%%:*}:0"; done
	M_SHADOW_OBJS=${_l# }
}

# m_shadow_add / m_shadow_del ID / m_shadow_poke ID
m_shadow_add() {
	M_SHADOW_OBJS=${M_SHADOW_OBJS:+$M_SHADOW_OBJS }$M_SHADOW_NEXT:0
	M_SHADOW_NEXT=$((M_SHADOW_NEXT + 1))
}

m_shadow_del() {
	words_without "$M_SHADOW_OBJS" "$1"
	M_SHADOW_OBJS=$_W
}

m_shadow_poke() {
	_l=
	for _o in $M_SHADOW_OBJS; do
		_c=${_o#*:}
		if [ "${_o%%:*}" = "$1" ] && m_shadow_patched; then
			_c=$((_c + 1))
		fi
		_l="$_l ${_o%%:*}:$_c"
	done
	M_SHADOW_OBJS=${_l# }
}

# m_shadow_text: what /proc/klpc_shadow_target must show.
m_shadow_text() {
	for _o in $M_SHADOW_OBJS; do
		if m_shadow_patched; then
			echo "obj ${_o%%:*}: pokes=${_o#*:}"
		else
			echo "obj ${_o%%:*}: plain"
		fi
	done
}

# m_shadow_live: the poke counters attached (objects poked while patched).
m_shadow_live() {
	_n=0
	for _o in $M_SHADOW_OBJS; do
		[ "${_o#*:}" = 0 ] || _n=$((_n + 1))
	done
	echo $_n
}
