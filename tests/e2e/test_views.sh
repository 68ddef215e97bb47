# test_views.sh - the allocation, live and contention views through the
# clrprobe command, on a trace made by hand (the agent's side is recorded
# elsewhere): the unit tests' fixture, which view_formats_fixture writes
# where CLRPROBE_VIEWS_FIXTURE says (tests/unit/test_view_formats.c: 10
# System.Byte[] of 8192 bytes in App.Fill on thread worker, 2 of them alive
# after the one GC; 10 App.Entry of 48 bytes in App.Add on thread cache;
# lock waits of 3, 1 and 2 ms).  The html page's view picker in headless
# Chromium, the pprof of each view decoded by protoc with the sample types
# `go tool pprof -sample_index=...` takes, and, on a real CPU recording,
# the message for a view it has no records of.

# views_trace: the fixture in the test's directory; sets TRACE.
views_trace() {
    TRACE=$PWD/views.clrp
    CLRPROBE_VIEWS_FIXTURE=$TRACE "$(dirname "$CLRPROBE")/unit_tests" view_formats_fixture >fixture.out 2>&1 ||
        fail "the unit tests' fixture: $(cat fixture.out)"
    [[ -s $TRACE ]] || fail "no fixture trace written"
}

# view_total VIEW: the total of the view as collapsed states it (the sum of its counts).
view_total() {
    "$CLRPROBE" report "$TRACE" --view "$1" --format collapsed | awk '{s += $NF} END {printf "%d", s}'
}

# page_status FRAGMENT: the status line of page.html opened at #FRAGMENT.
page_status() {
    chrome --virtual-time-budget=5000 --dump-dom "file://$PWD/page.html#$1" >dom.html
    sed -n 's|.*<div id="status">\([^<]*\)</div>.*|\1|p' dom.html | head -1
}

test_views_html_picker_in_chromium() {
    need_chromium
    views_trace
    local alloc live contention st
    alloc=$(view_total alloc)
    live=$(view_total live)
    contention=$(view_total contention)
    assert_eq 6000000 "$contention" "the contention view's total in collapsed (ns)"
    "$CLRPROBE" report "$TRACE" --view alloc --format html -o page.html 2>err || fail "html: $(cat err)"
    st=$(page_status '')
    assert_eq "view alloc; thread all; bytes $alloc of $alloc; search none; matched 0.0% of $alloc bytes; zoom all; frames drawn 6; range all" \
        "$st" "the alloc view first, in bytes"
    assert_eq 6 "$(sed -n 's|.*<select id="view">\(.*\)</select>.*|\1|p' dom.html | grep -o '<option' | wc -l | tr -d ' ')" \
        "the view picker offers the six views the trace has"
    assert_contains dom.html '<b>alloc view</b> (bytes allocated, from sampled allocations, in bytes)' "the header"
    assert_contains dom.html 'upscaled estimates (AllocationSampled' "how the figures are read"
    st=$(page_status 'view=live')
    assert_eq "view live; thread all; bytes $live of $live; search none; matched 0.0% of $live bytes; zoom all; frames drawn 4; range all" \
        "$st" "the live view from the fragment"
    st=$(page_status 'view=contention&thread=cache&search=lock')
    assert_eq "view contention; thread cache (102); nanoseconds 3000000 of 6000000; search \"lock\"; matched 33.3% of 3000000 nanoseconds; zoom all; frames drawn 4; range all" \
        "$st" "the contention view of one thread, searched"
    st=$(page_status 'view=cpu')
    assert_eq "view cpu; thread all; samples 1 of 1; search none; matched 0.0% of 1 samples; zoom all; frames drawn 3; range all" \
        "$st" "the CPU view, counted in samples as before"
}

# pprof_types FILE: the decoded profile's sample types as "type/unit|...", then the default's name.
pprof_types() {
    local -a S
    mapfile -t S < <(grep '^string_table:' "$1" | sed 's/^string_table: //' | tr -d '"')
    awk '/^sample_type \{/ {b=1; next} b && /type:/ {t=$2} b && /unit:/ {u=$2} b && /^\}/ {print t, u; b=0}' "$1" |
        while read -r t u; do echo "${S[$t]}/${S[$u]}"; done | paste -sd'|'
    echo "${S[$(sed -n 's/^default_sample_type: //p' "$1")]}"
}

# pprof_sum FILE N: the sum of the Nth value (from 1) of every sample.
pprof_sum() {
    awk -v n="$2" '/^sample \{/ {k=0} /^  value:/ {k++; if (k == n) s += $2} END {printf "%d", s}' "$1"
}

test_views_pprof_sample_types() {
    command -v protoc >/dev/null || fail "protoc is not installed (make setup)"
    views_trace
    local v def
    for v in alloc alloc-count live contention; do
        "$CLRPROBE" report "$TRACE" --view "$v" --format pprof -o "$v.pb.gz" 2>err || fail "pprof $v: $(cat err)"
        zcat "$v.pb.gz" | protoc --decode=perftools.profiles.Profile -I "$ROOT/docs" "$ROOT/docs/profile.proto" \
            >"$v.txt" 2>decode.err || fail "$v: not a profile.proto: $(cat decode.err)"
    done
    for v in alloc:alloc_space alloc-count:alloc_objects live:inuse_space; do
        def=${v#*:}
        v=${v%%:*}
        assert_eq "alloc_objects/count|alloc_space/bytes|inuse_objects/count|inuse_space/bytes
$def" "$(pprof_types "$v.txt")" "$v: Go's heap profile sample types, $def by default"
    done
    assert_eq "contentions/count|delay/nanoseconds
delay" "$(pprof_types contention.txt)" "contention: sample types (Go's mutex profile's)"
    # the values add up to the totals the other formats state
    assert_eq "$(view_total alloc)" "$(pprof_sum live.txt 2)" "alloc_space is the alloc view's total"
    assert_eq "$(view_total alloc-count)" "$(pprof_sum live.txt 1)" "alloc_objects is the alloc-count view's total"
    assert_eq "$(view_total live)" "$(pprof_sum live.txt 4)" "inuse_space is the live view's total"
    assert_eq 3 "$(pprof_sum contention.txt 1)" "contentions"
    assert_eq 6000000 "$(pprof_sum contention.txt 2)" "delay nanoseconds"
}

test_views_missing_records_name_the_fix() {
    shares_trace
    "$CLRPROBE" report "$TRACE" --view alloc --format html -o a.html >o 2>e
    assert_eq 1 "$?" "exit code of --view alloc without allocation samples"
    assert_contains e "has no allocation samples, which the alloc view shows: record them with --collect alloc or live; it has the records of --view cpu, wall" \
        "the message names the fix"
    [[ ! -e a.html ]] || fail "an output file was left"
    "$CLRPROBE" report "$TRACE" --view contention >o 2>e
    assert_eq 1 "$?" "exit code of text --view contention without lock waits"
    assert_contains e "has no lock waits, which the contention view shows: record them with --collect contention" \
        "the message for waits"
    views_trace
    "$CLRPROBE" report "$TRACE" >text.txt 2>e || fail "text of the fixture"
    assert_contains text.txt "Where memory is allocated: " "the summary's allocation section"
    assert_contains text.txt "What stays alive after the last GC (GC 1 at " "the summary's live section"
    assert_contains text.txt "Where threads wait: 6.0 ms in 3 lock waits on 2 threads" "the summary's waits"
}
