#!/usr/bin/env bash
# Set up and build cudabench in one step.
#   scripts/bootstrap.sh [--build-dir DIR] [--arch "90"] [--cuda-root /usr/local/cuda-12.4] [--no-install] [--no-browser]
# Installs missing build dependencies with apt-get where apt works (root or sudo, and a reachable
# mirror); where it does not -- a GPU box with no network -- it uses what is already installed and
# says what is missing. Chromium (for the report's browser test, ctest report_browser) is optional:
# installed separately, skipped with --no-browser; without it that test is skipped. Then configures
# (Release, Ninja if present) and builds.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=build
arch=""
cuda_root="${CUDA_ROOT:-}"
install=1
browser=1
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build_dir="$2"; shift 2 ;;
    --arch) arch="$2"; shift 2 ;;
    --cuda-root) cuda_root="$2"; shift 2 ;;
    --no-install) install=0; shift ;;
    --no-browser) browser=0; shift ;;
    -D*) extra+=("$1"); shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "bootstrap: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done

have_header() { for d in /usr/include /usr/local/include; do [[ -e "$d/$1" ]] && return 0; done; return 1; }
missing=()
have_header CLI/CLI.hpp || missing+=(libcli11-dev)
have_header nlohmann/json.hpp || missing+=(nlohmann-json3-dev)
have_header fmt/core.h || missing+=(libfmt-dev)
have_header gtest/gtest.h || missing+=(libgtest-dev)
have_header sqlite3.h || missing+=(libsqlite3-dev)
command -v cmake >/dev/null || missing+=(cmake)
command -v ninja >/dev/null || missing+=(ninja-build)
if [[ ${#missing[@]} -gt 0 && $install -eq 1 ]]; then
  sudo=""; [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null && sudo=sudo
  if command -v apt-get >/dev/null; then
    echo "bootstrap: installing ${missing[*]}"
    if $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; then
      missing=()
    else
      echo "bootstrap: apt-get failed (no network?); continuing with what is installed" >&2
      browser=0  # no point asking apt again
    fi
  fi
fi
[[ ${#missing[@]} -gt 0 ]] && echo "bootstrap: warning: not found: ${missing[*]} (configure may fail)" >&2
# Optional, and in its own apt-get call so a system without the package (Ubuntu ships Chromium as a
# snap) still gets the required ones above.
if [[ $browser -eq 1 && $install -eq 1 ]] && ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null \
   && command -v apt-get >/dev/null; then
  sudo=""; [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null && sudo=sudo
  echo "bootstrap: installing chromium (the report's browser test; --no-browser skips it)"
  $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium ||
    echo "bootstrap: chromium not installed; ctest report_browser will be skipped" >&2
fi

if [[ -z "$cuda_root" ]]; then
  if command -v nvcc >/dev/null; then cuda_root=$(dirname "$(dirname "$(command -v nvcc)")"); else cuda_root=/usr/local/cuda; fi
fi
[[ -x "$cuda_root/bin/nvcc" ]] || { echo "bootstrap: no nvcc under $cuda_root (set --cuda-root)" >&2; exit 3; }

args=(-S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$cuda_root/bin/nvcc"
      -DCUDAToolkit_ROOT="$cuda_root")
command -v ninja >/dev/null && args+=(-G Ninja)
# nvcc 12.x refuses newer GCCs (12.0-12.3: <= 12, 12.4-12.7: <= 13, 12.8+: <= 14). Where the
# default g++ is too new and a versioned one fits, use it (unless -DCMAKE_CUDA_HOST_COMPILER is given).
nvcc_ver=$("$cuda_root/bin/nvcc" --version | sed -n 's/.*release \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
read -r nv_major nv_minor <<< "$nvcc_ver"
if [[ "$nv_major" == 12 && " ${extra[*]} " != *" -DCMAKE_CUDA_HOST_COMPILER="* ]]; then
  max_gcc=12; [[ $nv_minor -ge 4 ]] && max_gcc=13; [[ $nv_minor -ge 8 ]] && max_gcc=14
  if command -v g++ >/dev/null && [[ $(g++ -dumpversion | cut -d. -f1) -gt $max_gcc ]]; then
    for ((v = max_gcc; v >= 9; v--)); do
      if command -v "g++-$v" >/dev/null; then
        echo "bootstrap: nvcc $nv_major.$nv_minor needs GCC <= $max_gcc; using g++-$v as its host compiler"
        args+=(-DCMAKE_CUDA_HOST_COMPILER="$(command -v "g++-$v")"); break
      fi
    done
  fi
fi
[[ -n "$arch" ]] && args+=(-DCMAKE_CUDA_ARCHITECTURES="$arch")
if command -v ccache >/dev/null; then
  args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
cmake "${args[@]}" "${extra[@]}"
cmake --build "$build_dir" -j "$(nproc)"
echo "bootstrap: built $build_dir/cudabench"
