#!/usr/bin/env bash
# Assemble a CUDA toolkit root for 12.1 or 12.4 from NVIDIA's pip wheels (no GPU, no root needed):
#   scripts/toolkit-from-wheels.sh VERSION DEST [--wheel-dir DIR] [--check] [--check-only] [--src DIR]
#     VERSION     12.1 or 12.4
#     DEST        the toolkit root to create, e.g. /work/toolkits/cuda-12.4 (keep it out of the repo)
#     --wheel-dir where the wheels are downloaded/cached (default: DEST/../wheels)
#     --check     afterwards: configure a probe CMake project (FindCUDAToolkit + cmake/cudnn.cmake)
#                 against DEST, link a program against each library, and compile every host .cpp of
#                 cudabench against DEST's headers
#     --check-only  the same checks on an already assembled DEST (no download, no copying)
#     --src DIR     the cudabench checkout whose sources --check compiles (default: this one); only read
#   Relative paths are the caller's. Exit codes: 0 done, 2 bad arguments, 1 a failed step or check.
#
# Wheels (pip download --no-deps; they are zips): nvidia-cuda-nvcc-cu12, -cuda-runtime-cu12,
# -cuda-cccl-cu12, -cublas-cu12, -cudnn-cu12 at the versions of the CUDA release (table below).
# Layout of DEST: bin/ptxas, include/ (runtime, CCCL, crt, cuBLAS, cuDNN headers), lib64/ (the .so
# files plus the unversioned symlinks the linker needs), nvvm/ (libnvvm, libdevice), version.txt
# and version.json (read by CMake's FindCUDAToolkit), targets/x86_64-linux -> ..
#
# LIMIT, found when this was written: the nvidia-cuda-nvcc-cu12 wheels of 12.1 (12.1.105) and 12.4
# (12.4.131) contain only ptxas, libnvvm, libdevice and the crt headers -- no nvcc driver, cicc,
# cudafe++, fatbinary or nvlink. So DEST can find, include and link CUDA 12.x (runtime, cuBLAS,
# cuBLASLt, cuDNN) but cannot compile .cu files, and the project (LANGUAGES CUDA) cannot be
# configured against it. For 12.4, scripts/toolkit-from-debian.sh assembles a complete root with
# nvcc from Debian's packages. A full nvcc 12.1 has to come from NVIDIA's installer, its
# redistributable cuda_nvcc-linux-x86_64-<version>-archive, or conda (none of those was reachable
# from the machine this was written on).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
caller_dir=$(pwd)  # this script never changes directory, but says so explicitly for every path

# The usage is the first paragraph of the comment at the top of this file (up to the first "#"
# line); the rest of that comment documents the result.
usage() { awk 'NR > 1 && /^#/ { if ($0 == "#") exit; sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
die_usage() { echo "toolkit-from-wheels: $1" >&2; usage >&2; exit 2; }
need() { [[ $# -ge 2 && -n "$2" && "$2" != -* ]] || die_usage "$1 needs a value"; }
abs() { [[ -z "$1" || "$1" = /* ]] && printf '%s' "$1" || printf '%s/%s' "$caller_dir" "$1"; }

version=""; dest=""; wheel_dir=""; check=0; assemble=1; src_root="$repo"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --wheel-dir) need "$@"; wheel_dir=$(abs "$2"); shift 2 ;;
    --check) check=1; shift ;;
    --check-only) check=1; assemble=0; shift ;;
    --src) need "$@"; [[ -d "$2" ]] || die_usage "--src $2: no such directory"; src_root="$(cd "$2" && pwd)"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) die_usage "unknown option '$1'" ;;
    *) if [[ -z "$version" ]]; then version="$1"; elif [[ -z "$dest" ]]; then dest=$(abs "$1"); else
         die_usage "unexpected argument '$1'"; fi; shift ;;
  esac
done
[[ -n "$version" && -n "$dest" ]] || die_usage "VERSION and DEST are required"

# Versions of the wheels published for each CUDA release (pip index versions <package>). cuDNN: the
# first 9.x release whose support matrix covers that CUDA (9.0.0 for 12.0-12.3, 9.1.0 up to 12.4).
case "$version" in
  12.1) full=12.1.105; nvcc=12.1.105; runtime=12.1.105; cccl=12.1.109; cublas=12.1.3.1; cudnn=9.0.0.312 ;;
  12.4) full=12.4.131; nvcc=12.4.131; runtime=12.4.127; cccl=12.4.127.post1; cublas=12.4.5.8; cudnn=9.1.0.70 ;;
  *) die_usage "unsupported version '$version' (known: 12.1, 12.4)" ;;
esac
mkdir -p "$dest"
dest="$(cd "$dest" && pwd)"
[[ -n "$wheel_dir" ]] || wheel_dir="$(dirname "$dest")/wheels"
mkdir -p "$wheel_dir"

stage="$(mktemp -d "${TMPDIR:-/tmp}/toolkit-wheels.XXXXXX")"
trap 'rm -rf "$stage"' EXIT

assemble_toolkit() {
specs=("nvidia-cuda-nvcc-cu12==$nvcc" "nvidia-cuda-runtime-cu12==$runtime" "nvidia-cuda-cccl-cu12==$cccl"
       "nvidia-cublas-cu12==$cublas" "nvidia-cudnn-cu12==$cudnn")
wheels=()
for spec in "${specs[@]}"; do
  name="${spec%%==*}"; ver="${spec#*==}"
  pattern="${name//-/_}-${ver}-*.whl"
  found=$(find "$wheel_dir" -maxdepth 1 -name "$pattern" | head -1)
  if [[ -z "$found" ]]; then
    echo "toolkit-from-wheels: pip download $spec" >&2
    pip download --quiet --no-deps --only-binary=:all: -d "$wheel_dir" "$spec"
    found=$(find "$wheel_dir" -maxdepth 1 -name "$pattern" | head -1)
  fi
  wheels+=("$found")
done

for w in "${wheels[@]}"; do unzip -q -o "$w" -d "$stage"; done

rm -rf "${dest:?}/bin" "${dest:?}/include" "${dest:?}/lib64" "${dest:?}/nvvm" "${dest:?}/targets"
mkdir -p "$dest/bin" "$dest/include" "$dest/lib64"
for comp in "$stage"/nvidia/*/; do
  [[ -d "$comp/include" ]] && cp -a "$comp/include/." "$dest/include/"
  if [[ -d "$comp/lib" ]]; then
    find "$comp/lib" -maxdepth 1 -name '*.so*' -exec cp -a {} "$dest/lib64/" \;
    [[ -d "$comp/lib/cmake" ]] && cp -a "$comp/lib/cmake" "$dest/lib64/"
  fi
  [[ -d "$comp/bin" ]] && cp -a "$comp/bin/." "$dest/bin/"
  [[ -d "$comp/nvvm" ]] && cp -a "$comp/nvvm" "$dest/"
done
find "$dest" -name '__init__.py' -delete
find "$dest/lib64/cmake" -name '__pycache__' -prune -exec rm -rf {} + 2>/dev/null || true
chmod +x "$dest"/bin/* 2>/dev/null || true

# The linker looks for libX.so; the wheels ship only the sonames (libX.so.12, libcudnn.so.9).
(cd "$dest/lib64" && for f in lib*.so.*; do
   base="${f%%.so.*}.so"
   [[ -e "$base" ]] || ln -s "$f" "$base"
 done)
# Some tools look under targets/<arch>/ (the layout of NVIDIA's installers).
mkdir -p "$dest/targets/x86_64-linux"
ln -s ../../include "$dest/targets/x86_64-linux/include"
ln -s ../../lib64 "$dest/targets/x86_64-linux/lib"

echo "CUDA Version $full" > "$dest/version.txt"
cat > "$dest/version.json" <<JSON
{
  "cuda": { "name": "CUDA SDK (assembled from pip wheels)", "version": "$full" },
  "cuda_nvcc": { "name": "CUDA NVCC (ptxas, libnvvm, libdevice only)", "version": "$nvcc" },
  "cuda_cudart": { "name": "CUDA Runtime (cudart)", "version": "$runtime" },
  "cuda_cccl": { "name": "CUDA C++ Core Compute Libraries", "version": "$cccl" },
  "libcublas": { "name": "CUDA cuBLAS", "version": "$cublas" },
  "cudnn": { "name": "cuDNN", "version": "$cudnn" }
}
JSON
echo "toolkit-from-wheels: CUDA $full assembled in $dest (cuBLAS $cublas, cuDNN $cudnn)" >&2
[[ -x "$dest/bin/nvcc" ]] || echo "toolkit-from-wheels: note: no bin/nvcc -- the $version nvcc wheel ships ptxas/libnvvm only (see the header of this script)" >&2
}

if [[ $assemble -eq 1 ]]; then
  assemble_toolkit
elif [[ "$(cat "$dest/version.txt" 2>/dev/null)" != "CUDA Version $full" ]]; then
  echo "toolkit-from-wheels: --check-only: $dest is not an assembled CUDA $full root" >&2; exit 2
fi

[[ $check -eq 1 ]] || exit 0

# ---- --check -----------------------------------------------------------------------------------
work="$stage/check"
mkdir -p "$work/probe"
status=0
echo "== CMake: find_package(CUDAToolkit) + cmake/cudnn.cmake against $dest" >&2
cat > "$work/probe/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.24)
project(probe LANGUAGES CXX)
find_package(CUDAToolkit 12.1 REQUIRED)
include("$src_root/cmake/cudnn.cmake")
message(STATUS "probe: CUDAToolkit_VERSION=\${CUDAToolkit_VERSION} include=\${CUDAToolkit_INCLUDE_DIRS}")
if(NOT CUDABENCH_HAVE_CUDNN)
  message(FATAL_ERROR "probe: cudnn.cmake did not find cuDNN")
endif()
add_executable(probe probe.cpp)
target_link_libraries(probe PRIVATE CUDA::cudart CUDA::cublas CUDA::cublasLt cudabench::cudnn)
CMAKE
cat > "$work/probe/probe.cpp" <<'CPP'
// Links one call into each library and prints the header versions it was compiled against.
#include <cstdio>
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
int main() {
  int rt = 0;
  cudaRuntimeGetVersion(&rt);
  std::printf("CUDART_VERSION %d CUBLAS_VERSION %d CUDNN_VERSION %d runtime %d cublasLt %zu cudnn %zu\n",
              CUDART_VERSION, CUBLAS_VERSION, CUDNN_VERSION, rt, cublasLtGetVersion(), cudnnGetVersion());
  int v = 0;
  (void)cublasGetProperty(MAJOR_VERSION, &v);
  return 0;
}
CPP
if cmake -S "$work/probe" -B "$work/probe/build" -DCUDAToolkit_ROOT="$dest" -DCUDNN_ROOT="$dest" >"$work/probe.log" 2>&1 &&
   cmake --build "$work/probe/build" >>"$work/probe.log" 2>&1; then
  grep -E "probe:|cuDNN:" "$work/probe.log" >&2
  LD_LIBRARY_PATH="$dest/lib64" "$work/probe/build/probe" >&2 || echo "(probe built; running it needs a driver: ok without a GPU to fail here)" >&2
else
  status=1; echo "FAILED: see below" >&2; tail -30 "$work/probe.log" >&2
fi

echo "== cudabench host sources of $src_root compiled with $(g++ --version | head -1) against $dest" >&2
gen="$work/generated/cudabench"
mkdir -p "$gen"
sed -e "s/@PROJECT_VERSION@/0.0.0/" -e "s/@CUDAToolkit_VERSION@/$full/" \
    -e "s/@CUDABENCH_ARCH_STRING@/90/" -e "s/@CMAKE_CXX_COMPILER_ID@/GNU/" -e "s/@CMAKE_CXX_COMPILER_VERSION@/check/" \
    -e "s/@CMAKE_BUILD_TYPE@/Release/" "$src_root/cmake/build_config.hpp.in" > "$gen/build_config.hpp"
ok=0; failed=0; cu=0
while IFS= read -r src; do
  if g++ -std=c++17 -fsyntax-only -Wall -Wextra -DCUDABENCH_HAVE_CUDNN=1 \
       -DCUDABENCH_SOURCE_CONFIG_DIR='"configs"' -DCUDABENCH_INSTALL_CONFIG_DIR='"configs"' \
       -I"$src_root/include" -I"$src_root/src" -I"$src_root" -I"$work/generated" -I"$dest/include" "$src" 2>"$work/err.txt"; then
    ok=$((ok + 1))
  else
    failed=$((failed + 1)); status=1
    echo "FAILED: ${src#"$src_root"/}" >&2; grep -m 3 "error" "$work/err.txt" >&2
  fi
done < <(find "$src_root/src" -name '*.cpp' | sort)
cu=$(find "$src_root/src" "$src_root/kernels" -name '*.cu' 2>/dev/null | wc -l)
echo "host .cpp: $ok compiled, $failed failed; .cu files not compiled (no nvcc in the wheels): $cu" >&2
exit $status
