#!/usr/bin/env python3
"""How often does NVML's total-energy counter change? (the basis of energy_min_window_ms)

    scripts/nvml_energy_period.py [SECONDS] [--device N]

Polls nvmlDeviceGetTotalEnergyConsumption (through the driver's libnvidia-ml.so.1, no Python
package needed) for SECONDS (default 3) and prints the intervals between changes of the counter,
the energy per change and the average power. Run it once with the GPU idle and once while a
workload runs (e.g. `build/cudabench --suite quick --filter 'matmul/*8192*' --min-time-ms 1000 &`).
Exit status: 0 measured, 1 NVML unavailable or no change seen, 2 bad arguments.
"""
import argparse
import ctypes
import statistics
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seconds", nargs="?", type=float, default=3.0)
    ap.add_argument("--device", type=int, default=0)
    a = ap.parse_args()
    if not a.seconds > 0:
        ap.error("SECONDS must be > 0")
    try:
        nv = ctypes.CDLL("libnvidia-ml.so.1")
    except OSError as e:
        print(f"nvml_energy_period: {e}", file=sys.stderr)
        return 1
    h, e = ctypes.c_void_p(), ctypes.c_ulonglong()
    if nv.nvmlInit_v2() != 0 or nv.nvmlDeviceGetHandleByIndex_v2(a.device, ctypes.byref(h)) != 0:
        print("nvml_energy_period: NVML could not open the device", file=sys.stderr)
        return 1
    changes, polls, last = [], 0, None
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < a.seconds:
        rc = nv.nvmlDeviceGetTotalEnergyConsumption(h, ctypes.byref(e))
        polls += 1
        t = time.perf_counter()
        if rc != 0:
            print(f"nvml_energy_period: nvmlDeviceGetTotalEnergyConsumption returned {rc}", file=sys.stderr)
            return 1
        if last is None or e.value != last:
            changes.append((t, e.value))
            last = e.value
    iv = [(b[0] - a_[0]) * 1e3 for a_, b in zip(changes, changes[1:])]
    de = [b[1] - a_[1] for a_, b in zip(changes, changes[1:])]
    if not iv:
        print(f"nvml_energy_period: no change in {a.seconds} s", file=sys.stderr)
        return 1
    print(f"polls {polls} ({polls / a.seconds:.0f}/s), changes {len(changes)}; interval ms median "
          f"{statistics.median(iv):.2f} min {min(iv):.2f} max {max(iv):.2f}; mJ per change median "
          f"{statistics.median(de)}; power {sum(de) / sum(iv):.1f} W")
    return 0


if __name__ == "__main__":
    sys.exit(main())
