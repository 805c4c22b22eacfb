#!/usr/bin/env python3
"""Generate configs/noise_prior.json, the measured noise prior compare's verdicts use.

    scripts/noise_prior.py            rewrite configs/noise_prior.json from results/
    scripts/noise_prior.py --check    exit 1 when regenerating would change the committed file
    scripts/noise_prior.py --stdout   print it instead
    scripts/noise_prior.py --self-test  check the F test against tabulated quantiles

Why a generated file: the prior is data (what the committed result files measured), so it must
never drift from them. ctest noise_prior_is_generated runs --check.

Per workload id, metric and GPU model, on the log of each round's median (docs/statistics.md):
  round_sd, round_df     pooled sd of round medians around their session's mean (within a session;
                         df = sum over sessions of rounds - 1); from the row's latest level alone
                         ("round_level": "latest") where that level's round noise differs from
                         the older levels' beyond doubt (round_noise_changed)
  session_sd, session_df sd of the sessions' means around their level's mean (a level: the sessions
                         between two changes of the row's code; df = sessions - levels). Not
                         corrected for the round noise inside each mean (it adds round_sd^2 /
                         rounds): errs high.
A session is one machine start: the files below that ran in it, each with its rounds. Only builds
of the main line that did not intend to change the row are used; where a session compared two
builds, only the baseline side (or an A/A pair) is taken, so a real change is never noise here.
"""
import argparse
import hashlib
import json
import math
import os
import statistics
import sys

from round_spread import round_medians

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join("configs", "noise_prior.json")

# Rows whose noise came from the setup tuners' timing until 32cc479: the tuners timed candidates as
# loops of launches, which for 5 us kernels timed the host, so each process picked differently
# and the rows' rounds spread 5-25% from the choice alone. Their earlier sessions describe noise
# the code no longer has, so they are left out of every session before the fix.
OLD_TUNER = tuple(f"matmul/dtype={d}/m=1024/" for d in ("fp32", "tf32", "fp16", "bf16", "fp8")) + (
    "llm_decode/model=llama-tiny/",)

# One entry per session (machine start): label, files (relative to the repository root), then
# optionally workload-id prefixes to leave out of that session (its measurement of them is not the
# noise the code has now), then prefixes of rows whose code changed before this session: from here
# on they are a new level, and their session noise is pooled within levels (a real change between
# levels never counts as noise, and each level still lends its sessions' spread).
SESSIONS = [
    ("2026-12-02 13:28 quick (run-21e6d66)",
     ["results/h200/run-21e6d66/quick.json", "results/h200/run-21e6d66/quick-aa.json"], OLD_TUNER),
    # 343d68a gave transformer_memory a tensor-core (3xTF32) flash attention in between: batch 8
    # went from 14.9 to 11.8 ms, a new level of its rows.
    ("2026-12-02 14:41 quick+full (results/h200/*.json)",
     ["results/h200/quick.json", "results/h200/quick-aa.json", "results/h200/full.json",
      "results/h200/resnet-cudnn-system.json"], OLD_TUNER, ["transformer_memory/"]),
    ("2026-12-03 08:50 aa-full (A/A, 99d4650)", ["results/h200/aa-full/A.json", "results/h200/aa-full/B.json"],
     OLD_TUNER),
    ("2026-12-03 09:00 sens (baseline side)", ["results/h200/sens/A.json"], OLD_TUNER),
    ("2026-12-03 09:20 aa-quick (A/A)", ["results/h200/aa-quick/A.json", "results/h200/aa-quick/B.json"], OLD_TUNER),
    ("2026-12-03 13:22 refactor-16 (baseline side)", ["results/h200/refactor-16/baseline-quick/A.json"], OLD_TUNER),
    ("2026-12-03 13:29 launch-bound-aab (baseline side)", ["results/h200/refactor-16/launch-bound-aab/A.json"],
     OLD_TUNER),
    ("2026-12-03 18:18 cuda12 (CUDA 13.0 column)",
     ["results/h200/cuda12/C.json", "results/h200/cuda12/resnet-cudnn12/C.json"], OLD_TUNER),
    # Issue 21 made Llama-2-7B decode faster in between (245.7 -> 256 tok/s, 211.5 -> 238.5 at 2048
    # positions): a new level of its llm_decode rows.
    ("2026-12-04 13:45 verdicts/aa-full-3rounds (A/A, 15377c2)",
     ["results/h200/verdicts/aa-full-3rounds-15377c2/A.json", "results/h200/verdicts/aa-full-3rounds-15377c2/B.json"],
     OLD_TUNER, ["llm_decode/"]),
    # The attention's first loads before the wait (issue 21): decode +0.6 to +1.2%.
    ("2026-12-04 third session llm-i21/llm-decode-s3 (3 rounds, d585679 + attention)",
     ["results/h200/llm-i21/llm-decode-s3.json"], (), ["llm_decode/model=llama-2-7b/"]),
    ("2026-12-04 19:58 verdicts/aa-quick-3rounds-265d599 (A/A)",
     ["results/h200/verdicts/aa-quick-3rounds-265d599/A.json", "results/h200/verdicts/aa-quick-3rounds-265d599/B.json"],
     OLD_TUNER),
    # 32cc479: the tuners time candidates as graph replays. Llama-2-7B decode may pick differently
    # now (its tuner still keeps ties): a new level for it.
    ("2026-12-04 20:10 verdicts/aa-quick-3rounds-32cc479 (A/A)",
     ["results/h200/verdicts/aa-quick-3rounds-32cc479/A.json", "results/h200/verdicts/aa-quick-3rounds-32cc479/B.json"]),
    ("2026-12-04 20:18 verdicts/aa-full-3rounds-32cc479 (A/A)",
     ["results/h200/verdicts/aa-full-3rounds-32cc479/A.json", "results/h200/verdicts/aa-full-3rounds-32cc479/B.json"],
     (), ["llm_decode/model=llama-2-7b/"]),
    # H100 sessions (the device tool gave an H100 where an H200 was asked for): their rows are keyed by
    # GPU model, so they never mix with the H200's; the level marks, kept in time order, apply to both.
    ("2026-12-05 15:43 H100 verdicts/aa-full-4rounds-a676b81 (A/A)",
     ["results/h100/verdicts/aa-full-4rounds-a676b81/A.json", "results/h100/verdicts/aa-full-4rounds-a676b81/B.json"]),
    # The RMSNorm prologue staged before the PDL wait (97eeb6a, issue 21): Llama-2-7B decode +3.6%,
    # a new level. Three fresh processes of 5b8a28f (variant 6's side of that ab is left out).
    ("2026-12-06 llm-i21/2026-12-06 (plain side + two processes per row, 5b8a28f)",
     ["results/h200/llm-i21/2026-12-06/llmab/A.json",
      "results/h200/llm-i21/2026-12-06/processes/llama-128-2.json",
      "results/h200/llm-i21/2026-12-06/processes/llama-128-3.json",
      "results/h200/llm-i21/2026-12-06/processes/llama-2048-2.json",
      "results/h200/llm-i21/2026-12-06/processes/llama-2048-3.json"],
     (), ["llm_decode/model=llama-2-7b/"]),
    ("2026-12-06 04:53 H100 verdicts/aa-full-5rounds-79d452f (A/A) + sens-79d452f (baseline side)",
     ["results/h100/verdicts/aa-full-5rounds-79d452f/A.json", "results/h100/verdicts/aa-full-5rounds-79d452f/B.json",
      "results/h100/verdicts/sens-79d452f/A.json"]),
    # The plain sides of the tie-margin ab runs are the same binary with the default margin.
    ("2026-12-06 08:05 H100 verdicts/aa-full-3rounds-ace9bf0 (A/A) + sens-ace9bf0 (baseline side) + tie-margin "
     "(plain sides)",
     ["results/h100/verdicts/aa-full-3rounds-ace9bf0/A.json", "results/h100/verdicts/aa-full-3rounds-ace9bf0/B.json",
      "results/h100/verdicts/sens-ace9bf0/A.json", "results/h100/verdicts/tie-margin-ace9bf0/run1-4rounds/A.json",
      "results/h100/verdicts/tie-margin-ace9bf0/run2-6rounds/A.json"]),
    # The tuners' tie margin went from 3% to 0.5% (ce8678d): the tuned rows may choose differently
    # now, a new level of them. The level counter is per workload id, whatever the GPU: a later
    # H200 session is in the new level already and must not mark it again.
    ("2026-12-06 10:27 H100 verdicts/aa-full-3rounds-894c3c4 (A/A) + sens-894c3c4 (baseline side)",
     ["results/h100/verdicts/aa-full-3rounds-894c3c4/A.json", "results/h100/verdicts/aa-full-3rounds-894c3c4/B.json",
      "results/h100/verdicts/sens-894c3c4/A.json"],
     (), ["matmul/", "llm_decode/", "transformer_memory/"]),
    ("2026-12-06 10:47 H100 verdicts/session2-894c3c4 (another machine start, another card)",
     ["results/h100/verdicts/session2-894c3c4/full-3rounds.json"]),
    ("2026-12-06 13:51 H100 verdicts/sens-fee2edc (baseline side) + full-3rounds-fee2edc (one machine start)",
     ["results/h100/verdicts/sens-fee2edc/A.json", "results/h100/verdicts/full-3rounds-fee2edc/full-3rounds.json"]),
    ("2026-12-06 16:00 H100 verdicts/full-3rounds-55634c5 (one machine start)",
     ["results/h100/verdicts/full-3rounds-55634c5/full-3rounds.json"]),
    ("2026-12-06 16:30 H100 verdicts/session2-55634c5 (another machine start, another card) + sens-55634c5 "
     "(baseline side)",
     ["results/h100/verdicts/session2-55634c5/full-3rounds.json", "results/h100/verdicts/sens-55634c5/A.json"]),
    ("2026-12-06 19:28 H100 verdicts/full-3rounds-cde2881 (one machine start)",
     ["results/h100/verdicts/full-3rounds-cde2881/full-3rounds.json"]),
    ("2026-12-06 20:03 H100 verdicts/session2-cde2881 (another machine start, another card) + sens-cde2881 "
     "(baseline side)",
     ["results/h100/verdicts/session2-cde2881/full-3rounds.json", "results/h100/verdicts/sens-cde2881/A.json"]),
    ("2026-12-06 23:45 H100 verdicts/full-3rounds-ecbe66b (one machine start) + sens-ecbe66b (baseline side)",
     ["results/h100/verdicts/full-3rounds-ecbe66b/full-3rounds.json", "results/h100/verdicts/sens-ecbe66b/A.json"]),
    # Matmul-only sessions: an A/A of 2767cfb (the build that added sm_cycles, so these are the first
    # sessions with it), and the old tuner's side of the tuner-by-cycles ab (41de522, the main line;
    # the new tuner's side, reverted, is left out).
    ("2026-12-07 03:04 H100 verdicts/sm-cycles-2767cfb (A/A, matmul)",
     ["results/h100/verdicts/sm-cycles-2767cfb/A.json", "results/h100/verdicts/sm-cycles-2767cfb/B.json"]),
    ("2026-12-07 07:17 H100 verdicts/tuner-cycles-daeabbb (baseline side, 41de522, matmul)",
     ["results/h100/verdicts/tuner-cycles-daeabbb/A.json"]),
    ("2026-12-07 09:18 H100 verdicts/aa-full-5rounds-cecdd92 (A/A) + sens-cecdd92 (baseline side)",
     ["results/h100/verdicts/aa-full-5rounds-cecdd92/A.json", "results/h100/verdicts/aa-full-5rounds-cecdd92/B.json",
      "results/h100/verdicts/sens-cecdd92/A.json"]),
    # The plain side of the contest-length ab is this build with the default 2 ms contests; the
    # 20 ms side is left out (it moved two rows' time through the clock).
    ("2026-12-07 13:01 H100 verdicts/aa-full-5rounds-a9cb21a (A/A) + tuner-measure-a9cb21a (plain side, matmul)",
     ["results/h100/verdicts/aa-full-5rounds-a9cb21a/A.json", "results/h100/verdicts/aa-full-5rounds-a9cb21a/B.json",
      "results/h100/verdicts/tuner-measure-a9cb21a/A.json"]),
    ("2026-12-07 19:38 H100 verdicts/aa-full-5rounds-ee0362c (A/A, another card)",
     ["results/h100/verdicts/aa-full-5rounds-ee0362c/A.json", "results/h100/verdicts/aa-full-5rounds-ee0362c/B.json"]),
]


# A change of a row's code can change its round noise as well as its level. The H100's Llama-2-7B
# 2048 rows spread 1.1% between rounds while the 3% tuner tie margin let each process pick its own
# attention split, and 0.05% once the margin was 0.5%: pooled, the old spread would hide a 3%
# change in interleaved ab. The latest level's rounds replace the older ones only when they have
# LATEST_LEVEL_MIN_DF df and a two-sided F test puts the two variances apart at p < LEVEL_CHANGE_P,
# small because every row of every GPU is tested: a chance difference (8192^3 GEMMs at the power
# cap) keeps the pooled, larger sample. A latest level that is noisier counts the same way.
LATEST_LEVEL_MIN_DF = 6
LEVEL_CHANGE_P = 1e-3


def pooled_round_sd(sessions):
    """Pooled sd of log round medians around each session's mean, and its df."""
    ss = sum(sum((x - statistics.fmean(s)) ** 2 for x in s) for s in sessions)
    df = sum(len(s) - 1 for s in sessions)
    return (math.sqrt(ss / df) if df > 0 else None), df


def incomplete_beta(a, b, x):
    """Regularized incomplete beta I_x(a, b): Lentz's continued fraction (Numerical Recipes 6.4)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    if x > (a + 1) / (a + b + 2):  # the fraction converges fast only below this point
        return 1.0 - incomplete_beta(b, a, 1.0 - x)
    tiny = 1e-300
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)) / a
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return front * h


def f_two_sided_p(s1, df1, s2, df2):
    """Two-sided p of the F test that sds s1 (df1) and s2 (df2) estimate one variance."""
    f = (s1 / s2) ** 2
    lower = incomplete_beta(df1 / 2, df2 / 2, df1 * f / (df1 * f + df2))
    return min(1.0, 2 * min(lower, 1.0 - lower))


def round_noise_changed(leveled):
    """The latest level's (round_sd, round_df) when its round noise differs from the older levels'."""
    latest = max(level for level, _ in leveled)
    new_sd, new_df = pooled_round_sd([logs for level, logs in leveled if level == latest])
    old_sd, old_df = pooled_round_sd([logs for level, logs in leveled if level != latest])
    if new_df < LATEST_LEVEL_MIN_DF or old_df == 0 or not new_sd or not old_sd:
        return None
    return (new_sd, new_df) if f_two_sided_p(new_sd, new_df, old_sd, old_df) < LEVEL_CHANGE_P else None


def sig(x):
    return float(f"{x:.4g}")


def generate():
    # (gpu, id, metric) -> list of sessions, each a list of log round medians
    rows = {}  # (gpu, id, metric) -> list of (level, log round medians), one per session
    level_of = {}  # workload id -> its current level (0 until a session marks it changed)
    for label, files, *rest in SESSIONS:
        excluded = tuple(rest[0]) if rest else ()
        new_level = tuple(rest[1]) if len(rest) > 1 else ()
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
        for wid in {k[1] for k in per_session}:
            if new_level and wid.startswith(new_level):
                level_of[wid] = level_of.get(wid, 0) + 1
        for key, logs in per_session.items():
            rows.setdefault(key, []).append((level_of.get(key[1], 0), logs))
    out_rows = []
    for (gpu, wid, metric), leveled in sorted(rows.items()):
        sessions = [logs for _, logs in leveled]
        entry = {"gpu": gpu, "id": wid, "metric": metric, "sessions": len(sessions),
                 "rounds": sum(len(s) for s in sessions)}
        round_sd, round_df = pooled_round_sd(sessions)
        changed = round_noise_changed(leveled)
        if changed:
            round_sd, round_df = changed
            entry["round_level"] = "latest"
        if round_df > 0:
            entry["round_sd"] = sig(round_sd)
            entry["round_df"] = round_df
        # Session means pooled around their level's mean: df = sessions - levels.
        by_level = {}
        for level, logs in leveled:
            by_level.setdefault(level, []).append(statistics.fmean(logs))
        session_ss = sum(sum((m - statistics.fmean(ms)) ** 2 for m in ms) for ms in by_level.values())
        session_df = sum(len(ms) - 1 for ms in by_level.values())
        if session_df > 0:
            entry["session_sd"] = sig(math.sqrt(session_ss / session_df))
            entry["session_df"] = session_df
        if len(by_level) > 1:
            entry["levels"] = len(by_level)
        if round_df > 0 or session_df > 0:
            out_rows.append(entry)
    doc = {
        "noise_prior_version": 1,
        "generated_by": "scripts/noise_prior.py (do not edit: regenerate)",
        "scale": "sd of natural log of per-round medians (relative sd)",
        "sessions": [{"label": label, "files": files, "file_sha256": [file_sha256(f) for f in files],
                      "excluded_ids": list(rest[0]) if rest else [],
                      "new_level_ids": list(rest[1]) if len(rest) > 1 else []}
                     for label, files, *rest in SESSIONS],
        "rows": out_rows,
    }
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def file_sha256(path):
    """SHA-256 of a result file's bytes, as `cudabench history add` stores it (content_sha256): a
    history run that is one of these files is a session the prior already counts, so compare
    --history leaves it out (docs/statistics.md)."""
    with open(os.path.join(ROOT, path), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def self_test():
    """The F test's distribution against tabulated quantiles, and the level rule on made-up rounds."""
    failures = []
    # (F, df1, df2, lower tail): F tables (Abramowitz & Stegun 26.9) and F(d, d) = 1 at the median.
    for f, d1, d2, want in ((3.3258, 5, 10, 0.95), (5.8489, 2, 20, 0.99), (1.0, 7, 7, 0.5), (2.0921, 12, 30, 0.95)):
        got = incomplete_beta(d1 / 2, d2 / 2, d1 * f / (d1 * f + d2))
        if abs(got - want) > 2e-5:
            failures.append(f"F({d1}, {d2}) at {f}: {got:.6f}, want {want}")
    quiet = [[0.0, 0.001, -0.001]] * 4            # 8 df, sd 0.1%
    loud = [[0.0, 0.01, -0.01]] * 10              # 20 df, sd 1%
    if round_noise_changed([(0, s) for s in loud] + [(1, s) for s in quiet]) != pooled_round_sd(quiet):
        failures.append("a 10x quieter latest level with 8 df did not replace the older rounds")
    if round_noise_changed([(0, s) for s in loud] + [(1, s) for s in quiet[:2]]) is not None:
        failures.append("a latest level with 4 df replaced the older rounds")
    same = [[0.0, 0.01, -0.012]] * 4
    if round_noise_changed([(0, s) for s in loud] + [(1, s) for s in same]) is not None:
        failures.append("a latest level as noisy as the older ones replaced them")
    for f in failures:
        print(f"noise_prior self-test: {f}", file=sys.stderr)
    return 1 if failures else 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true", help="fail when the committed file is not what this generates")
    p.add_argument("--stdout", action="store_true", help="print instead of writing")
    p.add_argument("--self-test", action="store_true", help="check the F test and the level rule, write nothing")
    a = p.parse_args()
    if a.self_test:
        return self_test()
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
