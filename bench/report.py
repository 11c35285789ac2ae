#!/usr/bin/env python3
"""Turns benchmark JSON lines into the Markdown tables of BENCHMARKS.md.

    python3 bench/report.py gfxq.jsonl [more.jsonl ...] [--peers peers.jsonl]

gfxq lines come from gfxq_bench (case, backend, rows, seconds, GBps, Gitems_per_s, ceiling, ratio,
note: its "in turn" figures, the ratio to a copy and the fraction of a read-only pass timed in turn
with the case, or a median's time in scans, make the "in turn" column);
peer lines from bench/peers.py (case "peer.<library>.<name>", rows, seconds). A gfxq case
"compute.<name>" is compared with every peer case ending in ".<name>" at the same size.
"""

import argparse
import json
import re
from collections import defaultdict


def read(paths):
    rows = []
    for path in paths:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    rows.append(json.loads(line))
    return rows


def size(rows):
    lg = rows.bit_length() - 1
    return f"2^{lg}" if rows == 1 << lg else str(rows)


def in_turn(note):
    """The note's ratio to the copy timed in turn with the case, and its fraction of the read-only
    pass timed in turn, as text ("-" where the case has none)."""
    copy = re.search(r"([0-9.]+) of a copy timed in turn", note) or re.search(r"of a copy: ([0-9.]+)", note)
    read = re.search(r"\(([0-9.]+) of its speed\)", note)
    scans = re.search(r"([0-9.]+) scans of the column", note)
    parts = []
    if copy:
        parts.append(f"{float(copy.group(1)):.2f} of copy")
    if read:
        parts.append(f"{float(read.group(1)):.2f} of read")
    if scans:
        parts.append(f"{float(scans.group(1)):.2f} scans")
    return ", ".join(parts) or "-"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("gfxq", nargs="+")
    parser.add_argument("--peers", nargs="*", default=[])
    args = parser.parse_args()
    peers = defaultdict(dict)  # (name, rows) -> {library: seconds}
    for p in read(args.peers):
        if "seconds" in p:
            _, library, name = p["case"].split(".", 2)
            peers[(name, p["rows"])][library] = p["seconds"]
    by_backend = defaultdict(list)
    for r in read(args.gfxq):
        by_backend[r.get("backend", "skipped")].append(r)
    for backend in ("compute", "raster"):
        cases = by_backend.get(backend, [])
        if not cases:
            continue
        unit = "GB/s" if backend == "compute" else "G values/s"
        print(f"\n### {backend}\n")
        print(f"| case | rows | gfxq ms | {unit} | ratio to ceiling | in turn | peers ms | gfxq speed-up vs best peer "
              "| checked |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for r in cases:
            name = r["case"].split(".", 1)[1]
            rate = r["GBps"] if backend == "compute" else r["Gitems_per_s"]
            ratio = f"{r['ratio']:.2f}" if "ratio" in r else "(ceiling)"
            peer = peers.get((name, r["rows"]), {})
            peer_text = ", ".join(f"{lib} {s * 1e3:.3f}" for lib, s in sorted(peer.items())) or "-"
            speedup = f"{min(peer.values()) / r['seconds']:.2f}x" if peer else "-"
            print(f"| {name} | {size(r['rows'])} | {r['seconds'] * 1e3:.3f} | {rate:.1f} | {ratio} | "
                  f"{in_turn(r.get('note', ''))} | {peer_text} | {speedup} | {'yes' if r.get('checked') else 'no'} |")
    skipped = [r for r in read(args.gfxq) if "skipped" in r]
    if skipped:
        print("\nSkipped:\n")
        for r in skipped:
            print(f"- {r['case']} at {size(r['rows'])}: {r['skipped']}")


if __name__ == "__main__":
    main()
