#!/bin/sh
# t2176: as fast as possible on one CPU (taskset -c 0), the dispatcher
# replays a trace of one thread itself: the replay starts no thread (strace
# sees no clone), and the closes that come from no thread (tid 0: the
# RELEASE the kernel sends after the application's last close) do not count
# as a second thread's. So it does on two CPUs once the whole trace is
# planned (the default plan). The results and the final tree are those of
# the replay on two CPUs without a plan (--plan-ahead=0), where the
# operations go to a thread of their own, and with --order=resource, where
# each replay thread runs its stream. So are those of two threads whose
# operations do not overlap in time, and of two threads whose opens, reads
# and stats of regular files overlap (such a call waits for no other
# thread's next one). Where two threads' operations overlap and one may
# have waited for the other (a FIFO's reader waits in its open for the
# writer), the one that waited gets its thread on one CPU too, and the
# replay does not hang.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-replay.sh"

command -v strace >/dev/null || skip "strace is not installed"
command -v taskset >/dev/null || skip "taskset is not installed"

cat >"$T/one.jsonl" <<'J'
{"fstap":"trace","version":"1.0","metadata":{"note":"t2176 one thread"}}
{"op":"state_inode","obj":1,"mode":16877,"nlink":2,"ino":2}
{"op":"state_dentry","obj":1,"name":"old","child":2}
{"op":"state_inode","obj":2,"mode":33188,"nlink":1,"size":8192,"ino":3,"extents":[[0,8192]]}
{"op":"mkdir","t":1000,"dur":100,"tid":100,"pid":100,"obj":1,"name":"d","mode":493,"umask":18,"child":10}
{"op":"create","t":1200,"dur":100,"tid":100,"pid":100,"obj":10,"name":"a","mode":33188,"umask":18,"flags":193,"child":11,"fh":1}
{"op":"write","t":1400,"dur":100,"tid":100,"pid":100,"res":4096,"obj":11,"fh":1,"size":4096}
{"op":"flush","t":1600,"dur":100,"tid":100,"pid":100,"obj":11,"fh":1}
{"op":"release","t":1700,"dur":100,"tid":0,"pid":0,"obj":11,"fh":1}
{"op":"setxattr","t":1900,"dur":100,"tid":100,"pid":100,"obj":11,"name":"user.tag","size":5}
{"op":"open","t":2100,"dur":100,"tid":100,"pid":100,"obj":2,"fh":2}
{"op":"read","t":2300,"dur":100,"tid":100,"pid":100,"res":8192,"obj":2,"fh":2,"size":8192}
{"op":"flush","t":2500,"dur":100,"tid":100,"pid":100,"obj":2,"fh":2}
{"op":"release","t":2600,"dur":100,"tid":0,"pid":0,"obj":2,"fh":2}
{"op":"rename","t":2800,"dur":100,"tid":100,"pid":100,"obj":10,"name":"a","newparent":1,"newname":"b"}
{"op":"unlink","t":3000,"dur":100,"tid":100,"pid":100,"obj":1,"name":"old"}
{"op":"footer","t":4000}
J
expect_exit 0 "$FSTAP" import -o "$T/one.trace" "$T/one.jsonl"

# replay_cpus CPUS TRACE NAME [OPTION]: replays TRACE into a fresh $T/NAME
# under strace (threads created, in $T/NAME.strace), on CPUS (taskset) or
# on any CPU ("all"), with OPTION; the JSON in $T/NAME.json
replay_cpus() {
	rm -rf "${T:?}/$3" && mkdir "$T/$3" && : >"$T/$3/old" && truncate -s 8192 "$T/$3/old"
	if [ "$1" = all ]; then
		set -- "" "$2" "$3" "${4:-}"
	else
		set -- "taskset -c $1" "$2" "$3" "${4:-}"
	fi
	# LeakSanitizer cannot run under ptrace (lib.sh's traced)
	# shellcheck disable=SC2086
	expect_exit 0 env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		timeout 60 $1 strace -f -qq -e trace=clone,clone3 -o "$T/$3.strace" \
		"$FSTAP" replay --pace=afap $4 --json="$T/$3.json" "$2" "$T/$3"
}

# by_dispatcher TRACE NAME WHAT [CPUS]: replays TRACE on one CPU (or on
# CPUS) into $T/NAME: no thread started, no divergence; the final tree in
# $T/NAME.tree
by_dispatcher() {
	replay_cpus "${4:-0}" "$1" "$2"
	clones=$(grep -c clone "$T/$2.strace" || true)
	[ "$clones" = 0 ] ||
		fail "on CPUs ${4:-0} the replay of $3 started $clones threads: $(cat "$T/$2.strace")"
	[ "$(json_get "$T/$2.json" 'j["runs"][0]["divergences"]')" = 0 ] ||
		fail "$3 on one CPU: $(json_get "$T/$2.json" 'j["runs"][0]["divergence"]')"
	tree_state "$T/$2" >"$T/$2.tree"
}

by_dispatcher "$T/one.trace" pinned "one thread"
expect_grep "$T/pinned.tree" "b f 644 size=4096 nlink=1 user.tag:5"
[ ! -e "$T/pinned/old" ] || fail "on one CPU: 'old' was not unlinked"

if [ "$(nproc)" -ge 2 ]; then
	by_dispatcher "$T/one.trace" merged "one thread, planned whole" "0-$(($(nproc) - 1))"
	for n in any resource; do
		if [ $n = any ]; then
			replay_cpus all "$T/one.trace" any --plan-ahead=0
		else
			replay_cpus all "$T/one.trace" resource --order=resource
		fi
		grep -q clone "$T/$n.strace" ||
			fail "on $(nproc) CPUs ($n) the replay ran the operations in the dispatcher"
		tree_state "$T/$n" >"$T/$n.tree"
	done
	for n in any resource merged; do
		cmp -s "$T/pinned.tree" "$T/$n.tree" ||
			fail "the trees differ: one CPU: $(cat "$T/pinned.tree"); $n: $(cat "$T/$n.tree")"
		for k in ops bytes_read bytes_written divergences handles_left_open; do
			[ "$(json_get "$T/pinned.json" "j['runs'][0]['$k']")" = \
				"$(json_get "$T/$n.json" "j['runs'][0]['$k']")" ] ||
				fail "$k differs between one CPU and $n"
		done
	done
fi

# Two threads taking turns, none of their operations within another's:
# the dispatcher runs them all, as a thread order replay on threads would.
cat >"$T/turns.jsonl" <<'J'
{"fstap":"trace","version":"1.0","metadata":{"note":"t2176 two threads in turn"}}
{"op":"state_inode","obj":1,"mode":16877,"nlink":2,"ino":2}
{"op":"mkdir","t":1000,"dur":100,"tid":100,"pid":100,"obj":1,"name":"d","mode":493,"umask":18,"child":10}
{"op":"create","t":1200,"dur":100,"tid":101,"pid":100,"obj":10,"name":"a","mode":33188,"umask":18,"flags":193,"child":11,"fh":1}
{"op":"write","t":1400,"dur":100,"tid":100,"pid":100,"res":4096,"obj":11,"fh":1,"size":4096}
{"op":"release","t":1600,"dur":100,"tid":0,"pid":0,"obj":11,"fh":1}
{"op":"rename","t":1800,"dur":100,"tid":101,"pid":100,"obj":10,"name":"a","newparent":1,"newname":"b"}
{"op":"footer","t":4000}
J
expect_exit 0 "$FSTAP" import -o "$T/turns.trace" "$T/turns.jsonl"
by_dispatcher "$T/turns.trace" turns "two threads in turn"
expect_grep "$T/turns.tree" "b f 644 size=4096 nlink=1"

# Two threads whose calls on regular files overlap: B's stat, open and
# read of the file run within A's open and read of it. None of them can
# wait for the other thread: the dispatcher runs them all.
cat >"$T/overlap.jsonl" <<'J'
{"fstap":"trace","version":"1.0","metadata":{"note":"t2176 two threads overlapping"}}
{"op":"state_inode","obj":1,"mode":16877,"nlink":2,"ino":2}
{"op":"state_dentry","obj":1,"name":"old","child":2}
{"op":"state_inode","obj":2,"mode":33188,"nlink":1,"size":8192,"ino":3,"extents":[[0,8192]]}
{"op":"open","t":1000,"dur":900,"tid":100,"pid":100,"obj":2,"fh":1}
{"op":"getattr","t":1100,"dur":100,"tid":101,"pid":100,"obj":2}
{"op":"open","t":1300,"dur":100,"tid":101,"pid":100,"obj":2,"fh":2}
{"op":"read","t":2000,"dur":900,"tid":100,"pid":100,"res":8192,"obj":2,"fh":1,"size":8192}
{"op":"read","t":2100,"dur":100,"tid":101,"pid":100,"res":4096,"obj":2,"fh":2,"size":4096}
{"op":"release","t":3000,"dur":100,"tid":0,"pid":0,"obj":2,"fh":1}
{"op":"release","t":3200,"dur":100,"tid":0,"pid":0,"obj":2,"fh":2}
{"op":"footer","t":4000}
J
expect_exit 0 "$FSTAP" import -o "$T/overlap.trace" "$T/overlap.jsonl"
by_dispatcher "$T/overlap.trace" overlap "two threads overlapping on a regular file"
[ "$(json_get "$T/overlap.json" 'j["runs"][0]["bytes_read"]')" = 12288 ] ||
	fail "two threads overlapping: read $(json_get "$T/overlap.json" 'j["runs"][0]["bytes_read"]') bytes, not 12288"

# Two threads: A's open of the FIFO for reading lasts until B's open of it
# for writing (recorded within it). Run by the dispatcher alone, A's open
# would wait forever.
cat >"$T/fifo.jsonl" <<'J'
{"fstap":"trace","version":"1.0","metadata":{"note":"t2176 two threads"}}
{"op":"state_inode","obj":1,"mode":16877,"nlink":2,"ino":2}
{"op":"state_dentry","obj":1,"name":"fifo","child":2}
{"op":"state_inode","obj":2,"mode":4516,"nlink":1,"ino":10}
{"op":"open","t":1000,"dur":2200,"tid":1,"pid":1,"obj":2,"flags":0,"fh":1}
{"op":"open","t":3000,"dur":100,"tid":2,"pid":1,"obj":2,"flags":1,"fh":2}
{"op":"release","t":4000,"dur":100,"tid":2,"pid":1,"obj":2,"fh":2}
{"op":"release","t":4300,"dur":100,"tid":1,"pid":1,"obj":2,"fh":1}
{"op":"footer","t":5000}
J
expect_exit 0 "$FSTAP" import -o "$T/fifo.trace" "$T/fifo.jsonl"
rm -rf "$T/f" && mkdir "$T/f" && mkfifo -m 644 "$T/f/fifo"
expect_exit 0 timeout 60 taskset -c 0 "$FSTAP" replay --pace=afap --json="$T/f.json" \
	"$T/fifo.trace" "$T/f"
[ "$(json_get "$T/f.json" 'j["runs"][0]["divergences"]')" = 0 ] ||
	fail "the FIFO on one CPU: $(json_get "$T/f.json" 'j["runs"][0]["divergence"]')"

finish
