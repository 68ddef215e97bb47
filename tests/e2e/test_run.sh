# test_run.sh - `clrprobe run` leaves the program alone: same stdout, same
# exit code, stdin and signals passed through; the trace is written.

test_all_scenarios_output_and_exit_code_unchanged() {
    fixture all all
    assert_eq "$(cat "$FX/plain.rc")" "$(cat "$FX/prof.rc")" "exit code with and without the agent"
    assert_eq 0 "$(cat "$FX/prof.rc")" "sample exit code"
    cmp -s "$FX/plain.out" "$FX/prof.out" || { fail "stdout differs with the agent"; diff "$FX/plain.out" "$FX/prof.out" | head; }
    assert_contains "$FX/prof.err" "clrprobe: trace written to $FX/trace.clrp" "where the trace went"
    # the agent itself prints nothing
    assert_eq 1 "$(wc -l <"$FX/prof.err" | tr -d ' ')" "stderr lines with the agent"
}

test_fixed_work_output_unchanged() {
    "$SAMPLE" work 3 >plain.out
    "$CLRPROBE" run -o work.clrp -- "$SAMPLE" work 3 >prof.out 2>prof.err
    assert_eq 0 "$?" "exit code"
    cmp -s plain.out prof.out || fail "work output differs"
    assert_contains prof.out "work checksum:" "checksum line"
}

test_exit_code_passes_through() {
    "$CLRPROBE" run -o exit.clrp -- "$SAMPLE" exit 42 >out 2>err
    assert_eq 42 "$?" "exit code"
    assert_contains out "exiting with 42" "program output"
    "$CLRPROBE" run -o exit3.clrp -- "$SAMPLE" nosuchscenario >out 2>err
    assert_eq 2 "$?" "exit code of a failing program"
    # stderr going to a reader that has quit must not change the status
    "$CLRPROBE" run -o exit4.clrp -- "$SAMPLE" exit 3 2>&1 | true
    assert_eq 3 "${PIPESTATUS[0]}" "exit code when stderr is a closed pipe"
}

test_stdin_passes_through() {
    printf 'alpha\nbeta gamma\n' | "$CLRPROBE" run -o echo.clrp -- "$SAMPLE" echo >out 2>err
    assert_eq 0 "$?" "exit code"
    assert_eq "$(printf 'alpha\nbeta gamma')" "$(cat out)" "echoed stdin"
}

test_signal_passes_through() {
    "$CLRPROBE" run -o sig.clrp -- "$SAMPLE" spin 60 >out 2>err &
    local pid=$!
    wait_for_text out 30 "spin started" || fail "sample did not start"
    kill -TERM "$pid"
    wait "$pid"
    assert_eq 143 "$?" "exit status after SIGTERM (128+15)"
    assert_contains err "trace written to" "trace path printed"
    "$CLRPROBE" report sig.clrp >/dev/null 2>rep.err
    assert_eq 0 "$?" "report of the interrupted trace"
}

test_dotnet_host_form_works() {
    dotnet "$ROOT/build/sample/Sample.dll" jit >plain.out
    "$CLRPROBE" run -o host.clrp -- dotnet "$ROOT/build/sample/Sample.dll" jit >prof.out 2>err
    assert_eq 0 "$?" "exit code"
    cmp -s plain.out prof.out || fail "stdout differs under 'dotnet app.dll'"
    "$CLRPROBE" report host.clrp --format jsonl >host.jsonl
    assert_ge 1 "$(jcount host.jsonl 'select(.kind=="jit" and .function=="ClrProbe.Sample.JitTargets.ComputeFibonacci")')" "jit of ComputeFibonacci"
}

test_default_output_name() {
    mkdir -p defname && cd defname
    "$CLRPROBE" run -- "$SAMPLE" exit 0 >out 2>err
    assert_eq 0 "$?" "exit code"
    local f
    f=$(ls clrprobe-Sample-*.clrp 2>/dev/null | head -1)
    [[ -n $f ]] || fail "no clrprobe-Sample-*.clrp in the working directory"
    assert_contains err "$PWD/$f" "printed path is absolute"
}

# `run` leaves the trace file open for the program (output_fd in
# CLRPROBE_CONFIG).  A program that closes it before .NET starts (a script
# closing what it inherited) still gets a trace, over the run's socket as a
# process it starts would; with --no-follow the agent records nothing and
# says why in one line; never is a path opened instead.
test_run_program_that_closes_the_trace_descriptor() {
    cat >closer.sh <<'EOF'
#!/bin/bash
fd=$(sed -n 's/.*;output_fd=\([0-9]*\);.*/\1/p' <<<"$CLRPROBE_CONFIG")
[[ -n $fd && -e /proc/self/fd/$fd ]] && eval "exec $fd>&-"
exec "$@"
EOF
    chmod 755 closer.sh
    "$SAMPLE" jit >plain.out 2>plain.err
    local plain_rc=$? kid
    "$CLRPROBE" run -o c.clrp -- ./closer.sh "$SAMPLE" jit >run.out 2>run.err
    assert_eq "$plain_rc" "$?" "exit code"
    cmp -s plain.out run.out || fail "the program's output changed"
    assert_contains run.err "./closer.sh closed the descriptor of its trace file before starting .NET" "what happened"
    kid=$(sed -n 's/^clrprobe:   Sample (pid [0-9]*), [0-9.]* s: //p' run.err)
    [[ $kid == "$PWD"/c.Sample-*.clrp && -f $kid ]] || fail "no trace over the socket: '$kid'"
    [[ ! -e c.clrp ]] || fail "an empty trace was left at c.clrp"
    assert_eq "" "$(ls -A | grep partial)" "no temporary file left"
    "$CLRPROBE" run --no-follow -o n.clrp -- ./closer.sh "$SAMPLE" jit >nf.out 2>nf.err
    assert_eq "$plain_rc" "$?" "exit code with --no-follow"
    cmp -s plain.out nf.out || fail "the program's output changed (--no-follow)"
    assert_contains nf.err "clrprobe: the trace file's descriptor" "the agent says why it does not record"
    assert_contains nf.err "is closed or replaced in this process" "why"
    assert_eq 1 "$(grep -c 'descriptor' nf.err)" "one line from the agent"
    assert_contains nf.err "no trace was recorded" "the command says so"
}

# The trace file left open for the program never takes the number of a
# standard stream that clrprobe itself was started without: the program
# finds stdin closed as it would without clrprobe.
test_run_with_a_standard_stream_closed() {
    local probe='if [ -e /proc/self/fd/0 ]; then echo "stdin open"; else echo "stdin closed"; fi'
    sh -c "$probe" <&- >plain.out 2>&1
    "$CLRPROBE" run -o s.clrp -- sh -c "$probe" <&- >run.out 2>run.err
    assert_eq 0 "$?" "exit code"
    cmp -s plain.out run.out || fail "the program's stdin differs: $(cat run.out), not $(cat plain.out)"
    "$CLRPROBE" run -o s2.clrp -- "$SAMPLE" exit 0 <&- >sample.out 2>sample.err
    assert_eq 0 "$?" "exit code of the sample"
    assert_contains sample.err "trace written to $PWD/s2.clrp" "the trace"
}
