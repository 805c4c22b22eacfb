#!/usr/bin/env python3
"""Oracle for train_step: one PyTorch AMP step (torch.autocast + GradScaler + torch.optim.AdamW,
same hyper-parameters) against cudabench's mlp_trainer on the same weights, input and target.

tests/train_step_oracle_run writes the initial fp32 master weights, the 16-bit input, the target,
cudabench's first-step gradients (unscaled), its updated master weights, loss and loss scale. This
script loads the same weights into nn.Sequential(Linear(H, H, bias=False), ReLU, ..., Linear),
runs the step and compares:
  gradients:  per layer ||ours - torch|| / ||torch||  <= 2e-2 (fp16), 5e-2 (bf16)
              (two 16-bit pipelines: rounding and the odd ReLU flip differ, the math must not)
  weights:    the first AdamW step moves each weight by ~lr * sign(g), so a weight differs only
              where the gradient's sign does (|g| tiny); require max |dw| <= 2.5 * lr and fewer
              than 1% of weights off by more than 1e-6 + 1e-5 |w|
  loss:       relative difference <= 1e-3;  scale: equal.
Exit 0 on pass, 1 on failure.

    python3 tests/oracle/oracle_train_step.py --build-dir build
"""
import argparse
import os
import subprocess
import sys
import tempfile

import torch
import torch.nn.functional as F
from safetensors.torch import load_file


def torch_step(d, dtype, layers):
    lr, b1, b2, eps, wd = [float(x) for x in d["hparams"]]
    scale0 = float(d["scale"][0])
    w = d["w_init"].cuda()
    mods = []
    for l in range(layers):
        lin = torch.nn.Linear(w.shape[2], w.shape[1], bias=False).cuda()
        with torch.no_grad():
            lin.weight.copy_(w[l])
        mods.append(lin)
        if l + 1 < layers:
            mods.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*mods)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, betas=(b1, b2), eps=eps, weight_decay=wd)
    scaler = torch.amp.GradScaler("cuda", init_scale=scale0, growth_factor=2.0, backoff_factor=0.5,
                                  growth_interval=2000)
    x0, target = d["x0"].cuda(), d["target"].cuda()
    with torch.autocast("cuda", dtype=dtype):
        y = model(x0)
        loss = F.mse_loss(y.float(), target)
    scaler.scale(loss).backward()
    used_scale = float(scaler.get_scale())
    grads = torch.stack([m.weight.grad.detach().float() / used_scale for m in model if isinstance(m, torch.nn.Linear)])
    scaler.step(opt)
    scaler.update()
    w_after = torch.stack([m.weight.detach().float() for m in model if isinstance(m, torch.nn.Linear)])
    return float(loss), used_scale, grads.cpu(), w_after.cpu(), lr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--batch", type=int, default=128)
    args = ap.parse_args()
    exe = os.path.join(args.build_dir, "tests", "train_step_oracle_run")
    if not os.path.exists(exe):
        print(f"missing {exe}: build the oracle helpers first", file=sys.stderr)
        return 1
    torch.backends.cuda.matmul.allow_tf32 = False
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for name, dtype, gtol in (("fp16", torch.float16, 2e-2), ("bf16", torch.bfloat16, 5e-2)):
            out = os.path.join(tmp, f"{name}.safetensors")
            cmd = [exe, "--out", out, "--dtype", name, "--layers", str(args.layers), "--hidden", str(args.hidden),
                   "--batch", str(args.batch), "--seed", "5"]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL: {' '.join(cmd)} exited {r.returncode}\n{r.stdout}{r.stderr}")
                ok = False
                continue
            d = load_file(out)
            loss, scale, g_ref, w_ref, lr = torch_step(d, dtype, args.layers)
            g, w = d["grads"], d["w_after"]
            gerr = [float((g[l] - g_ref[l]).norm() / g_ref[l].norm()) for l in range(args.layers)]
            dw = (w - w_ref).abs()
            off = float((dw > 1e-6 + 1e-5 * w_ref.abs()).float().mean())
            lerr = abs(float(d["loss"][0]) - loss) / abs(loss)
            checks = {
                "gradients": max(gerr) <= gtol,
                "weights": float(dw.max()) <= 2.5 * lr and off < 0.01,
                "loss": lerr <= 1e-3,
                "scale": float(d["scale"][0]) == scale,
                "finite": bool(torch.isfinite(g).all() and torch.isfinite(w).all()),
            }
            passed = all(checks.values())
            ok &= passed
            print(f"{'PASS' if passed else 'FAIL'}: {name} MLP {args.layers}x{args.hidden}, batch {args.batch}: "
                  f"grad ||ours-torch||/||torch|| per layer {['%.3g' % e for e in gerr]} (tol {gtol:g}); "
                  f"updated weights max |diff| {float(dw.max()):.3g} (<= {2.5 * lr:g}), "
                  f"{100 * off:.3f}% beyond 1e-6+1e-5|w|; loss {float(d['loss'][0]):.6g} vs {loss:.6g} "
                  f"(rel {lerr:.2g}); scale {float(d['scale'][0]):g} vs {scale:g}; "
                  f"failed: {[k for k, v in checks.items() if not v]}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
