#!/usr/bin/env bash
# serve.sh - what `clrprobe serve` costs a process it serves, side by side in
# one run: the ASP.NET Core request loop (build/web/Web load: Kestrel on
# loopback and HttpClient clients in one process, ~30 s) unserved; served
# with /metrics scraped every second; and served with a CPU profile of 10 s
# taken every 15 s (/pid/PID/debug/pprof/profile?seconds=10: the agent
# attached for each window, as a continuous profiler's scrape would); and,
# for the other way serve could have been built, the agent attached for the
# whole run (`clrprobe attach --collect cpu --sampler signal`, 100 Hz, the
# engine serve's profiles use) - the four alternating
# round by round.  Each run is measured twice: its wall time, and the CPU
# it took (the process's, plus the server's and its children's: the
# profiles' `clrprobe attach` and `report`; not the scraper's, which is
# Prometheus' cost).  A machine shared with other guests moves wall time by
# several percent from run to run, CPU time much less; each configuration's
# ratio is the median of its ratios to the unserved run of the same round,
# printed with their spread.  Target: <= 1.02 for the profiles.
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

# cpu_ticks PID: utime+stime+cutime+cstime of a live process, in clock ticks.
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 + $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

# run CONFIG ROUND: one timed run; "WALL_MS CPU_TICKS" appended to OUT/CONFIG.ROUND.
run() {
    local cfg=$1 round=$2 t0 t1 pid serve="" port scraper="" server_cpu=0 web
    rm -f "$OUT/attach.times"
    t0=$(now)
    # (a shell around the program, so that its CPU can be read from `times` once it has ended)
    bash -c '"$1" load "$2" 8 >"$3" 2>/dev/null; times >"$3.times"' _ "$WEB" "$REQUESTS" "$OUT/last.out" &
    pid=$!
    until web=$(pgrep -P "$pid" -x Web); do sleep 0.05; done
    if [[ $cfg == attached ]]; then
        (sleep 2; "$CLRPROBE" attach "$web" --collect cpu --sampler signal -o "$OUT/attached.clrp" 2>/dev/null
         times >"$OUT/attach.times") &
        scraper=$!
    elif [[ $cfg != plain ]]; then
        "$CLRPROBE" serve --listen 127.0.0.1:0 --pids "$web" 2>"$OUT/serve.err" &
        serve=$!
        until port=$(sed -n 's/.*127\.0\.0\.1:\([0-9]*\)\/metrics.*/\1/p' "$OUT/serve.err") && [[ -n $port ]]; do
            sleep 0.05
        done
        case $cfg in
            metrics) (while kill -0 "$web" 2>/dev/null; do
                          curl -s -o /dev/null "http://127.0.0.1:$port/metrics"; sleep 1; done) & ;;
            profile) (sleep 2; while kill -0 "$web" 2>/dev/null; do
                          curl -s -o /dev/null --max-time 40 "http://127.0.0.1:$port/pid/$web/debug/pprof/profile?seconds=10"
                          sleep 5; done) & ;;
        esac
        scraper=$!
    fi
    wait "$pid"
    t1=$(now)
    if [[ $cfg == attached ]]; then
        wait "$scraper" || true
    elif [[ -n $scraper ]]; then
        kill "$scraper" 2>/dev/null || true
        wait "$scraper" 2>/dev/null || true
    fi
    rm -f "$OUT/attached.clrp"
    if [[ -n $serve ]]; then
        server_cpu=$(cpu_ticks "$serve")          # (its own and its reaped children's)
        kill -TERM "$serve"
        wait "$serve" || true
    fi
    cmp -s "$OUT/expected.out" "$OUT/last.out" || { echo "serve.sh: the output differs under $cfg" >&2; exit 1; }
    # `times`' second line: the children's user and system time, as 1m2.345s
    local cpu_s
    cpu_s=$( (cat "$OUT/last.out.times"; cat "$OUT/attach.times" 2>/dev/null || true) |
            awk 'NR % 2 == 0 { for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); n += a[1] * 60 + a[2] } }
                 END { print n + 0 }')
    awk -v w="$(( (t1 - t0) / 1000000 ))" -v c="$cpu_s" -v s="$server_cpu" -v hz="$(getconf CLK_TCK)" \
        'BEGIN { printf "%d %.3f\n", w, c + s / hz }' >"$OUT/$cfg.$round"
}

# ratios CONFIG COLUMN: the configuration's ratio to the unserved run, round by round.
ratios() {
    for ((i = 1; i <= ROUNDS; i++)); do
        awk -v col="$2" 'NR == FNR { b = $col; next } { printf "%.4f\n", $col / b }' "$OUT/plain.$i" "$OUT/$1.$i"
    done
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
spread() { sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f-%.3f", lo, hi }'; }

echo "clrprobe serve cost: $ROUNDS rounds per configuration, alternating; web $REQUESTS requests"
"$WEB" load "$REQUESTS" 8 >"$OUT/expected.out"
for ((i = 1; i <= ROUNDS; i++)); do
    for cfg in $CONFIGS; do
        run "$cfg" "$i"
    done
done
printf '  %-50s %8s %13s %7s %13s\n' configuration "wall" "(spread)" "CPU" "(spread)"
for cfg in $CONFIGS; do
    case $cfg in
        plain) label="not served" ;;
        metrics) label="served, /metrics scraped every second" ;;
        profile) label="served, a 10 s CPU profile every 15 s" ;;
        attached) label="(the agent attached throughout, 100 Hz)" ;;
    esac
    printf '  %-50s %8.3f %13s %7.3f %13s\n' "$label" "$(ratios "$cfg" 1 | median)" "($(ratios "$cfg" 1 | spread))" \
        "$(ratios "$cfg" 2 | median)" "($(ratios "$cfg" 2 | spread))"
done
awk '{ w += $1; c += $2 } END { printf "  (unserved: %.1f s wall, %.1f s CPU on average)\n", w / NR / 1000, c / NR }' "$OUT"/plain.*
echo "  target: <= 1.02 for the profiles (a request every 15 s with 10 s windows)"
