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
#	- I DIR MK	the Makefile in directory MK puts DIR on the include
#			path (MK "." for the kernel's own include path)
#	- W MK		the Makefile in MK adds include directories klpc
#			cannot read (a variable): any directory may be one
# Prints every file that includes a changed file, directly or through
# any number of others, and the changed files themselves, one a line.
#
# A safe superset: NAME is taken to be PATH when PATH is NAME under the
# including file's directory (q, d), or under a directory of the
# kernel's own include path or of a Makefile's -I: for a .c file, of a
# Makefile at or above its directory (a unit's flags come from there);
# for a header, of a Makefile at or above it, or one that puts the
# header's own directory (or one above it) on the include path: how the
# units of that Makefile find the header.  A file at or under a W Makefile's directory may take
# NAME from anywhere: PATH just ends in NAME.  The
# compiler's search can only pick one of these.

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

# directory D is M or under it
function under(d, m) {
	return m == "." || d == m || index(d, m "/") == 1
}

# the Makefile in MK has an -I of a directory at or above FILE's
function declares(mk, file,    n, i, d) {
	n = split(idecl[mk], d, " ")
	for (i = 1; i <= n; i++)
		if (under(dir(file), d[i]))
			return 1
	return 0
}

# an -I of directory D applies to FILE
function applies(d, file,    n, i, mk) {
	if (!(d in idirs))
		return 0
	n = split(idirs[d], mk, " ")
	for (i = 1; i <= n; i++)
		if (under(dir(file), mk[i]) ||
		    (file !~ /\.[cS]$/ && declares(mk[i], file)))
			return 1
	return 0
}

# FILE may be compiled with include directories klpc cannot read
function wild(file,    w) {
	for (w in wilds)
		if (under(dir(file), w))
			return 1
	return 0
}

# NAME (of an index line of FILE and KIND) may be PATH
function names(path, file, kind, name,    d, rest) {
	if (kind != "a" && norm(dir(file) "/" name) == path)
		return 1
	rest = name
	gsub(/(^|\/)\.\.\//, "/", rest)
	if (wild(file) && prefix(path, norm(rest)) != "")
		return 1
	if (name !~ /(^|\/)\.\.\//) {
		d = prefix(path, norm(name))
		return d != "" && applies(d, file)
	}
	for (d in idirs)
		if (norm(d "/" name) == path && applies(d, file))
			return 1
	return 0
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

/^#/ {
	next
}

$1 == "-" && $2 == "I" {
	d = norm($3)
	idirs[d] = idirs[d] " " norm($4)
	idecl[norm($4)] = idecl[norm($4)] " " d
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
