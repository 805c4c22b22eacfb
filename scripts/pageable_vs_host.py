#!/usr/bin/env python3
"""Is a pageable copy's rate the host's? Reads a cudabench result file run with --rounds N (one
process per round) and prints, per pageable memory_bandwidth row and per round, the row's median
GB/s beside the host's own memcpy rate measured in that process (host_memcpy_gbps), then their
spread over the rounds and the correlation between them (Pearson r over the rounds' pairs).

A row whose GB/s moves with host_memcpy_gbps (r near 1, similar spreads) is bounded by the host's
memcpy: the driver copies pageable memory through its staging buffers with the CPU.

    scripts/pageable_vs_host.py RESULT.json        (scripts/gpu-tests.sh pageable runs it)
Exit: 0 printed, 2 unusable input (named).
"""
import json
import math
import statistics
import sys


def per_round(metric):
    """{round: median of that round's samples}; a file without round indices is one round."""
    samples, rounds = metric.get("samples", []), metric.get("rounds") or []
    if len(rounds) != len(samples):
        rounds = [0] * len(samples)
    by = {}
    for r, v in zip(rounds, samples):
        by.setdefault(r, []).append(v)
    return {r: statistics.median(v) for r, v in by.items()}


def pearson(xs, ys):
    if len(xs) < 3:
        return None
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx, syy = sum((x - mx) ** 2 for x in xs), sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else None


def spread(v):
    return max(v) / min(v) - 1 if min(v) > 0 else float("inf")


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            doc = json.load(f)
        workloads = doc["workloads"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"pageable_vs_host: {argv[1]}: not a cudabench result file ({e})", file=sys.stderr)
        return 2
    rows = 0
    for w in workloads:
        m = w.get("metrics") or {}
        if "pageable" not in w.get("id", "") or "gbps" not in m or "host_memcpy_gbps" not in m:
            continue
        rows += 1
        row, host = per_round(m["gbps"]), per_round(m["host_memcpy_gbps"])
        common = sorted(set(row) & set(host))
        print(w["id"])
        print(f"  {'round':>5} {'row GB/s':>9} {'host memcpy GB/s':>17} {'row/host':>8}")
        for r in common:
            print(f"  {r:>5} {row[r]:9.2f} {host[r]:17.2f} {row[r] / host[r]:8.3f}")
        xs, ys = [row[r] for r in common], [host[r] for r in common]
        r = pearson(xs, ys)
        print(f"  spread over rounds (max/min - 1): row {spread(xs):.1%}, host {spread(ys):.1%}; "
              f"correlation r = {'n/a (fewer than 3 rounds or no spread)' if r is None else f'{r:.2f}'}")
    if rows == 0:
        print(f"pageable_vs_host: {argv[1]}: no pageable row with host_memcpy_gbps", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
