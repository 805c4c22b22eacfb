#!/usr/bin/env python3
"""What each round's tuner picked, from a multi-round result file (run --rounds N, or one side of `ab`).

Every round is a fresh process that tunes again, so a row whose candidates are within the tuner's
noise of each other can pick differently from round to round; compare then says "tuning differs".
Per file and row: how many distinct picks the rounds made, and per pick the rounds that made it
with the median of their per-round medians of each metric asked for, so a pick that is slower (or
costs more SM cycles) shows. A pick is labelled by the tuning fields that differ between the row's
picks (e.g. `tile=23 candidate=1`).

  scripts/tuning_picks.py A.json [B.json ...] [--filter 'matmul/*'] [--metric time_ms,sm_cycles]
"""
import argparse
import fnmatch
import json
import statistics
import sys

from round_spread import round_medians_by_round


def leaves(obj, prefix=""):
    """A tuning object flattened to {dotted.path: value}."""
    if isinstance(obj, dict) and obj:
        out = {}
        for k, v in obj.items():
            out.update(leaves(v, f"{prefix}{k}."))
        return out
    return {prefix.rstrip("."): obj}


def picks_by_round(w, rounds):
    """{round: tuning} for every round the row ran (tuning_by_round where the rounds differed)."""
    if w.get("tuning_by_round"):
        return {t["round"]: t["tuning"] for t in w["tuning_by_round"]}
    return {r: w.get("tuning") for r in rounds}


def label(tuning, differing):
    """The differing fields by path; a single top-level key (matmul's `algorithm`) is left out."""
    flat = leaves(tuning or {})
    strip = len(tuning or {}) == 1
    return " ".join(f"{k.split('.', 1)[1] if strip and '.' in k else k}={flat.get(k)}" for k in differing)


def describe(w, metrics):
    per_metric = {m: round_medians_by_round(w["metrics"][m]) for m in metrics if m in w["metrics"]}
    rounds = sorted(next(iter(per_metric.values())).keys()) if per_metric else []
    by_round = picks_by_round(w, rounds)
    keys = {r: json.dumps(t, sort_keys=True) for r, t in by_round.items()}
    distinct = list(dict.fromkeys(keys[r] for r in sorted(keys)))
    flats = [leaves(json.loads(k)) for k in distinct]
    fields = sorted({f for fl in flats for f in fl})
    differing = [f for f in fields if len({json.dumps(fl.get(f)) for fl in flats}) > 1]
    out = []
    for k in distinct:
        rs = [r for r in sorted(keys) if keys[r] == k]
        vals = []
        for m, meds in per_metric.items():
            got = [meds[r] for r in rs if r in meds]
            if got:
                vals.append(f"{m} {statistics.median(got):.4g}")
        out.append((label(json.loads(k), differing), rs, vals))
    return len(by_round), out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--filter", default="*", help="glob on workload ids (comma = or)")
    ap.add_argument("--metric", default=None, help="metrics, comma-separated (default: each headline)")
    a = ap.parse_args()
    pats = a.filter.split(",")
    for f in a.files:
        with open(f) as fh:
            d = json.load(fh)
        unsteady = total = 0
        print(f"{f}:")
        for w in d["workloads"]:
            if w.get("status") != "ok" or not w.get("metrics") or not w.get("tuning"):
                continue
            if not any(fnmatch.fnmatchcase(w["id"], p) for p in pats):
                continue
            metrics = a.metric.split(",") if a.metric else [next(iter(w["metrics"]))]
            n, picks = describe(w, metrics)
            total += 1
            unsteady += len(picks) > 1
            print(f"  {w['id']}: {len(picks)} pick{'s' if len(picks) > 1 else ''} over {n} rounds")
            if len(picks) > 1:
                for lab, rs, vals in picks:
                    print(f"    {lab}: rounds {','.join(str(r + 1) for r in rs)}; {', '.join(vals)}")
        print(f"  {unsteady} of {total} tuned rows picked more than one algorithm")
    return 0


if __name__ == "__main__":
    sys.exit(main())
