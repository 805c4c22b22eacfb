#!/usr/bin/env python3
"""Writes a large, realistic cudabench result file for scaling measurements (scripts/bench-compare-scale.sh).

  scripts/gen-scale-results.py N OUT.json [--label L] [--shift PCT] [--seed S]

N workloads shaped like a 5-round `cudabench run --rounds 5` of matmul sweeps, pretty-printed as
cudabench writes them (indent 2): each has params, validation, time_ms and tflops with five
samples and their round indices, clocks with the SM MHz per repetition, and a tuning
choice; about 1.15 KB per workload, so N = 10^6 gives a file of about 1 GB. --shift moves every
tenth workload's times by PCT percent (a candidate with real changes); --seed picks the noise.
Text is produced from templates, not json.dumps, so 10^6 workloads take seconds, not minutes.
"""
import argparse
import random
import sys

HEAD = """{
  "schema_version": "1.0",
  "tool": {"name": "cudabench", "version": "0.1.0", "git_commit": "0123456789ab", "argv": ["cudabench"]},
  "build": {"cuda_toolkit": "13.0.88", "cuda_architectures": "90", "compiler": "GNU 12.2.0",
            "build_type": "Release", "cublas_headers": "13.1.0", "cudnn_headers": "9.14.0"},
  "environment": {"label": "%(label)s", "hostname": "scale-box", "driver_version": "580.159.04",
                  "cuda_driver_api": "13.0", "cuda_runtime": "13.0", "cublas": "13.1.0", "cudnn": "9.14.0",
                  "device": {"index": 0, "name": "NVIDIA H200", "compute_capability": "9.0", "sm_count": 132}},
  "suite": {"name": "scale", "source": "generated", "sha256": "%(sha)s"},
  "settings": {"repetitions": 1, "warmup": 2, "min_time_ms": 25, "rounds": 5},
  "started_at": "2026-12-02T12:00:00Z",
  "finished_at": "2026-12-02T12:05:00Z",
  "rounds": 5,
  "round_log": [{"round": 0, "exit_code": 0}, {"round": 1, "exit_code": 0}, {"round": 2, "exit_code": 0},
                {"round": 3, "exit_code": 0}, {"round": 4, "exit_code": 0}],
  "workloads": [
"""

WORKLOAD = """    {
      "id": "matmul/dtype=%(dtype)s/m=%(m)d/n=%(n)d/k=%(k)d",
      "kind": "matmul",
      "params": {
        "dtype": "%(dtype)s",
        "m": %(m)d,
        "n": %(n)d,
        "k": %(k)d
      },
      "status": "ok",
      "message": "",
      "validation": {"passed": true, "max_rel_error": %(err).3g, "tolerance": 0.01},
      "metrics": {
        "time_ms": {
          "unit": "ms",
          "better": "lower",
          "samples": [%(t)s],
          "median": %(tmed).9g,
          "mean": %(tmed).9g,
          "stddev": 0.001,
          "min": %(tmin).9g,
          "max": %(tmax).9g,
          "rounds": [0, 1, 2, 3, 4]
        },
        "tflops": {
          "unit": "TFLOP/s",
          "better": "higher",
          "samples": [%(f)s],
          "median": %(fmed).9g,
          "mean": %(fmed).9g,
          "stddev": 1.5,
          "min": %(fmin).9g,
          "max": %(fmax).9g,
          "rounds": [0, 1, 2, 3, 4]
        }
      },
      "clocks": {
        "sm_mhz": [1980, 1980, 1965, 1980, 1980],
        "throttle_reasons": [],
        "throttled": false
      },
      "tuning": {"algorithm": %(algo)d}
    }"""

DTYPES = ["fp32", "tf32", "fp16", "bf16", "fp8"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int)
    ap.add_argument("out")
    ap.add_argument("--label", default="CUDA 13.0")
    ap.add_argument("--shift", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    with open(a.out, "w", buffering=1 << 22) as out:
        out.write(HEAD % {"label": a.label, "sha": "ab" * 32})
        for i in range(a.n):
            # A unique (dtype, m, n, k) per index: the id is stable across files for the same N.
            dtype = DTYPES[i % 5]
            j = i // 5
            m, n, k = 64 + (j % 97) * 64, 64 + (j // 97 % 101) * 64, 64 + j // (97 * 101) * 64
            base = 1e-9 * m * n * k / 40.0 + 0.004
            if a.shift and i % 10 == 0:
                base *= 1.0 + a.shift / 100.0
            t = [base * (1.0 + rng.gauss(0, 0.004)) for _ in range(5)]
            f = [2.0 * m * n * k / (x * 1e-3) / 1e12 for x in t]
            ts, fs = sorted(t), sorted(f)
            out.write(WORKLOAD % {
                "dtype": dtype, "m": m, "n": n, "k": k, "err": rng.random() * 1e-3,
                "t": ", ".join("%.9g" % x for x in t), "tmed": ts[2], "tmin": ts[0], "tmax": ts[4],
                "f": ", ".join("%.9g" % x for x in f), "fmed": fs[2], "fmin": fs[0], "fmax": fs[4],
                "algo": i % 7})
            out.write(",\n" if i + 1 < a.n else "\n")
        out.write("  ]\n}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
