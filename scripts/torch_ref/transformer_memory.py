"""PyTorch reference for transformer_memory: torch.nn.Transformer (default shape: d_model 512,
8 heads, 6+6 layers, feed-forward 2048, batch_first, no masks), fp32 with TF32 off (PyTorch's
default for matmul) or fp16.
  mode inference (the default): dropout 0, eval, under torch.inference_mode.
  mode train: the seed's measurement -- the module in its default training mode (dropout from the
    row, 0.1 by default), no no_grad, torch.cuda.reset_peak_memory_stats() before one forward and
    torch.cuda.max_memory_allocated() after it, so the peak holds everything autograd saved for the
    backward (docs/transformer-train-memory.md); then that forward timed. A row's mem_limit caps
    the process with torch.cuda.set_per_process_memory_fraction, as the seed's 24 GB card did.
    With backward: true (train, fp32), as cudabench: out.backward(G) after the forward, G a fixed
    upstream gradient uniform in [-1, 1); the peak spans one forward + backward (the parameters'
    .grad tensors included, allocated by that backward and kept), and a timed run is
    zero_grad(set_to_none=False) + forward + backward.

peak_memory_mb is torch.cuda.max_memory_allocated() over model creation and the timed forwards,
relative to what was allocated before, *including the weights and the src/tgt inputs* -- cudabench
counts its weights and inputs too. (Allocator caching is not counted: allocated, not reserved.)
tokens_per_s = batch * seq_len / time (source tokens), as in cudabench.
"""
import torch

from .common import rate_metric, time_metric, time_per_run_ms


def _model(params, dtype, train):
    dropout = float(params.get("dropout", 0.1)) if train else 0.0
    m = torch.nn.Transformer(d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                             dim_feedforward=2048, dropout=dropout, batch_first=True)
    weights = params.get("weights", "random")
    if weights != "random":
        from safetensors.torch import load_file
        m.load_state_dict(load_file(weights))
    m = m.to(device="cuda", dtype=dtype)
    return m.train() if train else m.eval()


def _cap(params):
    """The row's mem_limit as a fraction of the device (None: no cap)."""
    limit = params.get("mem_limit")
    if not limit:
        return None
    total = torch.cuda.get_device_properties(torch.cuda.current_device()).total_memory
    return min(1.0, int(limit) / total)


def run(params, settings):
    if params.get("mode", "inference") == "train":
        return run_train(params, settings)
    batch = int(params["batch"])
    seq = int(params.get("seq_len", 512))
    dtype = torch.float16 if params.get("dtype", "fp32") == "fp16" else torch.float32
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.cuda.empty_cache()
    base = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    model = src = tgt = None
    try:
        model = _model(params, dtype, train=False)
        gen = torch.Generator(device="cuda").manual_seed(0x5eed)
        src = torch.rand(batch, seq, 512, device="cuda", dtype=dtype, generator=gen) * 2 - 1
        tgt = torch.rand(batch, seq, 512, device="cuda", dtype=dtype, generator=gen) * 2 - 1
        with torch.inference_mode():
            out = model(src, tgt)
            finite = bool(torch.isfinite(out).all())
            del out
            samples = time_per_run_ms(lambda: model(src, tgt), settings)
        torch.cuda.synchronize()
        peak = torch.cuda.max_memory_allocated() - base
    except torch.cuda.OutOfMemoryError as e:
        return {"status": "oom", "message": str(e).splitlines()[0], "metrics": {}}
    finally:
        del model, src, tgt
        torch.cuda.empty_cache()
    if not finite:
        return {"status": "failed_validation", "message": "non-finite output", "metrics": {}}
    return {
        "status": "ok",
        "message": "torch.nn.Transformer eval, inference_mode, TF32 off; peak includes weights and inputs",
        "metrics": {
            "peak_memory_mb": {"unit": "MiB", "better": "lower", "samples": [peak / 1048576.0]},
            "time_ms": time_metric(samples),
            "tokens_per_s": rate_metric("tokens/s", batch * seq, 1.0, samples),
        },
        "peak_memory_bytes": int(peak),
    }


def run_train(params, settings):
    batch = int(params["batch"])
    seq = int(params.get("seq_len", 512))
    dtype = torch.float16 if params.get("dtype", "fp32") == "fp16" else torch.float32
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.cuda.empty_cache()
    cap = _cap(params)
    if cap is not None:
        torch.cuda.set_per_process_memory_fraction(cap)
    backward = bool(params.get("backward", False))
    base = torch.cuda.memory_allocated()
    model = src = tgt = out = grad_out = None
    try:
        model = _model(params, dtype, train=True)
        gen = torch.Generator(device="cuda").manual_seed(0x5eed)
        src = torch.rand(batch, seq, 512, device="cuda", dtype=dtype, generator=gen) * 2 - 1
        tgt = torch.rand(batch, seq, 512, device="cuda", dtype=dtype, generator=gen) * 2 - 1
        grad_out = None
        if backward:
            grad_out = torch.rand(batch, seq, 512, device="cuda", dtype=dtype, generator=gen) * 2 - 1
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        out = model(src, tgt)  # autograd on: the graph and its saved tensors stay until `out` goes
        if backward:
            out.backward(grad_out)
        torch.cuda.synchronize()
        peak = torch.cuda.max_memory_allocated() - base
        finite = bool(torch.isfinite(out).all())
        if backward:
            finite = finite and all(bool(torch.isfinite(p.grad).all()) for p in model.parameters())
        out = None

        def step():
            if backward:
                model.zero_grad(set_to_none=False)
                model(src, tgt).backward(grad_out)
            else:
                model(src, tgt)

        samples = time_per_run_ms(step, settings)
        torch.cuda.synchronize()
    except torch.cuda.OutOfMemoryError as e:
        return {"status": "oom", "message": str(e).splitlines()[0], "metrics": {}}
    finally:
        del model, src, tgt, out, grad_out
        if cap is not None:
            torch.cuda.set_per_process_memory_fraction(1.0)
        torch.cuda.empty_cache()
    if not finite:
        return {"status": "failed_validation", "message": "non-finite output or gradient", "metrics": {}}
    what = "one forward + out.backward(G)" if backward else "one forward"
    return {
        "status": "ok",
        "message": f"torch.nn.Transformer train mode, autograd on (no no_grad), TF32 off; peak after {what}, "
                   "includes weights and inputs",
        "metrics": {
            "peak_memory_mb": {"unit": "MiB", "better": "lower", "samples": [peak / 1048576.0]},
            "time_ms": time_metric(samples),
            "tokens_per_s": rate_metric("tokens/s", batch * seq, 1.0, samples),
        },
        "peak_memory_bytes": int(peak),
    }
