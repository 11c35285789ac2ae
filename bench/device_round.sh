#!/usr/bin/env bash
# One GPU-machine round for the engine issues (BENCHMARKS.md "Engine round"): the engine, join and
# GROUP BY tests on the real driver, the engine's warm/cold and SQL cases, the joins and GROUP BY
# operators with their ceilings, and the torch/CuPy peers, each part under its own time limit.
#   . .gl/gpu-env.sh; bash bench/device_round.sh BUILD_DIR [tests] [engine] [joins] [groupby] [peers]
set -u
build=${1:?usage: device_round.sh BUILD_DIR [part...]}
shift
parts=${*:-tests engine joins groupby peers}
out=${OUT:-out}
mkdir -p "$out"
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp} GFXQ_TEST_VALIDATION=${GFXQ_TEST_VALIDATION:-0}
bench="$build/gfxq_bench"
export LD_LIBRARY_PATH="$build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; } > "$out/device.txt" 2>&1
run() {  # run NAME LIMIT_S COMMAND...
  local name=$1 limit=$2
  shift 2
  timeout "$limit" "$@" > "$out/$name" 2> >(sed "s|^|$name: |" >> "$out/errors.txt")
  echo "$name: exit $?" | tee -a "$out/errors.txt"
}
g="sweep.group_by_uniform_g4,sweep.group_by_uniform_g10,sweep.group_by_uniform_g14,sweep.group_by_uniform_g20"
g="$g,sweep.group_by_uniform_g24,sweep.group_by_uniform_g26,sweep.group_by_zipf_g10,sweep.group_by_zipf_g20"
for part in $parts; do
  case $part in
    tests) run tests.txt 150 "$build/tests/gfxq_tests" -tc='engine*,faults*,compute: *,vk-join*,vk-group-by*' ;;
    engine) run engine.jsonl 120 "$bench" --cases engine. --log2 20,24 --repeats 5 ;;
    joins) run joins.jsonl 150 "$bench" --cases compute.join_unique_auto,compute.join_zipf_auto --log2 24,27 --repeats 5 ;;
    groupby) run group_by.jsonl 150 "$bench" --cases "$g" --log2 28 --repeats 5 ;;
    peers)
      run peers_join.jsonl 90 python3 "$(dirname "$0")/peers.py" --cases join --log2 24,27 --repeats 5
      run peers_group_by.jsonl 200 python3 "$(dirname "$0")/peers.py" --cases group_by --log2 28 --repeats 5 ;;
    *) echo "unknown part $part" >&2; exit 2 ;;
  esac
done
