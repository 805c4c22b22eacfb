#!/usr/bin/env bash
# Proves the GPU work on a GPU box: builds, runs the CPU and GPU tests, the oracle checks against
# PyTorch/transformers/torchvision, and the measured suites, then prints a summary.
#   scripts/gpu-tests.sh [STAGE ...]
#   stages: build unit gpu oracle torchmatch backward pageable quick full aa sens cudnn memlimit sanitize
#            baseline cuda12 profile llmtorch boundaries llmab (default: all but backward, pageable,
#            baseline, cuda12, profile, llmtorch, boundaries and llmab, in that order); named stages
#            run in the order given
#     torchmatch  transformer_memory's outputs (inference fp32/fp16, train with dropout 0 and 0.1, and
#            the two train rows with backward: true, whose gradients are judged too)
#            rerun in torch.nn.Transformer on the weights, inputs and dropout masks cudabench dumps,
#            each judged against fp64 truth (scripts/torch_match.py; docs/transformer-train-memory.md);
#            torchmatch/torchmatch.json holds the errors
#     backward  transformer_memory with the backward pass (configs/train-backward.json, batch 32/64/128)
#            and PyTorch's out.backward(G) on the same rows (scripts/torch_reference.py), compared:
#            backward.json, backward-torch.json, backward-vs-torch.md
#     pageable  the pageable copy rows of the full suite in $PAGEABLE_ROUNDS fresh processes (default
#            5): per process, the row's GB/s beside the host's own memcpy rate (host_memcpy_gbps), and
#            how far the two move together (pageable.json, pageable.txt)
#     aa     A/A of this build against itself: `cudabench ab` on $AA_SUITE (default full) with the
#            default rounds ($AA_ROUNDS overrides: 3 fit the full suite in one 10-minute call on the H200;
#            on an H100, after a build, they did not);
#            must give 0 improved / 0 regressed; prints the between-round spread and the matmul rows
#            judged on sm_cycles (aa-SUITE-sm_cycles.md, beside the time verdicts) and what each round's
#            tuners picked (aa-SUITE-picks.txt). $AA_DIR (default
#            aa-SUITE under the results) is ab's directory; AA_RESUME=1 continues the ab already in
#            it (`ab --resume`), so the default 5 rounds can span two calls: carry AA_DIR to the next;
#            AA_TIME_LIMIT=S (`ab --time-limit`) stops it before a round that would not end within S
#            seconds, so no round is cut inside and lost (the stage then fails: not all rounds ran)
#     sens   sensitivity: planted slowdowns of a few percent (memset writing $SENS_MEMSET_PCT% of its
#            buffer twice; Llama-2-7B decode GEMV sites forced by $SENS_LLM_PLANT, opt-in) against
#            the same build: interleaved `ab` must call them regressed and no other row changed; with
#            $SENS_BASELINE (a stored result file from another session, same GPU model; from another
#            model that half is skipped) also nightly mode: a planted run of --rounds 3 against it
#            must call memset 1 GiB regressed, nothing improved
#     cudnn  the same binary against the system cuDNN and PyTorch's (library-mode A/B)
#     sanitize  compute-sanitizer: memcheck over configs/sanitize.json (every kind, smallest
#            sizes, library kernels (cuBLAS, cuDNN) excluded); racecheck and initcheck over the GPU
#            tests of cudabench's own kernels (inputs uploaded by the test, no library in between;
#            why: see run_sanitize); each tool bounded by $SANITIZE_TIMEOUT seconds (default 180);
#            fails on any error; logs sanitize-TOOL.log ($COMPUTE_SANITIZER names the tool's binary)
#     baseline  a change meant to alter nothing (a refactor) against the code before it: builds
#            $BASELINE_TAR (a `git archive` of the older commit; $BASELINE_COMMIT names it) and runs
#            `cudabench ab` of that build against this one on $BASELINE_SUITE (default quick); must
#            give 0 improved / 0 regressed. $BASELINE_FILTER and $BASELINE_ROUNDS pass --filter and
#            --rounds to ab; BASELINE_EXPECT=change is for a change meant to move numbers (a
#            kernel made faster): the stage then reports the verdicts and passes whatever they are
#     profile  Nsight Compute per-kernel tables of one Llama-2-7B prefill (128 and 2048 tokens) and
#            one decode step: scripts/llm-profile.sh, tables in llm-profile/llm-profile.md
#     llmtorch  the Llama-2-7B rows of `full` ($LLMTORCH_FILTER overrides the filter) through
#            cudabench, transformers eager and transformers with --compile (static KV cache, decode
#            step compiled by transformers), one process each; llm.json, llm-torch.json,
#            llm-torch-compile.json and the two comparisons llm-vs-torch.md, llm-vs-torch-compile.md
#     boundaries  where a Llama-2-7B decode step's time above the floor goes (after build):
#            experiments/decode_boundaries.cu (its 129 GEMVs as 129 PDL kernels in a graph against
#            one persistent kernel with grid barriers) and experiments/decode_anatomy.cu (the
#            engine's step rebuilt from its kernels, then without attention, without the RMSNorm
#            prologues, GEMVs only); $BOUNDARIES_ROUNDS interleaved rounds (default 7)
#     llmab  a change that lives behind an environment variable, measured where it runs: the
#            Llama-2-7B rows of `full` ($LLMAB_FILTER overrides), this build plain against this build
#            under $LLMAB_ENV (default CUDABENCH_LLM_GEMV=o:6, o_proj's GEMV with its second batch
#            prefetched), interleaved `ab` rounds ($LLMAB_ROUNDS, default 3) in llmab/; reports the
#            verdicts whatever they are, and each side's round spread (fresh processes: how steady
#            its tuners' choices are, e.g. LLMAB_ENV=CUDABENCH_TUNER_TIE_MARGIN=0.03, the old margin, or
#            LLMAB_ENV=CUDABENCH_TUNER_MEASURE_MS=20 LLMAB_FILTER='matmul/*', longer contest measurements)
#            and what each side's tuners picked round by round (llmab-picks.txt, scripts/tuning_picks.py)
#     cuda12 the CUDA 12.1 vs 12.4 vs 13.0 table: scripts/cuda12-ab.sh run (the 12.x libraries and
#            the nvcc 12.4 binary unpacked in $CU12_DEST first, see that script; CU12_ROUNDS);
#            fails unless every build loads the libraries its label names
# Logs and result files go to $RESULTS_DIR (default: $OUT/gpu-run when $OUT is set, else
# build/gpu-run in the checkout); a relative RESULTS_DIR or OUT is the caller's. Exit status: 0
# when every stage passed, 1 when one failed, 2 for an unknown stage or option (checked before
# anything runs).
set -uo pipefail
caller_dir=$(pwd)
all_stages=(build unit gpu oracle torchmatch backward pageable quick full aa sens cudnn memlimit sanitize baseline cuda12 profile
            llmtorch boundaries llmab)
default_stages=(build unit gpu oracle torchmatch quick full aa sens cudnn memlimit sanitize)
# The usage is the comment block at the top of this file.
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
abs() { [[ -z "$1" || "$1" = /* ]] && printf '%s' "$1" || printf '%s/%s' "$caller_dir" "$1"; }
for s in "$@"; do
  case "$s" in -h|--help) usage; exit 0 ;; esac
done
for s in "$@"; do
  if [[ "$s" == -* ]]; then
    echo "gpu-tests: unknown option '$s'" >&2; usage >&2; exit 2
  fi
  [[ " ${all_stages[*]} " == *" $s "* ]] || { echo "gpu-tests: unknown stage '$s' (stages: ${all_stages[*]})" >&2; exit 2; }
done
results=$(abs "${RESULTS_DIR:-${OUT:+$OUT/gpu-run}}")
cd "$(dirname "$0")/.."
root=$(pwd)
stages=("$@")
[[ ${#stages[@]} -eq 0 ]] && stages=("${default_stages[@]}")
results=${results:-$root/build/gpu-run}
mkdir -p "$results"
results=$(cd "$results" && pwd)
bin=$root/build/cudabench
summary=()
failed=0
python=${PYTHON:-python3}

stage() {  # stage NAME COMMAND...: run, log to $results/NAME.log, record PASS/FAIL and duration
  local name=$1; shift
  local t0=$SECONDS
  echo "=== $name: $*"
  if "$@" > >(tee "$results/$name.log") 2>&1; then
    summary+=("PASS  $name ($((SECONDS - t0))s)")
  else
    summary+=("FAIL  $name ($((SECONDS - t0))s)  see $name.log")
    failed=1
  fi
}

run_oracles() {
  local rc=0 f
  for f in tests/oracle/oracle_*.py; do
    [[ -e $f ]] || continue
    echo "--- $f"
    PYTHONUNBUFFERED=1 $python "$f" --build-dir build || { echo "ORACLE FAILED: $f"; rc=1; }
  done
  return $rc
}

run_suite_pair() {  # run_suite_pair SUITE: cudabench + PyTorch reference + comparison
  local s=$1 rc=0
  "$bin" --suite "$s" -o "$results/$s.json" --strict || rc=1
  PYTHONUNBUFFERED=1 $python scripts/torch_reference.py --suite "$s" --cudabench "$bin" -o "$results/$s-torch.json" || rc=1
  "$bin" compare "$results/$s-torch.json" "$results/$s.json" --format markdown | tee "$results/$s-vs-torch.md" || true
  return $rc
}

run_quick() { run_suite_pair quick; }

run_llmtorch() {  # cudabench vs transformers eager and compiled, Llama-2-7B decode rows
  local f=${LLMTORCH_FILTER:-llm_decode/model=llama-2-7b/*} rc=0 mode
  "$bin" --suite full --filter "$f" -o "$results/llm.json" --strict || rc=1
  for mode in torch torch-compile; do
    PYTHONUNBUFFERED=1 $python scripts/torch_reference.py --suite full --filter "$f" --cudabench "$bin" \
      $([[ $mode == torch-compile ]] && echo --compile) -o "$results/llm-$mode.json" || rc=1
    "$bin" compare "$results/llm-$mode.json" "$results/llm.json" --format markdown | tee "$results/llm-vs-$mode.md" || true
  done
  return $rc
}

run_boundaries() {  # what 129 kernel boundaries cost a decode step (experiments/decode_boundaries.cu)
  cmake --build build --target decode_boundaries decode_anatomy &&
    build/experiments/decode_boundaries "${BOUNDARIES_ROUNDS:-7}" &&
    build/experiments/decode_anatomy "${BOUNDARIES_ROUNDS:-7}"
}

run_llmab() {  # this build against itself with $LLMAB_ENV set, Llama-2-7B rows, interleaved rounds
  local env_set=${LLMAB_ENV:-CUDABENCH_LLM_GEMV=o:6} rc=0
  # ab exits 1 when a row regressed: a verdict, not a failure of the stage's machinery.
  "$bin" ab "$bin" "env $env_set $bin" --suite full --filter "${LLMAB_FILTER:-llm_decode/model=llama-2-7b/*}" \
    --rounds "${LLMAB_ROUNDS:-3}" --labels "plain,$env_set" -o "$results/llmab" --format markdown || rc=$?
  [[ $rc -le 1 && -f $results/llmab/compare.json ]] || return 1
  { echo "plain:"; $python scripts/round_spread.py "$results/llmab/A.json"
    echo "$env_set:"; $python scripts/round_spread.py "$results/llmab/B.json"; } | tee "$results/llmab-spread.txt"
  # What each side's tuners picked round by round (time and SM cycles per pick).
  $python scripts/tuning_picks.py "$results/llmab/A.json" "$results/llmab/B.json" --metric time_ms,sm_cycles,decode_tokens_per_s \
    | tee "$results/llmab-picks.txt" | grep -E 'json:|picked more'
}

run_aa() {  # the same build twice, interleaved rounds in fresh processes: no row may change
  local suite=${AA_SUITE:-full} t0=$SECONDS dir
  dir=$(abs "${AA_DIR:-$results/aa-${AA_SUITE:-full}}")
  "$bin" ab "$bin" "$bin" --suite "$suite" ${AA_ROUNDS:+--rounds "$AA_ROUNDS"} --labels "A,A again" \
    -o "$dir" ${AA_RESUME:+--resume} ${AA_TIME_LIMIT:+--time-limit "$AA_TIME_LIMIT"} --format markdown || return 1
  echo "aa: wall time $((SECONDS - t0)) s for ${suite} (both sides, ${AA_ROUNDS:-default} rounds)"
  # The GEMMs at the power cap judged on the cycles the SMs counted too (their mde on time carries
  # the clock): the same A/A, matmul rows, metric sm_cycles.
  "$bin" compare "$dir/A.json" "$dir/B.json" --metric sm_cycles --filter 'matmul/*' --format markdown \
    -o "$results/aa-$suite-sm_cycles.md" && grep -E 'improved, |minimum detectable' "$results/aa-$suite-sm_cycles.md"
  $python scripts/round_spread.py "$dir/A.json" "$dir/B.json" | tee "$results/aa-$suite-spread.txt"
  $python scripts/tuning_picks.py "$dir/A.json" "$dir/B.json" --metric time_ms,sm_cycles \
    > "$results/aa-$suite-picks.txt" && grep -E 'picked more' "$results/aa-$suite-picks.txt"
  $python scripts/round_spread.py "$dir/A.json" "$dir/B.json" --filter 'llm_decode/*' \
    --max-spread-pct 2 || echo "aa: llm_decode rounds spread beyond 2% (see above)"
  ! grep -Eq '"verdict": *"(improved|regressed)"' "$dir/compare.json"
}

# The planted slowdowns `sens` checks (each a real change on the GPU): memset writing the first
# $SENS_MEMSET_PCT% (default 4) of its buffer twice, and, when $SENS_LLM_PLANT names GEMV sites
# (CUDABENCH_LLM_GEMV=SITE:V syntax, e.g. "qkv:1,gate_up:1" or "0" for all), Llama-2-7B decode.
# The LLM plant is opt-in: with the tuners timing graph replays, the one-site forcing first tried
# (gate_up:1) ran as fast as the tuned pick (+0.5%, H200 2026-12-04), so no site has a known size yet.
sens_plant() {
  echo "${SENS_LLM_PLANT:+CUDABENCH_LLM_GEMV=$SENS_LLM_PLANT }CUDABENCH_PLANT_MEMSET_REWRITE_PCT=${SENS_MEMSET_PCT:-4}"
}
sens_filter='llm_decode/model=llama-2-7b/*prompt_tokens=128*,matmul/*8192*,memory_bandwidth/op=d2d/*,memory_bandwidth/op=memset/*'

# check_planted COMPARE_JSON MODE: the planted rows must be `regressed` (MODE ab: both; MODE nightly:
# memset 1 GiB, whose session noise is known from many sessions; the LLM row's verdict and mde are
# printed), and no other row may be improved or regressed.
check_planted() {
  $python - "$1" "$2" "${SENS_LLM_PLANT:-}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
mode, llm_planted = sys.argv[2], bool(sys.argv[3])
ok = True
for r in d["rows"]:
    c = r["changes"][0]
    v, planted = c["verdict"], None
    if r["kind"] == "llm_decode" and llm_planted:
        planted = mode == "ab"
    elif r["id"].startswith("memory_bandwidth/op=memset/"):
        planted = mode == "ab" or r["id"].endswith("bytes=1073741824")
    if planted:
        good = v == "regressed"
    elif planted is None:
        good = v not in ("improved", "regressed")
    else:  # planted, but the mode is not expected to see it: anything but improved
        good = v != "improved"
    ok = ok and good
    print(f"{'ok  ' if good else 'FAIL'} {r['name']}: {v} {c.get('change_pct')} (mde {c.get('mde_pct')})")
sys.exit(0 if ok else 1)
PY
}

gpu_of() {  # the GPU model a result file ran on
  $python -c 'import json, sys; print(json.load(open(sys.argv[1]))["environment"]["device"]["name"])' "$1"
}

run_sens() {  # real, known slowdowns of a few percent must be caught, and only there
  local plant rc=0
  plant=$(sens_plant)
  echo "sens: planted: $plant"
  # 1. Interleaved: the planted build against the same build, default rounds.
  "$bin" ab "$bin" "env $plant $bin" --suite full --filter "$sens_filter" --labels "as built,planted" \
    -o "$results/sens" --format markdown || return 1
  echo "--- sens: interleaved ab"
  check_planted "$results/sens/compare.json" ab || rc=1
  # 2. Nightly mode: the planted build's run (--rounds 3, as nightly.sh runs) against a stored file
  #    from an earlier session ($SENS_BASELINE), judged with the committed noise prior.
  if [[ -n ${SENS_BASELINE:-} ]]; then
    [[ $SENS_BASELINE = /* ]] || SENS_BASELINE=$root/$SENS_BASELINE
    # A baseline from another GPU model would compare hardware, not a planted change (an H200 file
    # against an H100 run reads d2d -28% "regressed"): that half needs a file from this model.
    local base_gpu this_gpu
    base_gpu=$(gpu_of "$SENS_BASELINE") && this_gpu=$(gpu_of "$results/sens/A.json") || return 1
    if [[ $base_gpu != "$this_gpu" ]]; then
      echo "sens: SENS_BASELINE ran on $base_gpu, this GPU is $this_gpu: the nightly-mode half needs a baseline" \
        "from the same GPU model, so it did not run"
      return $rc
    fi
    env $plant "$bin" --suite full --filter "$sens_filter" --rounds 3 --label planted -o "$results/sens-nightly.json" \
      --quiet --format csv > /dev/null || return 1
    "$bin" compare "$SENS_BASELINE" "$results/sens-nightly.json" --format markdown | tee "$results/sens-nightly.md"
    "$bin" compare "$SENS_BASELINE" "$results/sens-nightly.json" --format json -o "$results/sens-nightly-compare.json" \
      || return 1
    echo "--- sens: nightly mode against $SENS_BASELINE"
    check_planted "$results/sens-nightly-compare.json" nightly || rc=1
  else
    echo "sens: SENS_BASELINE not set: the nightly-mode half did not run"
  fi
  return $rc
}

run_cudnn() {  # cuDNN 9.14 (system) vs 9.19 (PyTorch's venv) on the ResNet-50 entries, same binary
  local alt
  # nvidia.cudnn is a namespace package (no __file__): ask for its search path instead.
  alt=$($python -c 'import importlib.util as u, os; s = u.find_spec("nvidia.cudnn"); print(next((os.path.join(p, "lib") for p in (s.submodule_search_locations if s else []) if os.path.isdir(os.path.join(p, "lib"))), ""))' 2>/dev/null) || alt=""
  [[ -d $alt ]] || alt=$(ls -d /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn/lib 2>/dev/null | head -1)
  [[ -d $alt ]] || { echo "no second cuDNN found (looked for PyTorch's nvidia/cudnn/lib)"; return 1; }
  echo "second cuDNN: $alt"
  local venv_path="$alt${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" sys_v venv_v
  # Label each run with the cuDNN it actually loads (what `env` reports from the loaded library).
  sys_v=$("$bin" env --json | grep -m1 '"cudnn":' | cut -d'"' -f4)
  venv_v=$(LD_LIBRARY_PATH="$venv_path" "$bin" env --json | grep -m1 '"cudnn":' | cut -d'"' -f4)
  "$bin" --suite full --filter 'resnet50/*' --label "cuDNN $sys_v" -o "$results/resnet-cudnn-system.json" --quiet || return 1
  LD_LIBRARY_PATH="$venv_path" "$bin" --suite full --filter 'resnet50/*' --label "cuDNN $venv_v" \
    -o "$results/resnet-cudnn-venv.json" --quiet || return 1
  "$bin" compare "$results/resnet-cudnn-system.json" "$results/resnet-cudnn-venv.json" --format markdown \
    | tee "$results/resnet-cudnn-ab.md"
  # The A/B is only real if the two runs loaded different cuDNN builds.
  [[ $(grep -h '"cudnn":' "$results/resnet-cudnn-system.json" "$results/resnet-cudnn-venv.json" | sort -u | wc -l) -eq 2 ]]
}

run_pageable() {  # is a pageable copy's rate the host's? per process: row GB/s vs host memcpy GB/s
  "$bin" --suite full --filter 'memory_bandwidth/op=*pageable*' --rounds "${PAGEABLE_ROUNDS:-5}" \
    -o "$results/pageable.json" --quiet || return 1
  $python scripts/pageable_vs_host.py "$results/pageable.json" | tee "$results/pageable.txt"
}

run_memlimit() {  # OOM is a result: budgets that fit everything (24 GiB) and that cut the largest batch
  "$bin" --suite full --filter 'transformer_memory/*' --mem-limit 24GiB --label "H200 capped at 24GiB" \
    -o "$results/transformer-24gib.json" --format markdown --quiet || return 1
  "$bin" --suite full --filter 'transformer_memory/*' --mem-limit 600MiB --label "H200 capped at 600MiB" \
    -o "$results/transformer-600mib.json" --format markdown --quiet || return 1
  grep -q '"status": "oom"' "$results/transformer-600mib.json"
}

# Substrings of library kernels' names (cuBLAS/cuBLASLt: nvjet_*, cutlass*, sm90_xmma_*, gemv2*,
# gemmSN*, splitKreduce*; cuDNN: cudnn::*, xmma, Winograd, implicit_convolve*, nchwToNhwc*). None
# is a substring of a cudabench kernel (snake_case, kernels/*: e.g. reference_gemm_samples_kernel,
# gemv_kernel, nchw_to_nhwc_kernel), so ours are all checked. Library kernels are not ours to fix,
# and some read workspace they never wrote, which initcheck would report.
sanitize_library_kernels=(nvjet cutlass xmma cublas cudnn gemv2 gemvNSP gemmSN gemmk1 splitKreduce Winograd
  implicit_convolve precomputed_convolve nchwToNhwc nhwcToNchw fft)

# Why racecheck and initcheck do not run the suite (measured on the H200, 2026-12-04): under
# racecheck the first fp16 cuBLASLt GEMM of the suite ended in "Internal Sanitizer Error: The
# Sanitizer failed to handle a hardware exception" (an illegal address, then every later row failed),
# excluded or not; under initcheck every read of a cuBLASLt fp16 GEMM's output by our own kernels
# (llm_decode's prefill residual RMSNorm after o_proj) was reported uninitialised, since the writes
# of excluded library kernels are not tracked, and the 100 reports ran the tool past its limit.
# The kernel tests feed our kernels from cudaMemcpy'd buffers, so both tools see every write.
sanitize_kernel_tests='LlmKernels.*:LlmRope.*:TransformerMemory.AttentionKernelsMatchReferenceAtFullLength'

run_sanitize() {  # memcheck over the suite; racecheck and initcheck over our kernels' tests
  local cs=${COMPUTE_SANITIZER:-} limit=${SANITIZE_TIMEOUT:-180} tool rc failed_tools=() k
  [[ -n $cs ]] || cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  [[ -x $cs ]] || { echo "sanitize: no compute-sanitizer on PATH or in /usr/local/cuda/bin (set COMPUTE_SANITIZER)"; return 1; }
  "$cs" --help | grep -q -- '--kernel-name-exclude' \
    || { echo "sanitize: $cs has no --kernel-name-exclude; library kernels could not be left out"; return 1; }
  local tests=$root/build/tests/cudabench_gpu_tests
  [[ -x $tests ]] || { echo "sanitize: $tests is not built (run the build stage)"; return 1; }
  local exclude=()
  for k in "${sanitize_library_kernels[@]}"; do exclude+=(--kernel-name-exclude "kns=$k"); done
  for tool in memcheck racecheck initcheck; do
    echo "--- $tool (at most ${limit} s)"
    # --error-exitcode 86: an error the tool reports, told apart from the program's own exit codes;
    # --strict: a workload that errs under the tool (a CUDA error it provoked) fails the run too.
    local target=("$bin" --suite configs/sanitize.json --strict --warmup-ms 0 --quiet -o "$results/sanitize-$tool.json")
    [[ $tool == memcheck ]] || target=("$tests" "--gtest_filter=$sanitize_kernel_tests")
    timeout -k 10 "$limit" "$cs" --tool "$tool" --target-processes all --error-exitcode 86 --print-limit 100 \
      "${exclude[@]}" "${target[@]}" > "$results/sanitize-$tool.log" 2>&1
    rc=$?
    grep -E '(ERROR|RACECHECK) SUMMARY|tests? ran|PASSED|FAILED' "$results/sanitize-$tool.log" | tail -4 || true
    case $rc in
      0) echo "sanitize: $tool clean" ;;
      86) echo "sanitize: $tool reported errors (sanitize-$tool.log)"; failed_tools+=("$tool") ;;
      124|137) echo "sanitize: $tool ran past ${limit} s (SANITIZE_TIMEOUT)"; failed_tools+=("$tool") ;;
      *) echo "sanitize: $tool: ${target[0]##*/} exited $rc (sanitize-$tool.log)"; tail -20 "$results/sanitize-$tool.log"
         failed_tools+=("$tool") ;;
    esac
  done
  [[ ${#failed_tools[@]} -eq 0 ]] || { echo "sanitize: FAILED: ${failed_tools[*]}"; return 1; }
}

run_baseline() {  # the same suite on the code before a no-change refactor and after: nothing may move
  local tar=${BASELINE_TAR:-} suite=${BASELINE_SUITE:-quick} src=$root/build-baseline/src
  [[ -f $tar ]] || { echo "baseline: BASELINE_TAR is not a file: '${tar}'"; return 1; }
  rm -rf "$root/build-baseline" && mkdir -p "$src" && tar -xf "$tar" -C "$src" || return 1
  # The tarball has no .git: the baseline's commit is baked into its results from here. The ceiling
  # stops git from finding this checkout's .git above it, which would stamp this build's commit.
  GIT_CEILING_DIRECTORIES=$root/build-baseline CUDABENCH_GIT_COMMIT=${BASELINE_COMMIT:-baseline} \
    "$src/scripts/bootstrap.sh" --arch 90 --no-install \
    --build-dir "$root/build-baseline/build" > "$results/baseline-build.log" 2>&1 \
    || { tail -20 "$results/baseline-build.log"; return 1; }
  local extra=()
  [[ -n ${BASELINE_FILTER:-} ]] && extra+=(--filter "$BASELINE_FILTER")
  [[ -n ${BASELINE_ROUNDS:-} ]] && extra+=(--rounds "$BASELINE_ROUNDS")
  # ab exits 1 when a row regressed: a verdict, not a failure of the stage's machinery.
  local rc=0
  "$bin" ab "$root/build-baseline/build/cudabench" "$bin" --suite "$suite" "${extra[@]}" \
    --labels "${BASELINE_COMMIT:-baseline},this build" -o "$results/baseline-$suite" --format markdown || rc=$?
  [[ $rc -le 1 && -f $results/baseline-$suite/compare.json ]] || return 1
  [[ ${BASELINE_EXPECT:-nothing} == change ]] && return 0
  ! grep -Eq '"verdict": *"(improved|regressed)"' "$results/baseline-$suite/compare.json"
}

for s in "${stages[@]}"; do
  case $s in
    build) stage build scripts/bootstrap.sh --arch 90 --no-install ;;
    # The Slurm test (label slurm) needs the single-host Slurm that CI installs; a GPU box has none.
    unit) stage unit ctest --test-dir build -LE 'gpu|slurm' --output-on-failure ;;
    gpu) stage gpu ctest --test-dir build -L gpu --output-on-failure ;;
    oracle) stage oracle run_oracles ;;
    backward) stage backward run_suite_pair train-backward ;;
    pageable) stage pageable run_pageable ;;
    torchmatch) stage torchmatch env PYTHONUNBUFFERED=1 $python scripts/torch_match.py --cudabench "$bin" --out "$results/torchmatch" ;;
    quick) stage quick run_quick ;;
    full) stage full run_suite_pair full ;;
    aa) stage aa run_aa ;;
    sens) stage sens run_sens ;;
    cudnn) stage cudnn run_cudnn ;;
    memlimit) stage memlimit run_memlimit ;;
    sanitize) stage sanitize run_sanitize ;;
    baseline) stage baseline run_baseline ;;
    llmtorch) stage llmtorch run_llmtorch ;;
    boundaries) stage boundaries run_boundaries ;;
    llmab) stage llmab run_llmab ;;
    profile) stage profile scripts/llm-profile.sh --bin "$bin" --out "$results/llm-profile" ;;
    # The three-way table against this stage's own build (build/cudabench); results in cuda12/.
    cuda12) stage cuda12 env OUT="$results/cuda12" CU12_BIN13="$bin" scripts/cuda12-ab.sh run ;;
  esac
done

echo
echo "=== gpu-tests summary ($(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null))"
printf '%s\n' "${summary[@]}" | tee "$results/summary.txt"
exit $failed
