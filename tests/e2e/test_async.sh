# test_async.sh - async code as written (docs/sampling.md, "Async methods"):
# `Sample async` burns CPU in async methods of every kind; the profile
# formats show each state machine's MoveNext as "Type.Method [async]" with
# the builders' Start frames and the kick-off method folded, a plain
# iterator as it is, --raw-frames and jsonl the frames as recorded.

# async_trace: `Sample async 3` recorded once per suite run, with its
# collapsed output (async_frames.txt) and raw collapsed output (raw.txt);
# sets TRACE and DIR.
async_trace() {
    DIR="$WORK/fixtures/async"
    TRACE="$DIR/async.clrp"
    mkdir -p "$DIR"
    (
        exec 9>"$DIR.lock"
        flock 9
        [[ -f $DIR/done ]] && exit 0
        "$CLRPROBE" run -o "$TRACE" -- "$SAMPLE" async 3 >"$DIR/run.out" 2>"$DIR/run.err"
        echo $? >"$DIR/run.rc"
        "$CLRPROBE" report "$TRACE" --format collapsed >"$DIR/async_frames.txt" 2>"$DIR/report.err"
        "$CLRPROBE" report "$TRACE" --format collapsed --raw-frames >"$DIR/raw.txt" 2>>"$DIR/report.err"
        touch "$DIR/done"
    )
    assert_eq 0 "$(cat "$DIR/run.rc")" "exit code of the recording"
    assert_eq "async done" "$(cat "$DIR/run.out")" "the sample's output"
    [[ -s $DIR/async_frames.txt && -s $DIR/raw.txt ]] || fail "no collapsed output: $(cat "$DIR/report.err")"
}

# lines FILE ERE: the number of collapsed lines matching ERE.
lines() {
    grep -cE -- "$2" "$1"
}

test_async_methods_by_name() {
    async_trace
    local f="$DIR/async_frames.txt" m
    for m in BurnAsync BurnPooledAsync BurnIteratorAsync; do
        assert_ge 1 "$(lines "$f" ";ClrProbe\.Sample\.AsyncTargets\.$m \[async\](;| )")" "stacks with AsyncTargets.$m [async]"
    done
    assert_ge 1 "$(lines "$f" ';ClrProbe\.Sample\.AsyncScenario\.RunAsync \[async\](;| )')" "stacks with RunAsync [async]"
    # (5 ms a round each: reported, not required)
    for m in 'AsyncTargets\.BurnGenericAsync<System\.__Canon> \[async\]' '<RunAsync>b__0 \[async\]' \
        'g__LocalAsync\|1 \[async\]'; do
        echo "stacks with $m: $(lines "$f" "$m")"
    done
    # no builder's Start, no state machine of an async method, no kick-off method before its [async] frame
    assert_eq 0 "$(lines "$f" 'AsyncMethodBuilderCore\.Start<|MethodBuilder(<[^;]*>)?\.Start<')" "stacks with a builder's Start"
    assert_eq 0 "$(lines "$f" 'ExecutionContextCallback')" "stacks with a box's ExecutionContextCallback"
    # (but for a sample in the runtime during a method's OSR transition: the
    # stack engine's copy of the stack's top, 4 KiB, may not reach the OSR
    # frame, and the kernel's chain then shows the method twice, its caller
    # hidden: docs/sampling.md, "The stack engine"; at most 2% of the samples)
    local left all
    left=$(grep -E '\+<(BurnAsync|BurnPooledAsync|RunAsync)>d__[0-9]+\.MoveNext' "$f" | awk '{n += $NF} END {print n + 0}')
    all=$(collapsed_total "$f")
    echo "samples with an async method's MoveNext left: $left of $all"
    assert_ge "$left" $(((all + 49) / 50)) "samples with an async method's MoveNext left (at most 2%)"
    assert_eq 0 "$(lines "$f" ';ClrProbe\.Sample\.AsyncTargets\.BurnAsync;ClrProbe\.Sample\.AsyncTargets\.BurnAsync \[async\]')" \
        "kick-off method left above its async method"
    # a plain iterator is no async method: its MoveNext stays.  Only a sample
    # in its prolog (before it pushes its frame pointer) loses its caller,
    # RunAsync's MoveNext (docs/sampling.md, what the signal engine cannot
    # see), so that it follows ExecutionContext.RunInternal directly as a
    # resumed state machine would: as the leaf, in at most 10% of its samples
    local it=';ClrProbe\.Sample\.AsyncTargets\+<BurnIterator>d__[0-9]+\.MoveNext' total prolog
    assert_ge 1 "$(lines "$f" "$it")" "the plain iterator's MoveNext"
    assert_eq 0 "$(grep -E 'BurnIterator \[async\]' "$f" | grep -cvE "BurnIterator \[async\]$it [0-9]+\$")" \
        "the plain iterator shown as async above another frame"
    total=$(grep -E "$it" "$f" | awk '{n += $NF} END {print n + 0}')
    prolog=$(grep -E "BurnIterator \[async\]$it [0-9]+\$" "$f" | awk '{n += $NF} END {print n + 0}')
    echo "the iterator's samples: $total, $prolog of them as a resumed state machine (in its prolog)"
    assert_ge "$prolog" $(((total + 9) / 10)) "at most 10% of the iterator's samples as a resumed state machine"

    # BurnAsync burns 60 of the 105 ms of a round (57%): the samples whose
    # innermost async frame it is (its continuation runs RunAsync on, which is
    # not BurnAsync's time)
    local share n
    n=$(collapsed_total "$f")
    share=$(awk '{c = $NF; t += c; k = split($0, fr, ";"); last = ""
                  for (i = 1; i <= k; i++) if (fr[i] ~ / \[async\]( [0-9]+)?$/) last = fr[i]
                  if (last ~ /^ClrProbe\.Sample\.AsyncTargets\.BurnAsync \[async\]/) m += c}
                 END {if (t) printf "%.1f", 100 * m / t; else print 0}' "$f")
    assert_share "$share" 57 "$n" 0.1 "BurnAsync [async] as the innermost async frame"
}

test_async_raw_frames_and_jsonl() {
    async_trace
    local f="$DIR/raw.txt"
    assert_eq "$(collapsed_total "$DIR/async_frames.txt")" "$(collapsed_total "$f")" "samples with and without --raw-frames"
    assert_ge 1 "$(lines "$f" 'System\.Runtime\.CompilerServices\.AsyncMethodBuilderCore\.Start<ClrProbe\.Sample\.AsyncTargets\+<BurnAsync>d__[0-9]+>;')" \
        "raw: the builder's Start"
    assert_ge 1 "$(lines "$f" ';ClrProbe\.Sample\.AsyncTargets\+<BurnAsync>d__[0-9]+\.MoveNext(;| )')" "raw: the state machine's MoveNext"
    assert_eq 0 "$(lines "$f" ' \[async\]')" "raw: [async] frames"
    # jsonl is the event log: frames as recorded
    "$CLRPROBE" report "$TRACE" --format jsonl >trace.jsonl 2>err
    assert_eq 0 "$?" "exit code of jsonl"
    assert_ge 1 "$(grep -c '"kind":"sample".*AsyncTargets+\\u003cBurnAsync\\u003ed__[0-9]*\.MoveNext\|"kind":"sample".*AsyncTargets+<BurnAsync>d__[0-9]*\.MoveNext' trace.jsonl)" \
        "jsonl samples with the raw MoveNext"
    assert_eq 0 "$(grep -c '\[async\]' trace.jsonl)" "jsonl lines with [async]"
    # every profile format has the names
    "$CLRPROBE" report "$TRACE" >text.txt 2>err
    assert_contains text.txt "ClrProbe.Sample.AsyncTargets.BurnAsync [async]" "text report"
    "$CLRPROBE" report "$TRACE" --format speedscope -o s.json 2>err
    assert_contains s.json '"ClrProbe.Sample.AsyncTargets.BurnAsync [async]"' "speedscope frames"
    "$CLRPROBE" report "$TRACE" --format html -o a.html 2>err
    assert_contains a.html '"ClrProbe.Sample.AsyncTargets.BurnAsync [async]"' "html data"
    "$CLRPROBE" report "$TRACE" --format speedscope --raw-frames -o raw.json 2>err
    assert_not_contains raw.json '[async]' "speedscope with --raw-frames"
}

# An await chain of known shape (`Sample awaitchain`): HandleAsync awaits
# LoadCustomerAsync, which awaits FetchOrdersAsync, which awaits
# ComputeTotalsAsync; each burns CPU after its await, 2:1:1:1 from the
# innermost.  ComputeTotalsAsync's continuation is posted (after a yield);
# each caller's is run inline by the completion of what it awaited, so its
# stack has the completed method under it.  The profile shows each method
# at the base of its own work, never a caller above the method it awaited:
# the chain's work splits 40/20/20/20 under the four, the workers' shares
# within the sampling tolerance.
test_async_await_chain_reads_caller_over_callee() {
    "$SAMPLE" awaitchain 2 >plain.out 2>&1
    "$CLRPROBE" run -o chain.clrp --collect cpu -- "$SAMPLE" awaitchain 2 >prof.out 2>prof.err
    assert_eq 0 "$?" "exit code: $(cat prof.err)"
    cmp -s plain.out prof.out || fail "output changed under the profiler"
    "$CLRPROBE" report chain.clrp --format collapsed >chain.txt 2>/dev/null
    grep 'AwaitChain.Burn[A-Z]' chain.txt >work.txt
    local n m
    n=$(collapsed_total work.txt)
    for m in "ComputeTotalsAsync [async];ClrProbe.Sample.AwaitChain.BurnTotals 40" \
             "FetchOrdersAsync [async];ClrProbe.Sample.AwaitChain.BurnOrders 20" \
             "LoadCustomerAsync [async];ClrProbe.Sample.AwaitChain.BurnCustomer 20" \
             "HandleAsync [async];ClrProbe.Sample.AwaitChain.BurnRequest 20"; do
        assert_share "$(collapsed_share "${m% *}" work.txt)" "${m##* }" "$n" "$SHARES_BIAS" "${m% *}"
    done
    # no method of the chain above another it awaited (callee under caller is the only order)
    assert_eq 0 "$(grep -c 'ComputeTotalsAsync \[async\];.*\(FetchOrders\|LoadCustomer\|HandleAsync\)' chain.txt)" \
        "a caller above ComputeTotalsAsync"
    assert_eq 0 "$(grep -c 'FetchOrdersAsync \[async\];.*\(LoadCustomer\|HandleAsync\)' chain.txt)" \
        "a caller above FetchOrdersAsync"
    assert_eq 0 "$(grep -c 'LoadCustomerAsync \[async\];.*HandleAsync' chain.txt)" "a caller above LoadCustomerAsync"
    # as recorded, the inline continuations are on the completed method's stack
    "$CLRPROBE" report chain.clrp --format collapsed --raw-frames >raw.txt 2>/dev/null
    assert_ge 1 "$(grep -c '<ComputeTotalsAsync>d__[0-9]*\.MoveNext;.*<HandleAsync>d__[0-9]*\.MoveNext;.*BurnRequest' raw.txt)" \
        "--raw-frames keeps the stacks as recorded"
}
