"""PyTorch reference for the `memory_bandwidth` workload kind, on uint8 tensors of `bytes` bytes.

d2d: dst.copy_(src) on the GPU (torch calls cudaMemcpyAsync for a contiguous same-dtype copy);
h2d/d2h *_pinned: .copy_(..., non_blocking=True) with a pin_memory() host tensor; *_pageable: the
same with an ordinary host tensor (the driver stages it; non_blocking keeps torch from adding a
stream sync of its own after each copy); memset: dst.fill_(0xA5).
Metrics: gbps (GB/s = 1e9 bytes/s; d2d counts bytes read + written) and time_ms, as in cudabench.
Validation: the destination is poisoned, one run, then compared with the source over every byte.
"""
import re

import torch

from .common import rate_metric, time_metric, time_per_run_ms

_MEMSET_VALUE = 0xA5
_POISON = 0x5A
_UNITS = {"": 1, "b": 1, "kb": 10 ** 3, "mb": 10 ** 6, "gb": 10 ** 9, "tb": 10 ** 12,
          "kib": 2 ** 10, "mib": 2 ** 20, "gib": 2 ** 30, "tib": 2 ** 40}


def _byte_count(value):
    """An integer, or a string such as "1GiB" / "512MiB" / "4GB" (as suites allow)."""
    if isinstance(value, int):
        return value
    match = re.fullmatch(r"\s*(\d+)\s*([A-Za-z]*)\s*", str(value))
    if not match or match.group(2).lower() not in _UNITS:
        raise ValueError(f"bad byte size {value!r}")
    return int(match.group(1)) * _UNITS[match.group(2).lower()]


def _random_bytes(n, device, gen):
    return torch.randint(0, 256, (n,), dtype=torch.uint8, device=device, generator=gen)


def run(params, settings):
    op = params["op"]
    nbytes = _byte_count(params["bytes"])
    cuda_gen = torch.Generator(device="cuda")
    cuda_gen.manual_seed(0x5EED)
    try:
        if op == "d2d":
            src = _random_bytes(nbytes, "cuda", cuda_gen)
            dst = torch.empty_like(src)
            fn = lambda: dst.copy_(src)  # noqa: E731
        elif op in ("h2d_pinned", "h2d_pageable"):
            # Drawn on the GPU (much faster than on the CPU for GiB sizes), then brought over.
            src = _random_bytes(nbytes, "cuda", cuda_gen).cpu()
            if op == "h2d_pinned":
                src = src.pin_memory()
            dst = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
            fn = lambda: dst.copy_(src, non_blocking=True)  # noqa: E731
        elif op in ("d2h_pinned", "d2h_pageable"):
            src = _random_bytes(nbytes, "cuda", cuda_gen)
            dst = torch.empty(nbytes, dtype=torch.uint8, pin_memory=(op == "d2h_pinned"))
            fn = lambda: dst.copy_(src, non_blocking=True)  # noqa: E731
        elif op == "memset":
            src = None
            dst = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
            fn = lambda: dst.fill_(_MEMSET_VALUE)  # noqa: E731
        else:
            return {"status": "error", "message": f"unknown op {op!r}", "metrics": {}}

        # Validate: poison, one run, compare every byte (on the GPU for device destinations).
        dst.fill_(_POISON)
        fn()
        torch.cuda.synchronize()
        if op == "memset":
            wrong = int((dst != _MEMSET_VALUE).sum().item())
        elif dst.is_cuda:
            wrong = int((dst != src.to(dst.device)).sum().item())
        else:
            wrong = int((dst != src.cpu()).sum().item())
        validation = {"passed": wrong == 0, "max_rel_error": wrong / nbytes, "tolerance": 0.0}
        if wrong:
            return {"status": "failed_validation", "validation": validation, "metrics": {},
                    "message": f"{wrong} of {nbytes} bytes differ after one {op}"}

        torch.cuda.reset_peak_memory_stats()  # peak from here: the live buffers plus what runs add
        samples = time_per_run_ms(fn, settings)
        moved = nbytes * (2 if op == "d2d" else 1)
        return {"status": "ok", "message": "", "validation": validation,
                "metrics": {"gbps": rate_metric("GB/s", moved, 1e9, samples), "time_ms": time_metric(samples)},
                "peak_memory_bytes": int(torch.cuda.max_memory_allocated())}
    except torch.cuda.OutOfMemoryError as e:
        return {"status": "oom", "message": str(e).splitlines()[0], "metrics": {}}
