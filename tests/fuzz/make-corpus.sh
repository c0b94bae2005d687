#!/bin/sh
# make-corpus.sh: rebuilds the fuzz seed corpus from the JSON Lines seeds.
#
# usage: tests/fuzz/make-corpus.sh FSTAP [OUTDIR]
#
# For each tests/fuzz/seeds/*.jsonl it writes, with `FSTAP import`:
#   OUTDIR/reader/NAME.fstap        the trace (4 KiB chunks, so several chunks)
#   OUTDIR/reader/NAME-torn.fstap   the same cut in its last chunk (torn tail)
#   OUTDIR/chunk/NAME-N.bin         each chunk's payload, for fuzz-chunk-decode
# OUTDIR defaults to tests/fuzz/corpus next to this script. The output is
# checked in; rerun this after a format change.
set -eu

fstap=${1:?usage: make-corpus.sh FSTAP [OUTDIR]}
here=$(cd "$(dirname "$0")" && pwd)
out=${2:-$here/corpus}
mkdir -p "$out/reader" "$out/chunk"

u32() {	# u32 FILE OFFSET: little-endian 32-bit value
	od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '
}

for src in "$here"/seeds/*.jsonl; do
	name=$(basename "$src" .jsonl)
	trace=$out/reader/$name.fstap
	"$fstap" import --chunk-size=4096 -o "$trace" "$src"
	size=$(wc -c < "$trace")
	head -c $((size - 20)) "$trace" > "$out/reader/$name-torn.fstap"

	off=$((64 + $(u32 "$trace" 20)))	# header + metadata
	n=0
	while [ "$off" -lt "$size" ]; do
		len=$(u32 "$trace" $((off + 8)))
		tail -c +$((off + 32 + 1)) "$trace" | head -c "$len" > "$out/chunk/$name-$n.bin"
		off=$((off + 32 + len))
		n=$((n + 1))
	done
done
