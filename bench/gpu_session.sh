#!/usr/bin/env bash
# The GPU machine's runs in one command (docs: BENCHMARKS.md "Reproducing"): the test suite on the
# real drivers, then the benchmark program's cases with their same-run ceilings, then the peers,
# each part writing its output under $OUT (the device tool brings that folder back).
#
#   . .gl/gpu-env.sh; bash bench/gpu_session.sh BUILD_DIR [tests] [compute] [raster] [sorts] [peers] [joins]
#                                                         [engine] [groupby] [io] [skeletons] [expressions]
#                                                         [placement]
#
# BUILD_DIR holds gfxq_bench and tests/gfxq_tests (a Release build). No part named: tests, compute,
# raster, sorts and peers. The others, by name:
# - joins: the joins' cases at the issue's sizes, their raster comparison and their peers;
# - engine: the engine's tests on the real driver and its SQL cases (warm vs cold, GROUP BY and join
#   through SQL);
# - groupby: the GROUP BY sweep at 2^28 over a spread of group counts, and its torch/CuPy peers;
# - io: CSV loads against DuckDB at 2^24 rows, the column file at 2^28 (DuckDB's library from
#   $GFXQ_DUCKDB_LIB, a path ending in .xz unpacked first);
# - skeletons (issue 23): multi-column sort, DISTINCT, set operations, PROJECT, PRODUCT at 2^24 and
#   2^26 with the sort of pairs beside them, and their torch peers;
# - expressions: SUM(a * b) by the expression kernel and through SQL, FLOAT x * y and x / y (fast path
#   and integer operations only), against the copy ceiling;
# - placement: auto's choice against each forced backend (src/engine/placement.h).
# Each part has its own time limit, so one slow part cannot take the others' output with it.
set -u
build=${1:?usage: gpu_session.sh BUILD_DIR [part...]}
shift
parts=${*:-tests compute raster sorts peers}
out=${OUT:-out}
mkdir -p "$out"
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp} GFXQ_TEST_VALIDATION=${GFXQ_TEST_VALIDATION:-0}
bench="$build/gfxq_bench"
export LD_LIBRARY_PATH="$build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"  # libgfxq.so travels with the build
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; } > "$out/device.txt" 2>&1
# The SM clock every 0.5 s while the parts run (the device lowers it when idle: BENCHMARKS.md,
# "Timing: the GPU kept busy"), summarised into device.txt at the end.
clocks=$(mktemp)
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader -lms 500 > "$clocks" 2>/dev/null &
smi=$!
trap 'kill $smi 2>/dev/null; { echo "SM clock samples (count, clock):"; sort "$clocks" | uniq -c | sort -rn; } >> "$out/device.txt"; rm -f "$clocks"' EXIT

run() {  # run NAME LIMIT_S COMMAND...: stdout to NAME.jsonl/.txt, stderr to NAME.err, status printed
  local name=$1 limit=$2
  shift 2
  timeout "$limit" "$@" > "$out/$name" 2> "$out/${name%.*}.err"
  echo "$name: exit $?"
}

for part in $parts; do
  case $part in
    tests) run tests.txt 120 "$build/tests/gfxq_tests" -tce='visual*' ;;  # no display there: no GLFW
    compute) run compute.jsonl 240 "$bench" --cases compute --log2 20,24,28 --repeats 10 ;;
    raster) run raster.jsonl 240 "$bench" --cases raster.ceiling,raster.co,raster.range,raster.cnf3,raster.sum,raster.kth,raster.join --log2 20,24,28 --repeats 5 ;;
    sorts) run sorts.jsonl 150 "$bench" --cases ceiling,sort --log2 20,24,28 --repeats 3 ;;
    peers) run peers.jsonl 150 python3 "$(dirname "$0")/peers.py" --log2 20,24,28 --repeats 10 ;;
    joins)
      run joins_equi.jsonl 420 "$bench" --cases compute.join_unique,compute.join_zipf --log2 24,27 --repeats 5
      run joins_band.jsonl 240 "$bench" --cases compute.join_band --log2 24 --repeats 5
      run joins_raster.jsonl 240 "$bench" --cases compute.join_band_raster_shape,raster.join_band --log2 20 --repeats 3
      run joins_peers.jsonl 200 python3 "$(dirname "$0")/peers.py" --cases join --log2 24,27 --repeats 5 ;;
    engine)
      run engine_tests.txt 210 "$build/tests/gfxq_tests" -tc='engine*,faults*,raster-faults*,compute: *,vk-join*,vk-group-by*,vk-expression*'
      run engine.jsonl 120 "$bench" --cases engine. --log2 20,24 --repeats 5
      # Warm and cold SQL at 2^28 beside the upload ceilings (issue 19: upload against the bus).
      run engine_2p28.jsonl 150 "$bench" --cases engine.sql_cold,engine.sql_warm,device.upload --log2 28 --repeats 5 ;;
    groupby)
      g=sweep.group_by_uniform_g4,sweep.group_by_uniform_g10,sweep.group_by_uniform_g14,sweep.group_by_uniform_g20
      g=$g,sweep.group_by_uniform_g24,sweep.group_by_uniform_g26,sweep.group_by_zipf_g10,sweep.group_by_zipf_g20
      run group_by.jsonl 150 "$bench" --cases "$g" --log2 28 --repeats 5
      run group_by_peers.jsonl 150 python3 "$(dirname "$0")/peers.py" --cases group_by --log2 28 --repeats 3 ;;
    io)
      # Loading data (bench/cases_io.cpp): CSV against DuckDB's reader, and the column file at 2^28.
      if [[ "${GFXQ_DUCKDB_LIB:-}" == *.xz ]]; then
        xz -dc "$GFXQ_DUCKDB_LIB" > "${TMPDIR:-/tmp}/gfxq_libduckdb.so"
        export GFXQ_DUCKDB_LIB="${TMPDIR:-/tmp}/gfxq_libduckdb.so"
      fi
      run io_csv.jsonl 360 "$bench" --cases io.csv --log2 24 --repeats 3
      run io_column.jsonl 120 "$bench" --cases io.column --log2 28 --repeats 3 ;;
    skeletons)
      s=compute.product_columns,compute.project_columns,compute.sort_rows_2keys,compute.distinct_rows
      s=$s,compute.distinct_rows_1slice,compute.distinct_rows_nostats,compute.distinct_rows_hash
      s=$s,compute.distinct_rows_sort,compute.union_rows,compute.intersect_rows,compute.intersect_rows_1slice
      s=$s,compute.intersect_rows_nostats,compute.intersect_rows_sort,compute.except_all_rows,compute.sort_pairs
      run skeletons.jsonl 360 "$bench" --cases "$s" --log2 24,26 --repeats 5
      run skeletons_tests.txt 120 "$build/tests/gfxq_tests" -tc='vk-skeletons*,engine-compute-sort*,engine-compute-distinct*,engine-compute-set-ops*,engine-compute-product*'
      run skeletons_peers.jsonl 150 python3 "$(dirname "$0")/peers.py" --cases distinct_rows,intersect_rows,sort_pairs --log2 24,26 --repeats 5 ;;
    expressions) run expressions.jsonl 240 "$bench" --cases expr --log2 24,28 --repeats 10 ;;
    placement)
      # Auto placement by cost against every forced backend, whole queries through the Engine (wall time).
      run placement.jsonl 300 "$bench" --cases placement. --log2 16,20,24 --repeats 3 ;;
    *) echo "unknown part $part (tests, compute, raster, sorts, peers, joins, engine, groupby, io, skeletons, expressions, placement)" >&2; exit 2 ;;
  esac
done
