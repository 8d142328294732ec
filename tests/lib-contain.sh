# shellcheck shell=sh
# shellcheck disable=SC2016 # the scripts run in the context's own shell
# Helpers of the containment tests (contain/sysfs-writes, contain/proc-reads,
# contain/cli-refusals), after lib.sh:
# run a command as someone who must not be able to change klpc.
#
# The contexts, by name:
#   user         an unprivileged user (nobody)
#   userns       root of a user namespace an unprivileged user made
#                (unshare -U -r: its uid 0 is nobody outside)
#   userns-sys   the same with its own mount and network namespaces and
#                its own sysfs mounted on /mnt (a container's /sys)
#   rootns       root of a user namespace made by root (uid 0 is uid 0
#                outside, as in a container that maps its root to the
#                host's: the files' owner, without capabilities there)
#   rootns-sys   the same with its own sysfs on /mnt
#   capless      uid 0 in the initial namespace without CAP_SYS_MODULE
#                and CAP_SYS_ADMIN (a container without a user namespace)
#   userns-proc, rootns-proc  userns and rootns with their own mount and
#                PID namespaces and their own /proc (for reads)

# ctx_usable CTX: whether this kernel can make CTX. All but user and
# capless need user namespaces, which the debug kernel lacks
# (CONFIG_USER_NS=n); there unshare's own EPERM would pass for klpc's
# refusal, and its EINVAL fail the test.
ctx_usable() {
	case $1 in
	user | capless) return 0 ;;
	esac
	[ -e /proc/self/ns/user ]
}

# ctx_list CTX...: those of CTX... that this kernel can make; the others
# are named on stderr (shown with a failing test's output).
ctx_list() {
	for _c in "$@"; do
		if ctx_usable "$_c"; then
			echo "$_c"
		else
			echo "$_c: not made: this kernel has no user namespaces" >&2
		fi
	done
}

# shellcheck disable=SC2034 # for the tests that source this file
KLPC_CONTEXTS=$(ctx_list user userns userns-sys rootns rootns-sys capless)
# shellcheck disable=SC2034
KLPC_READ_CONTEXTS=$(ctx_list user userns userns-proc rootns rootns-proc capless)

# in_ctx CTX SCRIPT [ARG...]: sh -c SCRIPT in context CTX, where $S is
# the sysfs root to use (/sys, or /mnt where the context mounts its own).
in_ctx() {
	_ctx=$1
	_script=$2
	shift 2
	case $_ctx in
	user) ctx_nobody env S=/sys sh -c "$_script" sh "$@" ;;
	userns) ctx_nobody unshare -U -r env S=/sys sh -c "$_script" sh "$@" ;;
	userns-sys) ctx_nobody unshare -U -r -m -n sh -c "$KLPC_OWN_SYSFS$_script" sh "$@" ;;
	rootns) unshare -U -r env S=/sys sh -c "$_script" sh "$@" ;;
	rootns-sys) unshare -U -r -m -n sh -c "$KLPC_OWN_SYSFS$_script" sh "$@" ;;
	userns-proc) ctx_nobody unshare -U -r -m -p -f sh -c "$KLPC_OWN_PROC$_script" sh "$@" ;;
	rootns-proc) unshare -U -r -m -p -f sh -c "$KLPC_OWN_PROC$_script" sh "$@" ;;
	capless) setpriv --bounding-set=-sys_module,-sys_admin --inh-caps=-all \
		env S=/sys sh -c "$_script" sh "$@" ;;
	*) die "in_ctx: no context '$_ctx'" ;;
	esac
}

# the prologue of a context with its own sysfs
KLPC_OWN_SYSFS='mount -t sysfs sysfs /mnt || exit 9; S=/mnt; '
# ... and of one with its own /proc
KLPC_OWN_PROC='mount -t proc proc /proc || exit 9; S=/sys; '

ctx_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

# ctx_write CTX FILE VALUE: write VALUE to sysfs FILE (a path below
# /sys) from CTX; prints the error text, returns the status.
ctx_write() {
	in_ctx "$1" 'env printf "%s\n" "$2" >"$S/$1"' "${2#/sys/}" "$3" 2>&1
}

# expect_ctx_refused CTX FILE VALUE: the write must fail with EACCES or
# EPERM (nothing else: not EINVAL, not a missing file).
expect_ctx_refused() {
	if _out=$(ctx_write "$@"); then
		die "$1: writing '$3' to $2 succeeded"
	fi
	case $_out in
	unshare:*) die "$1: the context could not be made: $_out" ;;
	*"Permission denied"* | *"Operation not permitted"*) ;;
	*) die "$1: writing '$3' to $2: expected EACCES or EPERM, got '$_out'" ;;
	esac
	info "$1: $2 <- $3: ${_out##*: }"
}

# ctx_read CTX FILE: read FILE from CTX; prints it or the error.
ctx_read() {
	in_ctx "$1" 'cat "$1"' "$2" 2>&1
}

# kernel_addresses FILE: the lines of FILE that look like kernel
# addresses (0xffff..., or 16 hex digits starting ffff).
kernel_addresses() {
	grep -Ei '(0x)?ffff[0-9a-f]{12}' "$1" || true
}
