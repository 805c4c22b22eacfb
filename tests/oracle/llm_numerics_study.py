#!/usr/bin/env python3
"""CPU study of issue 11: why cudabench's Llama logits seemed to lose precision with the position.

What it does (no GPU, no cudabench binary): builds random Llama models with transformers at the
reviewer's shapes (head_dim 128, peaked attention from q/k weights at several times
1/sqrt(fan_in)), rounds the weights to fp16, and compares first-step logits
(err = max|logits - ref| / max|ref|) of
  * an emulation of cudabench's prefill in torch (fp32 math, rounded to fp16/bf16 exactly where
    kernels/llm_decode/*.cu and the cuBLASLt GEMMs round: after each projection, norm, residual add,
    SwiGLU, RoPE product and sum; cos/sin of an fp32 angle p * 1/powf(theta, 2i/d); attention
    scores, softmax and P.V in fp32; fp32 logits), one step at a time switchable (--bisect);
  * an emulation of transformers in the same dtype on a GPU (the same rounding points, fp32
    angles, flash attention's fp16 P, fp16 logits);
  * references: transformers in fp64 with exact rotary angles ("exact"), and transformers after
    model.half() then .double() ("cast") -- what tests/oracle/oracle_llm.py's build_model and
    run_transformers produce: Module.half()/.to(dtype) also casts the rotary embedding's
    non-persistent inv_freq buffer, so every later forward rotates by p * fp16(inv_freq).

What it showed (fp16, seed 1, hidden 256, 2 heads of 128, q/k weights uniform in
+-4.33/sqrt(fan_in), i.e. std 2.5/sqrt(fan_in); `--bisect --long` reproduces it in ~1 min):
  layers positions | vs "cast" ref: cudabench  tf .half()  ratio | vs "exact" ref: cudabench  tf fp16  tf .half()
       1      8    |               0.0006     0.0008      0.8  |                0.0007     0.0008    0.0010
       1    128    |               0.0031     0.0006      5.1  |                0.0006     0.0006    0.0028
       1    400    |               0.0111     0.0005     21.6  |                0.0004     0.0005    0.0106
       4    128    |               0.0163     0.0027      6.0  |                0.0052     0.0062    0.0151
       4    400    |               0.0327     0.0025     13.3  |                0.0028     0.0056    0.0279
       1   2048    |               0.0537     0.0015     34.6  |                0.0012     0.0012    0.0553
       4   2048    |               0.0774     0.0055     14.2  |                0.0028     0.0027    0.0778
  Against the "cast" reference, cudabench's error grows with the position and transformers-.half()
  stays flat: the reviewer's table (ratio 1 -> 20, growing with position, not depth). --bisect:
  giving cudabench's emulation fp16(inv_freq) alone brings it to the cast reference (1 layer, 400
  positions: 0.0111 -> 0.0005; 4 layers: 0.0327 -> 0.0043); no other step (cos/sin rounding, RoPE
  product rounding, fp32 vs fp16 P in attention, fp32 vs rounded logits) moves it by more than
  noise. Against the "exact" reference, cudabench is flat with the position and no worse than
  transformers loaded with from_pretrained(dtype=...), while the .half() model's own error grows.
  So the growth in the reviewer's table came from the reference: it and transformers-fp16 shared
  rotary frequencies rounded to fp16 (up to 2^-12 relative error in every angle, ~0.05 rad at
  position 400), and cudabench, which rotates by the fp32 angle, was charged with the difference.
  The one position-dependent loss cudabench itself had is smaller and matters at long contexts
  (--rope-only): an angle formed in fp32 (inv_freq rounded to fp32, p * inv_freq rounded to
  fp32) errs by up to ~|angle| * 2^-23 rad, so its fp16 cos/sin err by up to 2.6e-4 below 512
  positions, 4e-4 below 4096 and 1.9e-3 below 32768 (theta 10^4; 2.3e-3 at 5x10^5), against
  2.4e-4 for the rounding of the exact cos/sin alone. kernels/llm_decode/rope_kv.cu now takes cos/sin from a table computed in double
  (make_rope_table), so the factors are the storage rounding of the exact values at every position
  ("cb fixed" in the table printed below; tests/gpu/test_llm_rope.cpp checks it on the GPU).
Run: python3 tests/oracle/llm_numerics_study.py [--bisect] [--rope-only] [--long]
"""
import argparse
import math
import sys

import torch

torch.set_num_threads(max(1, torch.get_num_threads()))
DT = {"fp16": torch.float16, "bf16": torch.bfloat16}


def build_model(layers, head_dim=128, heads=2, kv_heads=2, hidden=256, inter=688, vocab=1000, qk_gain=4.33, seed=1,
                dtype="fp16"):
    """fp32 transformers model whose weights are rounded to `dtype` (inv_freq stays fp32)."""
    from transformers import LlamaConfig, LlamaForCausalLM
    cfg = LlamaConfig(vocab_size=vocab, hidden_size=hidden, intermediate_size=inter, num_hidden_layers=layers,
                      num_attention_heads=heads, num_key_value_heads=kv_heads, head_dim=head_dim, rms_norm_eps=1e-5,
                      rope_theta=10000.0, max_position_embeddings=4096, tie_word_embeddings=False, bos_token_id=None,
                      eos_token_id=None, pad_token_id=None, attn_implementation="eager")
    torch.manual_seed(seed)
    model = LlamaForCausalLM(cfg)
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name:
                p.copy_(torch.empty_like(p).uniform_(0.9, 1.1, generator=gen))
            elif "embed_tokens" in name:
                p.copy_(torch.empty_like(p).uniform_(-1.0, 1.0, generator=gen))
            else:
                gain = qk_gain if ("q_proj" in name or "k_proj" in name) else 1.0
                a = gain / math.sqrt(p.shape[1])
                p.copy_(torch.empty_like(p).uniform_(-a, a, generator=gen))
            p.copy_(p.to(DT[dtype]).float())
    return model.eval()


def exact_rope(model):
    """Make transformers' rotary embedding compute p * theta^(-2i/d) and cos/sin in fp64 (its forward
    casts inv_freq to fp32 whatever the model dtype)."""
    rot = model.model.rotary_emb
    cfg = model.config
    theta = cfg.rope_parameters["rope_theta"]
    hd = cfg.head_dim

    def forward(x, position_ids):
        inv = 1.0 / (theta ** (torch.arange(0, hd, 2, dtype=torch.float64, device=x.device) / hd))
        freqs = position_ids[..., None].to(torch.float64) * inv
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(x.dtype), emb.sin().to(x.dtype)

    rot.forward = forward
    return model


def reference_logits(model, ids, kind):
    """kind "exact": fp64 with exact angles; "cast": model.half().double() (fp16 inv_freq, fp64 math)."""
    import copy
    m = copy.deepcopy(model)
    if kind == "exact":
        m = exact_rope(m.double())
    else:
        m = m.half().double()
    with torch.no_grad():
        return m(torch.tensor([ids])).logits[0, -1]


def rd(x, dt):
    return x if dt is None else x.to(dt).to(torch.float32)


def emulate(model, ids, dtype, angles="fp32", round_cs=True, round_rope=True, attn="fp32", round_logits=False):
    """The prefill's last-position logits with cudabench's (defaults) or transformers' rounding points.
    angles: "fp32" (1/powf, fp32 product: cudabench before the fix, transformers), "exact" (double),
    "fp16-inv" (fp32 product of fp16-rounded inv_freq: transformers after .half()).
    attn: "fp32" (cudabench: scores, softmax, P.V in fp32), "p16" (flash attention: P rounded to dtype)."""
    dt = DT[dtype]
    c = model.config
    sd = {k: v.float() for k, v in model.state_dict().items()}
    hd, nh, nkv, eps = c.head_dim, c.num_attention_heads, c.num_key_value_heads, c.rms_norm_eps
    P, half = len(ids), c.head_dim // 2

    def rms(h, w):
        return rd(w * rd(h * torch.rsqrt((h * h).mean(-1, keepdim=True) + eps), dt), dt)

    def lin(x, w):
        return rd(x @ w.T, dt)

    theta = c.rope_parameters["rope_theta"]
    i = torch.arange(half, dtype=torch.float64)
    pos = torch.arange(P, dtype=torch.float64)
    if angles == "exact":
        ang = pos[:, None] * theta ** (-2.0 * i / hd)[None, :]
    else:
        inv = (1.0 / torch.pow(torch.tensor(theta, dtype=torch.float32), (2 * i / hd).float()))
        if angles == "fp16-inv":
            inv = inv.half().float()
        ang = (pos.float()[:, None] * inv[None, :]).double()
    cs, sn = torch.cos(ang).float(), torch.sin(ang).float()
    if round_cs:
        cs, sn = rd(cs, dt), rd(sn, dt)
    rr = (lambda x: rd(x, dt)) if round_rope else (lambda x: x)

    def rope(x):
        x1, x2 = x[..., :half], x[..., half:]
        cc, ss = cs[:, None, :], sn[:, None, :]
        return torch.cat([rr(rr(x1 * cc) + rr(-x2 * ss)), rr(rr(x2 * cc) + rr(x1 * ss))], -1)

    h = sd["model.embed_tokens.weight"][ids]
    delta = None
    mask = torch.triu(torch.ones(P, P, dtype=torch.bool), 1)
    for layer in range(c.num_hidden_layers):
        p = f"model.layers.{layer}."
        if delta is not None:
            h = rd(h + delta, dt)
        x = rms(h, sd[p + "input_layernorm.weight"])
        q = rope(lin(x, sd[p + "self_attn.q_proj.weight"]).view(P, nh, hd))
        k = rope(lin(x, sd[p + "self_attn.k_proj.weight"]).view(P, nkv, hd))
        v = lin(x, sd[p + "self_attn.v_proj.weight"]).view(P, nkv, hd)
        k, v = k.repeat_interleave(nh // nkv, 1), v.repeat_interleave(nh // nkv, 1)
        s = torch.einsum("thd,jhd->htj", q * (1.0 / math.sqrt(hd)), k).masked_fill(mask, float("-inf"))
        e = torch.exp(s - s.amax(-1, keepdim=True))
        denom = e.sum(-1, keepdim=True)
        if attn == "p16":
            e = rd(e, dt)
        o = rd(torch.einsum("htj,jhd->thd", e, v) / denom.permute(1, 0, 2), dt).reshape(P, nh * hd)
        delta = lin(o, sd[p + "self_attn.o_proj.weight"])
        h = rd(h + delta, dt)
        x = rms(h, sd[p + "post_attention_layernorm.weight"])
        g, u = lin(x, sd[p + "mlp.gate_proj.weight"]), lin(x, sd[p + "mlp.up_proj.weight"])
        delta = lin(rd(rd(torch.nn.functional.silu(g), dt) * u, dt), sd[p + "mlp.down_proj.weight"])
    h = rd(h[-1] + delta[-1], dt)
    logits = rms(h, sd["model.norm.weight"]) @ sd["lm_head.weight"].T
    return rd(logits, dt) if round_logits else logits


def err(a, ref):
    a, ref = a.double(), ref.double()
    return float((a - ref).abs().max() / ref.abs().max())


CB = dict()  # cudabench before the fix
CB_FIXED = dict(angles="exact")
HF = dict(attn="p16", round_logits=True)  # transformers from_pretrained(dtype): fp32 angles
HF_CAST = dict(angles="fp16-inv", attn="p16", round_logits=True)  # transformers after .half()


def reviewer_table(cases, dtype, qk_gain):
    print(f"\n{dtype}, q/k gain {qk_gain}: err = max|logits - ref| / max|ref|")
    print(f"{'layers':>6} {'pos':>5} | {'cast ref: cb':>12} {'tf-.half()':>10} {'ratio':>6} | "
          f"{'exact ref: cb':>13} {'cb fixed':>9} {'tf-fp16':>8} {'tf-.half()':>10}")
    for layers, positions in cases:
        model = build_model(layers, qk_gain=qk_gain, dtype=dtype)
        ids = torch.randint(0, model.config.vocab_size, (positions,), generator=torch.Generator().manual_seed(7)).tolist()
        with torch.no_grad():
            exact, cast = reference_logits(model, ids, "exact"), reference_logits(model, ids, "cast")
            cb, cbf = emulate(model, ids, dtype, **CB), emulate(model, ids, dtype, **CB_FIXED)
            hf, hfc = emulate(model, ids, dtype, **HF), emulate(model, ids, dtype, **HF_CAST)
        print(f"{layers:>6} {positions:>5} | {err(cb, cast):>12.4f} {err(hfc, cast):>10.4f} "
              f"{err(cb, cast) / err(hfc, cast):>6.1f} | {err(cb, exact):>13.4f} {err(cbf, exact):>9.4f} "
              f"{err(hf, exact):>8.4f} {err(hfc, exact):>10.4f}", flush=True)


def bisect(layers, positions, dtype, qk_gain):
    model = build_model(layers, qk_gain=qk_gain, dtype=dtype)
    ids = torch.randint(0, model.config.vocab_size, (positions,), generator=torch.Generator().manual_seed(7)).tolist()
    print(f"\nbisect: {layers} layers, {positions} positions, {dtype}: one step of cudabench's emulation swapped at a time")
    with torch.no_grad():
        exact, cast = reference_logits(model, ids, "exact"), reference_logits(model, ids, "cast")
        steps = [("cudabench as it was", {}),
                 ("angles from fp16(inv_freq) (as .half())", dict(angles="fp16-inv")),
                 ("angles exact (double)", dict(angles="exact")),
                 ("cos/sin not rounded", dict(round_cs=False)),
                 ("RoPE products/sums not rounded", dict(round_rope=False)),
                 ("attention P rounded (flash)", dict(attn="p16")),
                 ("logits rounded to dtype", dict(round_logits=True))]
        for name, kw in steps:
            out = emulate(model, ids, dtype, **kw)
            print(f"  {name:<42} vs exact {err(out, exact):.4f}   vs cast {err(out, cast):.4f}", flush=True)


def rope_only(dtype):
    """The rotary factors alone: max |T(cos(angle)) - cos(exact angle)| over positions, fp32 vs exact angle."""
    dt = DT[dtype]
    print(f"\nrotary cos/sin in {dtype} vs double, max abs error by position range (head_dim 128):")
    for theta in (10000.0, 500000.0):
        hd = 128
        i = torch.arange(hd // 2, dtype=torch.float64)
        inv32 = 1.0 / torch.pow(torch.tensor(theta, dtype=torch.float32), (2 * i / hd).float())
        for lo, hi in ((0, 512), (512, 4096), (4096, 32768)):
            p = torch.arange(lo, hi, dtype=torch.float64)
            exact = p[:, None] * theta ** (-2.0 * i / hd)[None, :]
            a32 = (p.float()[:, None] * inv32[None, :]).double()
            e32 = max((rd(torch.cos(a32).float(), dt).double() - torch.cos(exact)).abs().max().item(),
                      (rd(torch.sin(a32).float(), dt).double() - torch.sin(exact)).abs().max().item())
            ex = max((rd(torch.cos(exact).float(), dt).double() - torch.cos(exact)).abs().max().item(),
                     (rd(torch.sin(exact).float(), dt).double() - torch.sin(exact)).abs().max().item())
            print(f"  theta {theta:>8g} positions [{lo:>5}, {hi:>5}): fp32 angle {e32:.2e}   exact angle {ex:.2e}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bisect", action="store_true", help="also swap one emulated step at a time")
    ap.add_argument("--rope-only", action="store_true", help="only the rotary factors' error by position")
    ap.add_argument("--long", action="store_true", help="add 2048 positions (slow on a CPU)")
    ap.add_argument("--qk-gain", type=float, default=4.33, help="q/k weight bound x sqrt(fan_in)")
    ap.add_argument("--dtype", default="fp16", choices=sorted(DT))
    args = ap.parse_args()
    rope_only(args.dtype)
    if args.rope_only:
        return 0
    cases = [(1, 8), (1, 128), (1, 400), (4, 128), (4, 400)] + ([(1, 2048), (4, 2048)] if args.long else [])
    reviewer_table(cases, args.dtype, args.qk_gain)
    if args.bisect:
        bisect(1, 400, args.dtype, args.qk_gain)
        bisect(4, 400, args.dtype, args.qk_gain)
    return 0


if __name__ == "__main__":
    sys.exit(main())
