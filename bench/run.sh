#!/usr/bin/env bash
# run.sh - overhead benchmark: wall time of the sample's fixed-work scenario
# (JIT- and thread-heavy: ~2,700 methods compiled, 80 threads) run directly
# and under `clrprobe run` with the default collection, alternating the two
# in one session so both see the same machine.  Prints the median of each
# and the ratio profiled / unprofiled (target: at most 1.05).
#   bench/run.sh [ROUNDS] [WORK_N]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${1:-7}
WORK_N=${2:-20}
SAMPLE="$ROOT/build/sample/Sample"
CLRPROBE="$ROOT/build/clrprobe"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

now_ns() { date +%s%N; }

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }

# warm the file cache and the sample once each way
"$SAMPLE" work "$WORK_N" >/dev/null
"$CLRPROBE" run -o "$OUT/warm.clrp" -- "$SAMPLE" work "$WORK_N" >/dev/null 2>&1

plain=()
prof=()
for ((i = 1; i <= ROUNDS; i++)); do
    t0=$(now_ns); "$SAMPLE" work "$WORK_N" >"$OUT/plain.out"; t1=$(now_ns)
    plain+=($(( (t1 - t0) / 1000 )))
    t0=$(now_ns); "$CLRPROBE" run -o "$OUT/bench.clrp" -- "$SAMPLE" work "$WORK_N" >"$OUT/prof.out" 2>/dev/null
    t1=$(now_ns)
    prof+=($(( (t1 - t0) / 1000 )))
    cmp -s "$OUT/plain.out" "$OUT/prof.out" || { echo "bench: output differs under the profiler" >&2; exit 1; }
done

p=$(printf '%s\n' "${plain[@]}" | median)
q=$(printf '%s\n' "${prof[@]}" | median)
events=$("$CLRPROBE" report "$OUT/bench.clrp" --format jsonl | wc -l)
size=$(stat -c %s "$OUT/bench.clrp")

ms_list() { printf '%s\n' "$@" | awk '{printf "%s%.0f", (NR>1?" ":""), $1/1000}'; }

echo "clrprobe overhead benchmark: Sample work $WORK_N, $ROUNDS rounds each, alternating"
awk -v p="$p" -v q="$q" -v pl="$(ms_list "${plain[@]}")" -v pr="$(ms_list "${prof[@]}")" \
    -v ev="$((events - 1))" -v sz="$size" 'BEGIN {
    printf "  unprofiled   median %8.1f ms   (runs, ms: %s)\n", p / 1000, pl
    printf "  profiled     median %8.1f ms   (runs, ms: %s)\n", q / 1000, pr
    printf "  trace        %d events, %d bytes\n", ev, sz
    printf "  ratio        %.3f (profiled / unprofiled; target <= 1.05)\n", q / p
}'
