#!/usr/bin/env bash
# Nightly regression check: run a suite, keep the result under a dated name, compare it with a
# baseline, write the markdown table next to it, and exit with compare's code.
#
#   scripts/nightly.sh --suite NAME --baseline FILE --results-dir DIR [--threshold X] [--label L]
#                      [--alpha A] [--filter GLOB] [--reps N] [--binary PATH]
#
# Writes DIR/<suite>-YYYY-MM-DD.json (UTC date) and DIR/<suite>-YYYY-MM-DD.md, prints the table.
# Exit codes: 0 no regression, 1 a regression (compare --fail-on-regression: a metric regressed,
# or a workload ok in the baseline now fails), 2 bad input, 3 the run could not use the GPU.
#
# cron (02:30 UTC every night, on the GPU box):
#   30 2 * * * cd /opt/cudabench && scripts/nightly.sh --suite full --baseline results/h200/baseline.json --results-dir /var/lib/cudabench/nightly >> /var/log/cudabench-nightly.log 2>&1
#
# CI job (GitHub Actions on a self-hosted GPU runner):
#   nightly-gpu:
#     runs-on: [self-hosted, gpu]
#     if: github.event_name == 'schedule'      # on: schedule: - cron: "30 2 * * *"
#     steps:
#       - uses: actions/checkout@v4
#       - run: scripts/bootstrap.sh --no-install
#       - run: scripts/nightly.sh --suite full --baseline results/h200/baseline.json --results-dir nightly
#       - if: always()
#         uses: actions/upload-artifact@v4
#         with: { name: nightly, path: nightly/ }
set -euo pipefail
cd "$(dirname "$0")/.."

suite=""; baseline=""; results_dir=""; threshold=""; alpha=""; label=""; filter=""; reps=""
binary="${CUDABENCH:-build/cudabench}"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --suite) suite="$2"; shift 2 ;;
    --baseline) baseline="$2"; shift 2 ;;
    --results-dir) results_dir="$2"; shift 2 ;;
    --threshold) threshold="$2"; shift 2 ;;
    --alpha) alpha="$2"; shift 2 ;;
    --label) label="$2"; shift 2 ;;
    --filter) filter="$2"; shift 2 ;;
    --reps) reps="$2"; shift 2 ;;
    --binary) binary="$2"; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "nightly: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
[[ -n "$suite" && -n "$baseline" && -n "$results_dir" ]] || {
  echo "nightly: --suite, --baseline and --results-dir are required (try --help)" >&2; exit 2; }
[[ -f "$baseline" ]] || { echo "nightly: baseline $baseline does not exist" >&2; exit 2; }
[[ -x "$binary" ]] || { echo "nightly: no cudabench binary at $binary (build first, or --binary PATH)" >&2; exit 2; }

name=$(basename "$suite" .json)
day=$(date -u +%F)
mkdir -p "$results_dir"
result="$results_dir/$name-$day.json"
table="$results_dir/$name-$day.md"

run_args=(run --suite "$suite" -o "$result" --quiet)
[[ -n "$label" ]] && run_args+=(--label "$label")
[[ -n "$filter" ]] && run_args+=(--filter "$filter")
[[ -n "$reps" ]] && run_args+=(--reps "$reps")
set +e
"$binary" "${run_args[@]}"
rc=$?
set -e
if [[ $rc -ne 0 ]]; then
  echo "nightly: cudabench run failed with exit code $rc" >&2
  exit "$rc"
fi

cmp_args=(compare "$baseline" "$result" --format markdown --fail-on-regression -o "$table")
[[ -n "$threshold" ]] && cmp_args+=(--threshold "$threshold")
[[ -n "$alpha" ]] && cmp_args+=(--alpha "$alpha")
set +e
"$binary" "${cmp_args[@]}"
rc=$?
set -e
[[ -f "$table" ]] && cat "$table"
case $rc in
  0) echo "nightly: no regression against $baseline ($result)" >&2 ;;
  1) echo "nightly: REGRESSION against $baseline: see $table" >&2 ;;
  *) echo "nightly: compare failed with exit code $rc" >&2 ;;
esac
exit "$rc"
