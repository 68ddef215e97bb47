# test_exceptions.sh - exceptions followed through on the real runtime
# (Sample ehcases: each shape of docs/exceptions.md thrown from a known
# function with a known message and handled in a known place): messages,
# throw stacks, nesting, rethrows, how each ended; an unhandled exception
# that kills the process is in the trace, and the process dies as it would.

# One exception of the trace as "TYPE|MESSAGE|THROWER|DEPTH|PARENT_TYPE|RETHROW|END" where END is
# "handled CATCHER [escaped]" or the outcome (the thrower: the first frame its first pass searched).
eh_summary() {   # trace.jsonl
    jq -rs '
      (map(select(.kind=="exception_thrown")) | map({key: (.exception|tostring), value: .}) | from_entries) as $t
      | (map(select(.kind=="exception_handled" or .kind=="exception_unhandled"))
         | map({key: (.exception|tostring), value: .}) | from_entries) as $fin
      | map(select(.kind=="exception_thrown"))[]
      | . as $x
      | [ .type, .message, ($fin[.exception|tostring].thrower // "" | sub("^ClrProbe.Sample."; "")), (.depth|tostring),
          (if .parent then $t[.parent|tostring].type else "" end),
          (if .rethrow_of then "rethrow" else "" end),
          ($fin[.exception|tostring] as $e
           | if $e == null then "open"
             elif $e.kind == "exception_handled" then
               "handled " + ($e.catcher | sub("^ClrProbe.Sample."; "")) + (if $e.escaped_by then " escaped" else "" end)
             else $e.outcome end) ]
      | join("|")' "$1"
}

test_exception_shapes_recorded_as_they_happen() {
    "$SAMPLE" ehcases >plain.out 2>plain.err
    local rc=$?
    "$CLRPROBE" run -o eh.clrp --collect exceptions,jit -- "$SAMPLE" ehcases >prof.out 2>prof.err
    assert_eq "$rc" "$?" "exit code"
    cmp -s plain.out prof.out || fail "stdout differs: $(diff plain.out prof.out | head -5)"
    assert_eq "$(cat plain.err)" "$(grep -v '^clrprobe: ' prof.err)" "stderr"
    "$CLRPROBE" report eh.clrp --format jsonl >eh.jsonl || fail "report"
    eh_summary eh.jsonl >got
    cat >want <<'EOF'
System.InvalidOperationException|plain throw|EhCases.PlainThrower|1|||handled EhCases.PlainCatcher
System.ArgumentException|filter says no|EhCases.FilterThrower|1|||handled EhCases.FilterFalseOuter
System.ArgumentException|filter says yes|EhCases.FilterThrower|1|||handled EhCases.FilterTrue
System.Collections.Generic.KeyNotFoundException|finally on the way|EhCases.FinallyThrower|1|||handled EhCases.FinallyOuter
System.ArgumentException|filter escapes|EhCases.FilterThrower|1|||handled EhCases.InFilterOuter
System.FormatException|thrown in a filter|EhCases.ThrowingFilter|2|System.ArgumentException||filter
System.TimeoutException|lost in a finally|EhCases.FinallyThrower|1|||superseded
System.NotSupportedException|thrown in a finally|EhCases.FinallyThrower|2|System.TimeoutException||handled EhCases.InFinallyOuter
System.InvalidCastException|replaced in a catch|EhCases.CatchThrower|1|||handled EhCases.InCatch escaped
System.ApplicationException|thrown in a catch|EhCases.InCatch|2|System.InvalidCastException||handled EhCases.InCatchOuter
System.DivideByZeroException|thrown twice|EhCases.RethrowThrower|1|||handled EhCases.Rethrow escaped
System.DivideByZeroException|thrown twice|EhCases.Rethrow|2|System.DivideByZeroException|rethrow|handled EhCases.RethrowOuter
System.RankException|survives a finally|EhCases.FinallyThrower|1|||handled EhCases.CaughtInFinallyOuter
System.FieldAccessException|caught inside a finally|EhCases.FinallyThrower|2|System.RankException||handled EhCases.CaughtInFinally
System.NotImplementedException|from a type initializer|EhCctor.Init|1|||native
System.TypeInitializationException|The type initializer for 'ClrProbe.Sample.EhCctor' threw an exception.|System.Runtime.CompilerServices.InitHelpers.InitClassSlow|1|||handled EhCases.RuntimeOuter
EOF
    diff want got >diff.out || fail "exceptions as recorded differ from the program's: $(cat diff.out)"
    # the finally ran for the filtered and the lost one; the search passes are counted
    assert_eq 1 "$(jcount eh.jsonl 'select(.kind=="exception_handled" and .passes.finallys==1 and .catcher=="ClrProbe.Sample.EhCases.FinallyOuter")')" \
        "the finally on the way out counted"
    assert_eq 1 "$(jcount eh.jsonl 'select(.kind=="exception_handled" and .passes.filters==1 and .catcher=="ClrProbe.Sample.EhCases.FilterFalseOuter")')" \
        "the filter that said no counted"
    # full throw stacks, down to Main (sampled: the first of each type on the thread has one)
    assert_ge 12 "$(jcount eh.jsonl 'select(.kind=="exception_thrown" and .stack and (.stack|last)=="ClrProbe.Sample.Program.Main")')" \
        "throw stacks reach Main"
    assert_eq 0 "$(jcount eh.jsonl 'select(.kind=="exception_thrown" and .stack and (.stack|last)!="ClrProbe.Sample.Program.Main")')" \
        "throw stacks that stop short"
    assert_eq "System.InvalidOperationException ClrProbe.Sample.EhCases.PlainThrower" \
        "$(jq -r 'select(.kind=="exception_thrown" and .message=="plain throw") | "\(.type) \(.stack[0])"' eh.jsonl)" \
        "the first exception's stack"
    # the time from throw to the end of the catch clause
    assert_eq 0 "$(jcount eh.jsonl 'select(.kind=="exception_handled" and (.duration_ns <= 0 or .duration_ns > 5000000000))')" \
        "handling times"
}

test_unhandled_exception_in_the_trace() {
    "$SAMPLE" ehcases unhandled >plain.out 2>plain.err
    local rc=$?
    assert_eq 134 "$rc" "the runtime aborts on an unhandled exception"
    "$CLRPROBE" run -o uh.clrp --collect exceptions -- "$SAMPLE" ehcases unhandled >prof.out 2>prof.err
    assert_eq "$rc" "$?" "exit code under clrprobe"
    cmp -s plain.out prof.out || fail "stdout differs"
    assert_eq "$(cat plain.err)" "$(grep -v '^clrprobe: ' prof.err)" "stderr (the runtime's report of the exception)"
    "$CLRPROBE" report uh.clrp --format jsonl >uh.jsonl 2>report.err || fail "report"
    assert_eq 1 "$(jcount uh.jsonl 'select(.kind=="exception_thrown" and .message=="clrprobe unhandled" and .stack[0]=="ClrProbe.Sample.EhCases.Doomed")')" \
        "the exception thrown"
    assert_eq 1 "$(jcount uh.jsonl 'select(.kind=="exception_unhandled" and .outcome=="unhandled" and .exception==1)')" \
        "recorded unhandled before the process died"
    "$CLRPROBE" report uh.clrp >uh.txt 2>/dev/null
    assert_contains uh.txt "unhandled" "the text report says it"
}

# The handler offsets of a method's exception clauses, from its IL body as
# `Sample ildump` prints it (hex: a fat header, the code, small or fat EH
# sections), one per line.
handler_offsets() {   # Namespace.Type.Method
    "$SAMPLE" ildump "$1" | awk '
        function nib(c) { return index("0123456789ABCDEF", toupper(c)) - 1 }
        function byte(i) { return 16 * nib(substr(h, 2 * i + 1, 1)) + nib(substr(h, 2 * i + 2, 1)) }
        function u16(i) { return byte(i) + 256 * byte(i + 1) }
        function u32(i) { return u16(i) + 65536 * u16(i + 2) }
        {
            h = $0
            code = u32(4); at = 12 + code
            while (at % 4) at++
            do {
                kind = byte(at); fat = int(kind / 64) % 2
                size = fat ? byte(at + 1) + 256 * byte(at + 2) + 65536 * byte(at + 3) : byte(at + 1)
                n = fat ? (size - 4) / 24 : (size - 4) / 12
                for (c = 0; c < n; c++) {
                    if (fat) print u32(at + 4 + 24 * c + 12)
                    else print u16(at + 4 + 12 * c + 5)
                }
                at += size
                while (at % 4) at++
            } while (int(kind / 128) % 2)
        }'
}

test_catch_handler_il_offsets_match_the_methods_il() {
    "$CLRPROBE" run -o il.clrp --collect exceptions,jit -- "$SAMPLE" ehcases >/dev/null 2>err || fail "run: $(cat err)"
    "$CLRPROBE" report il.clrp --format jsonl >il.jsonl || fail "report"
    local catcher il checked=0
    while IFS=' ' read -r catcher il; do
        handler_offsets "$catcher" >offsets
        [[ -s offsets ]] || fail "no clauses read from $catcher's IL"
        grep -qx "$il" offsets || fail "$catcher: il_offset $il is not one of its handlers ($(tr '\n' ' ' <offsets))"
        checked=$((checked + 1))
    done < <(jq -r 'select(.kind=="exception_handled" and .il_offset != null) | "\(.catcher) \(.il_offset)"' il.jsonl | sort -u)
    assert_eq 13 "$(jcount il.jsonl 'select(.kind=="exception_handled" and .il_offset != null)')" "catch handlers placed in IL"
    assert_ge 10 "$checked" "catchers checked against their IL"
}

test_exceptions_report_and_view() {
    "$SAMPLE" exceptions 300 >plain.out
    "$CLRPROBE" run -o ex.clrp --collect exceptions -- "$SAMPLE" exceptions 300 >prof.out 2>err || fail "run: $(cat err)"
    cmp -s plain.out prof.out || fail "stdout differs"
    "$CLRPROBE" report ex.clrp >ex.txt || fail "text report"
    assert_contains ex.txt "Exceptions: 303 thrown: 303 handled" "totals"
    assert_contains ex.txt "     300  ClrProbe.Sample.SampleException in ClrProbe.Sample.ExceptionTargets.Thrower" \
        "type and throw site"
    assert_contains ex.txt ': "clrprobe sample exception"' "a message"
    assert_contains ex.txt "last caught in ClrProbe.Sample.ExceptionTargets.Catcher" "where caught"
    # the exceptions view counts every exception once, on its throw stack (stacks are sampled)
    "$CLRPROBE" report ex.clrp --view exceptions --format collapsed >ex.collapsed || fail "collapsed"
    assert_eq 300 "$(awk '/;ClrProbe.Sample.ExceptionTargets.Catcher;ClrProbe.Sample.ExceptionTargets.Thrower;ClrProbe.Sample.SampleException /{n+=$NF} END{print n+0}' ex.collapsed)" \
        "SampleExceptions on their throw stack"
    assert_eq 3 "$(awk '/;ClrProbe.Sample.ExceptionTargets.InvalidOperationThrower;System.InvalidOperationException /{n+=$NF} END{print n+0}' ex.collapsed)" \
        "InvalidOperationExceptions on theirs"
    local stacked
    stacked=$("$CLRPROBE" report ex.clrp --format jsonl | jcount - 'select(.kind=="exception_thrown" and .stack)')
    assert_ge 2 "$stacked" "stacks taken"
    # every profile format reads the view
    local f
    for f in text speedscope pprof html; do
        "$CLRPROBE" report ex.clrp --view exceptions --format "$f" -o "ex.$f" 2>err || fail "--view exceptions --format $f: $(cat err)"
    done
    assert_contains ex.speedscope '"unit":"none"' "speedscope unit"
    if command -v go >/dev/null; then
        go tool pprof -raw ex.pprof 2>/dev/null | grep -q "exception/count" || fail "pprof sample type"
    fi
}
