# test_cli_errors.sh - mistakes a user can make get one clear message and a
# non-zero exit, before anything is started or written.

test_run_usage_errors() {
    expect_error 2 "unknown option '--bogus'" "$CLRPROBE" run --bogus -- "$SAMPLE" jit
    expect_error 2 "unknown collect kind 'cpux' (valid kinds: all, cpu, appdomains" "$CLRPROBE" run --collect jit,cpux -- "$SAMPLE" jit
    expect_error 2 "no program given" "$CLRPROBE" run -o x.clrp
    expect_error 2 "unknown command 'frobnicate'" "$CLRPROBE" frobnicate
    expect_error 127 "cannot run /no/such/program" "$CLRPROBE" run -o y.clrp -- /no/such/program
}

test_messages_escape_what_they_quote() {
    # Values quoted in a message (an option's value, a path) cannot break
    # its line or reach the terminal as control characters.
    "$CLRPROBE" run --collect $'jit,\nclrprobe: forged\x1b[31m' -- "$SAMPLE" jit >out 2>err
    assert_eq 2 "$?" "exit code of a bad --collect"
    assert_eq 1 "$(wc -l <err | tr -d ' ')" "lines on stderr for a bad --collect"
    assert_contains err "unknown collect kind '\nclrprobe: forged\x1b[31m'" "the kind is quoted escaped"
    "$CLRPROBE" report $'no\x1b]0;owned\x07such\r\nclrprobe: forged.clrp' >out 2>err
    assert_eq 1 "$?" "exit code of a missing trace"
    assert_eq 1 "$(wc -l <err | tr -d ' ')" "lines on stderr for a missing trace"
    assert_contains err 'no\x1b]0;owned\x07such\r\nclrprobe: forged.clrp' "the path is quoted escaped"
    if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' err; then fail "a control character reached stderr"; fi
}

test_unwritable_output_checked_before_start() {
    rm -f marker
    expect_error 1 "cannot write trace file /nonexistent-dir/t.clrp" "$CLRPROBE" run -o /nonexistent-dir/t.clrp -- touch marker
    [[ ! -e marker ]] || fail "the program ran although the output was unwritable"
    mkdir -p adir
    expect_error 1 "is a directory" "$CLRPROBE" run -o adir -- touch marker
    [[ ! -e marker ]] || fail "the program ran although the output is a directory"
}

test_agent_missing_beside_command() {
    mkdir -p lonely
    cp "$CLRPROBE" lonely/clrprobe
    expect_error 1 "the agent libclrprobe.so is neither beside the clrprobe command" lonely/clrprobe run -- "$SAMPLE" jit
}

test_not_a_dotnet_program() {
    echo "an old trace from another run" >native.clrp     # must not pass for this run's trace, nor be lost
    "$CLRPROBE" run -o native.clrp -- /bin/echo hello >out 2>err
    assert_eq 0 "$?" "exit code of /bin/echo passes through"
    assert_eq hello "$(cat out)" "output"
    assert_contains err "no trace was recorded" "message"
    assert_not_contains err "trace written" "message"
    assert_eq "an old trace from another run" "$(cat native.clrp)" "the existing file is left as it was"
    "$CLRPROBE" run -o fresh.clrp -- /bin/echo hello >out 2>err
    [[ ! -e fresh.clrp ]] || fail "an empty trace file was left behind"
    assert_eq "" "$(ls | grep partial)" "no temporary file left behind"
}

test_report_errors() {
    echo "not a trace at all" >notrace.txt
    expect_error 1 "not a clrprobe trace" "$CLRPROBE" report notrace.txt
    expect_error 1 "No such file" "$CLRPROBE" report /no/such/trace.clrp
    expect_error 2 "unknown format 'xml' (valid formats: text, jsonl, collapsed, speedscope, pprof, html, chrome, heapsnapshot)" "$CLRPROBE" report notrace.txt --format xml
    expect_error 2 "no trace file given" "$CLRPROBE" report
    expect_error 2 "unknown option" "$CLRPROBE" report --frob x
    fixture all all
    cp "$FX/trace.clrp" newer.clrp
    printf '\x63' | dd of=newer.clrp bs=1 seek=8 conv=notrunc status=none   # format version 99
    expect_error 1 "newer than this clrprobe reads" "$CLRPROBE" report newer.clrp
    expect_error 1 "cannot write report /nonexistent-dir/r.txt" "$CLRPROBE" report "$FX/trace.clrp" -o /nonexistent-dir/r.txt
    # a failed report leaves no output file behind
    expect_error 1 "not a clrprobe trace" "$CLRPROBE" report notrace.txt -o out.txt
    [[ ! -e out.txt ]] || fail "a partial report file was left"
}

test_report_to_file() {
    fixture all all
    "$CLRPROBE" report "$FX/trace.clrp" --format jsonl -o r.jsonl >out 2>err
    assert_eq 0 "$?" "exit code"
    assert_eq 0 "$(wc -c <out | tr -d ' ')" "nothing on stdout"
    cmp -s r.jsonl "$FX/trace.jsonl" || fail "file output differs from stdout output"
    ls r.jsonl.* >/dev/null 2>&1 && fail "temporary file left"
    return 0
}

test_help_everywhere() {
    local c
    for c in "" run report attach heap stack ps; do
        "$CLRPROBE" $c --help >help.out 2>&1
        assert_eq 0 "$?" "clrprobe $c --help exit code"
        assert_contains help.out "usage: clrprobe" "clrprobe $c --help text"
    done
    "$CLRPROBE" >noargs.out 2>&1
    assert_eq 2 "$?" "clrprobe without arguments"
}

# pprof is gzip: never written to a terminal; a chrome file named as
# speedscope misreads it gets a note.
test_report_output_edges() {
    fixture all all
    # a terminal on stdout (script gives the command a pseudo-terminal)
    script -qec "$CLRPROBE report $FX/trace.clrp --format pprof" /dev/null >tty.out 2>&1
    assert_contains tty.out "writes binary (gzip) data, not for a terminal" "pprof refused on a terminal"
    if LC_ALL=C grep -q $'\x1f\x8b' tty.out; then fail "gzip reached the terminal"; fi
    # ...and written when redirected
    "$CLRPROBE" report "$FX/trace.clrp" --format pprof >p.pb.gz 2>p.err || fail "pprof to a pipe: $(cat p.err)"
    gzip -t p.pb.gz || fail "pprof redirected is not gzip"
    "$CLRPROBE" report "$FX/trace.clrp" --format chrome -o t.chrome.json 2>c.err || fail "chrome: $(cat c.err)"
    assert_contains c.err "speedscope takes a file of that name" "the note on the name speedscope misreads"
    jq -e .traceEvents t.chrome.json >/dev/null || fail "the chrome file is written anyway"
    "$CLRPROBE" report "$FX/trace.clrp" --format chrome -o t.json 2>c.err || fail "chrome"
    assert_eq "" "$(cat c.err)" "no note for another name"
}
