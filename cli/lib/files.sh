# shellcheck shell=sh
# klpc(8): install, uninstall, info, boot, sign, symvers: patch files.

# parse_kver_opts CMD ARGS...: OPT_ARG and OPT_KVER (-k KVER).
parse_kver_opts() {
	_cmd=$1
	shift
	OPT_ARG=
	OPT_KVER=$(uname -r)
	while [ $# -gt 0 ]; do
		case $1 in
		-k | --kernel)
			need_arg "$@"
			OPT_KVER=$2
			shift
			;;
		-*) usage_error "$_cmd: unknown option '$1'" ;;
		*)
			[ -z "$OPT_ARG" ] || usage_error "$_cmd: one patch at a time"
			OPT_ARG=$1
			;;
		esac
		shift
	done
	[ -n "$OPT_ARG" ] || usage_error "$_cmd: which patch?"
	case $OPT_KVER in
	'' | */* | .*) usage_error "$_cmd: '$OPT_KVER' is not a kernel release" ;;
	esac
}

# order_drop FILE NAME: NAME's line out of the order file.
order_drop() {
	[ -f "$1" ] || return 0
	grep -vxF "$2" "$1" >"$1.tmp" || true
	mv "$1.tmp" "$1"
}

cmd_install() {
	parse_kver_opts install "$@"
	[ ! -f "$OPT_ARG" ] || ko_info "$OPT_ARG"
	action install "$(modname "$OPT_ARG")"
	need_root install
	ko_check "$OPT_ARG"
	_name=$(modname "$OPT_ARG")
	ko_need_patch "$OPT_ARG"
	ko_need_kver "$OPT_ARG" "$OPT_KVER"
	if [ "$OPT_KVER" = "$(uname -r)" ] && [ "$(sig_required)" = 1 ] && ! ko_signed "$OPT_ARG"; then
		warn "$OPT_ARG is not signed and this kernel loads signed modules only: klpc sign it"
	fi
	_dir=$KLPC_LIBDIR/$OPT_KVER
	mkdir -p "$_dir"
	cp "$OPT_ARG" "$_dir/.$_name.ko.tmp"
	mv "$_dir/.$_name.ko.tmp" "$_dir/$_name.ko"
	grep -qxF "$_name" "$_dir/order" 2>/dev/null || echo "$_name" >>"$_dir/order"
	action_log ok "kver=$OPT_KVER file=$_dir/$_name.ko"
	echo "klpc: $_name: installed for $OPT_KVER ($_dir/$_name.ko), loaded at boot by klpc.service"
}

cmd_uninstall() {
	parse_kver_opts uninstall "$@"
	action uninstall "$(modname "$OPT_ARG")"
	need_root uninstall
	_name=$(modname "$OPT_ARG")
	_dir=$KLPC_LIBDIR/$OPT_KVER
	[ -f "$_dir/$_name.ko" ] || die "no patch '$_name' installed for $OPT_KVER (in $_dir)"
	rm -f "$_dir/$_name.ko"
	order_drop "$_dir/order" "$_name"
	action_log ok "kver=$OPT_KVER"
	echo "klpc: $_name: uninstalled for $OPT_KVER"
	if [ "$OPT_KVER" = "$(uname -r)" ] && is_loaded "$_name"; then
		echo "klpc: $_name is still loaded: 'klpc unload $_name' removes it"
	fi
}

# --- info -----------------------------------------------------------------

# info_file ARG: the .ko file ARG names: itself, the installed one, the one
# 'klpc load' loaded it from, or the one in /lib/modules.
info_file() {
	case $1 in
	*/* | *.ko)
		ko_check "$1"
		echo "$1"
		return 0
		;;
	esac
	_n=$(modname "$1")
	for _f in "$KLPC_LIBDIR/$(uname -r)/$_n.ko" "$(rd "$KLPC_RUNDIR/$_n.path")" \
		"$(modinfo -F filename "$_n" 2>/dev/null || true)"; do
		[ -n "$_f" ] && [ -f "$_f" ] && echo "$_f" && return 0
	done
	return 0
}

# installed_kvers NAME: the kernels NAME is installed for.
installed_kvers() {
	for _f in "$KLPC_LIBDIR"/*/"$1.ko"; do
		[ -f "$_f" ] || continue
		_k=${_f%/*}
		printf '%s ' "${_k##*/}"
	done
}

# info_state NAME: its patch state, or "not loaded".
info_state() {
	if [ -f "$KLPC_SYSFS/$1/enabled" ]; then
		patch_state klpc "$1"
	elif [ -f "$KLPC_LP/$1/enabled" ]; then
		echo "$(patch_state livepatch "$1") (built-in livepatch)"
	else
		echo "not loaded"
	fi
}

mi() {
	ko_field "$1" "$2"
}

info_text() {
	echo "patch:        $2"
	echo "file:         ${1:-(unknown)}"
	echo "state:        $(info_state "$2")"
	_ik=$(installed_kvers "$2")
	echo "installed:    ${_ik:-(not installed)}"
	[ -n "$1" ] || return 0
	echo "description:  $(mi "$1" description)"
	echo "fixes:        $(mi "$1" klpc_desc)"
	echo "cve:          $(mi "$1" klpc_cve | tr '\n' ' ')"
	echo "ref:          $(mi "$1" klpc_ref | tr '\n' ' ')"
	echo "vermagic:     $(mi "$1" vermagic)"
	if ko_signed "$1"; then
		echo "signed:       yes, by $(mi "$1" signer) (key $(mi "$1" sig_key | tr -d '\n'))"
	else
		echo "signed:       no"
	fi
	echo "modinfo:"
	ko_info "$1"
	printf '%s\n' "$KO_INFO" | sed 's/^/    /'
}

# json_list: stdin's lines as a JSON array of strings.
json_list() {
	printf '['
	_sep=
	while IFS= read -r _l; do
		[ -n "$_l" ] || continue
		printf '%s%s' "$_sep" "$(json_str "$_l")"
		_sep=,
	done
	printf ']'
}

info_json() {
	printf '{"name":%s,"file":' "$(json_str "$2")"
	if [ -n "$1" ]; then json_str "$1"; else printf null; fi
	printf ',"state":%s,"installed":' "$(json_str "$(info_state "$2")")"
	installed_kvers "$2" | tr ' ' '\n' | json_list
	if [ -n "$1" ]; then
		printf ',"description":%s,"klpc_desc":%s,"cve":' \
			"$(json_str "$(mi "$1" description)")" "$(json_str "$(mi "$1" klpc_desc)")"
		mi "$1" klpc_cve | json_list
		printf ',"ref":'
		mi "$1" klpc_ref | json_list
		printf ',"vermagic":%s,"signed":%s,"signer":%s' \
			"$(json_str "$(mi "$1" vermagic)")" \
			"$(ko_signed "$1" && echo true || echo false)" \
			"$(json_str "$(mi "$1" signer)")"
	fi
	printf '}\n'
}

cmd_info() {
	_json=0
	_arg=
	for _a in "$@"; do
		case $_a in
		--json) _json=1 ;;
		-*) usage_error "info: unknown option '$_a'" ;;
		*) _arg=$_a ;;
		esac
	done
	[ -n "$_arg" ] || usage_error "info: which patch?"
	_file=$(info_file "$_arg")
	[ -z "$_file" ] || ko_info "$_file"
	_name=$(modname "${_file:-$_arg}")
	if [ -z "$_file" ] && [ "$(info_state "$_name")" = "not loaded" ]; then
		die "no patch '$_arg': not loaded, not installed for $(uname -r), no such file"
	fi
	if [ $_json = 1 ]; then info_json "$_file" "$_name"; else info_text "$_file" "$_name"; fi
}

# --- boot -----------------------------------------------------------------

# boot_one NAME FILE: load an installed patch; prints ok, skip or fail.
boot_one() {
	if is_loaded "$1"; then
		echo "klpc: boot: $1: already loaded" >&2
		echo skip
	elif [ ! -f "$2" ]; then
		err "boot: $1: $2 is missing"
		klog load "$1" failed "installed, but $2 is missing"
		echo fail
	elif (cmd_load "$2" --wait "${KLPC_BOOT_WAIT:-60}") >&2; then
		echo ok
	else
		echo fail
	fi
}

cmd_boot() {
	[ $# -eq 0 ] || usage_error "boot takes no arguments"
	action boot
	need_root boot
	case " $(cat "${KLPC_CMDLINE:-/proc/cmdline}") " in
	*" klpc.enable=0 "*)
		echo "klpc: boot: klpc.enable=0 on the kernel command line: nothing loaded"
		action_log skipped "klpc.enable=0"
		return 0
		;;
	esac
	_dir=$KLPC_LIBDIR/$(uname -r)
	ensure_core
	_ok=0
	_skip=0
	_fail=0
	for _n in $(cat "$_dir/order" 2>/dev/null || true); do
		case $(boot_one "$_n" "$_dir/$_n.ko") in
		ok) _ok=$((_ok + 1)) ;;
		skip) _skip=$((_skip + 1)) ;;
		*) _fail=$((_fail + 1)) ;;
		esac
	done
	_sum="$_ok loaded, $_skip already loaded, $_fail failed (installed for $(uname -r): $((_ok + _skip + _fail)))"
	echo "klpc: boot: $_sum"
	if [ $_fail -gt 0 ]; then
		action_log failed "$_sum"
		exit "$KLPC_ERR"
	fi
	action_log ok "$_sum"
}

# --- sign -----------------------------------------------------------------

# sign_file: Debian's sign-file (linux-kbuild), or $KLPC_SIGN_FILE.
sign_file() {
	for _s in ${KLPC_SIGN_FILE:-} /usr/lib/linux-kbuild-6.1/scripts/sign-file \
		"/usr/src/linux-headers-$(uname -r)/scripts/sign-file" \
		/usr/src/linux-headers-*/scripts/sign-file; do
		[ -x "$_s" ] && echo "$_s" && return 0
	done
	return 0
}

# sig_strip FILE: remove FILE's signature (to sign it again).
sig_strip() {
	# struct module_signature (12 bytes, sig_len big-endian last) + magic
	_len=$(tail -c 32 "$1" | head -c 4 | od -An -tu1 |
		awk '{ print (($1 * 256 + $2) * 256 + $3) * 256 + $4 }')
	_size=$(wc -c <"$1")
	truncate -s $((_size - _len - 40)) "$1"
}

cmd_sign() {
	_file=
	_key=${KLPC_MOK_KEY:-/var/lib/dkms/mok.key}
	_cert=${KLPC_MOK_CERT:-/var/lib/dkms/mok.pub}
	while [ $# -gt 0 ]; do
		case $1 in
		--key) need_arg "$@" && _key=$2 && shift ;;
		--cert) need_arg "$@" && _cert=$2 && shift ;;
		-*) usage_error "sign: unknown option '$1'" ;;
		*) _file=$1 ;;
		esac
		shift
	done
	[ -n "$_file" ] || usage_error "sign: which module?"
	action sign "$(modname "$_file")"
	ko_check "$_file"
	_sf=$(sign_file)
	# each kernel's headers bring their own linux-kbuild (6.12's is not -6.1)
	[ -n "$_sf" ] || die "Debian's sign-file is missing: apt install linux-headers-$(uname -r) (its linux-kbuild package has it)"
	[ -e "$_key" ] || die "no signing key $_key: DKMS creates /var/lib/dkms/mok.key and mok.pub when it builds its first module (or give --key and --cert)"
	[ -r "$_key" ] || die "cannot read the signing key $_key: run as root"
	[ -r "$_cert" ] || die "no readable certificate $_cert (give --cert)"
	_name=$(modname "$_file")
	! ko_signed "$_file" || sig_strip "$_file"
	_out=$("$_sf" "${KLPC_SIG_HASH:-sha256}" "$_key" "$_cert" "$_file" 2>&1) || _out="${_out:-failed}"
	if ! ko_signed "$_file" || [ -n "$_out" ]; then
		die "sign-file failed on $_file: ${_out:-no signature appended}"
	fi
	action_log ok "signer=$(mi "$_file" signer)"
	echo "klpc: $_file: signed by $(mi "$_file" signer)"
}

# --- symvers --------------------------------------------------------------

# cmd_symvers [KLPC.KO]: klpc's Module.symvers lines, read from a built
# klpc.ko (its __kcrctab sections), for KBUILD_EXTRA_SYMBOLS.
cmd_symvers() {
	_ko=${1:-$(core_file)}
	[ -n "$_ko" ] || _ko=$(modinfo -F filename klpc 2>/dev/null) ||
		die "klpc.ko is missing: give its path (klpc symvers /path/to/klpc.ko)"
	ko_check "$_ko"
	command -v objdump >/dev/null || die "objdump is missing: apt install binutils"
	# DKMS compresses klpc.ko as the kernel's own modules are (Debian 13:
	# klpc.ko.xz): read the module itself
	case $_ko in
	*.xz | *.zst)
		_raw=$(mktemp)
		# shellcheck disable=SC2064 # the name is fixed now
		trap "rm -f '$_raw'" EXIT
		case $_ko in
		*.xz) xz -dc "$_ko" >"$_raw" || die "cannot decompress $_ko (xz-utils)" ;;
		*) zstd -qdc "$_ko" >"$_raw" || die "cannot decompress $_ko (zstd)" ;;
		esac
		_ko=$_raw
		;;
	esac
	_secs=$(objdump -h "$_ko" | awk '$2 ~ /^__kcrctab/ { print $2, $6 }')
	[ -n "$_secs" ] || die "$_ko exports no versioned symbol (no __kcrctab section)"
	objdump -t "$_ko" | awk '$NF ~ /^__crc_/ { print $1, $(NF - 2), substr($NF, 7) }' |
		while read -r _off _sec _sym; do
			_base=$(echo "$_secs" | awk -v s="$_sec" '$1 == s { print $2 }')
			[ -n "$_base" ] || continue
			_crc=$(od -An -tx4 -j $((0x$_base + 0x$_off)) -N 4 "$_ko" | tr -d ' ')
			_type=EXPORT_SYMBOL
			[ "$_sec" != __kcrctab_gpl ] || _type=EXPORT_SYMBOL_GPL
			printf '0x%s\t%s\tklpc\t%s\t\n' "$_crc" "$_sym" "$_type"
		done
}

# cmd_build ARGS: klpc build, the patch generator (klp-build/klpc-build,
# installed in $KLPC_SHARE/build/): it runs as the calling user, needs no
# core loaded, and exits 1 on a refusal, 2 on a usage error.
cmd_build() {
	_kb=$KLPC_SHARE/../klp-build/klpc-build
	[ -x "$_kb" ] || _kb=$KLPC_SHARE/build/klpc-build
	[ -x "$_kb" ] || die "klpc build is missing ($_kb): install klpc-tools"
	exec "$_kb" "$@"
}
