# test_exceptions.sh - exceptions followed through on the real runtime
# (Sample ehcases: each shape of seed 004's diagram thrown from a known
# function with a known message and handled in a known place): messages,
# throw stacks, nesting, rethrows, how each ended; an unhandled exception
# that kills the process is in the trace, and the process dies as it would.

# One exception of the trace as "TYPE|MESSAGE|LEAF|DEPTH|PARENT_TYPE|RETHROW|END" where END is
# "handled CATCHER [escaped]" or the outcome.
eh_summary() {   # trace.jsonl
    jq -rs '
      (map(select(.kind=="exception_thrown")) | map({key: (.exception|tostring), value: .}) | from_entries) as $t
      | (map(select(.kind=="exception_handled" or .kind=="exception_unhandled"))
         | map({key: (.exception|tostring), value: .}) | from_entries) as $fin
      | map(select(.kind=="exception_thrown"))[]
      | . as $x
      | [ .type, .message, (.stack[0] // "" | sub("^ClrProbe.Sample."; "")), (.depth|tostring),
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
    # full throw stacks: down to Main
    assert_eq 16 "$(jcount eh.jsonl 'select(.kind=="exception_thrown" and (.stack|last)=="ClrProbe.Sample.Program.Main")')" \
        "throw stacks reach Main"
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
