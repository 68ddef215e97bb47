# test_trace.sh - method tracing (--trace) against the real runtime, each
# figure against what `Sample calls` knows it did: exact call counts of a
# tiny method (that the JIT would inline), a slow one, one that always
# throws, a recursive one and one that calls another, on two threads;
# latencies against the sleeps they hold; each call logged up to the cap;
# framework methods traced (no precompiled code runs under the hooks); the
# program's output and exit code unchanged; the options' refusals.

CALLS_PATTERN='ClrProbe.Sample.CallTargets.*'

# trace_stat JSONL METHOD FIELD: FIELD of the all-threads method_stats line
# of ClrProbe.Sample.CallTargets.METHOD ("" when there is none).
trace_stat() {
    jq -r --arg f "ClrProbe.Sample.CallTargets.$2" \
        "select(.kind==\"method_stats\" and .thread==\"all\" and .function==\$f) | .$3" "$1"
}

test_trace_exact_counts_at_launch() {
    local rc_plain rc_prof
    "$SAMPLE" calls >plain.out 2>plain.err
    rc_plain=$?
    "$CLRPROBE" run -o t.clrp --trace "$CALLS_PATTERN" -- "$SAMPLE" calls >prof.out 2>prof.err
    rc_prof=$?
    assert_eq 0 "$rc_plain" "exit code without the agent"
    assert_eq "$rc_plain" "$rc_prof" "exit code with the agent"
    cmp -s plain.out prof.out || { fail "stdout differs under --trace"; diff plain.out prof.out | head; }
    "$CLRPROBE" report t.clrp --format jsonl >t.jsonl 2>r.err || fail "report jsonl failed: $(cat r.err)"
    "$CLRPROBE" report t.clrp >t.txt 2>r.err || fail "report text failed: $(cat r.err)"
    sed -n '/^Traced methods/,/^$/p' t.txt
    # the counts the program made (its first line says them)
    assert_eq 1500200 "$(trace_stat t.jsonl Tiny calls)" "Tiny calls (inlined nowhere)"
    assert_eq 2 "$(trace_stat t.jsonl Tiny threads)" "Tiny on two threads"
    assert_eq 500000 "$(jq -r 'select(.kind=="method_stats" and .thread!="all" and
        .function=="ClrProbe.Sample.CallTargets.Tiny") | .calls' t.jsonl | sort -n | head -1)" \
        "Tiny calls on the second thread"
    assert_eq 5 "$(trace_stat t.jsonl Slow calls)" "Slow calls"
    assert_eq 1000 "$(trace_stat t.jsonl Thrower calls)" "Thrower calls"
    assert_eq 1000 "$(trace_stat t.jsonl Thrower exceptions)" "Thrower calls left by an exception"
    assert_eq 10000 "$(trace_stat t.jsonl Recurse calls)" "Recurse calls (ten levels each)"
    assert_eq 100 "$(trace_stat t.jsonl Outer calls)" "Outer calls"
    assert_eq 0 "$(trace_stat t.jsonl Tiny exceptions)" "Tiny left by no exception"
    # latencies: Slow sleeps 20 ms (the kernel never wakes it early); Tiny is
    # a multiply and an add; the callers' self time leaves their traced
    # callees out
    awk -v v="$(trace_stat t.jsonl Slow p50_ns)" 'BEGIN {exit !(v >= 19500000 && v <= 100000000)}' ||
        fail "Slow p50 $(trace_stat t.jsonl Slow p50_ns) ns is not about 20 ms"
    awk -v v="$(trace_stat t.jsonl Slow total_ns)" 'BEGIN {exit !(v >= 5 * 19500000)}' ||
        fail "Slow total $(trace_stat t.jsonl Slow total_ns) ns is less than its five sleeps"
    awk -v v="$(trace_stat t.jsonl Tiny p50_ns)" 'BEGIN {exit !(v > 0 && v < 10000)}' ||
        fail "Tiny p50 $(trace_stat t.jsonl Tiny p50_ns) ns"
    awk -v s="$(trace_stat t.jsonl Recurse self_ns)" -v t="$(trace_stat t.jsonl Recurse total_ns)" \
        'BEGIN {exit !(s > 0 && s < t)}' || fail "Recurse self time is not below its total"
    awk -v s="$(trace_stat t.jsonl Outer self_ns)" -v t="$(trace_stat t.jsonl Outer total_ns)" \
        'BEGIN {exit !(s > 0 && s < t)}' || fail "Outer self time is not below its total"
    assert_eq 5 "$(jcount t.jsonl 'select(.kind=="traced_method" and .how=="hooks")')" "five methods traced"
    assert_contains t.txt "ClrProbe.Sample.CallTargets.Thrower (1000 left by an exception)" "text report"
    assert_not_contains prof.err "warning" "no warning"
}

test_trace_calls_logged_up_to_the_cap() {
    "$CLRPROBE" run -o c.clrp --collect jit --trace 'ClrProbe.Sample.CallTargets.Slow, ClrProbe.Sample.CallTargets.Thrower' \
        --trace-calls=100 -- "$SAMPLE" calls >prof.out 2>prof.err
    assert_eq 0 "$?" "exit code"
    "$CLRPROBE" report c.clrp --format jsonl >c.jsonl 2>/dev/null
    assert_eq 100 "$(jcount c.jsonl 'select(.kind=="call")')" "calls logged (the cap)"
    assert_eq 5 "$(jcount c.jsonl 'select(.kind=="call" and .function=="ClrProbe.Sample.CallTargets.Slow" and
        .duration_ns >= 19500000 and .exception==false)')" "Slow's five calls, 20 ms each"
    assert_eq 95 "$(jcount c.jsonl 'select(.kind=="call" and .function=="ClrProbe.Sample.CallTargets.Thrower" and
        .exception==true)')" "the first 95 Thrower calls, left by an exception"
    assert_eq 1 "$(jcount c.jsonl 'select(.kind=="note" and (.text | test("first 100 calls were logged")))')" \
        "the note that the cap was reached"
    assert_eq 1000 "$(trace_stat c.jsonl Thrower calls)" "all the Thrower calls counted all the same"
}

# With the enter/leave hooks on, the runtime runs no precompiled
# (ReadyToRun) code: framework methods are JIT-compiled, so they can be
# traced too (Console.WriteLine: the program's two calls); the trace has no
# precompiled record at all, where the same run without --trace has many.
test_trace_framework_methods_no_precompiled_code() {
    "$CLRPROBE" run -o p.clrp --collect jit --trace 'System.Console.WriteLine' -- "$SAMPLE" calls >p.out 2>p.err
    assert_eq 0 "$?" "exit code"
    "$CLRPROBE" report p.clrp --format jsonl >p.jsonl 2>/dev/null
    assert_eq 2 "$(jq -s '[.[] | select(.kind=="method_stats" and .thread=="all" and
        (.function | startswith("System.Console.WriteLine"))) | .calls] | add' p.jsonl)" \
        "the program's two WriteLine calls"
    assert_eq 0 "$(jcount p.jsonl 'select(.kind=="precompiled")')" "no precompiled code used under the hooks"
    "$CLRPROBE" run -o n.clrp --collect jit -- "$SAMPLE" calls >n.out 2>n.err
    "$CLRPROBE" report n.clrp --format jsonl >n.jsonl 2>/dev/null
    assert_ge 50 "$(jcount n.jsonl 'select(.kind=="precompiled")')" "precompiled code used without --trace"
    cmp -s p.out n.out || fail "stdout differs between the two runs"
}

test_trace_options_refused_with_a_reason() {
    "$CLRPROBE" run --trace Method -- "$SAMPLE" exit 0 >o.out 2>o.err
    assert_eq 2 "$?" "a pattern without a type"
    assert_contains o.err "names no type" "the reason"
    "$CLRPROBE" run --trace-calls -- "$SAMPLE" exit 0 >o.out 2>o.err
    assert_eq 2 "$?" "--trace-calls alone"
    assert_contains o.err "--trace-calls needs --trace" "the reason"
    "$CLRPROBE" attach 1 --trace Method >o.out 2>o.err
    assert_eq 2 "$?" "attach --trace with a pattern without a type"
    assert_contains o.err "names no type" "the reason"
    "$CLRPROBE" attach 1 --trace-calls=10 >o.out 2>o.err
    assert_eq 2 "$?" "attach --trace-calls alone"
    assert_contains o.err "--trace-calls needs --trace" "the reason"
}

# After an attach: the IL of the matching methods is rewritten with probes
# (ReJIT).  `Sample calls 1 late wait` waits before it calls anything; the
# attach rewrites CallTargets.* (loaded), IlBig.Huge (more than 64 KB of
# IL, which the JIT compiles rewritten) and LateTargets.* (in the Late
# library, loaded later: rewritten when its module loads, before the
# program calls it); every count is exact, and the program's output and
# exit code are those of a run without clrprobe.
test_trace_after_attach_exact_counts_and_a_late_module() {
    local tpid apid
    (echo; echo) | "$SAMPLE" calls 1 late wait >plain.out 2>plain.err
    assert_eq 0 "$?" "exit code without the agent"
    mkfifo in.fifo
    "$SAMPLE" calls 1 late wait <in.fifo >prof.out 2>prof.err &
    tpid=$!
    exec 7>in.fifo
    at_exit "exec 7>&-; kill $tpid 2>/dev/null"
    wait_for_text prof.out 10 "calls waiting" || fail "the target did not start"
    "$CLRPROBE" attach "$tpid" -o a.clrp --collect jit \
        --trace 'ClrProbe.Sample.CallTargets.*, ClrProbe.Late.*, ClrProbe.Sample.IlBig.*' >a.out 2>a.err &
    apid=$!
    wait_for_text a.err 20 "clrprobe: tracing" || fail "no 'tracing' line: $(cat a.err)"
    echo >&7
    wait_for_text prof.out 20 "calls late loaded" || fail "the target did not load the Late library"
    sleep 1                                   # the module's methods are rewritten within 200 ms of its load
    echo >&7
    exec 7>&-
    wait "$tpid"
    assert_eq 0 "$?" "the target's exit code"
    wait "$apid"
    assert_eq 0 "$?" "attach exit code"
    cat a.err
    assert_eq "$(tail -n +2 plain.out)" "$(tail -n +2 prof.out)" "the target's output (after its pid line)"
    "$CLRPROBE" report a.clrp --format jsonl >a.jsonl 2>/dev/null
    "$CLRPROBE" report a.clrp | sed -n '/^Traced methods/,/^$/p'
    assert_eq 1500200 "$(trace_stat a.jsonl Tiny calls)" "Tiny calls"
    assert_eq 5 "$(trace_stat a.jsonl Slow calls)" "Slow calls"
    assert_eq 1000 "$(trace_stat a.jsonl Thrower calls)" "Thrower calls"
    assert_eq 1000 "$(trace_stat a.jsonl Thrower exceptions)" "Thrower calls left by an exception"
    assert_eq 10000 "$(trace_stat a.jsonl Recurse calls)" "Recurse calls"
    assert_eq 100 "$(trace_stat a.jsonl Outer calls)" "Outer calls"
    assert_eq 1000 "$(jq -r 'select(.kind=="method_stats" and .thread=="all" and
        .function=="ClrProbe.Late.LateTargets.Work") | .calls' a.jsonl)" "LateTargets.Work calls (a module loaded after the attach)"
    assert_eq 3 "$(jq -r 'select(.kind=="method_stats" and .thread=="all" and
        .function=="ClrProbe.Sample.IlBig.Huge") | .calls' a.jsonl)" "IlBig.Huge calls (its IL, longer than 64 KB, rewritten)"
    awk -v v="$(trace_stat a.jsonl Slow p50_ns)" 'BEGIN {exit !(v >= 19500000 && v <= 100000000)}' ||
        fail "Slow p50 $(trace_stat a.jsonl Slow p50_ns) ns is not about 20 ms"
    assert_ge 6 "$(jcount a.jsonl 'select(.kind=="traced_method" and .how=="il")')" "methods rewritten"
}

# Tracing stops (the duration ends): the original code is restored, the
# agent stays loaded but quiet (one thread of its own, blocked in accept on
# its quiet socket), and the program's calls made meanwhile are not counted;
# then a second attach --trace reaches that agent (the runtime would refuse
# a second profiler) and traces again: exact counts of the calls made after
# it; the program's output and exit code as without clrprobe.
test_trace_after_attach_stops_restores_and_starts_again() {
    local tpid apid
    (echo; echo) | "$SAMPLE" calls 1 late wait >plain.out 2>plain.err
    mkfifo in.fifo
    "$SAMPLE" calls 1 late wait <in.fifo >prof.out 2>prof.err &
    tpid=$!
    exec 7>in.fifo
    at_exit "exec 7>&-; kill $tpid 2>/dev/null"
    wait_for_text prof.out 10 "calls waiting" || fail "the target did not start"
    "$CLRPROBE" attach "$tpid" -o s.clrp --collect jit --trace 'ClrProbe.Sample.CallTargets.*' --duration 1 \
        >s.out 2>s.err
    assert_eq 0 "$?" "first attach's exit code"
    cat s.err
    assert_contains s.err "the agent stays loaded, quiet" "the command says the agent stays"
    assert_eq "clrprobe-quiet" "$(cat /proc/"$tpid"/task/*/comm | grep '^clrprobe' | sort -u | tr '\n' ' ' | sed 's/ $//')" \
        "the agent's one thread left: its quiet listener"
    assert_ge 1 "$(grep -c libclrprobe "/proc/$tpid/maps")" "the agent's library stays mapped"
    echo >&7                                   # the calls, untraced now
    wait_for_text prof.out 20 "calls late loaded" || fail "the target did not get to its late library"
    "$CLRPROBE" attach "$tpid" -o s2.clrp --collect jit --trace 'ClrProbe.Late.*' >s2.out 2>s2.err &
    apid=$!
    wait_for_text s2.err 20 "clrprobe: tracing" || fail "the second attach did not trace: $(cat s2.err)"
    echo >&7
    exec 7>&-
    wait "$tpid"
    assert_eq 0 "$?" "the target's exit code"
    wait "$apid"
    assert_eq 0 "$?" "second attach's exit code"
    cat s2.err
    assert_eq "$(tail -n +2 plain.out)" "$(tail -n +2 prof.out)" "the target's output (after its pid line)"
    "$CLRPROBE" report s.clrp --format jsonl >s.jsonl 2>/dev/null
    assert_eq 0 "$(jq -s '[.[] | select(.kind=="method_stats") | .calls] | add // 0' s.jsonl)" \
        "no call counted by the first attach (its tracing stopped before the calls)"
    assert_ge 5 "$(jcount s.jsonl 'select(.kind=="traced_method" and .how=="il")')" "methods had been rewritten"
    assert_eq 1 "$(jcount s.jsonl 'select(.kind=="trace_end")')" "the first trace is whole"
    "$CLRPROBE" report s2.clrp --format jsonl >s2.jsonl 2>/dev/null
    assert_eq 1000 "$(jq -r 'select(.kind=="method_stats" and .thread=="all" and
        .function=="ClrProbe.Late.LateTargets.Work") | .calls' s2.jsonl)" "the second attach's count"
}

# The logged calls on the html page: `Sample calls` with Slow and Thrower
# traced and the first 100 calls logged (the CPU sampled as by default, for
# the flame graph), its page rendered in Chromium: 100 calls drawn on the
# main thread's lane, the title and the legend say which.
test_trace_calls_on_the_html_timeline_in_chromium() {
    need_chromium
    "$CLRPROBE" run -o h.clrp --trace 'ClrProbe.Sample.CallTargets.Slow, ClrProbe.Sample.CallTargets.Thrower' \
        --trace-calls=100 -- "$SAMPLE" calls >h.out 2>h.err || fail "recording: $(cat h.err)"
    "$CLRPROBE" report h.clrp --format html -o h.html 2>rep.err || fail "html report: $(cat rep.err)"
    chrome --virtual-time-budget=5000 --dump-dom "file://$PWD/h.html" >dom.html
    local sec
    sec=$(grep -o '<section id="callview"[^>]*>' dom.html)
    [[ $sec == *'data-calls="100"'* ]] || fail "call section: '$sec' (want 100 calls)"
    [[ $sec == *'data-lanes="1"'* ]] || fail "call lanes: '$sec' (want the main thread's)"
    [[ $sec != *hidden* ]] || fail "the call section is hidden"
    assert_eq 100 "$(grep -o '<rect[^>]*class="call"' dom.html | wc -l | tr -d ' ')" "calls in the SVG"
    grep -q 'id="calltitle">— 100 calls of 2 methods on 1 thread<' dom.html ||
        fail "call title: $(grep -o 'id="calltitle">[^<]*' dom.html)"
    grep -q 'ClrProbe.Sample.CallTargets.Slow' dom.html || fail "Slow in the legend"
}
