#!/bin/sh
# shape-check.sh: the code standards' two limits, checked: the functions
# over MAXF lines (100) and the files over MAXL lines (800) among the C
# sources of SRCDIR outside tests/ and bench/ (src/, replay/, include/,
# examples/). A function is a line at column 0 naming it, up to the "{" at
# column 0 that opens its body, and the body to the "}" at column 0 that
# closes it (the project's style). Prints one line a function or file over
# its limit ("FUNC lines file:line name", "FILE lines file"), longest
# first; exits 1 if there is any. Run by make check (FSTAP_SRCDIR: the
# sources).
#   tests/tools/shape-check.sh [SRCDIR [MAXF [MAXL]]]   (make shape-check)
srcdir=${1:-${FSTAP_SRCDIR:-.}}
maxf=${2:-100}
maxl=${3:-800}
cd "$srcdir" || exit 2
out=$(find src replay include examples -name '*.[ch]' 2>/dev/null | sort |
	xargs awk -v MAXF="$maxf" -v MAXL="$maxl" '
FNR == 1 { inf = 0; cand = "" }
FNR == 1 && NR > 1 && last > MAXL { printf "FILE %5d %s\n", last, lastname }
{ lastname = FILENAME; last = FNR }
/^[A-Za-z_].*\(/ && !inf { cand = $0; candline = FNR }
/;[ \t]*$/ && !inf && !/^\{/ { cand = "" }
/^\{/ && !inf && cand != "" { inf = 1; start = candline; name = cand; next }
/^\}/ && inf {
	n = FNR - start + 1
	if (n > MAXF) {
		sub(/\(.*/, "", name)
		k = split(name, w, /[ *]+/)
		printf "FUNC %5d %s:%d %s\n", n, FILENAME, start, w[k]
	}
	inf = 0
	cand = ""
}
END { if (last > MAXL) printf "FILE %5d %s\n", last, lastname }' | sort -k1,1 -k2,2nr)
[ -z "$out" ] && exit 0
printf '%s\n' "$out"
exit 1
