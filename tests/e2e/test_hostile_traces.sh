# test_hostile_traces.sh - traces a recorded process could have crafted to
# break the report (tests/data/crafted, README there), run through every
# format and every view of `clrprobe report`, and reports that cannot be
# written whole.  Each report must end (a time limit), cleanly or with one
# error line, never by a signal, with an output bounded by its input; under
# `make asan` every out-of-bounds access fails the test.

CRAFTED=$ROOT/tests/data/crafted
FORMATS="text jsonl collapsed speedscope pprof html chrome heapsnapshot"
VIEWS="cpu wall alloc alloc-count live contention exceptions"

# hostile_report TRACE ARGS...: one report of TRACE into out.bin, checked.
hostile_report() {
    local trace=$1 rc size limit lines
    shift
    rm -f out.bin
    timeout 30 "$CLRPROBE" report "$trace" "$@" -o out.bin >/dev/null 2>err.txt
    rc=$?
    case $rc in
    0) ;;
    1)  lines=$(grep -vc '^clrprobe: warning: ' err.txt)
        [[ $lines -eq 1 ]] || { fail "report $(basename "$trace") $*: exit 1 with $lines error lines"; sed 's/^/    | /' err.txt | head -5; }
        [[ ! -e out.bin ]] || fail "report $(basename "$trace") $*: a failed report left its output" ;;
    124) fail "report $(basename "$trace") $*: did not end within 30 s" ;;
    *)  fail "report $(basename "$trace") $*: exit status $rc"; sed 's/^/    | /' err.txt | head -5 ;;
    esac
    if [[ -e out.bin ]]; then
        size=$(stat -c %s out.bin)
        limit=$((200 * $(stat -c %s "$trace") + 512 * 1024))
        [[ $size -le $limit ]] || fail "report $(basename "$trace") $*: $size bytes of output from $(stat -c %s "$trace")"
    fi
    ls ./*.partial-* >/dev/null 2>&1 && fail "report $(basename "$trace") $*: a temporary file was left"
    return 0
}

test_hostile_traces_every_format_and_view() {
    local trace format view n=0
    for trace in "$CRAFTED"/*.clrp; do
        for format in $FORMATS; do
            for view in $VIEWS; do
                hostile_report "$trace" --format "$format" --view "$view"
                n=$((n + 1))
            done
        done
        hostile_report "$trace" --format pprof --heap
        hostile_report "$trace" --format collapsed --by-thread
        hostile_report "$trace" --format text --why App.Named
        hostile_report "$trace" --format jsonl --why App.Named
        hostile_report "$trace" --format text --diff "$trace"
        hostile_report "$trace" --format jsonl --diff "$trace"
        hostile_report "$trace" --format html --raw-frames
        n=$((n + 7))
    done
    assert_ge 100 "$n" "reports made"
    # what each is about is said, not hidden
    "$CLRPROBE" report "$CRAFTED/heap_huge_type.clrp" >huge.txt 2>&1
    assert_contains huge.txt "damaged: 3 objects have a type index" "the damaged snapshot is named"
    "$CLRPROBE" report "$CRAFTED/heap_stray_type.clrp" --format pprof --heap -o heap.pb.gz
    assert_eq 0 "$?" "pprof --heap of objects of unnamed types"
}

# A full file system: the report fails with one line naming the problem and
# leaves nothing behind (neither its temporary file nor a partial target).
test_hostile_report_full_disk() {
    [[ $(id -u) -eq 0 ]] || skip "needs root (mounts a small tmpfs)"
    mkdir -p small
    mount -t tmpfs -o size=64k tmpfs small 2>/dev/null || skip "cannot mount a tmpfs here"
    at_exit "umount '$PWD/small'"
    "$CLRPROBE" report "$ROOT/tests/data/compat/launch.clrp" --format jsonl -o small/out.jsonl 2>err.txt
    assert_eq 1 "$?" "exit status on a full disk"
    assert_eq 1 "$(wc -l <err.txt)" "error lines"
    assert_contains err.txt "No space left on device" "the reason"
    assert_eq "" "$(ls small)" "what the failed report left"
    "$CLRPROBE" report "$ROOT/tests/data/compat/launch.clrp" --format jsonl >/dev/full 2>err.txt
    assert_eq 1 "$?" "exit status on a full standard output"
    assert_contains err.txt "cannot write the report to standard output: No space left on device" "the reason"
}

# A trace shortened while the report reads it (its writer, or anyone who may
# write it, can) reads as cut short: never a SIGBUS.  (Whenever the truncation
# lands, the report must end by itself; tests/unit/test_reader_shrink.c
# places it exactly.)
test_hostile_trace_shortened_while_reported() {
    local src=$ROOT/tests/data/compat/launch.clrp hlen i rc
    hlen=$(od -An -t u4 -j 12 -N 4 "$src" | tr -d ' ')
    head -c "$hlen" "$src" >big.clrp
    tail -c +"$((hlen + 1))" "$src" >body
    for ((i = 0; i < 300; i++)); do cat body; done >>big.clrp     # ~50 MB of valid chunks
    for ((i = 0; i < 3; i++)); do
        cp big.clrp shrinking.clrp
        timeout 60 "$CLRPROBE" report shrinking.clrp --format collapsed -o /dev/null 2>err.txt &
        truncate -s 1000000 shrinking.clrp
        wait $!
        rc=$?
        [[ $rc -eq 0 || $rc -eq 1 ]] || { fail "report of a trace shortened meanwhile: exit status $rc"; cat err.txt; }
    done
}
