#!/usr/bin/env bash
# exceptions.sh - what following exceptions costs a program that throws
# 100,000 of them a second, side by side in one run: `Sample ehbench`
# throws and catches COUNT exceptions (two frames between thrower and
# catcher), each after a fixed amount of arithmetic calibrated on this
# machine so that the unprofiled program throws RATE a second.  Rounds
# alternate unprofiled, under `clrprobe run --collect exceptions` (type,
# message, throw stack, the state machine, every record) and, for
# reference, under `clrprobe run --collect jit` (the agent loaded, exceptions
# not followed).  Prints the medians of the elapsed times and their ratios
# to unprofiled.  Target: exceptions / unprofiled <= 1.10.
#   bench/exceptions.sh [ROUNDS] [COUNT] [RATE]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${1:-7}
COUNT=${2:-300000}
RATE=${3:-100000}
SAMPLE="$ROOT/build/sample/Sample"
CLRPROBE="$ROOT/build/clrprobe"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

for bin in "$SAMPLE" "$CLRPROBE"; do
    [[ -x $bin ]] || { echo "exceptions.sh: $bin is missing; run 'make all' first" >&2; exit 1; }
done

SPIN=$("$SAMPLE" ehbench calibrate "$RATE" | sed -n 's/^spin //p')
[[ -n $SPIN ]] || { echo "exceptions.sh: calibration failed" >&2; exit 1; }

# run CONFIG: one run; its elapsed seconds appended to OUT/CONFIG.
run() {
    local cfg=$1 cmd=("$SAMPLE" ehbench "$COUNT" "$SPIN")
    rm -f "$OUT/t.clrp"
    case $cfg in
        exceptions) cmd=("$CLRPROBE" run -o "$OUT/t.clrp" --collect exceptions -- "${cmd[@]}") ;;
        agent) cmd=("$CLRPROBE" run -o "$OUT/t.clrp" --collect jit -- "${cmd[@]}") ;;
    esac
    "${cmd[@]}" >"$OUT/out" 2>"$OUT/err" || { echo "exceptions.sh: $cfg run failed: $(cat "$OUT/err")" >&2; exit 1; }
    sed -n 's/^ehbench: [0-9]* exceptions in \([0-9.]*\) s .*/\1/p' "$OUT/out" >>"$OUT/$cfg"
    if [[ $cfg == exceptions ]]; then
        "$CLRPROBE" report "$OUT/t.clrp" --format jsonl 2>/dev/null |
            grep -c '"kind":"exception_handled"' >>"$OUT/handled" || true
    fi
}

median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

for ((r = 0; r < ROUNDS; r++)); do
    run plain
    run exceptions
    run agent
done

plain=$(median "$OUT/plain")
exc=$(median "$OUT/exceptions")
agent=$(median "$OUT/agent")
printf 'exceptions.sh: %d exceptions, %s rounds of spin each (%s/s unprofiled, calibrated for %s/s), medians of %d rounds\n' \
    "$COUNT" "$SPIN" "$(awk -v c="$COUNT" -v s="$plain" 'BEGIN {printf "%.0f", c / s}')" "$RATE" "$ROUNDS"
printf '  unprofiled                      %.3f s\n' "$plain"
printf '  --collect exceptions            %.3f s   ratio %.3f   (target <= 1.10; %s exception_handled records in the last trace)\n' \
    "$exc" "$(awk -v a="$exc" -v b="$plain" 'BEGIN {print a / b}')" "$(tail -1 "$OUT/handled")"
printf '  --collect jit (agent, no exceptions followed)  %.3f s   ratio %.3f\n' \
    "$agent" "$(awk -v a="$agent" -v b="$plain" 'BEGIN {print a / b}')"
