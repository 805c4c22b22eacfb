"""PyTorch reference implementations of cudabench workload kinds, one module per kind.

Each module `scripts/torch_ref/<kind>.py` defines

    def run(params: dict, settings: dict) -> dict

taking one expanded workload's params (as `cudabench list --format json` prints them) and the
run settings (repetitions, warmup, min_time_ms; torch_compile: true under torch_reference.py
--compile, which a module honours where it knows what a PyTorch user runs for speed, saying so in
its message, and otherwise ignores), and returning
    {"status": "ok" | "unsupported" | "oom" | "error" | "failed_validation", "message": str,
     "metrics": {name: {"unit": str, "better": "lower"|"higher", "samples": [float, ...]}},
     "validation": {"passed": bool, "max_rel_error": float, "tolerance": float} (optional),
     "peak_memory_bytes": int (optional)}
Metric names and units match the cudabench workload's, so `cudabench compare` lines them up.
"""
