#!/bin/sh
# demo.sh: the README's first command runs this after building. For now it
# shows the trace library end to end: a small hand-written trace (JSON
# Lines) becomes a binary trace, which is verified, summarized and exported
# back with its paths resolved. The record -> compare demo replaces it once
# `fstap record` and `fstap compare` land.
set -eu
FSTAP=${1:-fstap}
here=$(cd "$(dirname "$0")" && pwd)
out=${TMPDIR:-/tmp}/fstap-demo
mkdir -p "$out"

"$FSTAP" import -o "$out/small.trace" "$here/traces/small.jsonl"
echo "== fstap info $out/small.trace"
"$FSTAP" info "$out/small.trace"
echo "== fstap export $out/small.trace"
"$FSTAP" export "$out/small.trace"
