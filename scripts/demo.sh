#!/usr/bin/env bash
# demo.sh - the main job on the bundled sample: profile it with clrprobe and
# write what an engineer looks at: the text summary of `Sample all` (JIT,
# threads, GCs, exceptions, collectible assemblies) and a CPU flame graph of
# `Sample work` (a JIT- and thread-heavy workload), all in build/demo/.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/build/demo"
CLRPROBE="$ROOT/build/clrprobe"
mkdir -p "$OUT"

echo "== profiling: clrprobe run -o build/demo/sample.clrp -- build/sample/Sample all"
"$CLRPROBE" run -o "$OUT/sample.clrp" -- "$ROOT/build/sample/Sample" all >"$OUT/sample.stdout"
"$CLRPROBE" report "$OUT/sample.clrp" --format jsonl -o "$OUT/sample.jsonl"
"$CLRPROBE" report "$OUT/sample.clrp" -o "$OUT/report.txt"
echo
cat "$OUT/report.txt"

echo
echo "== profiling: clrprobe run -o build/demo/work.clrp -- build/sample/Sample work 20"
"$CLRPROBE" run -o "$OUT/work.clrp" -- "$ROOT/build/sample/Sample" work 20 >"$OUT/work.stdout"
"$CLRPROBE" report "$OUT/work.clrp" --format html -o "$OUT/flamegraph.html"
"$CLRPROBE" report "$OUT/work.clrp" --format collapsed -o "$OUT/work.collapsed"
"$CLRPROBE" report "$OUT/work.clrp" --format speedscope -o "$OUT/work.speedscope.json"
"$CLRPROBE" report "$OUT/work.clrp" --format pprof -o "$OUT/work.pb.gz"
"$CLRPROBE" report "$OUT/work.clrp" | sed -n '/^Where time goes/,/^  Top functions by total/p' | head -16
echo
echo "== written to build/demo/:"
echo "   report.txt          summary of Sample all (sample.clrp is the trace, sample.jsonl every event)"
echo "   flamegraph.html     CPU flame graph of Sample work 20: open it in a browser"
echo "   work.collapsed, work.speedscope.json, work.pb.gz   the same profile for flamegraph.pl,"
echo "                       speedscope.app and 'go tool pprof'"
