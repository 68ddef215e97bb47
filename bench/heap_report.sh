#!/usr/bin/env bash
# heap_report.sh - how long `clrprobe report` takes, and how much memory,
# to analyse a heap snapshot (load, dominator tree, retained sizes, the
# per-type table) of 1 and 5 million objects, written synthetically by
# bench/heap_gen.c with the agent's own writer and codec.  Targets for 5
# million objects: <= 5 s and <= 1 GiB.  Also prints the file's bytes per
# object (the encoding's density; the agent's target is <= 16).
#   bench/heap_report.sh [MILLIONS...]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CLRPROBE="$ROOT/build/clrprobe"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
[ -x "$CLRPROBE" ] || make -s -C "$ROOT" all >/dev/null
cc -O2 -std=c11 -D_GNU_SOURCE -I"$ROOT/src" -o "$OUT/heap_gen" "$ROOT/bench/heap_gen.c" \
    "$ROOT/src/trace/writer.c" "$ROOT/src/trace/heap_codec.c" "$ROOT/src/common/"*.c "$ROOT/src/api/guids.c" -lz -lpthread

echo "clrprobe report on a synthetic heap snapshot (text report: types, dominators, retained sizes)"
millions=("$@")
[ ${#millions[@]} -gt 0 ] || millions=(1 5)
for m in "${millions[@]}"; do
    n=$((m * 1000000))
    "$OUT/heap_gen" "$OUT/heap$m.clrp" "$n"
    size=$(stat -c %s "$OUT/heap$m.clrp")
    /usr/bin/time -f "%e %M" -o "$OUT/time" "$CLRPROBE" report "$OUT/heap$m.clrp" -o "$OUT/report$m.txt" 2>/dev/null
    read -r secs kib <"$OUT/time"
    grep -q "snapshot 1 at .*: $n objects" "$OUT/report$m.txt" || { echo "heap_report: the report lacks the snapshot"; exit 1; }
    awk -v m="$m" -v s="$secs" -v k="$kib" -v b="$size" -v n="$n" 'BEGIN {
        printf "  %d million objects: report %.2f s, max RSS %.0f MiB, file %.1f MiB (%.1f bytes per object)\n",
               m, s, k / 1024, b / 1048576, b / n }'
done
