#!/bin/sh
# Build (once) the debug kernel of 'make vm-test KERNEL=debug' and print its
# build tree, the KDIR that klpc and the test modules are built against;
# the guest boots its arch/x86/boot/bzImage.
#
# Source: the target's Debian source package (KLPC_TARGET, make TARGET=;
# T_DEBUG_SRC in tools/targets.sh: linux-source-6.1, linux-source-6.12),
# its /usr/src/<package>.tar.xz unpacked into the cache, never into the
# repository. Configuration: 'make ARCH=x86_64 tinyconfig', then the
# fragment merged over it with scripts/kconfig/merge_config.sh; then every
# line of the fragment must be in the final .config as written (see
# verify_config), or the build stops. The fragment is vm/debug.config with
# the target's T_DEBUG_FRAG files over it (see fragment).
# One tree per (source package version, fragment): KLPC_CACHE/debug-kernel/
# <version>-<hash>/; a finished build is marked by .klpc-built in it and
# reused afterwards. An interrupted build resumes where it stopped.
#
# Usage: vm/debug-kernel.sh          build if needed; print the tree
#        vm/debug-kernel.sh --path   print the tree, build nothing
#        vm/debug-kernel.sh --config configure and verify only; print .config
#        vm/debug-kernel.sh --verify CONFIG  check CONFIG against the fragment
# Env: KLPC_CACHE (/var/cache/klpc), KLPC_JOBS (make -j, default nproc),
#      KLPC_NICE (niceness of the build, default 10: other guests go first).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tools/lib.sh
. "$HERE/../tools/lib.sh"
# shellcheck source=tools/targets.sh
. "$HERE/../tools/targets.sh"

target_load
[ -n "$T_DEBUG_SRC" ] || die "TARGET=$KLPC_TARGET has no debug kernel (tools/targets.sh)"
TARBALL=/usr/src/$T_DEBUG_SRC.tar.xz
FRAGMENT=$HERE/debug.config
# Bump when the recipe below changes the result (not for comments).
RECIPE=1
TOP=$KLPC_CACHE/debug-kernel
export ARCH=x86_64

src_version() {
	dpkg-query -W -f='${Version}' "$T_DEBUG_SRC" 2>/dev/null || true
}

# fragment: the fragment of the target, printed: vm/debug.config, then each
# T_DEBUG_FRAG file. An option such a file sets replaces the line of
# vm/debug.config for it; '# klpc-drop: CONFIG_X why' removes CONFIG_X's
# line (an option that source renamed or removed). With no T_DEBUG_FRAG it
# is vm/debug.config as it is.
fragment() {
	set --
	for f in $T_DEBUG_FRAG; do
		[ -f "$HERE/$f" ] || die "vm/$f missing (T_DEBUG_FRAG, tools/targets.sh)"
		set -- "$@" "$HERE/$f"
	done
	[ $# -gt 0 ] || {
		cat "$FRAGMENT"
		return
	}
	awk '
	function name(line) {
		if (line ~ /^CONFIG_[A-Za-z0-9_]+=/)
			return substr(line, 1, index(line, "=") - 1)
		if (line ~ /^# CONFIG_[A-Za-z0-9_]+ is not set/)
			return substr(line, 3, index(line, " is not set") - 3)
		if (line ~ /^# klpc-drop: CONFIG_[A-Za-z0-9_]+/) {
			split(line, w, /[ \t]+/)
			return w[3]
		}
		return ""
	}
	FILENAME != base { n = name($0); if (n != "") over[n] = 1; next }
	{ n = name($0); if (n == "" || !(n in over)) print }
	' base="$FRAGMENT" "$@" "$FRAGMENT"
	for f in "$@"; do
		printf '\n# --- %s (tools/targets.sh: T_DEBUG_FRAG) ---\n' "vm/${f##*/}"
		cat "$f"
	done
}

# tree_dir: the build tree for this source version and fragment (as root,
# the source package is installed first if missing, as tools/kdir.sh does
# for the headers, so that the name is right from the start).
tree_dir() {
	ver=$(src_version)
	if [ -z "$ver" ] && is_root; then
		ensure_pkgs "$T_DEBUG_SRC" xz-utils
		ver=$(src_version)
	fi
	[ -n "$ver" ] || ver=unknown
	hash=$({
		echo "recipe $RECIPE"
		echo "source $ver"
		fragment
	} | sha256sum | cut -c1-12)
	printf '%s/%s-%s\n' "$TOP" "$ver" "$hash"
}

# verify_config CONFIG: every option the fragment (FRAG_FILE) sets must
# have that value in CONFIG ("is not set" lines: must not be y or m). Prints each mismatch.
verify_config() {
	awk '
	FNR == NR {
		if ($0 ~ /^CONFIG_[A-Za-z0-9_]+=/) {
			n = index($0, "="); name = substr($0, 1, n - 1)
			want[name] = substr($0, n + 1); order[++cnt] = name
		} else if ($0 ~ /^# CONFIG_[A-Za-z0-9_]+ is not set/) {
			want[$2] = "n"; order[++cnt] = $2
		}
		next
	}
	/^CONFIG_[A-Za-z0-9_]+=/ {
		n = index($0, "="); have[substr($0, 1, n - 1)] = substr($0, n + 1)
	}
	END {
		bad = 0
		for (i = 1; i <= cnt; i++) {
			name = order[i]; w = want[name]
			h = (name in have) ? have[name] : "n"
			if (w == "n" && (h == "y" || h == "m")) {
				printf "  %s: wanted off, got %s\n", name, h; bad++
			} else if (w != "n" && h != w) {
				printf "  %s: wanted %s, got %s\n", name, w,
					(name in have) ? h : "not set"; bad++
			}
		}
		printf "%d option(s) checked, %d wrong\n", cnt, bad
		exit bad > 0
	}' "$FRAG_FILE" "$1"
}

unpack() {
	[ -f "$TARBALL" ] || die "$TARBALL missing: apt-get install $T_DEBUG_SRC"
	msg "debug kernel: unpacking $TARBALL into $1"
	rm -rf "$1.tmp"
	mkdir -p "$1.tmp"
	tar -xJf "$TARBALL" -C "$1.tmp" --strip-components=1
	touch "$1.tmp/.klpc-unpacked"
	rm -rf "$1"
	mv "$1.tmp" "$1"
}

configure() {
	dir=$1
	log=$dir/klpc-config.log
	msg "debug kernel: tinyconfig + debug.config${T_DEBUG_FRAG:+ + $T_DEBUG_FRAG}"
	cp "$FRAG_FILE" "$dir/klpc-debug.config"
	(
		cd "$dir"
		make tinyconfig
		scripts/kconfig/merge_config.sh -O . .config klpc-debug.config
	) >"$log" 2>&1 || {
		tail -n 30 "$log" >&2
		die "configuring the debug kernel failed (log: $log)"
	}
	if ! out=$(verify_config "$dir/.config"); then
		printf '%s\n' "$out" >&2
		# merge_config.sh's own words for the options that went wrong
		printf '%s\n' "$out" | sed -n 's/^  \(CONFIG_[A-Za-z0-9_]*\):.*/\1/p' |
			while read -r o; do
				grep -A 2 "for $o\b" "$log" || true
			done >&2
		die "the debug kernel's .config lacks options the fragment asks for ($dir/klpc-debug.config; log: $log)"
	fi
	msg "debug kernel: .config verified: $(printf '%s\n' "$out" | tail -n 1)"
	cp "$FRAG_FILE" "$dir/.klpc-configured"
}

# compile DIR: 'make bzImage modules', output in DIR/klpc-build.log, a
# progress line every 30 s (files compiled so far, of about as many as the
# last build compiled).
compile() {
	dir=$1
	log=$dir/klpc-build.log
	jobs=${KLPC_JOBS:-$(nproc)}
	total=$(cat "$TOP/units" 2>/dev/null || true)
	msg "debug kernel: building in $dir (-j$jobs, nice ${KLPC_NICE:-10}; log: $log)"
	start=$(date +%s)
	nice -n "${KLPC_NICE:-10}" make -C "$dir" -j"$jobs" bzImage modules \
		>"$log" 2>&1 &
	pid=$!
	# the make is killed with us
	trap 'kill "$pid" 2>/dev/null; rm -f "$FRAG_FILE"' EXIT
	trap 'exit 130' INT TERM HUP
	while kill -0 "$pid" 2>/dev/null; do
		i=0
		while [ $i -lt 30 ] && kill -0 "$pid" 2>/dev/null; do
			sleep 1
			i=$((i + 1))
		done
		kill -0 "$pid" 2>/dev/null || break
		n=$(grep -c '^  CC ' "$log" || true)
		last=$(grep '^  CC ' "$log" | tail -n 1 | awk '{ print $NF }')
		msg "debug kernel: $n${total:+/~$total} files compiled, $(($(date +%s) - start)) s: $last"
	done
	rc=0
	wait "$pid" || rc=$?
	trap 'rm -f "$FRAG_FILE"' EXIT
	if [ "$rc" -ne 0 ]; then
		grep -E -B 2 -A 6 'error|Error' "$log" | tail -n 40 >&2 || tail -n 40 "$log" >&2
		die "building the debug kernel failed (log: $log)"
	fi
	n=$(grep -c '^  CC ' "$log" || true)
	[ "$n" -lt 200 ] || echo "$n" >"$TOP/units"
	msg "debug kernel: $(make -s -C "$dir" kernelrelease) built in $(($(date +%s) - start)) s ($n files compiled)"
}

build() {
	dir=$1
	take_lock debug-kernel
	[ -f "$dir/.klpc-built" ] && return 0
	is_root || die "building the debug kernel in $KLPC_CACHE needs root"
	mkdir -p "$TOP"
	[ -f "$dir/.klpc-unpacked" ] || unpack "$dir"
	cmp -s "$FRAG_FILE" "$dir/.klpc-configured" 2>/dev/null || configure "$dir"
	[ "${2:-}" != config-only ] || return 0
	compile "$dir"
	[ -s "$dir/arch/x86/boot/bzImage" ] || die "no bzImage in $dir"
	[ -s "$dir/Module.symvers" ] || die "no Module.symvers in $dir"
	date -u +%Y-%m-%dT%H:%M:%SZ >"$dir/.klpc-built"
	prune "$dir"
}

# prune KEEP: remove the unfinished trees of earlier fragments (we hold the
# lock, so nobody is building them); finished ones stay for other branches.
prune() {
	for d in "$TOP"/*/; do
		d=${d%/}
		if [ "$d" = "$1" ] || [ ! -d "$d" ] || [ -f "$d/.klpc-built" ]; then
			continue
		fi
		msg "debug kernel: removing the unfinished tree $d"
		rm -rf "$d"
	done
}

main() {
	FRAG_FILE=$(mktemp)
	trap 'rm -f "$FRAG_FILE"' EXIT
	fragment >"$FRAG_FILE"
	case ${1:-} in
	--path)
		tree_dir
		return 0
		;;
	--verify)
		[ $# -eq 2 ] || die "usage: $0 --verify CONFIG"
		verify_config "$2"
		return
		;;
	--config)
		dir=$(tree_dir)
		build "$dir" config-only
		printf '%s\n' "$dir/.config"
		return 0
		;;
	'') ;;
	*) die "usage: $0 [--path|--config|--verify CONFIG]" ;;
	esac
	dir=$(tree_dir)
	[ -f "$dir/.klpc-built" ] || build "$dir"
	printf '%s\n' "$dir"
}

main "$@"
