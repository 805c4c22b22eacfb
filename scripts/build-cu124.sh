#!/usr/bin/env bash
# usage: scripts/build-cu124.sh [--toolkit DIR] [--build-dir DIR] [--jobs N] [--cudnn DIR] [--no-tests] [--no-mixed-check]
#   Keeps cudabench building with a real CUDA 12.x compiler (nvcc 12.4.131), GPU or not:
#   1. scripts/toolkit-from-debian.sh 12.4 DIR --check  (DIR default: ../toolkits/cuda-12.4 beside
#      the repo; the .debs are cached next to it, so a rerun downloads nothing)
#   2. configures and builds every target into --build-dir (default build-cu124) for sm_90 with
#      g++ <= 13 as host compiler (nvcc 12.4's limit) and ccache when present
#   3. checks that no built program needs a CUDA library of another major (readelf NEEDED), and
#      prints ldd of cudabench with DIR/lib64 first on LD_LIBRARY_PATH
#   4. configures a deliberately mixed build (nvcc 12.4 + a CUDA 13 libcudart, when one is
#      installed) in a scratch directory and requires CMake to refuse it
#   5. runs the CPU tests: ctest --test-dir BUILD -LE gpu
#   --cudnn DIR links a cuDNN built for CUDA 12 (include/cudnn.h, lib/libcudnn.so[.9]; the
#   nvidia-cudnn-cu12 wheel's nvidia/cudnn folder will do), so ResNet-50 runs in the 12.x build;
#   without it that build has no cuDNN (the system's is built for CUDA 13) and ResNet-50 rows say
#   `unsupported`.
#   Every step's output and duration go to BUILD/build-cu124.log. Exit status: 0 when all passed.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

toolkit="$(dirname "$repo")/toolkits/cuda-12.4"
build=build-cu124
jobs=2
tests=1
mixed=1
cudnn=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --toolkit) toolkit="$2"; shift 2 ;;
    --build-dir) build="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --cudnn) cudnn="$(cd "$2" && pwd)"; shift 2 ;;
    --no-tests) tests=0; shift ;;
    --no-mixed-check) mixed=0; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "build-cu124: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
mkdir -p "$build"
logfile="$repo/$build/build-cu124.log"
: > "$logfile"
step() {  # step NAME COMMAND...: run with output to the log (and the terminal), timed
  local name=$1 t0=$SECONDS rc=0; shift
  echo "=== $name: $*" | tee -a "$logfile"
  "$@" > >(tee -a "$logfile") 2>&1 || rc=$?
  echo "=== $name: $([[ $rc -eq 0 ]] && echo ok || echo "FAILED ($rc)") in $((SECONDS - t0)) s" | tee -a "$logfile"
  return $rc
}

step toolkit scripts/toolkit-from-debian.sh 12.4 "$toolkit" --check
toolkit="$(cd "$toolkit" && pwd)"
host=""
for c in g++-13 g++-12 g++; do
  if command -v "$c" >/dev/null && [[ $("$c" -dumpversion | cut -d. -f1) -le 13 ]]; then host=$(command -v "$c"); break; fi
done
[[ -n "$host" ]] || { echo "build-cu124: no g++ <= 13 (apt-get install g++-12)" | tee -a "$logfile"; exit 3; }
args=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$toolkit/bin/nvcc"
      -DCUDAToolkit_ROOT="$toolkit" -DCMAKE_CUDA_HOST_COMPILER="$host" -DCMAKE_CUDA_ARCHITECTURES=90)
[[ -n "$cudnn" ]] && args+=(-DCUDNN_ROOT="$cudnn")
command -v ninja >/dev/null && args+=(-G Ninja)
command -v ccache >/dev/null && args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
step configure cmake -S . -B "$build" "${args[@]}"
step build cmake --build "$build" -j "$jobs"

# Every executable of the build, by the CUDA sonames it needs: all must be CUDA 12 ones.
check_needed() {
  local f bad=0 needed
  while IFS= read -r f; do
    needed=$(readelf -d "$f" | sed -n 's/.*NEEDED.*\[\(lib\(cudart\|cublas\|cublasLt\|cudnn\|nvrtc\)\.so\.[0-9]*\)\].*/\1/p' | tr '\n' ' ')
    echo "${f#"$repo"/}: $needed"
    if echo "$needed" | tr ' ' '\n' | grep -E '^lib(cudart|cublas|cublasLt|nvrtc)\.so\.' | grep -vqE '\.so\.12$'; then
      echo "  ^ needs a CUDA library that is not CUDA 12"; bad=1
    fi
  done < <(find "$repo/$build" -maxdepth 2 -name CMakeFiles -prune -o -type f -executable \
             -exec sh -c 'head -c 4 "$1" | grep -q ELF' _ {} \; -print | sort)
  echo "--- ldd $build/cudabench (LD_LIBRARY_PATH=$toolkit/lib64)"
  LD_LIBRARY_PATH="$toolkit/lib64" ldd "$build/cudabench" | grep -E 'cuda|cublas|cudnn|nvrtc|not found' || true
  return $bad
}
step libraries check_needed

if [[ $mixed -eq 1 ]]; then
  other=$(ls /usr/local/cuda/lib64/libcudart.so.1[3-9]* /usr/local/cuda-1[3-9]*/lib64/libcudart.so.1[3-9]* 2>/dev/null | head -1 || true)
  if [[ -n "$other" ]]; then
    mixed_check() {  # configure must fail, naming the foreign libcudart
      local dir; dir=$(mktemp -d)
      local out rc=0
      out=$(cmake -S . -B "$dir" "${args[@]}" -DCUDA_cudart_LIBRARY="$other" 2>&1) || rc=$?
      rm -rf "$dir"
      echo "$out" | grep -A3 'Mixed CUDA build refused' || true
      [[ $rc -ne 0 ]] && echo "$out" | grep -q 'Mixed CUDA build refused'
    }
    step mixed-refused mixed_check
  else
    echo "=== mixed-refused: skipped (no CUDA >= 13 libcudart on this machine to mix in)" | tee -a "$logfile"
  fi
fi
[[ $tests -eq 1 ]] && step cpu-tests ctest --test-dir "$build" -LE gpu --output-on-failure
echo "build-cu124: done; log in $build/build-cu124.log" | tee -a "$logfile"
