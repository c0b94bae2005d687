#!/bin/sh
# t1130: stopping the recorder. SIGINT and SIGTERM unmount, finish the trace
# and exit 0 with one summary line (trace, records, bytes, duration, lost);
# -q prints nothing; with '-- CMD' the summary comes too and the exit status
# is the command's, and a SIGTERM sent to fstap alone goes on to the
# command. A mount point still used by a process (of another user) is not
# torn away: the recorder says once that it waits, keeps serving, and ends
# cleanly when the process leaves; a second signal detaches it. And the
# recorder as an unprivileged user (fusermount3): where /dev/fuse is not
# open to users (0600, as in some containers), the test runs itself again
# in a private mount namespace with a 0666 node bound over /dev/fuse, as
# Debian installs it; nothing of that is seen outside the namespace.
. "$(dirname "$0")/lib-record.sh"
need_fuse
command -v setpriv >/dev/null 2>&1 || skip "setpriv is missing (util-linux)"

U=65534
chmod 755 "$T"
mkdir -p "$T/m" "$T/b/d"
echo hello >"$T/b/d/x"
chmod 755 "$T/m" "$T/b" "$T/b/d"
chmod 644 "$T/b/d/x"
AS_USER="setpriv --reuid=$U --regid=$U --clear-groups"	# not a function: $! must be its pid
as_user() { $AS_USER "$@"; }
if [ -z "${FSTAP_T1130_NS:-}" ] && ! $AS_USER sh -c 'exec 3<>/dev/fuse' 2>/dev/null &&
	command -v unshare >/dev/null 2>&1; then
	mknod "$T/fuse" c "0x$(stat -c %t /dev/fuse)" "0x$(stat -c %T /dev/fuse)"
	chmod 666 "$T/fuse"
	set +e
	FSTAP_T1130_NS=1 unshare -m --propagation private \
		sh -c "mount --bind '$T/fuse' /dev/fuse && exec sh '$0'"
	exit $?
fi
SLEEPER=
test_cleanup_extra() { if [ -n "$SLEEPER" ]; then kill "$SLEEPER" 2>/dev/null || true; fi; }

# wait_grep FILE TEXT: until FILE holds TEXT (10 s at most).
wait_grep() {
	wait_until "'$2' in $1" grep -qF -- "$2" "$1" || { echo "$1: $(cat "$1")" >&2; return 1; }
}

# stopped RC TRACE [SIGNAL]: the recorder exited RC; its stderr is the one
# summary line of a complete TRACE; the mount is gone.
stopped() {
	wait_rc "$REC_PID"
	[ "$WAIT_RC" = "$1" ] || fail "fstap record exited $WAIT_RC, expected $1: $(cat "$T/rec.err")"
	summary_of "$T/rec.err" "$2" "${3:-}"
	is_mounted "$T/m" && fail "'$T/m' is still mounted"
	return 0
}

# summary_of ERR TRACE [SIGNAL]: ERR's last line is TRACE's summary, the only other
# lines those given in $ALSO (a fixed string each).
summary_of() {
	bytes=$(stat -c %s "$2")
	expect_exit 0 "$FSTAP" info --json "$2" || return 0
	n=$(json_get "$T/out" 'j["footer"]["records"]' 2>/dev/null || echo "?")
	how=
	[ -z "${3:-}" ] || how=", stopped by $3"
	last=$(tail -n 1 "$1")
	echo "$last" | grep -Eqx "fstap: trace '$2': $n records, $bytes bytes, [0-9]+\.[0-9]{3} s, 0 lost$how" ||
		fail "not the summary of '$2' ($n records, $bytes bytes$how): '$last'"
	[ "$(count_lines "$1")" = $((1 + ${ALSO_LINES:-0})) ] || fail "more than the summary: $(cat "$1")"
}
ALSO_LINES=0

json_get() {
	$PY -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"
}

# --- SIGINT, SIGTERM, -q ---------------------------------------------------------
for sig in INT TERM HUP; do
	rec_start "$T/m" -o "$T/$sig.trace" "$T/b" "$T/m" || exit 1
	[ "$(cat "$T/m/d/x")" = hello ] || fail "cannot read through the mount"
	kill -$sig "$REC_PID"
	stopped 0 "$T/$sig.trace" SIG$sig
	expect_exit 0 "$FSTAP" info "$T/$sig.trace" && expect_grep "$T/out" "status:    complete"
done
rec_start "$T/m" -q -o "$T/q.trace" "$T/b" "$T/m" || exit 1
cat "$T/m/d/x" >/dev/null
kill -TERM "$REC_PID"
wait_rc "$REC_PID"
[ "$WAIT_RC" = 0 ] || fail "fstap record -q exited $WAIT_RC on SIGTERM"
[ ! -s "$T/rec.err" ] || fail "fstap record -q printed: $(cat "$T/rec.err")"

# --- DIR -- CMD ------------------------------------------------------------------
cd "$T"
"$FSTAP" record -o "$T/c.trace" "$T/b" -- cat b/d/x >"$T/c.out" 2>"$T/rec.err" ||
	fail "record -- cat failed: $(cat "$T/rec.err")"
[ "$(cat "$T/c.out")" = hello ] || fail "the command's output: $(cat "$T/c.out")"
summary_of "$T/rec.err" "$T/c.trace"
set +e
"$FSTAP" record -o "$T/c3.trace" "$T/b" -- sh -c 'ls b >/dev/null; exit 3' 2>"$T/rec.err"
rc=$?
set -e
[ "$rc" = 3 ] || fail "record -- CMD exited $rc, not the command's 3"
summary_of "$T/rec.err" "$T/c3.trace"
# the command leaves a process behind on the mount: waited for, said once
"$FSTAP" record -o "$T/cb.trace" "$T/b" -- sh -c 'cd b/d || exit 1; sleep 1 </dev/null >/dev/null 2>&1 &' \
	2>"$T/rec.err" || fail "record -- CMD with a process left behind failed: $(cat "$T/rec.err")"
expect_grep "$T/rec.err" "fstap: waiting for 1 process still using '$T/b' (stop again to detach it)"
ALSO_LINES=1
summary_of "$T/rec.err" "$T/cb.trace"
ALSO_LINES=0
# SIGTERM to fstap alone: the command gets it, exits by it, the trace is complete
"$FSTAP" record -o "$T/ct.trace" "$T/b" -- sh -c 'cat b/d/x >/dev/null; exec sleep 60' \
	>/dev/null 2>"$T/rec.err" &
REC_PID=$!
REC_PIDS="$REC_PIDS $REC_PID"
REC_MOUNTS="$REC_MOUNTS $T/b"
wait_until "start of the command" pgrep -P "$REC_PID" -x sleep >/dev/null
kill -TERM "$REC_PID"
wait_rc "$REC_PID"
[ "$WAIT_RC" = 143 ] || fail "record -- sleep exited $WAIT_RC after SIGTERM, expected the command's 143"
summary_of "$T/rec.err" "$T/ct.trace"
cd /

# --- a mount point still in use ------------------------------------------------------
# sleeper: a process of uid 65534 with its working directory on the mount
start_sleeper() {
	$AS_USER sh -c "cd '$T/m/d' && exec sleep 60" &
	SLEEPER=$!
	wait_until "sleeper on the mount" sh -c "[ \"\$(readlink /proc/$SLEEPER/cwd)\" = '$T/m/d' ]"
}
stop_sleeper() {
	kill "$SLEEPER"
	wait "$SLEEPER" 2>/dev/null || true
	SLEEPER=
}
wait_line="fstap: waiting for 1 process still using '$T/m' (stop again to detach it)"

rec_start "$T/m" -o "$T/busy.trace" "$T/b" "$T/m" || exit 1
start_sleeper
kill -INT "$REC_PID"
wait_grep "$T/rec.err" "$wait_line"
# still serving, for the sleeper and for new users
kill -0 "$REC_PID" || fail "the recorder did not wait"
[ "$(cat "$T/m/d/x")" = hello ] || fail "the mount stopped serving while waiting"
[ "$(as_user cat "/proc/$SLEEPER/cwd/x")" = hello ] || fail "the sleeper lost its directory"
sleep 0.5
stop_sleeper
ALSO_LINES=1
stopped 0 "$T/busy.trace" SIGINT
[ "$(grep -c 'waiting for' "$T/rec.err")" = 1 ] || fail "not said once: $(cat "$T/rec.err")"
expect_grep "$T/rec.err" "$wait_line"

# a second signal detaches it: the mount point is free, the sleeper still served
rec_start "$T/m" -o "$T/lazy.trace" "$T/b" "$T/m" || exit 1
start_sleeper
kill -TERM "$REC_PID"
wait_grep "$T/rec.err" "$wait_line"
kill -TERM "$REC_PID"
wait_grep "$T/rec.err" "detaching '$T/m' (lazy unmount)"
wait_until "unmount after the second signal" sh -c "! grep -qF ' $T/m ' /proc/self/mounts"
[ "$(as_user cat "/proc/$SLEEPER/cwd/x")" = hello ] || fail "the detached mount stopped serving"
stop_sleeper
ALSO_LINES=2
stopped 0 "$T/lazy.trace" SIGTERM
ALSO_LINES=0

# --- the recorder as an unprivileged user (fusermount3) --------------------------------
if as_user sh -c 'exec 3<>/dev/fuse' 2>/dev/null; then
	mkdir "$T/u"
	mkdir "$T/u/b" "$T/u/m"
	echo hello >"$T/u/b/x"
	chown -R $U:$U "$T/u"
	$AS_USER "$FSTAP" record -o "$T/u/t.trace" "$T/u/b" "$T/u/m" 2>"$T/rec.err" &
	REC_PID=$!
	REC_PIDS="$REC_PIDS $REC_PID"
	REC_MOUNTS="$REC_MOUNTS $T/u/m"
	wait_grep /proc/self/mounts " $T/u/m "
	$AS_USER sh -c "cd '$T/u/m' && exec sleep 60" &
	SLEEPER=$!
	sleep 0.3
	kill -INT "$REC_PID"
	wait_grep "$T/rec.err" "fstap: waiting for 1 process still using '$T/u/m'"
	stop_sleeper
	wait_rc "$REC_PID"
	[ "$WAIT_RC" = 0 ] || fail "the user's recorder exited $WAIT_RC: $(cat "$T/rec.err")"
	expect_grep "$T/rec.err" "fstap: trace '$T/u/t.trace': "
	is_mounted "$T/u/m" && fail "the user's mount is still there"
else
	echo "note: uid $U cannot open /dev/fuse here: the unprivileged recorder is not run" >&2
fi
finish
