#!/usr/bin/env python3
"""Time and SM-clock cycles side by side, per workload, for result files of one GPU.

At the 700 W cap an H200's SM clock wanders (1200-1980 MHz) with the power state, so a GEMM's
time can move with the clock while the code does not. For every workload with a `time_ms`-like
headline (lower is better) this prints, per file, the median time and the median of
time x SM clock of the same repetition (Mcycles), and each file's change against the first in both:
a time change with no cycles change is the clock, not the code.

  scripts/cycles_view.py A.json B.json [C.json ...] [--filter 'matmul/*8192*'] [--format markdown]

The clock is NVML's reading after each repetition (the result file's clocks.sm_mhz, one value per
sample); a workload without one is skipped. This is a reading aid, not a verdict: compare's
statistics judge the headline metric only.
"""
import argparse
import fnmatch
import json
import statistics
import sys

TIME_METRICS = ("time_ms", "step_ms", "latency_ms")


def time_and_cycles(w):
    for name in TIME_METRICS:
        m = w.get("metrics", {}).get(name)
        if m and m.get("samples"):
            clocks = (w.get("clocks") or {}).get("sm_mhz") or []
            if len(clocks) != len(m["samples"]) or not all(isinstance(c, (int, float)) and c > 0 for c in clocks):
                return None
            cycles = [t * c / 1e3 for t, c in zip(m["samples"], clocks)]  # ms x MHz -> Mcycles
            return name, statistics.median(m["samples"]), statistics.median(cycles)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--filter", default="*", help="glob(s) on workload ids, comma-separated")
    ap.add_argument("--format", choices=["table", "markdown"], default="table")
    a = ap.parse_args()
    if len(a.files) < 2:
        ap.error("give at least two result files (the first is the baseline)")
    runs = []
    for f in a.files:
        try:
            with open(f) as fh:
                d = json.load(fh)
        except (OSError, ValueError) as e:
            sys.exit(f"cycles_view: {f}: {e}")
        runs.append((d.get("environment", {}).get("label") or f, {w["id"]: w for w in d.get("workloads", [])}))
    globs = a.filter.split(",")
    head = ["workload"]
    for label, _ in runs:
        head += [f"{label} ms", f"{label} Mcycles"]
    for label, _ in runs[1:]:
        head += [f"{label}: time", f"{label}: cycles"]
    rows = []
    for wid in runs[0][1]:
        if not any(fnmatch.fnmatchcase(wid, g) for g in globs):
            continue
        vals = [time_and_cycles(r[wid]) if wid in r else None for _, r in runs]
        if any(v is None for v in vals):
            continue
        row = [wid]
        for _, t, c in vals:
            row += [f"{t:.4g}", f"{c:.4g}"]
        _, t0, c0 = vals[0]
        for _, t, c in vals[1:]:  # positive = better (less time, fewer cycles)
            row += [f"{(t0 / t - 1) * 100:+.1f}%", f"{(c0 / c - 1) * 100:+.1f}%"]
        rows.append(row)
    if a.format == "markdown":
        print("| " + " | ".join(head) + " |")
        print("| --- |" + " ---: |" * (len(head) - 1))
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        widths = [max(len(x[i]) for x in [head] + rows) for i in range(len(head))]
        for r in [head] + rows:
            print("  ".join(x.ljust(w) for x, w in zip(r, widths)))
    if not rows:
        print("cycles_view: no workload with time samples and SM clocks in every file", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
