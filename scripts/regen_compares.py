#!/usr/bin/env python3
"""Regenerate the committed `cudabench compare` outputs listed in results/compares.json.

    scripts/regen_compares.py --bin build/cudabench            rewrite every listed output
    scripts/regen_compares.py --bin build/cudabench --check    exit 1 naming the outputs that differ
                                                               (nothing is written; diffs printed)

Why: a compare table committed beside its inputs is evidence only while it is what today's binary
prints for them; an output of an older binary that nobody regenerated tells a reader about a
statistics pipeline that no longer exists. ctest committed_compares_are_current runs --check.

Each entry of the manifest names an output (relative to the repository root), its inputs
(relative to the output's folder, baseline first), the format and any further compare options.
The compare runs inside the output's folder with those relative names, so what it prints (file
names in its notes) does not depend on where the checkout lives. Entries under "historical" are
outputs whose inputs are not committed, or that no option of today's binary reproduces; their
first line says so and this script checks only that the line is there. --check also fails on a
compare output under results/ that the manifest does not list (a markdown file with compare's
summary line, a JSON file with compare_schema_version), so a new one cannot slip past it.
"""
import argparse
import difflib
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANIFEST = os.path.join("results", "compares.json")
HISTORICAL_MARK = "historical output"  # the first line of every historical file contains this


def load_manifest():
    with open(os.path.join(ROOT, MANIFEST), encoding="utf-8") as f:
        m = json.load(f)
    if m.get("compares_version") != 1:
        sys.exit(f"regen_compares: {MANIFEST}: compares_version must be 1")
    return m


def run_compare(binary, entry):
    """What the binary prints for one entry, as bytes (exit 0 or 1: 1 is a regression verdict)."""
    out = entry["output"]
    folder = os.path.join(ROOT, os.path.dirname(out))
    for name in entry["inputs"]:
        if not os.path.isfile(os.path.join(folder, name)):
            sys.exit(f"regen_compares: {out}: input {name} is not committed (mark the entry historical)")
    cmd = [binary, "compare", *entry["inputs"], "--format", entry["format"], *entry.get("args", [])]
    p = subprocess.run(cmd, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode not in (0, 1):
        sys.exit(f"regen_compares: {out}: `{' '.join(cmd)}` exited {p.returncode}:\n{p.stderr.decode()}")
    return p.stdout


SUMMARY_LINE = re.compile(rb"^.+ vs .+: \d+ improved, \d+ regressed, \d+ unchanged, \d+ inconclusive", re.M)


def unlisted_outputs(m):
    """Compare outputs under results/ that the manifest names neither way."""
    listed = {e["output"] for e in m["compares"]} | {h["output"] for h in m.get("historical", [])}
    found = []
    for folder, _, names in os.walk(os.path.join(ROOT, "results")):
        for name in names:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, ROOT)
            if rel in listed or not name.endswith((".md", ".json")):
                continue
            with open(path, "rb") as f:
                head = f.read(1 << 20)  # a compare's summary or schema key is never past its first MiB
            if (name.endswith(".md") and SUMMARY_LINE.search(head)) or (
                    name.endswith(".json") and b'"compare_schema_version"' in head):
                found.append(rel)
    return sorted(found)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", default=os.path.join(ROOT, "build", "cudabench"), help="the cudabench binary")
    p.add_argument("--check", action="store_true", help="regenerate into a temporary folder and diff")
    a = p.parse_args()
    binary = os.path.abspath(a.bin)
    if not os.access(binary, os.X_OK):
        print(f"regen_compares: {a.bin} is not an executable (build it first)", file=sys.stderr)
        return 2
    m = load_manifest()
    stale = []
    for entry in m["compares"]:
        new = run_compare(binary, entry)  # held in memory: the outputs are small
        path = os.path.join(ROOT, entry["output"])
        old = open(path, "rb").read() if os.path.exists(path) else None
        if old == new:
            continue
        if not a.check:
            with open(path, "wb") as f:
                f.write(new)
            print(f"rewrote {entry['output']}")
            continue
        stale.append(entry["output"])
        diff = difflib.unified_diff((old or b"").decode(errors="replace").splitlines(),
                                    new.decode(errors="replace").splitlines(),
                                    f"committed/{entry['output']}", f"today/{entry['output']}", lineterm="", n=1)
        print("\n".join(list(diff)[:40]))  # the first differences say enough
    for h in m.get("historical", []):
        path = os.path.join(ROOT, h["output"])
        with open(path, encoding="utf-8") as f:
            first = f.readline()
        if HISTORICAL_MARK not in first:
            stale.append(h["output"] + f" (historical, but its first line does not say '{HISTORICAL_MARK}')")
    if a.check:
        stale += [f"{o} (a compare output that {MANIFEST} does not list)" for o in unlisted_outputs(m)]
    if stale:
        print("regen_compares: compare outputs that are not what today's binary prints for their inputs (run "
              "scripts/regen_compares.py --bin build/cudabench and commit), or not listed in " + MANIFEST + ":\n  " +
              "\n  ".join(stale), file=sys.stderr)
        return 1
    if a.check:
        print(f"regen_compares: {len(m['compares'])} compare outputs current, {len(m.get('historical', []))} historical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
