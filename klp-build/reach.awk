#!/usr/bin/awk -f
# reach.awk - the files a change of some files reaches through #include
#
#	awk -f reach.awk CHANGED INDEX
#
# CHANGED lists the changed files (paths in the tree, one a line); INDEX
# is the tree's include index (reach.sh), lines of three words:
#	FILE q NAME	FILE has #include "NAME"
#	FILE a NAME	FILE has #include <NAME>
#	FILE d NAME	FILE defines a macro as "NAME" or <NAME>, a .c or .h
#			path, which a computed #include may name
#	- I DIR		a directory some Makefile puts on the include path
#	- W DIR		a Makefile there adds include directories klpc
#			cannot read (a variable): any directory under DIR
#			may be one
# Prints every file that includes a changed file, directly or through
# any number of others, and the changed files themselves, one a line.
#
# A safe superset: NAME is taken to be PATH when PATH is NAME under the
# including file's directory (q, d), under a directory of the kernel's
# own include path or of any Makefile's -I (whichever unit includes the
# file, its -I list is one of those), or under a directory of a W tree
# (NAME's leading ".." parts climbing out of it).  The compiler's search
# can only pick one of these.

function norm(p,    n, i, part, out, k, r) {
	n = split(p, part, "/")
	k = 0
	for (i = 1; i <= n; i++) {
		if (part[i] == "." || part[i] == "")
			continue
		if (part[i] == ".." && k > 0 && out[k] != "..")
			k--
		else
			out[++k] = part[i]
	}
	if (k == 0)
		return "."
	r = out[1]
	for (i = 2; i <= k; i++)
		r = r "/" out[i]
	return r
}

function base(p) {
	sub(/.*\//, "", p)
	return p
}

function dir(p) {
	if (p !~ /\//)
		return "."
	sub(/\/[^\/]*$/, "", p)
	return p
}

# PATH ends in "/TAIL" (or is TAIL): the directory before it, else ""
function prefix(path, tail) {
	if (path == tail)
		return "."
	if (length(path) > length(tail) &&
	    substr(path, length(path) - length(tail)) == "/" tail)
		return substr(path, 1, length(path) - length(tail) - 1)
	return ""
}

# directory D is W, or under W, for a W tree climbed UP directories
function wild(d, up,    w, i) {
	for (w in wilds) {
		for (i = 0; i < up; i++)
			w = dir(w)
		if (w == "." || d == w || index(d, w "/") == 1)
			return 1
	}
	return 0
}

# NAME (of an index line of FILE and KIND) may be PATH
function names(path, file, kind, name,    d, rest, up) {
	if (kind != "a" && norm(dir(file) "/" name) == path)
		return 1
	rest = name
	for (up = 0; sub(/^(\.\/)*\.\.\//, "", rest); up++)
		;
	if (up == 0 || rest ~ /(^|\/)\.\.\//) {
		d = prefix(path, norm(name))
		return d != "" && (d in idirs || wild(d, 0))
	}
	for (d in idirs)
		if (norm(d "/" name) == path)
			return 1
	d = prefix(path, norm(rest))
	return d != "" && wild(d, up)
}

function reach(p) {
	if (p in seen)
		return
	seen[p] = 1
	queue[++last] = p
}

NR == FNR {
	if (NF)
		reach(norm($1))
	next
}

$1 == "-" && $2 == "I" {
	idirs[norm($3)] = 1
	next
}

$1 == "-" && $2 == "W" {
	wilds[norm($3)] = 1
	next
}

{
	b = base($3)
	n = ++count[b]
	efile[b, n] = $1
	ekind[b, n] = $2
	ename[b, n] = $3
}

END {
	for (head = 1; head <= last; head++) {
		p = queue[head]
		b = base(p)
		for (i = 1; i <= count[b]; i++)
			if (!(efile[b, i] in seen) &&
			    names(p, efile[b, i], ekind[b, i], ename[b, i]))
				reach(efile[b, i])
	}
	for (i = 1; i <= last; i++)
		print queue[i]
}
