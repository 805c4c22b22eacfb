#!/usr/bin/env bash
# Measures how `cudabench compare` scales with the size of its result files (docs/scaling.md).
#   scripts/bench-compare-scale.sh [--sizes "100000 1000000"] [--dir DIR] [--binary PATH] [--format F]
#     --sizes   workload counts to measure (default: 100000 1000000)
#     --dir     where the generated files go (default: ${TMPDIR:-/tmp}/cudabench-scale); about
#               1.24 KB per workload per file, so 10^6 needs 2.5 GB
#     --binary  the cudabench to measure (default: build/cudabench)
#     --format  compare's output format (default: table; the report goes to /dev/null)
# For each size, writes a baseline and a candidate (every tenth workload 5% slower) with
# scripts/gen-scale-results.py unless they exist, then runs compare once under /usr/bin/time and
# prints wall time, peak memory (max RSS) and the file size. Relative paths are the caller's.
set -euo pipefail
caller_dir=$(pwd)
cd "$(dirname "$0")/.."
root=$(pwd)

# The usage is the comment block at the top of this file.
usage() { awk 'NR > 1 && /^#/ && !/^#SBATCH/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
need() { [[ $# -ge 2 && -n "$2" ]] || { echo "bench-compare-scale: $1 needs a value" >&2; usage >&2; exit 2; }; }
abs() { [[ "$1" = /* ]] && printf '%s' "$1" || printf '%s/%s' "$caller_dir" "$1"; }

sizes="100000 1000000"; dir="${TMPDIR:-/tmp}/cudabench-scale"; binary="$root/build/cudabench"; format=table
while [[ $# -gt 0 ]]; do
  case "$1" in
    --sizes) need "$@"; sizes="$2"; shift 2 ;;
    --dir) need "$@"; dir=$(abs "$2"); shift 2 ;;
    --binary) need "$@"; binary=$(abs "$2"); shift 2 ;;
    --format) need "$@"; format="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "bench-compare-scale: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
[[ -x "$binary" ]] || { echo "bench-compare-scale: no cudabench at $binary (build first, or --binary)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "bench-compare-scale: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
mkdir -p "$dir"

printf '%-10s %12s %10s %14s %12s\n' workloads "file (MB)" "wall (s)" "max RSS (MB)" "RSS / file"
for n in $sizes; do
  base="$dir/base-$n.json" cand="$dir/cand-$n.json"
  [[ -s "$base" ]] || python3 "$root/scripts/gen-scale-results.py" "$n" "$base" --label "CUDA 13.0" --seed 1
  [[ -s "$cand" ]] || python3 "$root/scripts/gen-scale-results.py" "$n" "$cand" --label "CUDA 13.1" --seed 2 --shift 5
  stats="$dir/time-$n.txt"
  /usr/bin/time -f '%e %M' -o "$stats" "$binary" compare "$base" "$cand" --format "$format" > /dev/null
  read -r wall rss_kb < "$stats"
  bytes=$(stat -L -c %s "$base")
  awk -v n="$n" -v b="$bytes" -v w="$wall" -v r="$rss_kb" \
    'BEGIN { printf "%-10d %12.0f %10.2f %14.0f %12.2f\n", n, b / 1e6, w, r / 1024, r * 1024 / b }'
done
