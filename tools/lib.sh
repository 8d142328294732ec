# shellcheck shell=sh
# Host-side helpers shared by tools/*.sh, vm/*.sh and .ci/run.
# Source it; it defines functions and a few variables, and runs nothing else.

KLPC_CACHE=${KLPC_CACHE:-/var/cache/klpc}

msg() {
	printf 'klpc: %s\n' "$*" >&2
}

die() {
	msg "error: $*"
	exit 1
}

is_root() {
	[ "$(id -u)" -eq 0 ]
}

pkg_installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'
}

# apt_update: run 'apt-get update' at most once per process tree.
apt_update() {
	[ -n "${KLPC_APT_UPDATED:-}" ] && return 0
	msg "apt-get update"
	apt-get update -q >&2
	KLPC_APT_UPDATED=1
	export KLPC_APT_UPDATED
}

# ensure_pkgs PKG...: install the missing ones (root), or fail naming them.
ensure_pkgs() {
	missing=
	for p in "$@"; do
		pkg_installed "$p" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	is_root || die "missing package(s):$missing (run: apt-get install$missing)"
	apt_update
	msg "installing:$missing"
	# shellcheck disable=SC2086 # word splitting of the list is wanted
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends $missing >&2
}

# headers_kver: kernel release of the installed linux-headers-amd64,
# e.g. 6.1.0-57-amd64 (from its Depends). Empty if not installed.
headers_kver() {
	dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
		tr ',' '\n' |
		sed -n 's/^ *linux-headers-\([0-9][^ ]*\).*/\1/p' | head -n 1
}

# ensure_headers: print the kernel release, installing the headers if root.
ensure_headers() {
	kver=$(headers_kver)
	if [ -z "$kver" ]; then
		is_root || die "kernel headers missing: apt-get install linux-headers-amd64"
		ensure_pkgs linux-headers-amd64
		kver=$(headers_kver)
		[ -n "$kver" ] || die "linux-headers-amd64 names no linux-headers-<version>"
	fi
	printf '%s\n' "$kver"
}

# kdir_kver KDIR: the kernel release a build tree is for (UTS_RELEASE,
# which is what modules' vermagic carries; Debian's kernel.release differs).
kdir_kver() {
	f=$1/include/generated/utsrelease.h
	[ -r "$f" ] || die "$1 is not a prepared kernel build tree ($f missing)"
	sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$f"
}

# klpc_kver: the guest kernel release. From KLPC_KDIR if set (so a KDIR
# override is honoured), else from the linux-headers-amd64 package.
klpc_kver() {
	if [ -n "${KLPC_KDIR:-}" ]; then
		kdir_kver "$KLPC_KDIR"
	else
		ensure_headers
	fi
}

# filter_wants DIR GLOB: a test of DIR (tests/) whose name matches GLOB
# (tests/select.sh: build/*, parity/upstream-selftests-replayed) is one
# the run's filter (KLPC_FILTER; none: every test) selects.
filter_wants() {
	# shellcheck source=tests/select.sh
	. "$1/select.sh"
	for _t in $(klpc_tests "$1"); do
		klpc_glob_matches "$_t" "$2" || continue
		klpc_selected "$_t" "${KLPC_FILTER:-}" && return 0
	done
	return 1
}

# in_lanes CMD ARG...: the lines on stdin dealt over one lane per core,
# each lane a CMD ARG... in the background reading its share on stdin;
# returns when every lane has (klpc build's test builds: much of a build
# is one process at a time).
in_lanes() {
	_lines=$(cat)
	_lanes=$(nproc)
	_lane=0
	while [ "$_lane" -lt "$_lanes" ]; do
		printf '%s\n' "$_lines" |
			awk -v n="$_lanes" -v i="$_lane" 'NF && NR % n == i' | "$@" &
		_lane=$((_lane + 1))
	done
	wait
}

# Host test scripts (klp-build/*/check-*.sh): cases_start FILE, then a
# case_result line per case (cases run in lanes, subshells, write to the
# same FILE), then cases_summary.

# cases_start FILE: each case's line goes into FILE too (emptied now)
cases_start() {
	CASES=$1
	: >"$CASES"
}

# case_result ok|fail NAME [WHY]: "ok: NAME" or "FAIL: NAME: WHY"
case_result() {
	if [ "$1" = ok ]; then
		echo "ok: $2"
	else
		echo "FAIL: $2: $3"
	fi | tee -a "$CASES"
}

# cases_summary WHAT: "WHAT: N passed, N failed"; fails when a case
# failed or none passed
cases_summary() {
	_passed=$(grep -c '^ok: ' "$CASES") || true
	_failed=$(grep -c '^FAIL: ' "$CASES") || true
	echo "$1: $_passed passed, $_failed failed"
	[ "$_failed" -eq 0 ] && [ "$_passed" -gt 0 ]
}

# take_lock NAME: hold an exclusive lock in the cache (fd 9) until exit,
# so two runs never build the same cached file at once.
take_lock() {
	mkdir -p "$KLPC_CACHE"
	exec 9>"$KLPC_CACHE/$1.lock"
	if ! flock -n 9; then
		msg "waiting for another run holding $KLPC_CACHE/$1.lock"
		flock 9
	fi
}

# stop_qemu: kill the QEMU whose pid is in $QEMU_PIDFILE, if it still runs
# (vm/run.sh and vm/pkg-test.sh, on exit or timeout), and remove the file.
stop_qemu() {
	[ -n "${QEMU_PIDFILE:-}" ] && [ -s "$QEMU_PIDFILE" ] || return 0
	_qpid=$(cat "$QEMU_PIDFILE")
	if kill -0 "$_qpid" 2>/dev/null; then
		msg "stopping QEMU (pid $_qpid)"
		kill "$_qpid" 2>/dev/null || true
		sleep 2
		kill -9 "$_qpid" 2>/dev/null || true
	fi
	rm -f "$QEMU_PIDFILE"
}
