#!/bin/sh
# t0300: no command destroys a file it was given. Every command that writes
# a file (export, import, filter, reorder, replay --json/--csv/--divergences,
# compare --out) refuses an output
# that is its input (directly, through a hard link, through a symlink) with
# one line and exit 1, the input unchanged byte for byte; on a full disk (a
# filled ext4 loop image) it fails naming the cause, the old output stays as
# it was and no temporary file is left; killed midway (SIGTERM) it leaves
# no temporary either. The trace is recorded for real, through FUSE.
. "$(dirname "$0")/lib-record.sh"
need_fuse
for t in mkfs.ext4 losetup; do
	command -v "$t" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin
	command -v "$t" >/dev/null 2>&1 || skip "$t is not installed"
done
[ -e /dev/loop-control ] || skip "no loop devices"

DEV=
FULL=$T/full
test_cleanup_extra() {
	if is_mounted "$FULL"; then umount "$FULL" || umount -l "$FULL"; fi
	if [ -n "$DEV" ]; then losetup -d "$DEV"; fi
}

# --- a real trace ---------------------------------------------------------------
mkdir -p "$T/b/d" "$T/target"
for i in 1 2 3 4 5; do echo "file $i" >"$T/b/d/f$i"; done
"$FSTAP" record -q -o "$T/t.trace" "$T/b" -- sh -c "
	cd '$T/b' && ls d >/dev/null && cat d/f3 d/f1 d/f5 >/dev/null && echo new >d/g" ||
	fail "the recording failed"
"$FSTAP" export -o "$T/t.jsonl" "$T/t.trace" || fail "cannot export the trace"

# refuses OUT IN CMD...: CMD, whose output OUT is (a name of) the input IN,
# refuses with one line and exit 1 and leaves IN as it was.
refuses() {
	out=$1 in=$2
	shift 2
	cp "$in" "$T/in.copy"
	expect_exit 1 "$@" || return 0
	[ "$(count_lines "$T/err")" = 1 ] || fail "'$*': not one line: $(cat "$T/err")"
	expect_grep "$T/err" "fstap: error: the output '$out' is the input"
	cmp -s "$in" "$T/in.copy" || fail "'$*' changed its input '$in'"
	[ -z "$(ls -A "$(dirname "$out")" | grep '^\.')" ] ||
		fail "'$*' left a temporary: $(ls -A "$(dirname "$out")")"
}

mkdir "$T/cmp"
cp "$T/t.trace" "$T/cmp/results.json"
ln "$T/t.trace" "$T/hard.trace"
ln -s t.trace "$T/sym.trace"
ln "$T/t.jsonl" "$T/hard.jsonl"
ln -s t.jsonl "$T/sym.jsonl"
for o in "$T/t.trace" "$T/hard.trace" "$T/sym.trace"; do
	refuses "$o" "$T/t.trace" "$FSTAP" export -o "$o" "$T/t.trace"
	refuses "$o" "$T/t.trace" "$FSTAP" filter --op=read "$T/t.trace" -o "$o"
	refuses "$o" "$T/t.trace" "$FSTAP" reorder --by=name "$T/t.trace" -o "$o"
	for r in json csv divergences; do
		refuses "$o" "$T/t.trace" "$FSTAP" replay --$r="$o" "$T/t.trace" "$T/target"
	done
done
[ -z "$(ls -A "$T/target")" ] || fail "a refused replay ran: $(ls -A "$T/target")"
expect_grep "$T/err" "(the same file, through a symlink)"
for o in "$T/t.jsonl" "$T/hard.jsonl" "$T/sym.jsonl"; do
	refuses "$o" "$T/t.jsonl" "$FSTAP" import -o "$o" "$T/t.jsonl"
done
refuses "$T/hard.trace" "$T/t.trace" "$FSTAP" export -o "$T/hard.trace" "$T/t.trace"
expect_grep "$T/err" "(the same file, through a hard link)"
# compare: before any run, when one of the result files is the trace
refuses "$T/cmp/results.json" "$T/cmp/results.json" "$FSTAP" compare \
	--target=d="$T/target" --runs=1 --out="$T/cmp" "$T/cmp/results.json"
rm "$T/cmp/results.json"
ln "$T/t.trace" "$T/cmp/results.csv"
refuses "$T/cmp/results.csv" "$T/t.trace" "$FSTAP" compare \
	--target=d="$T/target" --runs=1 --out="$T/cmp" "$T/t.trace"
rm "$T/cmp/results.csv"
ln -s ../t.trace "$T/cmp/chart.svg"
refuses "$T/cmp/chart.svg" "$T/t.trace" "$FSTAP" compare \
	--target=d="$T/target" --runs=1 --out="$T/cmp" "$T/t.trace"
rm "$T/cmp/chart.svg"
# standard output appended to the input
cp "$T/t.trace" "$T/in.copy"
"$FSTAP" export "$T/t.trace" >>"$T/t.trace" 2>"$T/err" &
wait_rc $!
[ "$WAIT_RC" = 1 ] || fail "export to stdout appended to its input exited $WAIT_RC"
expect_grep "$T/err" "standard output is redirected to it"
cmp -s "$T/t.trace" "$T/in.copy" || fail "export to stdout changed its input"
# and an output that is not an input is written
expect_exit 0 "$FSTAP" filter --op=read "$T/t.trace" -o "$T/f.trace"
expect_exit 0 "$FSTAP" info "$T/f.trace" && expect_grep "$T/out" "complete"

# --- a full disk under the output -------------------------------------------------
truncate -s 8M "$T/img"
mkfs.ext4 -q -F -m 0 "$T/img"
DEV=$(losetup -f --show "$T/img")
mkdir "$FULL"
mount "$DEV" "$FULL"
mkdir -p "$FULL/res/logs"
cp "$T/t.trace" "$FULL/old.trace"
cp "$T/t.jsonl" "$FULL/old.jsonl"
echo '{"old": "results"}' >"$FULL/res/results.json"
cp -a "$FULL" "$T/full.copy"
# to the last block: what delayed allocation kept back shows after a sync
for f in 1 2 3; do
	dd if=/dev/zero of="$FULL/fill$f" bs=64k 2>/dev/null || true
	dd if=/dev/zero of="$FULL/fill$f" bs=1k oflag=append conv=notrunc 2>/dev/null || true
	sync
done
[ "$(df --output=avail -B1 "$FULL" | tail -1)" -eq 0 ] || fail "the disk did not fill"

# full_fails CMD...: CMD fails naming the full disk; the old outputs stay, no temporary.
full_fails() {
	expect_exit 1 "$@" || return 0
	expect_grep "$T/err" "No space left on device"
	for f in old.trace old.jsonl res/results.json; do
		cmp -s "$FULL/$f" "$T/full.copy/$f" || fail "'$*' changed the old '$f'"
	done
	left=$(ls -A "$FULL" "$FULL/res" | grep '^\.' || true)
	[ -z "$left" ] || fail "'$*' left a temporary on the full disk: $left"
}
full_fails "$FSTAP" export -o "$FULL/old.jsonl" "$T/t.trace"
full_fails "$FSTAP" import -o "$FULL/old.trace" "$T/t.jsonl"
full_fails "$FSTAP" filter --op=read "$T/t.trace" -o "$FULL/old.trace"
full_fails "$FSTAP" reorder --by=name "$T/t.trace" -o "$FULL/old.trace"
full_fails "$FSTAP" replay --json="$FULL/old.jsonl" "$T/t.trace" "$T/target"
rm -rf "$T/target" && mkdir "$T/target"
full_fails "$FSTAP" compare --target=d="$T/target" --runs=1 --image-dir="$T" \
	--no-progress --out="$FULL/res" "$T/t.trace"
# with room again, the same commands replace the old outputs
rm "$FULL"/fill?
expect_exit 0 "$FSTAP" import -o "$FULL/old.trace" "$T/t.jsonl"
cmp -s "$FULL/old.trace" "$T/full.copy/old.trace" && fail "import did not replace the old trace"
expect_exit 0 "$FSTAP" info "$FULL/old.trace"
umount "$FULL"
losetup -d "$DEV"
DEV=

# --- killed midway -----------------------------------------------------------------
# export reads the trace from a pipe that stays open: given the header and
# the metadata only, it has created its temporary and waits for the records
# when SIGTERM comes.
echo old >"$T/k.jsonl"
mkfifo "$T/fifo"
"$FSTAP" export -o "$T/k.jsonl" - <"$T/fifo" 2>"$T/k.err" &
kpid=$!
exec 3>"$T/fifo"
meta_len=$(od -An -t u4 -j 20 -N 4 "$T/t.trace" | tr -d ' ')
head -c $((64 + meta_len)) "$T/t.trace" >&3
temporary() { ls -A "$T" | grep -q '^\.k\.jsonl\.'; }
wait_until "temporary of the export" temporary
kill -TERM "$kpid"
wait_rc "$kpid"
exec 3>&-
[ "$WAIT_RC" = 143 ] || fail "export killed by SIGTERM exited $WAIT_RC"
[ "$(cat "$T/k.jsonl")" = old ] || fail "the killed export changed its old output"
temporary && fail "the killed export left its temporary"
finish
