#!/usr/bin/env bash
# il_fixtures.sh - makes il_fixtures.h: the IL bodies of sample/IlShapes.cs's
# methods as the C# compiler wrote them (header, code and exception
# sections), read from build/sample/Sample.dll by `Sample ildump`, for the
# IL rewriter's unit tests (test_il_rewrite.c).  Run it after changing
# IlShapes.cs (make all first):  tests/unit/il_fixtures.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SAMPLE="$ROOT/build/sample/Sample"
OUT="$ROOT/tests/unit/il_fixtures.h"
methods=(Tiny Branches LongBranch Switch Nested OnlyThrows VoidEarly Pick "<AsyncWork>d__8.MoveNext")
{
    echo "/* il_fixtures.h - IL method bodies of sample/IlShapes.cs as the C# compiler"
    echo " * wrote them (made by tests/unit/il_fixtures.sh from build/sample/Sample.dll;"
    echo " * do not edit).  For test_il_rewrite.c. */"
    echo "typedef struct il_fixture { const char *name; const char *hex; } il_fixture;"
    echo "static const il_fixture il_fixtures[] = {"
    for m in "${methods[@]}"; do
        if [[ $m == *"+"* || $m == "<"* ]]; then
            name="ClrProbe.Sample.IlShapes+${m%.*}.${m##*.}"
        else
            name="ClrProbe.Sample.IlShapes.$m"
        fi
        hex=$("$SAMPLE" ildump "$name")
        printf '    { "%s", "%s" },\n' "$m" "$hex"
    done
    echo "};"
} >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "wrote $OUT"
