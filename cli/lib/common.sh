# shellcheck shell=sh
# klpc(8): errors, the log line, module files, sysfs reads, JSON strings.
# Sourced by cli/klpc; defines functions and variables, runs nothing.

KLPC_SYSFS=/sys/kernel/klpc
KLPC_LP=/sys/kernel/livepatch
KLPC_PROC=/proc/klpc
KLPC_LIBDIR=${KLPC_LIBDIR:-/var/lib/klpc}
KLPC_RUNDIR=${KLPC_RUNDIR:-/run/klpc}
# the exit status of every error
KLPC_ERR=3

err() {
	printf 'klpc: error: %s\n' "$*" >&2
}

# die MESSAGE: print it, log the action as failed (its first line), exit 3.
die() {
	err "$@"
	action_log failed "$(printf '%s\n' "$*" | head -n 1)"
	exit "$KLPC_ERR"
}

# action NAME [PATCH]: the action that this run logs (one line, at its end).
action() {
	ACTION=$1
	ACTION_PATCH=${2:-}
	ACTION_LOGGED=0
}

# action_log RESULT [DETAIL]: the action's line, once.
action_log() {
	[ -n "${ACTION:-}" ] && [ "${ACTION_LOGGED:-0}" = 0 ] || return 0
	ACTION_LOGGED=1
	klog "$ACTION" "${ACTION_PATCH:--}" "$@"
}

warn() {
	printf 'klpc: warning: %s\n' "$*" >&2
}

usage_error() {
	err "$*"
	echo "run 'klpc --help' for usage" >&2
	exit "$KLPC_ERR"
}

# need_arg OPTION VALUE...: OPTION takes a value.
need_arg() {
	[ $# -ge 2 ] || usage_error "$1 needs a value"
}

# need_secs OPTION VALUE: a whole number of seconds.
need_secs() {
	case $2 in
	'' | *[!0-9]*) usage_error "$1: '$2' is not a number of seconds" ;;
	esac
}

# in_init_userns: this runs in the initial user namespace (whose inode
# number is fixed: PROC_USER_INIT_INO), not in a container's.  A kernel
# without user namespaces (CONFIG_USER_NS=n, like the debug kernel) has
# no /proc/self/ns/user, and only the initial one.
in_init_userns() {
	[ -e /proc/self/ns/user ] || return 0
	[ "$(readlink /proc/self/ns/user 2>/dev/null)" = 'user:[4026531837]' ]
}

# has_cap BIT: the effective capabilities hold capability number BIT.
has_cap() {
	_capeff=0
	while read -r _k _v _; do
		[ "$_k" != CapEff: ] || _capeff=$_v
	done </proc/self/status
	[ $(((0x$_capeff >> $1) & 1)) = 1 ]
}

# need_priv ACTION CAP BIT: root of the initial user namespace with
# capability CAP (number BIT), as klpc.ko demands of its writers
# (CAP_SYS_MODULE) and of the readers of /proc/klpc (CAP_SYS_ADMIN).
need_priv() {
	[ "$KLPC_UID" -eq 0 ] ||
		die "'klpc $1' needs root: run it with sudo, or as root"
	in_init_userns ||
		die "'klpc $1' needs root of the initial user namespace: this is root in a user namespace (a container?), which can neither change nor inspect live patches"
	has_cap "$3" ||
		die "'klpc $1' needs the $2 capability, which this root lacks (a container?)"
}

need_root() {
	need_priv "$1" CAP_SYS_MODULE 16
}

# who: the user behind the action (sudo's caller, the login uid).
who() {
	_auid=$(rd /proc/self/loginuid)
	case $_auid in '' | 4294967295) _auid=- ;; esac
	printf 'user=%s uid=%s auid=%s' "${SUDO_USER:-$(id -un 2>/dev/null || echo "$KLPC_UID")}" \
		"$KLPC_UID" "$_auid"
}

# klog ACTION PATCH RESULT [DETAIL]: one line, "klpc[PID]: user=... uid=...
# auid=... action=... patch=... result=... detail="..."", to the kernel log
# (journald files it under the identifier klpc), else to syslog. Never
# fails the action. KLPC_LOG=0: no line.
klog() {
	[ "${KLPC_LOG:-1}" != 0 ] || return 0
	_line="$(who) action=$1 patch=${2:--} result=$3"
	[ $# -lt 4 ] || _line="$_line detail=\"$(printf '%s' "$4" | tr '"\n' "' ")\""
	{ printf '<13>klpc[%s]: %s\n' "$$" "$_line" >/dev/kmsg; } 2>/dev/null ||
		logger -t klpc -- "$_line" 2>/dev/null || true
}

# rd FILE: its first line, empty if unreadable (no cat: under QEMU's TCG
# every exec counts).
rd() {
	_rv=
	{ IFS= read -r _rv <"$1"; } 2>/dev/null || true
	printf '%s\n' "$_rv"
}

# KLPC_UID: whoever runs the command (from the shell's own status file).
KLPC_UID=
while read -r _k _v _; do
	[ "$_k" != Uid: ] || KLPC_UID=$_v
done </proc/self/status
[ -n "$KLPC_UID" ] || KLPC_UID=$(id -u)

# jbool 0|1: false|true.
jbool() {
	if [ "$1" = 1 ]; then echo true; else echo false; fi
}

# json_str TEXT: TEXT as a JSON string.
json_str() {
	case $1 in
	*[!A-Za-z0-9_.,:/+=@%\ -]*) ;;
	*)
		printf '"%s"' "$1"
		return 0
		;;
	esac
	printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/	/\\t/g' |
		tr -d '\001-\010\013-\037' |
		awk 'BEGIN { printf "\"" } NR > 1 { printf "\\n" } { printf "%s", $0 }
			END { printf "\"" }'
}

# json_num TEXT: TEXT if it is a number, else null.
json_num() {
	case $1 in
	'' | *[!0-9]*) echo null ;;
	*) echo "$1" ;;
	esac
}

# --- modules --------------------------------------------------------------

# ko_info FILE: FILE's modinfo, read once (an exec costs under TCG); the
# fields of that file then come from KO_INFO.
ko_info() {
	[ "${KO_FILE:-}" != "$1" ] || return 0
	KO_FILE=$1
	KO_INFO=$(modinfo "$1" 2>/dev/null) || KO_INFO=
}

# ko_field FILE FIELD: FIELD's values, one a line, as modinfo -F prints them.
ko_field() {
	if [ "${KO_FILE:-}" != "$1" ]; then
		modinfo -F "$2" "$1" 2>/dev/null || true
		return 0
	fi
	printf '%s\n' "$KO_INFO" | while IFS= read -r _l; do
		case $_l in
		"$2:"*)
			_l=${_l#"$2:"}
			printf '%s\n' "${_l#"${_l%%[! 	]*}"}"
			;;
		esac
	done
}

# modname TEXT: a module name as the kernel spells it (dashes become
# underscores); a .ko file gives the name it carries.
modname() {
	case $1 in
	*.ko)
		_n=$(ko_field "$1" name)
		[ -n "$_n" ] || _n=$(basename "$1" .ko)
		;;
	*) _n=$1 ;;
	esac
	while :; do
		case $_n in
		*-*) _n=${_n%%-*}_${_n#*-} ;;
		*) break ;;
		esac
	done
	echo "$_n"
}

is_loaded() {
	[ -f "/sys/module/$1/initstate" ]
}

core_loaded() {
	[ -d "$KLPC_SYSFS" ]
}

# ko_check FILE: FILE is a readable kernel module.
ko_check() {
	[ -e "$1" ] || die "$1: no such file"
	if [ ! -f "$1" ] || [ ! -r "$1" ]; then die "$1: not a readable file"; fi
	ko_info "$1"
	_vm=$(ko_field "$1" vermagic)
	[ -n "$_vm" ] || die "$1: not a kernel module (modinfo finds no vermagic in it)"
}

# ko_is_patch FILE: FILE is a klpc patch module (it depends on klpc).
ko_is_patch() {
	case ,$(ko_field "$1" depends), in
	*,klpc,*) return 0 ;;
	esac
	return 1
}

# ko_need_patch FILE: die unless FILE is a klpc patch module.
ko_need_patch() {
	ko_is_patch "$1" && return 0
	if [ "$(ko_field "$1" livepatch)" = Y ]; then
		die "$1 is a patch for the kernel's built-in livepatch, not for klpc: load it with insmod"
	fi
	die "$1 is not a klpc patch module (it does not use klpc.ko's symbols)"
}

# ko_need_kver FILE KVER: die unless FILE was built for kernel KVER.
ko_need_kver() {
	_magic=$(ko_field "$1" vermagic)
	[ "${_magic%% *}" = "$2" ] && return 0
	die "$1 is built for kernel ${_magic%% *} (vermagic '$_magic'), not for $2: rebuild it against linux-headers-$2"
}

# ko_signed FILE: FILE carries a module signature.
ko_signed() {
	[ "$(tail -c 28 "$1" 2>/dev/null)" = "~Module signature appended~" ]
}

# lockdown_mode: none, integrity, confidentiality, or unknown (no
# securityfs, or no lockdown LSM).
lockdown_mode() {
	_l=$(rd /sys/kernel/security/lockdown)
	case $_l in
	*'['*']'*) _l=${_l#*[} && echo "${_l%%]*}" ;;
	*) echo unknown ;;
	esac
}

# sig_enforce: 1 if the kernel only loads validly signed modules.
sig_enforce() {
	case $(rd /sys/module/module/parameters/sig_enforce) in
	Y | 1) echo 1 ;;
	*) echo 0 ;;
	esac
}

# sig_required: 1 if unsigned modules are refused (sig_enforce, lockdown).
sig_required() {
	case $(sig_enforce),$(lockdown_mode) in
	1,* | *,integrity | *,confidentiality) echo 1 ;;
	*) echo 0 ;;
	esac
}

# ko_need_signed FILE: under signature enforcement, die on an unsigned FILE.
ko_need_signed() {
	[ "$(sig_required)" = 1 ] || return 0
	ko_signed "$1" && return 0
	die "$1 is not signed, and this kernel only loads signed modules (sig_enforce=$(sig_enforce), lockdown=$(lockdown_mode)).
  Sign it with the key DKMS uses, whose certificate is enrolled as a MOK:
    klpc sign $1
  (first time only: mokutil --import /var/lib/dkms/mok.pub, then reboot and
  confirm the enrolment)"
}

# --- state ----------------------------------------------------------------

# klpc_patches: the names of the registered klpc patches.
klpc_patches() {
	for _d in "$KLPC_SYSFS"/*/; do
		[ -f "$_d/enabled" ] && basename "$_d"
	done
	return 0
}

# lp_patches: the names of the built-in livepatch's patches.
lp_patches() {
	for _d in "$KLPC_LP"/*/; do
		[ -f "$_d/enabled" ] && basename "$_d"
	done
	return 0
}

# in_transition: the klpc patch in transition, if any (from sysfs).
in_transition() {
	for _p in $(klpc_patches); do
		[ "$(rd "$KLPC_SYSFS/$_p/transition")" = 1 ] && echo "$_p" && return 0
	done
	return 0
}

# trans_field KEY: a line of /proc/klpc/transition (root), empty if none.
trans_field() {
	{ while read -r _k _v; do
		[ "$_k" != "$1" ] || echo "$_v"
	done <"$KLPC_PROC/transition"; } 2>/dev/null || true
}

# need_patch NAME: NAME is a registered klpc patch.
need_patch() {
	[ -f "$KLPC_SYSFS/$1/enabled" ] && return 0
	core_loaded || die "no patch '$1': klpc.ko is not loaded"
	if [ -f "$KLPC_LP/$1/enabled" ]; then
		die "'$1' is a patch of the kernel's built-in livepatch, not of klpc (/sys/kernel/livepatch/$1)"
	fi
	die "no patch '$1' (klpc list shows the patches)"
}
