#!/usr/bin/env python3
"""Oracle for llm_decode: cudabench's Llama kernels against transformers on the same weights.

For each config (plain multi-head, grouped-query, non-square MLP, and grouped-query in bf16):
  1. build a small random LlamaForCausalLM with transformers (seeded; weights re-drawn at the
     scales cudabench's random init uses, so attention is peaked and every layer matters), save it
     with save_pretrained as fp16 safetensors;
  2. run cudabench on that directory through tests/oracle/llm_oracle_run (checkpoint load,
     prefill, graph-replayed decode steps) -> first-step logits and greedy tokens;
  3. run transformers on the GPU in the same dtype, loaded from that directory with
     from_pretrained(dtype=...) (not the in-memory model cast with .to(dtype): that also rounds the
     rotary inv_freq buffer, so transformers would rotate by p * fp16(inv_freq), an error growing
     with the position; see llm_numerics_study.py): the prompt's logits, and greedy generate
     (do_sample=False) to the same max_length, with per-step scores;
  4. compare: first-step logits max |cb - hf| / max |hf| <= tolerance (2e-2 fp16, 6e-2 bf16);
     generated ids identical until the first position where they differ and transformers' top-2
     logits there are within fp16/bf16 noise (then later positions are not compared); a
     difference where the top-2 gap is clear is a failure.
Run: python3 tests/oracle/oracle_llm.py --build-dir build        Exit 0 on pass, 1 on failure.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

CONFIGS = [
    # name, dtype, LlamaConfig kwargs
    ("plain", "fp16", dict(vocab_size=1000, hidden_size=256, intermediate_size=688, num_hidden_layers=3,
                           num_attention_heads=4, num_key_value_heads=4)),
    ("grouped-query", "fp16", dict(vocab_size=1000, hidden_size=256, intermediate_size=688, num_hidden_layers=3,
                                   num_attention_heads=8, num_key_value_heads=2)),
    ("non-square", "fp16", dict(vocab_size=1000, hidden_size=256, intermediate_size=700, num_hidden_layers=2,
                                num_attention_heads=4, num_key_value_heads=2)),
    ("grouped-query-bf16", "bf16", dict(vocab_size=1000, hidden_size=256, intermediate_size=688,
                                        num_hidden_layers=3, num_attention_heads=8, num_key_value_heads=2)),
]
PROMPT_TOKENS = 64
MAX_LENGTH = 128
TOLERANCE = {"fp16": 2e-2, "bf16": 6e-2}
UNIT_ROUNDOFF = {"fp16": 2.0 ** -11, "bf16": 2.0 ** -8}


def build_model(kwargs, seed):
    from transformers import LlamaConfig, LlamaForCausalLM
    config = LlamaConfig(rms_norm_eps=1e-5, rope_theta=10000.0, max_position_embeddings=512,
                         tie_word_embeddings=False, bos_token_id=None, eos_token_id=None, pad_token_id=None,
                         **kwargs)
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name:
                p.copy_(torch.empty_like(p).uniform_(0.9, 1.1, generator=gen))
            elif "embed_tokens" in name:
                p.copy_(torch.empty_like(p).uniform_(-1.0, 1.0, generator=gen))
            else:
                gain = 3.0 if ("q_proj" in name or "k_proj" in name) else 1.0
                a = gain / math.sqrt(p.shape[1])
                p.copy_(torch.empty_like(p).uniform_(-a, a, generator=gen))
    return model.half().eval()


def save(model, directory):
    try:
        model.save_pretrained(directory, safe_serialization=True)
    except TypeError:  # releases where safetensors is the only format
        model.save_pretrained(directory)
    files = os.listdir(directory)
    if not any(f.endswith(".safetensors") for f in files):
        raise RuntimeError(f"save_pretrained wrote no safetensors file: {files}")


def run_cudabench(exe, directory, prompt, dtype, work):
    prompt_file = os.path.join(work, "prompt.i32")
    np.asarray(prompt, dtype=np.int32).tofile(prompt_file)
    cmd = [exe, "--model", directory, "--prompt", prompt_file, "--max-length", str(MAX_LENGTH), "--out", work,
           "--dtype", dtype]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({res.returncode}):\n{res.stdout}{res.stderr}")
    logits = np.fromfile(os.path.join(work, "logits.f32"), dtype=np.float32)
    tokens = np.fromfile(os.path.join(work, "tokens.i32"), dtype=np.int32)
    return logits, tokens


def run_transformers(directory, prompt, dtype):
    from transformers import LlamaForCausalLM
    torch_dtype = torch.float16 if dtype == "fp16" else torch.bfloat16
    model = LlamaForCausalLM.from_pretrained(directory, dtype=torch_dtype).to("cuda").eval()
    ids = torch.tensor([prompt], dtype=torch.long, device="cuda")
    with torch.no_grad():
        first = model(ids).logits[0, -1].float().cpu().numpy()
        out = model.generate(ids, attention_mask=torch.ones_like(ids), max_length=MAX_LENGTH, do_sample=False,
                             num_beams=1, return_dict_in_generate=True, output_scores=True)
    tokens = out.sequences[0].cpu().numpy().astype(np.int64)
    scores = [s[0].float().cpu().numpy() for s in out.scores]
    return first, tokens, scores


def compare(name, dtype, cb_logits, cb_tokens, hf_logits, hf_tokens, hf_scores):
    ok = True
    scale = float(np.max(np.abs(hf_logits)))
    diff = np.abs(cb_logits.astype(np.float64) - hf_logits.astype(np.float64))
    worst = int(np.argmax(diff))
    rel = float(diff[worst]) / scale
    tol = TOLERANCE[dtype]
    print(f"  first-step logits: max |cb - hf| / max|hf| = {rel:.3g} (tolerance {tol:g}); "
          f"worst at id {worst}: cudabench {cb_logits[worst]:.5g}, transformers {hf_logits[worst]:.5g}; "
          f"max|hf| {scale:.4g}; argmax cb {int(np.argmax(cb_logits))}, hf {int(np.argmax(hf_logits))}")
    if not np.all(np.isfinite(cb_logits)) or not rel <= tol:
        print(f"  FAIL {name}: logits")
        ok = False

    if len(hf_tokens) != MAX_LENGTH or len(cb_tokens) != MAX_LENGTH:
        print(f"  FAIL {name}: lengths cudabench {len(cb_tokens)}, transformers {len(hf_tokens)} (want {MAX_LENGTH})")
        return False
    if list(cb_tokens[:PROMPT_TOKENS]) != list(hf_tokens[:PROMPT_TOKENS]):
        print(f"  FAIL {name}: prompt ids differ")
        return False
    # Within noise: a few units of the dtype's rounding on the largest logit, and at least 3x the
    # first-step difference actually seen.
    noise = max(3.0 * float(diff[worst]), 8 * UNIT_ROUNDOFF[dtype] * scale)
    compared = 0
    for i in range(PROMPT_TOKENS, MAX_LENGTH):
        step = i - PROMPT_TOKENS
        s = np.sort(hf_scores[step])
        gap = float(s[-1] - s[-2])
        if cb_tokens[i] == hf_tokens[i]:
            compared += 1
            continue
        if gap <= noise:
            print(f"  tokens identical for {compared} generated positions; at position {i} cudabench {cb_tokens[i]}, "
                  f"transformers {hf_tokens[i]} with transformers' top-2 gap {gap:.3g} <= noise {noise:.3g}: "
                  f"a near tie, later positions not compared")
            return ok
        print(f"  FAIL {name}: token at position {i}: cudabench {cb_tokens[i]}, transformers {hf_tokens[i]} "
              f"(top-2 gap {gap:.3g} > noise {noise:.3g}) after {compared} identical")
        return False
    print(f"  tokens identical for all {compared} generated positions")
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--keep", action="store_true", help="keep the model directories")
    args = ap.parse_args()
    exe = os.path.join(args.build_dir, "tests", "llm_oracle_run")
    if not os.path.exists(exe):
        exe = os.path.join(args.build_dir, "llm_oracle_run")
    if not os.path.exists(exe):
        print(f"oracle_llm: llm_oracle_run not found under {args.build_dir}")
        return 1
    if not torch.cuda.is_available():
        print("oracle_llm: no CUDA device")
        return 1
    import transformers
    print(f"oracle_llm: transformers {transformers.__version__}, torch {torch.__version__}, "
          f"prompt {PROMPT_TOKENS} -> max_length {MAX_LENGTH}")
    all_ok = True
    root = tempfile.mkdtemp(prefix="cudabench_oracle_llm_")
    for seed, (name, dtype, kwargs) in enumerate(CONFIGS, start=1):
        print(f"{name} ({dtype}): {json.dumps(kwargs)}")
        work = os.path.join(root, name)
        os.makedirs(work)
        try:
            model = build_model(kwargs, seed)
            save(model, work)
            prompt = torch.randint(0, kwargs["vocab_size"], (PROMPT_TOKENS,),
                                   generator=torch.Generator().manual_seed(100 + seed)).tolist()
            cb_logits, cb_tokens = run_cudabench(exe, work, prompt, dtype, work)
            hf_logits, hf_tokens, hf_scores = run_transformers(work, prompt, dtype)
            ok = compare(name, dtype, cb_logits, cb_tokens, hf_logits, hf_tokens, hf_scores)
        except Exception as e:  # a crash is a failure of this config, the others still run
            print(f"  FAIL {name}: {type(e).__name__}: {e}")
            ok = False
        print(f"  {'PASS' if ok else 'FAIL'} {name}")
        all_ok &= ok
    if not args.keep:
        subprocess.run(["rm", "-rf", root])
    print("oracle_llm: " + ("PASS" if all_ok else "FAIL"))
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
