#!/usr/bin/env python3
"""Oracle for transformer_memory: torch.nn.Transformer (eval, fp32, TF32 off) against cudabench's
transformer::model on the same seeded weights and inputs.

The model has torch's default shape (d_model 512, 8 heads, 6+6 layers, feed-forward 2048,
batch_first, dropout 0, no masks). Its biases and LayerNorm affine parameters are re-drawn at
random (torch initialises them to 0/1, which would hide a swapped or skipped term). The state_dict
and src/tgt are written to safetensors, tests/transformer_oracle_run runs cudabench on them, and the
outputs are compared element-wise: err = |ours - torch| / max(|torch|, 1).
  fp32: tolerance 1e-4;  fp16 cudabench vs fp32 torch: tolerance 5e-2 (fp16 storage).
Exit 0 on pass, 1 on failure.

    python3 tests/oracle/oracle_transformer.py --build-dir build
"""
import argparse
import os
import subprocess
import sys
import tempfile

import torch
from safetensors.torch import load_file, save_file


def build_model(seed):
    torch.manual_seed(seed)
    m = torch.nn.Transformer(d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                             dim_feedforward=2048, dropout=0.0, batch_first=True)
    with torch.no_grad():
        for name, p in m.named_parameters():
            if "norm" in name and name.endswith("weight"):
                p.uniform_(0.8, 1.2)
            elif name.endswith("bias"):
                p.uniform_(-0.1, 0.1)
    return m.eval()


def compare(ours, ref):
    err = (ours - ref).abs() / ref.abs().clamp_min(1.0)
    i = int(err.argmax())
    return float(err.max()), i, float(ours.flatten()[i]), float(ref.flatten()[i])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--src-len", type=int, default=100)
    ap.add_argument("--tgt-len", type=int, default=77)
    args = ap.parse_args()
    exe = os.path.join(args.build_dir, "tests", "transformer_oracle_run")
    if not os.path.exists(exe):
        print(f"missing {exe}: build the oracle helpers first", file=sys.stderr)
        return 1
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False

    model = build_model(1234)
    gen = torch.Generator().manual_seed(99)
    src = torch.randn(args.batch, args.src_len, 512, generator=gen)
    tgt = torch.randn(args.batch, args.tgt_len, 512, generator=gen)
    with torch.inference_mode():
        ref = model.cuda()(src.cuda(), tgt.cuda()).float().cpu()

    ok = True
    with tempfile.TemporaryDirectory() as d:
        wpath, ipath = os.path.join(d, "weights.safetensors"), os.path.join(d, "inputs.safetensors")
        save_file({k: v.detach().contiguous().cpu() for k, v in model.state_dict().items()}, wpath)
        save_file({"src": src.contiguous(), "tgt": tgt.contiguous()}, ipath)
        for fp16, tol in ((False, 1e-4), (True, 5e-2)):
            opath = os.path.join(d, f"out_{int(fp16)}.safetensors")
            cmd = [exe, "--weights", wpath, "--inputs", ipath, "--out", opath] + (["--fp16"] if fp16 else [])
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL: {' '.join(cmd)} exited {r.returncode}\n{r.stdout}{r.stderr}")
                ok = False
                continue
            ours = load_file(opath)["out"]
            if ours.shape != ref.shape:
                print(f"FAIL: shape {tuple(ours.shape)} vs torch {tuple(ref.shape)}")
                ok = False
                continue
            finite = bool(torch.isfinite(ours).all())
            err, i, o, t = compare(ours, ref)
            passed = finite and err <= tol
            ok &= passed
            print(f"{'PASS' if passed else 'FAIL'}: nn.Transformer default shape, batch {args.batch}, "
                  f"src {args.src_len}, tgt {args.tgt_len}, cudabench {'fp16' if fp16 else 'fp32'} vs torch fp32: "
                  f"max |ours-torch|/max(|torch|,1) = {err:.3g} at {i} (ours {o:.6g}, torch {t:.6g}), "
                  f"finite {finite}, tol {tol:g}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
