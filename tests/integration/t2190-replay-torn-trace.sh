#!/bin/sh
# t2190: a torn trace of a multi-threaded workload. Four threads of a real
# process are recorded through `fstap record DIR -- CMD` for about six
# seconds; the trace is then cut at 300 byte positions (a seeded sample) as
# a crash or `head -c` would leave it. Every cut is read with `fstap info`:
# it delivers exactly the records of the whole trace that ended before its
# cutoff (so nothing of any thread before the cutoff is missing, nothing
# after it is kept) and says so in the one-line notice. A smaller sample is
# prepared and replayed: 0 divergences, the notice from prepare, replay and
# report, and once from compare. The cut survives export | import, filter
# and reorder (their output holds the records the cut kept, and reading it
# cuts nothing more). The whole trace replays with 0 divergences and no
# notice. A 1.0 trace of the recorder (../shared's posix-suite.trace, where
# present) is cut two flush intervals before its end, again to exactly the
# records that ended before the cutoff.
. "$(dirname "$0")/lib-record.sh"
. "$(dirname "$0")/lib-replay.sh"

need_fuse
SEED=${T2190_SEED:-2160}
CUTS=${T2190_CUTS:-300}
REPLAYS=${T2190_REPLAYS:-8}
# replays into tmpfs when there is one: many prepares, little disk
R=$(mktemp -d "$( [ -d /dev/shm ] && echo /dev/shm || echo "$T")/fstap-t2190.XXXXXX")
test_cleanup_extra() { rm -rf "$R"; }

mkdir "$T/w"
expect_exit 0 "$FSTAP" record -o "$T/t.trace" "$T/w" -- \
	"$PY" "$TOOLS" churn "$T/w" 4 6 "$SEED" || finish
expect_exit 0 "$FSTAP" info --json "$T/t.trace"
[ "$(json_get "$T/out" 'j["status"]')" = complete ] || fail "the whole trace is not complete"
[ "$(json_get "$T/out" 'j["by_op"].get("watermark", 0) >= 2')" = True ] ||
	fail "the recorder wrote fewer than 2 watermarks: $(cat "$T/out")"
"$FSTAP" export --no-paths "$T/t.trace" >"$T/t.jsonl" || fail "cannot export the trace"

# the whole trace: no notice, no divergence
mkdir "$R/whole"
expect_exit 0 "$FSTAP" prepare "$T/t.trace" "$R/whole"
expect_exit 0 "$FSTAP" replay --json="$T/whole.json" "$T/t.trace" "$R/whole"
[ "$(json_get "$T/whole.json" 'j["runs"][0]["divergences"]')" = 0 ] ||
	fail "the whole trace replays with divergences: $(cat "$T/out")"
! grep -q "incomplete" "$T/err" || fail "the whole trace is called incomplete: $(cat "$T/err")"
rm -rf "$R/whole"

python3 - "$FSTAP" "$T" "$R" "$SEED" "$CUTS" "$REPLAYS" <<'PY' || fail "torn traces"
import bisect, json, os, random, re, shutil, struct, subprocess, sys

fstap, t, r, seed, ncuts, nreplays = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), \
    int(sys.argv[5]), int(sys.argv[6])
whole = open(os.path.join(t, "t.trace"), "rb").read()
ends = sorted(x["t"] + x.get("dur", 0) for x in map(json.loads, open(os.path.join(t, "t.jsonl")))
              if "tid" in x)
first_chunk = 64 + struct.unpack_from("<I", whole, 20)[0]
cut_path = os.path.join(t, "cut.trace")
failures = []


def grouped(n):
    return "{:,}".format(n).replace(",", " ")


def notice(verb, cut):
    return "fstap: warning: incomplete trace: %s the first %.1f s of %.1f s, %s of %s records" % (
        verb, cut["cutoff_ns"] / 1e9, cut["end_ns"] / 1e9, grouped(cut["records"]),
        grouped(cut["records_read"]))


def run(*argv):
    return subprocess.run([fstap] + list(argv), capture_output=True, text=True)


def check(pos, what, ok, detail):
    if not ok:
        failures.append("cut at %d: %s: %s" % (pos, what, detail))


rnd = random.Random(seed)
positions = sorted(rnd.sample(range(first_chunk, len(whole)), ncuts))
cuts = {}
kept_some = 0
for pos in positions:
    open(cut_path, "wb").write(whole[:pos])
    p = run("info", "--json", cut_path)
    check(pos, "info exit", p.returncode == 0, p.stderr)
    if p.returncode:
        continue
    j = json.loads(p.stdout)
    cut = j.get("cut")
    check(pos, "info status", j["status"] == "incomplete" and cut, p.stdout[-300:])
    if not cut:
        continue
    # complete for every thread: every record that ended before the cutoff, no other
    want = bisect.bisect_left(ends, cut["cutoff_ns"])
    check(pos, "records kept", cut["records"] == want == j["records"],
          "%d kept, %d in the info, %d ended before %d" % (cut["records"], j["records"], want,
                                                          cut["cutoff_ns"]))
    check(pos, "records read", cut["records_read"] <= len(ends) and
          cut["records_read"] >= cut["records"], cut)
    check(pos, "notice", p.stderr == notice("counted", cut) + "\n", repr(p.stderr))
    kept_some += cut["records"] > 0
    cuts[pos] = cut
if kept_some < ncuts // 3:
    failures.append("only %d of %d cuts keep records: the cutoff lags too far" % (kept_some, ncuts))

# prepare + replay (and report) on a sample of the cuts, the last one included
sample = sorted(random.Random(seed + 1).sample(sorted(cuts), min(nreplays - 1, len(cuts))))
sample += [max(cuts)] if cuts and max(cuts) not in sample else []
for pos in sample:
    cut = cuts[pos]
    open(cut_path, "wb").write(whole[:pos])
    target = os.path.join(r, "cut")
    shutil.rmtree(target, ignore_errors=True)
    os.mkdir(target)
    p = run("prepare", cut_path, target)
    check(pos, "prepare", p.returncode == 0 and notice("prepared", cut) in p.stderr.splitlines(),
          p.stderr)
    res = os.path.join(t, "cut.json")
    p = run("replay", "--json=" + res, cut_path, target)
    check(pos, "replay exit", p.returncode == 0, p.stderr)
    if p.returncode == 0:
        run0 = json.load(open(res))["runs"][0]
        check(pos, "divergences", run0["divergences"] == 0,
              "%d: %s" % (run0["divergences"], json.dumps(run0.get("divergence"))[:600]))
        check(pos, "replayed records", run0["op_records"] == cut["records"], run0["op_records"])
        check(pos, "replay's trace_cut", run0.get("trace_cut") ==
              {k: cut[k] for k in ("cutoff_ns", "end_ns", "records", "records_read")},
              run0.get("trace_cut"))
    lines = [l for l in p.stderr.splitlines() if "incomplete" in l]
    check(pos, "replay notice", lines == [notice("replayed", cut)], p.stderr)
    p = run("report", cut_path)
    check(pos, "report notice", p.returncode == 0 and
          [l for l in p.stderr.splitlines() if "incomplete" in l] == [notice("reported", cut)],
          p.stderr)
shutil.rmtree(os.path.join(r, "cut"), ignore_errors=True)
for f in failures[:20]:
    print(f, file=sys.stderr)
if failures:
    print("%d failures over %d cuts" % (len(failures), ncuts), file=sys.stderr)
    sys.exit(1)
print("%d cuts read, %d replayed; the cutoff kept records in %d" % (ncuts, len(sample), kept_some))
PY

# the cut survives conversion: export -> import gives the same cut; filter
# and reorder of the cut write the records it kept, ending with a watermark
# where it was cut, so that reading their output cuts nothing more
size=$(wc -c <"$T/t.trace")
head -c $((size * 3 / 4)) "$T/t.trace" >"$T/cut.trace"
expect_exit 0 "$FSTAP" info --json "$T/cut.trace"
kept=$(json_get "$T/out" 'j["cut"]["records"]')
[ "$kept" -gt 0 ] || fail "the 3/4 cut keeps nothing: $(cat "$T/out")"
"$FSTAP" export "$T/cut.trace" 2>/dev/null | "$FSTAP" import -o "$T/rt.trace" - ||
	fail "export | import of the cut"
expect_exit 0 "$FSTAP" info --json "$T/rt.trace"
[ "$(json_get "$T/out" 'j["cut"]["records"]')" = "$kept" ] ||
	fail "export | import changes the cut: $(cat "$T/out")"
expect_exit 0 "$FSTAP" filter --from=0 "$T/cut.trace" -o "$T/f.trace"
expect_grep "$T/err" "incomplete trace: filtered the first"
expect_exit 0 "$FSTAP" reorder --by=name "$T/cut.trace" -o "$T/o.trace"
expect_grep "$T/err" "incomplete trace: reordered the first"
for out in f o; do
	expect_exit 0 "$FSTAP" info --json "$T/$out.trace"
	[ "$(json_get "$T/out" '(j["records"], j["cut"]["records_read"])')" = "($kept, $kept)" ] ||
		fail "$out.trace does not hold the $kept records of the cut: $(cat "$T/out")"
done

# compare says it once, before its runs, from the 3/4 cut
mkdir "$R/target"
# compare refuses an incomplete trace unless --allow-incomplete (t3510 tests the refusal)
expect_exit 0 "$FSTAP" compare --target=tmp="$R/target" --runs=1 --no-progress \
	--allow-incomplete "$T/cut.trace"
[ "$(grep -c "incomplete trace: compared the first" "$T/err")" = 1 ] ||
	fail "compare's notice: $(cat "$T/err")"
grep -E "^tmp +recorded +[0-9]" "$T/out" >/dev/null || fail "compare's table: $(cat "$T/out")"

# a 1.0 trace of fstap record (no watermarks): cut two flush intervals before
# the latest end it holds, and still exactly its records that ended before
XZ="$FSTAP_SRCDIR/../shared/traces/posix-suite.trace.xz"
if [ -r "$XZ" ] && command -v xz >/dev/null 2>&1; then
	xz -dc "$XZ" >"$R/p.trace" || fail "cannot decompress $XZ"
	"$FSTAP" export --no-paths "$R/p.trace" >"$R/p.jsonl" || fail "cannot export $XZ"
	python3 - "$FSTAP" "$R" "$SEED" <<'PY' || fail "cuts of posix-suite.trace"
import bisect, json, os, random, struct, subprocess, sys

fstap, r, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
ends = sorted(x["t"] + x.get("dur", 0) for x in map(json.loads, open(os.path.join(r, "p.jsonl")))
              if "tid" in x)
whole = open(os.path.join(r, "p.trace"), "rb").read()
assert struct.unpack_from("<H", whole, 10)[0] == 0, "posix-suite.trace is not of format 1.0"
first = 64 + struct.unpack_from("<I", whole, 20)[0]
bad = 0
for pos in sorted(random.Random(seed).sample(range(first, len(whole)), 4)):
    open(os.path.join(r, "pc.trace"), "wb").write(whole[:pos])
    p = subprocess.run([fstap, "info", "--json", os.path.join(r, "pc.trace")],
                       capture_output=True, text=True)
    cut = json.loads(p.stdout)["cut"]
    want = bisect.bisect_left(ends, cut["cutoff_ns"])
    if cut["by_watermark"] or cut["cutoff_ns"] != cut["end_ns"] - 2 * 10**9 or \
       cut["records"] != want:
        print("cut at %d: %s, %d records ended before the cutoff" % (pos, cut, want),
              file=sys.stderr)
        bad = 1
sys.exit(bad)
PY
	rm -f "$R/p.trace" "$R/p.jsonl" "$R/pc.trace"
fi

finish
