#!/usr/bin/env bash
# heap.sh - a heap snapshot of a running process, clrprobe against
# dotnet-gcdump, side by side on the same workload: `Sample heapbench M` (M
# million live objects) is started once per tool, and when it is ready
# either `clrprobe heap PID` or `dotnet-gcdump collect -p PID` (installed
# from the NuGet copy into build/bench-tools; if it cannot be had, the same
# EventPipe heap dump it asks for, the GC, GCHeapCollect, GCHeapDump,
# GCHeapAndTypeNames and Type keywords, collected with dotnet-trace) takes one.
# Printed per tool: the longest stop of the target (measured inside it by a
# ticker thread; the plain full GC of the same heap beside it), the
# command's time, and the file's size per object.  Targets: pause <= 0.5 s
# per million objects and below dotnet-gcdump's (EventPipe's heap dump);
# file <= 16 bytes per object.
#   bench/heap.sh [MILLIONS...]          (default: 1 5; CLRPROBE=path: another build)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SAMPLE="$ROOT/build/sample/Sample"
CLRPROBE="${CLRPROBE:-$ROOT/build/clrprobe}"
TOOLS="$ROOT/build/bench-tools"
OUT=$(mktemp -d)
TPID=
trap 'if [ -n "$TPID" ]; then kill "$TPID" 2>/dev/null || true; fi; rm -rf "$OUT"' EXIT
[ -x "$CLRPROBE" ] && [ -x "$SAMPLE" ] || make -s -C "$ROOT" all >/dev/null

GCDUMP=$TOOLS/dotnet-gcdump
DOTNET_TRACE=$TOOLS/dotnet-trace
if [ ! -x "$GCDUMP" ]; then
    dotnet tool install --tool-path "$TOOLS" dotnet-gcdump --version 10.0.750501 >"$OUT/install.log" 2>&1 ||
        dotnet tool install --tool-path "$TOOLS" dotnet-gcdump >>"$OUT/install.log" 2>&1 || true
fi
if [ ! -x "$GCDUMP" ] && [ ! -x "$DOTNET_TRACE" ]; then
    echo "heap.sh: dotnet-gcdump could not be installed; comparing with EventPipe's heap dump through dotnet-trace"
    dotnet tool install --tool-path "$TOOLS" dotnet-trace >>"$OUT/install.log" 2>&1 || true
fi

# start_target M: runs Sample heapbench M in the background until it prints ready.
start_target() {
    "$SAMPLE" heapbench "$1" 10 >"$OUT/target.out" 2>&1 &
    TPID=$!
    for _ in $(seq 1 1200); do grep -q '^ready' "$OUT/target.out" && return 0; sleep 0.05; done
    echo "heap.sh: the sample never got ready"; cat "$OUT/target.out"; exit 1
}

# finish_target: waits for the target's own report of its longest stop.
finish_target() {
    wait "$TPID" || { echo "heap.sh: the target failed"; cat "$OUT/target.out"; exit 1; }
    TPID=
    sed -n 's/^full GC \([0-9.]*\) ms, longest stop \([0-9.]*\) ms$/\1 \2/p' "$OUT/target.out" >"$OUT/stop"
}

now() { date +%s.%N; }

line() {  # tool millions objects full_gc_ms stop_ms seconds bytes
    awk -v t="$1" -v m="$2" -v n="$3" -v g="$4" -v p="$5" -v s="$6" -v b="$7" 'BEGIN {
        printf "  %-28s %d M objects: target stopped %7.1f ms (%.2f s per million; a plain full GC %.1f ms), " \
               "command %5.2f s, file %6.1f MiB (%.1f bytes per object)\n",
               t, m, p, p / 1000 / (n / 1e6), g, s, b / 1048576, b / n }'
}

echo "Heap snapshot of a running process (Sample heapbench M): clrprobe heap vs dotnet-gcdump"
millions=("$@")
[ ${#millions[@]} -gt 0 ] || millions=(1 5)
for m in "${millions[@]}"; do
    n=$((m * 1000000))

    start_target "$m"
    t0=$(now)
    "$CLRPROBE" heap "$TPID" -o "$OUT/heap$m.clrp" >"$OUT/heap.out" 2>&1 ||
        { echo "heap.sh: clrprobe heap failed"; cat "$OUT/heap.out"; exit 1; }
    t1=$(now)
    finish_target; read -r full stop <"$OUT/stop"
    ours_stop=$stop
    line "clrprobe heap" "$m" "$n" "$full" "$stop" "$(echo "$t1 - $t0" | bc)" "$(stat -c %s "$OUT/heap$m.clrp")"

    if [ -x "$GCDUMP" ]; then
        start_target "$m"
        t0=$(now)
        "$GCDUMP" collect -p "$TPID" -o "$OUT/heap$m.gcdump" >"$OUT/gcdump.out" 2>&1 ||
            { echo "heap.sh: dotnet-gcdump failed"; cat "$OUT/gcdump.out"; exit 1; }
        t1=$(now)
        finish_target; read -r full stop <"$OUT/stop"
        line "dotnet-gcdump collect" "$m" "$n" "$full" "$stop" "$(echo "$t1 - $t0" | bc)" \
            "$(stat -c %s "$OUT/heap$m.gcdump")"
        awk -v a="$ours_stop" -v b="$stop" 'BEGIN { printf "  ratio of the stops, clrprobe / dotnet-gcdump: %.2f\n", a / b }'
    elif [ -x "$DOTNET_TRACE" ]; then
        start_target "$m"
        t0=$(now)
        "$DOTNET_TRACE" collect -p "$TPID" -o "$OUT/heap$m.nettrace" --rundown false \
            --providers 'Microsoft-Windows-DotNETRuntime:0x1980001:5' \
            --stopping-event-provider-name Microsoft-Windows-DotNETRuntime --stopping-event-event-name GC/Stop \
            >"$OUT/trace.out" 2>&1 || { echo "heap.sh: dotnet-trace failed"; cat "$OUT/trace.out"; exit 1; }
        t1=$(now)
        finish_target; read -r full stop <"$OUT/stop"
        line "EventPipe heap dump" "$m" "$n" "$full" "$stop" "$(echo "$t1 - $t0" | bc)" \
            "$(stat -c %s "$OUT/heap$m.nettrace")"
        awk -v a="$ours_stop" -v b="$stop" 'BEGIN { printf "  ratio of the stops, clrprobe / EventPipe: %.2f\n", a / b }'
    fi
done
