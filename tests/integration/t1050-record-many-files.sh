#!/bin/sh
# t1050: a tree with more files than the recorder may hold descriptors
# (hard RLIMIT_NOFILE here: 20000) is served and recorded: every file is
# looked up and stat'ed through the mount while the recorder's descriptor
# count stays bounded (no descriptor per known inode).
. "$(dirname "$0")/lib-record.sh"
need_fuse

N=${FSTAP_MANY_FILES:-25000}
mkdir "$T/m" "$T/b"
$PY - "$T/b" $N <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for d in range(n // 1000 + 1):
    os.mkdir(os.path.join(root, "d%02d" % d))
for i in range(n):
    open(os.path.join(root, "d%02d" % (i // 1000), "f%05d" % i), "w").close()
PY
rec_start "$T/m" -q --snapshot=none -o "$T/t.trace" "$T/b" "$T/m" || exit 1
# look up and stat every file; the kernel keeps them all referenced
got=$(find "$T/m" -type f -printf '%s\n' | wc -l)
[ "$got" = "$N" ] || fail "find through the mount saw $got files of $N"
fds=$(ls /proc/$REC_PID/fd | wc -l)
[ "$fds" -lt 10000 ] || fail "the recorder holds $fds descriptors for $N files"
# a second walk: inodes are reached again through their handles, and each
# file shows the same name, size, mode and inode number as in the backing tree
find "$T/b" -type f -printf '%P %s %m %i\n' | sort >"$T/walk.b"
find "$T/m" -type f -printf '%P %s %m %i\n' | sort >"$T/walk.m"
[ "$(count_lines "$T/walk.m")" = "$N" ] || fail "the second walk saw $(count_lines "$T/walk.m") files of $N"
cmp -s "$T/walk.b" "$T/walk.m" || fail "the second walk differs from the backing tree: $(diff "$T/walk.b" "$T/walk.m" | head -5)"
rec_stop "$T/m"
rec_export "$T/t.trace" "$T/t.jsonl"
n=$(jq_count '.op == "lookup" and .res == 0 and (.name | startswith("f"))' "$T/t.jsonl")
[ "$n" -ge "$N" ] || fail "$n successful lookups of files recorded for $N files"
finish
