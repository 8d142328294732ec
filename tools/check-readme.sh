#!/bin/sh
# Check that a README names only what exists: every `make TARGET` it shows
# is a target of the top Makefile, every `klpc COMMAND` is a command of
# cli/klpc, and cli/klpc's commands, its usage text and the man page's
# synopsis list the same commands.
# Usage: tools/check-readme.sh [README]   (default: README.md)
# Prints one line per name it cannot find; exits 1 if there is any.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
README=${1:-$ROOT/README.md}
BAD=0

bad() {
	echo "$README: $*"
	BAD=1
}

# The README's commands: its indented code lines, and its `code spans`,
# one per line, without a shell prompt.
readme_commands() {
	{
		sed -n 's/^    \(.*\)$/\1/p' "$README"
		# shellcheck disable=SC2016 # backquotes, not an expansion
		grep -o '`[^`]*`' "$README" | tr -d '`'
	} | sed -e 's/^[[:space:]]*//' -e 's/^[#$] //'
}

# The words right after COMMAND at the start of a README command;
# options and VAR=value settings are not names.
words_after() {
	readme_commands | awk -v cmd="$1" '
		$1 == cmd {
			for (i = 2; i <= NF; i++) {
				if ($i ~ /^-/ || $i ~ /=/)
					continue
				print $i
				break
			}
		}' | tr '|' '\n' | sed 's/[^a-z0-9_-].*//' | sed '/^$/d' | sort -u
}

# The top Makefile's targets (rules and .PHONY), pattern rules left out.
make_targets() {
	sed -n -e 's/^\.PHONY:\(.*\)$/\1/p' \
		-e 's/^\([a-z][a-z0-9_ .-]*\):\([^=].*\)\{0,1\}$/\1/p' \
		"$ROOT/Makefile" | tr ' ' '\n' | sed '/^$/d' | sort -u
}

# cli/klpc's commands: the case labels of its main(), options left out.
cli_commands() {
	sed -n '/^main()/,/^}/p' "$ROOT/cli/klpc" |
		sed -n 's/^[[:space:]]*\([a-z][a-z |]*\))\(.*\)$/\1/p' |
		tr -d ' ' | tr '|' '\n' | sed '/^$/d' | sort -u
}

# The commands klpc's usage text lists (its indented lines' first word).
usage_commands() {
	sh "$ROOT/cli/klpc" help | sed -n 's/^  \([a-z][a-z]*\)\([ ,].*\)\{0,1\}$/\1/p' |
		sort -u
}

# The commands in klpc.8's SYNOPSIS: ".B klpc COMMAND", and
# '.BR "klpc COMMAND" | OTHER | OTHER' for commands that share a line.
man_commands() {
	sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$ROOT/cli/klpc.8" |
		sed -n -e 's/^\.B klpc \([a-z][a-z]*\).*$/\1/p' \
			-e 's/^\.BR "klpc \([a-z][a-z]*\)"\(.*\)$/\1\2/p' |
		tr -d ' ' | tr '|' '\n' | sed '/^$/d' | sort -u
}

check_make() {
	targets=$(make_targets)
	for t in $(words_after make); do
		echo "$targets" | grep -qx "$t" || bad "make $t: no such target in Makefile"
	done
	for t in vm-demo vm-test; do
		readme_commands | grep -q "^make $t\( \|$\)" ||
			bad "the two commands: 'make $t' is not shown"
	done
}

check_klpc() {
	cmds=$(cli_commands)
	for c in $(words_after klpc); do
		echo "$cmds" | grep -qx "$c" || bad "klpc $c: cli/klpc has no such command"
	done
}

# same_list WHAT A B: the lists A and B (lines) are equal, else the diff.
same_list() {
	[ "$2" = "$3" ] && return 0
	echo "cli/klpc's commands and $1 differ:"
	echo "$2" >"$TMP/a"
	echo "$3" >"$TMP/b"
	diff "$TMP/a" "$TMP/b" || true
	BAD=1
}

# cli/klpc, its usage and klpc.8 list the same commands (help is the
# usage itself, and the man page's synopsis leaves it out).
check_cli_agrees() {
	cli=$(cli_commands | grep -vx help)
	same_list "its usage" "$cli" "$(usage_commands | grep -vx help)"
	same_list "klpc.8's synopsis" "$cli" "$(man_commands)"
}

main() {
	[ -f "$README" ] || {
		echo "no README at $README"
		exit 1
	}
	TMP=$(mktemp -d)
	trap 'rm -rf "$TMP"' EXIT
	check_make
	check_klpc
	check_cli_agrees
	[ "$BAD" -eq 0 ] || exit 1
	echo "$README: $(words_after make | wc -l) make targets and $(words_after klpc | wc -l) klpc commands, all found; cli/klpc, its usage and klpc.8 agree"
}

main "$@"
