#!/bin/sh
# t3100: fstap import --from=strace. Real programs run under
# `strace -f -tt -T -yy -v -o LOG` in a scratch tree that starts with files
# of its own (a copy of it is taken first): tar extracts an archive over
# them, mv renames a directory, rm -r removes one, tar reads the result back
# (getdents64, reads), ln makes a hard link and chmod changes a mode. The
# log is imported with --root (the tree) and --state (the copy), then
# `fstap prepare` + `fstap replay` on a fresh ext4 give 0 divergences and
# the program's final tree. The summary counts the calls outside --root.
# A truncated log is an error naming its last line; garbage lines are an
# error naming the first, or are counted with --skip-bad-lines.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-replay.sh"

for c in strace tar python3; do
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

# --- import, prepare, replay on a fresh file system ---
expect_exit 0 "$FSTAP" import --from=strace --root="$W" --state="$T/state" -o "$T/t.trace" "$T/log"
expect_grep "$T/err" "fstap: imported "
expect_grep "$T/err" "outside --root: "
expect_grep "$T/err" "no fstap operation: "
grep -q "unfinished calls never resumed" "$T/err" && fail "unmatched unfinished calls: $(cat "$T/err")"
"$FSTAP" export "$T/t.trace" >"$T/t.jsonl"
for op in create write read readdir rename unlink rmdir link setattr mkdir symlink; do
	grep -q "\"op\":\"$op\"" "$T/t.jsonl" || fail "no $op record in the import"
done

# With --state every name is known from the state or the log itself: a
# name learned on the way (a lookup that succeeded) means the import lost
# track of one (a rename that did not move its names).
grep '"op":"lookup"' "$T/t.jsonl" | grep '"res":0,' >"$T/learned" &&
	fail "names the import did not know: $(head -c 600 "$T/learned")"

loop_mount ext4 64M "$T/mnt" || finish
mkdir "$T/mnt/r"
expect_exit 0 "$FSTAP" prepare "$T/t.trace" "$T/mnt/r"
expect_exit 0 "$FSTAP" replay --json="$T/r.json" --divergences="$T/div.jsonl" "$T/t.trace" "$T/mnt/r"
[ "$(json_get "$T/r.json" 'j["runs"][0]["divergences"]')" = 0 ] ||
	fail "divergences: $(head -c 2000 "$T/div.jsonl")"
rm -f "$T/back.tar"
tree_state "$W" >"$T/want"
tree_state "$T/mnt/r" >"$T/got"
diff "$T/want" "$T/got" >"$T/diff" || fail "the replayed tree differs from the program's: $(cat "$T/diff")"

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
