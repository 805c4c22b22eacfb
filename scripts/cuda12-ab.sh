#!/usr/bin/env bash
# usage: scripts/cuda12-ab.sh unpack FOLDER...   (GPU box) unpack carried cu12-libs.sh folders
#        scripts/cuda12-ab.sh build13            (GPU box) build cudabench with the box's CUDA 13 from a
#                                                 copy of the tree in $DEST/src (each device call
#                                                 rewrites the checkout), under setsid (returns at
#                                                 once; log in $DEST/build13.log)
#        scripts/cuda12-ab.sh check              (GPU box) what each of the three builds loads
#        scripts/cuda12-ab.sh start [AB-ARG...]  (GPU box) check, then the three-way `cudabench ab`
#                                                 under setsid (returns at once)
#        scripts/cuda12-ab.sh wait [SECONDS]     (GPU box) wait for `start`'s ab (at most SECONDS,
#                                                 default 540), then pack what it measured into $OUT
#        scripts/cuda12-ab.sh run [AB-ARG...]    check + ab in the foreground, for a box without limits
#   The CUDA 12.1 vs 12.4 vs 13.0 table on one GPU. Three builds, interleaved by `cudabench ab`
#   (rounds A B C, C B A, ...; each run a fresh process):
#     A "nvcc 12.4 + CUDA 12.1 libraries": build-cu124's cudabench, LD_LIBRARY_PATH=$DEST/12.1/lib
#     B "nvcc 12.4 + CUDA 12.4 libraries": the same binary,          LD_LIBRARY_PATH=$DEST/12.4/lib
#     C "CUDA 13.0": $DEST/src/build/cudabench ($CU12_BIN13), built on the box by `build13`
#   DEST (default /tmp/cu12; $CU12_DEST) holds what scripts/cu12-libs.sh unpacked: 12.1/lib,
#   12.4/lib and bin-build-cu124/ (pack-bin of scripts/build-cu124.sh's build). With cuDNN for
#   CUDA 12 there too (cudnn12/lib from `cu12-libs.sh pack cudnn12`, and bin-build-cu124-cudnn/
#   from a build-cu124.sh --cudnn build), A and B use that binary with cudnn12/lib on their path,
#   so the ResNet-50 rows are measured in every column instead of `unsupported`.
#   `check` runs each build's `env --json` and fails unless A loads cudart 12.1 + cuBLAS 12.1.x,
#   B cudart 12.4 + cuBLAS 12.4.x and C a CUDA 13 runtime, each from the expected directory, and
#   unless the 12.4-built binary finds every CUDA symbol it imports in both library sets.
#   AB-ARGs go to `cudabench ab` after --suite full --rounds $CU12_ROUNDS (default 3), e.g.
#   `--filter 'matmul/*'`. Results: $DEST/ab (A.json B.json C.json compare.md
#   compare.json rounds/), the log $DEST/ab.log with every command; `wait` copies them to $OUT as
#   cuda12-ab.tar.gz plus compare.md and ab.log (partial results too, if the time ran out: the
#   per-side files are rewritten after every round).
#   Exit status: 0 done/passed, 1 a check or the run failed, 2 usage, 3 still running (`wait`).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
log() { echo "cuda12-ab: $*" >&2; }
dest=${CU12_DEST:-/tmp/cu12}
bin12=$dest/bin-build-cu124
cudnn12=""
if [[ -d $dest/cudnn12/lib && -x $dest/bin-build-cu124-cudnn/cudabench ]]; then
  bin12=$dest/bin-build-cu124-cudnn
  cudnn12=$dest/cudnn12/lib
fi
bin13=${CU12_BIN13:-$dest/src/build/cudabench}
labels="nvcc 12.4 + CUDA 12.1 libraries,nvcc 12.4 + CUDA 12.4 libraries,CUDA 13.0"
side_cmd() {  # side_cmd 12.1|12.4|13.0: the command line ab runs for that build
  case $1 in
    13.0) echo "$bin13" ;;
    *) echo "env LD_LIBRARY_PATH=$dest/$1/lib${cudnn12:+:$cudnn12}:$bin12 $bin12/cudabench" ;;
  esac
}

# env_fields FIELD...: those fields of the `env --json` on stdin ("environment": what the process
# loaded), one line each, empty where missing or where the output is not JSON.
env_fields() {
  python3 -c '
import json, sys
try: e = json.load(sys.stdin)["environment"]
except (ValueError, KeyError, TypeError): e = {}
for f in sys.argv[1:]: print(e.get(f) or "")' "$@"
}

check_side() {  # check_side VERSION: the build loads that CUDA release's runtime and cuBLAS
  local v=$1 out rt cb lib cudnn cudnn_lib want_dir
  # shellcheck disable=SC2046
  out=$($(side_cmd "$v") env --json) || { log "check $v: \`env --json\` failed"; return 1; }
  { read -r rt; read -r cb; read -r lib; read -r cudnn; read -r cudnn_lib; } < <(
    env_fields cuda_runtime cublas cublas_library cudnn cudnn_library <<< "$out")
  echo "check $v: cuda_runtime=$rt cublas=$cb cublas_library=$lib cudnn=$cudnn"
  case $v in
    13.0) [[ $rt == 13.* && $cb == 13.* ]] || { log "check 13.0: expected a CUDA 13 runtime and cuBLAS"; return 1; } ;;
    *)
      want_dir=$dest/$v/lib
      [[ $rt == "$v" || $rt == "$v".* ]] || { log "check $v: cuda_runtime is $rt, not $v"; return 1; }
      [[ $cb == "$v".* ]] || { log "check $v: cuBLAS is $cb, not $v.x"; return 1; }
      [[ $lib == "$want_dir"/* ]] || { log "check $v: cuBLAS came from $lib, not $want_dir"; return 1; }
      if [[ -n $cudnn12 ]]; then
        [[ $cudnn_lib == "$cudnn12"/* ]] || { log "check $v: cuDNN came from $cudnn_lib, not $cudnn12"; return 1; }
      fi
      if command -v nm >/dev/null; then scripts/cu12-libs.sh symbols "$bin12/cudabench" "$want_dir"
      else log "check $v: no nm here, the symbol check is skipped (env loaded the libraries)"; fi ;;
  esac
}

check() {
  [[ -x $bin12/cudabench ]] || { log "no $bin12/cudabench (carry pack-bin's bin-build-cu124 and unpack it)"; return 1; }
  [[ -x $bin13 ]] || { log "no $bin13 (scripts/cuda12-ab.sh build13; log $dest/build13.log)"; return 1; }
  local v rc=0
  if [[ -n $cudnn12 ]] && ! compgen -G "$cudnn12/libcudnn_cnn.so.9.*" >/dev/null; then
    # libcudnn.so.9 dlopens libcudnn_cnn.so.9.X.Y first: without that name here the box's own cuDNN
    # (CUDA 13) would serve it. `cu12-libs.sh pack cudnn12` makes the links.
    log "$cudnn12 has no versioned libcudnn_*.so.9.X.Y names (repack with cu12-libs.sh pack cudnn12)"; rc=1
  fi
  for v in 12.1 12.4 13.0; do check_side "$v" || rc=1; done
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu \
    --format=csv 2>/dev/null || true
  return $rc
}

ab_command() {  # the whole `cudabench ab` argv, one word per line
  printf '%s\n' "$bin13" ab "$(side_cmd 12.1)" "$(side_cmd 12.4)" "$(side_cmd 13.0)" \
    --suite full --rounds "${CU12_ROUNDS:-3}" --labels "$labels" -o "$dest/ab" --format markdown "$@"
}

run_ab() {  # the ab itself, with its log (what ran, on what, and for how long)
  local t0=$SECONDS rc=0 cmd=()
  mapfile -t cmd < <(ab_command "$@")
  {
    # The commit the binaries were built from (a GPU box's copy of the tree may carry another .git).
    local commit; commit=$("$bin13" env --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["build"]["git_commit"])' 2>/dev/null) || commit=unknown
    echo "# $(date -u +%FT%TZ) on $(hostname), build/git_commit of $bin13: $commit"
    echo "# libraries:"; cat "$dest"/12.1/lib/SHA256SUMS "$dest"/12.4/lib/SHA256SUMS 2>/dev/null | sed 's/^/#   /'
    printf '# command:'; printf " '%s'" "${cmd[@]}"; echo
  } > "$dest/ab.log"
  rm -rf "$dest/ab"
  "${cmd[@]}" >> "$dest/ab.log" 2>&1 || rc=$?
  echo "# ab exit status $rc after $((SECONDS - t0)) s" >> "$dest/ab.log"
  echo "$rc" > "$dest/ab.rc"
  return $rc
}

pack_out() {  # what has been measured so far, into $OUT (at most 8 files come back)
  local out=${OUT:-$repo/build/cuda12-out}
  mkdir -p "$out"
  [[ -f $dest/ab.log ]] && cp "$dest/ab.log" "$out/"
  [[ -f $dest/ab/compare.md ]] && cp "$dest/ab/compare.md" "$out/"
  [[ -f $dest/build13.log ]] && cp "$dest/build13.log" "$out/"
  [[ -d $dest/ab ]] && tar -czf "$out/cuda12-ab.tar.gz" -C "$dest" ab
  log "results in $out: $(ls "$out" | tr '\n' ' ')"
}

cmd=${1:-}
[[ $# -gt 0 ]] && shift
case $cmd in
  unpack)
    [[ $# -ge 1 ]] || { usage >&2; exit 2; }
    for f in "$@"; do scripts/cu12-libs.sh unpack "$f" "$dest"; done ;;
  build13)
    rm -rf "$dest/src"; mkdir -p "$dest/src"
    tar -c --exclude='./build*' --exclude=./.carry --exclude=./.git . | tar -x -C "$dest/src"
    cd "$dest/src"
    # Tests are not needed for the table; the commit comes from the caller (no .git on the box).
    setsid bash -c "cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DCUDABENCH_BUILD_TESTS=OFF && cmake --build build --target cudabench; echo \"build13 exit \$?\"" \
      > "$dest/build13.log" 2>&1 < /dev/null &
    log "building build/cudabench in the background (log: $dest/build13.log)" ;;
  check) check ;;
  start)
    check || { log "check failed: not starting the ab"; exit 1; }
    rm -f "$dest/ab.rc"
    export -f run_ab ab_command side_cmd
    export dest bin12 bin13 labels cudnn12
    setsid bash -c 'run_ab "$@"' run_ab "$@" < /dev/null > /dev/null 2>&1 &
    echo $! > "$dest/ab.pid"
    log "ab started (pid $(cat "$dest/ab.pid")); log: $dest/ab.log" ;;
  wait)
    limit=${1:-540}; t0=$SECONDS
    while [[ ! -f $dest/ab.rc && $((SECONDS - t0)) -lt $limit ]]; do sleep 5; done
    grep -E '^=== ab run' "$dest/ab.log" | tail -1 || true
    pack_out
    if [[ -f $dest/ab.rc ]]; then
      tail -n 80 "$dest/ab.log"
      exit "$(cat "$dest/ab.rc")"
    fi
    log "ab still running after ${limit} s"; exit 3 ;;
  run)
    check || { log "check failed: not running the ab"; exit 1; }
    rc=0; run_ab "$@" || rc=$?; pack_out; tail -n 80 "$dest/ab.log"; exit $rc ;;
  -h|--help) usage ;;
  *) usage >&2; exit 2 ;;
esac
