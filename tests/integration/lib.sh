# lib.sh: shared helpers for the integration tests (sourced, POSIX sh).
#
# Contract: the harness exports FSTAP (the binary), FSTAP_SRCDIR and
# FSTAP_BUILDDIR. A test exits 0 to pass, 1 to fail, 77 to skip; under
# CI=true a skip is a failure, because CI can mount, unless the test is named
# in FSTAP_CI_ALLOWED_SKIPS (.ci/run's commented list). Each test works in its
# own $T directory, removed on exit by the trap, which also runs the test's
# own cleanup function (test_cleanup) if it defines one. A sanitizer's exit
# status or report fails expect_exit whatever code was expected
# (tests/tools/sanitizer-report.sh). FSTAP_TEST_KEEP=DIR keeps the traces
# of a failed test in DIR.

set -eu

: "${FSTAP:?FSTAP must name the fstap binary}"
: "${FSTAP_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$FSTAP_SRCDIR/tests/tools/sanitizer-report.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/fstap-test.XXXXXX")
test_failed=0

LOOP_MNTS=""
LOOP_DEVS=""

_cleanup() {
	rc=$?
	if command -v test_cleanup >/dev/null 2>&1; then test_cleanup || true; fi
	loop_cleanup
	# FSTAP_TEST_KEEP=DIR: the traces of a failed test are kept there
	if [ "$rc" != 0 ] && [ -n "${FSTAP_TEST_KEEP:-}" ]; then
		mkdir -p "$FSTAP_TEST_KEEP" &&
			find "$T" -xdev -name '*.trace' -exec cp {} "$FSTAP_TEST_KEEP/" \; 2>/dev/null
	fi
	rm -rf "$T"
	exit $rc
}
trap _cleanup EXIT
trap 'exit 1' INT TERM

# Skip (exit 77) with a reason; a failure under CI=true unless this test is
# on the list CI allows to skip.
skip() {
	if [ "${CI:-}" = true ] && ! ci_may_skip "$(basename "$0")"; then
		echo "FAIL: cannot run under CI: $*" >&2
		exit 1
	fi
	echo "SKIP: $*" >&2
	exit 77
}

# ci_may_skip NAME: whether NAME (a test's file name) is in FSTAP_CI_ALLOWED_SKIPS.
ci_may_skip() {
	case " ${FSTAP_CI_ALLOWED_SKIPS:-} " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# loop_mount FSTYPE SIZE MNT: a fresh SIZE file system of FSTYPE (ext4, xfs,
# btrfs) on an image in $T, on a loop device, mounted at MNT (made); LOOP_DEV
# names the device. Unmounted (what a failure left on top of it first) and
# detached on exit, after test_cleanup. Skips without root, mkfs or a loop
# device; a failing mkfs or mount fails the test.
loop_mount() {
	[ "$(id -u)" = 0 ] || skip "needs root to mount a loop image"
	command -v "mkfs.$1" >/dev/null 2>&1 || skip "mkfs.$1 is needed"
	command -v losetup >/dev/null 2>&1 || skip "losetup is needed (util-linux)"
	_img="$T/loop$(echo $LOOP_DEVS | wc -w).$1.img"
	truncate -s "$2" "$_img"
	case $1 in
	ext4) set -- "$1" "$2" "$3" -q -F ;;
	*) set -- "$1" "$2" "$3" -q -f ;;
	esac
	"mkfs.$1" "$4" "$5" "$_img" >/dev/null || { fail "mkfs.$1 failed"; return 1; }
	LOOP_DEV=$(losetup -f --show "$_img" 2>/dev/null) || skip "cannot set up a loop device"
	LOOP_DEVS="$LOOP_DEVS $LOOP_DEV"
	mkdir -p "$3"
	mount -t "$1" "$LOOP_DEV" "$3" || { fail "cannot mount $1 on $LOOP_DEV"; return 1; }
	LOOP_MNTS="$3 $LOOP_MNTS"
}

loop_cleanup() {
	for _m in $LOOP_MNTS; do
		_n=0
		while mountpoint -q "$_m" 2>/dev/null && [ $_n -lt 3 ]; do
			umount "$_m" 2>/dev/null || umount -l "$_m" 2>/dev/null || true
			_n=$((_n + 1))
		done
	done
	for _d in $LOOP_DEVS; do
		losetup -d "$_d" 2>/dev/null || true
	done
}

fail() {
	echo "FAIL: $*" >&2
	test_failed=1
}

# expect_exit CODE CMD...: runs CMD, stdout to $T/out, stderr to $T/err.
# Fails on another exit status, and on a sanitizer report in $T/err even
# when the status is CODE.
expect_exit() {
	want=$1
	shift
	set +e
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	set -e
	if sanitizer_report "$T/err"; then
		fail "'$*' exited $got with a sanitizer report: $(head -c 2000 "$T/err")"
		return 1
	fi
	if [ "$got" = "$SANITIZER_EXIT" ] || [ "$got" = "$SANITIZER_EXIT_TSAN" ]; then
		fail "'$*' exited $got, a sanitizer's exit status (expected $want); stderr: $(head -c 600 "$T/err")"
		return 1
	fi
	if [ "$got" != "$want" ]; then
		fail "'$*' exited $got, expected $want; stderr: $(head -c 600 "$T/err")"
		return 1
	fi
	return 0
}

# traced ARGS...: strace ARGS with LeakSanitizer off for the traced
# program: LSan stops the process with a fatal error when it runs under
# ptrace. AddressSanitizer and UBSan still report (and fail the test).
traced() {
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace "$@"
}

# expect_grep FILE PATTERN: FILE must contain the fixed string PATTERN.
expect_grep() {
	if ! grep -qF -- "$2" "$1"; then
		fail "'$1' lacks '$2'; it holds: $(head -c 600 "$1")"
		return 1
	fi
	return 0
}

# Lines a file has, for exact-count assertions.
count_lines() {
	wc -l <"$1" | tr -d ' '
}

# wait_rc PID: waits for the child PID; WAIT_RC is its exit status.
wait_rc() {
	set +e
	wait "$1"
	WAIT_RC=$?
	set -e
}

# wait_until WHAT CMD...: runs CMD until it succeeds, 10 s at most (then
# fails the test with "WHAT within 10 s" and returns 1).
wait_until() {
	_what=$1
	shift
	_i=0
	until "$@"; do
		_i=$((_i + 1))
		if [ $_i -gt 200 ]; then
			fail "no $_what within 10 s"
			return 1
		fi
		sleep 0.05
	done
}

# compare's tests: skips unless root, with loop devices and the tools named
# (searched in PATH, /usr/sbin and /sbin).
need_compare_tools() {
	[ "$(id -u)" = 0 ] || skip "compare needs root (mkfs, losetup, mount)"
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin
		command -v "$t" >/dev/null 2>&1 || skip "$t is not installed"
	done
	[ -e /dev/loop-control ] || skip "no loop devices"
}

# Fails (naming WHEN) if a loop device backed by a file under $T, or a mount
# under IMG, is left, or IMG is not empty: compare_released WHEN IMG.
compare_released() {
	# A loop device detached while its last user still closes it is
	# autocleared a moment later (its image shows as deleted): up to 5 s.
	_n=0
	while losetup -a | grep -F "$T/" >/dev/null && [ $_n -lt 50 ]; do
		sleep 0.1
		_n=$((_n + 1))
	done
	if losetup -a | grep -F "$T/" >/dev/null; then
		fail "$1: loop devices left: $(losetup -a | grep -F "$T/")"
	fi
	if findmnt -rn -o TARGET | grep -F "$2/" >/dev/null; then
		fail "$1: mounts left: $(findmnt -rn -o TARGET | grep -F "$2/")"
	fi
	if [ -n "$(ls "$2")" ]; then
		fail "$1: the image dir was not emptied: $(ls "$2")"
	fi
}

finish() {
	if [ "$test_failed" != 0 ]; then
		exit 1
	fi
	echo "ok"
	exit 0
}
