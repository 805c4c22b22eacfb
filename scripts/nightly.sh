#!/usr/bin/env bash
# Nightly regression check. Two ways to say "did tonight's build get slower?":
#
#   Against a stored baseline file (another day, maybe another machine start):
#     scripts/nightly.sh --suite NAME --baseline FILE --results-dir DIR [--rounds N]
#   runs the suite in N rounds (default 5, each a fresh process) into DIR/<suite>-YYYY-MM-DD.json
#   and compares it with FILE. The two come from different sessions, so compare adds each row's
#   measured session noise (the built-in prior; with --history, also the history's earlier runs):
#   only changes clearly beyond it are verdicts, and each row's mde says what it could see.
#
#   Against a baseline build, interleaved on this GPU (the sharper test):
#     scripts/nightly.sh --suite NAME --baseline-binary OLD/cudabench --results-dir DIR [--rounds N]
#   runs `cudabench ab OLD NEW` (rounds alternate the builds, A B B A ...) into
#   DIR/<suite>-YYYY-MM-DD-ab/ (A.json, B.json, compare.md, compare.json; -ab-2/, -ab-3/ for a
#   later run the same day).
#
# Other options: --threshold X  --alpha A  --label L  --filter GLOB  --reps N  --binary PATH (the
# build under test; default $CUDABENCH or build/cudabench). Relative paths are the caller's.
#   --time-limit S  the rounds may take S seconds: no round is started that would not end within
#   them, and what finished is compared (fewer rounds: each row's mde says what they can see).
# Writes the markdown table next to the results and prints it, and the HTML report beside it
# (DIR/<suite>-YYYY-MM-DD.html, or report.html in the ab directory).
#   --history DB  also stores tonight's result in the history database DB (`cudabench history add`;
#   the ab mode stores the new build's side, B.json), writes DIR/history.html, and fails when the
#   newest run brought a new step for the worse in some metric (`cudabench history check`, with
#   --threshold and --filter; docs/history.md). Its earlier runs (before tonight's) also measure
#   each row's session noise for the --baseline comparison (`compare --history DB`).
# Exit codes: 0 no regression, 1 a regression (a metric regressed, a workload ok in the baseline
# now fails, or a new step for the worse in the history), 2 bad input, 3 the run could not use the
# GPU, 130 interrupted.
#
# cron (02:30 UTC every night, on the GPU box):
#   30 2 * * * cd /opt/cudabench && scripts/nightly.sh --suite full --baseline results/h200/verdicts/aa-full-3rounds-15377c2/A.json --results-dir /var/lib/cudabench/nightly >> /var/log/cudabench-nightly.log 2>&1
set -euo pipefail
caller_dir=$(pwd)
cd "$(dirname "$0")/.."

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }  # the comment block above
need() { [[ $# -ge 2 && -n "$2" ]] || { echo "nightly: $1 needs a value (try --help)" >&2; exit 2; }; }
abs() { [[ -z "$1" || "$1" = /* ]] && printf '%s' "$1" || printf '%s/%s' "$caller_dir" "$1"; }

suite=""; baseline=""; baseline_bin=""; results_dir=""; threshold=""; alpha=""; label=""; filter=""; reps=""; history=""
time_limit=""
rounds=5
binary="${CUDABENCH:-}"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --suite) need "$@"; suite="$2"; shift 2 ;;
    --baseline) need "$@"; baseline="$2"; shift 2 ;;
    --baseline-binary) need "$@"; baseline_bin="$2"; shift 2 ;;
    --results-dir) need "$@"; results_dir="$2"; shift 2 ;;
    --rounds) need "$@"; rounds="$2"; shift 2 ;;
    --threshold) need "$@"; threshold="$2"; shift 2 ;;
    --alpha) need "$@"; alpha="$2"; shift 2 ;;
    --label) need "$@"; label="$2"; shift 2 ;;
    --filter) need "$@"; filter="$2"; shift 2 ;;
    --reps) need "$@"; reps="$2"; shift 2 ;;
    --binary) need "$@"; binary="$2"; shift 2 ;;
    --history) need "$@"; history="$2"; shift 2 ;;
    --time-limit) need "$@"; time_limit="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "nightly: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
[[ -n "$suite" && -n "$results_dir" ]] || { echo "nightly: --suite and --results-dir are required (try --help)" >&2; exit 2; }
[[ -n "$baseline" || -n "$baseline_bin" ]] || { echo "nightly: give --baseline FILE or --baseline-binary PATH (try --help)" >&2; exit 2; }
[[ -z "$baseline" || -z "$baseline_bin" ]] || { echo "nightly: give --baseline or --baseline-binary, not both" >&2; exit 2; }
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "nightly: --rounds $rounds: expected a positive integer" >&2; exit 2; }
[[ -z "$time_limit" || "$time_limit" =~ ^[1-9][0-9]*$ ]] ||
  { echo "nightly: --time-limit $time_limit: expected a positive whole number of seconds" >&2; exit 2; }
baseline=$(abs "$baseline"); baseline_bin=$(abs "$baseline_bin"); results_dir=$(abs "$results_dir"); history=$(abs "$history")
binary=$(abs "${binary:-build/cudabench}")
[[ "$suite" != /* && -f "$caller_dir/$suite" ]] && suite="$caller_dir/$suite"
[[ -z "$baseline" || -e "$baseline" ]] || { echo "nightly: baseline $baseline does not exist" >&2; exit 2; }
# Checked before the night's run, not after it: a FIFO or /dev/zero would otherwise be found out
# only by the compare at the end (cudabench's reader then names what is wrong with a regular file).
[[ -z "$baseline" || -f "$baseline" ]] ||
  { echo "nightly: baseline $baseline is not a regular file (a directory, FIFO or device)" >&2; exit 2; }
[[ -z "$baseline_bin" || -x "$baseline_bin" ]] || { echo "nightly: no baseline binary at $baseline_bin" >&2; exit 2; }
[[ -x "$binary" ]] || { echo "nightly: no cudabench binary at $binary (build first, or --binary PATH)" >&2; exit 2; }

name=$(basename "$suite" .json)
day=$(date -u +%F)
mkdir -p "$results_dir"
common=()
[[ -n "$filter" ]] && common+=(--filter "$filter")
[[ -n "$reps" ]] && common+=(--reps "$reps")
[[ -n "$time_limit" ]] && common+=(--time-limit "$time_limit")
verdict=()
history_args=()
[[ -n "$filter" ]] && history_args+=(--filter "$filter")
[[ -n "$threshold" ]] && history_args+=(--threshold "$threshold")
[[ -n "$threshold" ]] && verdict+=(--threshold "$threshold")
[[ -n "$alpha" ]] && verdict+=(--alpha "$alpha")

set +e
noise_args=()  # compare/report --history in baseline-file mode (one interleaved session needs none)
if [[ -n "$baseline_bin" ]]; then
  out="$results_dir/$name-$day-ab"
  # A second run the same day gets its own directory: ab refuses to start over an earlier session.
  n=2
  while [[ -e $out ]]; do out="$results_dir/$name-$day-ab-$n"; n=$((n + 1)); done
  table="$out/compare.md"
  labels=()
  [[ -n "$label" ]] && labels=(--labels "baseline,$label")
  "$binary" ab "$baseline_bin" "$binary" --suite "$suite" --rounds "$rounds" -o "$out" --quiet --format markdown \
    --fail-on-regression "${labels[@]}" "${common[@]}" "${verdict[@]}" > /dev/null
  rc=$?
  # ab ends 130 when the time limit stopped it (a Ctrl-C would have stopped this script too): the
  # rounds that finished were compared, and that comparison's "regression" (what
  # --fail-on-regression exits 1 for) decides the night.
  if [[ $rc -eq 130 && -n "$time_limit" && -f "$out/compare.json" ]]; then
    rc=0
    grep -Eq '"regression": *true' "$out/compare.json" && rc=1
  fi
  against="the baseline build $baseline_bin"
  tonight="$out/B.json"
  report_files=("$out/A.json" "$out/B.json")
  html="$out/report.html"
else
  result="$results_dir/$name-$day.json"
  table="$results_dir/$name-$day.md"
  run_args=(run --suite "$suite" --rounds "$rounds" -o "$result" --quiet --format csv "${common[@]}")
  [[ -n "$label" ]] && run_args+=(--label "$label")
  "$binary" "${run_args[@]}" > /dev/null
  rc=$?
  if [[ $rc -ne 0 ]]; then
    echo "nightly: cudabench run failed with exit code $rc" >&2
    exit "$rc"
  fi
  # The history's runs so far (tonight's is added below) measure each row's session noise, for the
  # table and the page alike, so both show the same verdicts.
  [[ -n "$history" && -f "$history" ]] && noise_args=(--history "$history")
  "$binary" compare "$baseline" "$result" --format markdown --fail-on-regression -o "$table" "${verdict[@]}" \
    "${noise_args[@]}"
  rc=$?
  against=$baseline
  tonight="$result"
  report_files=("$baseline" "$result")
  html="$results_dir/$name-$day.html"
fi
# The same comparison as a page with plots, beside the table.
if [[ $rc -le 1 ]]; then
  "$binary" report "${report_files[@]}" -o "$html" --quiet "${verdict[@]}" "${noise_args[@]}" ||
    echo "nightly: warning: could not write the HTML report $html" >&2
fi
history_rc=0
if [[ -n "$history" && $rc -le 1 && -f "$tonight" ]]; then
  "$binary" history add "$tonight" --db "$history" --quiet
  history_rc=$?
  if [[ $history_rc -eq 0 ]]; then
    "$binary" history show --db "$history" --format html -o "$results_dir/history.html" "${history_args[@]}" ||
      echo "nightly: warning: could not write $results_dir/history.html" >&2
    "$binary" history check --db "$history" "${history_args[@]}"
    history_rc=$?
  fi
fi
set -e
[[ -f "$table" ]] && cat "$table"
case $rc in
  0) echo "nightly: no regression against $against" >&2 ;;
  1) echo "nightly: REGRESSION against $against: see $table" >&2 ;;
  *) echo "nightly: failed with exit code $rc" >&2 ;;
esac
if [[ $history_rc -eq 1 ]]; then
  echo "nightly: NEW STEP for the worse in the history $history (above; plots in $results_dir/history.html)" >&2
  [[ $rc -eq 0 ]] && rc=1
elif [[ $history_rc -gt 1 ]]; then
  echo "nightly: the history $history failed with exit code $history_rc" >&2
  [[ $rc -eq 0 ]] && rc=$history_rc
fi
exit "$rc"
