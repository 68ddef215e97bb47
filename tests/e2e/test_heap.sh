# test_heap.sh - heap snapshots on the real runtime (clrprobe run
# --heap-every): the sample's `heap` scenario builds a known heap (1000
# HeapLeaf each holding a byte[100], 500 HeapTwig, garbage dropped, an
# object behind a weak handle only, objects only a stack frame holds, a
# ConditionalWeakTable value, a byte[64] only a pinned handle holds, an
# object waiting in the finalizer queue) and holds it; every snapshot's induced
# full GC must count it exactly, find no garbage, and the owner of the leaves
# must retain at least their bytes.  The target's output and exit code are
# those of a run without the agent.

test_heap_snapshots_at_launch_count_a_known_heap() {
    mkdir -p heap_launch && cd heap_launch || fail "work directory"
    "$SAMPLE" heap 1.6 >plain.out 2>plain.err
    local plain_rc=$?
    "$CLRPROBE" run --heap-every 0.5 -o heap.clrp -- "$SAMPLE" heap 1.6 >prof.out 2>prof.err
    assert_eq "$plain_rc" "$?" "exit code"
    cmp -s plain.out prof.out || fail "the target's output changed"
    "$CLRPROBE" report heap.clrp --format jsonl >heap.jsonl || fail "report jsonl"
    "$CLRPROBE" report heap.clrp >heap.txt || fail "report text"
    # snapshots at 0.5, 1.0 and 1.5 s of a 1.6 s hold: at least 2 whole ones, all complete
    local n
    n=$(jcount heap.jsonl 'select(.kind=="heap_snapshot" and .complete and .method=="gc_roots")')
    assert_ge 2 "$n" "complete heap snapshots"
    assert_eq 0 "$(jcount heap.jsonl 'select(.kind=="heap_snapshot" and (.complete|not))')" "incomplete snapshots"
    # every snapshot: the exact counts, no garbage, no weak-only object
    local s
    for s in $(jq -r 'select(.kind=="heap_snapshot") | .snapshot' heap.jsonl); do
        assert_eq 1000 "$(jq -r "select(.kind==\"heap_type\" and .snapshot==$s and .type==\"ClrProbe.Sample.HeapLeaf\") | .count" heap.jsonl)" \
            "HeapLeaf in snapshot $s"
        assert_eq 500 "$(jq -r "select(.kind==\"heap_type\" and .snapshot==$s and .type==\"ClrProbe.Sample.HeapTwig\") | .count" heap.jsonl)" \
            "HeapTwig in snapshot $s"
        assert_eq 0 "$(jcount heap.jsonl "select(.kind==\"heap_type\" and .snapshot==$s and (.type==\"ClrProbe.Sample.HeapGarbage\" or .type==\"ClrProbe.Sample.HeapWeak\"))")" \
            "garbage or weak-only objects in snapshot $s"
        # a leaf retains its byte[100] (124 bytes with header and length, 8-aligned: 128 at least 120)
        assert_eq 1 "$(jcount heap.jsonl "select(.kind==\"heap_type\" and .snapshot==$s and .type==\"ClrProbe.Sample.HeapLeaf\" and .retained_bytes >= .shallow_bytes + 1000 * 120)")" \
            "HeapLeaf retains its arrays in snapshot $s"
        # every object is held: frozen objects are marked (hung from the root), the CWT value hangs from its key
        assert_eq 0 "$(jq -r "select(.kind==\"heap_snapshot\" and .snapshot==$s) | .unrooted" heap.jsonl)" \
            "unrooted objects in snapshot $s"
        assert_ge 1 "$(jq -r "select(.kind==\"heap_snapshot\" and .snapshot==$s) | .frozen" heap.jsonl)" \
            "frozen objects in snapshot $s"
        assert_eq 1 "$(jcount heap.jsonl "select(.kind==\"heap_type\" and .snapshot==$s and .type==\"ClrProbe.Sample.HeapCwtKey\" and .retained_bytes >= .shallow_bytes + 224)")" \
            "the ConditionalWeakTable key retains its value in snapshot $s"
        # the stack-only objects: held by a local of the waiting method, named
        assert_eq 300 "$(jq -r "select(.kind==\"heap_type\" and .snapshot==$s and .type==\"ClrProbe.Sample.HeapStackOnly\") | .count" heap.jsonl)" \
            "HeapStackOnly in snapshot $s"
        assert_eq 1 "$(jcount heap.jsonl "select(.kind==\"heap_root\" and .snapshot==$s and .root==\"local in ClrProbe.Sample.HeapScenario.HoldOnStack\" and .retained_bytes >= 300 * 24)")" \
            "the stack root named by its method retains the stack-only objects in snapshot $s"
        # from the second snapshot on, the held objects are known from the one before
        if [[ $s -gt 1 ]]; then
            assert_eq true "$(jq -r "select(.kind==\"heap_snapshot\" and .snapshot==$s) | .identity" heap.jsonl)" \
                "identity in snapshot $s"
            assert_ge 1800 "$(jq -r "select(.kind==\"heap_snapshot\" and .snapshot==$s) | .seen" heap.jsonl)" \
                "objects seen before in snapshot $s"
        fi
        # statics are named roots: the owner's static field, by its class and name
        assert_eq 1 "$(jcount heap.jsonl "select(.kind==\"heap_root\" and .snapshot==$s and .root==\"static ClrProbe.Sample.HeapScenario.Owner\" and .objects==1)")" \
            "the static root HeapScenario.Owner in snapshot $s"
        # the list that holds the leaves retains them all
        assert_eq 1 "$(jcount heap.jsonl "select(.kind==\"heap_type\" and .snapshot==$s and .type==\"System.Collections.Generic.List<ClrProbe.Sample.HeapLeaf>\" and .retained_bytes >= 1000 * 144)")" \
            "List<HeapLeaf> retains the leaves in snapshot $s"
    done
    # handles by kind: the scenario's byte[64] (88 bytes with header and length) is held by its pinned handle
    # alone, and the HeapFinalizable it dropped waits in the finalizer queue (a finalizer-queue root)
    "$CLRPROBE" report heap.clrp --why 'System.Byte[]' --format jsonl >why_bytes.jsonl || fail "report --why System.Byte[]"
    assert_eq 1 "$(jcount why_bytes.jsonl 'select(.kind=="heap_root_path" and .root=="pinned handle" and .path==["System.Byte[]"] and .instances >= 1 and .retained_bytes >= 88)')" \
        "the byte[64] held by a pinned handle"
    "$CLRPROBE" report heap.clrp --why HeapFinalizable --format jsonl >why_fin.jsonl || fail "report --why HeapFinalizable"
    assert_eq 1 "$(jcount why_fin.jsonl 'select(.kind=="heap_root_path" and .root=="finalizer queue" and .path==["ClrProbe.Sample.HeapFinalizable"] and .instances==1)')" \
        "the HeapFinalizable held by the finalizer queue"
    for s in $(jq -r 'select(.kind=="heap_snapshot") | .snapshot' heap.jsonl); do
        assert_eq 1 "$(jq -r "select(.kind==\"heap_type\" and .snapshot==$s and .type==\"ClrProbe.Sample.HeapFinalizable\") | .count" heap.jsonl)" \
            "HeapFinalizable in snapshot $s"
        assert_ge 1 "$(jq -r "select(.kind==\"heap_root\" and .snapshot==$s and .root==\"pinned handle\") | .objects" heap.jsonl)" \
            "pinned-handle roots in snapshot $s"
        assert_ge 1 "$(jq -r "select(.kind==\"heap_root\" and .snapshot==$s and .root==\"finalizer queue\") | .objects" heap.jsonl)" \
            "finalizer-queue roots in snapshot $s"
    done
    assert_contains heap.txt "Top types by retained size" "text Heap section"
    assert_contains heap.txt "Roots that hold the most" "text roots list"
    assert_contains heap.txt "local in ClrProbe.Sample.HeapScenario.HoldOnStack" "text: a stack root by method"
    grep -Eq '^  snapshot 1 at [0-9.]+ [mu]?s: [0-9]+ objects, ' heap.txt || fail "no snapshot line in the text report"
}

# heap_method=enumerate: ICorProfilerInfo15::EnumerateGCHeapObjects after a
# ForceGC, without GC monitoring: the same counts, roots approximate.
test_heap_snapshots_by_enumeration() {
    mkdir -p test_heap_snapshots_by_enumeration && cd test_heap_snapshots_by_enumeration || fail "work directory"
    agent_env "v=1;output=$PWD/enum.clrp;collect=modules;heap_every=500;heap_method=enumerate" \
        "$SAMPLE" heap 1.2 >prof.out 2>prof.err
    assert_eq 0 "$?" "exit code"
    "$SAMPLE" heap 1.2 >plain.out 2>&1
    cmp -s plain.out prof.out || fail "the target's output changed"
    "$CLRPROBE" report enum.clrp --format jsonl >enum.jsonl || fail "report"
    assert_ge 1 "$(jcount enum.jsonl 'select(.kind=="heap_snapshot" and .method=="enumerate" and .roots_approximate and .complete)')" \
        "snapshots by enumeration"
    local s
    for s in $(jq -r 'select(.kind=="heap_snapshot") | .snapshot' enum.jsonl); do
        assert_eq 1000 "$(jq -r "select(.kind==\"heap_type\" and .snapshot==$s and .type==\"ClrProbe.Sample.HeapLeaf\") | .count" enum.jsonl)" \
            "HeapLeaf in snapshot $s"
        assert_eq 300 "$(jq -r "select(.kind==\"heap_type\" and .snapshot==$s and .type==\"ClrProbe.Sample.HeapStackOnly\") | .count" enum.jsonl)" \
            "HeapStackOnly in snapshot $s"
        # the frozen (non-GC) heap's objects are there too (EnumerateNonGCObjects), flagged
        assert_ge 1 "$(jq -r "select(.kind==\"heap_snapshot\" and .snapshot==$s) | .frozen" enum.jsonl)" \
            "frozen objects in snapshot $s"
    done
    "$CLRPROBE" report enum.clrp >enum.txt || fail "report text"
    assert_contains enum.txt "heap walk without a GC: roots approximate" "text says how"
}

# heap_max_objects: the agent ends the runtime's walk (a failed ObjectReferences)
# after so many objects; the program runs on, the snapshot says it is partial.
test_heap_walk_limit() {
    mkdir -p test_heap_walk_limit && cd test_heap_walk_limit || fail "work directory"
    agent_env "v=1;output=$PWD/lim.clrp;collect=modules;heap_every=400;heap_max_objects=1000" \
        "$SAMPLE" heap 1 >prof.out 2>prof.err
    assert_eq 0 "$?" "exit code"
    "$SAMPLE" heap 1 >plain.out 2>&1
    cmp -s plain.out prof.out || fail "the target's output changed"
    "$CLRPROBE" report lim.clrp --format jsonl >lim.jsonl || fail "report"
    assert_ge 2 "$(jcount lim.jsonl 'select(.kind=="heap_snapshot" and .walk_stopped and .objects <= 1000 + .frozen)')" \
        "snapshots stopped at the limit, each walked again"
    "$CLRPROBE" report lim.clrp >lim.txt || fail "report text"
    assert_contains lim.txt "the walk stopped early" "text says it"
    # and claims nothing a partial snapshot cannot tell (objects whose holders were not recorded look unrooted)
    assert_contains lim.txt "incomplete: only what was recorded before it stopped is here" "text: incomplete"
    assert_not_contains lim.txt "not held by any retaining root" "text: no unrooted count"
    assert_not_contains lim.txt "what a GC would free" "text: no claim on what a GC would free"
    # the same limit for the enumeration (heap_method=enumerate): it ends there, flagged
    agent_env "v=1;output=$PWD/elim.clrp;collect=modules;heap_every=400;heap_max_objects=1000;heap_method=enumerate" \
        "$SAMPLE" heap 1 >eprof.out 2>eprof.err
    assert_eq 0 "$?" "exit code (enumeration)"
    cmp -s plain.out eprof.out || fail "the target's output changed (enumeration)"
    "$CLRPROBE" report elim.clrp --format jsonl >elim.jsonl || fail "report (enumeration)"
    assert_ge 2 "$(jcount elim.jsonl 'select(.kind=="heap_snapshot" and .method=="enumerate" and .walk_stopped and .objects <= 1000 + .frozen)')" \
        "enumerations stopped at the limit"
}
