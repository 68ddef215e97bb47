#!/usr/bin/env bash
# alloc.sh - overhead benchmark of allocation profiling on two allocation-heavy
# workloads of fixed work: `Sample json rounds 3000` (a service-like loop:
# orders built, serialized and parsed back with System.Text.Json, ~650 MB/s
# of allocation on one thread, deep stacks) and `Sample alloc rounds N` (a
# stress: N x 4 MiB of byte[1000] and 32-byte objects dying young, as fast as
# it allocates - ~15 GB/s here, ~150,000 samples a second at one per 100 KiB:
# every sample's cost shows).  Each runs unprofiled, under `clrprobe run
# --collect alloc,live`, and under dotnet-trace collecting the same events
# into a file (the runtime's AllocationSampled, keyword 0x80000000000;
# dotnet-trace 10.0.750501 installed into build/bench-tools), alternating
# round by round so all see the same machine; `--collect alloc-all` (every
# allocation, exact) runs once per workload (its ratio is large).  Prints per configuration the median wall time of the whole
# process and of the workload alone (the sample's own elapsed_ms: no start-up,
# no rundown), their ratios to the unprofiled run, the cost per 100 KiB
# allocated (per sample) and what that makes at 1 GB/s, and clrprobe's ratio
# to dotnet-trace's.  Measures only, never asserts a time.
# Targets: clrprobe alloc,live wall ratio <= 1.03, and not above dotnet-trace's.
#   bench/alloc.sh [ROUNDS] [ALLOC_ROUNDS]   (defaults 5 and 4000, ~2 min; CLRPROBE=path: another build)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${1:-5}
ALLOC_N=${2:-4000}
JSON_N=3000
SAMPLE="$ROOT/build/sample/Sample"
CLRPROBE="${CLRPROBE:-$ROOT/build/clrprobe}"
TOOLS="$ROOT/build/bench-tools"
DOTNET_TRACE=$TOOLS/dotnet-trace
PROVIDERS='Microsoft-Windows-DotNETRuntime:0x80000000000:4'   # AllocationSampling keyword, informational
SAMPLE_BYTES=102400                                           # the runtime's mean distance between samples
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
TIMEFORMAT='%R'
[ -x "$CLRPROBE" ] && [ -x "$SAMPLE" ] || make -s -C "$ROOT" all >/dev/null

if [ ! -x "$DOTNET_TRACE" ] &&
   ! dotnet tool install --tool-path "$TOOLS" dotnet-trace --version 10.0.750501 >"$OUT/install.log" 2>&1; then
    echo "alloc.sh: dotnet-trace could not be installed; measuring without it:"
    sed 's/^/  | /' "$OUT/install.log"
fi

# The configurations, in the order they run in each round (alloc-all: once, after them).
configs=(plain alloc_live)
[ -x "$DOTNET_TRACE" ] && configs+=(dotnet_trace)
label() {
    case $1 in
        plain) echo "unprofiled" ;;
        alloc_live) echo "clrprobe run --collect alloc,live" ;;
        alloc_all) echo "clrprobe run --collect alloc-all" ;;
        dotnet_trace) echo "dotnet-trace collect (file)" ;;
    esac
}
run_config() {   # CONFIG ROUNDS: runs `Sample $W rounds ROUNDS` as CONFIG does
    case $1 in
        plain) "$SAMPLE" "$W" rounds "$2" ;;
        alloc_live) "$CLRPROBE" run --collect alloc,live -o "$OUT/alloc_live.clrp" -- "$SAMPLE" "$W" rounds "$2" ;;
        alloc_all) "$CLRPROBE" run --collect alloc-all -o "$OUT/alloc_all.clrp" -- "$SAMPLE" "$W" rounds "$2" ;;
        dotnet_trace) "$DOTNET_TRACE" collect --providers "$PROVIDERS" -o "$OUT/dotnet_trace.nettrace" \
            --show-child-io -- "$SAMPLE" "$W" rounds "$2" ;;
    esac
}

# run_timed CONFIG: appends "wall workload_ms" of one run of CONFIG to $OUT/CONFIG.times
run_timed() {
    local t ms
    rm -f "$OUT/$1.clrp" "$OUT/$1.nettrace"
    t=$({ time run_config "$1" "$N" >"$OUT/last.out" 2>"$OUT/last.err"; } 2>&1) ||
        { echo "alloc.sh: $(label "$1") failed"; cat "$OUT/last.out" "$OUT/last.err"; exit 1; }
    cmp -s "$OUT/expected.out" "$OUT/last.out" || { echo "alloc.sh: the output differs: $(label "$1")"; exit 1; }
    ms=$(sed -n 's/^truth [a-z]* total .* elapsed_ms=\([0-9.]*\)$/\1/p' "$OUT/last.err")
    [ -n "$ms" ] || { echo "alloc.sh: no elapsed_ms from $(label "$1")"; cat "$OUT/last.err"; exit 1; }
    echo "$t $ms" >>"$OUT/$1.times"
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# bench WORKLOAD N: one workload, every configuration, its table.
bench() {
    W=$1 N=$2
    local cfg kept=() bytes pw pm w m n
    rm -f "$OUT"/*.times
    # The reference output, the bytes allocated, and a warm-up of every configuration (a clrprobe that refuses,
    # e.g. a collect kind this build does not know, is left out and said so).
    "$SAMPLE" "$W" rounds "$N" >"$OUT/expected.out" 2>"$OUT/expected.err"
    bytes=$(sed -n 's/^truth [a-z]* total .* bytes=\([0-9]*\) .*/\1/p' "$OUT/expected.err")
    for cfg in "${configs[@]}" alloc_all; do
        if run_config "$cfg" 10 >/dev/null 2>"$OUT/warm.err"; then
            kept+=("$cfg")
        elif [ "$cfg" = plain ] || [ "$cfg" = dotnet_trace ]; then
            echo "alloc.sh: $(label "$cfg") failed:"; sed 's/^/  | /' "$OUT/warm.err"; exit 1
        else
            echo "alloc.sh: $(label "$cfg") fails with this build, left out:"; sed 's/^/  | /' "$OUT/warm.err"
        fi
    done
    has() { [[ " ${kept[*]} " == *" $1 "* ]]; }
    for ((i = 1; i <= ROUNDS; i++)); do
        for cfg in "${configs[@]}"; do has "$cfg" && run_timed "$cfg"; done
    done
    has alloc_all && run_timed alloc_all

    echo "Sample $W rounds $N ($((bytes / 1048576)) MiB allocated, ~$((bytes / SAMPLE_BYTES)) samples at one per" \
         "100 KiB), $ROUNDS round(s) alternating; alloc-all once"
    printf '  %-36s %10s %12s %7s %9s %13s %9s\n' configuration "wall" "workload" "wall" "workload" "per 100 KiB" \
        "at 1 GB/s"
    pw=$(awk '{print $1}' "$OUT/plain.times" | median); pm=$(awk '{print $2}' "$OUT/plain.times" | median)
    for cfg in "${kept[@]}"; do
        w=$(awk '{print $1}' "$OUT/$cfg.times" | median); m=$(awk '{print $2}' "$OUT/$cfg.times" | median)
        echo "$w $m" >"$OUT/$cfg.median"
        # The cost per 100 KiB: the workload's extra time over the samples it allocated; at 1 GB/s, 9,766 of
        # those a second.
        awk -v l="$(label "$cfg")" -v w="$w" -v m="$m" -v pw="$pw" -v pm="$pm" -v b="$bytes" -v s="$SAMPLE_BYTES" '
            BEGIN { us = (m - pm) * 1000 / (b / s)
                    printf "  %-36s %8.3f s %9.1f ms %7.3f %9.3f %10.2f us %8.1f%%\n", l, w, m, w / pw, m / pm, us,
                           us * 1e9 / s / 1e4 }'
    done
    # What each file holds: a ratio of a recording that recorded nothing measures nothing.
    for cfg in alloc_live alloc_all; do
        has "$cfg" || continue
        n=$("$CLRPROBE" report "$OUT/$cfg.clrp" --format jsonl 2>/dev/null | grep -c '"kind":"alloc_sample"' || true)
        echo "  $(label "$cfg"): $(stat -c %s "$OUT/$cfg.clrp") bytes, $n alloc_sample records" \
             "$([ "$n" -gt 0 ] || echo "- records no allocations: its ratio is the agent's without them")"
    done
    if has dotnet_trace; then
        echo "  $(label dotnet_trace): $(stat -c %s "$OUT/dotnet_trace.nettrace") bytes"
    fi
    if has dotnet_trace && has alloc_live; then
        read -r dw dm <"$OUT/dotnet_trace.median"
        read -r cw cm <"$OUT/alloc_live.median"
        awk -v cw="$cw" -v cm="$cm" -v dw="$dw" -v dm="$dm" -v pw="$pw" -v pm="$pm" 'BEGIN {
            printf "  clrprobe alloc,live relative to dotnet-trace: wall %.3f, workload %.3f (ratios to unprofiled: " \
                   "wall %.3f vs %.3f, workload %.3f vs %.3f)\n", cw / dw, cm / dm, cw / pw, dw / pw, cm / pm, dm / pm }'
    fi
}

bench json "$JSON_N"
echo
bench alloc "$ALLOC_N"
echo "targets: clrprobe alloc,live wall ratio <= 1.03, and not above dotnet-trace's"
