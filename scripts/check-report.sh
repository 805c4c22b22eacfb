#!/usr/bin/env bash
# Checks `cudabench report` pages in a real browser (headless Chromium; Debian package `chromium`).
#   scripts/check-report.sh [--binary build/cudabench] [--fake build/tests/fake_cudabench]
#                           [--out-dir DIR] [--screenshots DIR] [--max-seconds 5] [--chromium PATH]
# Builds five reports: a run (results/h200/full.json alone), two three-way comparisons (the hand-made
# 5-round files tests/data/results/cu121/cu124/cu126.json, and real H200 runs: results/h200/
# run-21e6d66/quick.json, quick.json, quick-aa.json), a hostile file (HTML in labels, messages, ids:
# tests/data/results/hostile.json) and, with --fake, a 1,000-workload x 3-round suite from the fake
# cudabench, two sides. For each it checks, in the page as Chromium rendered it
# (scripts/report_check/harness.js): the number of charts and points against the result files,
# that every chart was laid out, the comparison's rows, that nothing can run or fetch, and that the
# browser logged no console message (a blocked fetch or script would log one). Also that the HTML
# text has no external URL (src=/href= http(s), @import, url(). It times the large page (load and
# layout must stay under --max-seconds) and screenshots the run and three-way pages into DIR
# (--screenshots copies them there too, e.g. docs/img). Exit 0 all passed, 1 a check failed,
# 2 bad usage, 77 no Chromium found (ctest reports that as skipped).
set -euo pipefail
caller_dir=$(pwd)
cd "$(dirname "$0")/.."
abs() { [[ -z "$1" || "$1" = /* ]] && printf '%s' "$1" || printf '%s/%s' "$caller_dir" "$1"; }

binary=build/cudabench; fake=""; out_dir=""; shots=""; max_seconds=5; chromium=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --binary) binary=$(abs "$2"); shift 2 ;;
    --fake) fake=$(abs "$2"); shift 2 ;;
    --out-dir) out_dir=$(abs "$2"); shift 2 ;;
    --screenshots) shots=$(abs "$2"); shift 2 ;;
    --max-seconds) max_seconds="$2"; shift 2 ;;
    --chromium) chromium="$2"; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ && !/^#SBATCH/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;  # the comment block above
    *) echo "check-report: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
if [[ -z "$chromium" ]]; then
  for c in chromium chromium-browser google-chrome-stable google-chrome; do
    command -v "$c" >/dev/null && { chromium=$(command -v "$c"); break; }
  done
fi
[[ -n "$chromium" ]] || { echo "check-report: no Chromium found (apt-get install chromium); skipped" >&2; exit 77; }
[[ -x "$binary" ]] || { echo "check-report: no cudabench at $binary (build first, or --binary)" >&2; exit 2; }
[[ -n "$out_dir" ]] || out_dir=$(mktemp -d /tmp/cudabench-report-check.XXXXXX)
mkdir -p "$out_dir"
profile=$(mktemp -d "${TMPDIR:-/tmp}/cudabench-chromium.XXXXXX")
trap 'rm -rf "$profile"' EXIT
# --user-data-dir alone still leaves Chromium writing ~/.config/chromium (crash reports): give the
# browser a home of its own inside the profile, removed with it.
browser=(env HOME="$profile" XDG_CONFIG_HOME="$profile/config" XDG_CACHE_HOME="$profile/cache" "$chromium" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run
         --disable-extensions --user-data-dir="$profile" --allow-file-access-from-files --hide-scrollbars)
data=tests/data/results
failed=0
SECONDS=0

# The page text: no external URL where a browser would fetch it. In the tags (file strings are
# escaped, so every '<' in the page starts a tag cudabench wrote) and in the stylesheet; for pages
# made from ordinary files, anywhere in the text at all.
check_text() {
  local page=$1 strict=$2
  if grep -o '<[^>]*>' "$page" | grep -Eiq "(src|href)[[:space:]]*=[[:space:]]*[\"']?[[:space:]]*(https?:)?//" ||
     sed -n '/<style>/,/<\/style>/p' "$page" | grep -Eiq "@import|url\("; then
    echo "check-report: FAIL $page: an external URL in a tag or the stylesheet" >&2; failed=1
  fi
  if [[ $strict -eq 1 ]] && grep -Eiq "(src|href)[[:space:]]*=[[:space:]]*[\"']?[[:space:]]*https?:|@import|url\(http" "$page"; then
    echo "check-report: FAIL $page: an external URL in the HTML" >&2; failed=1
  fi
}

# Renders `page` in the harness and checks it against the result files it was made from.
check_page() {
  local name=$1 page=$2 hostile=$3; shift 3
  local harness="$out_dir/$name-harness.html" log="$out_dir/$name-chromium.log"
  {
    printf '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><pre id="out">RESULT FAIL harness did not run</pre>\n'
    printf '<script type="application/json" id="cfg">{"report": "%s", "hostile": %s}</script>\n' "$(basename "$page")" "$hostile"
    printf '<script type="application/json" id="data">['
    local first=1
    for f in "$@"; do
      [[ $first -eq 1 ]] || printf ','
      first=0
      sed 's#</#<\\/#g' "$f"   # keeps "</script>" in a string from closing the element
    done
    printf ']</script>\n<script>\n'
    cat scripts/report_check/harness.js
    printf '</script></body></html>\n'
  } > "$harness"
  local result
  result=$(timeout 120 "${browser[@]}" --enable-logging=stderr --v=0 --dump-dom "file://$harness" 2> "$log" |
           grep -o 'RESULT [^<]*' | head -1 || true)
  echo "check-report: $name: ${result:-RESULT FAIL no output from Chromium (see $log)}"
  [[ "$result" == "RESULT ok"* ]] || failed=1
  # Console messages from the report itself (a CSP-blocked fetch or script, a parse error).
  if grep -E ":CONSOLE" "$log" | grep -q "$(basename "$page")"; then
    echo "check-report: FAIL $name: the browser console logged:" >&2
    grep -E ":CONSOLE" "$log" | grep "$(basename "$page")" | head -5 >&2
    failed=1
  fi
  # What a reader waits for: the page loaded and laid out (off-screen cards render as they scroll
  # in; all_layout_ms forces every one of them and is printed for information).
  if [[ "$result" =~ first_layout_ms=([0-9]+) ]]; then
    local ms=${BASH_REMATCH[1]}
    if (( ms > max_seconds * 1000 )); then
      echo "check-report: FAIL $name: load and layout took ${ms} ms (limit ${max_seconds} s)" >&2; failed=1
    fi
  fi
}

screenshot() {  # screenshot PAGE PNG HEIGHT (the top of the page, 1280 wide; PNGs stay under ~300 KB)
  local page=$1 png=$2 height=$3
  timeout 120 "${browser[@]}" --window-size=1280,"$height" --screenshot="$png" "file://$page" > /dev/null 2>&1 || {
    echo "check-report: FAIL screenshot of $page" >&2; failed=1; }
}

report() {  # report NAME STRICT FILES...  (writes $out_dir/NAME.html)
  local name=$1 strict=$2; shift 2
  "$binary" report "$@" -o "$out_dir/$name.html" --quiet || { echo "check-report: FAIL cudabench report $name" >&2; failed=1; return 1; }
  check_text "$out_dir/$name.html" "$strict"
}

if report run 1 --title "cudabench run: H200, full suite" results/h200/full.json; then
  check_page run "$out_dir/run.html" null results/h200/full.json
  screenshot "$out_dir/run.html" "$out_dir/report-run.png" 1500
fi
# The cards of a run, where the screenshot can reach them: the same file, the 4096³ GEMMs and the
# device copies only (throttled by the power cap on that run).
if report run-cards 1 --title "cudabench run: H200, full suite (4096³ GEMMs, d2d copies)" --filter 'matmul/*4096*,memory_bandwidth/op=d2d/*' results/h200/full.json; then
  screenshot "$out_dir/run-cards.html" "$out_dir/report-run-cards.png" 2000
fi
three=("$data/cu121.json" "$data/cu124.json" "$data/cu126.json")
if report three 1 --title "cudabench: CUDA 12.1 vs 12.4 vs 12.6" "${three[@]}"; then
  check_page three "$out_dir/three.html" null "${three[@]}"
  screenshot "$out_dir/three.html" "$out_dir/report-three-way.png" 1700
fi
# Real H200 files, three ways: commit 21e6d66, commit 62e227c, and 62e227c again (an A/A).
h200=(results/h200/run-21e6d66/quick.json results/h200/quick.json results/h200/quick-aa.json)
if report h200 1 --title "cudabench on an H200: quick suite at 21e6d66, 62e227c, 62e227c again" "${h200[@]}"; then
  check_page h200 "$out_dir/h200.html" null "${h200[@]}"
  screenshot "$out_dir/h200.html" "$out_dir/report-h200-three-way.png" 1650
fi
if report hostile 0 "$data/cu121.json" "$data/hostile.json"; then
  check_page hostile "$out_dir/hostile.html" '"CUDA \"12.4\" <script>alert(1)<\/script>"' "$data/cu121.json" "$data/hostile.json"
fi
if [[ -n "$fake" ]]; then
  for side in a b; do
    shift_pct=0; [[ $side == b ]] && shift_pct=10
    CUDABENCH_ROUND_COMMAND="$fake" FAKE_WORKLOADS=1000 FAKE_CLOCKS=1 FAKE_SHIFT=$shift_pct \
      "$binary" run --suite quick --rounds 3 --label "side $side" -o "$out_dir/big-$side.json" --quiet --format csv > /dev/null
  done
  if report big 1 "$out_dir/big-a.json" "$out_dir/big-b.json"; then
    check_page big "$out_dir/big.html" null "$out_dir/big-a.json" "$out_dir/big-b.json"
    echo "check-report: big: $(wc -c < "$out_dir/big.html") bytes of HTML for 1000 workloads x 2 files x 3 rounds"
  fi
fi
if [[ -n "$shots" && $failed -eq 0 ]]; then
  mkdir -p "$shots"
  cp "$out_dir/report-run.png" "$out_dir/report-run-cards.png" "$out_dir/report-three-way.png" "$out_dir/report-h200-three-way.png" "$shots/"
fi
echo "check-report: $( [[ $failed -eq 0 ]] && echo passed || echo FAILED ) in ${SECONDS} s; pages and screenshots in $out_dir"
exit $failed
