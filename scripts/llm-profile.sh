#!/usr/bin/env bash
# Where llm_decode's time goes, kernel by kernel: Nsight Compute over one prefill and one decode
# step of Llama-2-7B fp16 (configs/llm-profile.json: prompts of 128 and 2048 tokens), then
# scripts/ncu_kernel_table.py's per-kernel tables (time, DRAM bytes, % of copy bandwidth).
#   scripts/llm-profile.sh [--bin PATH] [--out DIR] [--bandwidth-gbps N]
# Needs a GPU and ncu on PATH (or $NCU). Only the timed repetition is profiled: the harness wraps
# it in cudaProfilerStart/Stop and ncu runs with --profile-from-start off. Clocks are left as the
# card sets them (--clock-control none). Writes DIR/ncu-<prompt>.csv, DIR/profile-<prompt>.json
# and DIR/llm-profile.md (default DIR: build/llm-profile). Exit 0 on success, 1 when a run or
# ncu failed, 2 for bad usage.
set -euo pipefail
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/build/cudabench out=$root/build/llm-profile bw=4260
need_value() {  # need_value OPTION REMAINING_ARGS...
  if [[ $# -lt 2 || $2 == -* ]]; then echo "llm-profile: $1 needs a value" >&2; usage >&2; exit 2; fi
}
while [[ $# -gt 0 ]]; do
  case $1 in
    --bin) need_value "$@"; bin=$2; shift 2 ;;
    --out) need_value "$@"; out=$2; shift 2 ;;
    --bandwidth-gbps) need_value "$@"; bw=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "llm-profile: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
ncu=${NCU:-$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)}
[[ -x $bin ]] || { echo "llm-profile: $bin is not an executable (build first, or --bin)" >&2; exit 2; }
[[ -n $ncu && -x $ncu ]] || { echo "llm-profile: ncu not found (PATH, /usr/local/cuda/bin or \$NCU)" >&2; exit 2; }
mkdir -p "$out"
suite=$root/configs/llm-profile.json
md=$out/llm-profile.md
: > "$md"
for prompt in 128 2048; do
  csv=$out/ncu-$prompt.csv
  "$ncu" --clock-control none --profile-from-start off \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    --csv --page raw --print-units base --log-file "$csv" \
    "$bin" --suite "$suite" --filter "*prompt_tokens=$prompt*" --quiet -o "$out/profile-$prompt.json"
  # The event-timed run outside the profiler, for the launch gaps the kernel sums do not show.
  "$bin" --suite "$suite" --filter "*prompt_tokens=$prompt*" --reps 3 --quiet -o "$out/timed-$prompt.json"
  {
    echo "## Llama-2-7B fp16, prompt $prompt, one decode step"
    python3 - "$out/timed-$prompt.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["workloads"][0]
m = w["metrics"]
print(f"\nEvent-timed (3 repetitions, median): TTFT {m['ttft_ms']['median']:.3f} ms, "
      f"TPOT {m['tpot_ms']['median']:.3f} ms; validation: {w.get('validation', {}).get('passed')}")
PY
    python3 "$root/scripts/ncu_kernel_table.py" "$csv" --bandwidth-gbps "$bw" --format markdown
    echo
  } | tee -a "$md"
done
echo "llm-profile: tables in $md"
