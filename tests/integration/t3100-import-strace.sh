#!/bin/sh
# t3100: fstap import --from=strace. Real programs run under
# `strace -f -tt -T -yy -v -o LOG` in a scratch tree that starts with files
# of its own (a copy of it is taken first): tar extracts an archive over
# them, mv renames a directory, rm -r removes one, tar reads the result back
# (getdents64, reads), ln makes a hard link and chmod changes a mode. The
# log is imported with --root (the tree) and --state (the copy), then
# `fstap prepare` + `fstap replay` on a fresh ext4 give 0 divergences and
# the program's final tree. The summary counts the calls outside --root.
# Then 4 Python threads create, write, fsync, read, rename, unlink and list
# files at once (logged with -ttt): their <unfinished ...> calls all join (none left
# unmatched) and the replay gives the same tree with 0 divergences. Last,
# `git add -A && git commit` in a repository with history (lock files,
# renames, objects written through temporary files) replays the same way.
# The summary's calls by name (imported below --root, outside it, with no
# fstap operation, on unknown descriptors) add up, name for name, to the
# counts of strace -c -f of the same tar and git runs from the same trees.
# fs-calls (tests/tools) makes openat2, pwritev2, preadv2, mknod, mknodat,
# utimes, futimesat, utime and an O_TMPFILE file in two processes under
# strace -ff --absolute-timestamps=unix,ns --syscall-times=ns: its per-pid
# files, by their prefix or one by one, give the exact records and replay
# the same way; O_TMPFILE is listed as having no fstap operation.
# A truncated log is an error naming its last line; garbage lines are an
# error naming the first, or are counted with --skip-bad-lines.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-replay.sh"

for c in strace tar python3 git; do
	command -v $c >/dev/null 2>&1 || skip "$c is needed"
done

# --- the workload: a scratch tree with files of its own ---
W="$T/work"
mkdir -p "$T/src/d/e" "$W/src/d" "$W/keep"
printf 'one\n' >"$T/src/a"
head -c 70000 /dev/urandom >"$T/src/d/big"
printf 'two\n' >"$T/src/d/e/c"
ln -s ../a "$T/src/d/l"
(cd "$T" && tar cf "$T/x.tar" src)
printf 'old\n' >"$W/src/a"		# tar replaces it
printf 'kept\n' >"$W/keep/k"
printf 'gone\n' >"$W/keep/gone"
cp -a "$W" "$T/state"			# the initial state, before the run

cat >"$T/run.sh" <<RUN
set -e
cd "$W"
tar xf "$T/x.tar"
mv src/d src/moved
rm -r src/moved/e
rm keep/gone
ln keep/k keep/k2
chmod 600 src/a
tar cf "$T/back.tar" src keep
RUN
expect_exit 0 traced -f -tt -T -yy -v -o "$T/log" sh "$T/run.sh" || finish

# replay_case NAME LOG DIR STATE: imports LOG (root DIR, state STATE),
# prepares and replays it on a fresh directory of the ext4, and compares
# the tree with DIR's.
replay_case() {
	expect_exit 0 "$FSTAP" import --from=strace --root="$3" --state="$4" \
		-o "$T/$1.trace" "$2" || return 0
	cp "$T/err" "$T/$1.summary"
	expect_grep "$T/$1.summary" "fstap: imported "
	expect_grep "$T/$1.summary" "outside --root: "
	expect_grep "$T/$1.summary" "no fstap operation: "
	grep -q "never resumed" "$T/$1.summary" &&
		fail "$1: unfinished calls left unmatched: $(cat "$T/$1.summary")"
	"$FSTAP" export "$T/$1.trace" >"$T/$1.jsonl"
	# With --state every name is known from the state or the log itself: a
	# name learned on the way (a lookup that succeeded) means the import
	# lost track of one (a rename that did not move its names).
	grep '"op":"lookup"' "$T/$1.jsonl" | grep '"res":0,' >"$T/learned" &&
		fail "$1: names the import did not know: $(head -c 600 "$T/learned")"
	mkdir "$T/mnt/$1"
	expect_exit 0 "$FSTAP" prepare "$T/$1.trace" "$T/mnt/$1" || return 0
	expect_exit 0 "$FSTAP" replay --json="$T/$1.json" --divergences="$T/$1.div" \
		"$T/$1.trace" "$T/mnt/$1" || return 0
	[ "$(json_get "$T/$1.json" 'j["runs"][0]["divergences"]')" = 0 ] ||
		fail "$1: divergences: $(head -c 2000 "$T/$1.div")"
	tree_state "$3" >"$T/want"
	tree_state "$T/mnt/$1" >"$T/got"
	diff "$T/want" "$T/got" >"$T/diff" ||
		fail "$1: the replayed tree differs from the program's: $(cat "$T/diff")"
}

loop_mount ext4 64M "$T/mnt" || finish
replay_case tar "$T/log" "$W" "$T/state"
for op in create write read opendir readdir releasedir rename unlink rmdir link \
	setattr mkdir symlink; do
	grep -q "\"op\":\"$op\"" "$T/tar.jsonl" || fail "no $op record in the import"
done

# --- 4 threads at once ---
mkdir "$T/thr" && cp -a "$T/thr" "$T/thr.state"
cat >"$T/thr.py" <<'PY'
import os, sys, threading
def work(d):
    os.mkdir(d)
    for k in range(20):
        p = os.path.join(d, "f%d" % k)
        with open(p, "wb") as f:
            f.write(b"x" * (100 * k + 1))
            os.fsync(f.fileno())
        with open(p, "rb") as f:
            f.read()
        if k % 3 == 0:
            os.rename(p, p + ".r")
        if k % 5 == 0:
            os.unlink(p + ".r" if k % 3 == 0 else p)
    os.listdir(d)
ts = [threading.Thread(target=work, args=(os.path.join(sys.argv[1], "t%d" % i),))
      for i in range(4)]
for t in ts: t.start()
for t in ts: t.join()
PY
expect_exit 0 traced -f -ttt -T -yy -v -o "$T/thr.log" python3 "$T/thr.py" "$T/thr"
grep -q "<unfinished ...>" "$T/thr.log" || fail "4 threads and no unfinished call in the log"
replay_case thr "$T/thr.log" "$T/thr" "$T/thr.state"
[ "$(grep -c '"op":"fsync"' "$T/thr.jsonl")" = 80 ] || fail "not 80 fsync records"

# --- git commit in a repository with history ---
G="$T/git"
mkdir -p "$G/d"
# fixed dates: the same objects, so the same directories, in every run
GIT_AUTHOR_DATE="1000000000 +0000" GIT_COMMITTER_DATE="1000000000 +0000"
export GIT_AUTHOR_DATE GIT_COMMITTER_DATE
(cd "$G" && git init -q . && git config user.email t@example.org && git config user.name t &&
	printf 'hi\n' >a && printf 'there\n' >d/b && git add . && git commit -qm one &&
	printf 'more\n' >>a && printf 'new\n' >d/c &&
	touch -d @1000000000 a d/b d/c) || fail "cannot make the repository"
# (files older than the index: no racy-git re-reads, which depend on timing)
cp -a "$G" "$T/git.state"
expect_exit 0 traced -f -tt -T -yy -v -o "$T/git.log" sh -c "cd '$G' && git add -A && git commit -qm two"
replay_case git "$T/git.log" "$G" "$T/git.state"
# each execve names its process: git's own, with its parent and command line
grep -q '"op":"process","pid":[0-9]*,"ppid":[0-9]*,"comm":"git","cmdline":{"hex":"67697400636f6d6d6974' \
	"$T/git.jsonl" || fail "no process record of 'git commit': $(grep '"process"' "$T/git.jsonl")"

# --- every call accounted for: the summary's counts by name (below
# --root, outside it, no fstap operation, unknown descriptors) are those of
# strace -c of the same program from the same tree ---
# counts_case NAME COUNTS: NAME's import summary against strace -c's COUNTS
counts_case() {
	python3 - "$T/$1.summary" "$2" >"$T/counts.diff" <<'PY' || fail "$1: counts differ from strace -c: $(cat "$T/counts.diff")"
import re, sys
ours, theirs = {}, {}
for line in open(sys.argv[1]):
    m = re.match(r"fstap: (below --root|outside --root|no fstap operation|"
                 r"on descriptors opened before the log): \d+ calls:(.*)", line)
    if m:
        w = m.group(2).split()
        for name, n in zip(w[::2], w[1::2]):
            name = name.split("(")[0]
            ours[name] = ours.get(name, 0) + int(n)
for line in open(sys.argv[2]):
    w = line.split()
    if len(w) == 2 and w[1].isdigit() and w[0] != "total":
        theirs[w[0]] = int(w[1])
ours.pop("exit_group", None)	# strace -c leaves it out: it never returns
bad = ["%s %s (strace -c %s)" % (k, ours.get(k, 0), theirs.get(k, 0))
       for k in sorted(set(ours) | set(theirs)) if ours.get(k, 0) != theirs.get(k, 0)]
if len(theirs) < 20 or "openat" not in ours: bad.append("too few calls: %r" % theirs)
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
}
cp -a "$T/state" "$T/w2"
sed "s|$W|$T/w2|g" "$T/run.sh" >"$T/run2.sh"
expect_exit 0 traced -c -f -U name,calls -o "$T/tar.counts" sh "$T/run2.sh"
counts_case tar "$T/tar.counts"
cp -a "$T/git.state" "$T/git2"
expect_exit 0 traced -c -f -U name,calls -o "$T/git.counts" sh -c "cd '$T/git2' && git add -A && git commit -qm two"
counts_case git "$T/git.counts"
grep -q "^fstap: below --root: .* rename 3" "$T/git.summary" ||
	fail "git: not 3 renames imported: $(cat "$T/git.summary")"

# --- strace -ff (per-pid files), --absolute-timestamps=unix,ns,
# --syscall-times=ns, and the calls common tools do not make: openat2,
# pwritev2, preadv2, mknod, mknodat, utimes, futimesat, utime, O_TMPFILE ---
FC="$FSTAP_BUILDDIR/tests/tools/fs-calls"
mkdir "$T/fc" && cp -a "$T/fc" "$T/fc.state"
expect_exit 0 traced -ff -T -yy -v --absolute-timestamps=unix,ns --syscall-times=ns \
	-o "$T/fc.log" "$FC" "$T/fc"
[ "$(ls "$T"/fc.log.* | wc -l)" = 2 ] || fail "fs-calls under -ff: not 2 per-pid files: $(ls "$T")"
replay_case fc "$T/fc.log" "$T/fc" "$T/fc.state"	# LOG: the files' prefix
expect_grep "$T/fc.summary" " openat(O_TMPFILE) 1"
grep '"op":"\(mknod\|setattr\|create\|write\|read\)"' "$T/fc.jsonl" |
	sed 's/"t":[0-9]*,"dur":[0-9]*,"tid":[0-9]*,"pid":[0-9]*,"uid":0,"gid":0,//' >"$T/fc.ops"
cat >"$T/fc.want" <<'WANT'
{"op":"create","res":0,"obj":1,"name":"f2","mode":33188,"umask":18,"flags":524354,"child":3,"fh":2,"path":"/f2"}
{"op":"write","res":8,"obj":3,"fh":2,"offset":4,"size":8,"path":"/f2"}
{"op":"read","res":8,"obj":3,"fh":2,"size":8,"path":"/f2"}
{"op":"create","res":0,"obj":2,"name":"g","mode":33188,"umask":18,"flags":193,"child":4,"fh":3,"path":"/sub/g"}
{"op":"write","res":3,"obj":4,"fh":3,"size":3,"path":"/sub/g"}
{"op":"mknod","res":0,"obj":1,"name":"fifo","mode":4512,"umask":18,"child":5,"path":"/fifo"}
{"op":"mknod","res":0,"obj":2,"name":"fifo2","mode":4480,"umask":18,"child":6,"path":"/sub/fifo2"}
{"op":"setattr","res":0,"obj":3,"valid":48,"mode":32768,"atime":1000250000000,"mtime":2000000000000,"path":"/f2"}
{"op":"setattr","res":0,"obj":4,"valid":48,"mode":32768,"atime":3000000000000,"mtime":4000000000000,"path":"/sub/g"}
{"op":"setattr","res":0,"obj":3,"valid":48,"mode":32768,"atime":5000000000000,"mtime":6000000000000,"path":"/f2"}
{"op":"setattr","res":0,"obj":4,"valid":432,"mode":32768,"path":"/sub/g"}
WANT
diff "$T/fc.want" "$T/fc.ops" >"$T/fc.diff" || fail "fs-calls' records: $(cat "$T/fc.diff")"
# the per-pid files one by one: the same records (the state aside: reading
# it again changed its directory's atime)
expect_exit 0 "$FSTAP" import --from=strace --root="$T/fc" --state="$T/fc.state" \
	-o "$T/fc2.trace" "$T"/fc.log.*
"$FSTAP" export "$T/fc2.trace" | tail -n +2 | grep -v '"op":"state_' >"$T/fc2.jsonl"
tail -n +2 "$T/fc.jsonl" | grep -v '"op":"state_' | cmp -s - "$T/fc2.jsonl" ||
	fail "-ff files one by one: another trace"
expect_exit 1 "$FSTAP" import --from=strace --root="$T/fc" -o "$T/x.trace" "$T"/fc.log.* "$T/log"
expect_grep "$T/err" "'$T/log' is not a per-pid file of strace -ff (NAME.PID)"
sed 's/^[0-9.]* //' "$(ls "$T"/fc.log.* | head -1)" >"$T/notime.log.1"
cp "$(ls "$T"/fc.log.* | tail -1)" "$T/notime.log.2"
expect_exit 1 "$FSTAP" import --from=strace --root="$T/fc" -o "$T/x.trace" "$T/notime.log"
expect_grep "$T/err" "line 1: no time stamp: the per-pid files of strace -ff are merged by time"

# --- bad logs ---
n=$(count_lines "$T/log")
head -c $(($(wc -c <"$T/log") - 20)) "$T/log" >"$T/cut.log"
expect_exit 1 "$FSTAP" import --from=strace --root="$W" -o "$T/cut.trace" "$T/cut.log"
expect_grep "$T/err" "fstap: error: $T/cut.log: line $n: "
[ -e "$T/cut.trace" ] && fail "a failed import left its trace"
{ head -n 3 "$T/log"; echo "garbage line"; echo "12 10:00:00.1 close(3"; tail -n +4 "$T/log"; } >"$T/bad.log"
expect_exit 1 "$FSTAP" import --from=strace --root="$W" -o "$T/bad.trace" "$T/bad.log"
expect_grep "$T/err" "fstap: error: $T/bad.log: line 4: not a line of strace output"
expect_exit 0 "$FSTAP" import --from=strace --skip-bad-lines --root="$W" -o "$T/bad.trace" "$T/bad.log"
expect_grep "$T/err" "fstap: 2 malformed lines skipped"
expect_exit 2 "$FSTAP" import --root="$W" -o "$T/x.trace" "$T/log"
expect_grep "$T/err" "need --from=strace"

finish
