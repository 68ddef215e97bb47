# test_alloc.sh - allocations, live objects and lock contention against the
# real runtime (--collect alloc, live, contention, alloc-all): the upscaled
# profile of `Sample alloc` (3:1 bytes in two functions, known totals) has
# the right shares and totals; the live view of `Sample live` is the
# retained objects, not the garbage; the contention view of `Sample
# contention` holds the measured wait on the waiting function's stack; the
# same after an attach and when the target exits while attached; alloc-all
# counts exactly.  The programs' output never changes.  The truths are the
# programs' own figures (stderr, "truth ..." lines).

# truth_field FILE PATTERN FIELD: the value of FIELD=... on the truth line
# matching PATTERN.
truth_field() {
    awk -v p="$2" -v f="$3" 'index($0, p) { for (i = 1; i <= NF; i++) if (index($i, f "=") == 1)
        { print substr($i, length(f) + 2); exit } }' "$1"
}

# assert_within PERCENT ACTUAL EXPECTED MESSAGE: |ACTUAL - EXPECTED| <=
# PERCENT% of EXPECTED.
assert_within() {
    echo "$4: $2 (expected $3 +-$1%)"
    awk -v t="$1" -v a="$2" -v e="$3" 'BEGIN {exit !(a != "" && e > 0 && a >= e * (1 - t / 100) && a <= e * (1 + t / 100))}' ||
        fail "$4: $2 is not within $1% of $3"
}

# collapsed_sum NEEDLE FILE: the counts of the stacks containing NEEDLE.
collapsed_sum() {
    awk -v n="$1" 'index($0, n) {m += $NF} END {printf "%.0f\n", m}' "$2"
}

# check_alloc TRACE TRUTH LABEL: the 3:1 shares within 5 points and each
# function's upscaled bytes and objects within 25% of what it allocated
# (about 3000 samples a second: a share's standard deviation is under a
# point, a total's about 2%).
check_alloc() {
    local large small n
    "$CLRPROBE" report "$1" --view alloc --format collapsed >alloc.txt 2>alloc.err
    assert_eq 0 "$?" "$3: collapsed alloc view"
    large=$(collapsed_sum AllocTargets.AllocateLarge alloc.txt)
    small=$(collapsed_sum AllocTargets.AllocateSmall alloc.txt)
    n=$(awk -v a="$large" -v b="$small" 'BEGIN {printf "%.1f", 100 * a / (a + b)}')
    echo "$3: AllocateLarge has $n% of the two functions' bytes"
    awk -v v="$n" 'BEGIN {exit !(v >= 70 && v <= 80)}' || fail "$3: AllocateLarge's share $n% is not 75% +-5"
    assert_contains alloc.txt "AllocTargets.AllocateLarge;System.Byte[] " "$3: the allocated type is the leaf"
    if [[ -n $2 ]]; then
        assert_within 25 "$large" "$(truth_field "$2" AllocTargets.AllocateLarge bytes)" "$3: AllocateLarge bytes"
        assert_within 25 "$small" "$(truth_field "$2" AllocTargets.AllocateSmall bytes)" "$3: AllocateSmall bytes"
        "$CLRPROBE" report "$1" --view alloc-count --format collapsed >count.txt 2>/dev/null
        assert_within 25 "$(collapsed_sum AllocTargets.AllocateSmall count.txt)" \
            "$(truth_field "$2" AllocTargets.AllocateSmall objects)" "$3: AllocateSmall objects"
    fi
}

test_alloc_shares_and_totals_at_launch() {
    "$SAMPLE" alloc 1 >plain.out 2>/dev/null
    "$CLRPROBE" run -o a.clrp --collect alloc,live,contention -- "$SAMPLE" alloc 1 >prof.out 2>truth.txt
    assert_eq 0 "$?" "exit code"
    cmp -s plain.out prof.out || fail "output changed under allocation sampling"
    check_alloc a.clrp truth.txt "launch"
    "$CLRPROBE" report a.clrp >summary.txt
    assert_contains summary.txt "Where memory is allocated" "text summary"
    assert_contains summary.txt "System.Byte[] in ClrProbe.Sample.AllocTargets.AllocateLarge" "text summary site"
    # every profile format takes the view
    for f in speedscope pprof html jsonl; do
        "$CLRPROBE" report a.clrp --view alloc --format "$f" -o "a.$f" 2>err.txt
        assert_eq 0 "$?" "--view alloc --format $f"
    done
    assert_ge 1000 "$(jcount a.jsonl 'select(.kind=="alloc_sample")')" "alloc_sample records in jsonl"
    # Go's pprof reads it as a heap profile: -sample_index picks the view
    HOME=${HOME:-$WORK} go tool pprof -sample_index=alloc_space -top a.pprof >top.txt 2>top.err
    assert_eq 0 "$?" "go tool pprof -sample_index=alloc_space"
    assert_contains top.txt "Type: alloc_space" "pprof sample type"
    awk '$NF == "System.Byte[]" {found = 1} END {exit !found}' top.txt ||
        fail "System.Byte[] is not a node of go tool pprof's alloc_space top"
    HOME=${HOME:-$WORK} go tool pprof -sample_index=inuse_space -top a.pprof >top.txt 2>top.err
    assert_contains top.txt "Type: inuse_space" "pprof live sample type"
}

# The same beside another main profiler (the stand-in APM agent, lib.sh):
# EventPipe serves a notification profiler as it serves the main one.
test_alloc_and_contention_beside_an_apm_agent() {
    "$SAMPLE" alloc 1 >plain.out 2>/dev/null
    with_standin "$CLRPROBE" run --notification -o a.clrp --collect alloc,contention -- "$SAMPLE" alloc 1 \
        >prof.out 2>truth.txt
    assert_eq 0 "$?" "exit code"
    cmp -s plain.out prof.out || fail "output changed under allocation sampling beside the stand-in"
    assert_eq 1 "$(standin_events initialize)" "the stand-in is the main profiler"
    "$CLRPROBE" report a.clrp --format jsonl >a.jsonl
    assert_eq true "$(jq -r 'select(.kind=="trace") | .notification' a.jsonl)" "the notification role"
    check_alloc a.clrp truth.txt "beside"
    "$SAMPLE" contention 1 >plain.out 2>/dev/null
    with_standin "$CLRPROBE" run --notification -o c.clrp --collect contention -- "$SAMPLE" contention 1 \
        >prof.out 2>truth.txt
    assert_eq 0 "$?" "exit code"
    cmp -s plain.out prof.out || fail "output changed under contention recording beside the stand-in"
    check_contention c.clrp truth.txt "beside"
}

test_live_view_is_what_stays_alive() {
    "$SAMPLE" live 2 >plain.out 2>/dev/null
    "$CLRPROBE" run -o l.clrp --collect live -- "$SAMPLE" live 2 >prof.out 2>truth.txt
    assert_eq 0 "$?" "exit code"
    cmp -s plain.out prof.out || fail "output changed under live-object tracking"
    "$CLRPROBE" report l.clrp --view live --format collapsed >live.txt 2>live.err
    assert_eq 0 "$?" "collapsed live view"
    local retain churn
    retain=$(collapsed_sum LiveTargets.Retain live.txt)
    churn=$(collapsed_sum LiveTargets.Churn live.txt)
    assert_within 25 "$retain" "$(truth_field truth.txt LiveTargets.Retain bytes)" "live bytes retained by Retain"
    # Churn allocated 8 times as much, all dead but its last 64 KiB
    awk -v c="$churn" -v r="$retain" 'BEGIN {exit !(c <= 0.02 * r)}' ||
        fail "objects that die young are in the live view: Churn $churn bytes against Retain's $retain"
    # ...while the alloc view has both, 8:1
    "$CLRPROBE" report l.clrp --view alloc --format collapsed >alloc.txt 2>/dev/null
    assert_within 25 "$(collapsed_sum LiveTargets.Churn alloc.txt)" \
        "$(truth_field truth.txt LiveTargets.Churn bytes)" "allocated bytes of Churn"
    "$CLRPROBE" report l.clrp >summary.txt
    assert_contains summary.txt "What stays alive" "text summary"
    assert_contains summary.txt "System.Int64[] in ClrProbe.Sample.LiveTargets.Retain" "text summary live site"
}

# Large objects dropped after the last gen2 GC and followed only by gen0
# and gen1 GCs (which never look at the large-object heap) are dead but
# unexamined: the live view leaves them out and says how many; the leak
# (Retain's 64 MiB) is on top though the garbage is larger (96 MiB).
test_live_view_leaves_out_large_objects_no_gen2_gc_examined() {
    "$SAMPLE" live 1 garbage >plain.out 2>/dev/null
    "$CLRPROBE" run -o g.clrp --collect live -- "$SAMPLE" live 1 garbage >prof.out 2>truth.txt
    assert_eq 0 "$?" "exit code"
    cmp -s plain.out prof.out || fail "output changed under live-object tracking"
    assert_eq 1024 "$(truth_field truth.txt LiveTargets.DropLarge objects)" "the garbage as built"
    "$CLRPROBE" report g.clrp --view live --format collapsed >live.txt 2>live.err
    assert_eq 0 "$?" "collapsed live view"
    local retain large
    retain=$(collapsed_sum LiveTargets.Retain live.txt)
    large=$(collapsed_sum LiveTargets.DropLarge live.txt)
    assert_within 25 "$retain" "$(truth_field truth.txt LiveTargets.Retain bytes)" "live bytes retained by Retain"
    assert_eq 0 "$large" "dead large objects no gen2 GC examined are not in the live view"
    # ...though they were sampled and followed: the alloc view has them
    "$CLRPROBE" report g.clrp --view alloc --format collapsed >alloc.txt 2>/dev/null
    assert_within 25 "$(collapsed_sum LiveTargets.DropLarge alloc.txt)" \
        "$(truth_field truth.txt LiveTargets.DropLarge bytes)" "allocated bytes of DropLarge"
    "$CLRPROBE" report g.clrp >summary.txt
    assert_contains summary.txt "not yet examined, left out" "the text says how many are unexamined"
    local n
    n=$(sed -n 's/^  \([0-9]*\) more followed objects\{0,1\} not yet examined.*/\1/p' summary.txt | head -1)
    # every followed large object of the trace, and at most a few small ones allocated after the last GC
    local sampled
    "$CLRPROBE" report g.clrp --format jsonl >g.jsonl
    sampled=$(jcount g.jsonl 'select(.kind=="alloc_sample" and .id != 0 and .size >= 85000 and .type == "System.Byte[]")')
    assert_ge 400 "$sampled" "sampled large objects (about 61% of the 1024: one byte in 100 KiB sampled)"
    assert_ge "$sampled" "$n" "unexamined: every sampled large object"
    assert_ge "$n" "$((sampled + 50))" "unexamined: the large objects and few others"
    # the top site of the live view is the leak
    assert_eq "System.Int64[] in ClrProbe.Sample.LiveTargets.Retain" \
        "$(sed -n '/^What stays alive/,/^$/p' summary.txt | awk '/%/ {sub(/^ *[^ ]+ [^ ]+ +[0-9.]+% +[0-9]+ +[0-9]+ +[0-9]+  /, ""); print; exit}')" \
        "the leak is the top live site"
}

# check_contention TRACE TRUTH LABEL: the Monitor waits of WaitForLedger on
# their stack with the lock's type, their time within 25% of the measured.
check_contention() {
    "$CLRPROBE" report "$1" --view contention --format collapsed >wait.txt 2>wait.err
    assert_eq 0 "$?" "$3: collapsed contention view"
    assert_contains wait.txt "ContentionTargets.WaitForLedger;" "$3: the waiting function's stack"
    assert_contains wait.txt "lock ClrProbe.Sample.SharedLedger " "$3: the lock's type"
    if [[ -n $2 ]]; then
        assert_within 25 "$(collapsed_sum ContentionTargets.WaitForLedger wait.txt)" \
            "$(awk '/WaitForLedger/ { for (i = 1; i <= NF; i++) if ($i ~ /^waited_ms=/) print substr($i, 11) * 1000000 }' "$2")" \
            "$3: nanoseconds waited in WaitForLedger"
    fi
}

test_contention_wait_on_its_stack() {
    "$SAMPLE" contention 1 >plain.out 2>/dev/null
    "$CLRPROBE" run -o c.clrp --collect contention -- "$SAMPLE" contention 1 >prof.out 2>truth.txt
    assert_eq 0 "$?" "exit code"
    cmp -s plain.out prof.out || fail "output changed under contention recording"
    check_contention c.clrp truth.txt "launch"
    "$CLRPROBE" report c.clrp >summary.txt
    assert_contains summary.txt "Where threads wait" "text summary"
    # the site is the function that waited, not the runtime's Monitor or Lock methods under it; a
    # System.Threading.Lock (whose object the runtime does not let us inspect there) named by its methods
    assert_contains summary.txt "lock ClrProbe.Sample.SharedLedger in ClrProbe.Sample.ContentionTargets.WaitForLedger" \
        "text summary: Monitor wait site"
    assert_contains summary.txt "lock System.Threading.Lock in ClrProbe.Sample.ContentionTargets.WaitForJournal" \
        "text summary: Lock wait site"
    "$CLRPROBE" report c.clrp --view contention --format pprof -o c.pprof
    HOME=${HOME:-$WORK} go tool pprof -sample_index=delay -top c.pprof >top.txt 2>top.err
    assert_eq 0 "$?" "go tool pprof -sample_index=delay"
    assert_contains top.txt "lock ClrProbe.Sample.SharedLedger" "pprof contention node"
}

test_alloc_live_contention_after_attach() {
    "$SAMPLE" alloc 6 >alloc.out 2>&1 &
    local apid=$!
    at_exit "kill $apid 2>/dev/null"
    wait_for_text alloc.out 30 "alloc started" || fail "sample did not start"
    "$CLRPROBE" attach "$apid" -o att.clrp --collect alloc,live,contention --duration 1.5 >a.out 2>a.err
    assert_eq 0 "$?" "attach exit code"
    wait "$apid"
    assert_eq 0 "$?" "target exit code"
    assert_contains alloc.out "alloc done" "target finished its work"
    check_alloc att.clrp "" "attach"
    "$CLRPROBE" report att.clrp --format jsonl >att.jsonl
    assert_ge 1 "$(jcount att.jsonl 'select(.kind=="live_gc")')" "live_gc records after attach"

    "$SAMPLE" contention 6 >cont.out 2>&1 &
    local cpid=$!
    at_exit "kill $cpid 2>/dev/null"
    wait_for_text cont.out 30 "contention started" || fail "sample did not start"
    "$CLRPROBE" attach "$cpid" -o attc.clrp --collect contention --duration 1.5 >a.out 2>a.err
    assert_eq 0 "$?" "attach exit code"
    wait "$cpid"
    assert_eq 0 "$?" "target exit code"
    check_contention attc.clrp "" "attach"

    "$SAMPLE" live 5 >live.out 2>&1 &
    local lpid=$!
    at_exit "kill $lpid 2>/dev/null"
    wait_for_text live.out 30 "live started" || fail "sample did not start"
    sleep 0.5
    "$CLRPROBE" attach "$lpid" -o attl.clrp --collect live --duration 2.5 >a.out 2>a.err
    assert_eq 0 "$?" "attach exit code"
    wait "$lpid"
    assert_eq 0 "$?" "target exit code"
    "$CLRPROBE" report attl.clrp --view live --format collapsed >live.txt 2>live.err
    assert_eq 0 "$?" "live view after attach"
    local retain churn
    retain=$(collapsed_sum LiveTargets.Retain live.txt)
    churn=$(collapsed_sum LiveTargets.Churn live.txt)
    echo "attach: live bytes of Retain $retain, of Churn $churn"
    assert_ge 10000000 "$retain" "attach: live bytes retained by Retain while attached (about a third of 64 MiB)"
    awk -v c="$churn" -v r="$retain" 'BEGIN {exit !(c <= 0.02 * r)}' ||
        fail "attach: objects that die young are in the live view: Churn $churn bytes against Retain's $retain"
}

test_target_exits_while_attached() {
    "$SAMPLE" alloc 3 >alloc.out 2>&1 &
    local apid=$!
    at_exit "kill $apid 2>/dev/null"
    wait_for_text alloc.out 30 "alloc started" || fail "sample did not start"
    "$CLRPROBE" attach "$apid" -o exit.clrp --collect alloc,live,contention >a.out 2>a.err
    assert_eq 0 "$?" "attach exit code (the target ended the recording)"
    wait "$apid"
    assert_eq 0 "$?" "target exit code"
    "$CLRPROBE" report exit.clrp --format jsonl >exit.jsonl 2>exit.err
    assert_eq 0 "$?" "the trace reads"
    assert_not_contains exit.err "cut short" "the trace is whole"
    assert_eq 1 "$(jcount exit.jsonl 'select(.kind=="trace_end")')" "the trace ends with its end record"
    check_alloc exit.clrp "" "target exited"
}

test_alloc_all_counts_exactly() {
    "$SAMPLE" alloc rounds 4 >plain.out 2>/dev/null
    "$CLRPROBE" run -o x.clrp --collect alloc-all -- "$SAMPLE" alloc rounds 4 >prof.out 2>truth.txt
    assert_eq 0 "$?" "exit code"
    cmp -s plain.out prof.out || fail "output changed under alloc-all"
    "$CLRPROBE" report x.clrp --view alloc --format collapsed >all.txt 2>/dev/null
    assert_eq "$(truth_field truth.txt AllocTargets.AllocateLarge bytes)" \
        "$(awk 'index($0, "AllocTargets.AllocateLarge;System.Byte[] ") {m += $NF} END {print m + 0}' all.txt)" \
        "exact bytes of byte[] allocated by AllocateLarge"
    "$CLRPROBE" report x.clrp --view alloc-count --format collapsed >allc.txt 2>/dev/null
    assert_eq "$(truth_field truth.txt AllocTargets.AllocateSmall objects)" \
        "$(awk 'index($0, "AllocTargets.AllocateSmall;ClrProbe.Sample.AllocItem ") {m += $NF} END {print m + 0}' allc.txt)" \
        "exact count of AllocItem allocated by AllocateSmall"
    "$CLRPROBE" attach 1 --collect alloc-all >o 2>e
    assert_eq 2 "$?" "attach --collect alloc-all is refused"
    assert_contains e "clrprobe run --collect alloc-all" "the refusal names the fix"
}
