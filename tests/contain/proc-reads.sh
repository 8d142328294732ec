#!/bin/sh
# was t-2c-contain-proc
# Containment of what klpc shows: during a transition a sleeper holds,
# /proc/klpc/{tasks,stats,transition} hold no kernel address and only
# root of the initial user namespace reads them: nobody, root of a user
# namespace (made by a user or by root, with its own PID namespace and
# /proc or not) and a root without CAP_SYS_ADMIN get EACCES or EPERM
# (/proc/klpc/tasks names other tasks: their pids, names and the patched
# function on their stacks). The world-readable sysfs files show only
# their 0/1/yes/no, to everyone.
# klpc-timeout: 180
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-contain.sh
. "${0%/*}/../lib-contain.sh"

# no_addresses FILE WHAT: FILE shows no kernel address
no_addresses() {
	_a=$(kernel_addresses "$1")
	[ -z "$_a" ] || die "$2 shows kernel addresses: $_a"
}

# expect_read_refused CTX FILE: reading FILE from CTX fails with EACCES
# or EPERM and shows nothing of it
expect_read_refused() {
	if _out=$(ctx_read "$1" "$2"); then
		die "$1 read $2: $_out"
	fi
	case $_out in
	unshare:*) die "$1: the context could not be made: $_out" ;;
	*": Permission denied" | *": Operation not permitted") ;;
	*) die "$1 reading $2: expected EACCES or EPERM, got '$_out'" ;;
	esac
	info "$1: $2: ${_out##*: }"
}

klpc_core_load
load_cm_patch_blocked
sleeper=$SLEEPER

# what root sees
for f in tasks stats transition; do
	cat "/proc/klpc/$f" >"$KLPC_TMP/$f"
	no_addresses "$KLPC_TMP/$f" "/proc/klpc/$f"
done
grep -Eq "^$sleeper cat unpatched klpc_cm_sleeper$" "$KLPC_TMP/tasks" ||
	die "root does not see the sleeper: $(cat "$KLPC_TMP/tasks")"
grep -q '^patch klpc_cm_patch$' "$KLPC_TMP/transition" ||
	die "/proc/klpc/transition: $(cat "$KLPC_TMP/transition")"

# what the others see
for ctx in $KLPC_READ_CONTEXTS; do
	for f in tasks stats transition; do
		expect_read_refused "$ctx" "/proc/klpc/$f"
	done
done

# sysfs: 0/1/yes/no only, the same to everyone
find "$KLPC_SYSFS" -type f -perm -0444 | sort >"$KLPC_TMP/readable"
[ -s "$KLPC_TMP/readable" ] || die "no readable file in $KLPC_SYSFS"
while read -r f; do
	v=$(cat "$f")
	case $v in 0 | 1 | yes | no) ;; *) die "$f shows '$v'" ;; esac
	for ctx in $(ctx_list user rootns); do
		assert_eq "$v" "$(ctx_read "$ctx" "$f")" "$f read by $ctx"
	done
done <"$KLPC_TMP/readable"

write_sysfs 1 /proc/klpc_cm_sleep
wait "$sleeper"
wait_transition klpc_cm_patch
disable_patch klpc_cm_patch
unload klpc-cm-patch
unload klpc-cm-target
unload klpc
