# lib.sh - helpers for the end-to-end tests: assertions that record a
# failure and go on, and fixtures that run the sample once per suite run and
# share the result (tests run in $WORK, fixtures live in $WORK/fixtures).

__failures=0

fail() {
    echo "  assertion failed: $*"
    __failures=$((__failures + 1))
}

skip() {        # reason: the test cannot run here (e.g. needs root)
    echo "$*"
    exit 77
}

assert_eq() {   # expected actual message
    [[ "$1" == "$2" ]] || fail "$3: expected '$1', got '$2'"
}

assert_ge() {   # minimum actual message
    [[ "$2" =~ ^[0-9]+$ && "$2" -ge "$1" ]] || fail "$3: expected at least $1, got '$2'"
}

assert_contains() {   # file-or-text needle message
    if [[ -f "$1" ]]; then
        grep -qF -- "$2" "$1" || { fail "$3: '$2' not found in $1"; sed 's/^/    | /' "$1" | tail -5; }
    else
        [[ "$1" == *"$2"* ]] || fail "$3: '$2' not found in: $1"
    fi
}

assert_not_contains() {
    grep -qF -- "$2" "$1" && fail "$3: '$2' unexpectedly found in $1"
    return 0
}

# Count jsonl lines matching a jq filter: jcount FILE 'select(...)'
jcount() {
    jq -c "$2" "$1" | wc -l | tr -d ' '
}

# fixture NAME ARGS...: runs the sample with ARGS under the agent once and
# without it once, keeping stdout/stderr/exit code and the trace as jsonl.
# Sets FX to the fixture directory.
fixture() {
    local name=$1
    shift
    FX="$WORK/fixtures/$name"
    if [[ ! -f $FX/done ]]; then
        mkdir -p "$FX"
        (
            exec 9>"$FX.lock"
            flock 9
            [[ -f $FX/done ]] && exit 0
            "$SAMPLE" "$@" >"$FX/plain.out" 2>"$FX/plain.err"
            echo $? >"$FX/plain.rc"
            "$CLRPROBE" run -o "$FX/trace.clrp" -- "$SAMPLE" "$@" >"$FX/prof.out" 2>"$FX/prof.err"
            echo $? >"$FX/prof.rc"
            "$CLRPROBE" report "$FX/trace.clrp" --format jsonl >"$FX/trace.jsonl" 2>"$FX/report.err"
            echo $? >"$FX/report.rc"
            "$CLRPROBE" report "$FX/trace.clrp" >"$FX/trace.txt" 2>>"$FX/report.err"
            touch "$FX/done"
        )
    fi
}

# shares_trace: records `Sample shares 3` once per suite run; sets TRACE.
shares_trace() {
    local dir="$WORK/fixtures/shares"
    TRACE="$dir/shares.clrp"
    mkdir -p "$dir"
    (
        exec 9>"$dir.lock"
        flock 9
        [[ -f $dir/done ]] && exit 0
        "$CLRPROBE" run -o "$TRACE" -- "$SAMPLE" shares 3 >"$dir/run.out" 2>"$dir/run.err"
        echo $? >"$dir/run.rc"
        touch "$dir/done"
    )
    assert_eq 0 "$(cat "$dir/run.rc")" "exit code of the recording"
    [[ -s $TRACE ]] || fail "no trace recorded"
}

# Waits up to $2 seconds for file $1 to contain $3.
wait_for_text() {
    local i
    for ((i = 0; i < $2 * 20; i++)); do
        grep -qF -- "$3" "$1" 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}

# agent_env CONFIG COMMAND...: runs COMMAND with the variables clrprobe run
# would set, but with our own configuration text.
agent_env() {
    env CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER='{8C5F2C71-3A9E-4E1B-9F4D-2B7A6C1D0E53}' \
        CORECLR_PROFILER_PATH="$AGENT" CLRPROBE_CONFIG="$1" "${@:2}"
}

# file_mode PATH: the permission bits, e.g. 600.
file_mode() {
    stat -c %a "$1"
}
