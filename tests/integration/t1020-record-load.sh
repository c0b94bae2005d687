#!/bin/sh
# t1020: under load through the mount: fio with verify (buffered and
# O_DIRECT, several jobs), stress-ng's file-system stressors, and N threads
# doing M creates each: exactly N*M create and write records, none lost.
. "$(dirname "$0")/lib-record.sh"
need_fuse
for c in fio stress-ng; do
	command -v $c >/dev/null 2>&1 || skip "$c is needed (apt-get install $c)"
done

mkdir "$T/m" "$T/b"
rec_start "$T/m" -q -o "$T/t.trace" "$T/b" "$T/m" || exit 1

# N threads x M files: create, one write, close
N=4 M=250
mkdir "$T/m/threads"
$PY "$TOOLS" threads "$T/m/threads" $N $M || fail "threads workload failed"

for direct in 0 1; do
	(cd "$T" && fio --name=verify --directory="$T/m" --size=8m --bs=4k --rw=randrw --numjobs=3 \
		--ioengine=psync --direct=$direct --verify=crc32c --do_verify=1 \
		--verify_fatal=1 --verify_state_save=0 --group_reporting) >"$T/fio.out" 2>&1 ||
		fail "fio direct=$direct: $(tail -5 "$T/fio.out")"
	grep -q "err= 0" "$T/fio.out" || fail "fio direct=$direct reports errors"
	rm -f "$T"/m/verify.*
done

mkdir "$T/m/stress"
# small counts: one FUSE round trip costs 7-100 us on a 2-vCPU VM
stress-ng --temp-path "$T/m/stress" --verify -t 20 \
	--hdd 2 --hdd-ops 300 --hdd-bytes 4m \
	--dir 2 --dir-ops 200 --rename 2 --rename-ops 1000 \
	--link 1 --link-ops 1 --xattr 1 --xattr-ops 20 \
	--fallocate 1 --fallocate-ops 10 --fallocate-bytes 4m \
	>"$T/stress.out" 2>&1 || fail "stress-ng: $(tail -8 "$T/stress.out")"
grep -q "unsuccessful run completed\|fail" "$T/stress.out" &&
	fail "stress-ng reports failures: $(grep -i fail "$T/stress.out" | head -5)"

rec_stop "$T/m"
rec_export "$T/t.trace" "$T/t.jsonl"
"$FSTAP" info "$T/t.trace" >"$T/info"
expect_grep "$T/info" "lost:      0 records"
got=$(jq_count '.op == "create" and (.name | test("^t[0-9]+-[0-9]+$"))' "$T/t.jsonl")
[ "$got" = $((N * M)) ] || fail "$got create records for $((N * M)) creates"
obj=$(jq -c 'select(.op == "lookup" and .name == "threads" and .res == 0) | .child' "$T/t.jsonl" | head -1)
[ -n "$obj" ] || obj=$(jq -c 'select(.op == "mkdir" and .name == "threads") | .child' "$T/t.jsonl")
got=$(jq_count '.op == "write" and .size == 100 and .res == 100' "$T/t.jsonl")
[ "$got" = $((N * M)) ] || fail "$got write records of 100 bytes for $((N * M)) writes"
finish
