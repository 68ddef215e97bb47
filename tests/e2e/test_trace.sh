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
    "$CLRPROBE" attach 1 --trace A.B.C >o.out 2>o.err
    assert_eq 2 "$?" "attach --trace"
    assert_contains o.err "clrprobe run --trace" "the way that works"
}
