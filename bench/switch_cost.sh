#!/usr/bin/env bash
# switch_cost.sh - the clocks an unprivileged run could sample with, on the
# worst case for a per-thread clock: two threads ping-ponging a byte over
# pipes on one core (bench/switch_cost.c; some 300,000 switches a second).
# Each round runs every mode at 100 and 1000 Hz, pinned to core 0, beside
# nothing, and a run with no clock first: the figure is the round trips a
# second over that round's clock-free run (the median of the rounds), with
# the samples per CPU-second the threads got (the rate asked: 100, 1000).
#   bench/switch_cost.sh [ROUNDS] [SECONDS]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${1:-5}
SECONDS_EACH=${2:-3}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

${CC:-cc} -O2 -std=c11 -Wall -Wextra -o "$OUT/switch_cost" "$ROOT/bench/switch_cost.c" -lpthread -lrt

for ((i = 0; i < ROUNDS; i++)); do
    base=$(taskset -c 0 "$OUT/switch_cost" none 100 "$SECONDS_EACH" | awk '{print $4}')
    for mode in thread inherit timer; do
        for hz in 100 1000; do
            taskset -c 0 "$OUT/switch_cost" "$mode" "$hz" "$SECONDS_EACH" |
                awk -v b="$base" '{ r = $(NF - 2); sub(/\(/, "", r); printf "%.4f %s\n", $4 / b, r }' >>"$OUT/$mode-$hz"
        done
    done
done

echo "clocks on two threads ping-ponging over pipes on one core: $ROUNDS rounds of $SECONDS_EACH s"
printf '  %-8s %5s %12s %16s\n' clock Hz "round trips" "samples/CPU-s"
for mode in thread inherit timer; do
    for hz in 100 1000; do
        sort -n "$OUT/$mode-$hz" | awk -v m="$mode" -v hz="$hz" '{ t[NR] = $1; r[NR] = $2 }
            END { k = int((NR + 1) / 2); printf "  %-8s %5d %11.1f%% %16s\n", m, hz, 100 * t[k], r[k] }'
    done
done
echo "  (round trips: the share of the clock-free run's; samples: the median run's)"
