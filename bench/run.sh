#!/usr/bin/env bash
# run.sh - overhead benchmark on a JIT- and thread-heavy workload: the
# sample's fixed-work scenario (~3,000 methods compiled, ~3,000 classes
# loaded, 80 threads, 4 running at a time on this 2-core machine) run
# directly, under `clrprobe run` recording the runtime's events (everything
# but CPU sampling: the launch-mode events), and under the default
# collection (events + CPU sampling at 100 Hz) - alternating the three
# round by round so all see the same machine.  Prints median wall and CPU
# (user+sys) times and the ratios to the plain run.
# Target (events): wall ratio at most 1.05.
#   bench/run.sh [ROUNDS] [WORK_N]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${1:-15}
WORK_N=${2:-20}
SAMPLE="$ROOT/build/sample/Sample"
CLRPROBE="$ROOT/build/clrprobe"
EVENTS=appdomains,assemblies,modules,classes,jit,threads,gc,suspensions,exceptions
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
TIMEFORMAT='%R %U %S'

# run_timed FILE CMD...: appends "wall cpu" (seconds) of CMD to FILE
run_timed() {
    local file=$1 t
    shift
    t=$({ time "$@" >"$OUT/last.out" 2>/dev/null; } 2>&1)
    echo "$t" | awk '{print $1, $2 + $3}' >>"$file"
    cmp -s "$OUT/expected.out" "$OUT/last.out" || { echo "bench: the output differs: $*" >&2; exit 1; }
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

"$SAMPLE" work "$WORK_N" >"$OUT/expected.out"          # warm-up, and the reference output
"$CLRPROBE" run -o "$OUT/warm.clrp" -- "$SAMPLE" work "$WORK_N" >/dev/null 2>&1

for ((i = 1; i <= ROUNDS; i++)); do
    run_timed "$OUT/plain" "$SAMPLE" work "$WORK_N"
    run_timed "$OUT/events" "$CLRPROBE" run -o "$OUT/events.clrp" --collect "$EVENTS" -- "$SAMPLE" work "$WORK_N"
    run_timed "$OUT/all" "$CLRPROBE" run -o "$OUT/all.clrp" -- "$SAMPLE" work "$WORK_N"
done

echo "clrprobe overhead benchmark: Sample work $WORK_N (JIT- and thread-heavy), $ROUNDS rounds each, alternating"
printf '  %-44s %12s %14s %8s %8s\n' configuration "wall median" "cpu median" "wall" "cpu"
pw=$(awk '{print $1}' "$OUT/plain" | median); pc=$(awk '{print $2}' "$OUT/plain" | median)
for cfg in plain events all; do
    case $cfg in
        plain) label="unprofiled" ;;
        events) label="clrprobe run, events (all but cpu)" ;;
        all) label="clrprobe run, default (events + cpu 100 Hz)" ;;
    esac
    w=$(awk '{print $1}' "$OUT/$cfg" | median); c=$(awk '{print $2}' "$OUT/$cfg" | median)
    awk -v l="$label" -v w="$w" -v c="$c" -v pw="$pw" -v pc="$pc" \
        'BEGIN { printf "  %-44s %10.3f s %12.3f s %8.3f %8.3f\n", l, w, c, w / pw, c / pc }'
done
events=$("$CLRPROBE" report "$OUT/events.clrp" --format jsonl | wc -l)
echo "  events trace: $((events - 1)) events, $(stat -c %s "$OUT/events.clrp") bytes"
echo "  target: events wall ratio <= 1.05 (CPU sampling's own overhead: bench/sampling.sh)"
