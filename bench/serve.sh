#!/usr/bin/env bash
# serve.sh - what `clrprobe serve` costs a process it serves: the ASP.NET
# Core request loop (build/web/Web load: Kestrel on loopback and HttpClient
# clients in one process) served with /metrics scraped every second; served
# with a CPU profile of 10 s taken every 15 s
# (/pid/PID/debug/pprof/profile?seconds=10: the agent attached for each
# window, as a continuous profiler's scrape would); and, for the other way
# serve could have been built, the agent attached for the whole run
# (`clrprobe attach --collect cpu`, 100 Hz) with the per-CPU clock (the
# clock serve's profiles use where serve runs as root), with CPU timers
# (`--sampler signal`, serve's without root) and with perf events per
# thread (`--sampler perf`), for the clock's choice.
#
# Side by side in one run, at the same time: a machine shared with other
# guests moves a run's speed by several percent from one minute to the next,
# more than the 2% to be measured, so each configuration runs as a pair, an
# unserved loop on one core and the served loop (with serve, its children
# and the scraper) on the other, started together; the next round swaps the
# cores.  A pair's ratio is the served loop's over the unserved loop's: its
# wall time, and its CPU (the loop's, plus the server's and its children's:
# the profiles' `clrprobe attach` and `report`; not the scraper's, which is
# Prometheus' cost).  Each configuration's ratio is the median of its
# pairs', printed with their spread; a pair of two unserved loops shows
# what the cores themselves differ by.  Target: <= 1.02 for the profiles.
#   [SERVE_CONFIGS="plain profile"] bench/serve.sh [ROUNDS] [REQUESTS]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${1:-4}
REQUESTS=${2:-120000}            # ~25 s of requests on one core of this machine
WEB="$ROOT/build/web/Web"
CLRPROBE="$ROOT/build/clrprobe"
OUT=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$OUT"' EXIT
CONFIGS=${SERVE_CONFIGS:-"plain metrics profile attached-percpu attached attached-perf"}   # (a subset: SERVE_CONFIGS="plain profile")

for bin in "$WEB" "$CLRPROBE"; do
    [[ -x $bin ]] || { echo "serve.sh: $bin is missing; run 'make all' first" >&2; exit 1; }
done
[[ $(nproc) -ge 2 ]] || { echo "serve.sh: needs two cores (a pair runs side by side)" >&2; exit 1; }

# cpu_ticks PID: utime+stime+cutime+cstime of a live process, in clock ticks.
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 + $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

# loop CORE NAME: the request loop pinned to CORE in the background; when it
# ends, OUT/NAME.wall (ms), OUT/NAME.out and OUT/NAME.times (`times`).
loop() {
    taskset -c "$1" bash -c 't0=$(date +%s%N); "$1" load "$2" 8 >"$3.out" 2>/dev/null
                             echo $(( ($(date +%s%N) - t0) / 1000000 )) >"$3.wall"; times >"$3.times"' \
        _ "$WEB" "$REQUESTS" "$OUT/$2" &
}

# cpu_of NAME [EXTRA_TICKS]: the loop's CPU in seconds (`times`' children line), plus EXTRA clock ticks.
cpu_of() {
    awk -v x="${2:-0}" -v hz="$(getconf CLK_TCK)" \
        'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); n += a[1] * 60 + a[2] } }
         END { printf "%.3f", n + x / hz }' "$OUT/$1.times"
}

# pair CONFIG ROUND: the unserved loop and the CONFIG loop at once on the two cores (swapped on odd rounds);
# "WALL_RATIO CPU_RATIO" appended to OUT/CONFIG.
pair() {
    local cfg=$1 round=$2 a=0 b=1 base served web serve="" port scraper="" extra=0
    (( round % 2 )) && { a=1; b=0; }
    loop "$a" base
    base=$!
    loop "$b" served
    served=$!
    until web=$(pgrep -P "$served" -x Web); do sleep 0.05; done
    case $cfg in
        attached|attached-perf|attached-percpu)
            local engine=signal
            [[ $cfg == attached-perf ]] && engine=perf
            [[ $cfg == attached-percpu ]] && engine=percpu
            (sleep 2; taskset -c "$b" "$CLRPROBE" attach "$web" --collect cpu --sampler "$engine" -o "$OUT/attached.clrp" \
                 2>/dev/null; times >"$OUT/attach.times") &
            scraper=$! ;;
        metrics|profile)
            taskset -c "$b" "$CLRPROBE" serve --listen 127.0.0.1:0 --token-file "$OUT/serve.token" --pids "$web" \
                2>"$OUT/serve.err" &
            serve=$!
            until port=$(sed -n 's/.*127\.0\.0\.1:\([0-9]*\)\/metrics.*/\1/p' "$OUT/serve.err") && [[ -n $port ]]; do
                sleep 0.05
            done
            auth="Authorization: Bearer $(cat "$OUT/serve.token")"
            if [[ $cfg == metrics ]]; then
                (while kill -0 "$web" 2>/dev/null; do
                     taskset -c "$b" curl -s -H "$auth" -o /dev/null "http://127.0.0.1:$port/metrics"; sleep 1; done) &
            else
                (sleep 2; while kill -0 "$web" 2>/dev/null; do
                     taskset -c "$b" curl -s -H "$auth" -o /dev/null --max-time 40 \
                         "http://127.0.0.1:$port/pid/$web/debug/pprof/profile?seconds=10"
                     sleep 5; done) &
            fi
            scraper=$! ;;
    esac
    wait "$base" "$served"
    if [[ $cfg == attached* ]]; then
        wait "$scraper" || true
        extra=$(awk -v hz="$(getconf CLK_TCK)" 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, /[ms]/);
                    n += a[1] * 60 + a[2] } } END { printf "%d", n * hz }' "$OUT/attach.times")
    elif [[ -n $scraper ]]; then
        kill "$scraper" 2>/dev/null || true
        wait "$scraper" 2>/dev/null || true
    fi
    rm -f "$OUT/attached.clrp"
    if [[ -n $serve ]]; then
        extra=$(cpu_ticks "$serve")                     # (its own and its reaped children's)
        kill -TERM "$serve"
        wait "$serve" || true
    fi
    for n in base served; do
        cmp -s "$OUT/expected.out" "$OUT/$n.out" || { echo "serve.sh: the output differs under $cfg ($n)" >&2; exit 1; }
    done
    awk -v bw="$(cat "$OUT/base.wall")" -v sw="$(cat "$OUT/served.wall")" -v bc="$(cpu_of base)" \
        -v sc="$(cpu_of served "$extra")" 'BEGIN { printf "%.4f %.4f\n", sw / bw, sc / bc }' >>"$OUT/$cfg"
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
spread() { sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f-%.3f", lo, hi }'; }

echo "clrprobe serve cost: $ROUNDS pairs per configuration, each an unserved loop beside the configuration's" \
     "on the other core; web $REQUESTS requests"
"$WEB" load "$REQUESTS" 8 >"$OUT/expected.out"
for ((i = 1; i <= ROUNDS; i++)); do
    for cfg in $CONFIGS; do
        pair "$cfg" "$i"
    done
done
printf '  %-54s %7s %13s %7s %13s\n' "configuration (against an unserved loop beside it)" "wall" "(spread)" "CPU" "(spread)"
for cfg in $CONFIGS; do
    case $cfg in
        plain) label="not served either (the two cores' own difference)" ;;
        metrics) label="served, /metrics scraped every second" ;;
        profile) label="served, a 10 s CPU profile every 15 s" ;;
        attached-percpu) label="(the agent attached throughout, 100 Hz, per-CPU clock)" ;;
        attached) label="(the same with CPU timers)" ;;
        attached-perf) label="(the same with perf events per thread)" ;;
    esac
    printf '  %-54s %7.3f %13s %7.3f %13s\n' "$label" "$(cut -d' ' -f1 "$OUT/$cfg" | median)" \
        "($(cut -d' ' -f1 "$OUT/$cfg" | spread))" "$(cut -d' ' -f2 "$OUT/$cfg" | median)" \
        "($(cut -d' ' -f2 "$OUT/$cfg" | spread))"
done
echo "  target: <= 1.02 for the profiles (a request every 15 s with 10 s windows)"
