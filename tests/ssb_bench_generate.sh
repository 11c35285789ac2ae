#!/usr/bin/env bash
# gfxq_ssb_bench --generate against --data (ctest ssb_bench_generate): on gfxq-cpu at SF 0.01 the
# tables made in memory (the queries' columns, and --all-columns) answer every query with the rows
# of the files' tables and name the same bytes; the load line says where the tables came from; and
# --generate with DuckDB is refused with the reason.
#   bash tests/ssb_bench_generate.sh GFXQ_SSB_BENCH GFXQ
set -euo pipefail
bench=$1
gfxq=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$gfxq" gen ssb --sf 0.01 --seed 3 --out "$dir/data" --threads 2 > /dev/null
run() { "$bench" "$@" --sf 0.01 --engines gfxq-cpu --repeats 1 --warmup 0 --threads 2; }
run --data "$dir/data" > "$dir/csv.jsonl"
run --generate --seed 3 > "$dir/generated.jsonl"
run --generate --seed 3 --all-columns > "$dir/all.jsonl"
python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
load = lambda name: [json.loads(line) for line in open(f"{d}/{name}.jsonl")]
csv, gen, full = load("csv"), load("generated"), load("all")
assert csv[0]["source"] == "csv" and gen[0]["source"] == full[0]["source"] == "generated", (csv[0], gen[0])
assert full[0]["columns"] == csv[0]["columns"] > gen[0]["columns"] > 0, (csv[0], gen[0], full[0])
answers = lambda lines: [(x["query"], x["rows"], x["bytes"]) for x in lines[1:]]
assert len(csv) == 14 and not any("error" in x for x in csv + gen + full), "a query failed"
assert answers(gen) == answers(csv) == answers(full), (answers(gen), answers(csv))
print("ok:", len(csv) - 1, "queries,", gen[0]["columns"], "of", csv[0]["columns"], "columns generated")
PY
if "$bench" --generate --sf 0.01 --engines gfxq-cpu,duckdb 2> "$dir/err"; then
  echo "--generate with duckdb ran" >&2
  exit 1
fi
grep -q "DuckDB reads the CSV files" "$dir/err" || { cat "$dir/err" >&2; exit 1; }
