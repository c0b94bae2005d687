#!/bin/sh
# t3210: fstap anonymize --keep-order. A news spool (examples/news-spool, 4
# groups) and a directory of names of every shape (leading dots, a first
# byte below '.', extensions, spaces, lost+found) on a loop-mounted ext4 are
# read in name order through the recorder. Without --keep-order the report
# of OUT has another name-order rho; with it (alone, and with
# --keep-extensions) report --json of OUT equals that of TRACE (operation
# mix, sizes, sequential/random counts, the order verdict and every rho),
# and a name-sorted listing of every directory prepared from OUT is the
# original's name-sorted listing, name for name. Too many one-byte names
# after a kept name for their order is an error; 63 one-byte names (62
# tokens) collide, an error with and without --keep-order, never a merge;
# TRACE from standard input is refused.
. "$(dirname "$0")/lib-record.sh"
need_fuse
SPOOL="$FSTAP_BUILDDIR/examples/news-spool"
[ -x "$SPOOL" ] || { echo "FAIL: '$SPOOL' is not built" >&2; exit 1; }

loop_mount ext4 64M "$T/fs" || finish
B="$T/fs/b"
mkdir "$B"
expect_exit 0 "$SPOOL" -d "$B" -n 400 --groups=4 --article-size=512 setup || finish
mkdir "$B/mixed" "$B/mixed/lost+found"
for n in .hidden ..two .-x '#autosave#' -dash a a.c a.h a-b.c a0 ab b Makefile zz.tar.gz \
	'x y' '~backup' README.md lost+found-not Z9.h; do
	echo "$n" >"$B/mixed/$n"
done

cat >"$T/app.sh" <<APP
set -e
"$SPOOL" -d "$B" -n 400 --groups=4 --article-size=512 --order=name run >/dev/null
cd "$B/mixed"
python3 -c 'import os; [open(f).read() for f in sorted(os.listdir(".")) if os.path.isfile(f)]'
APP
expect_exit 0 "$FSTAP" record -q -o "$T/in.trace" "$B" -- sh "$T/app.sh" || finish
head -c 32 /dev/urandom >"$T/key"

rep() {
	"$FSTAP" report --json "$1" | jq -S '{operations, bytes, touched, io, threads, access_order} |
		walk(if type == "object" then with_entries(select(.key | test("comm|path") | not)) else . end)'
}
rep "$T/in.trace" >"$T/in.rep"
case "$(jq -r .access_order.verdict "$T/in.rep")" in
"opens follow name order (rho 1.00 over 5 directories)") ;;
*) fail "TRACE's verdict: $(jq -c .access_order "$T/in.rep")" ;;
esac

expect_exit 0 "$FSTAP" anonymize --key-file="$T/key" "$T/in.trace" -o "$T/plain.trace" || finish
rep "$T/plain.trace" >"$T/plain.rep"
[ "$(jq .access_order.mean_rho.name "$T/plain.rep")" != "$(jq .access_order.mean_rho.name "$T/in.rep")" ] ||
	fail "without --keep-order the name order was kept: the test cannot tell"

"$FSTAP" export "$T/in.trace" >"$T/in.jsonl"
for variant in order ext; do
	opts=--keep-order
	[ $variant = ext ] && opts="--keep-order --keep-extensions"
	# shellcheck disable=SC2086
	expect_exit 0 "$FSTAP" anonymize --key-file="$T/key" $opts "$T/in.trace" -o "$T/$variant.trace" ||
		continue
	rep "$T/$variant.trace" >"$T/$variant.rep"
	diff "$T/in.rep" "$T/$variant.rep" >"$T/rep.diff" ||
		fail "$opts: report differs: $(head -c 1500 "$T/rep.diff")"
	"$FSTAP" export "$T/$variant.trace" >"$T/$variant.jsonl"
	grep -q 'autosave\|Makefile\|README\|hidden' "$T/$variant.jsonl" && fail "$opts kept a name"
	mkdir "$T/fs/$variant"
	expect_exit 0 "$FSTAP" prepare -q "$T/$variant.trace" "$T/fs/$variant" || continue
	# every directory: the original's sorted names mapped (records line up)
	# equal the sorted listing of the prepared directory, in order
	$PY - "$T/in.jsonl" "$T/$variant.jsonl" "$B" "$T/fs/$variant" $variant >"$T/bad" 2>&1 <<'PY' ||
import json, os, sys
a = [json.loads(l) for l in open(sys.argv[1])][1:]
b = [json.loads(l) for l in open(sys.argv[2])][1:]
orig, prep, ext = sys.argv[3], sys.argv[4], sys.argv[5] == "ext"
raw = lambda v: bytes.fromhex(v["hex"]) if isinstance(v, dict) else os.fsencode(v)
m = {}
for x, y in zip(a, b):
    if "name" in x and not x["op"].endswith("xattr"):
        m.setdefault(raw(x["name"]), set()).add(raw(y["name"]))
    for ex, ey in zip(x.get("entries", []), y.get("entries", [])):
        m.setdefault(raw(ex["name"]), set()).add(raw(ey["name"]))
bad = [k for k, v in m.items() if len(v) != 1]
if bad: sys.exit("names with two tokens: %r" % bad[:5])
m = {k: v.pop() for k, v in m.items()}
dirs = 0
for top, subdirs, files in os.walk(os.fsencode(orig)):
    rel = os.path.relpath(top, os.fsencode(orig))
    here = sorted(os.listdir(top))
    if rel != b"." and any(x not in m for x in rel.split(b"/")):
        continue
    want = [m[x] for x in here]
    there = os.path.join(os.fsencode(prep), *[m[x] for x in rel.split(b"/") if x != b"."])
    got = sorted(os.listdir(there))
    if got != want: sys.exit("%r: sorted %r, expected %r" % (rel, got[:8], want[:8]))
    if len(here) > 3: dirs += 1
    for x, y in zip(here, want):
        if len(x) != len(y): sys.exit("%r became %r" % (x, y))
        if x.startswith(b".") and y[:len(x) - len(x.lstrip(b"."))] != x[:len(x) - len(x.lstrip(b"."))]:
            sys.exit("%r lost its dots: %r" % (x, y))
        if ext and x in (b"a.c", b"zz.tar.gz", b"Z9.h") and y[-2:] != x[-2:]:
            sys.exit("%r lost its extension: %r" % (x, y))
if dirs < 6: sys.exit("only %d directories compared" % dirs)
print("ok", dirs)
PY
	fail "$opts: $(cat "$T/bad")"
done
grep -q "ok 6" "$T/bad" || fail "not every directory compared: $(cat "$T/bad")"
expect_exit 0 "$FSTAP" anonymize --key-file="$T/key" --keep-order "$T/in.trace" -o "$T/order2.trace"
cmp -s "$T/order.trace" "$T/order2.trace" || fail "--keep-order twice gave different traces"

# Order that cannot be kept: lost+found kept and 62 names of one byte (as
# many as there are tokens), 15 of them after it ('m'..'z', '~'), where only
# 14 tokens are: without --keep-order they fit.
{
	printf '{"fstap":"trace","version":"1.1","metadata":{}}\n'
	i=0
	for c in 0 1 2 3 4 5 6 7 8 9 A B C D E F G H I J K L M N O P R S T U V W X Y Z \
		a b c d e f g h i j k l m n o p q r s t u v w x y z '~' lost+found; do
		i=$((i + 1))
		printf '{"op":"lookup","t":%d,"dur":1,"tid":1,"pid":1,"res":-2,"obj":1,"name":"%s"}\n' $i "$c"
	done
} >"$T/many.jsonl"
expect_exit 0 "$FSTAP" import "$T/many.jsonl" -o "$T/many.trace" || finish
expect_exit 0 "$FSTAP" anonymize --key-file="$T/key" "$T/many.trace" -o "$T/many-plain.trace" ||
	fail "62 one-byte names without --keep-order"
expect_exit 1 "$FSTAP" anonymize --key-file="$T/key" --keep-order "$T/many.trace" -o "$T/x.trace" &&
	expect_grep "$T/err" "with --keep-order: no token of 1 byte for '~' sorts after the token of 'z': the order of the names cannot be kept"
[ ! -e "$T/x.trace" ] || fail "a failed --keep-order left its output"
# One more name of one byte: 63 names for the 62 one-byte tokens collide,
# with or without --keep-order: an error, and no output.
sed '$d' "$T/many.jsonl" >"$T/many63.jsonl"
printf '{"op":"lookup","t":99,"dur":1,"tid":1,"pid":1,"res":-2,"obj":1,"name":"Q"}\n' >>"$T/many63.jsonl"
expect_exit 0 "$FSTAP" import "$T/many63.jsonl" -o "$T/many63.trace" || finish
expect_exit 1 "$FSTAP" anonymize --key-file="$T/key" "$T/many63.trace" -o "$T/x.trace" &&
	expect_grep "$T/err" "cannot anonymize '$T/many63.trace': file names: 63 different strings of 1 byte would need more than the 62 tokens of that length: two would collide"
[ ! -e "$T/x.trace" ] || fail "a collision left an output"
expect_exit 1 "$FSTAP" anonymize --key-file="$T/key" --keep-order "$T/many63.trace" -o "$T/x.trace" &&
	expect_grep "$T/err" "no token of 1 byte for '~' sorts after the token of 'z'"
[ ! -e "$T/x.trace" ] || fail "a collision with --keep-order left an output"
expect_exit 1 "$FSTAP" anonymize --key-file="$T/key" --keep-order - -o "$T/x.trace" <"$T/in.trace" &&
	expect_grep "$T/err" "reads the trace twice"
finish
