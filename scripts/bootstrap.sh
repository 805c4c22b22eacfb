#!/usr/bin/env bash
# Set up and build cudabench in one step.
#   scripts/bootstrap.sh [--build-dir DIR] [--arch "90"] [--cuda-root DIR] [--no-install] [--no-browser]
#                        [--no-slurm] [-DVAR=VALUE ...]
#     --build-dir DIR  where to build (default: build/ in the checkout)
#     --arch LIST      CUDA architectures, e.g. "90" or "80;90" (default: 80, 86, 89, 90 + PTX)
#     --cuda-root DIR  the CUDA toolkit to build with (default: the nvcc on PATH, else /usr/local/cuda)
#     --no-install     do not apt-get missing build dependencies
#     --no-browser     do not install Chromium (the report's browser test, ctest report_browser, is
#                      then skipped)
#     --no-slurm       do not install the Slurm and munge daemons (~10 MB; the fleet job-array test,
#                      ctest slurm_fleet_job_array, runs a real single-host Slurm and fails without)
#     -DVAR=VALUE      passed on to cmake
# Installs missing build dependencies with apt-get where apt works (root or sudo, and a reachable
# mirror); where it does not -- a GPU box with no network -- it uses what is already installed and
# says what is missing. Then configures (Release, Ninja if present) and builds. Relative paths are
# the caller's. Exit codes: 0 built, 2 bad arguments, 3 no nvcc, else the failing command's.
set -euo pipefail
caller_dir=$(pwd)
cd "$(dirname "$0")/.."

# The usage is the comment block at the top of this file.
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
die_usage() { echo "bootstrap: $1" >&2; usage >&2; exit 2; }
need() { [[ $# -ge 2 && -n "$2" && "$2" != -* ]] || die_usage "$1 needs a value"; }
abs() { [[ -z "$1" || "$1" = /* ]] && printf '%s' "$1" || printf '%s/%s' "$caller_dir" "$1"; }

build_dir=build
arch=""
cuda_root="${CUDA_ROOT:-}"
install=1
browser=1
slurm=1
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) need "$@"; build_dir=$(abs "$2"); shift 2 ;;
    --arch) need "$@"; arch="$2"; shift 2 ;;
    --cuda-root) need "$@"; cuda_root=$(abs "$2"); shift 2 ;;
    --no-install) install=0; shift ;;
    --no-browser) browser=0; shift ;;
    --no-slurm) slurm=0; shift ;;
    -D?*) extra+=("$1"); shift ;;
    -h|--help) usage; exit 0 ;;
    *) die_usage "unknown argument '$1'" ;;
  esac
done
cuda_root=$(abs "$cuda_root")

have_header() { for d in /usr/include /usr/local/include; do [[ -e "$d/$1" ]] && return 0; done; return 1; }
missing=()
have_header CLI/CLI.hpp || missing+=(libcli11-dev)
have_header nlohmann/json.hpp || missing+=(nlohmann-json3-dev)
have_header fmt/core.h || missing+=(libfmt-dev)
have_header gtest/gtest.h || missing+=(libgtest-dev)
have_header sqlite3.h || missing+=(libsqlite3-dev)
have_header openssl/evp.h || missing+=(libssl-dev)
command -v cmake >/dev/null || missing+=(cmake)
command -v ninja >/dev/null || missing+=(ninja-build)
# Not needed to build: scripts/check-format.sh (run by CI) formats with it.
command -v clang-format-14 >/dev/null || command -v clang-format >/dev/null || missing+=(clang-format)
if [[ ${#missing[@]} -gt 0 && $install -eq 1 ]]; then
  sudo=""; [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null && sudo=sudo
  if command -v apt-get >/dev/null; then
    echo "bootstrap: installing ${missing[*]}"
    if $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; then
      missing=()
    else
      echo "bootstrap: apt-get failed (no network?); continuing with what is installed" >&2
      browser=0 slurm=0  # no point asking apt again
    fi
  fi
fi
if [[ " ${missing[*]} " == *" clang-format "* ]]; then
  echo "bootstrap: warning: clang-format not found; scripts/check-format.sh cannot run (the build does not need it)" >&2
  rest=(); for m in "${missing[@]}"; do [[ "$m" == clang-format ]] || rest+=("$m"); done
  missing=("${rest[@]}")
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
# Optional too: the daemons for the Slurm test; local-slurm.sh says when they are already there.
if [[ $slurm -eq 1 && $install -eq 1 ]] && command -v apt-get >/dev/null; then
  scripts/slurm/local-slurm.sh install ||
    echo "bootstrap: Slurm not installed; ctest slurm_fleet_job_array will fail (--no-slurm skips this)" >&2
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
