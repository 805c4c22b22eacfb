#!/usr/bin/env python3
"""Per-kernel table of one profiled llm_decode run: where a prefill and a decode step spend time.

Reads the CSV that `ncu --csv --page raw --print-units base` writes for one cudabench run under
`ncu --profile-from-start off` (only the timed repetition is in the profiler's range: one prefill,
then the decode steps of max_length = prompt_tokens + 2, i.e. one graph replay), splits it into
phases at the first argmax kernel (it ends the prefill), and per phase groups kernels by name:

  kernel | launches | time (us) | share | DRAM bytes (MB) | GB/s | % of copy bandwidth

Kernel times are ncu's (each kernel alone, clocks left as the card sets them); their sum is the
phase's GPU-busy time, which the event-timed TTFT/TPOT exceed by the launch gaps.

  scripts/ncu_kernel_table.py ncu.csv [--bandwidth-gbps 4260] [--format markdown|text]
"""
import argparse
import csv
import re
import sys

TIME = "gpu__time_duration.sum"
READ = "dram__bytes_read.sum"
WRITE = "dram__bytes_write.sum"


GEMV_OUT = {"0": "store", "1": "store_f32", "2": "add_residual", "3": "swiglu"}  # gemv.cuh's gemv_output


def short_name(name):
    """'void cudabench::<unnamed>::gemv_kernel<__half, uint4, 1, 3, 4, 8>(...)' -> 'gemv rmsnorm+swiglu 4w/u8'."""
    n = name[5:] if name.startswith("void ") else name
    n = n.replace("(anonymous namespace)", "<unnamed>").replace("<unnamed>::", "")
    n = re.sub(r"\(.*$", "", n)  # the parameter list
    base, _, args = n.partition("<")
    base = base.split("::")[-1]
    if base == "gemv_kernel":
        parts = [p.strip() for p in args.rstrip(">").split(",")]
        if len(parts) == 6:
            norm = "rmsnorm+" if parts[2] in ("1", "true") else ""
            return f"gemv {norm}{GEMV_OUT.get(parts[3], parts[3])} {parts[4]}w/u{parts[5]}"
    if args and base.startswith(("attn_prefill", "attn_decode")):
        return f"{base}<{args.split(',', 1)[-1].strip().rstrip('>')}>" if "," in args else base
    return base or name[:60]


def number(s):
    s = s.strip().replace(",", "")
    return float(s) if s not in ("", "n/a") else 0.0


def read_rows(path):
    with open(path, newline="") as fh:
        lines = [l for l in fh if l.startswith('"')]  # ncu prefixes its own log lines with ==
    rows = list(csv.DictReader(lines))
    if not rows:
        raise SystemExit(f"{path}: no kernel rows (did the profiled run launch anything?)")
    for col in (TIME, READ, WRITE, "Kernel Name"):
        if col not in rows[0]:
            raise SystemExit(f"{path}: no column {col!r} (run ncu with --metrics {TIME},{READ},{WRITE})")
    # The units row (second line of a raw page) holds no numbers.
    if not re.match(r"^[\d.,]+$", rows[0][TIME].strip() or "x"):
        units = rows.pop(0)
        if units[TIME].strip() not in ("ns", "nsecond") or units[READ].strip() not in ("byte", "B"):
            raise SystemExit(f"{path}: units {units[TIME]!r}/{units[READ]!r}; run ncu with --print-units base")
    return rows


def phases(rows):
    cut = next((i for i, r in enumerate(rows) if "argmax" in r["Kernel Name"]), len(rows) - 1)
    return [("prefill", rows[: cut + 1]), ("decode", rows[cut + 1:])]


def table(name, rows, bw, fmt):
    groups = {}
    for r in rows:
        g = groups.setdefault(short_name(r["Kernel Name"]), [0, 0.0, 0.0])
        g[0] += 1
        g[1] += number(r[TIME]) / 1e3
        g[2] += number(r[READ]) + number(r[WRITE])
    total_us = sum(g[1] for g in groups.values())
    total_b = sum(g[2] for g in groups.values())
    out = []
    if fmt == "markdown":
        out.append(f"\n**{name}**: {len(rows)} kernels, {total_us:.1f} us busy, {total_b / 1e6:.1f} MB DRAM, "
                   f"{total_b / max(total_us, 1e-9) / 1e3:.0f} GB/s ({100 * total_b / max(total_us, 1e-9) / 1e3 / bw:.0f}% of {bw:.0f})\n")
        out.append("| kernel | launches | time (us) | share | DRAM (MB) | GB/s | % of copy bw |")
        out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    else:
        out.append(f"\n{name}: {len(rows)} kernels, {total_us:.1f} us busy, {total_b / 1e6:.1f} MB DRAM")
        out.append(f"{'kernel':<48} {'n':>5} {'us':>10} {'share':>6} {'MB':>9} {'GB/s':>7} {'%bw':>5}")
    for k, (n, us, b) in sorted(groups.items(), key=lambda kv: -kv[1][1]):
        gbps = b / max(us, 1e-9) / 1e3
        cells = (k, n, f"{us:.1f}", f"{100 * us / max(total_us, 1e-9):.1f}%", f"{b / 1e6:.1f}", f"{gbps:.0f}",
                 f"{100 * gbps / bw:.0f}")
        if fmt == "markdown":
            out.append("| " + " | ".join(str(c) for c in cells) + " |")
        else:
            out.append(f"{cells[0]:<48} {cells[1]:>5} {cells[2]:>10} {cells[3]:>6} {cells[4]:>9} {cells[5]:>7} {cells[6]:>5}")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--bandwidth-gbps", type=float, default=4260.0,
                    help="the measured copy bandwidth the %% column is against (memory_bandwidth d2d 1GiB)")
    ap.add_argument("--format", choices=("text", "markdown"), default="text")
    a = ap.parse_args()
    rows = read_rows(a.csv)
    for name, part in phases(rows):
        if part:
            print(table(name, part, a.bandwidth_gbps, a.format))
    return 0


if __name__ == "__main__":
    sys.exit(main())
