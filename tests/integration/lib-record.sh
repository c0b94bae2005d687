# lib-record.sh: helpers for the recorder's integration tests (t1NNN), on
# top of lib.sh (sourced first). They mount for real: the recorder runs in
# the background, its pid is kept, and the EXIT trap unmounts every mount
# point this test made and kills the recorder by its pid.
#
#   need_fuse                 skip (77; a failure under CI=true) without root,
#                             /dev/fuse or fusermount3
#   rec_start MNT ARGS...     runs `fstap record ARGS` in the background and
#                             waits until MNT is mounted; REC_PID is its pid
#   rec_stop MNT              unmounts MNT, waits for the recorder; REC_RC is
#                             its exit status (a failure unless 0, or on a
#                             sanitizer report in its stderr)
#   rec_export TRACE OUT      exports TRACE as JSON Lines to OUT
#   jq_count FILTER [FILE]    how many records FILTER selects
#   $PY $TOOLS CMD ...        tests/integration/record-tools.py (workload,
#                             tree dumps, trace queries)

. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
TOOLS="$FSTAP_SRCDIR/tests/integration/record-tools.py"
REC_MOUNTS=""
REC_PIDS=""
REC_PID=""
REC_RC=""

need_fuse() {
	[ "$(id -u)" = 0 ] || skip "the recorder tests mount with allow_other: run as root"
	[ -c /dev/fuse ] || skip "/dev/fuse is missing"
	command -v fusermount3 >/dev/null 2>&1 || skip "fusermount3 is missing (apt-get install fuse3)"
}

is_mounted() {
	# /proc/self/mounts escapes spaces as \040; test paths have none
	awk -v m="$1" '$2 == m { found = 1 } END { exit !found }' /proc/self/mounts
}

rec_cleanup() {
	for m in $REC_MOUNTS; do
		if is_mounted "$m"; then
			fusermount3 -u "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
		fi
	done
	for p in $REC_PIDS; do
		kill "$p" 2>/dev/null || true
	done
	for p in $REC_PIDS; do
		# wait only for our own children; a killed one is reaped here
		wait "$p" 2>/dev/null || true
	done
}

test_cleanup() {
	if command -v test_cleanup_extra >/dev/null 2>&1; then test_cleanup_extra || true; fi
	rec_cleanup
}

rec_start() {
	mnt=$1
	shift
	REC_MOUNTS="$REC_MOUNTS $mnt"
	"$FSTAP" record "$@" >"$T/rec.out" 2>"$T/rec.err" &
	REC_PID=$!
	REC_PIDS="$REC_PIDS $REC_PID"
	i=0
	while ! is_mounted "$mnt"; do
		if ! kill -0 "$REC_PID" 2>/dev/null; then
			fail "fstap record $* exited before mounting: $(cat "$T/rec.err")"
			return 1
		fi
		i=$((i + 1))
		if [ $i -gt 200 ]; then
			fail "fstap record $* did not mount within 10 s"
			return 1
		fi
		sleep 0.05
	done
	return 0
}

rec_stop() {
	fusermount3 -u "$1" || { fail "cannot unmount '$1'"; return 1; }
	set +e
	wait "$REC_PID"
	REC_RC=$?
	set -e
	if [ "$REC_RC" != 0 ]; then
		fail "fstap record exited $REC_RC: $(cat "$T/rec.err")"
		return 1
	fi
	if sanitizer_report "$T/rec.err"; then
		fail "fstap record made a sanitizer report: $(head -c 2000 "$T/rec.err")"
		return 1
	fi
	return 0
}

# jq_count FILTER [FILE]: how many records (lines) FILTER selects.
jq_count() {
	if [ $# -gt 1 ]; then jq -c "select($1)" "$2"; else jq -c "select($1)"; fi | wc -l | tr -d ' '
}

rec_export() {
	"$FSTAP" export "$1" >"$2" || { fail "cannot export '$1'"; return 1; }
}
