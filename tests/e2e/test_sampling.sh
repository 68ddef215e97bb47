# test_sampling.sh - CPU sampling against the real runtime: known shares in
# the CPU view, the sleeping thread only in the wall view, the same after
# attach, and the sampler's own overhead recorded.

# share NEEDLE FILE: percentage of collapsed-stack counts whose stack contains NEEDLE
share() {
    awk -v n="$1" '{c=$NF; t+=c; if (index($0, n)) m+=c} END {if (t) printf "%.1f", 100*m/t; else print "0"}' "$2"
}

within() {   # value expected tolerance message
    awk -v v="$1" -v e="$2" -v d="$3" 'BEGIN {exit !(v >= e - d && v <= e + d)}' || fail "$4: $1% not within $3 points of $2%"
}

check_shares() {   # trace label
    "$CLRPROBE" report "$1" --format collapsed >cpu.txt 2>/dev/null
    assert_eq 0 "$?" "collapsed report of $2"
    within "$(share SharesTargets.BurnOther cpu.txt)" 50 5 "$2: BurnOther share"
    within "$(share SharesTargets.BurnThreeQuarters cpu.txt)" 37.5 5 "$2: BurnThreeQuarters share"
    within "$(share SharesTargets.BurnOneQuarter cpu.txt)" 12.5 5 "$2: BurnOneQuarter share"
    "$CLRPROBE" report "$1" --format collapsed --by-thread >cpu-threads.txt
    "$CLRPROBE" report "$1" --format collapsed --by-thread --view wall >wall-threads.txt
    # (after an attach, threads started before it are known by their kernel name, cut to 15 bytes)
    assert_eq 0 "$(grep -c '^(\?clrprobe-sleepe' cpu-threads.txt)" "$2: sleeping thread in the CPU view"
    assert_ge 1 "$(grep -c '^(\?clrprobe-sleepe[r)]*;.*SharesTargets.Sleep' wall-threads.txt)" \
        "$2: sleeping thread in the wall view"
}

test_cpu_shares_at_launch() {
    "$SAMPLE" shares 3 >plain.out
    "$CLRPROBE" run -o shares.clrp -- "$SAMPLE" shares 3 >prof.out 2>err
    assert_eq 0 "$?" "exit code"
    cmp -s plain.out prof.out || fail "output changed under sampling"
    check_shares shares.clrp "launch"
    "$CLRPROBE" report shares.clrp --format jsonl >s.jsonl
    assert_ge 100 "$(jcount s.jsonl 'select(.kind=="sample")')" "samples recorded"
    assert_ge 50 "$(jcount s.jsonl 'select(.kind=="sampler_tick" and .suspend_ns > 0 and .sampler_cpu_ns > 0)')" \
        "sampler ticks with their suspension and CPU time"
    assert_eq 0 "$(jq -r 'select(.kind=="function_name") | .id' s.jsonl | sort | uniq -d | wc -l)" \
        "function names written once"
    "$CLRPROBE" report shares.clrp >s.txt
    assert_contains s.txt "Top functions by self time" "text profile"
    assert_contains s.txt "Thread clrprobe-burner" "text profile per thread"
    assert_contains s.txt "sampler overhead:" "text shows the sampler's overhead"
}

test_cpu_shares_after_attach() {
    "$SAMPLE" shares 8 >shares.out 2>&1 &
    TPID=$!
    trap 'kill $TPID 2>/dev/null' EXIT
    wait_for_text shares.out 30 "shares started" || fail "sample did not start"
    "$CLRPROBE" attach "$TPID" -o att.clrp --collect cpu,threads --duration 3 >a.out 2>a.err
    assert_eq 0 "$?" "attach exit code"
    wait "$TPID"
    assert_eq 0 "$?" "target exit code"
    check_shares att.clrp "attach"
}

test_rate_is_honoured_and_checked() {
    "$CLRPROBE" run -o r.clrp --collect cpu --rate 20 -- "$SAMPLE" shares 2 >/dev/null 2>&1
    "$CLRPROBE" report r.clrp --format jsonl >r.jsonl
    local ticks
    ticks=$(jcount r.jsonl 'select(.kind=="sampler_tick")')
    [[ $ticks -ge 25 && $ticks -le 50 ]] || fail "20 Hz for ~2 s gave $ticks ticks"
    for bad in 0 1001 fast; do
        "$CLRPROBE" run --rate "$bad" -- "$SAMPLE" exit 0 >o 2>e
        assert_eq 2 "$?" "exit code for --rate $bad"
        assert_contains e "out of range (1..1000 samples per second)" "message for --rate $bad"
    done
    "$CLRPROBE" attach 1 --rate 5000 >o 2>e
    assert_eq 2 "$?" "attach --rate 5000"
}

test_profile_formats_need_samples() {
    "$CLRPROBE" run -o nosamples.clrp --collect jit -- "$SAMPLE" jit >/dev/null 2>&1
    "$CLRPROBE" report nosamples.clrp --format collapsed >o 2>e
    assert_eq 1 "$?" "exit code"
    assert_contains e "has no CPU samples" "message"
    assert_contains e "--collect cpu" "message says what to collect"
    "$CLRPROBE" report nosamples.clrp --format collapsed -o out.txt >o 2>e
    [[ ! -e out.txt ]] || fail "an empty output file was left"
    "$CLRPROBE" report nosamples.clrp >o 2>e
    assert_eq 0 "$?" "the text report works without samples"
}
