#!/usr/bin/env bash
# attach.sh - attach and detach latency: repeated `clrprobe attach` cycles on
# one running sample process.  Attach latency is from the command's start to
# the end of the catch-up (as the command measures it); detach latency is
# from the detach request to ProfilerDetachSucceeded having closed the trace.
# Prints the median and range of each (targets: attach <= 100 ms; detach <=
# the runtime's minimum detach poll, 300 ms, plus 100 ms).
#   bench/attach.sh [CYCLES]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CYCLES=${1:-15}
SAMPLE="$ROOT/build/sample/Sample"
CLRPROBE="$ROOT/build/clrprobe"
OUT=$(mktemp -d)
trap 'kill $TPID 2>/dev/null || true; rm -rf "$OUT"' EXIT

"$SAMPLE" spin 600 >"$OUT/target.out" &
TPID=$!
for _ in $(seq 1 100); do grep -q started "$OUT/target.out" && break; sleep 0.05; done

for ((i = 1; i <= CYCLES; i++)); do
    "$CLRPROBE" attach "$TPID" -o "$OUT/cycle.clrp" --duration 1ms 2>"$OUT/err" >/dev/null
    sed -n 's/.*attached to process [0-9]* in \([0-9.]*\) ms.*/\1/p' "$OUT/err" >>"$OUT/attach"
    sed -n 's/.*detached from process [0-9]* in \([0-9.]*\) ms.*/\1/p' "$OUT/err" >>"$OUT/detach"
done

stats() { sort -n "$1" | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2;
                                                printf "median %7.1f ms   min %7.1f   max %7.1f   (%d cycles)", m, a[1], a[NR], NR}'; }
echo "clrprobe attach/detach latency on a running sample (Sample spin), $CYCLES cycles"
echo "  attach (command start -> catch-up done)      $(stats "$OUT/attach")   target <= 100 ms"
echo "  detach (request -> ProfilerDetachSucceeded)  $(stats "$OUT/detach")   target <= 400 ms"
