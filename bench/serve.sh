#!/usr/bin/env bash
# serve.sh - what `clrprobe serve` costs a process it serves, side by side in
# one run: the ASP.NET Core request loop (build/web/Web load: Kestrel on
# loopback and HttpClient clients in one process, ~30 s) unserved; served
# with /metrics scraped every second; and served with a CPU profile of 10 s
# taken every 15 s (/pid/PID/debug/pprof/profile?seconds=10: the agent
# attached for each window, as a continuous profiler's scrape would); and,
# for the other way serve could have been built, the agent attached for the
# whole run (`clrprobe attach --collect cpu`, 100 Hz) - the four alternating
# round by round.  Prints the median wall time and its ratio to the
# unserved run.  Target: <= 1.02 for the profiles.
#   bench/serve.sh [ROUNDS] [REQUESTS]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${1:-3}
REQUESTS=${2:-240000}            # ~30 s of requests on this machine
WEB="$ROOT/build/web/Web"
CLRPROBE="$ROOT/build/clrprobe"
OUT=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$OUT"' EXIT
CONFIGS="plain metrics profile attached"

for bin in "$WEB" "$CLRPROBE"; do
    [[ -x $bin ]] || { echo "serve.sh: $bin is missing; run 'make all' first" >&2; exit 1; }
done

now() { date +%s%N; }

# run CONFIG: one timed run, its wall time (ms) appended to OUT/CONFIG.
run() {
    local cfg=$1 t0 t1 pid serve="" port scraper=""
    t0=$(now)
    "$WEB" load "$REQUESTS" 8 >"$OUT/last.out" 2>/dev/null &
    pid=$!
    if [[ $cfg == attached ]]; then
        (sleep 2; exec "$CLRPROBE" attach "$pid" --collect cpu -o "$OUT/attached.clrp" 2>/dev/null) &
        scraper=$!
    elif [[ $cfg != plain ]]; then
        "$CLRPROBE" serve --listen 127.0.0.1:0 --pids "$pid" 2>"$OUT/serve.err" &
        serve=$!
        until port=$(sed -n 's/.*127\.0\.0\.1:\([0-9]*\)\/metrics.*/\1/p' "$OUT/serve.err") && [[ -n $port ]]; do
            sleep 0.05
        done
        case $cfg in
            metrics) (while kill -0 "$pid" 2>/dev/null; do
                          curl -s -o /dev/null "http://127.0.0.1:$port/metrics"; sleep 1; done) & ;;
            profile) (sleep 2; while kill -0 "$pid" 2>/dev/null; do
                          curl -s -o /dev/null --max-time 40 "http://127.0.0.1:$port/pid/$pid/debug/pprof/profile?seconds=10"
                          sleep 5; done) & ;;
        esac
        scraper=$!
    fi
    wait "$pid"
    t1=$(now)
    [[ -n $scraper ]] && { kill "$scraper" 2>/dev/null || true; wait "$scraper" 2>/dev/null || true; }
    rm -f "$OUT/attached.clrp"
    [[ -n $serve ]] && { kill -TERM "$serve"; wait "$serve" || true; }
    cmp -s "$OUT/expected.out" "$OUT/last.out" || { echo "serve.sh: the output differs under $cfg" >&2; exit 1; }
    echo "$(( (t1 - t0) / 1000000 ))" >>"$OUT/$cfg"
}

median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo "clrprobe serve cost: $ROUNDS rounds per configuration, alternating; web $REQUESTS requests"
"$WEB" load "$REQUESTS" 8 >"$OUT/expected.out"
for ((i = 1; i <= ROUNDS; i++)); do
    for cfg in $CONFIGS; do
        run "$cfg"
    done
done
base=$(median "$OUT/plain")
printf '  %-52s %9s %7s\n' configuration "wall (s)" ratio
for cfg in $CONFIGS; do
    case $cfg in
        plain) label="not served" ;;
        metrics) label="served, /metrics scraped every second" ;;
        profile) label="served, a 10 s CPU profile every 15 s" ;;
        attached) label="(the agent attached throughout, CPU at 100 Hz)" ;;
    esac
    m=$(median "$OUT/$cfg")
    awk -v l="$label" -v m="$m" -v b="$base" 'BEGIN { printf "  %-52s %9.3f %7.3f\n", l, m / 1000, m / b }'
done
echo "  target: <= 1.02 for the profiles (a request every 15 s with 10 s windows)"
