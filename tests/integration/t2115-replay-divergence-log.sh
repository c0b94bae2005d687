#!/bin/sh
# t2115: fstap replay --divergences=FILE: one JSON object a line per
# divergence, in record order, with the record's number in the trace, its
# time, thread, process and process name, op, paths (both for a rename),
# the xattr's name, the kind (and errno), the recorded and replayed results,
# and for readdir the names missing from the live listing and the extra
# ones; --divergences-max=N keeps the first N of each kind. The trace is
# t2110's (divergent-trace.jsonl).
. "$(dirname "$0")/lib.sh"

D="$T/dir"
mkdir -p "$D/d"
head -c 100 /dev/urandom >"$D/small"
touch "$D/d/x" "$D/d/y"
cp -a "$D" "$T/dir0"

expect_exit 0 "$FSTAP" import -o "$T/t.trace" "$FSTAP_SRCDIR/tests/integration/divergent-trace.jsonl"

# usage errors
expect_exit 2 "$FSTAP" replay --divergences-max=0 --divergences="$T/x" "$T/t.trace" "$D" &&
	expect_grep "$T/err" "--divergences-max must be a number from 1 to 1000000, not '0'"
expect_exit 2 "$FSTAP" replay --divergences=- --json=- "$T/t.trace" "$D" &&
	expect_grep "$T/err" "only one of --json, --csv and --divergences can go to stdout"

expect_exit 0 "$FSTAP" replay --divergences="$T/log.jsonl" "$T/t.trace" "$D"
expect_grep "$T/out" "divergences:  11"
cat >"$T/want" <<'W'
{"run":1,"record":3,"t":100,"tid":7,"pid":7,"comm":"mailer","op":"unlink","path":"/not-there","kind":"errno","errno":"ENOENT","recorded":0,"replayed":-2,"replayed_errno":"ENOENT"}
{"run":1,"record":4,"t":200,"tid":7,"pid":7,"comm":"mailer","op":"mkdir","path":"/fresh","kind":"succeeded","errno":"EEXIST","recorded":-17,"recorded_errno":"EEXIST","replayed":0}
{"run":1,"record":6,"t":400,"tid":7,"pid":7,"comm":"mailer","op":"read","path":"/small","kind":"short","recorded":8192,"replayed":100}
{"run":1,"record":9,"t":700,"tid":7,"pid":7,"comm":"mailer","op":"readdir","path":"/d","kind":"entries","recorded":2,"replayed":2,"missing":["z"],"extra":[]}
{"run":1,"record":10,"t":800,"tid":7,"pid":7,"comm":"mailer","op":"readdir","path":"/d","kind":"entries","recorded":0,"replayed":0,"missing":[],"extra":["y"]}
{"run":1,"record":12,"t":1000,"tid":7,"pid":7,"comm":"mailer","op":"write","path":"/small","kind":"unknown","recorded":10,"replayed":null}
{"run":1,"record":13,"t":1100,"tid":7,"pid":7,"comm":"mailer","op":"getattr","path":null,"kind":"unknown","recorded":0,"replayed":null}
{"run":1,"record":14,"t":1200,"tid":7,"pid":7,"comm":"mailer","op":"lookup","path":"/d/x","kind":"succeeded","errno":"ENOENT","recorded":-2,"recorded_errno":"ENOENT","replayed":0}
{"run":1,"record":15,"t":1300,"tid":8,"pid":7,"comm":"mailer","op":"rename","path":"/gone","path2":"/d/new","kind":"errno","errno":"ENOENT","recorded":0,"replayed":-2,"replayed_errno":"ENOENT"}
{"run":1,"record":16,"t":1400,"tid":8,"pid":7,"comm":"mailer","op":"getxattr","path":"/small","name":"user.k","kind":"errno","errno":"ENODATA","recorded":5,"replayed":-61,"replayed_errno":"ENODATA"}
{"run":1,"record":17,"t":1500,"tid":8,"pid":7,"comm":"mailer","op":"unlink","path":"/not-there-2","kind":"errno","errno":"ENOENT","recorded":0,"replayed":-2,"replayed_errno":"ENOENT"}
W
diff -u "$T/want" "$T/log.jsonl" >&2 || fail "the divergence log is not the expected one"

# The first of each kind only; to stdout (no table); two runs on a fresh copy.
rm -rf "$D" && cp -a "$T/dir0" "$D"
expect_exit 0 "$FSTAP" replay --divergences=- --divergences-max=1 --runs=2 "$T/t.trace" "$D"
python3 - "$T/out" "$T/want" <<'PY' || fail "--divergences-max=1 --runs=2: not the expected lines"
import json, sys
got = [json.loads(l) for l in open(sys.argv[1])]
want = [json.loads(l) for l in open(sys.argv[2])]
run1 = [w for w in want if w["record"] not in (10, 17)]
assert [g for g in got if g["run"] == 1] == run1, got
# the second run finds what the first made: the mkdir no longer succeeds
run2 = [g for g in got if g["run"] == 2]
assert [g["record"] for g in run2] == [3, 6, 9, 12, 13, 14, 15, 16], run2
PY

finish
