#!/usr/bin/env bash
# Build cudabench against several CUDA toolkits (or run one build against several cuBLAS/cuDNN
# installs), run the same suite with each, and print the comparison.
#
#   Toolkit mode: one build per toolkit root, into build-cuda-<major.minor>, labelled "CUDA <ver>":
#     scripts/build-matrix.sh --cuda /usr/local/cuda-12.1 --cuda /usr/local/cuda-12.4 --suite full
#   Library mode: one build, run with each directory first on LD_LIBRARY_PATH. The label is NAME
#   when given as NAME=DIR; otherwise it is made from the cuDNN/cuBLAS versions the run actually
#   loaded (read back from the result file), e.g. "cuDNN 9.14.0":
#     scripts/build-matrix.sh --lib-dir /usr/lib/x86_64-linux-gnu \
#         --lib-dir /opt/torch/lib/python3.12/site-packages/nvidia/cudnn/lib --filter 'resnet50/*'
#
# Options: --suite NAME|PATH (default quick)  --filter GLOB  --reps N  --out-dir DIR (default
# results/matrix)  --arch ARCHS (CMAKE_CUDA_ARCHITECTURES for the builds)  --build-dir DIR (library
# mode; default build)  --format table|markdown|csv|json  --fail-on-regression  --no-build (reuse
# existing build dirs)  --dry-run (print the commands only).
# Exit code: compare's (0, or 1 with --fail-on-regression and a regression), 2 bad usage, or the
# failing step's code.
set -euo pipefail
cd "$(dirname "$0")/.."

cuda_roots=()
lib_dirs=()
suite=quick
filter=""
reps=""
out_dir=results/matrix
arch=""
build_dir=build
format=table
fail_flag=()
do_build=1
dry=0
usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --cuda) cuda_roots+=("$2"); shift 2 ;;
    --lib-dir) lib_dirs+=("$2"); shift 2 ;;
    --suite) suite="$2"; shift 2 ;;
    --filter) filter="$2"; shift 2 ;;
    --reps) reps="$2"; shift 2 ;;
    --out-dir) out_dir="$2"; shift 2 ;;
    --arch) arch="$2"; shift 2 ;;
    --build-dir) build_dir="$2"; shift 2 ;;
    --format) format="$2"; shift 2 ;;
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
run_args=(--suite "$suite")
[[ -n "$filter" ]] && run_args+=(--filter "$filter")
[[ -n "$reps" ]] && run_args+=(--reps "$reps")
[[ $dry -eq 1 ]] || mkdir -p "$out_dir"
results=()
seen_versions=" "
compare_bin=""

if [[ ${#cuda_roots[@]} -gt 0 ]]; then
  for root in "${cuda_roots[@]}"; do
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
    out="$out_dir/cuda-$ver.json"
    # The toolkit's own runtime libraries first, so each build runs with the libraries it was built for.
    run env LD_LIBRARY_PATH="$root/lib64:$root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
      "$dir/cudabench" run "${run_args[@]}" --label "CUDA $ver" -o "$out"
    results+=("$out")
    compare_bin="$dir/cudabench"
  done
else
  [[ $do_build -eq 1 ]] && run scripts/bootstrap.sh --build-dir "$build_dir" --no-install ${arch:+--arch "$arch"}
  names=()
  i=0
  for spec in "${lib_dirs[@]}"; do
    i=$((i + 1))
    name=""; dir="$spec"
    if [[ "$spec" == *=* ]]; then name="${spec%%=*}"; dir="${spec#*=}"; fi
    [[ -d "$dir" ]] || { echo "build-matrix: no directory $dir" >&2; exit 2; }
    out="$out_dir/lib-$i.json"
    label_args=()
    [[ -n "$name" ]] && label_args=(--label "$name")
    run env LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
      "$build_dir/cudabench" run "${run_args[@]}" "${label_args[@]}" -o "$out"
    results+=("$out")
    names+=("$name")
  done
  compare_bin="$build_dir/cudabench"
  # Label unnamed runs by the library versions they actually loaded: the versions that differ
  # between the runs. Identical versions mean LD_LIBRARY_PATH changed nothing: say so loudly.
  if [[ $dry -eq 0 ]]; then
    python3 - "${results[@]}" -- "${names[@]}" <<'PY'
import json, sys
args = sys.argv[1:]
split = args.index("--")
files, names = args[:split], args[split + 1:]
envs = [json.load(open(f)).get("environment", {}) for f in files]
def versions(key):
    return [str(e.get(key, "?")) for e in envs]
cudnn, cublas = versions("cudnn"), versions("cublas")
differ = [(k, v) for k, v in (("cuDNN", cudnn), ("cuBLAS", cublas)) if len(set(v)) > 1]
if not differ:
    print(f"build-matrix: WARNING: every run loaded the same libraries (cuDNN {cudnn[0]}, cuBLAS {cublas[0]}); "
          "the --lib-dir directories did not change what was loaded", file=sys.stderr)
for i, f in enumerate(files):
    if i < len(names) and names[i]:
        continue
    parts = [f"{k} {v[i]}" for k, v in differ] or [f"cuDNN {cudnn[i]}, cuBLAS {cublas[i]}"]
    data = json.load(open(f))
    data.setdefault("environment", {})["label"] = " / ".join(parts)
    with open(f + ".tmp", "w") as out:
        json.dump(data, out, indent=2, ensure_ascii=False)
        out.write("\n")
    import os
    os.replace(f + ".tmp", f)
    print(f"build-matrix: {f}: labelled \"{data['environment']['label']}\"", file=sys.stderr)
PY
  fi
fi

set +e
run "$compare_bin" compare "${results[@]}" --format "$format" "${fail_flag[@]}"
rc=$?
set -e
exit $rc
