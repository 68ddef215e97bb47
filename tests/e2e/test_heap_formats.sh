# test_heap_formats.sh - heap snapshots in the formats other tools read.
# The .heapsnapshot file is loaded by Chrome DevTools' own heap snapshot code
# (heap-snapshot-toolkit, installed by scripts/setup.sh): its Summary view,
# computed by DevTools from the file with its own dominator tree, must show
# per .NET type exactly the count, shallow and retained bytes of our report.

HS_READER="$ROOT/build/tools/heapsnapshot/summary.mjs"

# One trace with snapshots of the sample's known heap, for the tests below.
heap_trace() {
    "$SAMPLE" heap 1.2 >plain.out 2>&1
    "$CLRPROBE" run --heap-every 0.5 -o heap.clrp -- "$SAMPLE" heap 1.2 >prof.out 2>prof.err || fail "run"
    cmp -s plain.out prof.out || fail "the target's output changed"
    "$CLRPROBE" report heap.clrp --format jsonl >heap.jsonl || fail "report jsonl"
    LAST=$(jq -s '[.[] | select(.kind=="heap_snapshot" and .complete)] | last | .snapshot' heap.jsonl)
    [[ $LAST =~ ^[0-9]+$ ]] || fail "no complete snapshot"
}

test_heapsnapshot_reads_the_same_in_chrome_devtools() {
    [[ -f $HS_READER ]] || fail "the heap snapshot reader is not installed (make setup)"
    heap_trace
    "$CLRPROBE" report heap.clrp --format heapsnapshot -o heap.heapsnapshot || fail "report heapsnapshot"
    node "$HS_READER" heap.heapsnapshot >devtools.json || fail "DevTools' loader refused the file"
    local objects bytes
    objects=$(jq -r "select(.kind==\"heap_snapshot\" and .snapshot==$LAST) | .objects" heap.jsonl)
    bytes=$(jq -r "select(.kind==\"heap_snapshot\" and .snapshot==$LAST) | .bytes" heap.jsonl)
    assert_eq $((objects + 8)) "$(jq .nodeCount devtools.json)" "nodes (the objects and 8 synthetic ones)"
    assert_eq "$bytes" "$(jq .totalSize devtools.json)" "total size"
    assert_eq 1000 "$(jq '.types["ClrProbe.Sample.HeapLeaf"].count' devtools.json)" "DevTools' HeapLeaf count"
    # every type: count, shallow and retained bytes as DevTools computes them = ours
    jq -s "map(select(.kind==\"heap_type\" and .snapshot==$LAST)) |
           map({key: .type, value: {count: .count, self: .shallow_bytes, retained: .retained_bytes}}) | from_entries" \
        heap.jsonl >ours.json
    jq .types devtools.json >theirs.json
    assert_eq true "$(jq -n --slurpfile a ours.json --slurpfile b theirs.json '$a[0] == $b[0]')" \
        "per-type count, shallow and retained bytes equal DevTools' ($(jq 'length' ours.json) types)"
    # a trace without a snapshot is refused in one line
    "$CLRPROBE" run -o nosnap.clrp -- "$SAMPLE" exit 0 >/dev/null 2>&1
    "$CLRPROBE" report nosnap.clrp --format heapsnapshot -o x.heapsnapshot >o 2>e
    assert_eq 1 "$?" "no snapshot: exit code"
    assert_contains e "has no heap snapshot" "no snapshot: message"
    [[ ! -e x.heapsnapshot ]] || fail "no snapshot: an output was left"
}
