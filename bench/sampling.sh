#!/usr/bin/env bash
# sampling.sh - overhead of CPU sampling: the same fixed work (Sample burn:
# CPU-bound, split over 2 threads and over 50 threads) run plain, under
# clrprobe sampling only (--collect cpu, 100 Hz), under clrprobe's default
# collection (everything, 100 Hz), and under the runtime's own EventPipe
# sample profiler (what dotnet-trace's CPU sampling uses; its fixed 1 kHz
# rate) - alternating the configurations round by round in one session.
# Prints median wall times and the ratios to the plain run.
# Targets: clrprobe sampling <= 1.02 with 2 threads; below EventPipe at
# every thread count.
#   bench/sampling.sh [ROUNDS] [UNITS]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${1:-7}
UNITS=${2:-2400000}              # ~2.7 s of CPU work on this machine
SAMPLE="$ROOT/build/sample/Sample"
CLRPROBE="$ROOT/build/clrprobe"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
TIMEFORMAT='%R'

timed() {   # file command...: appends the wall time of the command
    local file=$1 t
    shift
    t=$({ time "$@" >"$OUT/last.out" 2>/dev/null; } 2>&1)
    echo "$t" >>"$file"
}

median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo "clrprobe sampling overhead: Sample burn (fixed CPU work), $ROUNDS rounds per configuration, alternating"
printf '  %-8s %-34s %10s %8s\n' threads configuration "wall (s)" ratio
for threads in 2 50; do
    "$SAMPLE" burn "$threads" >/dev/null             # warm-up
    for ((i = 1; i <= ROUNDS; i++)); do
        timed "$OUT/plain-$threads" "$SAMPLE" burn "$threads" "$UNITS"
        timed "$OUT/cpu-$threads" "$CLRPROBE" run -o "$OUT/t.clrp" --collect cpu --rate 100 -- "$SAMPLE" burn "$threads" "$UNITS"
        timed "$OUT/all-$threads" "$CLRPROBE" run -o "$OUT/t.clrp" --rate 100 -- "$SAMPLE" burn "$threads" "$UNITS"
        timed "$OUT/ep-$threads" env DOTNET_EnableEventPipe=1 DOTNET_EventPipeOutputPath="$OUT/t.nettrace" \
            DOTNET_EventPipeConfig='Microsoft-DotNETCore-SampleProfiler:0:5' "$SAMPLE" burn "$threads" "$UNITS"
    done
    base=$(median "$OUT/plain-$threads")
    for cfg in plain cpu all ep; do
        case $cfg in
            plain) label="unprofiled" ;;
            cpu) label="clrprobe --collect cpu (100 Hz)" ;;
            all) label="clrprobe default: all (100 Hz)" ;;
            ep) label="EventPipe SampleProfiler (1 kHz)" ;;
        esac
        m=$(median "$OUT/$cfg-$threads")
        awk -v t="$threads" -v l="$label" -v m="$m" -v b="$base" \
            'BEGIN { printf "  %-8s %-34s %10.3f %8.3f\n", t, l, m, m / b }'
    done
done
echo "  targets: clrprobe --collect cpu <= 1.02 at 2 threads; clrprobe below EventPipe at every thread count"
