#!/usr/bin/env python3
"""The Star Schema Benchmark per query (bench/ssb/run_ssb.sh's output): each gfxq engine's best hot
time against DuckDB's and against the bandwidth bound of the same run (the bytes of the columns the
query names, "bytes" of the gfxq lines, over the copy bandwidth of ssb_sf<SF>_ceiling.jsonl).
Prints a Markdown table; with matplotlib also a bar chart (log scale).

    python3 bench/ssb/plot_ssb.py DIR --sf 20 [--out docs/images/ssb_sf20.png]

DIR holds ssb_sf<SF>_duckdb.jsonl, ssb_sf<SF>_gfxq.jsonl and ssb_sf<SF>_ceiling.jsonl. Without DuckDB's
file (run_ssb.sh with SSB_GENERATE=1: gfxq only) the DuckDB columns and bars are left out.
"""

import argparse
import json
import os


def lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(x) for x in f if x.strip().startswith("{")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--sf", required=True)
    ap.add_argument("--out")
    a = ap.parse_args()
    base = os.path.join(a.dir, f"ssb_sf{a.sf}_")
    ceiling = [x for x in lines(base + "ceiling.jsonl") if x.get("case") == "compute.ceiling_copy"]
    copy_gbps = ceiling[0]["GBps"] if ceiling else None
    rows = [x for x in lines(base + "duckdb.jsonl") + lines(base + "gfxq.jsonl") if "query" in x]
    engines = list(dict.fromkeys(x["engine"] for x in rows))
    queries = sorted({x["query"] for x in rows}, key=lambda q: [int(p) for p in q[1:].split(".")])
    ms = {(x["engine"], x["query"]): x["best_s"] * 1e3 for x in rows if "best_s" in x}
    gpu = {(x["engine"], x["query"]): x["gpu_ms"] for x in rows if "gpu_ms" in x}
    refused = {(x["engine"], x["query"]) for x in rows if "error" in x}
    wrong = {(x["engine"], x["query"]) for x in rows if x.get("checked") is False}
    nbytes = {x["query"]: x["bytes"] for x in rows if "bytes" in x}
    bound = {q: nbytes[q] / (copy_gbps * 1e9) * 1e3 for q in nbytes} if copy_gbps else {}

    gfxq = [e for e in engines if e != "duckdb"]
    duckdb = "duckdb" in engines
    head = ["query"] + (["DuckDB ms"] if duckdb else []) + [f"{e} ms (GPU ms)" for e in gfxq]
    head += [f"{e} vs DuckDB" for e in gfxq] if duckdb else []
    head += ["bound ms", "MB read"]
    print("| " + " | ".join(head) + " |")
    print("| " + " | ".join("---" for _ in head) + " |")
    total = {e: 0.0 for e in engines}
    for q in queries:
        cells = [q] + ([f"{ms.get(('duckdb', q), float('nan')):.1f}"] if duckdb else [])
        for e in gfxq:
            if (e, q) in refused:
                cells.append("refused")
            else:
                cells.append(f"{ms.get((e, q), float('nan')):.2f} ({gpu.get((e, q), float('nan')):.2f})" +
                             (" WRONG" if (e, q) in wrong else ""))
        for e in gfxq if duckdb else []:
            ok = (e, q) in ms and ("duckdb", q) in ms
            cells.append(f"{ms[('duckdb', q)] / ms[(e, q)]:.1f}×" if ok else "")
        cells.append(f"{bound[q]:.3f}" if q in bound else "")
        cells.append(f"{nbytes[q] / 1e6:.0f}" if q in nbytes else "")
        for e in engines:
            total[e] += ms.get((e, q), 0.0)
        print("| " + " | ".join(cells) + " |")
    print()
    checked = [x for x in rows if "checked" in x]
    print(f"answers checked against DuckDB: {sum(x['checked'] for x in checked)} of {len(checked)} equal"
          if checked else "answers not checked (no --check)")
    print("sums (ms): " + ", ".join(f"{e} {total[e]:.1f}" for e in engines) +
          (f"; bound {sum(bound.values()):.2f}; copy {copy_gbps:.0f} GB/s" if copy_gbps else ""))

    if not a.out:
        return
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no matplotlib: no chart")
        return
    series = [("DuckDB", [ms.get(("duckdb", q)) for q in queries])] if duckdb else []
    series += [(e, [ms.get((e, q)) for q in queries]) for e in gfxq]
    if bound:
        series.append(("bandwidth bound", [bound.get(q) for q in queries]))
    fig, ax = plt.subplots(figsize=(12, 4.5))
    width = 0.8 / len(series)
    for i, (name, values) in enumerate(series):
        xs = [j + i * width for j, v in enumerate(values) if v]
        ax.bar(xs, [v for v in values if v], width, label=name)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(queries))])
    ax.set_xticklabels(queries)
    ax.set_yscale("log")
    ax.set_ylabel("ms (best hot run, log scale)")
    peers = "gfxq vs DuckDB vs the bandwidth bound" if duckdb else "gfxq vs the bandwidth bound"
    ax.set_title(f"Star Schema Benchmark SF {a.sf}: {peers}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print("wrote", a.out)


if __name__ == "__main__":
    main()
