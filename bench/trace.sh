#!/usr/bin/env bash
# trace.sh - the method tracer's cost per call, side by side in one run:
# `Sample callbench` times N million calls of a tiny method (never inlined)
# and as many of another with the same body, unprofiled, under `clrprobe
# run --trace ClrProbe.Sample.BenchTargets.Traced` (launch: the runtime's
# enter/leave hooks), and under `clrprobe attach --trace` of the same
# (after an attach: the method's IL rewritten with probes), alternating
# round by round.  Prints the medians in ns per call: the traced method's
# extra cost per call (traced run minus unprofiled run), and the untraced
# method's time in the traced runs over the unprofiled run (methods no
# pattern matches are not touched: the target is <= 1.01).  Targets:
# enter/leave hooks <= 15 ns per call, IL probes <= 30 ns.
# Also the machine's cost of one TSC read (the hooks read it twice a call).
#   bench/trace.sh [ROUNDS] [MILLIONS]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${1:-5}
MILLIONS=${2:-50}
SAMPLE="$ROOT/build/sample/Sample"
CLRPROBE="$ROOT/build/clrprobe"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

for bin in "$SAMPLE" "$CLRPROBE"; do
    [[ -x $bin ]] || { echo "trace.sh: $bin is missing; run 'make all' first" >&2; exit 1; }
done

# run CONFIG: one run; its two figures appended to OUT/CONFIG-traced and
# OUT/CONFIG-untraced.
run() {
    local cfg=$1 cmd=("$SAMPLE" callbench "$MILLIONS") tpid i
    [[ $cfg == hooks ]] && cmd=("$CLRPROBE" run -o "$OUT/t.clrp" --collect jit --trace ClrProbe.Sample.BenchTargets.Traced -- "${cmd[@]}")
    rm -f "$OUT/in"
    [[ $cfg == hooks ]] && rm -f "$OUT/t.clrp"
    [[ $cfg == il ]] && rm -f "$OUT/a.clrp"
    if [[ $cfg == il ]]; then
        mkfifo "$OUT/in"
        "$SAMPLE" callbench "$MILLIONS" wait <"$OUT/in" >"$OUT/out" 2>"$OUT/err" &
        tpid=$!
        exec 7>"$OUT/in"
        for ((i = 0; i < 200; i++)); do grep -q waiting "$OUT/err" && break; sleep 0.05; done
        "$CLRPROBE" attach "$tpid" -o "$OUT/a.clrp" --collect jit --trace ClrProbe.Sample.BenchTargets.Traced \
            >/dev/null 2>"$OUT/attach.err" &
        for ((i = 0; i < 400; i++)); do grep -q 'clrprobe: tracing' "$OUT/attach.err" && break; sleep 0.05; done
        echo >&7
        exec 7>&-
        wait "$tpid" || { echo "trace.sh: il run failed: $(cat "$OUT/err")" >&2; exit 1; }
        wait
    else
        "${cmd[@]}" >"$OUT/out" 2>"$OUT/err" || { echo "trace.sh: $cfg run failed: $(cat "$OUT/err")" >&2; exit 1; }
    fi
    sed -n 's/^callbench: traced \([0-9.]*\) ns\/call, untraced \([0-9.]*\) ns\/call$/\1 \2/p' "$OUT/err" >"$OUT/fig"
    [[ -s $OUT/fig ]] || { echo "trace.sh: no figures from the $cfg run: $(cat "$OUT/err")" >&2; exit 1; }
    awk '{print $1}' "$OUT/fig" >>"$OUT/$cfg-traced"
    awk '{print $2}' "$OUT/fig" >>"$OUT/$cfg-untraced"
}

median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

for ((r = 1; r <= ROUNDS; r++)); do
    run plain
    run hooks
    run il
done
# the calls the traced runs counted: all of them
calls=$("$CLRPROBE" report "$OUT/t.clrp" --format jsonl | jq -r 'select(.kind=="method_stats" and .thread=="all") | .calls')
acalls=$("$CLRPROBE" report "$OUT/a.clrp" --format jsonl | jq -r 'select(.kind=="method_stats" and .thread=="all") | .calls')

pt=$(median "$OUT/plain-traced"); pu=$(median "$OUT/plain-untraced")
ht=$(median "$OUT/hooks-traced"); hu=$(median "$OUT/hooks-untraced")
it=$(median "$OUT/il-traced"); iu=$(median "$OUT/il-untraced")
printf 'method tracer, %d rounds of %d million calls each way (medians, ns per call)\n' "$ROUNDS" "$MILLIONS"
printf '  %-44s %10s %12s %14s\n' "" unprofiled "run --trace" "attach --trace"
printf '  %-44s %10.3f %12.3f %14.3f\n' "BenchTargets.Traced (the pattern matches it)" "$pt" "$ht" "$it"
printf '  %-44s %10.3f %12.3f %14.3f\n' "BenchTargets.Untraced" "$pu" "$hu" "$iu"
awk -v a="$ht" -v b="$pt" 'BEGIN {printf "  enter/leave hooks (launch): %.2f ns per traced call (target <= 15)\n", a - b}'
awk -v a="$it" -v b="$pt" 'BEGIN {printf "  IL probes (after an attach): %.2f ns per traced call (target <= 30)\n", a - b}'
awk -v a="$hu" -v b="$pu" -v c="$iu" 'BEGIN {printf "  a method no pattern matches, traced run / unprofiled: %.3f launch, %.3f attach (target <= 1.01)\n", a / b, c / b}'
printf '  calls counted in the last traced runs: %s at launch, %s after the attach (expected %d warm-up + %d timed)\n' \
    "$calls" "$acalls" 6000000 "$((MILLIONS * 1000000))"
cat >"$OUT/tsc.c" <<'C'
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>
int main(void)
{
    struct timespec a, b;
    unsigned long long s = 0;
    const int n = 20000000;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < n; i++)
        s += __rdtsc();
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("  one TSC read (rdtsc) on this machine: %.2f ns\n",
           ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
    return (int)(s & 1) & 0;
}
C
${CC:-cc} -O2 "$OUT/tsc.c" -o "$OUT/tsc" && "$OUT/tsc"
