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
  start=$(date +%s)
  used=0  # CPU seconds of the finished processes
  round=0
  # libFuzzer stops at a finding (or a timeout on an overloaded machine); it is restarted on the
  # grown corpus until the CPU time of all its processes reaches CPU_SECONDS.
  while [ "$used" -lt "$CPU_SECONDS" ]; do
    round=$((round + 1))
    log=$work/log$round.txt
    nice -n 19 build-fuzz/gfxq_fuzz_"$t" -dict=fuzz/"$t".dict -max_len=8192 -timeout=120 -rss_limit_mb=3000 \
      -print_final_stats=1 -artifact_prefix="$work/findings/" "$work/corpus" > "$log" 2>&1 &
    pid=$!
    this=0
    while kill -0 "$pid" 2> /dev/null; do
      read -r -a stat < /proc/$pid/stat || break
      this=$(((stat[13] + stat[14]) / ticks))
      if [ $((used + this)) -ge "$CPU_SECONDS" ]; then
        kill -INT "$pid"
        break
      fi
      sleep 5
    done
    wait "$pid" || true
    used=$((used + this))
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    echo "$t round $round: $this CPU s, $runs inputs, $(grep -o 'cov: [0-9]*' "$log" | tail -1), $(grep -c 'Test unit written' "$log") artifacts"
  done
  echo "$t: $used CPU s in $round rounds, $(( $(date +%s) - start )) s wall, findings: $(ls "$work/findings" | wc -l) (slow units and timeouts included: replay them to check)"
done
