#!/usr/bin/env bash
# Extra CPU-only checks for CI, after .ci/run (which builds build/ and runs the CPU tests):
#   scripts/ci-extra.sh [--fuzz-seconds N] [--no-fuzz] [--no-sanitize] [--jobs N]
#     --fuzz-seconds N  how long each fuzz target runs (default 60)
#     --no-fuzz         skip (a): the fuzz targets
#     --no-sanitize     skip (b): the ASan+UBSan build and test run
#     --jobs N          parallel compile jobs and test processes (default: the number of CPUs)
# (a) builds the libFuzzer targets (clang, -DCUDABENCH_FUZZ=ON, into build-fuzz/) and runs each
#     for N seconds from its committed corpus fuzz/corpus/<target> (new inputs go to a scratch
#     copy, the committed corpus is never written); a crash, leak, timeout or out-of-memory fails.
# (b) builds cudabench, the fake round driver and the unit tests with ASan+UBSan (gcc, into
#     build-asan/) and runs every CPU test (ctest -LE gpu -j N) under them; any report fails.
# Exit status: 0 when everything passed, 1 when a check failed, 2 for bad arguments.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
die_usage() { echo "ci-extra: $1" >&2; usage >&2; exit 2; }
need() { [[ $# -ge 2 && -n "$2" && "$2" != -* ]] || die_usage "$1 needs a value"; }

fuzz_seconds=60; fuzz=1; sanitize=1; jobs=$(nproc)
while [[ $# -gt 0 ]]; do
  case "$1" in
    --fuzz-seconds) need "$@"; fuzz_seconds="$2"; shift 2 ;;
    --no-fuzz) fuzz=0; shift ;;
    --no-sanitize) sanitize=0; shift ;;
    --jobs) need "$@"; jobs="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die_usage "unknown argument '$1'" ;;
  esac
done
[[ "$fuzz_seconds" =~ ^[1-9][0-9]*$ ]] || die_usage "--fuzz-seconds $fuzz_seconds: expected a positive number of seconds"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die_usage "--jobs $jobs: expected a positive number"

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
failed=0
t_start=$SECONDS

if [[ $fuzz -eq 1 ]]; then
  t0=$SECONDS
  command -v clang++ >/dev/null || { echo "ci-extra: clang++ is needed for the fuzz targets (apt-get install clang)" >&2; exit 1; }
  cmake -S . -B build-fuzz "${generator[@]}" -DCUDABENCH_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ "${launcher[@]}" > /dev/null
  cmake --build build-fuzz -j "$jobs"
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/cudabench-fuzz.XXXXXX")
  trap 'rm -rf "$scratch"' EXIT
  for target in suite_parser result_reader byte_size safetensors; do
    mkdir -p "$scratch/$target"
    cp -r "fuzz/corpus/$target/." "$scratch/$target/"
    echo "=== fuzz_$target: ${fuzz_seconds}s"
    # -timeout: one input taking 10 s is a hang; -rss_limit_mb: 2 GiB is an out-of-memory.
    if build-fuzz/fuzz/fuzz_$target -max_total_time="$fuzz_seconds" -timeout=10 -rss_limit_mb=2048 \
         -print_final_stats=1 -artifact_prefix="$scratch/$target-" "$scratch/$target" > "$scratch/$target.log" 2>&1; then
      grep -E '^stat::number_of_executed_units|^stat::new_units_added' "$scratch/$target.log" | tr '\n' ' '
      echo
    else
      echo "ci-extra: fuzz_$target FAILED; the log's end and the input:" >&2
      tail -40 "$scratch/$target.log" >&2
      ls "$scratch"/"$target"-* >&2 2>/dev/null || true
      failed=1
    fi
  done
  echo "ci-extra: fuzzing took $((SECONDS - t0)) s"
fi

if [[ $sanitize -eq 1 ]]; then
  t0=$SECONDS
  # CUDA sources are compiled as usual (nvcc); every C++ source, host-only core and CLI included,
  # gets the sanitizers. One architecture keeps it lean, as in .ci/run. The C++ is built at -O1
  # (ASan's own advice) with line tables only (-g1: reports still name file and line): on a 2-core
  # CI machine that halves this build, which at -O2 -g took ~20 of CI's ~52 minutes.
  flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
  cmake -S . -B build-asan "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CUDA_ARCHITECTURES=90 \
    "${launcher[@]}" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" > /dev/null
  cmake --build build-asan -j "$jobs" --target cudabench_unit_tests
  # Leaks are reported too (no suppressions: without a GPU the CUDA libraries leak nothing).
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:halt_on_error=1"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  # In parallel: every test process gets its own TMPDIR (tests/unit/test_main.cpp), and the two
  # tests with wall-clock budgets or daemons (report_browser, slurm_fleet_job_array) are RUN_SERIAL
  # in tests/CMakeLists.txt. The GPU tests are not built here, so their not-built placeholder is
  # excluded by name as well.
  if ! ctest --test-dir build-asan -LE gpu -E '_NOT_BUILT$' --output-on-failure -j "$jobs"; then
    echo "ci-extra: the CPU tests FAILED under ASan+UBSan" >&2
    failed=1
  fi
  echo "ci-extra: the sanitizer build and tests took $((SECONDS - t0)) s"
fi

echo "ci-extra: $([[ $failed -eq 0 ]] && echo passed || echo FAILED) in $((SECONDS - t_start)) s"
exit $failed
