# lib-mpi.sh: helpers for the tests of `fstap replay --mpi` (sourced after
# lib.sh). They need a build with MPI (configure found Open MPI) and mpirun
# (Debian's openmpi-bin): without either they skip, which fails under CI.

if ! command -v mpirun >/dev/null 2>&1; then
	skip "mpirun is needed (apt-get install openmpi-bin)"
fi
if [ -n "${FSTAP_BUILDDIR:-}" ] && ! grep -q '^#define HAVE_MPI 1' "$FSTAP_BUILDDIR/config.h"; then
	skip "fstap is built without MPI (apt-get install libopenmpi-dev, configure --with-mpi)"
fi

# In a build with LeakSanitizer, Open MPI's own allocations kept until exit
# are not fstap's leaks (the ranks inherit the environment). Open MPI has no
# frame pointers: only the slow unwinder at each malloc gives stacks that
# name its libraries, as the suppressions need.
LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$FSTAP_SRCDIR/tests/tools/lsan-openmpi.supp:fast_unwind_on_malloc=0"
export LSAN_OPTIONS

# mpirun's options for ranks on this host: as root, more ranks than cores.
MPIRUN_OPTS="--allow-run-as-root --oversubscribe --bind-to none"

# mpi_run NP ARGS...: mpirun of NP ranks on this host, each running ARGS.
mpi_run() {
	_np=$1
	shift
	# shellcheck disable=SC2086
	mpirun $MPIRUN_OPTS -np "$_np" "$@"
}

# mpi_kill_rank1 TRACE ARGS...: runs `mpirun -np 2 ARGS` in the background
# (a replay of TRACE that lasts long: paced), kills rank 1 (SIGKILL) a second
# after both ranks have TRACE open, and fails unless mpirun ends within 40 s
# (a wide margin for its SIGTERM to rank 0 on a loaded machine or under
# sanitizers), non-zero, with a line naming rank 1 and its signal, rank 0 is
# gone too, and no report was printed. The test's test_cleanup (or
# apps_cleanup_extra) calls mpi_kill_cleanup.
MPI_PID=""
MPI_R0=""
MPI_R1=""
mpi_kill_cleanup() {
	for p in $MPI_R0 $MPI_R1 $MPI_PID; do kill -9 "$p" 2>/dev/null || true; done
	[ -z "$MPI_PID" ] || wait "$MPI_PID" 2>/dev/null || true
}

# mpi_rank_pid K: the pid of rank K (a child of mpirun with OMPI_COMM_WORLD_RANK=K).
mpi_rank_pid() {
	for p in $(pgrep -P "$MPI_PID"); do
		if { tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1"; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

mpi_kill_rank1() {
	_trace=$(basename "$1")
	shift
	# shellcheck disable=SC2086
	mpirun $MPIRUN_OPTS -np 2 "$@" >"$T/mpi.out" 2>"$T/mpi.err" &
	MPI_PID=$!
	_up() { MPI_R0=$(mpi_rank_pid 0) && MPI_R1=$(mpi_rank_pid 1) && [ -n "$MPI_R0" ] && [ -n "$MPI_R1" ]; }
	wait_until "both ranks" _up || return 1
	_replaying() { ls -l "/proc/$MPI_R0/fd" "/proc/$MPI_R1/fd" 2>/dev/null | grep -c "$_trace" | grep -qx 2; }
	wait_until "both ranks replaying" _replaying || return 1
	sleep 1
	kill -9 "$MPI_R1"
	_i=0
	while kill -0 "$MPI_PID" 2>/dev/null && [ $_i -lt 400 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	if kill -0 "$MPI_PID" 2>/dev/null; then
		fail "mpirun still runs 40 s after rank 1 was killed"
		return 1
	fi
	wait_rc "$MPI_PID"
	MPI_PID=""
	[ "$WAIT_RC" != 0 ] || fail "mpirun exited 0 after a rank was killed"
	expect_grep "$T/mpi.err" "process rank 1"
	expect_grep "$T/mpi.err" "exited on signal 9 (Killed)"
	_gone() { ! kill -0 "$1" 2>/dev/null || grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
	wait_until "end of rank 0 (pid $MPI_R0)" _gone "$MPI_R0"
	wait_until "end of rank 1 (pid $MPI_R1)" _gone "$MPI_R1"
	[ ! -s "$T/mpi.out" ] || fail "a report after a rank died: $(cat "$T/mpi.out")"
}
