#!/bin/sh
# was t-62-shadow-bad-input
# Shadow variable calls that must fail cleanly (the test module checks the
# results and fails its load otherwise): a duplicate alloc gives NULL and
# exactly one klpc error line naming the id, no WARNING; a failing
# constructor gives NULL, one line naming id and error, and no entry;
# freeing what does not exist calls no destructor.
set -eu
# shellcheck source=tests/lib.sh
. "${0%/*}/../lib.sh"
# shellcheck source=tests/lib-shadow.sh
. "${0%/*}/../lib-shadow.sh"

expected_log() {
	cat <<'LOG'
duplicate alloc of id 0x5a5a follows
duplicate: alloc returned NULL, get_or_alloc the original
failing constructor for id 0xbad1 follows
failing constructor for id 0xbad2 follows
failing constructors: NULL, no entry left
free of missing variables: no destructor call
zeroed data without constructor, atomic alloc and free
free: destructor called once
all checks passed; 0 variable(s) left behind
LOG
}

klpc_core_load
dmesg_mark
load klpc-test-shadow-bad
assert_same_text "$(expected_log)" "$(module_log klpc-test-shadow-bad)" \
	"the test module's kernel log"

lines=$(klpc_shadow_lines)
info "$lines"
assert_eq 3 "$(count_lines "$lines")" "klpc's shadow variable lines"
dup=$(printf '%s\n' "$lines" | grep -E '^klpc: shadow variable <[^>]*, id 0x5a5a> exists already$') ||
	die "no duplicate line naming id 0x5a5a: $lines"
assert_eq 1 "$(count_lines "$dup")" "duplicate lines"
printf '%s\n' "$lines" | grep -Eq '^klpc: shadow variable <[^>]*, id 0xbad1>: constructor failed \(-5\)$' ||
	die "no constructor failure line for id 0xbad1 (-EIO): $lines"
printf '%s\n' "$lines" | grep -Eq '^klpc: shadow variable <[^>]*, id 0xbad2>: constructor failed \(-28\)$' ||
	die "no constructor failure line for id 0xbad2 (-ENOSPC): $lines"

# the duplicate line comes right after the module announced it
dmesg_since_mark | sed 's/^\[[^]]*\] *//' |
	grep -A1 'duplicate alloc of id 0x5a5a follows' | tail -n 1 |
	grep -q 'id 0x5a5a> exists already' ||
	die "the duplicate line does not follow the duplicate alloc"

unload klpc-test-shadow-bad
dmesg_mark
unload klpc
assert_eq "" "$(klpc_shadow_lines)" "klpc's messages at unload"
