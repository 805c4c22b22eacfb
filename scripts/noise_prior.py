#!/usr/bin/env python3
"""Generate configs/noise_prior.json, the measured noise prior compare's verdicts use.

    scripts/noise_prior.py            rewrite configs/noise_prior.json from results/
    scripts/noise_prior.py --check    exit 1 when regenerating would change the committed file
    scripts/noise_prior.py --stdout   print it instead

Why a generated file: the prior is data (what the committed result files measured), so it must
never drift from them. ctest noise_prior_is_generated runs --check.

Per workload id, metric and GPU model, on the log of each round's median (docs/statistics.md):
  round_sd, round_df     pooled sd of round medians around their session's mean (within a session;
                         df = sum over sessions of rounds - 1)
  session_sd, session_df sd of the sessions' means (df = sessions - 1). Not corrected for the
                         round noise inside each mean (it adds round_sd^2 / rounds): errs high.
A session is one machine start: the files below that ran in it, each with its rounds. Only builds
of the main line that did not intend to change the row are used; where a session compared two
builds, only the baseline side (or an A/A pair) is taken, so a real change is never noise here.
"""
import argparse
import json
import math
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join("configs", "noise_prior.json")

# One entry per session (machine start): label, files (relative to the repository root), and
# optionally workload-id prefixes to leave out of that session because their code changed since the
# others (a real change must never count as noise).
SESSIONS = [
    ("2026-12-02 13:28 quick (run-21e6d66)",
     ["results/h200/run-21e6d66/quick.json", "results/h200/run-21e6d66/quick-aa.json"]),
    ("2026-12-02 14:41 quick+full (results/h200/*.json)",
     ["results/h200/quick.json", "results/h200/quick-aa.json", "results/h200/full.json",
      "results/h200/resnet-cudnn-system.json"]),
    ("2026-12-03 08:50 aa-full (A/A, 99d4650)", ["results/h200/aa-full/A.json", "results/h200/aa-full/B.json"]),
    ("2026-12-03 09:00 sens (baseline side)", ["results/h200/sens/A.json"]),
    ("2026-12-03 09:20 aa-quick (A/A)", ["results/h200/aa-quick/A.json", "results/h200/aa-quick/B.json"]),
    ("2026-12-03 13:22 refactor-16 (baseline side)", ["results/h200/refactor-16/baseline-quick/A.json"]),
    ("2026-12-03 13:29 launch-bound-aab (baseline side)", ["results/h200/refactor-16/launch-bound-aab/A.json"]),
    ("2026-12-03 18:18 cuda12 (CUDA 13.0 column)",
     ["results/h200/cuda12/C.json", "results/h200/cuda12/resnet-cudnn12/C.json"]),
    # Issue 21 made Llama-2-7B decode faster in between (245.7 -> 256 tok/s, 211.5 -> 238.5 at 2048
    # positions): its llm_decode rows are a new level, not noise.
    ("2026-12-04 13:45 verdicts/aa-full-3rounds (A/A, 15377c2)",
     ["results/h200/verdicts/aa-full-3rounds-15377c2/A.json", "results/h200/verdicts/aa-full-3rounds-15377c2/B.json"],
     ["llm_decode/"]),
]


def round_medians(metric):
    samples = metric.get("samples") or []
    rounds = metric.get("rounds") or [0] * len(samples)
    if len(rounds) != len(samples):
        raise SystemExit("round indices do not match samples")
    by = {}
    for s, r in zip(samples, rounds):
        by.setdefault(r, []).append(s)
    return [statistics.median(v) for _, v in sorted(by.items())]


def sig(x):
    return float(f"{x:.4g}")


def generate():
    # (gpu, id, metric) -> list of sessions, each a list of log round medians
    rows = {}
    for label, files, *exclude in SESSIONS:
        excluded = tuple(exclude[0]) if exclude else ()
        per_session = {}
        for rel in files:
            with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
                doc = json.load(f)
            gpu = doc["environment"]["device"]["name"]
            for w in doc["workloads"]:
                if w.get("status") != "ok" or w["id"].startswith(excluded):
                    continue
                for name, m in (w.get("metrics") or {}).items():
                    meds = round_medians(m)
                    if not meds or any(not (x > 0) for x in meds):
                        continue
                    per_session.setdefault((gpu, w["id"], name), []).extend(math.log(x) for x in meds)
        for key, logs in per_session.items():
            rows.setdefault(key, []).append(logs)
    out_rows = []
    for (gpu, wid, metric), sessions in sorted(rows.items()):
        ss = sum(sum((x - statistics.fmean(s)) ** 2 for x in s) for s in sessions)
        round_df = sum(len(s) - 1 for s in sessions)
        means = [statistics.fmean(s) for s in sessions]
        entry = {"gpu": gpu, "id": wid, "metric": metric, "sessions": len(sessions),
                 "rounds": sum(len(s) for s in sessions)}
        if round_df > 0:
            entry["round_sd"] = sig(math.sqrt(ss / round_df))
            entry["round_df"] = round_df
        if len(sessions) > 1:
            entry["session_sd"] = sig(statistics.stdev(means))
            entry["session_df"] = len(sessions) - 1
        if round_df > 0 or len(sessions) > 1:
            out_rows.append(entry)
    doc = {
        "noise_prior_version": 1,
        "generated_by": "scripts/noise_prior.py (do not edit: regenerate)",
        "scale": "sd of natural log of per-round medians (relative sd)",
        "sessions": [{"label": label, "files": files, "excluded_ids": list(rest[0]) if rest else []}
                     for label, files, *rest in SESSIONS],
        "rows": out_rows,
    }
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true", help="fail when the committed file is not what this generates")
    p.add_argument("--stdout", action="store_true", help="print instead of writing")
    a = p.parse_args()
    text = generate()
    path = os.path.join(ROOT, OUT)
    if a.stdout:
        sys.stdout.write(text)
    elif a.check:
        try:
            with open(path, encoding="utf-8") as f:
                current = f.read()
        except OSError as e:
            print(f"noise_prior: {OUT}: {e}", file=sys.stderr)
            return 1
        if current != text:
            print(f"noise_prior: {OUT} is not what scripts/noise_prior.py generates from results/: run it and "
                  "commit the result", file=sys.stderr)
            return 1
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
