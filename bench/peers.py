#!/usr/bin/env python3
"""Peer timings for the compute benchmark cases (bench/cases_compute.cpp): the same operations on
the same sizes in PyTorch and CuPy, on the GPU, data already on the device.

    python3 bench/peers.py [--log2 20,24,28] [--repeats 5] [--seed 1] [--cases SUBSTR,...]
                           [--groups 4,6,...,26]

Prints one JSON line per (case, size): {"case": "peer.torch.select_count", "rows": n, "seconds": s,
"note": ...}; a case that fails (library missing, out of memory, ...) prints {"case", "rows",
"skipped": reason} and the others go on. Times are the best of --repeats runs measured with CUDA
events around the operation only, the GPU kept busy (best_seconds). The data match the gfxq cases:
float32 uniform in [0, 1) for the scans, int32 over the full range for the sorts; the joins as
bench/cases_join.cpp's compute.join_unique_* / compute.join_zipf_* (rows x rows, int32 key + int32
payload per side, unique build keys, every probe key one of them, uniform or Zipf z = 1); for the GROUP BY
sweep (bench/cases_group_by.cpp) an int32 key fmix32(i) of a value index i drawn uniformly below 2^k
or by the Zipf-like law floor((2^k + 1)^u) - 1, and a random int32 value, SUM(value) GROUP BY key with
the groups in key order (peer.torch_unique: torch.unique(return_inverse) + index_add_; peer.torch_sort
and peer.cupy_sort: a sort by key, then segment sums from a cumulative sum). The sweep runs only when
--cases selects it (a substring of "group_by"), as gfxq_bench's sweep.group_by_* cases do. DISTINCT and
INTERSECT of rows (bench/cases_skeletons.cpp: two int32 columns, a in [0, n/16), b in [0, 4)) are
peer.torch.distinct_rows (torch.unique) and peer.torch.intersect_rows (torch.isin + torch.unique).
"""

import argparse
import json
import math
import sys
import time


def best_seconds(repeats, sync, new_event, elapsed_ms, fn):
    """Best seconds of fn() between two recorded events. The GPU is kept busy as in gfxq_bench
    (bench/cases_compute.cpp, best_interleaved): at least 1 s of back-to-back untimed calls, then
    the timed calls back to back, each between its own pair of events, with one synchronisation at
    the end; the device lowers its clocks when it idles between synchronised calls."""
    start_wall = time.monotonic()
    batch = 1
    while time.monotonic() - start_wall < 1.0:
        t0 = time.monotonic()
        for _ in range(batch):
            fn()
        sync()
        took = time.monotonic() - t0
        # Batches grow toward 0.1 s of work each (at most 2x at a time).
        batch = max(1, min(4096, int(batch * min(2.0, 0.1 / took if took > 0 else 2.0))))
    pairs = []
    for _ in range(repeats):
        start, end = new_event(), new_event()
        start.record()
        fn()
        end.record()
        pairs.append((start, end))
    sync()
    return min(elapsed_ms(s, e) for s, e in pairs) / 1e3


def torch_cases(rows, repeats, seed):
    import torch

    if not torch.cuda.is_available():
        raise RuntimeError("torch sees no CUDA device")
    dev = torch.device("cuda")
    gen = torch.Generator(device=dev)
    gen.manual_seed(seed)
    a = torch.rand(rows, device=dev, generator=gen, dtype=torch.float32)
    keys = torch.randint(-(2**31), 2**31 - 1, (rows,), device=dev, dtype=torch.int32, generator=gen)
    zero = torch.zeros((), device=dev, dtype=torch.float32)
    inf = torch.tensor(float("inf"), device=dev, dtype=torch.float32)
    k = (rows + 1) // 2  # quantile_rank(0.5, n) = ceil(n / 2)

    def timed(fn):
        return best_seconds(repeats, torch.cuda.synchronize, lambda: torch.cuda.Event(enable_timing=True),
                            lambda s, e: s.elapsed_time(e), fn)

    # The joins: sort the build keys, searchsorted of every probe, keep the matches and materialise
    # the pairs (probe row, build row) and both payloads.
    build = torch.randperm(rows, device=dev, generator=gen).to(torch.int32)
    build_payload = torch.randint(0, 2**31 - 1, (rows,), device=dev, dtype=torch.int32, generator=gen)
    probe_payload = torch.randint(0, 2**31 - 1, (rows,), device=dev, dtype=torch.int32, generator=gen)
    uniform_idx = torch.randint(0, rows, (rows,), device=dev, generator=gen)
    u = torch.rand(rows, device=dev, generator=gen, dtype=torch.float64)
    zipf_idx = (torch.exp(u * math.log(rows + 1.0)).floor().to(torch.int64) - 1).clamp_(0, rows - 1)
    probe_uniform, probe_zipf = build[uniform_idx], build[zipf_idx]

    def join(probe):
        sorted_keys, order = torch.sort(build)
        pos = torch.searchsorted(sorted_keys, probe).clamp_(max=rows - 1)
        probe_rows = torch.nonzero(sorted_keys[pos] == probe).squeeze(1)
        build_rows = order[pos[probe_rows]]
        return probe_rows, build_rows, probe_payload[probe_rows], build_payload[build_rows]

    # DISTINCT and INTERSECT of rows of two int32 columns (a in [0, rows/16), b in [0, 4): about rows/4
    # distinct rows, as bench/cases_skeletons.cpp), each row packed into one int64.
    span = max(1, rows // 16)

    def set_rows():
        hi = torch.randint(0, span, (rows,), device=dev, generator=gen, dtype=torch.int64)
        return hi * 4 + torch.randint(0, 4, (rows,), device=dev, generator=gen, dtype=torch.int64)

    set_left, set_right = set_rows(), set_rows()

    return [
        ("peer.torch.distinct_rows", "torch.unique of 2-column rows packed as int64 (sorted)",
         lambda: timed(lambda: torch.unique(set_left))),
        ("peer.torch.intersect_rows", "torch.unique(l[torch.isin(l, r)]) of 2-column rows packed as int64",
         lambda: timed(lambda: torch.unique(set_left[torch.isin(set_left, set_right)]))),
        ("peer.torch.join_unique", "sort + searchsorted join, unique build keys, pairs and payloads materialised",
         lambda: timed(lambda: join(probe_uniform))),
        ("peer.torch.join_zipf", "the same, Zipf (z = 1) probe keys", lambda: timed(lambda: join(probe_zipf))),
        ("peer.torch.select_count", "(a < 0.5).sum()", lambda: timed(lambda: (a < 0.5).sum())),
        ("peer.torch.range_count", "((a >= 0.2) & (a <= 0.7)).sum()",
         lambda: timed(lambda: ((a >= 0.2) & (a <= 0.7)).sum())),
        ("peer.torch.filtered_sum", "torch.where(a < 0.5, a, 0).sum() (float32 accumulation)",
         lambda: timed(lambda: torch.where(a < 0.5, a, zero).sum())),
        ("peer.torch.filtered_min", "torch.where(a < 0.5, a, inf).min()",
         lambda: timed(lambda: torch.where(a < 0.5, a, inf).min())),
        ("peer.torch.filtered_max", "torch.where(a < 0.5, a, -inf).max()",
         lambda: timed(lambda: torch.where(a < 0.5, a, -inf).max())),
        ("peer.torch.select_rowids", "torch.nonzero(a < 0.5) (int64 ids)",
         lambda: timed(lambda: torch.nonzero(a < 0.5))),
        ("peer.torch.select_compaction", "a[a < 0.5]", lambda: timed(lambda: a[a < 0.5])),
        ("peer.torch.median", "torch.kthvalue(a, ceil(n/2))", lambda: timed(lambda: torch.kthvalue(a, k))),
        ("peer.torch.sort_keys", "torch.sort(int32 keys)", lambda: timed(lambda: torch.sort(keys))),
        ("peer.torch.sort_pairs", "torch.sort(int32 keys, stable=True): keys + indices",
         lambda: timed(lambda: torch.sort(keys, stable=True))),
    ]


def cupy_cases(rows, repeats, seed):
    import cupy

    cupy.random.seed(seed)
    a = cupy.random.rand(rows, dtype=cupy.float32)
    keys = cupy.random.randint(-(2**31), 2**31 - 1, size=rows, dtype=cupy.int32)

    def timed(fn):
        return best_seconds(repeats, cupy.cuda.Device().synchronize, cupy.cuda.Event, cupy.cuda.get_elapsed_time, fn)

    build = cupy.random.permutation(rows).astype(cupy.int32)
    build_payload = cupy.random.randint(0, 2**31 - 1, size=rows, dtype=cupy.int32)
    probe_payload = cupy.random.randint(0, 2**31 - 1, size=rows, dtype=cupy.int32)
    probe_uniform = build[cupy.random.randint(0, rows, size=rows)]
    zipf_idx = cupy.clip(cupy.floor(cupy.exp(cupy.random.rand(rows) * math.log(rows + 1.0))).astype(cupy.int64) - 1,
                         0, rows - 1)
    probe_zipf = build[zipf_idx]

    def join(probe):
        order = cupy.argsort(build)
        sorted_keys = build[order]
        pos = cupy.minimum(cupy.searchsorted(sorted_keys, probe), rows - 1)
        probe_rows = cupy.flatnonzero(sorted_keys[pos] == probe)
        build_rows = order[pos[probe_rows]]
        return probe_rows, build_rows, probe_payload[probe_rows], build_payload[build_rows]

    return [
        ("peer.cupy.join_unique", "argsort + searchsorted join, unique build keys, pairs and payloads materialised",
         lambda: timed(lambda: join(probe_uniform))),
        ("peer.cupy.join_zipf", "the same, Zipf (z = 1) probe keys", lambda: timed(lambda: join(probe_zipf))),
        ("peer.cupy.select_count", "cupy.count_nonzero(a < 0.5)", lambda: timed(lambda: cupy.count_nonzero(a < 0.5))),
        ("peer.cupy.range_count", "cupy.count_nonzero((a >= 0.2) & (a <= 0.7))",
         lambda: timed(lambda: cupy.count_nonzero((a >= 0.2) & (a <= 0.7)))),
        ("peer.cupy.filtered_sum", "cupy.where(a < 0.5, a, 0).sum()",
         lambda: timed(lambda: cupy.where(a < 0.5, a, cupy.float32(0)).sum())),
        ("peer.cupy.select_rowids", "cupy.flatnonzero(a < 0.5)", lambda: timed(lambda: cupy.flatnonzero(a < 0.5))),
        ("peer.cupy.sort_keys", "cupy.sort(int32 keys) (CUB radix sort)", lambda: timed(lambda: cupy.sort(keys))),
        ("peer.cupy.sort_pairs", "cupy.argsort(int32 keys)", lambda: timed(lambda: cupy.argsort(keys))),
    ]


def fmix32(h, xp):
    """Murmur3's fmix32 of int64 values below 2^32 (xp: torch or cupy); products wrap modulo 2^64, so
    their low 32 bits are exact."""
    m = 0xFFFFFFFF
    h = h ^ (h >> 16)
    h = (h * 0x85EBCA6B) & m
    h = h ^ (h >> 13)
    h = (h * 0xC2B2AE35) & m
    return h ^ (h >> 16)


def group_by_cases(library, rows, repeats, seed, log2_groups):
    """The GROUP BY sweep's peers for `library` ("torch" or "cupy"): (name, note, run) per distribution,
    group count and method; each run() makes its data, times the method and frees the data."""
    cases = []
    for zipf in (False, True):
        for lg in log2_groups:
            name = f"group_by_{'zipf' if zipf else 'uniform'}_g{lg}"
            law = "Zipf 1.0" if zipf else "uniform"
            if library == "torch":
                cases.append((f"peer.torch_unique.{name}", f"SUM GROUP BY, {law} over 2^{lg}: torch.unique(return_inverse)"
                              " + index_add_", lambda z=zipf, g=lg: torch_group_by(rows, repeats, seed, z, g, False)))
                cases.append((f"peer.torch_sort.{name}", f"SUM GROUP BY, {law} over 2^{lg}: torch.sort + unique_consecutive"
                              " + cumsum", lambda z=zipf, g=lg: torch_group_by(rows, repeats, seed, z, g, True)))
            else:
                cases.append((f"peer.cupy_sort.{name}", f"SUM GROUP BY, {law} over 2^{lg}: cupy.argsort + cumsum",
                              lambda z=zipf, g=lg: cupy_group_by(rows, repeats, seed, z, g)))
    return cases


def torch_group_by(rows, repeats, seed, zipf, lg, sort_based):
    import torch

    dev = torch.device("cuda")
    gen = torch.Generator(device=dev)
    gen.manual_seed(seed)
    domain = 1 << lg
    if zipf:
        u = torch.rand(rows, device=dev, generator=gen, dtype=torch.float64)
        index = (torch.exp(u * math.log(domain + 1.0)).floor().to(torch.int64) - 1).clamp_(max=domain - 1)
        del u
    else:
        index = torch.randint(0, domain, (rows,), device=dev, generator=gen, dtype=torch.int64)
    h = fmix32(index, torch)
    del index
    keys = torch.where(h >= 2**31, h - 2**32, h).to(torch.int32)
    del h
    values = torch.randint(-(2**31), 2**31 - 1, (rows,), device=dev, dtype=torch.int32, generator=gen)

    def unique_index_add():
        uniq, inverse = torch.unique(keys, return_inverse=True)
        return uniq, torch.zeros(uniq.numel(), device=dev, dtype=torch.int64).index_add_(0, inverse, values.to(torch.int64))

    def sort_cumsum():
        sorted_keys, perm = torch.sort(keys)
        uniq, counts = torch.unique_consecutive(sorted_keys, return_counts=True)
        sums = values[perm].to(torch.int64).cumsum(0)[counts.cumsum(0) - 1]
        return uniq, torch.diff(sums, prepend=sums.new_zeros(1))

    fn = sort_cumsum if sort_based else unique_index_add
    seconds = best_seconds(repeats, torch.cuda.synchronize, lambda: torch.cuda.Event(enable_timing=True),
                           lambda s, e: s.elapsed_time(e), fn)
    del keys, values
    torch.cuda.empty_cache()
    return seconds


def cupy_group_by(rows, repeats, seed, zipf, lg):
    import cupy

    cupy.random.seed(seed)
    domain = 1 << lg
    if zipf:
        u = cupy.random.rand(rows, dtype=cupy.float64)
        index = cupy.minimum(cupy.floor(cupy.exp(u * math.log(domain + 1.0))).astype(cupy.int64) - 1, domain - 1)
        del u
    else:
        index = cupy.random.randint(0, domain, size=rows, dtype=cupy.int64)
    h = fmix32(index, cupy)
    del index
    keys = cupy.where(h >= 2**31, h - 2**32, h).astype(cupy.int32)
    del h
    values = cupy.random.randint(-(2**31), 2**31 - 1, size=rows, dtype=cupy.int32)

    def sort_cumsum():
        perm = cupy.argsort(keys)
        sorted_keys = keys[perm]
        ends = cupy.flatnonzero(cupy.concatenate((sorted_keys[1:] != sorted_keys[:-1], cupy.ones(1, dtype=bool))))
        sums = values[perm].astype(cupy.int64).cumsum()[ends]
        return sorted_keys[ends], cupy.diff(sums, prepend=cupy.zeros(1, dtype=cupy.int64))

    seconds = best_seconds(repeats, cupy.cuda.Device().synchronize, cupy.cuda.Event, cupy.cuda.get_elapsed_time,
                           sort_cumsum)
    del keys, values
    cupy.get_default_memory_pool().free_all_blocks()
    return seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--log2", default="20,24,28", help="comma-separated log2 sizes")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", default="", help="comma-separated substrings of case names to run")
    parser.add_argument("--groups", default="4,6,8,10,12,14,16,18,20,22,24,26",
                        help="comma-separated log2 group counts of the GROUP BY sweep")
    args = parser.parse_args()
    log2_groups = [int(x) for x in args.groups.split(",") if x]
    filters = [f for f in args.cases.split(",") if f]
    for lg in [int(x) for x in args.log2.split(",") if x]:
        rows = 1 << lg
        for library, make in (("torch", torch_cases), ("cupy", cupy_cases)):
            try:
                cases = make(rows, args.repeats, args.seed)
                if any(f in "group_by" or "group_by" in f for f in filters):
                    cases += group_by_cases(library, rows, args.repeats, args.seed, log2_groups)
            except Exception as e:  # noqa: BLE001 (fail soft: report and go on)
                print(json.dumps({"case": "peer." + library, "rows": rows, "skipped": f"{type(e).__name__}: {e}"}))
                sys.stdout.flush()
                continue
            for name, note, run in cases:
                if filters and not any(f in name for f in filters):
                    continue
                try:
                    line = {"case": name, "rows": rows, "seconds": run(), "note": note}
                except Exception as e:  # noqa: BLE001
                    line = {"case": name, "rows": rows, "skipped": f"{type(e).__name__}: {e}"}
                print(json.dumps(line))
                sys.stdout.flush()
            # Free this library's arrays before the next one allocates.
            del cases
            try:
                if library == "torch":
                    import torch

                    torch.cuda.empty_cache()
                else:
                    import cupy

                    cupy.get_default_memory_pool().free_all_blocks()
            except Exception:  # noqa: BLE001
                pass


if __name__ == "__main__":
    main()
