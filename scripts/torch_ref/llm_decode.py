"""PyTorch/transformers reference for llm_decode: the same greedy generate through
LlamaForCausalLM at batch 1, so both land in one comparison table.

Model: a preset (built in code, no download: llama-2-7b, llama-3-8b, llama-tiny) or a directory's
config.json; weights random (drawn on the GPU at the scales cudabench uses) or, with
weights=checkpoint, the directory's safetensors. Prompt: prompt_tokens random ids.
Timing (CUDA events, the runner's warm-up/repetition rules, scripts/torch_ref/common.py):
  ttft_ms      generate(max_new_tokens=1): prefill + first token
  total_ms     generate(max_length) with min_new_tokens = max_new_tokens (no early EOS)
  tpot_ms      (total - ttft) / (max_length - prompt_tokens - 1), per repetition
  decode_tokens_per_s, bandwidth_gbps (weights + KV bytes per decode step / tpot, as cudabench),
  peak_memory_gb (torch.cuda.max_memory_allocated), weights_gb.
With settings["torch_compile"] (torch_reference.py --compile): generate with transformers' static
KV cache (generation_config.cache_implementation = "static"), the setting under which transformers
compiles the decode step itself (torch.compile, CUDA graphs) on the first call, which the warm-up
absorbs; the prefill stays eager, as transformers runs it. The message says whether transformers
did compile, so a silent fall-back to eager cannot pass for the compiled anchor.
"""
import math

import torch

from . import common

PRESETS = {
    "llama-2-7b": dict(vocab_size=32000, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
                       num_attention_heads=32, num_key_value_heads=32, rms_norm_eps=1e-5, rope_theta=10000.0,
                       max_position_embeddings=4096),
    "llama-3-8b": dict(vocab_size=128256, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
                       num_attention_heads=32, num_key_value_heads=8, rms_norm_eps=1e-5, rope_theta=500000.0,
                       max_position_embeddings=8192),
    "llama-tiny": dict(vocab_size=512, hidden_size=256, intermediate_size=688, num_hidden_layers=4,
                       num_attention_heads=8, num_key_value_heads=4, rms_norm_eps=1e-5, rope_theta=10000.0,
                       max_position_embeddings=2048),
}


def _build(params, dtype):
    from transformers import LlamaConfig, LlamaForCausalLM
    name = params["model"]
    if params.get("weights", "random") == "checkpoint":
        model = LlamaForCausalLM.from_pretrained(name, torch_dtype=dtype, local_files_only=True).to("cuda")
    else:
        if name in PRESETS:
            config = LlamaConfig(tie_word_embeddings=False, **PRESETS[name])
        else:
            config = LlamaConfig.from_pretrained(name, local_files_only=True)
        with torch.device("cuda"):
            model = LlamaForCausalLM._from_config(config, torch_dtype=dtype)
        gen = torch.Generator(device="cuda").manual_seed(0x5eed)
        with torch.no_grad():
            for pname, p in model.named_parameters():
                if "norm" in pname:
                    p.uniform_(0.9, 1.1, generator=gen)
                elif "embed_tokens" in pname:
                    p.uniform_(-1.0, 1.0, generator=gen)
                else:
                    a = (3.0 if ("q_proj" in pname or "k_proj" in pname) else 1.0) / math.sqrt(p.shape[1])
                    p.uniform_(-a, a, generator=gen)
    model.eval()
    # Greedy to max_length, never stopping early.
    model.generation_config.eos_token_id = None
    model.generation_config.pad_token_id = 0
    return model


def _compiled(model):
    """Did generate() compile the forward? (transformers keeps the compiled callable on the model.)"""
    return getattr(model, "_compiled_call", None) is not None


def run(params, settings):
    try:
        import transformers  # noqa: F401
    except ImportError as e:
        return {"status": "unsupported", "message": f"transformers is not installed: {e}", "metrics": {}}
    if int(params.get("batch", 1)) != 1:
        return {"status": "unsupported", "message": "batch 1 only", "metrics": {}}
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[params.get("dtype", "fp16")]
    prompt_tokens = int(params.get("prompt_tokens", 128))
    max_length = int(params.get("max_length", 256))
    steps = max_length - prompt_tokens - 1
    if steps < 1:
        return {"status": "error", "message": "max_length must be at least prompt_tokens + 2", "metrics": {}}
    try:
        torch.cuda.reset_peak_memory_stats()
        model = _build(params, dtype)
        compile_mode = bool(settings.get("torch_compile", False))
        if compile_mode:
            model.generation_config.cache_implementation = "static"
        cfg = model.config
        ids = torch.randint(0, cfg.vocab_size, (1, prompt_tokens), device="cuda",
                            generator=torch.Generator(device="cuda").manual_seed(0x5eed))
        mask = torch.ones_like(ids)

        def first_token():
            with torch.no_grad():
                model.generate(ids, attention_mask=mask, max_new_tokens=1, min_new_tokens=1, do_sample=False)

        def full():
            with torch.no_grad():
                out = model.generate(ids, attention_mask=mask, max_length=max_length,
                                     min_new_tokens=max_length - prompt_tokens, do_sample=False)
            assert out.shape[1] == max_length, out.shape

        ttft = common.time_per_run_ms(first_token, settings)
        total = common.time_per_run_ms(full, settings)
        peak = torch.cuda.max_memory_allocated()
    except torch.cuda.OutOfMemoryError as e:
        return {"status": "oom", "message": str(e), "metrics": {}}

    decode_ms = [max(t - f, 1e-6) for t, f in zip(total, ttft)]
    tpot = [d / steps for d in decode_ms]
    elem = 2
    weight_bytes = sum(p.numel() for p in model.parameters()) * elem
    hd = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
    embed = cfg.vocab_size * cfg.hidden_size * elem
    step_bytes = 0.0
    for pos in range(prompt_tokens, max_length - 1):
        kv = 2 * cfg.num_hidden_layers * cfg.num_key_value_heads * (pos + 1) * hd * elem
        step_bytes += weight_bytes - embed + cfg.hidden_size * elem + kv
    step_bytes /= steps
    metrics = {
        "decode_tokens_per_s": common.rate_metric("tokens/s", steps, 1.0, decode_ms),
        "tpot_ms": common.time_metric(tpot),
        "ttft_ms": common.time_metric(ttft),
        "total_ms": common.time_metric(total),
        "bandwidth_gbps": common.rate_metric("GB/s", step_bytes, 1e9, tpot),
        "peak_memory_gb": {"unit": "GB", "better": "lower", "samples": [peak / 1e9]},
        "weights_gb": {"unit": "GB", "better": "lower", "samples": [weight_bytes / 1e9]},
    }
    how = "generate, greedy"
    if compile_mode:
        how += (", static cache, decode step compiled by transformers (torch.compile)" if _compiled(model)
                else ", static cache; transformers did NOT compile the decode step (eager)")
    return {"status": "ok", "message": f"transformers {transformers.__version__} {how}",
            "metrics": metrics, "peak_memory_bytes": int(peak)}
