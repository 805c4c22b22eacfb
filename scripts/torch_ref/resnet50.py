"""PyTorch reference for the resnet50 kind: torchvision resnet50 in eval/inference mode, eager.

fp16: .half() and channels_last (PyTorch's fastest eager layout for convolutions); fp32: NCHW
with TF32 off (cuDNN and matmul), the same numerics cudabench uses. Inputs are a seeded uniform
[-2, 2) batch already on the device. Metrics match cudabench's: images_per_s, latency_ms,
first_inference_ms (cold: a fresh copy of the model moved to the GPU untimed, then its first
forward timed with events, once per repetition -- PyTorch keeps its cuDNN plan cache across
models in one process, so after the first repetition this is warmer than cudabench's, which
re-plans every time), peak_memory_gb (torch.cuda.max_memory_allocated).
"""
import copy

import torch

try:
    from .common import rate_metric, time_metric, time_per_run_ms
except ImportError:  # loaded as a top-level module (scripts/torch_ref on sys.path)
    from common import rate_metric, time_metric, time_per_run_ms


def _build_cpu(weights):
    import torchvision

    model = torchvision.models.resnet50(weights=None)
    if weights != "random":
        from safetensors.torch import load_file

        state = load_file(weights)
        state = {k: v.float() for k, v in state.items()}
        model.load_state_dict(state, strict=False)
    return model.eval()


def _to_device(cpu_model, fp16):
    m = copy.deepcopy(cpu_model).cuda()
    if fp16:
        m = m.half().to(memory_format=torch.channels_last)
    return m


def run(params, settings):
    if not torch.cuda.is_available():
        return {"status": "unsupported", "message": "no CUDA device", "metrics": {}}
    try:
        import torchvision  # noqa: F401
    except ImportError as e:
        return {"status": "unsupported", "message": f"torchvision missing: {e}", "metrics": {}}
    fp16 = params.get("dtype", "fp16") == "fp16"
    batch = int(params["batch"])
    size = int(params.get("image_size", 224))
    weights = params.get("weights", "random")
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.benchmark = bool(params.get("tune", False))
    try:
        torch.manual_seed(0x5EED)
        cpu_model = _build_cpu(weights)
        gen = torch.Generator(device="cuda").manual_seed(0x5EED)
        x = torch.empty(batch, 3, size, size, device="cuda").uniform_(-2.0, 2.0, generator=gen)
        if fp16:
            x = x.half().contiguous(memory_format=torch.channels_last)
        torch.cuda.reset_peak_memory_stats()
        model = _to_device(cpu_model, fp16)

        def forward():
            with torch.inference_mode():
                return model(x)

        logits = forward()
        torch.cuda.synchronize()
        if not torch.isfinite(logits).all():
            return {"status": "failed_validation", "message": "non-finite logits", "metrics": {}}
        samples = time_per_run_ms(forward, settings)
        peak = torch.cuda.max_memory_allocated()

        first = []
        for _ in range(len(samples)):
            cold = _to_device(cpu_model, fp16)
            torch.cuda.synchronize()
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            with torch.inference_mode():
                cold(x)
            end.record()
            end.synchronize()
            first.append(start.elapsed_time(end))
            del cold
        metrics = {
            "images_per_s": rate_metric("images/s", batch, 1.0, samples),
            "latency_ms": time_metric(samples),
            "first_inference_ms": {"unit": "ms (cold)", "better": "lower", "samples": first},
            "peak_memory_gb": {"unit": "GB", "better": "lower", "samples": [peak / 1e9]},
        }
        return {"status": "ok", "message": "torchvision eager" + (", fp16 channels_last" if fp16 else ", fp32 TF32 off"),
                "metrics": metrics, "peak_memory_bytes": int(peak)}
    except torch.cuda.OutOfMemoryError as e:
        return {"status": "oom", "message": str(e).splitlines()[0], "metrics": {}}
