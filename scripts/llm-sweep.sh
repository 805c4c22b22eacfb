#!/usr/bin/env bash
# Runs the llm_decode rows of a suite once per setting of the decode engine's overrides and prints
# one line per setting: decode tok/s, TTFT, total, and what the tuner kept. For choosing between
# kernel variants on a GPU box before the tuner is trusted with them; the verdict between builds
# is `cudabench ab`, not this.
#   scripts/llm-sweep.sh [--bin PATH] [--suite NAME] [--filter GLOB] [--out DIR] SETTING...
#   SETTING: NAME or NAME:VAR=VALUE,VAR=VALUE (e.g. tuned  gemv4:CUDABENCH_LLM_GEMV=4
#            noprefetch:CUDABENCH_LLM_PREFETCH=0); the overrides are in src/workloads/llm_decode/tuner.hpp
#   defaults: --bin build/cudabench --suite full --filter 'llm_decode/*' --out build/llm-sweep
# Exit status: 0 when every run finished and validated, 1 otherwise, 2 for bad arguments.
set -uo pipefail
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
bin=build/cudabench suite=full filter='llm_decode/*' out=build/llm-sweep
settings=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --bin|--suite|--filter|--out)
      [[ $# -ge 2 ]] || { echo "llm-sweep: $1 needs a value" >&2; usage >&2; exit 2; }
      case "$1" in --bin) bin=$2 ;; --suite) suite=$2 ;; --filter) filter=$2 ;; --out) out=$2 ;; esac
      shift 2 ;;
    -*) echo "llm-sweep: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    *) settings+=("$1"); shift ;;
  esac
done
[[ ${#settings[@]} -gt 0 ]] || { echo "llm-sweep: no SETTING given" >&2; usage >&2; exit 2; }
for s in "${settings[@]}"; do
  name=${s%%:*}
  [[ "$name" =~ ^[A-Za-z0-9_.-]+$ ]] || { echo "llm-sweep: bad setting name in '$s'" >&2; usage >&2; exit 2; }
  if [[ "$s" == *:* ]]; then
    IFS=, read -ra vars <<< "${s#*:}"
    for v in "${vars[@]}"; do
      [[ "$v" =~ ^CUDABENCH_LLM_[A-Z_]+=[^=]*$ ]] \
        || { echo "llm-sweep: '$v' in '$s' is not CUDABENCH_LLM_*=VALUE" >&2; usage >&2; exit 2; }
    done
  fi
done
[[ -x "$bin" ]] || { echo "llm-sweep: $bin is not an executable" >&2; usage >&2; exit 2; }
mkdir -p "$out"
rc=0
for s in "${settings[@]}"; do
  name=${s%%:*}
  vars=()
  [[ "$s" == *:* ]] && IFS=, read -ra vars <<< "${s#*:}"
  t0=$SECONDS
  env "${vars[@]}" "$bin" --suite "$suite" --filter "$filter" -o "$out/$name.json" --strict > "$out/$name.log" 2>&1 || rc=1
  python3 - "$out/$name.json" "$name" "$((SECONDS - t0))" <<'EOF' || rc=1
import json, sys
path, name, secs = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    doc = json.load(open(path))
except (OSError, ValueError) as e:
    print(f"{name}: no result ({e})"); sys.exit(1)
ok = True
for w in doc["workloads"]:
    m = {k: v.get("median") if isinstance(v, dict) else v for k, v in (w.get("metrics") or {}).items()}
    row = w["id"].split("/")
    short = "/".join(p for p in row if p.startswith(("prompt_tokens", "max_length")))
    valid = (w.get("validation") or {}).get("passed")
    ok &= w.get("status") == "ok" and bool(valid)
    print(f"{name:14s} {short:34s} {w.get('status')} valid={valid} decode {m.get('decode_tokens_per_s') or 0:7.1f} tok/s"
          f"  ttft {m.get('ttft_ms') or 0:6.2f} ms  total {m.get('total_ms') or 0:7.1f} ms  ({secs} s)  {json.dumps(w.get('tuning'))}")
sys.exit(0 if ok else 1)
EOF
done
exit $rc
