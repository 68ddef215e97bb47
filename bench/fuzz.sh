#!/usr/bin/env bash
# fuzz.sh - a longer run of the trace fuzzer than make check's (the unit
# test fuzz_reader_mutated_traces, tests/unit/test_fuzz_reader.c): the same
# seeds (made traces with every record kind, the crafted hostile traces of
# tests/data/crafted, real traces of the agent) mutated case after case,
# each read, walked and written in every report format; then of the PDB
# reader's (fuzz_pdb_mutated, tests/unit/test_fuzz_pdb.c: tests/data/pdb's
# PDB and assemblies mutated, every method's lines looked up); preferably
# with the sanitized build so that any out-of-bounds access stops them.
# Cases are numbered and deterministic: a failure prints FUZZ_CASE=N to
# rerun it.
#   bench/fuzz.sh [CASES] [SECONDS] [FIRST]
# CASES (default 100000) cases from case FIRST (default 1500: after the ones
# make check runs), stopping after SECONDS (default 600) if not done; the
# PDB fuzzer ten times CASES from its case 20000.  Uses build-asan/ if it
# has been built (make asan), else build/.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CASES=${1:-100000}
SECONDS_BUDGET=${2:-600}
FIRST=${3:-1500}
BIN=$ROOT/build-asan/unit_tests
[[ -x $BIN ]] || BIN=$ROOT/build/unit_tests
[[ -x $BIN ]] || { echo "fuzz: build the unit tests first (make build/unit_tests, or make asan)" >&2; exit 1; }
[[ $CASES =~ ^[0-9]+$ && $SECONDS_BUDGET =~ ^[0-9]+$ && $FIRST =~ ^[0-9]+$ ]] ||
    { echo "usage: bench/fuzz.sh [CASES] [SECONDS] [FIRST] (whole numbers)" >&2; exit 2; }

cd "$ROOT"                  # (the seeds are read from tests/data)
echo "fuzz: $BIN, cases $FIRST..$((FIRST + CASES - 1)), at most $SECONDS_BUDGET s"
start=$(date +%s)
FUZZ_FIRST=$FIRST FUZZ_CASES=$CASES FUZZ_SECONDS=$SECONDS_BUDGET "$BIN" fuzz_reader_mutated_traces
echo "fuzz: $(($(date +%s) - start)) s"
# the PDB reader's (tests/unit/test_fuzz_pdb.c: make check runs 20,000 cases, ten times as many here, from
# after those)
start=$(date +%s)
echo "fuzz: the PDB reader, cases 20000..$((20000 + 10 * CASES - 1)), at most $SECONDS_BUDGET s"
FUZZ_FIRST=20000 FUZZ_CASES=$((10 * CASES)) FUZZ_SECONDS=$SECONDS_BUDGET "$BIN" fuzz_pdb_mutated
echo "fuzz: $(($(date +%s) - start)) s"
