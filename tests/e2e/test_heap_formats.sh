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
    mkdir -p test_heapsnapshot_reads_the_same_in_chrome_devtools && cd test_heapsnapshot_reads_the_same_in_chrome_devtools || fail "work directory"
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

# pprof_leaves DECODED: "TYPE<TAB>objects<TAB>bytes" per leaf frame of a heap
# profile decoded by protoc, and a TOTAL line.
pprof_leaves() {
    awk '
        /^sample \{/ { ins = 1; first = ""; nv = 0; next }
        ins && /location_id:/ { if (first == "") first = $2; next }
        ins && /value:/ { v[nv++] = $2; next }
        ins && /^\}/ { ins = 0; leaf[first] += v[0]; bytes[first] += v[1]; tc += v[0]; tb += v[1]; next }
        /^function \{/ { inf = 1; next }
        inf && /^  id:/ { id = $2; next }
        inf && /^  name:/ { name[id] = $2; next }
        inf && /^\}/ { inf = 0; next }
        /^string_table:/ { s = $0; sub(/^string_table: "/, "", s); sub(/"$/, "", s); str[ns++] = s; next }
        END { for (l in leaf) print str[name[l]] "\t" leaf[l] "\t" bytes[l]; print "TOTAL\t" tc "\t" tb }' "$1"
}

test_heap_pprof_counts_every_object_under_its_root_path() {
    mkdir -p test_heap_pprof_counts_every_object_under_its_root_path && cd test_heap_pprof_counts_every_object_under_its_root_path || fail "work directory"
    command -v protoc >/dev/null || fail "protoc is not installed (make setup)"
    heap_trace
    "$CLRPROBE" report heap.clrp --format pprof --heap -o heap.pb.gz || fail "report pprof --heap"
    zcat heap.pb.gz | protoc --decode=perftools.profiles.Profile -I "$ROOT/docs" "$ROOT/docs/profile.proto" \
        >heap.pb.txt || fail "not a profile.proto"
    assert_contains heap.pb.txt 'string_table: "inuse_objects"' "sample type inuse_objects"
    assert_contains heap.pb.txt 'string_table: "inuse_space"' "sample type inuse_space"
    pprof_leaves heap.pb.txt >leaves.tsv
    local objects bytes
    objects=$(jq -r "select(.kind==\"heap_snapshot\" and .snapshot==$LAST) | .objects" heap.jsonl)
    bytes=$(jq -r "select(.kind==\"heap_snapshot\" and .snapshot==$LAST) | .bytes" heap.jsonl)
    assert_eq "TOTAL	$objects	$bytes" "$(grep '^TOTAL' leaves.tsv)" "every object once, with its bytes"
    assert_eq "ClrProbe.Sample.HeapLeaf	1000	24000" "$(grep -P '^ClrProbe\.Sample\.HeapLeaf\t' leaves.tsv)" \
        "HeapLeaf objects and bytes"
    # the leaves' stack ends with the static field that holds them
    assert_contains heap.pb.txt 'string_table: "static ClrProbe.Sample.HeapScenario.Owner"' "the root frame"
    # a trace with a snapshot and no CPU samples gives the heap profile without --heap
    start_heap_target_for_pprof
}

start_heap_target_for_pprof() {
    "$SAMPLE" heap 3 >t.out 2>&1 &
    local tpid=$!
    at_exit "kill $tpid 2>/dev/null"
    wait_for_text t.out 30 "heap built" || fail "the sample did not build its heap"
    "$CLRPROBE" heap "$tpid" -o attached.clrp >/dev/null 2>&1 || fail "clrprobe heap"
    "$CLRPROBE" report attached.clrp --format pprof -o attached.pb.gz || fail "pprof of a heap-only trace"
    zcat attached.pb.gz | protoc --decode=perftools.profiles.Profile -I "$ROOT/docs" "$ROOT/docs/profile.proto" \
        >attached.pb.txt || fail "not a profile.proto"
    assert_contains attached.pb.txt 'string_table: "inuse_space"' "a heap-only trace's pprof is the heap profile"
    "$CLRPROBE" report attached.clrp --format text --heap >o 2>e
    assert_eq 2 "$?" "--heap with text is a usage error"
}

# The html page of a heap-only trace (clrprobe heap): its heap view, read from
# the page Chromium rendered (#heapstatus), sorted and with a type selected
# through the URL fragment.
test_html_heap_view_in_chromium() {
    mkdir -p test_html_heap_view_in_chromium && cd test_html_heap_view_in_chromium || fail "work directory"
    need_chromium
    "$SAMPLE" heap 3 >t.out 2>&1 &
    local tpid=$!
    at_exit "kill $tpid 2>/dev/null"
    wait_for_text t.out 30 "heap built" || fail "the sample did not build its heap"
    "$CLRPROBE" heap "$tpid" -o attached.clrp >/dev/null 2>&1 || fail "clrprobe heap"
    "$CLRPROBE" report attached.clrp --format html -o page.html || fail "html of a heap-only trace"
    chrome --virtual-time-budget=5000 --dump-dom "file://$PWD/page.html#heapsort=count&heaptype=ClrProbe.Sample.HeapLeaf" \
        >dom.html || fail "chromium"
    local st
    st=$(sed -n 's|.*<div id="heapstatus">\([^<]*\)</div>.*|\1|p' dom.html | sed 's/&gt;/>/g; s/&lt;/</g')
    [[ $st == *"sorted by count"* ]] || fail "the sort from the fragment: $st"
    [[ $st == *"selected ClrProbe.Sample.HeapLeaf: 1000 instances"* ]] || fail "the selected type: $st"
    [[ $st == *"path static ClrProbe.Sample.HeapScenario.Owner -> ClrProbe.Sample.HeapOwner.Leaves -> System.Collections.Generic.List<ClrProbe.Sample.HeapLeaf>._items -> ClrProbe.Sample.HeapLeaf[] -> ClrProbe.Sample.HeapLeaf"* ]] ||
        fail "the root path of the selected type: $st"
    # sorted by count, the first row is the type with the most objects (as the report counts them)
    local most
    most=$("$CLRPROBE" report attached.clrp --format jsonl | jq -rs '[.[] | select(.kind=="heap_type")] | sort_by(-.count, .type) | .[0].type')
    [[ $st == *"first $most;"* ]] || fail "the first row sorted by count: want $most: $st"
    # no samples: the heap view leads, right under the header, and no empty flame graph is shown
    local heap_at graph_at
    heap_at=$(grep -bo '<section id="heapview"' dom.html | head -1 | cut -d: -f1)
    graph_at=$(grep -bo '<div id="graph"' dom.html | head -1 | cut -d: -f1)
    [[ -n $heap_at && -n $graph_at && $heap_at -lt $graph_at ]] || fail "the heap view is not first ($heap_at, $graph_at)"
    grep -q '<div id="graph"[^>]*hidden' dom.html || fail "an empty flame graph is shown"
}
