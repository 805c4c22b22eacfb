#!/usr/bin/env python3
"""Oracle for the resnet50 workload: torchvision's ResNet-50 against cudabench's.

A seeded torchvision resnet50(weights=None) gets realistic, non-trivial batch-norm statistics
(running stats calibrated on random images, then gamma/beta/mean/var randomised so folding is
exercised), its state_dict goes to safetensors, and a seeded batch of 8 images (chosen from a
pool for a clear top-1 margin, so an fp16 rounding cannot flip a near tie) goes to a raw float32
NCHW file. tests/oracle/resnet50_oracle_run then runs cudabench's cuDNN model (fp32 and fp16)
and its naive fp32 reference on them; torchvision runs eval() in fp32 with TF32 off. Compared:
relative L2 error of the logits (fp32 near 1e-5, fp16 near 1e-2), max abs difference, and top-1
classes (equal for all 8). Exit 0 on pass, 1 on failure.

    python3 tests/oracle/oracle_resnet50.py --build-dir build
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torchvision
from safetensors.torch import save_file

BATCH = 8
POOL = 64
SIZE = 224
TOL = {"fp32": 1e-4, "fp16": 3e-2, "reference": 1e-4}


def find_helper(build_dir):
    for sub in ("tests", "."):
        p = os.path.join(build_dir, sub, "resnet50_oracle_run")
        if os.path.exists(p):
            return p
    sys.exit(f"oracle_resnet50: resnet50_oracle_run not found under {build_dir} (build it first)")


def make_model(device):
    torch.manual_seed(0)
    model = torchvision.models.resnet50(weights=None).to(device)
    # Calibrate running statistics on random images (cumulative average), so activations are
    # normalised as in a trained network and stay well inside fp16 range.
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.reset_running_stats()
            m.momentum = None
    model.train()
    g = torch.Generator(device=device).manual_seed(1)
    with torch.no_grad():
        for _ in range(2):
            model(torch.randn(16, 3, SIZE, SIZE, device=device, generator=g))
    # Then randomise every batch-norm parameter around those values: folding must matter.
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                c = m.num_features
                m.weight.copy_(torch.empty(c, device=device).uniform_(0.5, 1.5, generator=g))
                m.bias.copy_(torch.empty(c, device=device).uniform_(-0.2, 0.2, generator=g))
                std = m.running_var.clamp_min(1e-6).sqrt()
                m.running_mean.add_(0.1 * std * torch.randn(c, device=device, generator=g))
                m.running_var.mul_(torch.empty(c, device=device).uniform_(0.8, 1.25, generator=g))
    return model.eval()


def rel_l2(y, ref):
    return float(np.linalg.norm((y - ref).ravel()) / np.linalg.norm(ref.ravel()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build-dir", default="build")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("oracle_resnet50: no CUDA device")
        return 1
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    helper = find_helper(args.build_dir)
    dev = torch.device("cuda")
    model = make_model(dev)

    # A pool of seeded images; keep the BATCH with the largest fp32 top-1 margin (in units of the
    # logits' spread) so the top-1 comparison tests the network, not a coin-flip tie.
    g = torch.Generator(device=dev).manual_seed(2)
    pool = torch.empty(POOL, 3, SIZE, SIZE, device=dev).uniform_(-2.0, 2.0, generator=g)
    with torch.no_grad():
        pool_logits = model(pool).float()
    top2 = pool_logits.topk(2, dim=1).values
    margin = (top2[:, 0] - top2[:, 1]) / pool_logits.std(dim=1)
    keep = margin.argsort(descending=True)[:BATCH].sort().values
    x = pool[keep].contiguous()
    with torch.no_grad():
        ref = model(x).float().cpu().numpy()
    print(f"torchvision fp32 (TF32 off): logits std {ref.std():.3f}, "
          f"smallest kept top-1 margin {float(margin[keep].min()):.2f} std")

    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        wpath = os.path.join(tmp, "resnet50.safetensors")
        xpath = os.path.join(tmp, "input.f32")
        save_file({k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}, wpath)
        x.cpu().numpy().astype(np.float32).tofile(xpath)
        runs = [("fp32", ["--dtype", "fp32"]), ("fp16", ["--dtype", "fp16"]), ("reference", ["--impl", "reference"])]
        for name, extra in runs:
            ypath = os.path.join(tmp, f"logits_{name}.f32")
            cmd = [helper, "--weights", wpath, "--input", xpath, "--batch", str(BATCH), "--image-size", str(SIZE),
                   "--output", ypath] + extra
            proc = subprocess.run(cmd, capture_output=True, text=True)
            sys.stdout.write(proc.stdout)
            if proc.returncode != 0:
                print(f"FAIL {name}: helper exited {proc.returncode}: {proc.stderr.strip()}")
                failed = True
                continue
            y = np.fromfile(ypath, dtype=np.float32).reshape(BATCH, -1)
            err = rel_l2(y, ref)
            max_abs = float(np.abs(y - ref).max())
            top1 = int((y.argmax(1) == ref.argmax(1)).sum())
            ok = np.isfinite(y).all() and err <= TOL[name] and top1 == BATCH
            print(f"{'ok  ' if ok else 'FAIL'} cudabench {name:9s} vs torchvision fp32: relative L2 {err:.3e} "
                  f"(tol {TOL[name]:.0e}), max |diff| {max_abs:.3e}, top-1 equal {top1}/{BATCH}")
            failed |= not ok
    print("oracle_resnet50:", "FAILED" if failed else "passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
