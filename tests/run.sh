#!/usr/bin/env bash
# run.sh - the whole test suite: the C unit tests, then the end-to-end tests
# (tests/e2e/test_*.sh) that run the real sample program on the real .NET
# runtime with and without the agent.  Each e2e test is a bash function
# test_NAME run in its own process with a time limit; it may call skip
# (exit 77) when the machine cannot run it.  Prints one line per
# test and closes with "N passed, N failed".
#   tests/run.sh [FILTER]    run only tests whose name contains FILTER
# The build under test is build/, or the directory CLRPROBE_BUILD names
# (make asan: CLRPROBE_BUILD=build-asan); the sample is always build/'s.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
export ROOT
BIN=${CLRPROBE_BUILD:-$ROOT/build}
[[ $BIN == /* ]] || BIN="$PWD/$BIN"
export CLRPROBE="$BIN/clrprobe"
export AGENT="$BIN/libclrprobe.so"
export SAMPLE="$ROOT/build/sample/Sample"
# Each run has its own work directory (runs may overlap), and each
# end-to-end test its own directory in it, $WORK/t/NAME, where it starts (so
# that no test sees another's files: a stale "started" line of another
# test's output, an output path another test left); it is removed when
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

for bin in "$CLRPROBE" "$SAMPLE" "$AGENT" "$BIN/unit_tests"; do
    if [[ ! -x $bin && ! -f $bin ]]; then
        echo "tests: $bin is missing; build with 'make all build/unit_tests'" >&2
        echo "0 passed, 1 failed"
        exit 1
    fi
done

# A sanitized build (make asan): every sanitizer report fails the test it
# came from.  The programs (clrprobe, unit_tests) carry gcc's runtimes linked
# statically: their ASan, LSan and UBSan reports go to files and stop the
# process (UBSan too: halt_on_error).  The files are in a directory under /tmp
# that every user may write to (a test may run clrprobe as another user); the
# reports of a failed test are copied to $WORK/sanitizer/TEST/.  ASan's runtime
# must be the first library of a process, so it cannot be dlopen'ed with the
# agent: the .NET processes get it by LD_PRELOAD from two wrappers, $SAMPLE and
# a `dotnet` first in PATH (tests that start the sample otherwise use
# sanitizer_preload and $SAMPLE_BIN, lib.sh), with leak checking off (the
# runtime does not free everything at exit).  There the agent's ASan reports
# go to the files, but its UBSan reports go to the process's stderr (the
# shared libubsan ignores log_path when libasan is loaded too), so every file
# the test wrote is searched for them as well.
SANITIZED=
export SAMPLE_BIN=$SAMPLE SANITIZER_PRELOAD=
libasan=$(ldd "$AGENT" 2>/dev/null | awk '$1 ~ /^libasan\.so/ {print $3}')
if [[ -n $libasan ]]; then
    SANITIZED=1
    SANITIZER_PRELOAD=$libasan
    SANLOG=$(mktemp -d /tmp/clrprobe-sanitizer.XXXXXX) || exit 1
    chmod 1777 "$SANLOG"
    trap 'rm -rf "$SANLOG"' EXIT
    wrappers="$WORK/sanitizer-bin"
    mkdir -p "$wrappers"
    for prog in Sample dotnet; do
        real=$SAMPLE
        [[ $prog == dotnet ]] && real=$(command -v dotnet)
        printf '#!/bin/bash\n# %s with ASan'"'"'s runtime preloaded (tests/run.sh)\n' "$prog" >"$wrappers/$prog"
        printf 'LD_PRELOAD=%q${LD_PRELOAD:+:$LD_PRELOAD} ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" exec %q "$@"\n' \
            "$libasan" "$real" >>"$wrappers/$prog"
        chmod 755 "$wrappers/$prog"
    done
    export SAMPLE="$wrappers/Sample"
    export PATH="$wrappers:$PATH"
    echo "sanitized build $BIN: ASan+UBSan in clrprobe and the unit tests, the agent in .NET processes with $libasan preloaded"
fi

# sanitizer_begin NAME / sanitizer_reports NAME: around one test; the second
# prints what the sanitizers reported during it (nothing when all is clean).
sanitizer_begin() {
    [[ -n $SANITIZED ]] || return 0
    SANDIR="$SANLOG/$1"
    mkdir -p "$SANDIR"
    chmod 1777 "$SANDIR"
    touch "$SANDIR/.start"
    export ASAN_OPTIONS="log_path=$SANDIR/report:abort_on_error=0"
    export UBSAN_OPTIONS="log_path=$SANDIR/report:print_stacktrace=1:halt_on_error=1"
}
sanitizer_reports() {
    [[ -n $SANITIZED ]] || return 0
    local f kept="$WORK/sanitizer/$1"
    for f in "$SANDIR"/report.*; do
        [[ -f $f ]] || continue
        mkdir -p "$kept" && cp "$f" "$kept/"
        echo "  sanitizer report $kept/${f##*/}:"
        head -30 "$f"
    done
    find "$WORK" -path "$WORK/sanitizer" -prune -o -type f -newer "$SANDIR/.start" -size -20M -print0 |
        xargs -0 -r grep -lIE 'runtime error: |ERROR: (Address|Leak)Sanitizer|SUMMARY: UndefinedBehaviorSanitizer' |
        while read -r f; do
            echo "  sanitizer report in $f:"
            grep -aE -A12 'runtime error: |ERROR: (Address|Leak)Sanitizer' "$f" | head -30
        done
}

# Unit tests.
sanitizer_begin unit_tests
unit_out=$("$BIN/unit_tests" "$FILTER" 2>&1)
echo "$unit_out" | grep -v '^[0-9]* passed, [0-9]* failed$'
line=$(echo "$unit_out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -1)
if [[ -n $line ]]; then
    passed=$((passed + $(echo "$line" | cut -d' ' -f1)))
    failed=$((failed + $(echo "$line" | cut -d' ' -f3)))
else
    echo "FAIL unit_tests (no summary line)"
    failed=$((failed + 1))
    failed_names+=(unit_tests)
fi
san=$(sanitizer_reports unit_tests)
if [[ -n $san ]]; then
    echo "FAIL unit_tests: sanitizer reports"
    echo "$san"
    if [[ -n $line ]]; then          # (else already counted: the unit tests stopped)
        failed=$((failed + 1))
        failed_names+=(unit_tests)
    fi
fi

# End-to-end tests.
for file in "$ROOT"/tests/e2e/test_*.sh; do
    for t in $(grep -oE '^test_[a-zA-Z0-9_]+' "$file"); do
        [[ -n $FILTER && $t != *"$FILTER"* ]] && continue
        log="$WORK/$t.log"
        start=$(date +%s%N)
        sanitizer_begin "$t"
        timeout -k 10 "$TEST_TIMEOUT" bash -c 'set -uo pipefail; source "$ROOT/tests/e2e/lib.sh"; source "$1"; mkdir -p "$WORK/t/$2" && cd "$WORK/t/$2" || exit 1; '"$t"'; exit $__failures' _ "$file" "$t" >"$log" 2>&1
        rc=$?
        ms=$(( ($(date +%s%N) - start) / 1000000 ))
        san=$(sanitizer_reports "$t")
        if [[ -n $san ]]; then
            echo "$san" >>"$log"
            [[ $rc -eq 0 || $rc -eq 77 ]] && rc=1
        fi
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
