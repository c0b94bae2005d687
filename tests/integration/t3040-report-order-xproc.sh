#!/bin/sh
# t3040: order analysis across processes. A spool (4 directories of 24
# small files, created in a shuffled name order, so inode order is neither
# name nor readdir order; readdir order on ext4 with dir_index is hash
# order) is read by two pipelines in which one process lists and another
# reads: `find | sort | xargs cat` (opens in name order, also with
# `xargs -n 10`: 10 cat processes one after the other) and `find -exec cat
# {} +` (opens in find's readdir order). `fstap report` relates cat's opens
# to find's listings and names both; and `fstap reorder` of each trace turns
# its reader to the other order.
. "$(dirname "$0")/lib-record.sh"
need_fuse

loop_mount ext4 64M "$T/b" || finish
S="$T/b/spool"
$PY - "$S" <<'PY' || fail "cannot make the spool"
import os, random, sys
rnd = random.Random(3040)
for g in ("comp.lang.c", "comp.os.linux", "rec.arts", "sci.physics"):
    d = os.path.join(sys.argv[1], g)
    os.makedirs(d)
    names = ["%d" % (i * 7 + 1) for i in range(24)]
    rnd.shuffle(names)
    for n in names:
        with open(os.path.join(d, n), "w") as f:
            f.write("article %s of %s\n" % (n, g))
PY
# the spool must tell the orders apart: readdir order is not name order
for d in "$S"/*; do
	ls -U "$d" >"$T/readdir"; ls "$d" | LC_ALL=C sort >"$T/sorted"
	cmp -s "$T/readdir" "$T/sorted" && fail "$d: readdir order is name order"
done

# $1 trace, $2 the expected verdict, $3 the readers' part of the line, $4
# their number: the exact lines of the access order
check_verdict() {
	expect_exit 0 "$FSTAP" report "$1" || return
	expect_grep "$T/out" "  verdict: $2"
	grep -E '^  listed (and read )?by ' "$T/out" >"$T/who"
	[ "$(count_lines "$T/who")" = 1 ] || { fail "$1: not one lister and reader: $(cat "$T/who")"; return; }
	grep -Eq "^  listed by find \(pid [0-9]+\), read by cat \($3\): 4 directories, 96 files\$" \
		"$T/who" || fail "$1: lister and reader: $(cat "$T/who")"
	expect_exit 0 "$FSTAP" report --json "$1" || return
	$PY - "$T/out" "$4" <<'PY' || fail "$1: --json lister and reader are wrong"
import json, sys
o = json.load(open(sys.argv[1]))["access_order"]
assert o["directories"] == 4 and o["files"] == 96, o
[p] = o["processes"]
assert (p["lister_comm"], p["reader_comm"], p["own"]) == ("find", "cat", False), p
assert len(p["reader_pids"]) == int(sys.argv[2]) and p["lister_pid"] not in p["reader_pids"], p
assert (p["directories"], p["files"]) == (4, 96), p
for row in o["per_directory"]:
    assert (row["comm"], row["reader_comm"], row["files"], row["listed"]) == ("find", "cat", 24, 24), row
    assert row["pid"] == p["lister_pid"] and set(row["readers"]) <= set(p["reader_pids"]), row
    assert row["reader_pid"] == row["readers"][0], row
PY
}

expect_exit 0 "$FSTAP" record -q -o "$T/sorted.trace" "$S" -- \
	sh -c 'find "$1" -type f | sort | xargs cat >/dev/null' sh "$S"
check_verdict "$T/sorted.trace" "opens follow name order (rho 1.00 over 4 directories)" \
	"pid [0-9]+" 1

expect_exit 0 "$FSTAP" record -q -o "$T/batches.trace" "$S" -- \
	sh -c 'find "$1" -type f | sort | xargs -n 10 cat >/dev/null' sh "$S"
check_verdict "$T/batches.trace" "opens follow name order (rho 1.00 over 4 directories)" \
	"10 processes" 10

expect_exit 0 "$FSTAP" record -q -o "$T/exec.trace" "$S" -- \
	sh -c 'find "$1" -type f -exec cat {} + >/dev/null' sh "$S"
check_verdict "$T/exec.trace" "opens follow readdir order (rho 1.00 over 4 directories)" \
	"pid [0-9]+" 1

# reorder's groups are the reader's: each variant follows the order asked
expect_exit 0 "$FSTAP" reorder --by=name "$T/exec.trace" -o "$T/exec-name.trace"
check_verdict "$T/exec-name.trace" "opens follow name order (rho 1.00 over 4 directories)" \
	"pid [0-9]+" 1
expect_exit 0 "$FSTAP" reorder --by=readdir "$T/sorted.trace" -o "$T/sorted-readdir.trace"
check_verdict "$T/sorted-readdir.trace" "opens follow readdir order (rho 1.00 over 4 directories)" \
	"pid [0-9]+" 1
finish
