#!/usr/bin/env python3
# record-bench-summary.py RESULTS.TSV: the tables of docs/PERFORMANCE.md
# ("Recording overhead") from bench/record-bench.sh's results.tsv.
#
# Rates: median over the rounds (min-max). Ratios: computed per round
# (both variants measured in the same round, minutes apart), then the
# median (min-max) of those per-round ratios.
import csv, statistics, sys
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
PH = ["create", "stat", "readdir", "open+read", "unlink", "write", "read", "readwarm"]
MODES = ["all", "calls", "direct", "kernel"]
MODES += [m + "-shm" for m in MODES]   # the trace on tmpfs
PLL = {"all": "pll-never", "calls": "pll-never", "direct": "pll-never", "kernel": "pll-always"}
PLL.update({m + "-shm": p for m, p in list(PLL.items())})
rate = defaultdict(dict)    # (pin, variant, phase) -> {round: rate}
trace = defaultdict(dict)   # (pin, variant, set) -> {round: (bytes, records, ops)}
variants = []
for r in rows:
    v = r["variant"]
    if v not in variants:
        variants.append(v)
    rate[(r["pin"], v, r["phase"])][r["round"]] = float(r["rate"])
    if int(r["trace_records"]) > 0:
        t = trace[(r["pin"], v, r["set"])].get(r["round"], (int(r["trace_bytes"]), int(r["trace_records"]), 0))
        trace[(r["pin"], v, r["set"])][r["round"]] = (t[0], t[1], t[2] + float(r["ops"]))
pins = [p for p in ("pinned", "unpinned") if any(k[0] == p for k in rate)]


def med(xs):
    xs = sorted(xs)
    return statistics.median(xs), xs[0], xs[-1]


def fmt(x):
    return "%.0f" % x if x >= 100 else "%.1f" % x if x >= 10 else "%.2f" % x if x >= 0.1 else "%.3f" % x


def fmt_mm(t, pct=False):
    m, lo, hi = t
    return "%s (%s-%s)" % (fmt(m), fmt(lo), fmt(hi))


def ratio(pin, a, b, ph):
    ra, rb = rate.get((pin, a, ph), {}), rate.get((pin, b, ph), {})
    xs = [ra[k] / rb[k] for k in ra if k in rb and rb[k] > 0]
    return med(xs) if xs else None


def rfmt(t):
    return "%.3f (%.3f-%.3f)" % t if t else "-"


phases = [p for p in PH if any(k[2] == p for k in rate)]
for pin in pins:
    vs = [v for v in variants if any(k[0] == pin and k[1] == v for k in rate)]
    print("\n### %s: rates, median (min-max) over rounds\n" % pin)
    print("| variant | " + " | ".join(phases) + " |")
    print("|---|" + "---:|" * len(phases))
    for v in vs:
        cells = []
        for ph in phases:
            d = rate.get((pin, v, ph))
            cells.append(fmt_mm(med(d.values())) if d else "-")
        print("| %s | %s |" % (v, " | ".join(cells)))
    print("\nUnits: metadata phases in operations/s (readdir: entries/s), data phases in MB/s.")
    for base in ("native", "notrace-calls", "notrace-kernel"):
        if base not in vs:
            continue
        print("\n### %s: ratio to %s (per round, median (min-max))\n" % (pin, base))
        print("| variant | " + " | ".join(phases) + " |")
        print("|---|" + "---:|" * len(phases))
        for v in vs:
            if v == base:
                continue
            print("| %s | %s |" % (v, " | ".join(rfmt(ratio(pin, v, base, ph)) for ph in phases)))
    print("\n### %s: trace size\n" % pin)
    print("| variant | set | bytes / record | records / application op | bytes / application op |")
    print("|---|---|---:|---:|---:|")
    for v in vs:
        for s in ("md", "data"):
            d = trace.get((pin, v, s))
            if not d:
                continue
            bpr = med([b / n for b, n, o in d.values()])
            rpo = med([n / o for b, n, o in d.values()])
            bpo = med([b / o for b, n, o in d.values()])
            print("| %s | %s | %s | %s | %s |" % (v, s, "%.1f" % bpr[0], "%.2f" % rpo[0], "%.1f" % bpo[0]))
    print("\n(application ops: the metadata set counts one per file and phase, readdir one per entry;"
          " the data set one per MiB and phase. loggedfs: bytes / log line.)")

    print("\n### %s: targets\n" % pin)
    print("| target | phase | measured (median of per-round ratios, min-max) | met |")
    print("|---|---|---:|---|")
    for m in MODES:
        # the --no-trace run of the same mode (against another mode's, the
        # ratio would be the difference of the modes, not the recording's)
        base = "notrace-" + m.replace("-shm", "")
        if m in vs and base in vs:
            for ph in phases:
                r = ratio(pin, m, base, ph)
                if r:
                    # recording costs at most 10%: time(rec) <= 1.10 time(notrace)
                    print("| `%s` time / `%s` time <= 1.10 | %s | %.3f (%.3f-%.3f) | %s |" % (
                        m, base, ph, 1 / r[0], 1 / r[2], 1 / r[1], "yes" if 1 / r[0] <= 1.10 else "**no**"))
    if "calls" in vs and "loggedfs" in vs:
        for ph, need in (("stat", 3), ("open+read", 3), ("create", 1.5), ("unlink", 1.5)):
            r = ratio(pin, "calls", "loggedfs", ph)
            if r:
                print("| `calls` / loggedfs >= %g | %s | %s | %s |" % (need, ph, rfmt(r), "yes" if r[0] >= need else "**no**"))
    for m in MODES:
        d = trace.get((pin, m, "md"))
        if d:
            bpr = med([b / n for b, n, o in d.values()])
            print("| `%s` bytes / record <= 24, metadata set | | %.1f | %s |" % (m, bpr[0], "yes" if bpr[0] <= 24 else "**no**"))
    for m in MODES:
        p = PLL[m]
        if m in vs and p in vs:
            for ph in phases:
                r = ratio(pin, m, p, ph)
                if r:
                    print("| `%s` / %s >= 1 | %s | %s | %s |" % (m, p, ph, rfmt(r), "yes" if r[0] >= 1 else "**no**"))
