#!/usr/bin/env python3
"""Writes the hand-made result files used by the compare golden tests (tests/data/results/*.json).

cu121/cu124/cu126 are the three sides of one interleaved `cudabench ab` session with five rounds:
each metric's five samples are the five rounds' medians (one sample per round). The samples are
chosen so each row lands on a known verdict (see the comments); rerun this script after changing
them and then regenerate tests/data/expected/ (CUDABENCH_UPDATE_GOLDEN=1, see test_support.hpp).
"""
import json
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))


def metric(unit, better, samples):
    m = {"unit": unit, "better": better, "samples": samples,
         "median": statistics.median(samples), "mean": statistics.fmean(samples),
         "stddev": statistics.stdev(samples) if len(samples) > 1 else 0.0,
         "min": min(samples), "max": max(samples)}
    if len(samples) > 1:
        m["rounds"] = list(range(len(samples)))  # one sample per round
    return m


def workload(wid, kind, params, metrics, status="ok", message="", throttled=False, memory=None):
    w = {"id": wid, "kind": kind, "params": params, "status": status, "message": message}
    if status == "ok":
        w["validation"] = {"passed": True, "max_rel_error": 0.0012, "tolerance": 0.01}
    w["metrics"] = metrics
    w["clocks"] = {"sm_mhz": [1980, 1980, 1890 if throttled else 1980, 1980, 1980],
                   "throttle_reasons": ["sw_thermal_slowdown"] if throttled else [], "throttled": throttled}
    if memory:
        w["memory"] = memory
    return w


def result(label, toolkit, runtime, cublas, cudnn, workloads, gpu="NVIDIA H200"):
    return {
        "schema_version": "1.0",
        "tool": {"name": "cudabench", "version": "0.1.0", "git_commit": "0123456789ab", "argv": ["cudabench"]},
        "build": {"cuda_toolkit": toolkit, "cuda_architectures": "90", "compiler": "GNU 12.2.0",
                  "build_type": "Release", "cublas_headers": cublas, "cudnn_headers": cudnn},
        "environment": {"label": label, "hostname": "h200-box", "driver_version": "580.159.04",
                        "cuda_driver_api": "13.0", "cuda_runtime": runtime, "cublas": cublas, "cudnn": cudnn,
                        "device": {"index": 0, "name": gpu, "uuid": "GPU-00000000", "compute_capability": "9.0",
                                   "sm_count": 132, "memory_bytes": 150754820096, "l2_bytes": 62914560,
                                   "max_sm_clock_mhz": 1980, "max_memory_clock_mhz": 3201, "power_limit_w": 700,
                                   "ecc": True, "mig": False}},
        "suite": {"name": "golden", "source": "configs/golden.json", "sha256": "00" * 32},
        "settings": {"repetitions": 5, "warmup": 2, "min_time_ms": 25},
        "started_at": "2026-12-02T12:00:00Z", "finished_at": "2026-12-02T12:05:00Z",
        "rounds": 5,
        "round_log": [{"round": r, "exit_code": 0} for r in range(5)],
        "interleave": {"session": "golden-session", "side": label, "schedule": "ABCCBAABCCBAABC"},
        "workloads": workloads,
    }


MM16 = ("matmul/dtype=fp16/m=4096/n=4096/k=4096", "matmul", {"dtype": "fp16", "m": 4096, "n": 4096, "k": 4096})
MM32 = ("matmul/dtype=fp32/m=8192/n=4096/k=1024", "matmul", {"dtype": "fp32", "m": 8192, "n": 4096, "k": 1024})
BW = ("memory_bandwidth/op=d2d/bytes=1073741824", "memory_bandwidth", {"op": "d2d", "bytes": 1073741824})
LLM = ("llm_decode/model=llama-2-7b/dtype=fp16/prompt_tokens=128/max_length=256", "llm_decode",
       {"model": "llama-2-7b", "dtype": "fp16", "prompt_tokens": 128, "max_length": 256, "batch": 1})
TM = ("transformer_memory/dtype=fp32/batch=128/seq_len=512", "transformer_memory",
      {"dtype": "fp32", "batch": 128, "seq_len": 512})
RN = ("resnet50/dtype=fp16/batch=1", "resnet50", {"dtype": "fp16", "batch": 1, "image_size": 224})
TS = ("train_step/dtype=bf16/layers=8/hidden=4096/batch=256", "train_step",
      {"dtype": "bf16", "layers": 8, "hidden": 4096, "batch": 256})


def mm(spec, times, tflops, **kw):
    return workload(*spec, {"time_ms": metric("ms", "lower", times), "tflops": metric("TFLOP/s", "higher", tflops)}, **kw)


def bw(gbps, times):
    return workload(*BW, {"gbps": metric("GB/s", "higher", gbps), "time_ms": metric("ms", "lower", times)})


def llm(ttft, tps, tpot):
    return workload(*LLM, {"ttft_ms": metric("ms", "lower", ttft), "decode_tokens_per_s": metric("tokens/s", "higher", tps),
                           "tpot_ms": metric("ms", "lower", tpot)})


def tm(peak, times, **kw):
    return workload(*TM, {"peak_memory_mb": metric("MB", "lower", peak), "time_ms": metric("ms", "lower", times)},
                    memory={"peak_bytes": 20000000000}, **kw)


def main():
    base = result("CUDA 12.1", "12.1.105", "12.1", "12.1.3", "9.0.0", [
        # improved: every candidate round faster, -4.8% time
        mm(MM16, [0.210, 0.211, 0.212, 0.209, 0.210], [654.5, 651.4, 648.3, 657.6, 654.5]),
        # regressed: every candidate round slower, +10%
        mm(MM32, [0.300, 0.301, 0.302, 0.299, 0.300], [229.1, 228.3, 227.6, 229.9, 229.1]),
        # unchanged: within 2%
        bw([3950.0, 3960.0, 3955.0, 3948.0, 3952.0], [0.5437, 0.5423, 0.5430, 0.5440, 0.5434]),
        # inconclusive: medians 5% apart but the rounds scatter by 15%
        llm([8.0, 9.5, 7.2, 10.1, 8.4], [270.0, 268.0, 271.0, 269.0, 270.5], [3.70, 3.73, 3.69, 3.72, 3.70]),
        # failed: the candidate runs out of memory
        tm([19073.5, 19073.5, 19073.5, 19073.5, 19073.5], [41.0, 41.2, 40.9, 41.1, 41.0]),
        # only in the baseline
        workload(*RN, {"images_per_s": metric("images/s", "higher", [1010.0, 1012.0, 1008.0, 1011.0, 1009.0])}),
    ])
    cand = result("CUDA 12.4", "12.4.131", "12.4", "12.4.5.8", "9.1.0", [
        mm(MM16, [0.200, 0.201, 0.199, 0.200, 0.202], [687.2, 683.8, 690.7, 687.2, 680.4], throttled=True),
        mm(MM32, [0.330, 0.331, 0.332, 0.329, 0.330], [208.2, 207.6, 207.0, 208.9, 208.2]),
        bw([3960.0, 3950.0, 3958.0, 3962.0, 3949.0], [0.5423, 0.5437, 0.5426, 0.5420, 0.5438]),
        llm([8.5, 7.0, 9.9, 7.5, 8.0], [272.0, 266.0, 273.0, 267.0, 271.0], [3.68, 3.75, 3.66, 3.74, 3.69]),
        workload(*TM, {}, status="oom", message="cudaMalloc of 24.00 GiB failed: out of device memory",
                 memory={"oom_requested_bytes": 25769803776}),
        # only in the candidate
        workload(*TS, {"step_ms": metric("ms", "lower", [14.1, 14.0, 14.2, 14.1, 14.0]),
                       "samples_per_s": metric("samples/s", "higher", [18156.0, 18285.7, 18028.2, 18156.0, 18285.7])}),
    ])
    third = result("CUDA 12.6", "12.6.77", "12.6", "12.6.3.3", "9.3.0", [
        mm(MM16, [0.190, 0.191, 0.189, 0.190, 0.192], [723.4, 719.6, 727.2, 723.4, 715.8]),
        mm(MM32, [0.300, 0.299, 0.301, 0.300, 0.302], [229.1, 229.9, 228.3, 229.1, 227.6]),
        bw([3700.0, 3710.0, 3705.0, 3698.0, 3702.0], [0.5803, 0.5788, 0.5796, 0.5806, 0.5800]),
        llm([8.1, 8.0, 8.2, 7.9, 8.3], [280.0, 281.0, 279.5, 280.5, 282.0], [3.57, 3.56, 3.58, 3.57, 3.55]),
        tm([19073.5] * 5, [40.0, 40.1, 39.9, 40.0, 40.2]),
        workload(*RN, {}, status="error", message="CUDNN_STATUS_EXECUTION_FAILED at resnet50.cu:212"),
    ])
    files = {"cu121.json": base, "cu124.json": cand, "cu126.json": third}
    # The same as the baseline but recorded on another GPU, under the same label.
    other = json.loads(json.dumps(base))
    other["environment"]["device"]["name"] = "NVIDIA A100-SXM4-80GB"
    other["environment"]["driver_version"] = "570.86.15"
    other["interleave"] = {}  # another machine: not the same session
    files["cu121_a100.json"] = other
    # Nothing in common with the baseline.
    files["disjoint.json"] = result("CUDA 12.4", "12.4.131", "12.4", "12.4.5.8", "9.1.0", [cand["workloads"][5]])
    # Another major schema version.
    v2 = json.loads(json.dumps(cand))
    v2["schema_version"] = "2.0"
    files["schema_v2.json"] = v2
    # A minor version from the future with an unknown key: must read.
    v13 = json.loads(json.dumps(cand))
    v13["schema_version"] = "1.3"
    v13["future_field"] = {"anything": True}
    files["schema_v1_3.json"] = v13
    # Wrong type deep inside.
    bad = json.loads(json.dumps(cand))
    bad["workloads"][2]["metrics"]["gbps"]["samples"][1] = "3950"
    files["bad_sample_type.json"] = bad
    # A NaN sample is written as null by JSON encoders.
    nan = json.loads(json.dumps(cand))
    nan["workloads"][0]["metrics"]["time_ms"]["samples"][3] = None
    files["nan_sample.json"] = nan
    for name, data in files.items():
        with open(os.path.join(HERE, name), "w") as f:
            json.dump(data, f, indent=2, ensure_ascii=False)
            f.write("\n")
    with open(os.path.join(HERE, "malformed.json"), "w") as f:
        f.write('{"schema_version": "1.0", "workloads": [\n')


if __name__ == "__main__":
    main()
