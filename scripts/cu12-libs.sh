#!/usr/bin/env bash
# usage: scripts/cu12-libs.sh pack VERSION OUTDIR [--cache DIR] [--chunk-mib N]
#        scripts/cu12-libs.sh pack-bin BUILD_DIR OUTDIR
#        scripts/cu12-libs.sh unpack CHUNKDIR DEST
#        scripts/cu12-libs.sh symbols BINARY LIBDIR
#   Carries the CUDA 12.x runtime libraries (libcudart.so.12, libcublas.so.12, libcublasLt.so.12)
#   to a machine that has no network and takes at most 64 MiB of files per call.
#   pack (here, with network): VERSION 12.4 = cudart 12.4.127 + cuBLAS 12.4.5.8 from Debian's
#     packages (suite trixie); VERSION 12.1 = cudart 12.1.105 + cuBLAS 12.1.3.1 from NVIDIA's pip
#     wheels; VERSION cudnn12 = cuDNN 9.14.0 for CUDA 12 (the nvidia-cudnn-cu12 wheel; the release
#     a GPU box's CUDA 13 cuDNN has) without libcudnn_adv (RNN/attention: no workload loads it),
#     so ResNet-50 runs in a 12.x build (a build-cu124.sh build with -DCUDNN_ROOT links it).
#     The libraries go into one tar.xz (xz -9e), split into the fewest equal chunks of at most
#     N MiB (default 48), each chunk in its own folder OUTDIR/VERSION-partK/ with a copy of the
#     sha256 manifest. Downloads and the compressed archive are cached in --cache (default
#     ~/.cache/cudabench): only a change of the packages redoes the (minutes long) compression.
#   pack-bin (here): OUTDIR/bin-NAME/ (NAME: BUILD_DIR's folder name) with BUILD_DIR/cudabench and
#     the libfmt it links (a GPU box may have another soname) as one tar.xz plus its sha256;
#     small enough to ride beside a chunk (`unpack` puts it in DEST/bin-NAME).
#   unpack (there): copies the chunk in CHUNKDIR to DEST/.parts-VERSION/ and checks its sha256;
#     once every chunk of VERSION is there, checks the whole archive, unpacks it into
#     DEST/VERSION/lib, checks each library's sha256, deletes the chunks and prints the
#     LD_LIBRARY_PATH to use. Needs bash, coreutils, tar and xz only.
#   symbols: lists the cudart/cuBLAS/cuBLASLt symbols BINARY imports that LIBDIR's libraries lack
#     (exit 1 if any): whether a build made with one 12.x release loads another's libraries.
#
#   Driving it on the GPU box (files outside the repo last only while the box stays warm, about
#   30 s between calls, so the calls go back to back; OUTDIR must be a git-ignored folder in the
#   checkout that makes the calls, e.g. .carry/cu12; the 64 MiB per call also counts the checkout:
#   on an H200 box, 53.6 MiB chunks went through and 55.5 MiB ones were refused, hence 48).
#   Measured: 12.4 = 208 MiB of xz from 527 MiB, 12.1 = 215 MiB from 595 MiB, cudnn12 = 278 MiB
#   from 673 MiB (6 chunks of 46 MiB), the binary 2.4 MiB; xz -9e took 5-8 minutes each on 2 cores
#   (cached after the first pack; a new --chunk-mib only re-splits).
#     here:  scripts/cu12-libs.sh pack 12.4 .carry/cu12 && scripts/cu12-libs.sh pack 12.1 .carry/cu12
#     there, one call per chunk, carry=[".carry/cu12/12.4-part1"]:
#            scripts/cu12-libs.sh unpack .carry/cu12/12.4-part1 /tmp/cu12
#     ... the same for 12.4-part2 ... and every 12.1-partK; the call that brings a version's last
#     chunk prints LD_LIBRARY_PATH=/tmp/cu12/VERSION/lib. The binary: pack-bin build-cu124
#     .carry/cu12 here, then carry=[".carry/cu12/bin-build-cu124"] with any chunk call whose chunk
#     leaves room (64 MiB in all), and `unpack .carry/cu12/bin-build-cu124 /tmp/cu12`. Then:
#            LD_LIBRARY_PATH=/tmp/cu12/12.4/lib:/tmp/cu12/bin-build-cu124 /tmp/cu12/bin-build-cu124/cudabench env
#     (run from the repo root, where configs/ is; `env` shows cuda_runtime and cublas_library:
#     the libraries actually loaded).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
log() { echo "cu12-libs: $*" >&2; }
libs=(libcudart.so.12 libcublas.so.12 libcublasLt.so.12)
cudnn_libs=(libcudnn.so.9 libcudnn_graph.so.9 libcudnn_ops.so.9 libcudnn_cnn.so.9 libcudnn_heuristic.so.9
            libcudnn_engines_precompiled.so.9 libcudnn_engines_runtime_compiled.so.9)
cudnn_wheel=nvidia-cudnn-cu12==9.14.0.64

# cached_wheel DIR NAME==VERSION PLATFORM: the wheel's path in DIR, downloaded (no deps) if missing.
cached_wheel() {
  local dir=$1 spec=$2 platform=$3 name w
  name="${spec%%==*}"
  mkdir -p "$dir"
  w=$(find "$dir/" -maxdepth 1 -name "${name//-/_}-${spec#*==}-*.whl" | head -1)
  if [[ -z "$w" ]]; then
    log "pip download $spec"
    pip download --quiet --no-deps --only-binary=:all: --platform "$platform" --python-version 3.12 \
      -d "$dir" "$spec" >&2
    w=$(find "$dir/" -maxdepth 1 -name "${name//-/_}-${spec#*==}-*.whl" | head -1)
  fi
  [[ -n "$w" ]] || { log "pack: no wheel for $spec in $dir"; exit 3; }
  echo "$w"
}

pack() {
  local version=$1 outdir=$2; shift 2
  local cache="${XDG_CACHE_HOME:-$HOME/.cache}/cudabench" chunk_mib=48
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --cache) cache="$2"; shift 2 ;;
      --chunk-mib) chunk_mib="$2"; shift 2 ;;
      *) log "pack: unexpected argument '$1'"; exit 2 ;;
    esac
  done
  mkdir -p "$outdir" "$cache"
  outdir="$(cd "$outdir" && pwd)"; cache="$(cd "$cache" && pwd)"
  stage="$(mktemp -d)"  # global: the EXIT trap runs after pack returns
  trap 'rm -rf "$stage"' EXIT
  local inputs=() p d spec ver w
  # 1. the packages (downloaded once, kept in the cache)
  local files=("${libs[@]}")
  case "$version" in
    cudnn12)
      files=("${cudnn_libs[@]}")
      ver="${cudnn_wheel#*==}"
      inputs+=("$(cached_wheel "$cache/wheels-cudnn12" "$cudnn_wheel" manylinux_2_27_x86_64)") ;;
    12.4)
      # shellcheck source=lib/private-apt.sh
      source "$repo/scripts/lib/private-apt.sh"
      mkdir -p "$cache/debs-12.4"
      private_apt_fetch "$cache/debs-12.4" trixie 12.4 libcudart12 libcublas12 libcublaslt12
      for p in libcudart12 libcublas12 libcublaslt12; do inputs+=("$(private_apt_find "$cache/debs-12.4" "$p")"); done ;;
    12.1)
      for spec in nvidia-cuda-runtime-cu12==12.1.105 nvidia-cublas-cu12==12.1.3.1; do
        inputs+=("$(cached_wheel "$cache/wheels-12.1" "$spec" manylinux2014_x86_64)")
      done ;;
    *) log "pack: unknown VERSION '$version' (known: 12.4, 12.1, cudnn12)"; exit 2 ;;
  esac
  # 2. the compressed archive (minutes of xz -9e): cached, redone only when the packages change
  local archive="cu12-libs-$version.tar.xz" stamp
  local xz_opts="${CU12_LIBS_XZ:--9e}"  # CU12_LIBS_XZ=-0 makes a quick test pack
  stamp="$(for f in "${inputs[@]}"; do basename "$f"; done; echo "xz $xz_opts"
           [[ "$version" != cudnn12 ]] || echo "versioned links")"
  if [[ -f "$cache/$archive" && "$(cat "$cache/$archive.inputs" 2>/dev/null)" == "$stamp" ]]; then
    log "$version: reusing $cache/$archive"
  else
    mkdir -p "$stage/x" "$stage/lib"
    local l
    if [[ "$version" == 12.4 ]]; then
      for d in "${inputs[@]}"; do
        dpkg-deb --fsys-tarfile "$d" | tar -x -C "$stage/x" --wildcards './usr/lib/x86_64-linux-gnu/lib*.so*'
      done
      for l in "${files[@]}"; do cp -L "$stage/x/usr/lib/x86_64-linux-gnu/$l" "$stage/lib/$l"; done
    else
      for w in "${inputs[@]}"; do unzip -q -o "$w" 'nvidia/*/lib/lib*.so.*' -d "$stage/x"; done
      for l in "${files[@]}"; do cp -L "$stage"/x/nvidia/*/lib/"$l" "$stage/lib/$l"; done
    fi
    (cd "$stage/lib" && { for f in "${inputs[@]}"; do echo "# from $(basename "$f")"; done
                          sha256sum "${files[@]}"; } > SHA256SUMS)
    if [[ "$version" == cudnn12 ]]; then
      # libcudnn.so.9 dlopens its sub-libraries by their full version name first (.so.9.14.0) and
      # only then by .so.9, which is all the wheel ships: without these links a box's own cuDNN of
      # that release (built for CUDA 13) serves them, and loads libcublasLt.so.13 (seen on an H200).
      local full; full=$(echo "$ver" | cut -d. -f1-3)
      for l in "${files[@]}"; do ln -s "$l" "$stage/lib/$l.${full#*.}"; done
    fi
    local t0=$SECONDS
    # Fixed names, owners and times: the same inputs give the same tar stream.
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$stage" -cf - lib |
      xz $xz_opts --threads=0 > "$stage/$archive"
    log "$version: $(du -m "$stage/lib" | cut -f1) MiB of libraries -> $(du -m "$stage/$archive" | cut -f1) MiB $archive in $((SECONDS - t0)) s"
    mv "$stage/$archive" "$cache/$archive"
    echo "$stamp" > "$cache/$archive.inputs"
  fi
  # 3. the chunks: as few as the limit allows, of equal size, so the room left in each call fits
  #    the binary (pack-bin) whichever chunk it rides with
  local size count per i f
  size=$(stat -c %s "$cache/$archive")
  count=$(( (size + chunk_mib * 1048576 - 1) / (chunk_mib * 1048576) ))
  per=$(( (size + count - 1) / count ))
  mkdir -p "$stage/split"
  (cd "$stage/split" && split -b "$per" -d -a 2 "$cache/$archive" "$archive.part")
  # Parts are named .part1 .. .partN (no leading zeros) so a manifest line says its number.
  (cd "$stage/split" && for f in "$archive".part*; do mv "$f" "$archive.p$((10#${f##*.part} + 1))"; done
   for ((i = 1; i <= count; i++)); do mv "$archive.p$i" "$archive.part$i"; done
   { for ((i = 1; i <= count; i++)); do sha256sum "$archive.part$i"; done
     (cd "$cache" && sha256sum "$archive"); } > manifest.sha256)
  rm -rf "$outdir/$version-part"*
  for ((i = 1; i <= count; i++)); do
    mkdir -p "$outdir/$version-part$i"
    mv "$stage/split/$archive.part$i" "$outdir/$version-part$i/"
    cp "$stage/split/manifest.sha256" "$outdir/$version-part$i/"
  done
  du -b "$outdir/$version-part"*/cu12-libs-* | awk '{ printf "cu12-libs: %s (%.1f MiB)\n", $2, $1 / 1048576 }' >&2
  log "$version: $count chunk(s) in $outdir/$version-part1..$count; carry each folder in its own call"
}

pack_bin() {
  local build=$1 outdir=$2
  [[ -x "$build/cudabench" ]] || { log "pack-bin: no $build/cudabench"; exit 2; }
  local name; name="bin-$(basename "$(cd "$build" && pwd)")"
  mkdir -p "$outdir"; rm -rf "${outdir:?}/$name"; mkdir -p "$outdir/$name/x"
  cp "$build/cudabench" "$outdir/$name/x/"
  # libfmt's soname differs between distributions (8, 9, 10): the one linked here goes along.
  ldd "$build/cudabench" | awk '$1 ~ /^libfmt\.so/ && $3 ~ /^\// { print $3 }' | xargs -r -I{} cp -L {} "$outdir/$name/x/"
  # Compressed (16 MiB -> a few) so it fits beside a library chunk in one call's 64 MiB.
  tar --sort=name --owner=0 --group=0 --numeric-owner -C "$outdir/$name/x" -cf - . | xz -9 > "$outdir/$name/cudabench.tar.xz"
  rm -rf "$outdir/$name/x"
  (cd "$outdir/$name" && sha256sum cudabench.tar.xz > manifest.sha256)
  du -b "$outdir/$name/cudabench.tar.xz" | awk '{ printf "cu12-libs: %s (%.1f MiB)\n", $2, $1 / 1048576 }' >&2
}

unpack() {
  local chunkdir=$1 dest=$2
  local manifest="$chunkdir/manifest.sha256"
  [[ -f "$manifest" ]] || { log "unpack: no manifest.sha256 in $chunkdir (was it named in carry?)"; exit 2; }
  if [[ -f "$chunkdir/cudabench.tar.xz" ]]; then  # a pack-bin folder: checked, then unpacked
    local name; name=$(basename "$chunkdir")
    (cd "$chunkdir" && sha256sum --quiet -c manifest.sha256) || { log "unpack: $chunkdir is corrupt"; exit 1; }
    mkdir -p "$dest"; rm -rf "${dest:?}/$name"; mkdir -p "$dest/$name"
    xz -dc "$chunkdir/cudabench.tar.xz" | tar -x -C "$dest/$name"
    log "cudabench and its libfmt are in $dest/$name (put it on LD_LIBRARY_PATH too)"
    return 0
  fi
  local archive version n
  archive=$(awk '$2 !~ /\.part[0-9]+$/ { print $2 }' "$manifest")
  version=${archive#cu12-libs-}; version=${version%.tar.xz}
  n=$(grep -c '\.part[0-9]*$' "$manifest")
  local parts="$dest/.parts-$version" out="$dest/$version"
  local want_sha; want_sha=$(awk -v a="$archive" '$2 == a { print $1 }' "$manifest")
  if [[ "$(cat "$out/.archive-sha256" 2>/dev/null)" == "$want_sha" ]]; then
    log "$version is already unpacked in $out/lib"
  else
    mkdir -p "$parts"
    cp "$manifest" "$parts/"
    local f
    for f in "$chunkdir"/"$archive".part*; do
      [[ -e "$f" ]] || continue
      cp "$f" "$parts/"
      (cd "$parts" && sha256sum --quiet -c <(awk -v n="$(basename "$f")" '$2 == n' manifest.sha256)) ||
        { rm -f "$parts/$(basename "$f")"; log "unpack: $(basename "$f") is corrupt (sha256 differs)"; exit 1; }
      log "$version: $(basename "$f") ok"
    done
    local have=() missing=() i
    for ((i = 1; i <= n; i++)); do
      if [[ -f "$parts/$archive.part$i" ]]; then have+=("$i"); else missing+=("$i"); fi
    done
    if [[ ${#missing[@]} -gt 0 ]]; then
      log "$version: ${#have[@]} of $n chunk(s) in $parts; still to carry: $(printf "$version-part%s " "${missing[@]}")"
      return 0
    fi
    for ((i = 1; i <= n; i++)); do cat "$parts/$archive.part$i"; done > "$parts/$archive"
    (cd "$parts" && sha256sum --quiet -c <(awk -v n="$archive" '$2 == n' manifest.sha256)) ||
      { log "unpack: the joined $archive is corrupt"; exit 1; }
    rm -rf "$out"; mkdir -p "$out"
    xz -dc "$parts/$archive" | tar -x -C "$out"
    (cd "$out/lib" && sha256sum --quiet -c SHA256SUMS) || { log "unpack: a library's sha256 differs"; exit 1; }
    echo "$want_sha" > "$out/.archive-sha256"
    rm -rf "$parts"
    log "$version: unpacked $(ls "$out/lib" | grep -c '\.so') libraries into $out/lib"
  fi
  echo "LD_LIBRARY_PATH=$(cd "$out/lib" && pwd)"
}

symbols() {
  local binary=$1 libdir=$2 need have missing
  need=$(nm -D --undefined-only "$binary" | awk '{ print $2 }' | sed 's/@.*//' | grep -E '^(cuda|cublas|__cuda)' | sort -u)
  have=$(for l in "${libs[@]}"; do nm -D --defined-only "$libdir/$l"; done | awk '{ print $3 }' | sed 's/@.*//' | sort -u)
  missing=$(comm -23 <(echo "$need") <(echo "$have"))
  log "$binary imports $(echo "$need" | grep -c .) CUDA symbols; missing from $libdir: $(echo "$missing" | grep -c .)"
  [[ -z "$missing" ]] || { echo "$missing"; return 1; }
}

cmd=${1:-}
case "$cmd" in
  pack) [[ $# -ge 3 ]] || { usage >&2; exit 2; }; shift; pack "$@" ;;
  symbols) [[ $# -eq 3 ]] || { usage >&2; exit 2; }; symbols "$2" "$3" ;;
  pack-bin) [[ $# -eq 3 ]] || { usage >&2; exit 2; }; pack_bin "$2" "$3" ;;
  unpack) [[ $# -eq 3 ]] || { usage >&2; exit 2; }; unpack "$2" "$3" ;;
  -h|--help) usage ;;
  *) usage >&2; exit 2 ;;
esac
