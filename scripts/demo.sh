#!/usr/bin/env bash
# demo.sh - the main job on the bundled sample: profile `Sample all` with
# clrprobe, then write the text summary and the JSON-lines export next to
# the trace in build/demo/, and show the summary.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/build/demo"
mkdir -p "$OUT"

echo "== profiling: clrprobe run -o build/demo/sample.clrp -- build/sample/Sample all"
"$ROOT/build/clrprobe" run -o "$OUT/sample.clrp" -- "$ROOT/build/sample/Sample" all >"$OUT/sample.stdout"
"$ROOT/build/clrprobe" report "$OUT/sample.clrp" --format jsonl -o "$OUT/sample.jsonl"
"$ROOT/build/clrprobe" report "$OUT/sample.clrp" -o "$OUT/report.txt"
echo
cat "$OUT/report.txt"
echo
echo "== written: build/demo/sample.clrp (trace), build/demo/report.txt (summary),"
echo "   build/demo/sample.jsonl (one JSON object per event), build/demo/sample.stdout (the program's output)"
