"""PyTorch reference for train_step: one eager AMP training step of the same MLP --
layers x nn.Linear(hidden, hidden, bias=False) with ReLU between, fp32 parameters, torch.autocast
(fp16 or bf16), MSE loss against a fixed random linear map of the input, torch.amp.GradScaler
(init 2^16, growth 2 every 2000 steps, backoff 0.5) and torch.optim.AdamW (lr 1e-3, betas
0.9/0.999, eps 1e-8, weight_decay 0.01; PyTorch's default foreach implementation).
A step is zero_grad(set_to_none) + forward + backward + scaler.step + scaler.update, as written in
the AMP recipe (scaler.step reads found_inf on the host: that sync is part of eager PyTorch).
tflops = 6 * batch * layers * hidden^2 / step time, as in cudabench.
skipped_steps, as in cudabench: the steps GradScaler skipped (inf/nan gradients) during the timed
repetitions, counted without an extra sync: steps called minus AdamW's own step count (it does not
advance on a skipped step), read once before and once after them. A skip fails validation.
"""
import math

import torch
import torch.nn.functional as F

from .common import rate_metric, time_metric, time_per_run_ms


def run(params, settings):
    dtype = torch.bfloat16 if params.get("dtype", "fp16") == "bf16" else torch.float16
    layers = int(params.get("layers", 8))
    hidden = int(params.get("hidden", 8192))
    batch = int(params.get("batch", 2048))
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.cuda.empty_cache()
    state = {}
    try:
        gen = torch.Generator(device="cuda").manual_seed(0x5eed)
        mods = []
        r = math.sqrt(6.0 / hidden)
        for l in range(layers):
            lin = torch.nn.Linear(hidden, hidden, bias=False, device="cuda")
            with torch.no_grad():
                lin.weight.uniform_(-r, r, generator=gen)
            mods.append(lin)
            if l + 1 < layers:
                mods.append(torch.nn.ReLU())
        model = torch.nn.Sequential(*mods)
        x = (torch.rand(batch, hidden, device="cuda", generator=gen) * 2 - 1).to(dtype)
        a = ((torch.rand(hidden, hidden, device="cuda", generator=gen) * 2 - 1) * math.sqrt(3.0 / hidden)).to(dtype)
        target = (x.float() @ a.float().t())
        del a
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01)
        scaler = torch.amp.GradScaler("cuda", init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5,
                                      growth_interval=2000)
        state.update(model=model, x=x, target=target, opt=opt, scaler=scaler)

        calls = [0]

        def step():
            calls[0] += 1
            opt.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=dtype):
                y = model(x)
                loss = F.mse_loss(y.float(), target)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            return loss

        def optimizer_steps():  # AdamW's per-parameter step count: skipped steps leave it alone
            st = opt.state.get(next(model.parameters()), {})
            return int(st["step"]) if "step" in st else 0

        first = float(step())
        before = {}
        samples = time_per_run_ms(step, settings,
                                  on_timed_start=lambda: before.update(calls=calls[0], taken=optimizer_steps()))
        skipped = (calls[0] - before["calls"]) - (optimizer_steps() - before["taken"])
        last = float(step())
    except torch.cuda.OutOfMemoryError as e:
        return {"status": "oom", "message": str(e).splitlines()[0], "metrics": {}}
    finally:
        state.clear()
        torch.cuda.empty_cache()
    if not (math.isfinite(first) and math.isfinite(last)):
        return {"status": "failed_validation", "message": f"non-finite loss {first} -> {last}", "metrics": {}}
    if skipped:
        return {"status": "failed_validation",
                "message": f"the loss scaler skipped {skipped} of the timed steps (inf/nan gradients)", "metrics": {}}
    flops = 6.0 * batch * layers * hidden * hidden
    return {
        "status": "ok",
        "message": f"eager AMP step ({'bf16' if dtype == torch.bfloat16 else 'fp16'}), loss {first:.4g} -> {last:.4g}",
        "metrics": {
            "step_ms": time_metric(samples),
            "samples_per_s": rate_metric("samples/s", batch, 1.0, samples),
            "tflops": rate_metric("TFLOP/s", flops, 1e12, samples),
            "skipped_steps": {"unit": "steps", "better": "lower", "samples": [float(skipped)]},
        },
    }
