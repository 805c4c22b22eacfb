"""Timing shared by the PyTorch reference modules: CUDA events, the same warm-up, repetition and
batching rules as cudabench's runner (a repetition times back-to-back runs lasting >= min_time_ms;
the sample is elapsed / runs)."""
import math

import torch


def time_per_run_ms(fn, settings, stream=None, on_timed_start=None):
    """Warm up, size a batch so one repetition lasts >= min_time_ms, return per-run ms samples.
    on_timed_start, if given, is called once right before the timed repetitions (after warm-up and
    the batch-sizing run), so a caller can count what happened during them alone."""
    reps = int(settings.get("repetitions", 5))
    warmup = int(settings.get("warmup", 2))
    min_time_ms = float(settings.get("min_time_ms", 25.0))
    for _ in range(max(warmup, 1)):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    one = max(start.elapsed_time(end), 1e-3)
    runs = max(1, math.ceil(min_time_ms / one))
    if on_timed_start is not None:
        on_timed_start()
    samples = []
    for _ in range(reps):
        start.record()
        for _ in range(runs):
            fn()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) / runs)
    return samples


def time_metric(samples, name_unit="ms"):
    return {"unit": name_unit, "better": "lower", "samples": list(samples)}


def rate_metric(unit, amount_per_run, scale, per_run_ms):
    return {"unit": unit, "better": "higher",
            "samples": [amount_per_run / (ms * 1e-3) / scale for ms in per_run_ms]}
