#!/usr/bin/env bash
# pdb.sh - the portable-PDB reader (src/symbols) on a large PDB: generates a
# C# library of CLASSES classes (default 5000) with 30 multi-line methods
# each (a PDB of about 10 MB), builds it once with dotnet (Release, the PDB
# beside the DLL), then bench/pdb_read.c, built here against src/symbols,
# opens the symbols and looks up every method's line at ten IL offsets.
# Printed: the PDB's size, the methods, the lookups, and the times (open;
# the first pass, which decodes every method's sequence points; a second
# pass over decoded ones).  Target: open plus first pass well under a
# second for 10 MB.  Everything is made in a fresh directory under build/,
# removed at the end (KEEP=1 keeps it).
#   bench/pdb.sh [CLASSES]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CLASSES=${1:-5000}
mkdir -p "$ROOT/build"
OUT=$(mktemp -d "$ROOT/build/bench-pdb.XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$OUT"' EXIT

mkdir -p "$OUT/src"
cat >"$OUT/src/Big.csproj" <<'PROJ'
<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup>
    <TargetFramework>net10.0</TargetFramework>
    <Deterministic>true</Deterministic>
    <NuGetAudit>false</NuGetAudit>
    <EnableNETAnalyzers>false</EnableNETAnalyzers>
    <ImplicitUsings>disable</ImplicitUsings>
    <Nullable>disable</Nullable>
  </PropertyGroup>
</Project>
PROJ
# 25 classes a file, each method a loop, a condition and a few statements
awk -v classes="$CLASSES" -v dir="$OUT/src" 'BEGIN {
    for (c = 0; c < classes; c++) {
        f = sprintf("%s/Gen%03d.cs", dir, int(c / 25))
        if (c % 25 == 0) print "namespace Big\n{" > f
        printf "    public class C%d\n    {\n", c > f
        for (m = 0; m < 30; m++) {
            printf "        public static int M%d(int a, int b)\n        {\n", m > f
            printf "            int s = a * %d;\n", m + 1 > f
            printf "            for (int i = 0; i < b; i++)\n            {\n" > f
            printf "                s += i ^ %d;\n", c > f
            printf "                if (s > %d)\n                    s -= a;\n", 1000 + m > f
            printf "            }\n            int t = s + b;\n            t = t * 3 - a;\n" > f
            printf "            return t + C%d.M%d(b, a);\n        }\n\n", c, (m + 1) % 30 > f
        }
        printf "    }\n" > f
        if (c % 25 == 24 || c == classes - 1) { print "}" > f; close(f) }
    }
}'
echo "pdb.sh: building $CLASSES classes ($((CLASSES * 30)) methods) with dotnet..."
start=$(date +%s)
dotnet build "$OUT/src/Big.csproj" -c Release -o "$OUT/bin" >"$OUT/build.log" 2>&1 ||
    { tail -20 "$OUT/build.log"; exit 1; }
echo "pdb.sh: built in $(($(date +%s) - start)) s"
${CC:-cc} -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -I"$ROOT/src" -o "$OUT/pdb_read" "$ROOT/bench/pdb_read.c" \
    "$ROOT"/src/symbols/*.c -lz
size=$(stat -c %s "$OUT/bin/Big.pdb")
echo "pdb.sh: Big.pdb is $size bytes ($(awk -v s="$size" 'BEGIN { printf "%.1f", s / 1048576 }') MiB)"
for run in 1 2 3; do
    echo "run $run: $("$OUT/pdb_read" "$OUT/bin/Big.dll" | grep -E '^(methods|lookups|found|open_ms|first_pass_ms|second_pass_ms|total_ms)=' | tr '\n' ' ')"
done
