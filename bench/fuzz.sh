#!/usr/bin/env bash
# Differential fuzzing for a long time (docs/RELIABILITY.md): build/gfxq_fuzz in chunks of at most
# 10 minutes, each with a fresh seed, until MINUTES have passed; every chunk's log (seed, progress,
# each failure minimised to a small table and query, counts) is kept in OUT_DIR.
#
#   bench/fuzz.sh [MINUTES] [OUT_DIR] [gfxq_fuzz options...]
#
# Defaults: 60 minutes, fuzz-runs/<date>. Extra options go to gfxq_fuzz, e.g. --backends compute
# (on a machine without a GL driver), --max-rows 5000 --large-rows 200000 (larger tables on a GPU),
# --debug (with the Vulkan validation layer installed). Exit status 1 when any answer differed.
set -euo pipefail
cd "$(dirname "$0")/.."
MINUTES=${1:-60}
OUT=${2:-fuzz-runs/$(date +%Y%m%d-%H%M%S)}
shift $(($# < 2 ? $# : 2))
[ -x build/gfxq_fuzz ] || cmake --build build --target gfxq_fuzz > /dev/null
mkdir -p "$OUT"
end=$(($(date +%s) + MINUTES * 60))
chunk=0
failures=0
while [ "$(date +%s)" -lt "$end" ]; do
  left=$(((end - $(date +%s)) / 60))
  [ "$left" -ge 1 ] || left=1
  minutes=$((left < 10 ? left : 10))
  seed=$(od -An -N8 -tu8 /dev/urandom | tr -d ' ')
  chunk=$((chunk + 1))
  log="$OUT/chunk$chunk.log"
  status=0
  build/gfxq_fuzz --seed "$seed" --minutes "$minutes" "$@" > "$log" 2>&1 || status=$?
  [ "$status" -eq 0 ] || failures=$((failures + 1))
  echo "chunk $chunk: seed $seed, $(grep -o 'cases [0-9]*, answers compared [^0-9]*[0-9]*' "$log" | tail -1), exit $status"
done
echo "$chunk chunks in $OUT, $failures with differences (grep FAILURE $OUT/*.log)"
[ "$failures" -eq 0 ]
