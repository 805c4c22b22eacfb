#!/usr/bin/env python3
"""Run a cudabench suite's workloads through PyTorch and write a result file in cudabench's schema.

    scripts/torch_reference.py --suite quick -o results/h200/quick-torch.json
    scripts/torch_reference.py --suite full --filter 'matmul/*' --reps 5 -o torch.json
    scripts/torch_reference.py --suite quick --dry-run          # the plan; needs no torch, no GPU

`cudabench list --format json` is the single source of truth for which workloads a suite holds,
their ids and their params; this script never parses suites itself, so ids line up in
`cudabench compare cudabench.json torch.json`. Each kind is run by `scripts/torch_ref/<kind>.py`
(contract in torch_ref/__init__.py); a kind without a module is recorded as `skipped`. One
workload failing (OOM, an exception) is recorded and the suite goes on. The result file is
rewritten atomically after every workload, so an interrupted run keeps what finished.
Exit codes follow cudabench: 0 ok, 2 bad input, 3 no usable GPU / PyTorch.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import importlib
import json
import math
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

SCRIPT_DIR = Path(__file__).resolve().parent
REPO_ROOT = SCRIPT_DIR.parent
REF_DIR = SCRIPT_DIR / "torch_ref"
SCHEMA_VERSION = "1.0"
STATUSES = ("ok", "failed_validation", "oom", "error", "unsupported", "skipped")


class InputError(Exception):
    """Bad input (options, suite, cudabench output): exit code 2."""


class RuntimeFailure(Exception):
    """No usable PyTorch/CUDA: exit code 3."""


# ---- the plan: cudabench list --format json ----------------------------------------------------

def find_cudabench(explicit: str | None) -> str:
    if explicit:
        if os.path.isfile(explicit) and os.access(explicit, os.X_OK):
            return explicit
        raise InputError(f'--cudabench "{explicit}" is not an executable file')
    for c in (os.environ.get("CUDABENCH"), str(REPO_ROOT / "build" / "cudabench"), shutil.which("cudabench")):
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    raise InputError("cudabench not found (looked at $CUDABENCH, build/cudabench and PATH); "
                     "build it or pass --cudabench PATH")


def list_suite(cudabench: str, suite: str, filter_glob: str | None) -> dict:
    cmd = [cudabench, "list", "--suite", suite, "--format", "json"]
    if filter_glob:
        cmd += ["--filter", filter_glob]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        detail = proc.stderr.strip() or proc.stdout.strip() or f"exit code {proc.returncode}"
        raise InputError(f"`{' '.join(cmd)}` failed: {detail}")
    try:
        plan = json.loads(proc.stdout)
        for key in ("suite", "settings", "workloads"):
            plan[key]  # noqa: B018 - presence check
    except (json.JSONDecodeError, KeyError, TypeError) as e:
        raise InputError(f"`{' '.join(cmd)}` printed something other than the list JSON ({e})") from e
    return plan


def settings_from(plan: dict, args: argparse.Namespace) -> dict:
    s = dict(plan["settings"])
    if args.reps is not None:
        s["repetitions"] = args.reps
    if args.warmup is not None:
        s["warmup"] = args.warmup
    if args.min_time_ms is not None:
        s["min_time_ms"] = args.min_time_ms
    if int(s["repetitions"]) < 1 or int(s["warmup"]) < 0 or float(s["min_time_ms"]) < 0:
        raise InputError(f"invalid settings {s} (repetitions >= 1, warmup >= 0, min_time_ms >= 0)")
    return {"repetitions": int(s["repetitions"]), "warmup": int(s["warmup"]),
            "min_time_ms": float(s["min_time_ms"])}


def has_reference(kind: str) -> bool:
    return kind.isidentifier() and (REF_DIR / f"{kind}.py").is_file()


def load_reference(kind: str):
    """The module that runs `kind` through PyTorch, or None if there is none."""
    if not has_reference(kind):
        return None
    if str(SCRIPT_DIR) not in sys.path:
        sys.path.insert(0, str(SCRIPT_DIR))
    return importlib.import_module(f"torch_ref.{kind}")


# ---- result records -------------------------------------------------------------------------------

def utc_now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def metric_record(name: str, m: dict) -> dict:
    """A module's {unit, better, samples} plus the summary cudabench stores (stddev: n-1)."""
    if not isinstance(m, dict) or "samples" not in m or "unit" not in m:
        raise ValueError(f"metric {name}: expected {{unit, better, samples}}, got {m!r}")
    better = m.get("better", "lower")
    if better not in ("lower", "higher"):
        raise ValueError(f'metric {name}: better must be "lower" or "higher", got {better!r}')
    samples = [float(x) for x in m["samples"]]
    if not samples or not all(math.isfinite(x) for x in samples):
        raise ValueError(f"metric {name}: samples must be a non-empty list of finite numbers")
    return {"unit": str(m["unit"]), "better": better, "samples": samples,
            "median": statistics.median(samples), "mean": statistics.fmean(samples),
            "stddev": statistics.stdev(samples) if len(samples) > 1 else 0.0,
            "min": min(samples), "max": max(samples)}


def workload_record(w: dict, status: str, message: str = "", outcome: dict | None = None) -> dict:
    rec = {"id": w["id"], "kind": w["kind"], "params": w["params"], "status": status,
           "message": message}
    outcome = outcome or {}
    if outcome.get("validation") is not None:
        v = outcome["validation"]
        rec["validation"] = {"passed": bool(v["passed"]), "max_rel_error": float(v["max_rel_error"]),
                             "tolerance": float(v["tolerance"])}
    rec["metrics"] = {name: metric_record(name, m) for name, m in (outcome.get("metrics") or {}).items()}
    rec["clocks"] = {"sm_mhz": [], "throttle_reasons": []}
    if outcome.get("peak_memory_bytes") is not None:
        rec["memory"] = {"peak_bytes": int(outcome["peak_memory_bytes"])}
    return rec


def record_from_outcome(w: dict, outcome) -> dict:
    """Checks what a torch_ref module returned; a malformed outcome becomes status `error`."""
    try:
        if not isinstance(outcome, dict):
            raise ValueError(f"run() returned {type(outcome).__name__}, expected a dict")
        status = outcome.get("status", "ok")
        if status not in STATUSES:
            raise ValueError(f"unknown status {status!r} (expected one of {', '.join(STATUSES)})")
        return workload_record(w, status, str(outcome.get("message", "")), outcome)
    except (ValueError, KeyError, TypeError) as e:
        return workload_record(w, "error", f"torch_ref/{w['kind']}.py returned a bad result: {e}")


def write_atomic(path: str, doc: dict) -> None:
    tmp = f"{path}.tmp"
    parent = os.path.dirname(os.path.abspath(path))
    os.makedirs(parent, exist_ok=True)
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


# ---- environment --------------------------------------------------------------------------------

def cudnn_version_string(v) -> str | None:
    """torch.backends.cudnn.version(): 91900 -> "9.19.0" (cuDNN 9+), 8907 -> "8.9.7" (cuDNN 8)."""
    if not v:
        return None
    v = int(v)
    if v >= 90000:
        return f"{v // 10000}.{v % 10000 // 100}.{v % 100}"
    return f"{v // 1000}.{v % 1000 // 100}.{v % 100}"


def nvidia_smi_driver(index: int) -> str | None:
    try:
        out = subprocess.run(["nvidia-smi", f"--id={index}", "--query-gpu=driver_version",
                              "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    line = out.stdout.strip().splitlines()[0].strip() if out.returncode == 0 and out.stdout.strip() else ""
    return line or None


def environment(torch, index: int, label: str | None) -> dict:
    props = torch.cuda.get_device_properties(index)
    device = {"index": index, "name": props.name}
    uuid = getattr(props, "uuid", None)
    if uuid is not None:
        text = str(uuid)
        device["uuid"] = text if text.startswith("GPU-") else f"GPU-{text}"
    device.update({"compute_capability": f"{props.major}.{props.minor}",
                   "sm_count": props.multi_processor_count,
                   "memory_bytes": int(props.total_memory)})
    l2 = getattr(props, "L2_cache_size", None)
    if l2:
        device["l2_bytes"] = int(l2)
    env = {"label": label or f"PyTorch {torch.__version__}", "hostname": socket.gethostname()}
    driver = nvidia_smi_driver(index)
    if driver:
        env["driver_version"] = driver
    env["cuda_runtime"] = torch.version.cuda
    cudnn = cudnn_version_string(torch.backends.cudnn.version()) if torch.backends.cudnn.is_available() else None
    if cudnn:
        env["cudnn"] = cudnn
    env["device"] = device
    return env


# ---- running ------------------------------------------------------------------------------------

def run_one(torch, w: dict, settings: dict, compile_mode: bool = False) -> dict:
    module = load_reference(w["kind"])
    if module is None:
        return workload_record(w, "skipped", f"no PyTorch reference for kind {w['kind']}")
    oom_type = getattr(torch.cuda, "OutOfMemoryError", None)
    try:
        run_settings = dict(settings)
        if compile_mode:
            run_settings["torch_compile"] = True
        outcome = module.run(dict(w["params"]), run_settings)
        torch.cuda.synchronize()
        return record_from_outcome(w, outcome)
    except Exception as e:  # noqa: BLE001 - every failure is recorded, the suite goes on
        status = "oom" if oom_type is not None and isinstance(e, oom_type) else "error"
        message = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        if status == "error":
            message = f"{type(e).__name__}: {message}"
        return workload_record(w, status, message)
    finally:
        try:
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
        except Exception:  # noqa: BLE001 - a sticky CUDA error shows up in the next workload
            pass


def print_plan(plan: dict, settings: dict) -> None:
    s = plan["suite"]
    ws = plan["workloads"]
    print(f"suite {s['name']} ({s['source']}), {len(ws)} workload{'s' if len(ws) != 1 else ''}; "
          f"repetitions {settings['repetitions']}, warmup {settings['warmup']}, "
          f"min_time_ms {settings['min_time_ms']:g}")
    width = max((len(w["id"]) for w in ws), default=0)
    for i, w in enumerate(ws, 1):
        how = (f"torch_ref/{w['kind']}.py" if has_reference(w["kind"])
               else f"skip: no PyTorch reference for kind {w['kind']}")
        print(f"  {i:>{len(str(len(ws)))}}  {w['id']:<{width}}  {how}")


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="torch_reference.py",
        description="Run a cudabench suite through PyTorch and write a cudabench-schema result file.",
        epilog="Example: scripts/torch_reference.py --suite quick -o results/h200/quick-torch.json")
    p.add_argument("--suite", required=True, help="suite name (configs/NAME.json) or path")
    p.add_argument("--cudabench", help="cudabench binary (default: $CUDABENCH, build/cudabench, PATH)")
    p.add_argument("--filter", help="keep workloads whose id matches a glob (* ?, comma-separated)")
    p.add_argument("--reps", type=int, help="repetitions (default: the suite's)")
    p.add_argument("--warmup", type=int, help="warm-up runs (default: the suite's)")
    p.add_argument("--min-time-ms", type=float, help="minimum time per repetition (default: the suite's)")
    p.add_argument("--device", type=int, default=0, help="CUDA device index (default 0)")
    p.add_argument("-o", "--output", help="result file to write (required unless --dry-run)")
    p.add_argument("--label", help='environment.label (default "PyTorch <version>")')
    p.add_argument("--dry-run", action="store_true", help="print the plan; needs no torch and no GPU")
    p.add_argument("--compile", action="store_true",
                   help="run what a PyTorch user runs for speed where a kind's module knows it (llm_decode: "
                        "transformers' static KV cache, whose decode step transformers compiles with "
                        "torch.compile); other kinds run as without it")
    args = p.parse_args(argv)
    if not args.dry_run and not args.output:
        p.error("-o/--output is required (or use --dry-run)")
    return args


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    try:
        plan = list_suite(find_cudabench(args.cudabench), args.suite, args.filter)
        settings = settings_from(plan, args)
        if args.dry_run:
            print_plan(plan, settings)
            return 0
        return run_suite(plan, settings, args, argv)
    except InputError as e:
        print(f"torch_reference: error: {e}", file=sys.stderr)
        return 2
    except RuntimeFailure as e:
        print(f"torch_reference: error: {e}", file=sys.stderr)
        return 3


def run_suite(plan: dict, settings: dict, args: argparse.Namespace, argv: list[str]) -> int:
    try:
        import torch  # lazily: --help and --dry-run work without it
    except ImportError as e:
        raise RuntimeFailure(f"cannot import torch ({e})") from e
    if not torch.cuda.is_available():
        raise RuntimeFailure("PyTorch sees no CUDA device")
    if not 0 <= args.device < torch.cuda.device_count():
        raise InputError(f"--device {args.device}: PyTorch sees {torch.cuda.device_count()} device(s)")
    torch.cuda.set_device(args.device)

    suite = plan["suite"]
    doc = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "torch_reference", "version": torch.__version__,
                 "argv": [sys.argv[0] if sys.argv else "torch_reference.py", *argv]},
        "build": {},
        "environment": environment(torch, args.device,
                                   args.label or (f"PyTorch {torch.__version__}, --compile" if args.compile else None)),
        "suite": {"name": suite["name"], "source": suite["source"], "sha256": suite["sha256"]},
        "settings": settings,
        "started_at": utc_now(),
        "finished_at": "",
        "workloads": [],
    }
    workloads = plan["workloads"]
    n = len(workloads)
    t0 = time.monotonic()
    try:
        for i, w in enumerate(workloads, 1):
            t = time.monotonic()
            print(f"[{i}/{n}] {w['id']} ...", file=sys.stderr, flush=True)
            rec = run_one(torch, w, settings, args.compile)
            doc["workloads"].append(rec)
            doc["finished_at"] = utc_now()
            write_atomic(args.output, doc)
            headline = next(iter(rec["metrics"].items()), None)
            shown = f" {headline[0]} {headline[1]['median']:.4g} {headline[1]['unit']}" if headline else ""
            note = f" ({rec['message']})" if rec["message"] else ""
            print(f"[{i}/{n}] {w['id']}: {rec['status']}{shown}{note} [{time.monotonic() - t:.1f}s, "
                  f"total {time.monotonic() - t0:.1f}s]", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        doc["finished_at"] = utc_now()
        write_atomic(args.output, doc)
        print(f"torch_reference: interrupted; {len(doc['workloads'])} of {n} workloads kept in "
              f"{args.output}", file=sys.stderr)
        return 130
    doc["finished_at"] = utc_now()
    write_atomic(args.output, doc)
    print(f"torch_reference: wrote {args.output} ({n} workloads)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
