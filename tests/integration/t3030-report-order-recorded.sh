#!/bin/sh
# t3030: order analysis end to end. The news spool example (examples/
# news-spool: 8 groups, 2000 articles) is made on a loop-mounted ext4, whose
# readdir order (hashed) is neither name nor inode order; its reader is
# recorded in place by `fstap record -- CMD` once in readdir order and once
# in name order, and `fstap report` must give each run its own verdict:
# "opens follow readdir order" and "opens follow name order", over the 8
# group directories, with the matching mean rho above 0.9 and the others
# below it.
. "$(dirname "$0")/lib-record.sh"
need_fuse
SPOOL="$FSTAP_BUILDDIR/examples/news-spool"
[ -x "$SPOOL" ] || { echo "FAIL: '$SPOOL' is not built" >&2; exit 1; }

loop_mount ext4 128M "$T/b" || finish
expect_exit 0 "$SPOOL" -d "$T/b" setup || finish

for order in readdir name; do
	expect_exit 0 "$FSTAP" record -q -o "$T/$order.trace" "$T/b" -- \
		"$SPOOL" -d "$T/b" --order=$order run || continue
	expect_exit 0 "$FSTAP" report --json "$T/$order.trace" || continue
	$PY - "$T/out" $order >"$T/bad" <<'PY' || fail "--order=$order: $(cat "$T/bad")"
import json, sys
o = json.load(open(sys.argv[1]))["access_order"]
order = sys.argv[2]
others = [k for k in ("readdir", "name", "inode") if k != order]
bad = []
want = "opens follow %s order (rho " % order
if not o["verdict"].startswith(want) or not o["verdict"].endswith("over 8 directories)"):
    bad.append("verdict %r, expected %r... over 8 directories" % (o["verdict"], want))
if o["directories"] != 8 or o["files"] != 2000:
    bad.append("%s directories and %s files, expected 8 and 2000" % (o["directories"], o["files"]))
rho = o["mean_rho"]
if not rho[order] > 0.9:
    bad.append("mean rho of %s order %s, not above 0.9" % (order, rho[order]))
for k in others:
    if rho[k] is not None and rho[k] > 0.9:
        bad.append("mean rho of %s order %s is above 0.9 too: the spool cannot tell them apart" % (k, rho[k]))
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
done

finish
