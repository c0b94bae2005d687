#!/bin/sh
# demo.sh: the README's first command (./quickstart.sh demo runs it from the
# build directory as `sh ../examples/demo.sh ./fstap`). It records the
# news-spool example (a reader going through a spool of small articles,
# group by group, in readdir order) under `fstap record`, then replays the
# trace on fresh ext4, xfs and btrfs loop images, as recorded and reordered
# into name order, 3 runs each, prints the table and says where the chart
# is. About two minutes on 2 cores; needs root (FUSE, mkfs, mount).
#
#   sh examples/demo.sh [FSTAP]   FSTAP: the fstap binary (default: fstap)
#
# Environment: DEMO_DIR (default ${TMPDIR:-/tmp}/fstap-demo) holds the spool,
# the trace and the results; DEMO_ARTICLES (default 10000) sizes the spool;
# NEWS_SPOOL names the example program (default: next to FSTAP, in examples/).
set -eu
FSTAP=${1:-fstap}
case $FSTAP in
*/*) FSTAP=$(cd "$(dirname "$FSTAP")" && pwd)/$(basename "$FSTAP") ;;
*) FSTAP=$(command -v "$FSTAP") || { echo "demo.sh: no fstap binary" >&2; exit 1; } ;;
esac
NEWS_SPOOL=${NEWS_SPOOL:-$(dirname "$FSTAP")/examples/news-spool}
DEMO_DIR=${DEMO_DIR:-${TMPDIR:-/tmp}/fstap-demo}
ARTICLES=${DEMO_ARTICLES:-10000}

if [ "$(id -u)" != 0 ]; then
	echo "demo.sh: run as root: recording mounts FUSE, compare makes and mounts file systems" >&2
	exit 1
fi
if [ ! -x "$NEWS_SPOOL" ]; then
	echo "demo.sh: $NEWS_SPOOL not found: build fstap first (make), or set NEWS_SPOOL" >&2
	exit 1
fi

spool=$DEMO_DIR/spool
trace=$DEMO_DIR/news-spool.trace
out=$DEMO_DIR/results
mkdir -p "$DEMO_DIR"
rm -rf "$spool" "$out" "$trace"
mkdir -p "$spool"

say() { printf '\n== %s\n' "$*"; }

say "1. a news spool of $ARTICLES articles in 8 groups (news-spool setup, not recorded)"
"$NEWS_SPOOL" -d "$spool" -n "$ARTICLES" setup

say "2. record the reader: fstap record -o $trace $spool -- news-spool ... run"
"$FSTAP" record -o "$trace" "$spool" -- "$NEWS_SPOOL" -d "$spool" -n "$ARTICLES" run
"$FSTAP" info "$trace" | sed -n '1,/^by type/p' | grep -v '^by type'
rm -rf "$spool"

say "3. replay it on ext4, xfs and btrfs, as recorded and in name order, 3 runs each"
echo "fstap compare --fs=ext4,xfs,btrfs --variant=recorded,name --runs=3 --out=$out $trace"
echo
set +e
"$FSTAP" compare --fs=ext4,xfs,btrfs --variant=recorded,name --runs=3 --out="$out" "$trace"
rc=$?
set -e

say "4. results"
echo "summary: $out/summary.md (environment, command line, table, conclusion: ready to paste)"
echo "chart:   $out/chart.svg (open it in a browser)"
echo "numbers: $out/results.json, $out/results.csv; logs of every step: $out/logs/"
echo "The 'name' rows replay the same reads sorted by file name instead of readdir"
echo "order: docs/compare.md explains how to read the table."
exit $rc
