#!/usr/bin/env bash
# usage: scripts/toolkit-from-debian.sh VERSION DIR [--deb-dir DEBS] [--suite SUITE] [--check]
#   Assemble a complete CUDA toolkit root (nvcc, cicc, ptxas, headers, cudart, cuBLAS, cuBLASLt)
#   in DIR from Debian's non-free packages, without touching the machine's apt setup or dpkg.
#   VERSION        12.4 (the only CUDA 12.x release Debian ships with a full nvcc)
#   DIR            the toolkit root to create, e.g. /work/toolkits/cuda-12.4 (keep it out of the repo)
#   --deb-dir DEBS where the .debs and the private apt state are kept (default: DIR/../debs-VERSION);
#                  when it already holds every package, nothing is downloaded
#   --suite SUITE  the Debian suite to download from (default: trixie)
#   --check        afterwards compile and link a probe .cu against DIR's cuBLAS and check that it
#                  needs only CUDA VERSION libraries
#   Rerunning is cheap: DIR is rebuilt only when the set of .debs changed.
#   Host compiler: nvcc 12.4 accepts GCC <= 13; the check uses g++-12 or g++-13 when present.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

version=""; dest=""; deb_dir=""; suite=trixie; check=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --deb-dir) deb_dir="$2"; shift 2 ;;
    --suite) suite="$2"; shift 2 ;;
    --check) check=1; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "toolkit-from-debian: unknown option '$1' (try --help)" >&2; exit 2 ;;
    *) if [[ -z "$version" ]]; then version="$1"; elif [[ -z "$dest" ]]; then dest="$1"; else
         echo "toolkit-from-debian: unexpected argument '$1'" >&2; exit 2; fi; shift ;;
  esac
done
[[ -n "$version" && -n "$dest" ]] || { usage >&2; exit 2; }

# Packages and the upstream version each must carry. The -dev package holds headers, the .so
# links and static cudart; the lib* packages hold the real shared objects (without them CMake
# silently finds the machine's own, possibly newer, CUDA libraries). libcu++ is needed by
# cuda_fp16.h (<nv/target>); cub and thrust complete CCCL as a real toolkit has it.
case "$version" in
  12.4) want=12.4; full=12.4.1
        packages=(nvidia-cuda-toolkit nvidia-cuda-dev libcudart12 libcublas12 libcublaslt12 libnvvm4
                  libcu++-dev libcub-dev libthrust-dev) ;;
  *) echo "toolkit-from-debian: unsupported version '$version' (known: 12.4; Debian has no other 12.x nvcc)" >&2; exit 2 ;;
esac
mkdir -p "$dest"; dest="$(cd "$dest" && pwd)"
[[ -n "$deb_dir" ]] || deb_dir="$(dirname "$dest")/debs-$version"
mkdir -p "$deb_dir"; deb_dir="$(cd "$deb_dir" && pwd)"
log() { echo "toolkit-from-debian: $*" >&2; }

# shellcheck source=lib/private-apt.sh
source "$repo/scripts/lib/private-apt.sh"
find_deb() { private_apt_find "$deb_dir" "$1"; }
private_apt_fetch "$deb_dir" "$suite" "$want" "${packages[@]}"
debs=(); for p in "${packages[@]}"; do debs+=("$(find_deb "$p")"); done
stamp="$(for d in "${debs[@]}"; do basename "$d"; done)"

# ---- assemble DIR (skipped when it was built from the same .debs) -------------------------------
if [[ "$(cat "$dest/.from-debian" 2>/dev/null)" == "$stamp" && -x "$dest/bin/nvcc" ]]; then
  log "$dest is up to date"
else
  stage="$(mktemp -d "$deb_dir/stage.XXXXXX")"
  trap 'rm -rf "$stage"' EXIT
  for d in "${debs[@]}"; do
    # Static archives of libraries cudabench does not use are ~2.5 GB: left out.
    dpkg-deb --fsys-tarfile "$d" | tar -x -C "$stage" --wildcards \
      --exclude='*/libcu[bfsr]*_static*.a' --exclude='*/libnpp*_static.a' --exclude='*/libnv*_static.a' \
      --exclude='*/libmetis_static.a' --exclude='./usr/share/*'
  done
  u="$stage/usr"; tk="$u/lib/nvidia-cuda-toolkit"
  rm -rf "${dest:?}"/{bin,nvvm,include,lib64,targets,version.json,version.txt,.from-debian}
  mkdir -p "$dest"/{bin,nvvm/bin,nvvm/lib64,nvvm/include,lib64}
  # /usr/bin/nvcc is a wrapper script; the real driver lives in nvidia-cuda-toolkit/bin with cicc.
  cp -a "$tk/bin/nvcc" "$tk/bin/crt" "$dest/bin/"
  for t in ptxas fatbinary nvlink cudafe++ cuobjdump nvdisasm nvprune bin2c cu++filt __nvcc_device_query; do
    [[ -e "$u/bin/$t" ]] && cp -a "$u/bin/$t" "$dest/bin/"
  done
  cp -a "$tk/bin/cicc" "$dest/nvvm/bin/"
  cp -a "$tk/libdevice" "$dest/nvvm/libdevice"
  cp -a "$u/include/." "$dest/include/"
  mv "$dest/include/nvvm.h" "$dest/nvvm/include/" 2>/dev/null || true
  cp -a "$u/lib/x86_64-linux-gnu/." "$dest/lib64/"
  mv "$dest/lib64"/libnvvm.so* "$dest/nvvm/lib64/"
  # Links of the -dev package to libraries whose runtime package was not fetched (cuFFT, NPP, ...).
  find "$dest/lib64" -xtype l -delete
  mkdir -p "$dest/targets/x86_64-linux"
  ln -s ../../include "$dest/targets/x86_64-linux/include"
  ln -s ../../lib64 "$dest/targets/x86_64-linux/lib"
  # Debian's nvcc.profile is a link to /etc/nvcc.profile with absolute /usr paths; this one keeps
  # every lookup inside DIR, so a CUDA installed elsewhere on the machine is never picked up.
  cat > "$dest/bin/nvcc.profile" <<'PROFILE'
TOP = $(_HERE_)/..
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
LD_LIBRARY_PATH += $(TOP)/lib64:
PATH += $(TOP)/nvvm/bin:$(_HERE_):
INCLUDES += "-I$(TOP)/include" $(_SPACE_)
LIBRARIES =+ $(_SPACE_) "-L$(TOP)/lib64/stubs" "-L$(TOP)/lib64"
CUDAFE_FLAGS +=
PTXAS_FLAGS +=
PROFILE
  nvcc_ver=$("$dest/bin/nvcc" --version | sed -n 's/.*, V\([0-9.]*\).*/\1/p')
  [[ "$nvcc_ver" == "$want".* ]] || { log "nvcc in $dest reports '$nvcc_ver', not $want"; exit 4; }
  pkgver() { dpkg-deb -f "$(find_deb "$1")" Version | sed 's/~.*//'; }
  echo "CUDA Version $full" > "$dest/version.txt"
  cat > "$dest/version.json" <<JSON
{
  "cuda": { "name": "CUDA SDK (assembled from Debian packages, suite $suite)", "version": "$full" },
  "cuda_nvcc": { "name": "CUDA NVCC", "version": "$nvcc_ver" },
  "cuda_cudart": { "name": "CUDA Runtime (cudart)", "version": "$(pkgver libcudart12)" },
  "libcublas": { "name": "CUDA cuBLAS", "version": "$(pkgver libcublas12)" }
}
JSON
  echo "$stamp" > "$dest/.from-debian"
  rm -rf "$stage"; trap - EXIT
  log "CUDA $full (nvcc $nvcc_ver, cudart $(pkgver libcudart12), cuBLAS $(pkgver libcublas12)) assembled in $dest"
fi

[[ $check -eq 1 ]] || exit 0

# ---- --check: a kernel plus a cuBLAS call, linked against DIR only -------------------------------
host=""
for c in g++-13 g++-12 g++; do
  if command -v "$c" >/dev/null && [[ $("$c" -dumpversion | cut -d. -f1) -le 13 ]]; then host=$(command -v "$c"); break; fi
done
[[ -n "$host" ]] || { log "--check: no GCC <= 13 found (nvcc $version needs one; apt-get install g++-12)"; exit 4; }
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
cat > "$work/probe.cu" <<'CU'
// One kernel and one cuBLAS call; prints the versions it was compiled against and linked to.
#include <cstdio>
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
__global__ void scale(__half* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = __hmul(x[i], __float2half(2.0f));
}
int main() {
  int rt = 0, major = 0;
  cudaRuntimeGetVersion(&rt);
  cublasGetProperty(MAJOR_VERSION, &major);
  std::printf("nvcc %d.%d, CUDART_VERSION %d, runtime %d, cuBLAS headers %d, cuBLASLt %zu\n", __CUDACC_VER_MAJOR__,
              __CUDACC_VER_MINOR__, CUDART_VERSION, rt, CUBLAS_VERSION, cublasLtGetVersion());
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) { std::printf("(no GPU: cublasCreate failed, as expected)\n"); return 0; }
  scale<<<1, 32>>>(nullptr, 0);
  cublasDestroy(h);
  return 0;
}
CU
log "--check: nvcc -ccbin $host -arch=sm_90 probe.cu -lcublas -lcublasLt"
"$dest/bin/nvcc" -ccbin "$host" -arch=sm_90 -cudart shared -o "$work/probe" "$work/probe.cu" -lcublas -lcublasLt
needed=$(readelf -d "$work/probe" | sed -n 's/.*NEEDED.*\[\(lib\(cudart\|cublas\|cublasLt\|cudnn\)\.so\.[0-9]*\)\].*/\1/p' | sort | tr '\n' ' ')
echo "probe needs: $needed" >&2
bad=$(echo "$needed" | tr ' ' '\n' | grep -E '\.so\.[0-9]+$' | grep -vE "\.so\.${version%%.*}$" || true)
[[ -z "$bad" ]] || { log "--check FAILED: the probe needs $bad, not CUDA ${version%%.*} libraries"; exit 5; }
LD_LIBRARY_PATH="$dest/lib64" ldd "$work/probe" | grep -E 'libcu(dart|blas)' >&2
LD_LIBRARY_PATH="$dest/lib64" "$work/probe" >&2
log "--check passed: $dest compiles and links CUDA $version with cuBLAS"
