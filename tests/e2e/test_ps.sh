# test_ps.sh - `clrprobe ps` lists the running .NET processes with their
# runtime version and command line, and leaves out processes without
# diagnostics, stale sockets and processes of other users.  Each test runs
# its samples with TMPDIR set to a private directory (their sockets go there,
# not to /tmp) and kills them when it ends.

# ps_start NAME [ENV=VALUE...] -- ARGS...: starts the sample in the background
# with TMPDIR=$PS_TMP, output in NAME.out; sets PS_PID.
ps_start() {
    local name=$1
    shift
    local envs=()
    while [[ $1 != -- ]]; do envs+=("$1"); shift; done
    shift
    env TMPDIR="$PS_TMP" "${envs[@]}" "$SAMPLE" "$@" >"$name.out" 2>"$name.err" &
    PS_PID=$!
    PS_PIDS+=("$PS_PID")
    wait_for_text "$name.out" 30 "spin started" || fail "sample $name did not start"
}

ps_cleanup() {
    local p
    for p in "${PS_PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
    for p in "${PS_PIDS[@]}"; do wait "$p" 2>/dev/null; done
    PS_PIDS=()
}

# ps_setup NAME [DIR]: the samples' TMPDIR is $WORK/ps-tmp-NAME, or DIR.
ps_setup() {
    PS_TMP=${2:-$WORK/ps-tmp-$1}
    rm -rf "$PS_TMP"
    mkdir -p "$PS_TMP"
    chmod 755 "$PS_TMP"
    export TMPDIR="$PS_TMP"
    PS_PIDS=()
    at_exit ps_cleanup
}

# The ps line of a pid (empty when not listed).
ps_line() {
    awk -v p="$2" '$1 == p' "$1"
}

test_ps_lists_sample_with_runtime_and_command() {
    ps_setup list
    ps_start spin -- spin 30
    local pid=$PS_PID
    "$CLRPROBE" ps >ps.out 2>ps.err
    assert_eq 0 "$?" "exit code"
    assert_eq "PID NAME RUNTIME PROFILER CONTAINER COMMAND" "$(head -1 ps.out | tr -s ' ')" "header line"
    local line
    line=$(ps_line ps.out "$pid")
    [[ -n $line ]] || { fail "pid $pid not listed"; sed 's/^/    | /' ps.out ps.err; return; }
    assert_eq 1 "$(ps_line ps.out "$pid" | wc -l | tr -d ' ')" "lines for pid $pid"
    assert_eq Sample "$(awk '{print $2}' <<<"$line")" "NAME column"
    local runtime versions
    runtime=$(awk '{print $3}' <<<"$line")
    versions=$(dotnet --list-runtimes | awk '$1 == "Microsoft.NETCore.App" {print $2}')
    grep -qxF -- "$runtime" <<<"$versions" || fail "RUNTIME '$runtime' is not one of: $(echo $versions)"
    assert_eq - "$(awk '{print $4}' <<<"$line")" "PROFILER column: none"
    assert_eq - "$(awk '{print $5}' <<<"$line")" "CONTAINER column: this host's"
    assert_contains "$line" "Sample" "COMMAND names the program"
    assert_contains "$line" "spin 30" "COMMAND has the arguments"
    # the dotnet host form
    env TMPDIR="$PS_TMP" dotnet "$ROOT/build/sample/Sample.dll" spin 30 >host.out 2>host.err &
    PS_PIDS+=("$!")
    local hpid=$!
    wait_for_text host.out 30 "spin started" || fail "dotnet Sample.dll did not start"
    "$CLRPROBE" ps >ps2.out 2>ps2.err
    line=$(ps_line ps2.out "$hpid")
    assert_eq dotnet "$(awk '{print $2}' <<<"$line")" "NAME of 'dotnet Sample.dll'"
    assert_contains "$line" "Sample.dll spin 30" "COMMAND of 'dotnet Sample.dll'"
    [[ -n $(ps_line ps2.out "$pid") ]] || fail "the first sample is no longer listed"
}

test_ps_escapes_command_line() {
    # A process chooses its own command line: terminal escapes and a line
    # break in it must not reach the terminal or forge a line of the list.
    ps_setup escape
    (sanitizer_preload; exec -a $'argv0\x1b[31m\r\n4242 Forged 9.9.9 evil' "$SAMPLE_BIN" spin 30) >spin.out 2>spin.err &
    local pid=$!
    PS_PIDS+=("$pid")
    wait_for_text spin.out 30 "spin started" || fail "sample did not start"
    "$CLRPROBE" ps >ps.out 2>ps.err
    assert_eq 0 "$?" "exit code"
    assert_eq 1 "$(ps_line ps.out "$pid" | wc -l | tr -d ' ')" "lines for pid $pid"
    assert_eq 0 "$(ps_line ps.out 4242 | wc -l | tr -d ' ')" "forged lines"
    assert_contains ps.out 'argv0\x1b[31m\r\n4242 Forged 9.9.9 evil spin 30' "the command line, escaped"
    if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' ps.out; then fail "a control character reached the output"; fi
}

test_ps_skips_disabled_diagnostics() {
    ps_setup nodiag
    ps_start nodiag DOTNET_EnableDiagnostics=0 -- spin 30
    local pid=$PS_PID
    ls "$PS_TMP" | grep -q "dotnet-diagnostic-$pid-" && fail "a socket was created despite DOTNET_EnableDiagnostics=0"
    "$CLRPROBE" ps >ps.out 2>ps.err
    assert_eq 0 "$?" "exit code"
    [[ -z $(ps_line ps.out "$pid") ]] || fail "pid $pid with diagnostics disabled is listed"
}

test_ps_skips_stale_sockets() {
    ps_setup stale
    # a real stale socket: the runtime of a killed process cannot remove it
    ps_start dead -- spin 30
    local dead=$PS_PID sock
    kill -9 "$dead"
    wait "$dead" 2>/dev/null
    sock=$(ls "$PS_TMP" | grep "^dotnet-diagnostic-$dead-" | head -1)
    [[ -n $sock ]] || { fail "the killed sample left no socket in $PS_TMP"; return; }
    ps_start live -- spin 30
    local live=$PS_PID
    # the same stale socket under the live pid with a wrong key, and under a
    # pid that cannot exist (pid_max is at most 4194304); a regular file
    ln "$PS_TMP/$sock" "$PS_TMP/dotnet-diagnostic-$live-1-socket"
    ln "$PS_TMP/$sock" "$PS_TMP/dotnet-diagnostic-9999999-5-socket"
    echo "not a socket" >"$PS_TMP/dotnet-diagnostic-9999998-1-socket"
    "$CLRPROBE" ps >ps.out 2>ps.err
    assert_eq 0 "$?" "exit code"
    [[ -z $(ps_line ps.out "$dead") ]] || fail "the killed process $dead is listed"
    [[ -z $(ps_line ps.out 9999999) ]] || fail "a socket of a pid that does not exist is listed"
    [[ -z $(ps_line ps.out 9999998) ]] || fail "a regular file is listed"
    assert_eq 1 "$(ps_line ps.out "$live" | wc -l | tr -d ' ')" "lines for the live pid $live"
    assert_contains "$(ps_line ps.out "$live")" "spin 30" "the live process answers on its own socket"
}

test_ps_other_users_not_shown() {
    other_user_setup
    ps_setup users "$OTHER_DIR/tmp"      # (nobody must be able to list the sockets' directory)
    ps_start mine -- spin 30
    local pid=$PS_PID
    as_other_user env TMPDIR="$PS_TMP" "$OTHER_CLRPROBE" ps >ps.out 2>ps.err
    assert_eq 0 "$?" "exit code"
    [[ -z $(ps_line ps.out "$pid") ]] || fail "root's process $pid is listed for nobody"
    assert_contains ps.err "of other users not shown (run clrprobe as their user, or as root, to see them)" "note"
    # nobody owns no .NET process here
    assert_eq "" "$(cat ps.out)" "stdout for nobody"
    assert_contains ps.err "no .NET processes found" "nothing found"
}

# Anyone may bind a diagnostics socket's name for any pid.  Root's `ps`
# believes only a socket made by the process's user, and root's `attach`
# sends nothing to one whose listener is not the process itself: a socket
# nobody forged for a root process is skipped and named once (its owner),
# one root forged for another root process is refused before a byte is
# sent, and the real .NET process beside them is listed as before.
test_ps_forged_sockets_are_not_believed() {
    other_user_setup
    ps_setup forged "$OTHER_DIR/tmp"
    chmod 1777 "$PS_TMP"                 # (a /tmp of its own: anyone may bind in it)
    ps_start live -- spin 30
    local live=$PS_PID
    sleep 60 &
    local victim=$!
    PS_PIDS+=("$victim")
    install -m 666 /dev/null "$OTHER_OUT/sent.log"
    forge_diag_socket "$victim" "$PS_TMP" "$OTHER_OUT/sent.log" other
    "$CLRPROBE" ps >ps.out 2>ps.err
    assert_eq 0 "$?" "exit code: $(cat ps.err)"
    [[ -z $(ps_line ps.out "$victim") ]] || fail "root's sleep $victim is listed through nobody's socket"
    assert_contains "$(ps_line ps.out "$live")" "spin 30" "the real .NET process"
    assert_contains ps.err "skipped $FORGED: made by uid 65534 (nobody), not by process $victim's user uid 0 (root)" \
        "the fake named"
    assert_eq 1 "$(grep -c "skipped $FORGED" ps.err)" "lines naming it"
    expect_error any "made by uid 65534 (nobody)" env TMPDIR="$PS_TMP" "$CLRPROBE" attach "$victim" -o a.clrp \
        --duration 1
    assert_eq 0 "$(stat -c %s "$OTHER_OUT/sent.log")" "bytes sent to nobody's socket"
    kill "$FORGER_PID"
    rm -f "$FORGED"

    # root's own fake (the owner is right): its listener is not the process
    install -m 600 /dev/null root-sent.log
    forge_diag_socket "$victim" "$PS_TMP" "$PWD/root-sent.log"
    expect_error any "is not process $victim's own: process $FORGER_PID of uid 0 (root) listens on it" \
        env TMPDIR="$PS_TMP" "$CLRPROBE" attach "$victim" -o b.clrp --duration 1
    "$CLRPROBE" ps >ps2.out 2>ps2.err
    [[ -z $(ps_line ps2.out "$victim") ]] || fail "root's sleep $victim is listed through a socket it does not hold"
    assert_eq 0 "$(stat -c %s root-sent.log)" "bytes sent to a socket the process does not hold"
}

test_ps_usage() {
    "$CLRPROBE" ps --help >help.out 2>help.err
    assert_eq 0 "$?" "--help exit code"
    assert_contains help.out "usage: clrprobe ps" "usage line"
    assert_contains help.out "other users" "--help says what happens to other users' processes"
    "$CLRPROBE" ps --bogus >out 2>err
    assert_eq 2 "$?" "exit code of an unknown option"
    assert_contains err "ps: unknown option '--bogus'" "message"
    "$CLRPROBE" ps 123 >out 2>err
    assert_eq 2 "$?" "exit code of an extra argument"
    assert_contains err "unexpected argument '123'" "message"
    "$CLRPROBE" --help >out
    assert_contains out "  ps " "ps in the command list"
}
