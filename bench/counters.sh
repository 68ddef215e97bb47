#!/usr/bin/env bash
# counters.sh - the cost of watching a process's metrics, side by side in
# one run: the ASP.NET Core request loop (build/web/Web load: Kestrel on
# loopback and HttpClient clients in one process) run unwatched, watched by
# `clrprobe counters` (System.Runtime, every second) and watched by
# dotnet-counters collect (the same, Microsoft's tool, from `make setup`),
# the three alternating round by round.  The watcher starts when the process
# is 2 s old (as clrprobe itself would wait: a session begun during the
# runtime's startup can deadlock it, docs/counters.md) and ends when the
# process exits.  Prints the
# median wall time and its ratio to the unwatched run.  Target: no more than
# dotnet-counters (the same session in the process).
#   bench/counters.sh [ROUNDS] [REQUESTS]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${1:-7}
REQUESTS=${2:-48000}             # ~12 s of requests on this machine
WEB="$ROOT/build/web/Web"
CLRPROBE="$ROOT/build/clrprobe"
DOTNET_COUNTERS="$ROOT/build/tools/dotnet-counters/dotnet-counters"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
CONFIGS="plain clrprobe dotnet-counters"

for bin in "$WEB" "$CLRPROBE" "$DOTNET_COUNTERS"; do
    [[ -x $bin ]] || { echo "counters.sh: $bin is missing; run 'make setup all' first" >&2; exit 1; }
done

now() { date +%s%N; }

# run CONFIG: one timed run of the request loop, its wall time appended to OUT/CONFIG.
run() {
    local cfg=$1 t0 t1 pid watcher="" k
    t0=$(now)
    "$WEB" load "$REQUESTS" 8 >"$OUT/last.out" 2>/dev/null &
    pid=$!
    if [[ $cfg != plain ]]; then
        sleep 2
        case $cfg in
            clrprobe) "$CLRPROBE" counters "$pid" --format csv >"$OUT/watch.out" 2>/dev/null & ;;
            dotnet-counters) "$DOTNET_COUNTERS" collect -p "$pid" --format csv -o "$OUT/dc.csv" \
                                 --counters System.Runtime >/dev/null 2>&1 </dev/null & ;;
        esac
        watcher=$!
    fi
    wait "$pid"
    t1=$(now)
    [[ -n $watcher ]] && wait "$watcher" || true
    cmp -s "$OUT/expected.out" "$OUT/last.out" || { echo "counters.sh: the output differs under $cfg" >&2; exit 1; }
    echo "$(( (t1 - t0) / 1000000 ))" >>"$OUT/$cfg"
}

median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo "clrprobe counters cost: $ROUNDS rounds per configuration, alternating; web $REQUESTS requests"
"$WEB" load "$REQUESTS" 8 >"$OUT/expected.out"
for ((i = 1; i <= ROUNDS; i++)); do
    for cfg in $CONFIGS; do
        run "$cfg"
    done
done
base=$(median "$OUT/plain")
printf '  %-40s %9s %7s\n' configuration "wall (s)" ratio
for cfg in $CONFIGS; do
    case $cfg in
        plain) label="unwatched" ;;
        clrprobe) label="clrprobe counters (1 s)" ;;
        dotnet-counters) label="dotnet-counters collect (1 s)" ;;
    esac
    m=$(median "$OUT/$cfg")
    awk -v l="$label" -v m="$m" -v b="$base" 'BEGIN { printf "  %-40s %9.3f %7.3f\n", l, m / 1000, m / b }'
done
echo "  target: no more than dotnet-counters (the same session in the process; the watcher itself costs the machine less)"
