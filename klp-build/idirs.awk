#!/usr/bin/awk -f
# idirs.awk - the include directories the kernel's Makefiles add
#
#	awk -v arch=x86 -f idirs.awk MAKEFILE...	(paths ./dir/Makefile)
#
# prints "- I DIR MK" for each directory a Makefile in directory MK puts
# on the include path (-I, -iquote, -idirafter), and "- W MK" when one
# names a variable this cannot expand.  The tree's own variables
# (srctree, objtree, src, obj, SRCARCH) are known; a variable a Makefile
# assigns a plain value (FULL_AMD_PATH = $(srctree)/$(src)/..) is
# expanded, to a depth of a few: the same Makefile's first, else the one
# value all Makefiles give it (amd/display/Makefile uses amdgpu/'s).
# The files are read twice: the first time for those values.  Lines
# continued with a backslash are joined first.

function expand(t,    i, v, name) {
	gsub(/\$\((srctree|objtree)\)\//, "", t)
	gsub(/\$\((srctree|objtree)\)/, ".", t)
	gsub(/\$\((src|obj)\)/, mk, t)
	gsub(/\$\((SRCARCH|ARCH|SUBARCH)\)/, arch, t)
	for (i = 0; i < 4 && match(t, /\$\([A-Za-z0-9_]+\)/); i++) {
		name = substr(t, RSTART + 2, RLENGTH - 3)
		if (name in var)
			v = var[name]
		else if ((name in gvar) && !(name in gbad))
			v = gvar[name]
		else
			break
		t = substr(t, 1, RSTART - 1) v substr(t, RSTART + RLENGTH)
		gsub(/\$\((srctree|objtree)\)\//, "", t)
		gsub(/\$\((srctree|objtree)\)/, ".", t)
		gsub(/\$\((src|obj)\)/, mk, t)
	}
	return t
}

# NAME = VALUE in the Makefile being read: its own, and on the first
# pass the tree's (VALUE's $(src) made this Makefile's directory)
function assign(name, value) {
	if (pass == 2) {
		var[name] = value
		return
	}
	gsub(/\$\((src|obj)\)/, mk, value)
	if ((name in gvar) && gvar[name] != value)
		gbad[name] = 1
	gvar[name] = value
}

function flush(    n, i, w, t) {
	if (line == "")
		return
	if (match(line, /^[[:space:]]*[A-Za-z0-9_]+[[:space:]]*[?:]?=/)) {
		n = substr(line, RSTART, RLENGTH)
		t = substr(line, RLENGTH + 1)
		gsub(/[[:space:]?:=]/, "", n)
		sub(/^[[:space:]]+/, "", t)
		sub(/[[:space:]]+$/, "", t)
		if (t !~ /[[:space:]]/)
			assign(n, t)
	}
	if (pass == 1) {
		line = ""
		return
	}
	n = split(line, w, /[[:space:]]+/)
	for (i = 1; i <= n; i++) {
		t = ""
		if (w[i] ~ /^(-I|-iquote|-idirafter)$/ && i < n)
			t = w[++i]
		else if (w[i] ~ /^-I./)
			t = substr(w[i], 3)
		if (t == "")
			continue
		t = expand(t)
		while (t ~ /\)$/ && gsub(/\(/, "(", t) < gsub(/\)/, ")", t))
			sub(/\)$/, "", t)
		if (t ~ /\$/)
			print "-", "W", mk
		else
			print "-", "I", t, mk
	}
	line = ""
}

FNR == 1 {
	flush()
	if (FILENAME in seen)
		pass = 2
	else if (!pass)
		pass = 1
	seen[FILENAME] = 1
	delete var
	mk = FILENAME
	sub(/^\.\//, "", mk)
	if (!sub(/\/[^\/]*$/, "", mk))
		mk = "."
}

{
	sub(/#.*/, "")
	if (sub(/\\$/, "")) {
		line = line " " $0
		next
	}
	line = line " " $0
	flush()
}

END {
	flush()
}
