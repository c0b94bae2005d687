#!/bin/sh
# t0110: a trace of format 1.0, written by the fstap of that format (checked
# in: tests/integration/data/trace-v1.0-xattrs.fstap), still reads, exports,
# round-trips and replays: its header says 1.0, its setxattr and getxattr
# records have no value (the field 1.1 appended reads as empty), an
# export/import/export keeps its records byte for byte, and
# prepare + replay give 0 divergences, with the initial xattrs recreated
# exactly and the replayed setxattrs writing pseudo-random values of the
# recorded sizes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-replay.sh"

OLD="$FSTAP_SRCDIR/tests/integration/data/trace-v1.0-xattrs.fstap"

expect_exit 0 "$FSTAP" info "$OLD" && expect_grep "$T/out" "format:    1.0"
expect_exit 0 "$FSTAP" export --no-paths "$OLD" && cp "$T/out" "$T/a.jsonl"
expect_grep "$T/a.jsonl" '{"fstap":"trace","version":"1.0",'
expect_grep "$T/a.jsonl" '"op":"setxattr","t":2000,"dur":100,"tid":100,"pid":100,"uid":0,"gid":0,"res":0,"obj":3,"name":"user.x","size":10}'
expect_grep "$T/a.jsonl" '"name":"user.old","size":64}'
expect_grep "$T/a.jsonl" '"xattrs":[{"name":"user.old","value":"kept"},{"name":"user.bin","value":{"hex":"00ff00"}}]'
[ "$(grep -c '"value":"' "$T/a.jsonl")" = 1 ] || fail "a value other than the state's: $(cat "$T/a.jsonl")"
grep -q xattr_sizes "$T/a.jsonl" && fail "xattr_sizes in a 1.0 trace"

# export -> import -> export: the same records (import writes this fstap's version)
expect_exit 0 "$FSTAP" import -o "$T/b.trace" "$T/a.jsonl"
expect_exit 0 "$FSTAP" export --no-paths "$T/b.trace" && cp "$T/out" "$T/b.jsonl"
expect_grep "$T/b.jsonl" '{"fstap":"trace","version":"1.1",'
tail -n +2 "$T/a.jsonl" > "$T/a.recs"
tail -n +2 "$T/b.jsonl" > "$T/b.recs"
cmp -s "$T/a.recs" "$T/b.recs" || fail "the round trip changed the records: $(diff "$T/a.recs" "$T/b.recs" | head -5)"

mkdir "$T/tgt"
user_xattrs_supported "$T/tgt" || skip "no user xattrs on $T"
expect_exit 0 "$FSTAP" prepare "$OLD" "$T/tgt"
expect_exit 0 "$FSTAP" replay --json="$T/r.json" "$OLD" "$T/tgt"
[ "$(json_get "$T/r.json" 'j["runs"][0]["divergences"]')" = 0 ] ||
	fail "divergences: $(json_get "$T/r.json" 'j["runs"][0]["divergence"]')"
# xattr_hex FILE NAME: the value, in hex
xattr_hex() {
	python3 -c 'import os, sys; print(os.getxattr(sys.argv[1], sys.argv[2]).hex())' "$1" "$2"
}
[ "$(xattr_hex "$T/tgt/f" user.old)" = 6b657074 ] || fail "user.old is not 'kept'"
[ "$(xattr_hex "$T/tgt/f" user.bin)" = 00ff00 ] || fail "user.bin is not 00ff00"
for x in "d user.x 20" "f user.y 6"; do
	set -- $x
	n=$(xattr_hex "$T/tgt/$1" "$2")
	[ ${#n} = "$3" ] || fail "$1 $2: '$n', expected $3 hex digits"
	[ "$n" != "$(printf "%0${3}d" 0)" ] || fail "$1 $2: zeros, expected pseudo-random bytes"
done
finish
