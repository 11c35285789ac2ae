#!/usr/bin/env bash
# The Star Schema Benchmark on this machine: generates SF N once (kept in DATA_DIR, reused while
# its SF and seed match), then times the 13 queries on DuckDB, the CPU peer (in-process, all cores,
# one untimed run per query, then REPEATS timed runs: best and median), and on gfxq's engines
# ($SSB_ENGINES, default gfxq-auto,gfxq-compute: the tables loaded once, columns resident after the
# untimed first run; docs/SSB.md).
#
#   bash bench/ssb/run_ssb.sh BUILD_DIR SF [DATA_DIR] [REPEATS]
#
# BUILD_DIR holds gfxq and gfxq_ssb_bench (a Release build). DATA_DIR defaults to
# ${TMPDIR:-/tmp}/gfxq_ssb_sf<SF>; the CSV files take about 100 bytes per lineorder row (SF 20: 12 GB).
# Output under $OUT (default ./out): ssb_sf<SF>_gen.txt, ssb_sf<SF>_ceiling.jsonl (the copy bandwidth,
# gfxq_bench compute.ceiling_copy at 2^28), ssb_sf<SF>_duckdb.jsonl and ssb_sf<SF>_gfxq.jsonl (one JSON
# line per query, see bench/ssb/ssb_bench.cpp; each gfxq answer checked against DuckDB's, --check), ssb_sf<SF>_explain.txt (each gfxq query's report with
# its passes' GPU times); bench/ssb/plot_ssb.py makes the table and chart.
# DuckDB's library: $GFXQ_DUCKDB_LIB, else /opt/gfxq/duckdb
# (.ci/install-deps); a path ending in .xz is unpacked first (a compressed copy carried to a machine
# without the npm registry).
#
# SSB_GENERATE=1: gfxq only, the tables made in memory by gfxq_ssb_bench --generate (the columns the
# queries name; the same tables as the files), no CSV files, no DuckDB: DATA_DIR is not used, and
# neither ssb_sf<SF>_gen.txt nor ssb_sf<SF>_duckdb.jsonl is written (the load line of
# ssb_sf<SF>_gfxq.jsonl has the generation time). For SF 100, whose files (62 GB) do not fit the
# single-GPU machines' disk:
#   SSB_GENERATE=1 OUT=out/ssb100 bash bench/ssb/run_ssb.sh build 100
set -euo pipefail
build=${1:?usage: run_ssb.sh BUILD_DIR SF [DATA_DIR] [REPEATS]}
sf=${2:?usage: run_ssb.sh BUILD_DIR SF [DATA_DIR] [REPEATS]}
data=${3:-${TMPDIR:-/tmp}/gfxq_ssb_sf$sf}
repeats=${4:-5}
seed=1
out=${OUT:-out}
mkdir -p "$out"

if [[ "${GFXQ_DUCKDB_LIB:-}" == *.xz ]]; then
  unpacked="${TMPDIR:-/tmp}/gfxq_libduckdb.so"
  xz -dc "$GFXQ_DUCKDB_LIB" > "$unpacked"
  export GFXQ_DUCKDB_LIB="$unpacked"
fi

if [ -n "${SSB_GENERATE:-}" ]; then
  source=(--generate --seed "$seed")
else
  source=(--data "$data")
  stamp="sf=$sf seed=$seed"
  if [ "$(cat "$data/GENERATED" 2>/dev/null)" != "$stamp" ]; then
    rm -f "$data/GENERATED"
    "$build/gfxq" gen ssb --sf "$sf" --seed "$seed" --out "$data" | tee "$out/ssb_sf${sf}_gen.txt"
    echo "$stamp" > "$data/GENERATED"
  fi
fi

# The copy bandwidth of this device in the same run: the per-query bound of plot_ssb.py.
"$build/gfxq_bench" --cases compute.ceiling_copy --log2 28 --repeats 10 > "$out/ssb_sf${sf}_ceiling.jsonl" ||
  echo "no copy ceiling (no Vulkan device?)" >&2
if [ -z "${SSB_GENERATE:-}" ]; then
  "$build/gfxq_ssb_bench" --data "$data" --sf "$sf" --repeats "$repeats" --engines duckdb |
    tee "$out/ssb_sf${sf}_duckdb.jsonl"
fi
rm -f "$out/ssb_sf${sf}_explain.txt"
# Every gfxq answer is checked against DuckDB's over the same files ("checked" in each line); the
# generated tables have no files to check against.
check=()
[ -z "${SSB_GENERATE:-}" ] && check=(--check)
"$build/gfxq_ssb_bench" "${source[@]}" "${check[@]}" --sf "$sf" --repeats "$repeats" \
  --engines "${SSB_ENGINES:-gfxq-auto,gfxq-compute}" --explain "$out/ssb_sf${sf}_explain.txt" |
  tee "$out/ssb_sf${sf}_gfxq.jsonl"
