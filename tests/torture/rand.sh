# shellcheck shell=sh
# A seeded pseudo-random sequence for the torture driver, in the shell's
# own arithmetic so that a seed replays the same operations on any guest:
# the 31-bit linear congruential generator of ANSI C's example rand(),
# whose products stay within the shell's 64-bit integers.  Never call
# these in a command substitution: the state would not advance.

# rand_seed SEED
rand_seed() {
	R_STATE=$(($1 % 2147483648))
}

# rand N: R = a number in [0, N).  The low bits of such a generator are
# poor, so the top ones are used.
rand() {
	R_STATE=$(((R_STATE * 1103515245 + 12345) % 2147483648))
	R=$(((R_STATE >> 8) % $1))
}

# rand_pick WORD...: R = one of the words.
rand_pick() {
	rand $#
	shift "$R"
	R=$1
}

# rand_weighted NAME:WEIGHT...: R = a NAME, chosen in proportion to the
# WEIGHTs (a weight of 0 never).
rand_weighted() {
	_sum=0
	for _nw in "$@"; do _sum=$((_sum + ${_nw#*:})); done
	rand "$_sum"
	_n=$R
	for _nw in "$@"; do
		_n=$((_n - ${_nw#*:}))
		if [ "$_n" -lt 0 ]; then
			R=${_nw%%:*}
			return 0
		fi
	done
}

# random_seed: a fresh seed from the kernel.
random_seed() {
	od -An -N4 -tu4 /dev/urandom | tr -d ' '
}
