#!/bin/sh
# t2430: mpirun -np N fstap replay --mpi --split=process|thread on one host,
# of a trace recorded from a real shell script (a dozen processes that work
# in their own directories and in a shared one, one after another and at
# once): the ranks replay their shares of the processes (threads) on one
# DIR and give the single replay's operation counts per op, its final tree
# and no more divergences; some operations waited for ones of other ranks
# (rank_deps > 0); the reduced histograms are the sums of the ranks';
# with --prepare rank 0 prepares DIR in the job while the others wait;
# --map puts every process on the rank it names; a bad map or split is
# refused; a rank killed midway makes mpirun stop the others.
. "$(dirname "$0")/lib-apps.sh"
. "$(dirname "$0")/lib-mpi.sh"
need_fuse

apps_cleanup_extra() { mpi_kill_cleanup; }

# Every mpirun of this test is bounded: a deadlock fails it, not CI.
mpi_split() {
	_np=$1
	shift
	# shellcheck disable=SC2086
	timeout -k 5 120 mpirun $MPIRUN_OPTS -np "$_np" "$@"
}

mkdir "$T/src"
app_record work "$T/src" '
	mkdir shared
	echo seed >shared/seed
	for p in 1 2 3 4 5 6; do
		(
			mkdir d$p
			for i in 1 2 3 4 5; do echo "$p $i" >d$p/f$i; done
			mv d$p/f1 d$p/g1
			rm d$p/f2
			cat d$p/f3 shared/seed >/dev/null
			echo $p >>shared/log
			ln d$p/f4 shared/l$p
			chmod 600 d$p/f5
		) &
	done
	wait
	cat shared/log >/dev/null
	ls -l shared >/dev/null
	for p in 1 2 3; do rm -r d$p; done
	mv shared/l4 d4/moved
' || exit 1

mkdir "$T/one"
expect_exit 0 "$FSTAP" prepare -q "$T/work.trace" "$T/one"
expect_exit 0 "$FSTAP" replay --json="$T/one.json" "$T/work.trace" "$T/one"
tree_state "$T/one" >"$T/one.tree"

# check_split SPLIT N [--prepare]: --prepare: rank 0 prepares DIR in the
# job, the other ranks wait for it, instead of fstap prepare before it
check_split() {
	_split=$1 _n=$2 _d="$T/$1$2" _prep=${3:-}
	mkdir "$_d"
	[ -n "$_prep" ] || expect_exit 0 "$FSTAP" prepare -q "$T/work.trace" "$_d"
	expect_exit 0 mpi_split "$_n" "$FSTAP" replay --mpi --split="$_split" $_prep \
		--json="$T/$_split$_n.json" "$T/work.trace" "$_d" || return 1
	tree_state "$_d" >"$T/tree"
	cmp -s "$T/tree" "$T/one.tree" ||
		fail "--split=$_split -np $_n: the tree differs: $(diff "$T/one.tree" "$T/tree")"
	python3 - "$T/one.json" "$T/$_split$_n.json" "$_n" <<'PY' || fail "--split=$_split -np $_n: results"
import json, sys
one = json.load(open(sys.argv[1]))["runs"][0]
r = json.load(open(sys.argv[2]))["runs"][0]
n = int(sys.argv[3])
assert r["ops"] == one["ops"] > 100, (r["ops"], one["ops"])
assert r["op_records"] == one["op_records"], (r["op_records"], one["op_records"])
assert r["divergences"] <= one["divergences"], (r["divergences"], one["divergences"])
assert r["rank_deps"] > 0, r["rank_deps"]
assert sorted(r["by_op"]) == sorted(one["by_op"])
ranks = r["ranks"]
assert [q["rank"] for q in ranks] == list(range(n))
assert sum(q["ops"] for q in ranks) == r["ops"]
assert sum(q["rank_deps"] for q in ranks) == r["rank_deps"]
assert sum(1 for q in ranks if q["ops"]) >= 2, [q["ops"] for q in ranks]
for op, e in r["by_op"].items():
    per = [q["by_op"][op] for q in ranks if op in q["by_op"]]
    assert e["count"] == one["by_op"][op]["count"] == sum(p["count"] for p in per), op
    assert e["bytes"] == sum(p["bytes"] for p in per), op
    h = e["lat_ns"]
    assert h["n"] == sum(p["lat_ns"]["n"] for p in per), op
    assert h["min"] == min(p["lat_ns"]["min"] for p in per), op
    assert h["max"] == max(p["lat_ns"]["max"] for p in per), op
PY
}

check_split process 2
check_split process 4 --prepare
check_split thread 2
check_split thread 4

# --map: every process on rank 1 (of 2): rank 0 replays nothing.
"$FSTAP" export "$T/work.trace" |
	python3 -c 'import json, sys
pids = sorted({j["pid"] for j in map(json.loads, sys.stdin) if "pid" in j})
print("# every process on rank 1")
for p in pids: print(p, 1)' >"$T/map"
mkdir "$T/mapped"
expect_exit 0 "$FSTAP" prepare -q "$T/work.trace" "$T/mapped"
expect_exit 0 mpi_split 2 "$FSTAP" replay --mpi --split=process --map="$T/map" \
	--json="$T/mapped.json" "$T/work.trace" "$T/mapped"
python3 - "$T/one.json" "$T/mapped.json" <<'PY' || fail "--map: results"
import json, sys
one = json.load(open(sys.argv[1]))["runs"][0]
r = json.load(open(sys.argv[2]))["runs"][0]
assert [q["ops"] for q in r["ranks"]] == [0, one["ops"]], [q["ops"] for q in r["ranks"]]
assert r["rank_deps"] == 0
PY
tree_state "$T/mapped" >"$T/tree"
cmp -s "$T/tree" "$T/one.tree" || fail "--map: the tree differs: $(diff "$T/one.tree" "$T/tree")"

# A map naming a rank the job does not have, or malformed: every rank exits 1.
echo "100 5" >"$T/bad.map"
expect_exit 1 mpi_split 2 "$FSTAP" replay --mpi --split=process --map="$T/bad.map" \
	"$T/work.trace" "$T/mapped"
expect_grep "$T/err" "--map '$T/bad.map': line 1: rank 5, but the job has 2 ranks (0 to 1)"
printf '# x\n100 x\n' >"$T/bad.map"
expect_exit 1 mpi_split 2 "$FSTAP" replay --mpi --split=thread --map="$T/bad.map" \
	"$T/work.trace" "$T/mapped"
expect_grep "$T/err" "--map '$T/bad.map': line 2: expected 'TID RANK', not '100 x'"
expect_exit 2 "$FSTAP" replay --mpi --split=host "$T/work.trace" "$T/mapped"
expect_grep "$T/err" "--split must be clone, process or thread, not 'host'"
expect_exit 2 "$FSTAP" replay --mpi --map="$T/map" "$T/work.trace" "$T/mapped"
expect_grep "$T/err" "--map needs --split=process or --split=thread"
expect_exit 2 "$FSTAP" replay --mpi --split=thread --order=strict "$T/work.trace" "$T/mapped"

# Rank 1 killed midway through a 60 s paced trace of two processes, each
# waiting for the other's previous statfs: mpirun names it and stops rank 0.
python3 - >"$T/slow.jsonl" <<'PY'
import json
print(json.dumps({"fstap": "trace", "version": "1.0", "start_realtime_ns": 1764460800000000000,
                  "start_monotonic_ns": 0, "metadata": {"note": "t2430"}}))
print(json.dumps({"op": "state_inode", "obj": 1, "mode": 0o40755, "nlink": 2, "ino": 2}))
for i in range(120):
    p = 100 + i % 2
    print(json.dumps({"op": "statfs", "t": 1000 + i * 500000000, "dur": 100, "tid": p,
                      "pid": p, "obj": 1}))
print(json.dumps({"op": "footer", "t": 1000 + 120 * 500000000}))
PY
expect_exit 0 "$FSTAP" import -o "$T/slow.trace" "$T/slow.jsonl"
mkdir "$T/slow"
expect_exit 0 "$FSTAP" prepare -q "$T/slow.trace" "$T/slow"
mpi_kill_rank1 "$T/slow.trace" "$FSTAP" replay --mpi --split=process --pace=orig \
	"$T/slow.trace" "$T/slow"
finish
