#!/usr/bin/env bash
# Checks that the C++ and CUDA sources follow the root .clang-format, or reformats them.
#   scripts/check-format.sh [--fix] [--clang-format PATH] [FILE ...]
#     --fix                rewrite the files in place instead of checking them
#     --clang-format PATH  the clang-format to use (default: clang-format-14, else clang-format)
#     FILE ...             only these files (default: every tracked *.cpp *.hpp *.cu *.cuh *.h)
# Checking runs `clang-format --dry-run -Werror` on each file and lists the files it would change
# (`--fix` then formats them; `git diff` shows how). The style is pinned to clang-format 14, the
# version Debian 12 and Ubuntu 22.04 ship (Debian package clang-format): other versions break some
# lines differently, so a different one is used with a warning. Exit codes: 0 every file is
# formatted (or was fixed), 1 some file is not, 2 bad arguments or no clang-format found.
set -euo pipefail
caller_dir=$(pwd)
cd "$(dirname "$0")/.."

# The usage is the comment block at the top of this file.
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
die_usage() { echo "check-format: $1" >&2; usage >&2; exit 2; }
need() { [[ $# -ge 2 && -n "$2" && "$2" != -* ]] || die_usage "$1 needs a value"; }
abs() { [[ "$1" = /* ]] && printf '%s' "$1" || printf '%s/%s' "$caller_dir" "$1"; }

fix=0
clang_format=""
files=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --fix) fix=1; shift ;;
    --clang-format) need "$@"; clang_format="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) die_usage "unknown argument '$1'" ;;
    *) files+=("$(abs "$1")"); shift ;;
  esac
done

if [[ -z "$clang_format" ]]; then
  for c in clang-format-14 clang-format; do
    command -v "$c" >/dev/null && { clang_format=$(command -v "$c"); break; }
  done
  [[ -n "$clang_format" ]] ||
    { echo "check-format: no clang-format-14 or clang-format on PATH (Debian/Ubuntu: apt-get install clang-format)" >&2; exit 2; }
fi
"$clang_format" --version >/dev/null 2>&1 || { echo "check-format: $clang_format does not run" >&2; exit 2; }
version=$("$clang_format" --version | sed -n 's/.*clang-format version \([0-9]*\)\..*/\1/p')
[[ "$version" == 14 ]] ||
  echo "check-format: warning: $clang_format is version ${version:-unknown}, the style is pinned to 14; results may differ" >&2
[[ -f .clang-format ]] || { echo "check-format: no .clang-format at $(pwd)" >&2; exit 2; }
# A .clang-format this version cannot read would otherwise make every file look unformatted.
"$clang_format" --style=file --dump-config </dev/null >/dev/null ||
  { echo "check-format: $clang_format cannot use .clang-format (see above)" >&2; exit 2; }

if [[ ${#files[@]} -eq 0 ]]; then
  patterns=('*.cpp' '*.hpp' '*.cu' '*.cuh' '*.h')
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t files < <(git ls-files -- "${patterns[@]}")
  else  # a copy of the tree without .git (as on a GPU box)
    mapfile -t files < <(find include src kernels tests fuzz -type f \
                           \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' -o -name '*.h' \) | sort)
  fi
fi
[[ ${#files[@]} -gt 0 ]] || { echo "check-format: no files to check"; exit 0; }

if [[ $fix -eq 1 ]]; then
  "$clang_format" -i --style=file "${files[@]}"
  echo "check-format: formatted ${#files[@]} files with $clang_format (git diff shows the changes)"
  exit 0
fi

# One file at a time, so the list names exactly the files that would change.
bad=()
for f in "${files[@]}"; do
  "$clang_format" --dry-run -Werror --style=file "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [[ ${#bad[@]} -gt 0 ]]; then
  echo "check-format: ${#bad[@]} of ${#files[@]} files are not formatted as .clang-format says:" >&2
  printf '  %s\n' "${bad[@]}" >&2
  echo "check-format: scripts/check-format.sh --fix formats them; clang-format --dry-run FILE shows where" >&2
  exit 1
fi
echo "check-format: all ${#files[@]} files are formatted ($clang_format)"
