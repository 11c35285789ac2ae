#!/usr/bin/env python3
"""Plots the GROUP BY sweep (bench/cases_group_by.cpp) as time per group count: every forced variant,
the optimizer's pick (marked), the two ceilings of the same run (reading both input columns, the
radix sort of the keys) and the best torch / CuPy peer (bench/peers.py), one panel per key
distribution. Also prints a Markdown table of the same figures.

    python3 bench/plot_group_by.py gfxq.jsonl [more.jsonl ...] [--peers peers.jsonl] [--rows 268435456]
                                   [--out docs/images/group_by_sweep.png]

Needs matplotlib for the PNG (the table is printed without it).
"""

import argparse
import json
import re
from collections import defaultdict

# The variants of today's sweeps (older result files also name "subgroup", a variant since removed;
# TIME still reads it, the table and plot leave it out).
VARIANTS = ["private", "shared", "global", "partitioned", "sort"]
CASE = re.compile(r"^sweep\.group_by_(uniform|zipf)_g(\d+)$")
PEER = re.compile(r"^peer\.([a-z_]+)\.group_by_(uniform|zipf)_g(\d+)$")
TIME = re.compile(r"\b(auto|private|shared|subgroup|global|partitioned|sort) ([0-9.]+) ms \(")
CEILINGS = re.compile(r"read of both columns ([0-9.]+) ms, radix sort of the keys ([0-9.]+) ms")
CHOSEN = re.compile(r"auto chose (\w+)")


def read(paths):
    out = []
    for path in paths:
        with open(path) as f:
            out += [json.loads(line) for line in f if line.strip().startswith("{")]
    return out


def sweep(lines, rows):
    """{dist: {lg: {"auto": ms, variant: ms, ..., "read": ms, "sort": ms, "chosen": name}}}"""
    data = defaultdict(dict)
    for r in lines:
        m = CASE.match(r.get("case", ""))
        if not m or r.get("rows") != rows or "note" not in r:
            continue
        point = {name: float(ms) for name, ms in TIME.findall(r["note"])}
        c = CEILINGS.search(r["note"])
        if c:
            point["read_ceiling"], point["sort_ceiling"] = float(c.group(1)), float(c.group(2))
        chosen = CHOSEN.search(r["note"])
        point["chosen"] = chosen.group(1) if chosen else "?"
        point["checked"] = r.get("checked", False)
        data[m.group(1)][int(m.group(2))] = point
    return data


def peers(lines, rows):
    """{dist: {lg: (best ms, library)}}"""
    best = defaultdict(dict)
    for p in lines:
        m = PEER.match(p.get("case", ""))
        if not m or p.get("rows") != rows or "seconds" not in p:
            continue
        dist, lg, ms = m.group(2), int(m.group(3)), p["seconds"] * 1e3
        if lg not in best[dist] or ms < best[dist][lg][0]:
            best[dist][lg] = (ms, m.group(1))
    return best


def table(data, best):
    print("| keys | groups | auto (chosen) | " + " | ".join(VARIANTS) + " | read ceiling | sort ceiling | best peer | auto / best "
          "variant | best peer / auto |")
    print("|" + " --- |" * (len(VARIANTS) + 9))
    for dist in sorted(data):
        for lg in sorted(data[dist]):
            p = data[dist][lg]
            forced = [p.get(v) for v in VARIANTS]
            fastest = min(x for x in forced if x is not None)
            peer = best.get(dist, {}).get(lg)
            cells = [f"{x:.3f}" if x is not None else "-" for x in forced]
            print(f"| {dist} | 2^{lg} | {p['auto']:.3f} ({p['chosen']}) | " + " | ".join(cells) +
                  f" | {p.get('read_ceiling', float('nan')):.3f} | {p.get('sort_ceiling', float('nan')):.3f} | " +
                  (f"{peer[0]:.3f} ({peer[1]})" if peer else "-") + f" | {p['auto'] / fastest:.2f} | " +
                  (f"{peer[0] / p['auto']:.2f}x" if peer else "-") + (" |" if p["checked"] else " | (unchecked)"))


def plot(data, best, rows, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dists = sorted(data)
    fig, axes = plt.subplots(1, len(dists), figsize=(7 * len(dists), 5), squeeze=False)
    for ax, dist in zip(axes[0], dists):
        points = data[dist]
        xs = sorted(points)
        for v in VARIANTS:
            ax.plot(xs, [points[x].get(v, float("nan")) for x in xs], marker=".", label=v)
        ax.plot(xs, [points[x]["auto"] for x in xs], "ko", fillstyle="none", markersize=10, label="optimizer's pick")
        ax.plot(xs, [points[x].get("read_ceiling", float("nan")) for x in xs], "k--", label="read both columns")
        ax.plot(xs, [points[x].get("sort_ceiling", float("nan")) for x in xs], "k:", label="radix sort of the keys")
        peer_x = [x for x in xs if x in best.get(dist, {})]
        if peer_x:
            ax.plot(peer_x, [best[dist][x][0] for x in peer_x], "r-.", label="best torch / CuPy")
        ax.set_yscale("log")
        ax.set_xticks(xs)
        ax.set_xticklabels([f"$2^{{{x}}}$" for x in xs])
        ax.set_xlabel("groups")
        ax.set_ylabel("ms")
        ax.set_title(f"SUM GROUP BY, {rows:,} rows, {'Zipf 1.0' if dist == 'zipf' else 'uniform'} keys")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"\nwrote {out}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("gfxq", nargs="+")
    parser.add_argument("--peers", nargs="*", default=[])
    parser.add_argument("--rows", type=int, default=1 << 28)
    parser.add_argument("--out", default="docs/images/group_by_sweep.png")
    args = parser.parse_args()
    data = sweep(read(args.gfxq), args.rows)
    if not data:
        raise SystemExit(f"no sweep.group_by_* lines at {args.rows} rows")
    best = peers(read(args.peers), args.rows)
    table(data, best)
    plot(data, best, args.rows, args.out)


if __name__ == "__main__":
    main()
