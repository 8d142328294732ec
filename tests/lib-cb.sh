# shellcheck shell=sh
# shellcheck disable=SC2034 # variables for the tests that source this file
# Helpers for the callback tests (tests/callbacks/, the ports of
# upstream's state tests in tests/state/), sourced after lib.sh.
#
# The demo patches (tests/modules/klpc-test-cb-demo*.c) print a line per
# callback; the target modules print their init and exit.  Every step a
# test takes through these helpers is written to the kernel log first, as
# "klpc-cb: % <step>", so that cb_expect can compare the whole story since
# cb_start, steps, callbacks and klpc's own messages in order, with an
# expected list (upstream's test-callbacks.sh does the same):
#
#	cb_start
#	cb_load klpc-test-cb-mod
#	cb_expect <<'EOF'
#	% insmod klpc-test-cb-mod
#	klpc_test_cb_mod: init
#	EOF

CB_DEMO=klpc_test_cb_demo
CB_DEMO2=klpc_test_cb_demo2

# the modules whose lines cb_lines keeps (a regex; other tests set their own)
CB_MODULES='klpc_test_cb_[a-z0-9_]*'

# klpc's messages that place the callbacks: enabling, starting, completing,
# reversing, applying to and reverting from a module, replacing, failures
CB_KLPC_LINES="^klpc: (enabling patch |failed to enable patch |(applying|reverting) patch |patch '[^']*' replaced by |patch '[^']*': pre-patch callback failed|patch '[^']*' failed for module |patch '[^']*': not compatible with |'[^']*': (starting (un)?patching transition|(un)?patching complete|reversing transition))"

# cb_start: klpc loaded, none of the callback test modules loaded, the
# original /proc/cmdline in CB_CMDLINE, and the mark cb_lines starts from.
cb_start() {
	klpc_core_load
	for _m in klpc-test-cb-demo klpc-test-cb-demo2 klpc-test-cb-mod \
		klpc-test-cb-busy; do
		! is_loaded "$_m" || die "$_m is loaded already"
	done
	CB_CMDLINE=$(cat /proc/cmdline)
	dmesg_mark
}

# cb_step TEXT: log the step about to be taken.
cb_step() {
	echo "<6>klpc-cb: % $*" >/dev/kmsg
}

# cb_load MOD [PARAM=VALUE...]: insmod, which must succeed.
cb_load() {
	cb_step "insmod $*"
	load "$@"
}

# cb_load_patch MOD [PARAM=VALUE...]: insmod a patch, wait for its
# transition to end.
cb_load_patch() {
	cb_load "$@"
	wait_transition "$1"
}

# cb_load_error ERRNO MOD [PARAM=VALUE...]: insmod must fail with ERRNO.
cb_load_error() {
	_errno=$1
	shift
	cb_step "insmod $*"
	expect_load_error "$_errno" "$@"
}

# cb_unload MOD: rmmod, which must succeed.
cb_unload() {
	cb_step "rmmod $1"
	unload "$1"
}

# cb_enable PATCH / cb_disable PATCH: write enabled, wait for the
# transition to end.
cb_enable() {
	cb_step "echo 1 > $(patch_dir "$1")/enabled"
	enable_patch "$1"
}

cb_disable() {
	cb_step "echo 0 > $(patch_dir "$1")/enabled"
	disable_patch "$1"
}

# cb_write FILE VALUE: the write must succeed.
cb_write() {
	cb_step "echo $2 > $1"
	expect_write_ok "$1" "$2"
}

# cb_write_error FILE VALUE ERRNO: the write must fail with ERRNO.
cb_write_error() {
	cb_step "echo $2 > $1"
	expect_write_error "$1" "$2" "$3"
}

# cb_param MOD PARAM VALUE: set a module parameter at run time.
cb_param() {
	cb_write "/sys/module/$(modname "$1")/parameters/$2" "$3"
}

# cb_lines: the steps, the test modules' lines and klpc's placing lines
# since cb_start, without timestamps.
cb_lines() {
	dmesg_since_mark | sed 's/^\[[^]]*\] //' |
		grep -E "^klpc-cb: % |^($CB_MODULES): |$CB_KLPC_LINES" |
		sed 's/^klpc-cb: //'
}

# cb_expect: the expected lines on stdin must be exactly cb_lines.
cb_expect() {
	_want=$(cat)
	_got=$(cb_lines)
	[ "$_want" != "$_got" ] || return 0
	echo "expected kernel log lines:"
	echo "$_want" | sed 's/^/    /'
	echo "actual kernel log lines:"
	echo "$_got" | sed 's/^/    /'
	die "the callbacks ran in another order than expected"
}

# cb_assert_cmdline [PATCH]: /proc/cmdline as PATCH's replacement of
# cmdline_proc_show() shows it, or the original without PATCH.
cb_assert_cmdline() {
	_want=$CB_CMDLINE
	[ $# -eq 0 ] || _want="patched by $1"
	assert_eq "$_want" "$(cat /proc/cmdline)" "/proc/cmdline"
}

# cb_assert_mod [PATCH]: the same for /proc/klpc_cb_mod.
cb_assert_mod() {
	_want=original
	[ $# -eq 0 ] || _want="patched by $1"
	assert_file_eq /proc/klpc_cb_mod "$_want"
}

# cb_assert_state PATCH ENABLED [OBJECT PATCHED...]: PATCH is registered
# with enabled ENABLED, no transition, and each OBJECT's patched as given.
cb_assert_state() {
	_d=$(patch_dir "$1")
	assert_file_eq "$_d/enabled" "$2"
	assert_file_eq "$_d/transition" 0
	shift 2
	while [ $# -ge 2 ]; do
		assert_file_eq "$_d/$1/patched" "$2"
		shift 2
	done
}

# cb_assert_gone PATCH: PATCH is not registered.
cb_assert_gone() {
	assert_not_exists "$(patch_dir "$1")"
}
