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
(cd "$G" && git init -q . && git config user.email t@example.org && git config user.name t &&
	printf 'hi\n' >a && printf 'there\n' >d/b && git add . && git commit -qm one &&
	printf 'more\n' >>a && printf 'new\n' >d/c) || fail "cannot make the repository"
cp -a "$G" "$T/git.state"
expect_exit 0 traced -f -tt -T -yy -v -o "$T/git.log" sh -c "cd '$G' && git add -A && git commit -qm two"
replay_case git "$T/git.log" "$G" "$T/git.state"
# each execve names its process: git's own, with its parent and command line
grep -q '"op":"process","pid":[0-9]*,"ppid":[0-9]*,"comm":"git","cmdline":{"hex":"67697400636f6d6d6974' \
	"$T/git.jsonl" || fail "no process record of 'git commit': $(grep '"process"' "$T/git.jsonl")"

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
