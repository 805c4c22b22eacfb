"""PyTorch reference for the `matmul` workload kind: the same problem through torch.

Same layout as cudabench (src/workloads/matmul/matmul.hpp): A row-major [batch, m, k], B stored
[batch, n, k] and used transposed (a column-major view, no copy), C = A @ B^T of shape [batch, m, n].
fp32 runs with TF32 off, tf32 with it on; fp16/bf16 use torch's defaults otherwise; fp8 goes through
torch._scaled_mm (e4m3 inputs, unit scales, bf16 output, no fast accumulation), 2-D only.
Metrics: time_ms, tflops (2·m·n·k·batch / time). The result is validated like cudabench's: a sample
of entries against float64 dot products of the same stored inputs, with the same tolerances.
"""
import math

import torch

from .common import rate_metric, time_metric, time_per_run_ms

_STORAGE = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
_MAX_SAMPLES = 1024


def tolerance(dtype, k):
    """Mirror of matmul_tolerance() in src/workloads/matmul/matmul.cpp (see the derivation there)."""
    accumulation = 8 * 2.0 ** -24 * math.sqrt(k) + 1e-6
    return accumulation + {"fp32": 0.0, "tf32": 5e-3, "fp16": 10 * 2.0 ** -11,
                           "bf16": 5 * 2.0 ** -8, "fp8": 8 * 2.0 ** -8}[dtype]


def _uniform(shape, dtype, gen):
    """Uniform in [-1, 1), drawn in fp32 and rounded to the storage type (e4m3 holds it unscaled)."""
    x = torch.rand(shape, device="cuda", dtype=torch.float32, generator=gen) * 2 - 1
    return x.to(dtype)


def _sample_indices(batch, m, n, gen):
    total = batch * m * n
    if total <= _MAX_SAMPLES:
        flat = torch.arange(total, device="cuda")
        return flat // (m * n), (flat // n) % m, flat % n
    corners = [(b, i, j) for b in {0, batch - 1} for i in (0, m - 1) for j in (0, n - 1)]
    count = _MAX_SAMPLES - len(corners)
    bs = torch.randint(0, batch, (count,), device="cuda", generator=gen)
    rs = torch.randint(0, m, (count,), device="cuda", generator=gen)
    cs = torch.randint(0, n, (count,), device="cuda", generator=gen)
    cb, ci, cj = (torch.tensor(v, device="cuda") for v in zip(*corners))
    return torch.cat([cb, bs]), torch.cat([ci, rs]), torch.cat([cj, cs])


def _rows(t, bi, ri):
    """t[bi, ri, :] as float64; float8 is gathered through a uint8 view (indexing kernels may lack it)."""
    if t.element_size() == 1 and t.is_floating_point():
        return t.view(torch.uint8)[bi, ri, :].view(t.dtype).float().double()
    return t[bi, ri, :].double()


def _set_tf32(enabled):
    """Set TF32 for matmuls through whichever API this PyTorch has; return the previous setting."""
    matmul = torch.backends.cuda.matmul
    if hasattr(matmul, "fp32_precision"):  # PyTorch >= 2.9; the legacy flag is deprecated there
        previous = matmul.fp32_precision
        matmul.fp32_precision = "tf32" if enabled else "ieee"
        return lambda: setattr(matmul, "fp32_precision", previous)
    previous = matmul.allow_tf32
    matmul.allow_tf32 = enabled
    return lambda: setattr(matmul, "allow_tf32", previous)


def _validate(dtype, a, bt, c, gen):
    """Max of |got - ref| / max(|ref|, ||a*b||_2) over sampled entries; a, bt, c are 3-D."""
    batch, m, k = a.shape
    n = bt.shape[1]
    bi, ri, ci = _sample_indices(batch, m, n, gen)
    worst = 0.0
    for start in range(0, bi.numel(), 256):  # chunks keep the float64 products small for huge k
        sl = slice(start, start + 256)
        prod = _rows(a, bi[sl], ri[sl]) * _rows(bt, bi[sl], ci[sl])
        ref = prod.sum(dim=1)
        l2 = prod.norm(dim=1)
        got = c[bi[sl], ri[sl], ci[sl]].double()
        den = torch.maximum(ref.abs(), l2)
        err = torch.where(den > 0, (got - ref).abs() / den, (got - ref).abs())
        err = torch.where(torch.isfinite(got), err, torch.full_like(err, float("inf")))
        worst = max(worst, err.max().item())
    tol = tolerance(dtype, k)
    return {"passed": worst <= tol, "max_rel_error": worst if math.isfinite(worst) else 1.7976931348623157e308,
            "tolerance": tol}


def run(params, settings):
    dtype = params["dtype"]
    m, n, k = int(params["m"]), int(params["n"]), int(params["k"])
    batch = int(params.get("batch", 1))
    gen = torch.Generator(device="cuda")
    gen.manual_seed(0x5EED)
    restore_tf32 = _set_tf32(dtype == "tf32")
    try:
        if dtype == "fp8":
            major, minor = torch.cuda.get_device_capability()
            if (major, minor) < (8, 9):
                return {"status": "unsupported", "message": f"fp8 needs compute capability 8.9+ (this GPU is "
                                                            f"{major}.{minor})", "metrics": {}}
            if not hasattr(torch, "_scaled_mm") or not hasattr(torch, "float8_e4m3fn"):
                return {"status": "unsupported", "message": "this PyTorch has no torch._scaled_mm / float8_e4m3fn",
                        "metrics": {}}
            if batch != 1:
                return {"status": "unsupported", "message": "torch._scaled_mm is 2-D only (batch > 1)",
                        "metrics": {}}
            a = _uniform((m, k), torch.float8_e4m3fn, gen)
            bt = _uniform((n, k), torch.float8_e4m3fn, gen)
            one = torch.ones((), device="cuda", dtype=torch.float32)

            def fn():
                out = torch._scaled_mm(a, bt.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
                return out[0] if isinstance(out, tuple) else out  # torch < 2.4 also returned amax
            a3, bt3 = a.unsqueeze(0), bt.unsqueeze(0)
        else:
            storage = _STORAGE[dtype]
            a = _uniform((batch, m, k), storage, gen)
            bt = _uniform((batch, n, k), storage, gen)
            if batch == 1:
                a2, b2 = a[0], bt[0].t()
                def fn():
                    return torch.mm(a2, b2)
            else:
                bview = bt.transpose(1, 2)
                def fn():
                    return torch.bmm(a, bview)
            a3, bt3 = a, bt

        c = fn()
        torch.cuda.synchronize()
        validation = _validate(dtype, a3, bt3, c.reshape(batch, m, n), gen)
        del c
        if not validation["passed"]:
            return {"status": "failed_validation", "validation": validation, "metrics": {},
                    "message": f"max_rel_error {validation['max_rel_error']:.3g} > {validation['tolerance']:.3g}"}
        torch.cuda.reset_peak_memory_stats()  # peak from here: the live inputs plus what runs add
        samples = time_per_run_ms(fn, settings)
        flops = 2.0 * m * n * k * batch
        return {"status": "ok", "message": "", "validation": validation,
                "metrics": {"time_ms": time_metric(samples), "tflops": rate_metric("TFLOP/s", flops, 1e12, samples)},
                "peak_memory_bytes": int(torch.cuda.max_memory_allocated())}
    except torch.cuda.OutOfMemoryError as e:
        return {"status": "oom", "message": str(e).splitlines()[0], "metrics": {}}
    finally:
        restore_tf32()
