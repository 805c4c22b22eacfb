#!/usr/bin/env bash
# Build cudabench against several CUDA toolkits (or run one build against several cuBLAS/cuDNN
# installs), run the same suite with each, interleaved round by round on one GPU (`cudabench ab`:
# A B, B A, ... each round a fresh process), and print the comparison with verdicts.
#
#   Toolkit mode: one build per toolkit root, into build-cuda-<major.minor>, labelled "CUDA <ver>",
#   each run with its own toolkit's runtime libraries first on LD_LIBRARY_PATH:
#     scripts/build-matrix.sh --cuda /usr/local/cuda-12.1 --cuda /usr/local/cuda-12.4 --suite full
#   Library mode: one build, run with each directory first on LD_LIBRARY_PATH. The label is NAME
#   when given as NAME=DIR; otherwise it is made from the cuDNN/cuBLAS versions each side actually
#   loads (asked with `cudabench env --json` under that LD_LIBRARY_PATH), e.g. "cuDNN 9.14.0":
#     scripts/build-matrix.sh --lib-dir /usr/lib/x86_64-linux-gnu \
#         --lib-dir /opt/torch/lib/python3.12/site-packages/nvidia/cudnn/lib --filter 'resnet50/*'
#
# Options: --suite NAME|PATH (default quick)  --filter GLOB  --reps N  --rounds N (per build,
# default 5)  --hold-tuning (replay the first run's tuning choices everywhere)  --out-dir DIR
# (default results/matrix; gets A.json, B.json, ..., compare.md, compare.json, and report.html:
# the same comparison as a self-contained page with plots, `cudabench report`)  --arch ARCHS
# (CMAKE_CUDA_ARCHITECTURES for the builds)  --build-dir DIR (library mode; default build)
# --format table|markdown|csv|json  --fail-on-regression  --no-build (reuse existing build dirs)
# --dry-run (print the commands only). Paths must not contain spaces (each build is passed to
# `cudabench ab` as one command string).
# Exit code: the comparison's (0, or 1 with --fail-on-regression and a regression), 2 bad usage,
# or the failing step's code.
set -euo pipefail
caller_dir=$(pwd)
cd "$(dirname "$0")/.."

cuda_roots=()
lib_dirs=()
suite=quick
filter=""
reps=""
rounds=5
hold=()
out_dir=results/matrix
arch=""
build_dir=build
format=table
fail_flag=()
do_build=1
dry=0
usage() { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; }
need() { [[ $# -ge 2 && -n "$2" ]] || { echo "build-matrix: $1 needs a value (try --help)" >&2; exit 2; }; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --cuda) need "$@"; cuda_roots+=("$2"); shift 2 ;;
    --lib-dir) need "$@"; lib_dirs+=("$2"); shift 2 ;;
    --suite) need "$@"; suite="$2"; shift 2 ;;
    --filter) need "$@"; filter="$2"; shift 2 ;;
    --reps) need "$@"; reps="$2"; shift 2 ;;
    --out-dir) need "$@"; out_dir="$2"; shift 2 ;;
    --arch) need "$@"; arch="$2"; shift 2 ;;
    --build-dir) need "$@"; build_dir="$2"; shift 2 ;;
    --format) need "$@"; format="$2"; shift 2 ;;
    --rounds) need "$@"; rounds="$2"; shift 2 ;;
    --hold-tuning) hold=(--hold-tuning); shift ;;
    --fail-on-regression) fail_flag=(--fail-on-regression); shift ;;
    --no-build) do_build=0; shift ;;
    --dry-run) dry=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "build-matrix: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
if [[ ${#cuda_roots[@]} -gt 0 && ${#lib_dirs[@]} -gt 0 ]]; then
  echo "build-matrix: give either --cuda roots or --lib-dir directories, not both" >&2; exit 2
fi
n=$(( ${#cuda_roots[@]} + ${#lib_dirs[@]} ))
if [[ $n -lt 2 ]]; then
  echo "build-matrix: need at least two --cuda roots or two --lib-dir directories to compare" >&2; exit 2
fi

run() {  # print, then run unless --dry-run
  printf '+' >&2; printf ' %q' "$@" >&2; printf '\n' >&2
  [[ $dry -eq 1 ]] || "$@"
}
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "build-matrix: --rounds $rounds: expected a positive integer" >&2; exit 2; }
# Relative paths are the caller's: resolve them before anything changes directory.
abs() { [[ "$1" = /* ]] && printf '%s' "$1" || printf '%s/%s' "$caller_dir" "$1"; }
[[ "$suite" != /* && -f "$caller_dir/$suite" ]] && suite="$caller_dir/$suite"
[[ "$out_dir" == results/matrix ]] || out_dir=$(abs "$out_dir")
ab_args=(--suite "$suite" --rounds "$rounds" -o "$out_dir" --format "$format" "${hold[@]}" "${fail_flag[@]}")
[[ -n "$filter" ]] && ab_args+=(--filter "$filter")
[[ -n "$reps" ]] && ab_args+=(--reps "$reps")
sides=()
labels=()
seen_versions=" "
ab_bin=""

if [[ ${#cuda_roots[@]} -gt 0 ]]; then
  for root in "${cuda_roots[@]}"; do
    root=$(abs "$root")
    [[ -x "$root/bin/nvcc" ]] || { echo "build-matrix: no nvcc under $root" >&2; exit 2; }
    ver=$("$root/bin/nvcc" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p' | head -1)
    [[ -n "$ver" ]] || { echo "build-matrix: cannot read the CUDA version from $root/bin/nvcc --version" >&2; exit 2; }
    [[ "$seen_versions" != *" $ver "* ]] || { echo "build-matrix: two --cuda roots are both CUDA $ver" >&2; exit 2; }
    seen_versions+="$ver "
    dir="build-cuda-$ver"
    if [[ $do_build -eq 1 ]]; then
      bargs=(--cuda-root "$root" --build-dir "$dir" --no-install)
      [[ -n "$arch" ]] && bargs+=(--arch "$arch")
      run scripts/bootstrap.sh "${bargs[@]}"
    fi
    # The toolkit's own runtime libraries first, so each build runs with the libraries it was built for.
    sides+=("env LD_LIBRARY_PATH=$root/lib64:$root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} $(pwd)/$dir/cudabench")
    labels+=("CUDA $ver")
    ab_bin="$dir/cudabench"
  done
else
  [[ $do_build -eq 1 ]] && run scripts/bootstrap.sh --build-dir "$build_dir" --no-install ${arch:+--arch "$arch"}
  ab_bin="$build_dir/cudabench"
  names=(); envs=()
  for spec in "${lib_dirs[@]}"; do
    name=""; dir="$spec"
    if [[ "$spec" == *=* ]]; then name="${spec%%=*}"; dir="${spec#*=}"; fi
    dir=$(abs "$dir")
    [[ -d "$dir" ]] || { echo "build-matrix: no directory $dir" >&2; exit 2; }
    side="env LD_LIBRARY_PATH=$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} $(pwd)/$build_dir/cudabench"
    sides+=("$side")
    names+=("$name")
    if [[ $dry -eq 0 && -z "$name" ]]; then envs+=("$($side env --json)"); else envs+=("{}"); fi
  done
  # Label unnamed sides by the library versions they load: the versions that differ between the
  # sides. Identical versions mean LD_LIBRARY_PATH changed nothing: say so loudly.
  mapfile -t labels < <(python3 - "${names[@]}" -- "${envs[@]}" <<'PY'
import json, sys
args = sys.argv[1:]
split = args.index("--")
names, envs = args[:split], [json.loads(e).get("environment", {}) for e in args[split + 1:]]
def versions(key):
    return [str(e.get(key, "?")) for e in envs]
cudnn, cublas = versions("cudnn"), versions("cublas")
differ = [(k, v) for k, v in (("cuDNN", cudnn), ("cuBLAS", cublas)) if len(set(v)) > 1]
if not differ and not all(names) and any(envs):
    print(f"build-matrix: WARNING: every side loads the same libraries (cuDNN {cudnn[0]}, cuBLAS {cublas[0]}); "
          "the --lib-dir directories do not change what is loaded", file=sys.stderr)
for i, n in enumerate(names):
    print(n or " / ".join(f"{k} {v[i]}" for k, v in differ) or f"cuDNN {cudnn[i]}, cuBLAS {cublas[i]}")
PY
  )
fi

label_list=$(IFS=,; printf '%s' "${labels[*]}")
[[ $dry -eq 1 ]] || mkdir -p "$out_dir"
set +e
run "$ab_bin" ab "${sides[@]}" --labels "$label_list" "${ab_args[@]}"
rc=$?
# The HTML report beside compare.md: every side's file, the baseline (A) first.
if [[ $rc -le 1 ]]; then
  letters=ABCDEFGHIJKLMNOPQRSTUVWXYZ
  side_files=()
  for ((i = 0; i < n; i++)); do side_files+=("$out_dir/${letters:i:1}.json"); done
  run "$ab_bin" report "${side_files[@]}" -o "$out_dir/report.html" --quiet ||
    echo "build-matrix: warning: could not write $out_dir/report.html" >&2
fi
set -e
exit $rc
