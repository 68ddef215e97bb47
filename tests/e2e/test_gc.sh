# test_gc.sh - the GC timeline on the real runtime, at launch and after an
# attach: the sample's `gc N` induces exactly N blocking collections; each
# gc_start/gc_end carries the generations' sizes (GetGenerationBounds), which
# must be plausible against the heap size the sample itself prints
# (GC.GetTotalMemory right after its last collection), and the text report
# shows the GC section with the pauses and the heap at start, peak and end.

GC_N=9

# check_gc_trace JSONL TEXT OUT: what holds for a trace of `gc $GC_N`.
check_gc_trace() {
    local jsonl=$1 txt=$2 out=$3
    # Exactly N induced: the sample calls GC.Collect N times and nothing else
    # in the process induces one (the agent never calls ForceGC here).
    assert_eq "$GC_N" "$(jcount "$jsonl" 'select(.kind=="gc_start" and .reason=="induced")')" "induced gc_start records"
    assert_eq "$(jcount "$jsonl" 'select(.kind=="gc_start")')" "$(jcount "$jsonl" 'select(.kind=="gc_end")')" \
        "gc_start/gc_end pairs"
    # every record has the sizes; gen0 holds what the sample allocated before each collection
    assert_eq 0 "$(jcount "$jsonl" 'select((.kind=="gc_start" or .kind=="gc_end") and (.gen0_bytes == null or .poh_bytes == null))')" \
        "gc records without sizes"
    assert_eq 0 "$(jcount "$jsonl" 'select(.kind=="gc_start" and .reason=="induced" and .gen0_bytes < 100000)')" \
        "induced GCs with gen0 under 100 KB before (each round allocates ~700 KB)"
    # a gen2 GC frees the round's large array (LOH 0 after it) and had it before
    assert_ge 1 "$(jcount "$jsonl" 'select(.kind=="gc_start" and (.generations|index(3)) and .loh_bytes >= 160000)')" \
        "LOH holds the round's large arrays before a gen2 GC"
    # The heap after the last GC against the sample's own GC.GetTotalMemory:
    # the generations' ranges include some free space, so within a factor 2.
    local total ours
    total=$(sed -n 's/^total memory after the last gc: //p' "$out")
    [[ $total =~ ^[0-9]+$ ]] || fail "the sample printed no total memory"
    ours=$(jq -s '[.[] | select(.kind=="gc_end")] | last | .gen0_bytes + .gen1_bytes + .gen2_bytes + .loh_bytes + .poh_bytes' "$jsonl")
    [[ $ours =~ ^[0-9]+$ ]] || fail "no sizes on the last gc_end"
    if ((ours * 2 < total || ours > total * 2)); then
        fail "heap after the last GC: generations sum to $ours bytes, GC.GetTotalMemory says $total"
    fi
    assert_contains "$txt" "Garbage collections: $GC_N ($GC_N induced); paused " "text GC headline"
    assert_contains "$txt" "% of " "share of wall time paused"
    assert_contains "$txt" "Heap (the generations' ranges" "text heap table"
    grep -Eq '^  total +[0-9.]+ [KMG]?i?B +[0-9.]+ [KMG]?i?B +[0-9.]+ [KMG]?i?B$' "$txt" || fail "no heap total row"
}

test_gc_timeline_at_launch() {
    mkdir -p gc_launch && cd gc_launch || fail "work directory"
    SAMPLE_GC_MEMORY=1 "$SAMPLE" gc $GC_N >plain.out 2>plain.err
    local plain_rc=$?
    SAMPLE_GC_MEMORY=1 "$CLRPROBE" run -o gc.clrp -- "$SAMPLE" gc $GC_N >prof.out 2>prof.err
    assert_eq "$plain_rc" "$?" "exit code"
    # the heap figure may differ between runs in principle: compare the rest
    cmp -s <(grep -v '^total memory' plain.out) <(grep -v '^total memory' prof.out) || fail "the target's output changed"
    "$CLRPROBE" report gc.clrp --format jsonl >gc.jsonl || fail "report jsonl"
    "$CLRPROBE" report gc.clrp >gc.txt || fail "report text"
    check_gc_trace gc.jsonl gc.txt prof.out
}

test_gc_timeline_after_attach() {
    mkdir -p gc_attach && cd gc_attach || fail "work directory"
    rm -f go go.plain
    SAMPLE_GC_MEMORY=1 SAMPLE_GC_WAIT_FILE="$PWD/go.plain" "$SAMPLE" gc $GC_N >plain.out 2>plain.err &
    local ppid=$!
    touch go.plain
    wait "$ppid"
    local plain_rc=$?

    SAMPLE_GC_MEMORY=1 SAMPLE_GC_WAIT_FILE="$PWD/go" "$SAMPLE" gc $GC_N >target.out 2>target.err &
    local tpid=$!
    at_exit "kill $tpid 2>/dev/null"
    wait_for_text target.out 30 "gc scenario started" || fail "the sample did not start"
    "$CLRPROBE" attach "$tpid" -o att.clrp >att.out 2>att.err &
    local apid=$!
    at_exit "kill $apid 2>/dev/null"
    wait_for_text att.err 30 "attached to process $tpid" || fail "did not attach"
    touch go                                  # now the collections
    wait "$tpid"
    assert_eq "$plain_rc" "$?" "the target's exit code"
    wait "$apid"
    assert_eq 0 "$?" "attach exit code"
    cmp -s <(grep -v '^total memory' plain.out) <(grep -v '^total memory' target.out) || fail "the target's output changed"
    "$CLRPROBE" report att.clrp --format jsonl >att.jsonl || fail "report jsonl"
    "$CLRPROBE" report att.clrp >att.txt || fail "report text"
    assert_eq true "$(jq -r 'select(.kind=="trace") | .attached' att.jsonl)" "trace marked attached"
    check_gc_trace att.jsonl att.txt target.out
}
