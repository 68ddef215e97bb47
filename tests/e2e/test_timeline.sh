# test_timeline.sh - `report --format chrome`, the Trace Event Format timeline,
# read by the trace model of Chrome DevTools' Performance panel
# (@paulirish/trace_engine, installed by scripts/setup.sh): every slice we
# write is on its thread's track, nested as the runtime nested it (nothing
# left out for crossing its parent), under the thread names the other
# reports use; exceptions last from their throw to the end of their
# handling, nested exceptions inside their parents; GCs, suspensions and
# counters match the trace's own records.

TL_READER="$ROOT/build/tools/timeline/summary.mjs"

timeline_trace() {   # sample arguments...
    "$SAMPLE" "$@" >plain.out 2>plain.err
    "$CLRPROBE" run -o tl.clrp --rate 1000 --collect cpu,jit,threads,gc,suspensions,exceptions -- "$SAMPLE" "$@" \
        >prof.out 2>prof.err || fail "run: $(cat prof.err)"
    cmp -s plain.out prof.out || fail "the target's output changed"
    "$CLRPROBE" report tl.clrp --format chrome -o tl.json 2>err || fail "report chrome: $(cat err)"
    "$CLRPROBE" report tl.clrp --format jsonl >tl.jsonl || fail "report jsonl"
    jq empty tl.json || fail "not JSON"
}

test_timeline_reads_in_devtools_trace_model() {
    [[ -f $TL_READER ]] || fail "the timeline reader is not installed (make setup)"
    timeline_trace ehcases
    node "$TL_READER" tl.json >devtools.json 2>node.err || fail "DevTools' trace model refused the file: $(head -3 node.err)"
    assert_eq true "$(jq .generic devtools.json)" "read as a generic (non-browser) trace"
    # every slice on its thread's track, none dropped for bad nesting
    jq -c '[.traceEvents[] | select(.ph=="X") | .tid] | group_by(.) | map({key: (.[0]|tostring), value: length}) | from_entries' \
        tl.json >ours.json
    jq -c '[.threads[] | {key: (.tid|tostring), value: .nodes}] | from_entries' devtools.json >theirs.json
    assert_eq "$(cat ours.json)" "$(cat theirs.json)" "slices per thread, ours and as DevTools nests them"
    # the main thread's track, named as the reports name it
    local main
    main=$(jq -r '.traceEvents[] | select(.ph=="M" and .name=="thread_name") | .args.name' tl.json | grep -c ' ([0-9]*)$')
    assert_ge 1 "$main" "named thread lanes"
    assert_eq "$(jq -r '.threads[] | select(.names["Exception: System.InvalidOperationException"]) | .name' devtools.json | head -1)" \
        "$(jq -r --arg t "$(jq -r 'select(.kind=="exception_thrown" and .message=="plain throw") | .tid' tl.jsonl)" \
            '.traceEvents[] | select(.ph=="M" and .name=="thread_name" and (.tid|tostring)==$t) | .args.name' tl.json)" \
        "the exceptions' lane is their thread's"
    # nested exceptions inside the ones they were thrown in the handlers of
    jq -r '.nested[]' devtools.json >nested
    grep -qx 'Exception: System.ArgumentException > Exception: System.FormatException' nested ||
        fail "the exception thrown in a filter is not inside the filtered one: $(tr '\n' '|' <nested)"
    grep -qx 'Exception: System.RankException > Exception: System.FieldAccessException' nested ||
        fail "the exception caught inside a finally is not inside the one whose finally it was"
    # one that left a catch clause ends where it was thrown: after, not inside
    grep -q 'Exception: System.InvalidCastException > ' nested && fail "an escaped catch shown around what escaped it"
    assert_eq "$(jq '.traceEvents[] | select(.ph=="X" and .name=="Exception: System.ApplicationException") | .ts' tl.json)" \
        "$(jq '.traceEvents[] | select(.ph=="X" and .name=="Exception: System.InvalidCastException") | .ts + .dur + 0.001 | . * 1000 | round / 1000' tl.json)" \
        "the catch left at the nested throw"
    # each exception lasts from its throw to the end of its handling (the records' durations)
    jq -r 'select(.kind=="exception_handled" and (.escaped_by|not)) | "\(.exception) \(.duration_ns)"' tl.jsonl | sort >want
    jq -r '.traceEvents[] | select(.ph=="X" and .cat=="exception" and .args.exception) |
           "\(.args.exception) \(.dur * 1000 | round)"' tl.json | sort >got
    join want got | awk '{ d = $2 - $3; if (d < 0) d = -d; if (d > 1) bad++ } END { exit bad }' ||
        fail "exception slices that do not last throw to handled: $(join want got | head -3)"
    assert_eq "$(wc -l <want)" "$(join want got | wc -l)" "handled exceptions on the timeline"
}

test_timeline_gcs_suspensions_counters() {
    [[ -f $TL_READER ]] || fail "the timeline reader is not installed (make setup)"
    timeline_trace gc 4
    node "$TL_READER" tl.json >devtools.json || fail "DevTools' trace model refused the file"
    assert_eq "$(jcount tl.jsonl 'select(.kind=="gc_end")')" \
        "$(jq '[.traceEvents[] | select(.ph=="X" and .cat=="gc")] | length' tl.json)" "one GC slice per GC"
    assert_ge 4 "$(jq '[.threads[].names | to_entries[] | select(.key|startswith("GC gen")) | .value] | add' devtools.json)" \
        "GC slices in DevTools' tracks"
    # a GC suspension is on every managed thread it stopped: at least the main thread for each
    local gcs susp
    gcs=$(jcount tl.jsonl 'select(.kind=="suspend" and (.reason=="gc" or .reason=="gc_prep"))')
    susp=$(jq '[.traceEvents[] | select(.ph=="X" and .cat=="suspension" and (.name|test("gc")))] | length' tl.json)
    assert_ge "$gcs" "$susp" "suspension slices (one per stopped thread)"
    # the heap counter at each GC's start and end that carried sizes
    assert_eq "$(jcount tl.jsonl 'select((.kind=="gc_start" or .kind=="gc_end") and .gen0_bytes != null)')" \
        "$(jq '[.traceEvents[] | select(.ph=="C" and .name=="heap (bytes)")] | length' tl.json)" "heap counter points"
    # the samples-per-second counter adds up to the CPU samples
    local samples counted
    samples=$(jcount tl.jsonl 'select(.kind=="sample" and .clock=="cpu")')
    counted=$(jq '[.traceEvents[] | select(.ph=="C" and .name=="CPU samples per second") | .args.samples / 10] | add' tl.json)
    assert_eq "$samples" "$counted" "CPU samples in the counter"
}
