# shellcheck shell=bash
# Sourced by vm/run.sh: the test run split over KLPC_SHARDS guests booted
# side by side (make vm-test SHARDS=N), for hosts with a core per guest.
# Under TCG a guest is one host thread, so N cores run N guests in about
# 1/N of the time; the debug kernel's suite takes hours in one guest.
#
# Tests are placed whole, by weight, heaviest first, each on the shard
# with the least weight so far. A test's weight under Debian's kernels is
# its line in tests/weights.txt (seconds measured in whole runs, made by
# tools/weights.sh); under the debug kernel, or for a test the table does
# not list, its '# klpc-weight:' (the seconds it took under the debug
# kernel, where that is far from its timeout), else its '# klpc-timeout:'
# (default 120). Tests that must share a guest and keep their order say
# so with a line '# klpc-group: NAME': the fault sweep's (its summary
# sums up the others' tallies) and the tail that leaves state for good
# (rmmod -f, force, sig_enforce). Each guest runs its tests in the usual
# sorted order, so a shard's tests run as they would in one guest without
# the others.
# A test is named AREA/NAME (tests/select.sh); a shard's list of names is
# its guest's filter.
# Tests booted apart ('# klpc-boot:', vm/secure.sh) are left out of the
# plan; their guest boots beside the shards.

SHARD_PIDFILES=()

# selected_tests: the names of the tests KLPC_FILTER selects, in the order
# the guest runs them (tests/select.sh: the runner's own answer).
selected_tests() {
	local name
	for name in $(klpc_tests "$ROOT/tests"); do
		klpc_selected "$name" "${KLPC_FILTER:-}" && echo "$name"
	done
	return 0
}

# shard_header FILE KEY DEFAULT: the value of a '# KEY: VALUE' line.
shard_header() {
	local v
	v=$(sed -n "s/^# *$2: *\([^ ]*\).*/\1/p" "$1" | head -n 1)
	echo "${v:-$3}"
}

# shard_weights: the measured table into the array WEIGHT (name ->
# seconds); left empty under the debug kernel, whose times differ.
shard_weights() {
	local name secs
	WEIGHT=()
	[ "$DEBUG" -eq 0 ] && [ -f "$ROOT/tests/weights.txt" ] || return 0
	while read -r name secs; do
		WEIGHT[$name]=$secs
	done < <(grep -v '^#' "$ROOT/tests/weights.txt")
}

# shard_plan N DIR: write DIR/shard-I.list (test names, one per line, for
# I = 1..N) from the tests KLPC_FILTER selects. Prints the weights.
shard_plan() {
	local n=$1 dir=$2 t name group i best w
	local -A gweight=() gtests=() WEIGHT=()
	local -a load=()
	shard_weights
	for name in $(usual_tests); do
		t=$ROOT/tests/$name.sh
		group=$(shard_header "$t" klpc-group "$name")
		w=${WEIGHT[$name]:-$(shard_header "$t" klpc-weight \
			"$(shard_header "$t" klpc-timeout 120)")}
		gweight[$group]=$((${gweight[$group]:-0} + w))
		gtests[$group]="${gtests[$group]:-} $name"
	done
	[ ${#gweight[@]} -gt 0 ] || [ -n "$BOOTS_APART" ] ||
		die "no test matches '${KLPC_FILTER:-*}'"
	for ((i = 1; i <= n; i++)); do
		load[i]=0
		: >"$dir/shard-$i.list"
	done
	while read -r _ group; do
		best=1
		for ((i = 2; i <= n; i++)); do
			[ "${load[i]}" -lt "${load[best]}" ] && best=$i
		done
		load[best]=$((load[best] + gweight[$group]))
		# shellcheck disable=SC2086 # a list of names
		printf '%s\n' ${gtests[$group]} >>"$dir/shard-$best.list"
	done < <(for group in "${!gweight[@]}"; do
		echo "${gweight[$group]} $group"
	done | sort -k1,1nr -k2,2)
	for ((i = 1; i <= n; i++)); do
		sort -o "$dir/shard-$i.list" "$dir/shard-$i.list"
		msg "shard $i: $(wc -l <"$dir/shard-$i.list") test(s), weight ${load[i]}"
	done
}

stop_shards() {
	local f
	for f in "${SHARD_PIDFILES[@]}"; do
		QEMU_PIDFILE=$f stop_qemu
	done
}

# shard_boot I KVER KERNEL BASE DIR: build shard I's initrd (its test list
# as /klpc/filter) and boot it in the background, console to DIR/log.raw;
# QEMU's status goes to DIR/qrc.
shard_boot() {
	local i=$1 dir=$5
	mkdir -p "$dir"
	SHARD_FILTER=$(paste -s -d, "$dir/../shard-$i.list")
	make_initrd "$dir" "$2" test "$4"
	# shellcheck disable=SC2034 # read by build_overlay (vm/run.sh)
	SHARD_FILTER=
	SHARD_PIDFILES+=("$dir/qemu.pid")
	(
		# shellcheck disable=SC2034 # boot's pidfile (vm/run.sh)
		QEMU_PIDFILE=$dir/qemu.pid
		boot test "$3" "$dir/initrd.img" "$dir/log.raw" quiet >"$dir/qrc"
	) &
}

# shard_report I DIR: shard I's tests as the guest printed them; prints
# its "PASSED FAILED SKIPPED" with the host's failures counted.
shard_report() {
	local log=$2/log bad
	tr -d '\r' <"$2/log.raw" >"$log"
	rm -f "$2/log.raw"
	{
		echo "=== shard $1 ($(wc -l <"$2/../shard-$1.list") tests), console log $log"
		sed -n '/^klpc tests:/,/^KLPC-VM: END/p' "$log"
	} >&2
	bad=$(scan_log "$log" "$(cat "$2/qrc" 2>/dev/null || echo 1)" test)
	test_counts "$log" "$bad"
}

# run_shards KVER KERNEL BASE DIR: the test run over KLPC_SHARDS guests;
# prints the sum of their summaries, the last line exactly
# "N passed, N failed".
run_shards() {
	local n=$KLPC_SHARDS dir=$4 i p f k passed=0 failed=0 skipped=0
	rm -rf "$dir"
	mkdir -p "$dir"
	shard_plan "$n" "$dir"
	trap stop_shards EXIT
	trap 'exit 130' INT TERM HUP
	# a shard without tests boots nothing (an empty list is no filter)
	for ((i = 1; i <= n; i++)); do
		[ -s "$dir/shard-$i.list" ] || continue
		shard_boot "$i" "$1" "$2" "$3" "$dir/s$i"
	done
	# the Secure Boot guest (vm/secure.sh), beside the shards
	if [ -n "$BOOTS_APART" ]; then
		boot_apart_tests secure >"$dir/shard-secure.list"
		secure_prepare "$dir/ssecure" "$2"
		BOOT_KIND=secure
		shard_boot secure "$1" "$dir/ssecure/vmlinuz" "$3" "$dir/ssecure"
		# shellcheck disable=SC2034 # read by build_overlay and boot (vm/run.sh)
		BOOT_KIND=
	fi
	wait
	stop_shards
	for i in $(seq 1 "$n") secure; do
		[ -s "$dir/shard-$i.list" ] || continue
		read -r p f k < <(shard_report "$i" "$dir/s$i")
		msg "shard $i: $p passed, $f failed, $k skipped"
		passed=$((passed + p))
		failed=$((failed + f))
		skipped=$((skipped + k))
	done
	summary_line "$passed" "$failed" "$skipped"
	[ "$failed" -eq 0 ]
}
