#!/usr/bin/env bash
# run.sh - overhead benchmark: the sample's fixed-work scenario (JIT- and
# thread-heavy: ~3,000 methods compiled, ~3,000 classes loaded, 80 threads)
# run directly and under `clrprobe run` with the default collection,
# alternating the two in one session so both see the same machine.  Prints
# the median wall and CPU (user+sys) time of each and the ratios
# profiled / unprofiled (target: wall ratio at most 1.05).
#   bench/run.sh [ROUNDS] [WORK_N]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${1:-15}
WORK_N=${2:-20}
SAMPLE="$ROOT/build/sample/Sample"
CLRPROBE="$ROOT/build/clrprobe"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
TIMEFORMAT='%R %U %S'

# run_timed FILE CMD...: appends "wall cpu" (seconds) of CMD to FILE
run_timed() {
    local file=$1 t
    shift
    t=$({ time "$@" >"$OUT/last.out" 2>/dev/null; } 2>&1)
    echo "$t" | awk '{print $1, $2 + $3}' >>"$file"
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

"$SAMPLE" work "$WORK_N" >"$OUT/expected.out"          # warm-up, and the reference output
"$CLRPROBE" run -o "$OUT/warm.clrp" -- "$SAMPLE" work "$WORK_N" >/dev/null 2>&1

for ((i = 1; i <= ROUNDS; i++)); do
    run_timed "$OUT/plain" "$SAMPLE" work "$WORK_N"
    cmp -s "$OUT/expected.out" "$OUT/last.out" || { echo "bench: unexpected output" >&2; exit 1; }
    run_timed "$OUT/prof" "$CLRPROBE" run -o "$OUT/bench.clrp" -- "$SAMPLE" work "$WORK_N"
    cmp -s "$OUT/expected.out" "$OUT/last.out" || { echo "bench: output differs under the profiler" >&2; exit 1; }
done

pw=$(awk '{print $1}' "$OUT/plain" | median); pc=$(awk '{print $2}' "$OUT/plain" | median)
qw=$(awk '{print $1}' "$OUT/prof" | median);  qc=$(awk '{print $2}' "$OUT/prof" | median)
events=$("$CLRPROBE" report "$OUT/bench.clrp" --format jsonl | wc -l)
size=$(stat -c %s "$OUT/bench.clrp")

echo "clrprobe overhead benchmark: Sample work $WORK_N, $ROUNDS rounds each, alternating"
awk -v pw="$pw" -v pc="$pc" -v qw="$qw" -v qc="$qc" -v ev="$((events - 1))" -v sz="$size" 'BEGIN {
    printf "                 wall (median)   cpu user+sys (median)\n"
    printf "  unprofiled     %8.3f s       %8.3f s\n", pw, pc
    printf "  profiled       %8.3f s       %8.3f s\n", qw, qc
    printf "  ratio          %8.3f         %8.3f      (profiled / unprofiled; target: wall <= 1.05)\n", qw / pw, qc / pc
    printf "  trace          %d events, %d bytes\n", ev, sz
}'
