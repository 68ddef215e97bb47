#!/usr/bin/env bash
# run.sh - the whole test suite: the C unit tests, then the end-to-end tests
# (tests/e2e/test_*.sh) that run the real sample program on the real .NET
# runtime with and without the agent.  Each e2e test is a bash function
# test_NAME run in its own process with a time limit; it may call skip
# (exit 77) when the machine cannot run it.  Prints one line per
# test and closes with "N passed, N failed".
#   tests/run.sh [FILTER]    run only tests whose name contains FILTER
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
export ROOT
export CLRPROBE="$ROOT/build/clrprobe"
export SAMPLE="$ROOT/build/sample/Sample"
# Each run has its own work directory (runs may overlap); it is removed when
# everything passed and kept for inspection otherwise.
export WORK="$ROOT/build/test-work/run-$$"
FILTER=${1:-}
TEST_TIMEOUT=${TEST_TIMEOUT:-240}

passed=0
failed=0
skipped=0
failed_names=()

for old in "$ROOT"/build/test-work/run-*; do
    [[ -d $old ]] && ! kill -0 "${old##*-}" 2>/dev/null && rm -rf "$old"
done
mkdir -p "$WORK"

for bin in "$CLRPROBE" "$SAMPLE" "$ROOT/build/libclrprobe.so" "$ROOT/build/unit_tests"; do
    if [[ ! -x $bin && ! -f $bin ]]; then
        echo "tests: $bin is missing; build with 'make all build/unit_tests'" >&2
        echo "0 passed, 1 failed"
        exit 1
    fi
done

# Unit tests.
unit_out=$("$ROOT/build/unit_tests" "$FILTER" 2>&1)
echo "$unit_out" | grep -v '^[0-9]* passed, [0-9]* failed$'
line=$(echo "$unit_out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -1)
if [[ -n $line ]]; then
    passed=$((passed + $(echo "$line" | cut -d' ' -f1)))
    failed=$((failed + $(echo "$line" | cut -d' ' -f3)))
else
    echo "FAIL unit_tests (no summary line)"
    failed=$((failed + 1))
fi

# End-to-end tests.
for file in "$ROOT"/tests/e2e/test_*.sh; do
    for t in $(grep -oE '^test_[a-zA-Z0-9_]+' "$file"); do
        [[ -n $FILTER && $t != *"$FILTER"* ]] && continue
        log="$WORK/$t.log"
        start=$(date +%s%N)
        timeout -k 10 "$TEST_TIMEOUT" bash -c 'set -uo pipefail; source "$ROOT/tests/e2e/lib.sh"; source "$1"; cd "$WORK"; '"$t"'; exit $__failures' _ "$file" >"$log" 2>&1
        rc=$?
        ms=$(( ($(date +%s%N) - start) / 1000000 ))
        if [[ $rc -eq 0 ]]; then
            echo "ok   $t (${ms} ms)"
            passed=$((passed + 1))
        elif [[ $rc -eq 77 ]]; then
            echo "skip $t: $(tail -1 "$log")"
            skipped=$((skipped + 1))
        else
            [[ $rc -eq 124 ]] && echo "    timed out after ${TEST_TIMEOUT}s" >>"$log"
            echo "FAIL $t (${ms} ms)"
            sed 's/^/    /' "$log" | tail -25
            failed=$((failed + 1))
            failed_names+=("$t")
        fi
    done
done

if ((failed)); then
    echo "failed: ${failed_names[*]:-unit tests}"
fi
((failed == 0)) && rm -rf "$WORK"
((failed)) && echo "(logs and files of this run: $WORK)"
if ((skipped)); then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
((failed == 0))
