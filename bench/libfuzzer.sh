#!/usr/bin/env bash
# Runs the libFuzzer targets (fuzz/) for a given amount of CPU time each, at low priority.
#
#   bench/libfuzzer.sh [CPU_SECONDS] [TARGET...]      (default 600 s; targets sql csv)
#
# Builds build-fuzz with clang (GFXQ_BUILD_FUZZERS=ON) when needed, copies the committed corpus
# into a working corpus (fuzz-work/<target>/), runs each target under `nice -n 19` until the
# process has used CPU_SECONDS of CPU time (user + system, read from /proc, so a busy machine only
# stretches the wall time), then stops it with SIGINT so libFuzzer prints its final statistics.
# Findings land in fuzz-work/<target>/findings/; a finding is fixed when its reproducer is copied
# into fuzz/findings/<target>/ (replayed by ctest from then on) and passes.
set -euo pipefail
cd "$(dirname "$0")/.."
CPU_SECONDS=${1:-600}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(sql csv)

if [ ! -x build-fuzz/gfxq_fuzz_sql ] || [ ! -x build-fuzz/gfxq_fuzz_csv ]; then
  cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_C_COMPILER=clang -DGFXQ_BUILD_FUZZERS=ON -DGFXQ_BUILD_TESTS=OFF -DGFXQ_BUILD_DEMOS=OFF \
    -DGFXQ_BUILD_BENCH=OFF > /dev/null
fi
cmake --build build-fuzz --target gfxq_fuzz_sql gfxq_fuzz_csv > /dev/null

ticks=$(getconf CLK_TCK)
for t in "${TARGETS[@]}"; do
  work=fuzz-work/$t
  mkdir -p "$work/corpus" "$work/findings"
  cp -n fuzz/corpus/"$t"/* "$work/corpus/" 2> /dev/null || true
  log=$work/log.txt
  nice -n 19 build-fuzz/gfxq_fuzz_"$t" -dict=fuzz/"$t".dict -max_len=8192 -timeout=20 -rss_limit_mb=3000 \
    -print_final_stats=1 -artifact_prefix="$work/findings/" "$work/corpus" > "$log" 2>&1 &
  pid=$!
  start=$(date +%s)
  while kill -0 "$pid" 2> /dev/null; do
    read -r -a stat < /proc/$pid/stat || break
    used=$(((stat[13] + stat[14]) / ticks))
    if [ "$used" -ge "$CPU_SECONDS" ]; then
      kill -INT "$pid"
      break
    fi
    sleep 5
  done
  wait "$pid" || true
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  echo "$t: ${used:-?} CPU s, $(( $(date +%s) - start )) s wall, $runs inputs, $cov, findings: $(ls "$work/findings" | wc -l)"
done
