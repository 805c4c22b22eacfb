#!/usr/bin/env python3
"""Between-round spread of a multi-round result file (run --rounds N, or one side of `ab`).

For every workload's headline metric: the per-round medians, their relative standard deviation
(the quantity compare's noise floors document) and max/min - 1 (the "within 2%" check of the
verdict protocol). Several files (e.g. the A and B sides of an A/A `ab`) are pooled per workload:
their rounds come from fresh processes of the same binary.

  scripts/round_spread.py A.json [B.json ...] [--max-spread-pct 2 --filter 'llm_decode/*']
  scripts/round_spread.py A.json B.json --metric time_ms,sm_cycles   (named metrics, not the headline)

With --max-spread-pct it exits 1 when a filtered row's rounds spread wider than that.
"""
import argparse
import fnmatch
import json
import math
import statistics
import sys


def round_medians_by_round(m):
    """{round: median of that round's samples} of one metric (scripts/tuning_picks.py and
    scripts/noise_prior.py use it too)."""
    samples = m.get("samples") or []
    rounds = m.get("rounds") or [0] * len(samples)
    if len(rounds) != len(samples):
        raise SystemExit("round indices do not match samples")
    by = {}
    for r, v in zip(rounds, samples):
        by.setdefault(r, []).append(v)
    return {r: statistics.median(v) for r, v in by.items()}


def round_medians(m):
    by = round_medians_by_round(m)
    return [by[r] for r in sorted(by)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--filter", default="*", help="glob on workload ids (comma = or)")
    ap.add_argument("--max-spread-pct", type=float, default=None)
    ap.add_argument("--metric", default=None, help="metrics, comma-separated (default: each headline)")
    a = ap.parse_args()
    pats = a.filter.split(",")
    wanted = a.metric.split(",") if a.metric else None
    rows = {}
    for f in a.files:
        with open(f) as fh:
            d = json.load(fh)
        for w in d["workloads"]:
            if w.get("status") != "ok" or not w.get("metrics"):
                continue
            if not any(fnmatch.fnmatchcase(w["id"], p) for p in pats):
                continue
            names = wanted or [next(iter(w["metrics"]))]
            for name in names:
                if name in w["metrics"]:
                    rows.setdefault((w["id"], name), []).extend(round_medians(w["metrics"][name]))
    worst = 0.0
    print(f"{'workload · metric':<78} {'rounds':>6} {'rel sd %':>8} {'spread %':>8}")
    for (wid, name), meds in rows.items():
        logs = [math.log(x) for x in meds if x > 0]
        sd = statistics.stdev(logs) * 100 if len(logs) > 1 else float("nan")
        spread = (max(meds) / min(meds) - 1) * 100 if min(meds) > 0 else float("nan")
        worst = max(worst, spread)
        print(f"{wid + ' · ' + name:<78} {len(meds):>6} {sd:>8.2f} {spread:>8.2f}")
    if a.max_spread_pct is not None and worst > a.max_spread_pct:
        print(f"round_spread: widest spread {worst:.2f}% exceeds {a.max_spread_pct}%", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
