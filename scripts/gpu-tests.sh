#!/usr/bin/env bash
# Proves the GPU work on a GPU box: builds, runs the CPU and GPU tests, the oracle checks against
# PyTorch/transformers/torchvision, and the measured suites, then prints a summary.
#   scripts/gpu-tests.sh [STAGE ...]     stages: build unit gpu oracle quick full ab memlimit
#                                        (default: all, in that order)
# Logs and result files go to $RESULTS_DIR (default: $OUT/gpu-run when $OUT is set, else
# build/gpu-run). Exit status: 0 when every stage passed.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
stages=("$@")
[[ ${#stages[@]} -eq 0 ]] && stages=(build unit gpu oracle quick full ab memlimit)
results=${RESULTS_DIR:-${OUT:+$OUT/gpu-run}}
results=${results:-build/gpu-run}
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

run_quick() {
  run_suite_pair quick || return 1
  # A/A: a second back-to-back run of the same build must show no improved/regressed rows.
  "$bin" --suite quick -o "$results/quick-aa.json" --quiet > /dev/null || return 1
  "$bin" compare "$results/quick.json" "$results/quick-aa.json" --format markdown | tee "$results/quick-aa.md"
  "$bin" compare "$results/quick.json" "$results/quick-aa.json" --format json > "$results/quick-aa-compare.json"
  ! grep -Eq '"verdict": *"(improved|regressed)"' "$results/quick-aa-compare.json"
}

run_ab() {  # cuDNN 9.14 (system) vs 9.19 (PyTorch's venv) on the ResNet-50 entries, same binary
  local alt
  alt=$($python -c 'import nvidia.cudnn, os; print(os.path.join(os.path.dirname(nvidia.cudnn.__file__), "lib"))' 2>/dev/null) || alt=""
  [[ -d $alt ]] || { echo "no second cuDNN found"; return 1; }
  "$bin" --suite full --filter 'resnet50/*' -o "$results/resnet-cudnn-system.json" --quiet || return 1
  LD_LIBRARY_PATH="$alt${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$bin" --suite full --filter 'resnet50/*' \
    -o "$results/resnet-cudnn-venv.json" --quiet || return 1
  "$bin" compare "$results/resnet-cudnn-system.json" "$results/resnet-cudnn-venv.json" --format markdown \
    | tee "$results/resnet-cudnn-ab.md"
}

run_memlimit() {  # OOM is a result: budgets that fit everything (24 GiB) and that cut the largest batch
  "$bin" --suite full --filter 'transformer_memory/*' --mem-limit 24GiB --label "H200 capped at 24GiB" \
    -o "$results/transformer-24gib.json" --format markdown --quiet || return 1
  "$bin" --suite full --filter 'transformer_memory/*' --mem-limit 600MiB --label "H200 capped at 600MiB" \
    -o "$results/transformer-600mib.json" --format markdown --quiet || return 1
  grep -q '"status": "oom"' "$results/transformer-600mib.json"
}

for s in "${stages[@]}"; do
  case $s in
    build) stage build scripts/bootstrap.sh --arch 90 --no-install ;;
    unit) stage unit ctest --test-dir build -LE gpu --output-on-failure ;;
    gpu) stage gpu ctest --test-dir build -L gpu --output-on-failure ;;
    oracle) stage oracle run_oracles ;;
    quick) stage quick run_quick ;;
    full) stage full run_suite_pair full ;;
    ab) stage ab run_ab ;;
    memlimit) stage memlimit run_memlimit ;;
    *) echo "gpu-tests: unknown stage '$s'" >&2; exit 2 ;;
  esac
done

echo
echo "=== gpu-tests summary ($(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null))"
printf '%s\n' "${summary[@]}" | tee "$results/summary.txt"
exit $failed
