# kallsyms.awk - where a unit's symbols are in the running vmlinux
#
#	awk -f kallsyms.awk WANT ANCHORS KALLSYMS
#
# WANT lists names, ANCHORS the names the unit defines, KALLSYMS is the
# target's /proc/kallsyms (address order; vmlinux's lines have 3 fields).
# For each wanted name vmlinux has, prints
#
#	NAME COUNT POS GAP
#
# COUNT: how many symbols of that name vmlinux has; POS: the rank of the
# unit's one among them (sympos), 0 when unique, "?" when it cannot be
# told; GAP: the bytes from it to the next symbol's address (its size and
# the padding after it), "?" when POS is.  The unit's one is the one whose
# nearest neighbours of a unique name, before or after it, the unit
# defines: a unit's code and data are contiguous in vmlinux.

# the value of the last 8 hex digits of an address (mawk has no strtonum)
function low32(a,   v, i) {
	v = 0
	a = substr(a, length(a) - 7)
	for (i = 1; i <= 8; i++)
		v = v * 16 + index("0123456789abcdef", substr(a, i, 1)) - 1
	return v
}

# is symbol k the unit's: its nearest uniquely named neighbour is
function mine(k,   j) {
	for (j = k - 1; j >= 1; j--)
		if (count[name[j]] == 1)
			return name[j] in anchor
	for (j = k + 1; j <= n; j++)
		if (count[name[j]] == 1)
			return name[j] in anchor
	return 0
}

function gap(k,   j) {
	for (j = k + 1; j <= n && addr[j] == addr[k]; j++)
		;
	return j <= n ? low32(addr[j]) - low32(addr[k]) : "?"
}

FILENAME == ARGV[1] { want[$1] = 1; next }
FILENAME == ARGV[2] { anchor[$1] = 1; next }
NF == 3 { n++; addr[n] = $1; name[n] = $3; count[$3]++ }

END {
	for (k = 1; k <= n; k++) {
		w = name[k]
		if (!(w in want))
			continue
		rank[w]++
		if (count[w] == 1 || mine(k)) {
			hits[w]++
			pos[w] = count[w] == 1 ? 0 : rank[w]
			size[w] = gap(k)
		}
	}
	for (w in want)
		if (w in count)
			print w, count[w], hits[w] == 1 ? pos[w] : "?", \
			      hits[w] == 1 ? size[w] : "?"
}
