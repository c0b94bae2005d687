#!/bin/sh
# t0120: the bytes fstap writes stay the same: a fixed input (a recorded
# workload of two threads exported to JSON Lines, and a trace with every
# record type) is imported, exported, reordered, filtered and reported, and
# every output is compared byte for byte with the golden copy in
# tests/integration/data/golden. A change to the encoding, to a command's
# choices or to the report's text fails here.
#
# The golden files are the output of this script's commands; when a change
# of output is meant, regenerate them with the new binary (the same commands,
# run in tests/integration/data/golden) and say so in the commit message.
. "$(dirname "$0")/lib.sh"

G="$FSTAP_SRCDIR/tests/integration/data/golden"
cp "$G/workload.jsonl" "$G/all-types.jsonl" "$T/"
cd "$T"

same() {
	if ! cmp "$1" "$G/$1"; then
		fail "$1 differs from the golden copy (first difference above)"
	fi
}

expect_exit 0 "$FSTAP" import -o import.fstap workload.jsonl
same import.fstap
expect_exit 0 "$FSTAP" import -o all-types.fstap all-types.jsonl
same all-types.fstap
# Export gives back the input, in time order and in file order.
expect_exit 0 "$FSTAP" export import.fstap -o export.jsonl
cmp export.jsonl workload.jsonl || fail "export of import.fstap differs from workload.jsonl"
expect_exit 0 "$FSTAP" export --file-order all-types.fstap -o all-types-export.jsonl
same all-types-export.jsonl
# Transforms: reorder (a fixed order and a seeded shuffle) and filter.
expect_exit 0 "$FSTAP" reorder --by=name import.fstap -o reorder-name.fstap
same reorder-name.fstap
expect_exit 0 "$FSTAP" reorder --by=random --seed=3 import.fstap -o reorder-random.fstap
same reorder-random.fstap
expect_exit 0 "$FSTAP" filter --path=/spool --op=lookup,open,read,release import.fstap \
	-o filter.fstap
same filter.fstap
# The report, as text and as JSON.
expect_exit 0 "$FSTAP" report import.fstap && mv "$T/out" report.txt
same report.txt
expect_exit 0 "$FSTAP" report --json import.fstap && mv "$T/out" report.json
same report.json

finish
