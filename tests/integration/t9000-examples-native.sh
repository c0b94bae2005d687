#!/bin/sh
# t9000: the example workloads (examples/), run natively at small sizes: the
# exact counts of their summary lines, the trees they leave, that runs are
# reproducible, that cleanup removes only what they made, and their exit
# codes (usage error 2, failure 1).
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null 2>&1 || skip "strace is needed (apt-get install strace)"

: "${FSTAP_BUILDDIR:=$(dirname "$FSTAP")}"
E=$FSTAP_BUILDDIR/examples
for p in news-spool index-update samba-xattr mdtest mixed; do
	[ -x "$E/$p" ] || { echo "FAIL: $E/$p is not built" >&2; exit 1; }
done
W=$T/w
mkdir "$W"

# field NAME: the value of NAME=... on the summary line of $T/out.
field() {
	sed -n "s/^[a-z-]*: phases=.* $1=\([^ ]*\).*/\1/p" "$T/out" | head -n 1
}
# expect_field NAME VALUE
expect_field() {
	got=$(field "$1")
	[ "$got" = "$2" ] || fail "$1=$got, expected $2; summary: $(head -c 800 "$T/out")"
}
# The whole summary line (for reproducibility checks).
summary() {
	grep '^[a-z-]*: phases=' "$T/out"
}
files_under() {
	find "$1" -type f | wc -l | tr -d ' '
}
bytes_under() {
	find "$1" -type f -exec cat {} + | wc -c | tr -d ' '
}
expect_empty_dir() {
	[ -z "$(ls -A "$1")" ] || fail "$1 is not empty: $(ls -A "$1" | head -5)"
}

# ---- every program: --help, usage errors, missing directory ----
for p in news-spool index-update samba-xattr mdtest mixed; do
	expect_exit 0 "$E/$p" --help && expect_grep "$T/out" "usage: $p"
	expect_exit 2 "$E/$p" --bogus && expect_grep "$T/err" "$p: usage error: unknown option '--bogus'"
	expect_exit 2 "$E/$p" -d "$W" frobnicate && expect_grep "$T/err" "'frobnicate' is not a phase"
	expect_exit 2 "$E/$p" -d "$W" -t 0
	expect_exit 2 "$E/$p" -d "$W" -n x
	expect_exit 2 "$E/$p" -d "$W" --size=huge
	expect_exit 2 "$E/$p" -d
	expect_exit 1 "$E/$p" -d "$T/missing" && expect_grep "$T/err" "$p: error: directory '$T/missing': No such file or directory"
	[ "$(count_lines "$T/err")" = 1 ] || fail "$p: the error is not one line: $(cat "$T/err")"
	expect_exit 1 "$E/$p" -d "$FSTAP_SRCDIR/README.md" && expect_grep "$T/err" "is not a directory"
done
expect_exit 2 "$E/news-spool" -d "$W" --order=inode && expect_grep "$T/err" "--order: 'inode'"
expect_exit 2 "$E/mixed" -d "$W" --stream-size=12Q
expect_empty_dir "$W"

# ---- news-spool: every article read once, bytes read = bytes written ----
NS="$E/news-spool -d $W -n 300 --groups=5 -s 7"
expect_exit 0 $NS setup
expect_field create 300
expect_field write 300
written=$(field bytes_written)
[ "$(files_under "$W/news-spool")" = 300 ] || fail "news-spool setup made $(files_under "$W/news-spool") files"
[ "$(bytes_under "$W/news-spool")" = "$written" ] || fail "news-spool: files hold $(bytes_under "$W/news-spool") bytes, summary says $written"
[ -d "$W/news-spool/comp/lang/c" ] || fail "news-spool: no comp/lang/c group"
expect_exit 1 $NS setup && expect_grep "$T/err" "left by an earlier run"
for order in readdir name number random; do
	expect_exit 0 $NS -t 2 --order=$order run
	expect_field order $order
	expect_field articles_read 300
	expect_field opendir 5
	expect_field readdir 300
	expect_field open 300
	expect_field close 300
	expect_field read 600
	expect_field create 0
	expect_field bytes_read "$written"
done
# Each article opened exactly once, and in the order asked for.
# (LeakSanitizer cannot run under ptrace, in a sanitizer build.)
expect_exit 0 traced -f -qq -e trace=openat -o "$T/strace" $NS --order=name run
grep -o '"[^"]*/news-spool/[^"]*/[0-9]*"' "$T/strace" | sort | uniq -c >"$T/opened"
[ "$(count_lines "$T/opened")" = 300 ] || fail "news-spool opened $(count_lines "$T/opened") distinct articles"
if grep -qv '^ *1 ' "$T/opened"; then fail "news-spool opened an article twice"; fi
grep -o '"[^"]*/comp/lang/c/[0-9]*"' "$T/strace" | tr -d '"' >"$T/order"
[ "$(count_lines "$T/order")" -gt 10 ] || fail "news-spool opened $(count_lines "$T/order") articles of comp/lang/c"
LC_ALL=C sort "$T/order" | cmp -s - "$T/order" || fail "news-spool --order=name: not in name order"
# Cleanup removes only what setup made: a stranger's file stops it.
echo mine >"$W/news-spool/comp/lang/c/stranger"
expect_exit 1 $NS cleanup && expect_grep "$T/err" "rmdir '$W/news-spool/comp/lang/c'"
[ "$(cat "$W/news-spool/comp/lang/c/stranger")" = mine ] || fail "news-spool cleanup touched a file it did not make"
rm "$W/news-spool/comp/lang/c/stranger"
expect_exit 0 $NS cleanup
expect_field unlink 300
expect_empty_dir "$W"
# Reproducible: the same command line gives the same summary.
expect_exit 0 $NS; summary >"$T/s1"
expect_exit 0 $NS; summary >"$T/s2"
cmp -s "$T/s1" "$T/s2" || fail "news-spool: two runs differ: $(cat "$T/s1" "$T/s2")"
expect_field bytes_read "$written"
expect_empty_dir "$W"

# ---- index-update: tables replaced by rename, queries exact ----
IU="$E/index-update -d $W --db-size=2M --updates=3 -t 2 -n 150 -s 3"
expect_exit 0 $IU setup
expect_field create 11
expect_field fsync 11
expect_exit 0 $IU run
expect_field queries 300
expect_field updates 3
tw=$(field tables_written)
[ "$tw" -ge 3 ] && [ "$tw" -le 15 ] || fail "index-update: tables_written=$tw"
expect_field rename $((tw + 3))
expect_field fsync $((2 * tw + 3))
expect_field unlink "$tw"
# Queries: 10 sessions of 15 queries per thread, 6 opens per session.
expect_field open 120
(cd "$W/xapian-db" && ls) >"$T/ls"
[ "$(count_lines "$T/ls")" = 11 ] || fail "index-update left: $(cat "$T/ls")"
if grep -q tmp "$T/ls"; then fail "index-update left a temporary file"; fi
for t in postlist position termlist docdata record; do
	[ -f "$W/xapian-db/$t.glass" ] || fail "index-update: no $t.glass"
done
expect_exit 0 $IU cleanup
expect_empty_dir "$W"
expect_exit 0 $IU; summary >"$T/s1"
expect_exit 0 $IU; summary >"$T/s2"
cmp -s "$T/s1" "$T/s2" || fail "index-update: two runs differ: $(cat "$T/s1" "$T/s2")"

# ---- samba-xattr: every file and directory carries user.DOSATTRIB ----
SX="$E/samba-xattr -d $W --files=200 --dirs=2 -t 3 -n 200 -s 5"
expect_exit 0 $SX setup
expect_field create 200
expect_field setxattr 211
expect_exit 0 $SX run
expect_field client_ops 600
created=$(field created)
deleted=$(field deleted)
[ "$(files_under "$W/samba-share")" = $((200 + created - deleted)) ] ||
	fail "samba-xattr: $(files_under "$W/samba-share") files, expected 200 + $created - $deleted"
find "$W/samba-share" >"$T/all"
python3 - "$W/samba-share" >"$T/nx" <<'PY'
import os, sys
n = 0
for d, dirs, files in os.walk(sys.argv[1]):
    for p in [d] + [os.path.join(d, f) for f in files]:
        try:
            os.getxattr(p, "user.DOSATTRIB", follow_symlinks=False)
            n += 1
        except OSError:
            pass
print(n)
PY
[ "$(cat "$T/nx")" = "$(count_lines "$T/all")" ] ||
	fail "samba-xattr: $(cat "$T/nx") of $(count_lines "$T/all") entries carry user.DOSATTRIB"
# A second run needs a cleanup first: the clients' directories exist.
expect_exit 1 $SX run && expect_grep "$T/err" "left by an earlier run"
expect_exit 0 $SX cleanup
expect_empty_dir "$W"

# ---- mdtest: per-phase rates, exact counts, nothing left ----
MD="$E/mdtest -d $W -t 2 -n 150"
expect_exit 0 $MD create
expect_field create 300
expect_field write 300
[ "$(files_under "$W/mdtest")" = 300 ] || fail "mdtest create made $(files_under "$W/mdtest") files"
[ -d "$W/mdtest/rank.0" ] && [ -d "$W/mdtest/rank.1" ] || fail "mdtest: no rank directories"
expect_exit 0 $MD stat read remove
expect_grep "$T/out" "File stat"
expect_grep "$T/out" "File removal"
expect_field stat 300
expect_field open 300
expect_field read 300
expect_field bytes_read 1228800
expect_field unlink 300
expect_field rmdir 3
expect_empty_dir "$W"
expect_exit 0 $MD --shared --random --bytes=100
expect_grep "$T/out" "File creation"
expect_field layout shared
expect_field bytes_written 30000
expect_field bytes_read 30000
expect_field mkdir 2
expect_field rmdir 2
expect_empty_dir "$W"

# ---- mixed: the copy equals the source ----
MX="$E/mixed -d $W -n 120 -t 3 --records=20 --stream-size=2M --stream-write=300K"
expect_exit 0 $MX setup run
expect_field copies 120
expect_field stream_writes 7
expect_field appends 20
expect_field fdatasync 20
expect_field fsync 1
diff -r "$W/mixed/src" "$W/mixed/dst" >/dev/null || fail "mixed: the copy differs from the source"
[ "$(wc -c <"$W/mixed/stream.dat" | tr -d ' ')" = 2097152 ] || fail "mixed: stream.dat has the wrong size"
[ "$(files_under "$W/mixed")" = 242 ] || fail "mixed left $(files_under "$W/mixed") files"
expect_exit 0 $MX cleanup
expect_empty_dir "$W"

finish
