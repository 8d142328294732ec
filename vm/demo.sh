#!/bin/sh
# Guest demo: load klpc and its sample patch, show /proc/cmdline patched and
# restored, unload both. Prints KLPC-DEMO: OK or KLPC-DEMO: FAILED at the end.
set -eu

MODDIR=${KLPC_DIR:-/klpc}/modules
PATCH=klpc_sample
PDIR=/sys/kernel/klpc/$PATCH
PATCHED='this has been live patched by klpc'
FAILED=0

heading() {
	printf '\n===== %s\n' "$*"
}

# run CMD...: show a command, then run it; its failure is a demo failure.
run() {
	echo "# $*"
	"$@" || fail "'$*' exited with status $?"
}

fail() {
	echo "KLPC-DEMO: check failed: $*"
	FAILED=1
}

check_eq() {
	if [ "$1" = "$2" ]; then
		echo "ok: $3 is '$2'"
	else
		fail "$3: expected '$1', got '$2'"
	fi
}

show() {
	echo "# cat $1"
	cat "$1" || fail "cannot read $1"
}

# wait_transition: poll $PDIR/transition until it reads 0 (at most 60 s).
wait_transition() {
	[ -e "$PDIR/transition" ] || {
		fail "$PDIR/transition does not exist"
		return 0
	}
	i=0
	while [ "$(cat "$PDIR/transition" 2>/dev/null)" != 0 ]; do
		i=$((i + 1))
		if [ $i -gt 600 ]; then
			fail "transition still '$(cat "$PDIR/transition" 2>&1)' after 60 s"
			return 0
		fi
		sleep 0.1
	done
	echo "transition reached 0 after ~$((i / 10)).$((i % 10)) s"
}

loaded() {
	grep -q "^$1 " /proc/modules
}

main() {
	heading "klpc demo on $(uname -r)"
	orig=$(cat /proc/cmdline)

	heading "load the klpc core"
	run insmod "$MODDIR/klpc.ko"
	show /proc/cmdline

	heading "load the sample patch (patches cmdline_proc_show)"
	run insmod "$MODDIR/klpc-sample.ko"
	show /proc/cmdline
	show "$PDIR/enabled"
	show "$PDIR/transition"
	wait_transition
	check_eq 1 "$(cat "$PDIR/enabled" 2>&1)" "$PDIR/enabled"
	show /proc/cmdline
	check_eq "$PATCHED" "$(cat /proc/cmdline)" "/proc/cmdline (patched)"

	heading "disable the patch"
	echo "# echo 0 > $PDIR/enabled"
	echo 0 >"$PDIR/enabled" || fail "disabling $PATCH failed"
	show "$PDIR/transition"
	wait_transition
	show /proc/cmdline
	check_eq "$orig" "$(cat /proc/cmdline)" "/proc/cmdline (original)"

	heading "unload"
	run rmmod "$PATCH"
	run rmmod klpc
	if loaded klpc || loaded "$PATCH"; then
		fail "modules still loaded: $(grep '^klpc' /proc/modules)"
	else
		echo "ok: klpc and $PATCH unloaded"
	fi

	heading "kernel log (klpc)"
	dmesg | grep -i klpc | grep -iv 'command line' || echo "(no klpc lines in dmesg)"
}

main "$@" || fail "demo script stopped early (status $?)"
if [ "$FAILED" -eq 0 ]; then
	echo "KLPC-DEMO: OK"
else
	echo "KLPC-DEMO: FAILED"
	exit 1
fi
