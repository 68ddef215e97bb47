#!/usr/bin/env bash
# agent_cost.sh - the agent's own CPU per CPU sample, from the trace's own
# accounting (the signal handlers' CPU and the collector thread's, as
# `clrprobe report` states them), on the request loop confined to one core:
# a short run and a long run of the same loop, ROUNDS of each in turn.
#
# Prints for each length the agent's CPU, the samples and their quotient
# (what a run of that length pays per sample, its first-time work included:
# naming the code it meets, reading IL maps, unwind tables of libraries
# loaded), and the marginal cost: the difference of the two lengths' CPU
# over the difference of their samples, what each sample costs once the
# code met is named (a short and a long run in turn form a pair; the
# machine's speed drifts between runs, so the median of the pairs).
# Target (docs/sampling.md): at most 8 us a sample.
#   [RATE=1000] bench/agent_cost.sh [ROUNDS] [SHORT] [LONG]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${1:-3}
SHORT=${2:-20000}                # requests: ~3 s on one core of this machine
LONG=${3:-80000}                 # ~11 s
RATE=${RATE:-1000}
WEB="$ROOT/build/web/Web"
CLRPROBE="$ROOT/build/clrprobe"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

for bin in "$WEB" "$CLRPROBE"; do
    [[ -x $bin ]] || { echo "agent_cost.sh: $bin is missing; run 'make all' first" >&2; exit 1; }
done

# one LENGTH ROUND: a profiled run; appends "ms samples" to OUT/LENGTH.
one() {
    local trace="$OUT/$1-$2.clrp"
    taskset -c 1 "$CLRPROBE" run -o "$trace" --collect cpu --rate "$RATE" -- \
        "$WEB" load "$1" 8 /checkout,/refund >/dev/null 2>&1
    "$CLRPROBE" report "$trace" 2>/dev/null | awk '
        /^  holds .*stack samples \(/ { s = $0; sub(/.*stack samples \(/, "", s); sub(/\).*/, "", s) }
        /sampler overhead:/ { m = $0; sub(/.* used /, "", m); sub(/ ms.*/, "", m) }
        END { if (m == "" || s == "") exit 1; print m, s }' >>"$OUT/$1"
    rm -f "$trace"
}

for ((i = 0; i < ROUNDS; i++)); do
    one "$SHORT" "$i"
    one "$LONG" "$i"
done

echo "clrprobe agent CPU per sample: request loop on one core, $RATE Hz, $ROUNDS runs of each length"
for len in "$SHORT" "$LONG"; do
    awk -v len="$len" '{ ms += $1; n += $2; k++ }
        END { printf "  %6d requests: %7.1f ms of agent CPU, %6d samples (means of %d): %5.1f us a sample\n",
                     len, ms / k, n / k, k, 1000 * ms / n }' "$OUT/$len"
done
paste "$OUT/$SHORT" "$OUT/$LONG" | awk '$4 > $2 { printf "%.1f\n", 1000 * ($3 - $1) / ($4 - $2) }' | sort -n >"$OUT/pairs"
if [[ -s $OUT/pairs ]]; then
    awk '{ m[NR] = $1; all = all " " $1 }
        END { printf "  marginal: %.1f us a sample (the median of %d pairs, a long run'"'"'s extra CPU over its extra samples:%s)\n",
                     (NR % 2) ? m[(NR + 1) / 2] : (m[NR / 2] + m[NR / 2 + 1]) / 2, NR, all }' "$OUT/pairs"
fi
echo "  target: at most 8 us a sample"
