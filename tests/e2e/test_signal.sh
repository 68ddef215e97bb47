# test_signal.sh - the signal sampler (--sampler signal) against the real
# runtime, each check against a known truth and beside the suspend engine
# where they differ: known CPU shares, a loop with no safe point charged to
# itself, time in libcrypto named under its managed callers, a dynamic
# method named, a blocked thread out of the CPU view (and in the wall view,
# waiting), the CPU view's total against the kernel's count for the
# process, programs whose output and exit code do not change at 1000 Hz
# (I/O, sleeps, Process.Start, sockets with timeouts, 200 threads, a storm of
# NullReferenceExceptions, thousands of GC suspensions), and ten attach and
# detach cycles that leave no timer, no handler and no library behind.

# sig_shares TRACE JQ_FILTER NEEDLE: the percentage of the trace's signal CPU
# samples (records, each one draw of the sampler) that JQ_FILTER keeps and
# whose stack contains NEEDLE; and sig_count TRACE JQ_FILTER: how many it keeps.
sig_jsonl() {
    [[ -f $1.jsonl ]] || "$CLRPROBE" report "$1" --format jsonl >"$1.jsonl" 2>/dev/null
}
sig_count() {
    sig_jsonl "$1"
    jq -c "select(.kind==\"sample\" and .clock==\"cpu\") | select($2)" "$1.jsonl" | wc -l | tr -d ' '
}
# sig_tid TRACE NAME: the OS thread id of the managed thread named NAME
# (its thread_name record, then the thread_os record of that ThreadID).
sig_tid() {
    sig_jsonl "$1"
    jq -rs --arg n "$2" '(map(select(.kind=="thread_name" and .name==$n)) | first | .thread) as $t |
        map(select(.kind=="thread_os" and .thread==$t)) | first | .os_tid' "$1.jsonl"
}
sig_share() {
    sig_jsonl "$1"
    jq -r "select(.kind==\"sample\" and .clock==\"cpu\") | select($2) | .frames | join(\";\")" "$1.jsonl" |
        awk -v n="$3" '{t++; if (index($0, n)) m++} END {if (t) printf "%.1f", 100 * m / t; else print "0"}'
}

# The shares of `Sample shares` at 1000 Hz for 8 s, with each engine: of
# all CPU samples and of each burning thread's.  The tolerance is the one of
# every share assertion (lib.sh: 5 standard deviations and the bias b =
# 3%); with the signal engine's ~4000 samples (the kernel's timer tick caps
# the signals at 250 a second per busy thread, each standing for its
# periods) it is about 5 points for the shares of all samples.  The
# suspend engine's figures come from its collapsed counts (its samples).
test_signal_shares_beside_the_suspend_engine() {
    local n
    "$CLRPROBE" run -o sig.clrp --sampler signal --rate 1000 --collect cpu,threads -- "$SAMPLE" shares 8 >sig.out 2>sig.err
    assert_eq 0 "$?" "exit code (signal)"
    "$CLRPROBE" run -o sus.clrp --sampler suspend --rate 1000 --collect cpu,threads -- "$SAMPLE" shares 8 >sus.out 2>sus.err
    assert_eq 0 "$?" "exit code (suspend)"
    n=$(sig_count sig.clrp 'true')
    for f in "SharesTargets.BurnOther 50" "SharesTargets.BurnThreeQuarters 37.5" "SharesTargets.BurnOneQuarter 12.5"; do
        set -- $f
        assert_share "$(sig_share sig.clrp 'true' "$1")" "$2" "$n" "$SHARES_BIAS" "signal: $1 share"
    done
    # each thread's own split, by its OS thread id
    local burner busy_tid
    burner=$(sig_tid sig.clrp clrprobe-burner)
    busy_tid=$(sig_tid sig.clrp clrprobe-busy)
    n=$(sig_count sig.clrp ".os_tid == $burner")
    assert_share "$(sig_share sig.clrp ".os_tid == $burner" BurnThreeQuarters)" 75 "$n" "$SHARES_BIAS" \
        "signal: BurnThreeQuarters share of the burner thread"
    assert_share "$(sig_share sig.clrp ".os_tid == $burner" BurnOneQuarter)" 25 "$n" "$SHARES_BIAS" \
        "signal: BurnOneQuarter share of the burner thread"
    n=$(sig_count sig.clrp ".os_tid == $busy_tid")
    assert_share "$(sig_share sig.clrp ".os_tid == $busy_tid" BurnOther)" 100 "$n" "$SHARES_BIAS" \
        "signal: BurnOther share of the busy thread"
    assert_eq 0 "$(sig_count sig.clrp ".os_tid == $busy_tid and any(.frames[]; test(\"Burn(Three|One)Quarter\"))")" \
        "signal: the burner's functions in the busy thread"
    # the suspend engine on the same program, for comparison (its own test
    # is test_sampling.sh's)
    "$CLRPROBE" report sus.clrp --format collapsed >sus.txt 2>/dev/null
    n=$(collapsed_total sus.txt)
    assert_share "$(collapsed_share SharesTargets.BurnOther sus.txt)" 50 "$n" "$SHARES_BIAS" "suspend: BurnOther share"
    assert_share "$(collapsed_share SharesTargets.BurnThreeQuarters sus.txt)" 37.5 "$n" "$SHARES_BIAS" \
        "suspend: BurnThreeQuarters share"
    # the report says which engine and how its rate is counted
    "$CLRPROBE" report sig.clrp >sig.txt 2>/dev/null
    assert_contains sig.txt "signal sampler: a sample after every period of a thread's CPU time" "text names the engine"
    assert_contains sig.txt "samples per CPU-second achieved of 1000.0 asked" "the rate per CPU-second"
    # answer first: where time goes on the first screen (40 lines), before the trace's inventory; the top of
    # the "by total" table is the program's, not the threads' starts and the runtime's dispatch loops
    head -40 sig.txt | grep -q "SharesTargets.BurnOther" || fail "the hot method is not on the first screen"
    [[ $(grep -n '^Where time goes' sig.txt | cut -d: -f1) -lt $(grep -n '^Events by kind' sig.txt | cut -d: -f1) ]] ||
        fail "the inventory comes before where time goes"
    local first_total
    first_total=$(sed -n '/^  Top functions by total time/,/^  [A-Z(]/p' sig.txt | sed -n '3p' | awk '{print $NF}')
    echo "the by-total table opens with: $first_total"
    [[ -n $first_total && ! $first_total =~ ^(libc|libcoreclr|libhost|dotnet|System\.Threading\.) && $first_total != *'['* ]] ||
        fail "the by-total table opens with a process root: $first_total"
    assert_contains sig.txt "under the program's own left out" "the left-out roots are said"
    # the runtime's frames by what they do; their addresses only with --raw-frames
    "$CLRPROBE" report sig.clrp --format collapsed >sig.col 2>/dev/null
    "$CLRPROBE" report sig.clrp --format collapsed --raw-frames >sig-raw.col 2>/dev/null
    assert_eq 0 "$(grep -c 'libcoreclr\.so\|libclrjit\.so' sig.col)" "runtime addresses in the default frames"
    assert_ge 1 "$(grep -c 'libcoreclr\.so' sig-raw.col)" "runtime addresses with --raw-frames"
    assert_contains sig.col "[runtime: thread start];System.Threading.Thread.StartCallback" "a thread's start"
    # the samples hold the sampled threads' CPU (the kernel's own per-thread
    # clocks) within 5%: each sample carries the CPU since the thread's
    # previous one, whatever the kernel's tick lets through (at 1000 Hz a
    # kernel with HZ=250 delivers 250 samples a second per busy thread)
    local rate held used
    rate=$(sed -n 's/.*rate: \([0-9.]*\) samples per CPU-second achieved.*/\1/p' sig.txt)
    read -r held used < <(sed -n 's/.*they hold \([0-9.]*\) s of the \([0-9.]*\) s the sampled threads used.*/\1 \2/p' sig.txt)
    echo "signal engine at 1000 Hz asked: $rate samples per CPU-second, holding $held s of the $used s used"
    awk -v h="$held" -v u="$used" 'BEGIN {exit !(u > 0 && h >= 0.95 * u && h <= 1.05 * u)}' ||
        fail "the samples hold $held s of the $used s the threads used (not within 5%)"
    awk -v r="$rate" 'BEGIN {exit !(r >= 200)}' || fail "only $rate samples per CPU-second (at least the kernel's tick rate, 250)"
}

# `Sample hotloop`: HotTargets.Spin is a loop of arithmetic with no call and
# no safe point, called by HotTargets.Caller, whose own work is a clock read
# per ~1 ms slice (well under 0.1% of the time).  The signal engine sees the
# thread where it is: Spin is the leaf of at least 97% of the hot thread's
# CPU samples (5 standard deviations of a share of 99.9% over its ~200
# samples is under 1 point; 2 points for samples in the clock read under
# Caller).  The suspend engine's figure is printed beside it: it stops
# threads at safe points, and charges some of Spin's time to Caller.
test_signal_hot_loop_charged_to_itself() {
    local n leaf
    for engine in signal suspend; do
        "$CLRPROBE" run -o hot-$engine.clrp --sampler $engine -- "$SAMPLE" hotloop 2 >hot.out 2>hot.err
        assert_eq 0 "$?" "exit code ($engine)"
        "$CLRPROBE" report hot-$engine.clrp --format collapsed --thread clrprobe-hot >hot-$engine.txt 2>/dev/null
        n=$(collapsed_total hot-$engine.txt)
        leaf=$(awk '{c = $NF; t += c; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); if (f[k] == "ClrProbe.Sample.HotTargets.Spin") m += c}
            END {if (t) printf "%.1f", 100 * m / t; else print 0}' hot-$engine.txt)
        echo "$engine: HotTargets.Spin is the leaf of $leaf% of $n counts of the hot thread"
        [[ $engine == signal ]] && { awk -v v="$leaf" 'BEGIN {exit !(v >= 97)}' ||
            fail "signal: Spin is the leaf of $leaf% of the hot thread's samples, not at least 97%"; }
    done
}

# `Sample sha`: HashWork.HashLoop spends 3/4 of the hasher thread's time
# hashing in libcrypto (through a P/Invoke) and Mix 1/4 in managed code.
# The signal engine shows the native frames under their managed callers:
# libcrypto's frames, named, below HashLoop; nearly all of HashLoop's
# samples have them (at least 80%: the rest is the loop itself, the clock
# read, the call's way in and out).
test_signal_native_frames_under_managed_callers() {
    local n tid
    "$SAMPLE" sha 3 >plain.out
    "$CLRPROBE" run -o sha.clrp --sampler signal -- "$SAMPLE" sha 3 >prof.out 2>prof.err
    assert_eq 0 "$?" "exit code"
    cmp -s plain.out prof.out || fail "output changed under the signal sampler"
    sig_jsonl sha.clrp
    tid=$(sig_tid sha.clrp clrprobe-hasher)
    n=$(sig_count sha.clrp ".os_tid == $tid")
    assert_share "$(sig_share sha.clrp ".os_tid == $tid" HashWork.HashLoop)" 75 "$n" "$SHARES_BIAS" \
        "HashLoop share of the hasher thread"
    local loop native
    loop=$(sig_count sha.clrp ".os_tid == $tid and any(.frames[]; . == \"ClrProbe.Sample.HashWork.HashLoop\")")
    native=$(sig_count sha.clrp ".os_tid == $tid and (.frames | index(\"ClrProbe.Sample.HashWork.HashLoop\")) as \$h |
        \$h != null and any(.frames[0:\$h][]; startswith(\"libcrypto.so.3\"))")
    echo "HashLoop samples: $loop, with libcrypto frames below HashLoop: $native"
    awk -v a="$native" -v b="$loop" 'BEGIN {exit !(b > 0 && a >= 0.8 * b)}' ||
        fail "only $native of HashLoop's $loop samples show libcrypto below it"
    assert_ge 1 "$(jq -r 'select(.kind=="function_name") | .name' sha.clrp.jsonl | grep -c '^libcrypto\.so\.3[!+]')" \
        "libcrypto's functions named"
    "$CLRPROBE" report sha.clrp --format collapsed --thread clrprobe-hasher >hasher.txt 2>/dev/null
    assert_ge 1 "$(grep -c 'HashWork\.HashLoop;.*libSystem\.Security\.Cryptography\.Native\.OpenSsl\.so!CryptoNative_EvpDigestOneShot;libcrypto\.so\.3' hasher.txt)" \
        "the shim's exported function between HashLoop and libcrypto"
}

# `Sample expr`: a compiled expression's dynamic method (lambda_method<N>),
# called by ExprWork.CallLoop, calls ExprWork.Step.  The signal engine names
# it (GetFunctionFromIP3 returns dynamic methods, GetDynamicFunctionInfo
# names them), right under CallLoop and above Step, and sees the time in the
# lambda's own loop, which the suspend engine's stack walk passes over.
test_signal_dynamic_method_named() {
    "$CLRPROBE" run -o expr.clrp --sampler signal -- "$SAMPLE" expr 3 >/dev/null 2>&1
    assert_eq 0 "$?" "exit code"
    "$CLRPROBE" report expr.clrp --format collapsed --thread clrprobe-expr >ex.txt 2>/dev/null
    assert_ge 1 "$(grep -cE 'ExprWork\.CallLoop;lambda_method[0-9]+ \[dynamic\];ClrProbe\.Sample\.ExprWork\.Step' ex.txt)" \
        "lambda_method between CallLoop and Step"
    assert_ge 1 "$(grep -cE 'ExprWork\.CallLoop;lambda_method[0-9]+ \[dynamic\] [0-9]+$' ex.txt)" \
        "time in the lambda itself"
    # Anywhere but right under CallLoop: never above another frame.  As the
    # leaf, a sample taken in the lambda's first instructions, before they
    # push its frame pointer, has its caller's frame pointer, so the walk
    # goes from there to CallLoop's caller (seen once in 161 samples in the
    # lambda under ASan): allowed for at most 5% of the lambda's samples.
    local elsewhere total leaf_elsewhere
    elsewhere=$(grep 'lambda_method' ex.txt | grep -vE 'ExprWork\.CallLoop;lambda_method[0-9]+ \[dynamic\](;| )')
    assert_eq 0 "$(grep -c ';lambda_method[0-9]* \[dynamic\];' <<<"$elsewhere")" \
        "lambda_method above another frame anywhere but right under CallLoop: $elsewhere"
    total=$(grep 'lambda_method' ex.txt | awk '{s += $NF} END {print s + 0}')
    leaf_elsewhere=$(grep -E 'lambda_method[0-9]+ \[dynamic\] [0-9]+$' <<<"$elsewhere" | awk '{s += $NF} END {print s + 0}')
    awk -v e="$leaf_elsewhere" -v t="$total" 'BEGIN {exit !(t > 0 && e <= 0.05 * t)}' ||
        fail "lambda_method as the leaf but not under CallLoop in $leaf_elsewhere of its $total samples: $elsewhere"
}

# `Sample lcgchurn 30`: thirty dynamic methods made, run and collected in
# turn, churn_even_K calling EvenWork and churn_odd_K OddWork; the runtime
# gives each the ID (and often the code) of the one collected before it.
# The names of dynamic methods are cached while the runtime tells their
# unloads, and a sample taken before an unload that is named after it
# says so rather than take the next method's name: no stack may have
# churn_even_K above OddWork or churn_odd_K above EvenWork (before the
# unloads were watched, 15-20 of some 70 such stacks did).
test_signal_collected_dynamic_methods_keep_their_names() {
    "$SAMPLE" lcgchurn 30 >plain.out 2>&1
    assert_eq 0 "$?" "exit code unprofiled"
    "$CLRPROBE" run -o lcg.clrp --sampler signal -- "$SAMPLE" lcgchurn 30 >prof.out 2>prof.err
    assert_eq 0 "$?" "exit code: $(cat prof.err)"
    cmp -s plain.out prof.out || { fail "the output changed"; diff plain.out prof.out | head; }
    "$CLRPROBE" report lcg.clrp --format collapsed --thread clrprobe-lcg >lcg.txt 2>/dev/null
    "$CLRPROBE" report lcg.clrp --format jsonl >lcg.jsonl
    local ids named wrong work
    # (the runtime reused an ID: else this test shows nothing)
    ids=$(jq -r 'select(.kind=="function_name" and (.name | test("^churn_"))) | .id' lcg.jsonl | sort | uniq -c |
        sort -rn | awk 'NR == 1 {print $1 + 0}')
    assert_ge 2 "${ids:-0}" "names written for one reused dynamic method's ID"
    wrong=$(grep -E 'churn_even_[0-9]+ \[dynamic\];ClrProbe\.Sample\.LcgChurnWork\.OddWork|churn_odd_[0-9]+ \[dynamic\];ClrProbe\.Sample\.LcgChurnWork\.EvenWork' lcg.txt)
    assert_eq "" "$wrong" "a dynamic method named by the one that took its ID"
    work=$(grep -E 'LcgChurnWork\.(Even|Odd)Work' lcg.txt | awk '{s += $NF} END {print s + 0}')
    named=$(grep -E 'churn_(even|odd)_[0-9]+ \[dynamic\];ClrProbe\.Sample\.LcgChurnWork\.(Even|Odd)Work' lcg.txt |
        awk '{s += $NF} END {print s + 0}')
    echo "samples in the work: $work, under a dynamic method's name: $named"
    # (some are named, not all as collected: how many depends on when the collector gets a CPU to drain
    # the rings before the round's method is collected: 54 of ~170 on a quiet machine, 13-28 beside two
    # busy processes)
    assert_ge 10 "$work" "samples in EvenWork and OddWork"
    assert_ge 1 "$named" "samples under a dynamic method's name (of $work)"
}

# The sleeping thread of `Sample shares` uses a few milliseconds of CPU (its
# start, then microseconds every 20 ms): in the CPU view it has about as many
# samples as its CPU time holds periods, a fraction of one and a few at most
# on a loaded machine (at most 2 + 2% of its wall samples; all of them if
# waiting counted as CPU), and with --collect wall it is there, waiting in a
# system call at least 90% of the time.
test_signal_blocked_thread_in_wall_view_only() {
    local tid cpu wall waiting
    "$CLRPROBE" run -o wall.clrp --sampler signal --collect cpu,wall,threads -- "$SAMPLE" shares 2 >/dev/null 2>&1
    assert_eq 0 "$?" "exit code"
    sig_jsonl wall.clrp
    tid=$(sig_tid wall.clrp clrprobe-sleeper)
    cpu=$(jcount wall.clrp.jsonl "select(.kind==\"sample\" and .clock==\"cpu\" and .os_tid==$tid)")
    wall=$(jcount wall.clrp.jsonl "select(.kind==\"sample\" and .clock==\"wall\" and .os_tid==$tid)")
    waiting=$(jcount wall.clrp.jsonl "select(.kind==\"sample\" and .clock==\"wall\" and .os_tid==$tid and .state==\"waiting\")")
    echo "sleeper: $cpu CPU samples, $wall wall samples ($waiting waiting)"
    awk -v c="$cpu" -v w="$wall" 'BEGIN {exit !(c <= 2 + 0.02 * w)}' ||
        fail "the sleeping thread has $cpu samples in the CPU view (of $wall in the wall view)"
    assert_ge 100 "$wall" "the sleeping thread's wall samples in 2 s at 100 Hz"
    awk -v w="$waiting" -v a="$wall" 'BEGIN {exit !(a > 0 && w >= 0.9 * a)}' ||
        fail "only $waiting of the sleeper's $wall wall samples are waiting"
    "$CLRPROBE" report wall.clrp --view wall --format collapsed --by-thread >wall.txt 2>/dev/null
    assert_ge 1 "$(grep -c '^clrprobe-sleeper ([0-9]*);.*SharesTargets\.Sleep;System\.Threading\.Thread\.Sleep;.*libc\.so\.6' wall.txt)" \
        "the sleeper in the wall view, down to libc"
    "$CLRPROBE" run -o nowall.clrp --sampler signal -- "$SAMPLE" shares 1 >/dev/null 2>&1
    "$CLRPROBE" report nowall.clrp --view wall --format collapsed >o 2>e
    assert_eq 1 "$?" "the wall view of a trace without wall samples"
    assert_contains e "--collect cpu,wall" "the message says how to record them"
}

# The collector's thread is named for the agent (as the flusher is), so that
# a user's `top -H` or `ps -L` tells it from the program's own threads: a
# name over the kernel's 15 bytes is refused and the thread keeps the
# program's.
test_signal_collector_thread_named() {
    "$CLRPROBE" run -o n.clrp --collect cpu -- "$SAMPLE" spin 20 >n.out 2>n.err &
    local runner=$! child
    wait_for_text n.out 30 "spin started" || { fail "the sample did not start: $(cat n.err)"; return; }
    child=$(pgrep -P "$runner" | head -1)
    assert_eq 1 "$(cat /proc/$child/task/*/comm 2>/dev/null | grep -c '^clrprobe-signal$')" "the collector's thread"
    assert_eq 1 "$(cat /proc/$child/task/*/comm 2>/dev/null | grep -c '^clrprobe-flush$')" "the flusher's thread"
    kill "$child"
    wait "$runner" 2>/dev/null
    return 0
}

# The CPU view's total against the kernel's count for the process, read in
# /proc/PID/stat just before the target exits: `burn 2` keeps two threads
# busy, and the signal engine samples every thread (the runtime's native
# ones too), so the view holds the process's CPU within 10% (less: each
# thread's CPU after its last sample, the agent's own threads).
test_signal_cpu_total_matches_proc() {
    local proc view
    burn_until_exit pc.clrp signal || return
    proc=$PROC_CPU
    "$CLRPROBE" report pc.clrp >pc.txt 2>/dev/null
    view=$(grep -o '[0-9.]* s of CPU time in [0-9.]* s' pc.txt | awk '{print $1}')
    echo "CPU view $view s; the process by /proc $proc s"
    awk -v v="$view" -v k="$proc" 'BEGIN {exit !(k > 0 && v >= 0.9 * k && v <= 1.1 * k)}' ||
        fail "the CPU view's $view s is not within 10% of the $proc s /proc counts"
}

# run_both NAME ARGS...: the sample plain and under the signal sampler at
# 1000 Hz with wall-clock samples too (signals to waiting threads: the
# EINTR risk): the same stdout and exit code.
run_both() {
    local name=$1 rc_plain rc_prof
    shift
    "$SAMPLE" "$@" >"$name.plain" 2>"$name.plain.err"
    rc_plain=$?
    "$CLRPROBE" run -o "$name.clrp" --sampler signal --rate 1000 --collect cpu,wall,threads,exceptions -- \
        "$SAMPLE" "$@" >"$name.prof" 2>"$name.prof.err"
    rc_prof=$?
    assert_eq "$rc_plain" "$rc_prof" "$name: exit code with and without the agent"
    assert_eq 0 "$rc_plain" "$name: exit code"
    cmp -s "$name.plain" "$name.prof" || { fail "$name: stdout differs under the signal sampler"; diff "$name.plain" "$name.prof" | head; }
    assert_ge 1 "$(jcount <("$CLRPROBE" report "$name.clrp" --format jsonl 2>/dev/null) 'select(.kind=="sample" and .clock=="cpu")')" \
        "$name: CPU samples recorded"
}

test_signal_output_unchanged_at_1000hz() {
    run_both io io 40                       # files, sleeps, Process.Start, sockets with receive timeouts
    run_both many many 200 2                # 200 threads
    run_both nre nre 2 4                    # NullReferenceExceptions: the runtime's SIGSEGV handler
    run_both gcstress gcstress 2            # thousands of GC suspensions
    # the NullReferenceException storm was sampled, not only survived
    assert_ge 50 "$(jcount <("$CLRPROBE" report nre.clrp --format jsonl 2>/dev/null) \
        'select(.kind=="sample" and .clock=="cpu" and any(.frames[]; test("NreTargets")))')" "nre: samples in the throwing code"
}

# Ten attaches and detaches to one process (threads throwing
# NullReferenceExceptions all along) with the signal sampler at 1000 Hz:
# after each detach, no timer left (/proc/PID/timers), SIGPROF not caught
# any more (SigCgt) nor left blocked on any thread (SigBlk: the runtime's
# SIGSEGV handler leaves it blocked until the agent's ExceptionThrown
# unblocks it), the agent's library unmapped; each trace has native frames
# (a thread found with SIGPROF blocked is sampled all the same); the process
# ends as it would have.
test_signal_attach_detach_ten_cycles() {
    local tpid i maps timers cgt blk
    "$SAMPLE" nre until stop 2 >target.out 2>target.err &
    tpid=$!
    at_exit "kill $tpid 2>/dev/null"
    for ((i = 1; i <= 10; i++)); do
        attach_when_ready "$tpid" -o "c$i.clrp" --sampler signal --rate 1000 --duration 0.4 >a.out 2>a.err
        assert_eq 0 "$?" "attach $i: exit code"
        maps=$(grep -c libclrprobe "/proc/$tpid/maps")
        timers=$(grep -c '^ID:' "/proc/$tpid/timers")
        cgt=$(awk '/^SigCgt:/ {print $2}' "/proc/$tpid/status")
        blk=0
        while read -r _ mask; do
            (( (0x$mask >> 26) & 1 )) && blk=$((blk + 1))
        done < <(cat /proc/"$tpid"/task/*/status 2>/dev/null | grep '^SigBlk:')
        echo "cycle $i: library mappings $maps, timers $timers, SigCgt $cgt, threads blocking SIGPROF $blk"
        assert_eq 0 "$maps" "attach $i: the agent's library unmapped after the detach"
        assert_eq 0 "$timers" "attach $i: timers left"
        assert_eq 0 "$(( (0x$cgt >> 26) & 1 ))" "attach $i: SIGPROF still caught"
        assert_eq 0 "$blk" "attach $i: threads left with SIGPROF blocked"
        assert_ge 1 "$(jcount <("$CLRPROBE" report "c$i.clrp" --format jsonl 2>/dev/null) \
            'select(.kind=="sample" and .clock=="cpu" and any(.frames[]; startswith("libcoreclr.so")))')" \
            "attach $i: samples with native frames"
    done
    touch stop
    wait "$tpid"
    assert_eq 0 "$?" "the target's exit code"
    assert_eq "nre done: 2 threads, 0 failures" "$(cat target.out)" "the target's output"
}

# --rate with the signal engine: the periods the CPU samples stand for, per
# second of the sampled threads' CPU (the kernel's count), match the rate
# asked: 50 within 10% (2 busy threads for 2 s: ~200 periods).  The one
# bias is downward: a thread's CPU after its last whole period is not
# counted, less than one period (20 ms) per sampled thread, some 8 threads
# of ~4 s of CPU: 4% at worst, more when the machine is loaded and the
# runtime's own threads use more CPU in bits shorter than a period (at 20
# Hz, 50 ms periods, that bias alone reached 10.5% in a loaded ASan run).
test_signal_rate_is_honoured() {
    local rate
    "$CLRPROBE" run -o r.clrp --sampler signal --collect cpu --rate 50 -- "$SAMPLE" shares 2 >/dev/null 2>&1
    assert_eq 0 "$?" "exit code"
    "$CLRPROBE" report r.clrp >r.txt 2>r.err
    rate=$(sed -n 's/.*rate: \([0-9.]*\) samples per CPU-second achieved of 50.0 asked (a CPU timer per thread; one every 20.0 ms.*/\1/p' r.txt)
    echo "rate at 50 asked: $rate"
    awk -v r="$rate" 'BEGIN {exit !(r >= 45 && r <= 55)}' || fail "--rate 50 gave '$rate' samples per CPU-second"
    assert_not_contains r.err "warning" "no warning"
}

# A signal trace in every profile format: native frame names ("lib!sym",
# "lib+0x...") survive each; pprof decodes with go tool pprof; speedscope's
# frames and html's data hold them.
test_signal_trace_in_every_format() {
    "$CLRPROBE" run -o fmt.clrp --sampler signal -- "$SAMPLE" sha 2 >/dev/null 2>&1
    assert_eq 0 "$?" "exit code"
    "$CLRPROBE" report fmt.clrp --format collapsed >fmt.txt 2>/dev/null
    assert_ge 1 "$(grep -c 'libcrypto\.so\.3' fmt.txt)" "collapsed: libcrypto frames"
    "$CLRPROBE" report fmt.clrp --format speedscope -o fmt.json 2>/dev/null
    assert_eq 0 "$?" "speedscope"
    assert_ge 1 "$(jq '[.shared.frames[].name | select(startswith("libcrypto.so.3"))] | length' fmt.json)" \
        "speedscope: libcrypto frames"
    assert_contains "$(jq -r .name fmt.json)" "samples per CPU-second of 100.0 asked" "speedscope: the rate per CPU-second"
    "$CLRPROBE" report fmt.clrp --format html -o fmt.html 2>/dev/null
    assert_eq 0 "$?" "html"
    assert_contains "$(html_first_view fmt.html)" '"engine":"signal"' "html: the engine in the data"
    assert_contains "$(html_first_view fmt.html)" 'libcrypto.so.3' "html: libcrypto frames"
    "$CLRPROBE" report fmt.clrp --format pprof -o fmt.pb.gz 2>/dev/null
    assert_eq 0 "$?" "pprof"
    if command -v go >/dev/null; then
        HOME=${HOME:-$WORK} go tool pprof -top fmt.pb.gz >top.txt 2>top.err
        assert_eq 0 "$?" "go tool pprof -top"
        assert_ge 1 "$(grep -c 'libcrypto\.so\.3' top.txt)" "go tool pprof: libcrypto frames"
    fi
    "$CLRPROBE" report fmt.clrp >fmt.out 2>/dev/null
    assert_contains fmt.out "signal handlers and the collector used" "text: the signal engine's overhead line"
}

# `Sample unloadburn 20`: each round burns ~50 ms of CPU in HotTargets.Spin of a
# collectible copy of the sample's assembly, then unloads it.  The agent
# has the collector name what was sampled before each unload goes on
# (ModuleUnloadStarted waits for a drain), so the samples taken in the
# collectible code just before its unload are named as its methods, not
# left as stubs or unknown code: without that wait, about 18% of the
# samples were (200 of 1103); here at most 3% may end in a bracketed name,
# and Spin holds at least 80% of the counts (92% measured: the rest is
# loading, the GCs that collect each copy, the runtime's threads).
test_signal_collectible_code_named_before_unload() {
    local spin bracket
    "$SAMPLE" unloadburn 20 >plain.out 2>/dev/null
    "$CLRPROBE" run -o ub.clrp --sampler signal --rate 1000 -- "$SAMPLE" unloadburn 20 >prof.out 2>prof.err
    assert_eq 0 "$?" "exit code"
    cmp -s plain.out prof.out || fail "output changed under the signal sampler"
    "$CLRPROBE" report ub.clrp --format collapsed >ub.txt 2>/dev/null
    read -r spin bracket < <(awk '{n = split($1, a, ";"); c = $NF; t += c; if (index($0, "HotTargets.Spin")) s += c;
        if (a[n] ~ /^\[(stub|unknown)/) u += c} END {if (t) printf "%.1f %.1f", 100 * s / t, 100 * u / t}' ub.txt)
    echo "HotTargets.Spin in $spin% of the counts, $bracket% end in a stub or unknown code"
    awk -v s="$spin" -v b="$bracket" 'BEGIN {exit !(s >= 80 && b <= 3)}' ||
        fail "Spin $spin% (at least 80) and unnamed leaves $bracket% (at most 3)"
}

# A process where another component already handles SIGPROF (here a
# library preloaded into it, as a profiler of another runtime or a Go
# library would be): the agent does not take the signal from it, says so
# in the trace and samples with the suspend engine; the other handler stays
# installed and the program runs as without the agent.
test_signal_sigprof_taken_falls_back() {
    command -v cc >/dev/null || skip "no C compiler"
    cat >sigprof.c <<'C'
#include <signal.h>
static void on_prof(int sig) { (void)sig; }
__attribute__((constructor)) static void take_sigprof(void)
{
    struct sigaction sa = { 0 };
    sa.sa_handler = on_prof;
    sigaction(SIGPROF, &sa, 0);
}
C
    cc -shared -fPIC -o libsigprof.so sigprof.c || { fail "cannot build the preloaded library"; return; }
    # (the program alone gets the library, not clrprobe; a sanitized build's
    # runtime must come first: tests/run.sh)
    local preload=${SANITIZER_PRELOAD:+$SANITIZER_PRELOAD:}$PWD/libsigprof.so
    LD_PRELOAD=$preload ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" "$SAMPLE_BIN" shares 1 >plain.out 2>/dev/null
    "$CLRPROBE" run -o fb.clrp -- env LD_PRELOAD="$preload" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
        "$SAMPLE_BIN" shares 1 >prof.out 2>prof.err
    assert_eq 0 "$?" "exit code"
    cmp -s plain.out prof.out || fail "output changed"
    "$CLRPROBE" report fb.clrp --format jsonl >fb.jsonl 2>/dev/null
    assert_ge 1 "$(jcount fb.jsonl 'select(.kind=="note" and (.text | test("SIGPROF is already handled by another component")))')" \
        "the note says why"
    assert_ge 1 "$(jcount fb.jsonl 'select(.kind=="sample" and .engine == null)')" "the suspend engine's samples"
    assert_eq 0 "$(jcount fb.jsonl 'select(.kind=="sample" and .engine == "signal")')" "no signal sample"
}

# The program takes SIGPROF for itself while an attached agent samples
# (`Sample sigprof`: .NET's PosixSignalRegistration from 1 s on, whose
# handler calls the one it replaced, ours): the agent stops sampling with a
# note, and at the detach keeps its library mapped, since the program's
# handler would call into it.  SIGPROF sent afterwards reaches the program,
# which ends normally (unloaded, the process died of SIGSEGV at the first
# one).
test_signal_sigprof_taken_during_attach() {
    local tpid
    "$SAMPLE" sigprof 6 >target.out 2>target.err &
    tpid=$!
    at_exit "kill $tpid 2>/dev/null"
    sleep 0.3
    "$CLRPROBE" attach "$tpid" -o sp.clrp --sampler signal --duration 2 >a.out 2>a.err
    assert_eq 0 "$?" "attach exit code"
    sleep 0.5
    assert_ge 1 "$(grep -c libclrprobe "/proc/$tpid/maps")" "the library kept mapped"
    for i in 1 2 3; do
        kill -PROF "$tpid"
        sleep 0.2
    done
    wait "$tpid"
    assert_eq 0 "$?" "the program's exit code"
    assert_contains target.out "sigprof done" "the program ran to its end"
    "$CLRPROBE" report sp.clrp --format jsonl >sp.jsonl 2>/dev/null
    assert_ge 1 "$(jcount sp.jsonl 'select(.kind=="note" and (.text | test("replaced the SIGPROF handler")))')" \
        "the note says sampling stopped"
}

# A SIGPROF that is not the sampler's (`Sample raise 27`: raise(3) at
# itself) gets what the program had before the agent took the signal: by
# default the process dies of it (exit status 155, 128 + 27), as without
# the agent; ignored (inherited from the shell), the program runs on.  The
# program says on stderr what disposition it raised under: the agent's
# handler ("handled") under the signal engine.
test_signal_sigprof_not_ours_keeps_the_program_semantics() {
    local rc plain_rc
    "$SAMPLE" raise 27 >plain.out 2>plain.err
    plain_rc=$?
    assert_eq 155 "$plain_rc" "without the agent: killed by SIGPROF"
    "$CLRPROBE" run -o d.clrp --sampler signal -- "$SAMPLE" raise 27 >prof.out 2>prof.err
    rc=$?
    assert_contains prof.err "signal 27 disposition: handled" "the agent's handler was in place"
    assert_eq "$plain_rc" "$rc" "with the agent: killed by SIGPROF"
    cmp -s plain.out prof.out || { fail "the output changed"; diff plain.out prof.out | head; }

    bash -c "trap '' PROF; exec \"\$0\" raise 27" "$SAMPLE" >plain-ign.out 2>plain-ign.err
    plain_rc=$?
    assert_eq 0 "$plain_rc" "ignored, without the agent: runs on"
    assert_contains plain-ign.out "still running after signal 27" "ignored, without the agent: the line after"
    "$CLRPROBE" run -o i.clrp --sampler signal -- bash -c "trap '' PROF; exec \"\$0\" raise 27" "$SAMPLE" \
        >prof-ign.out 2>prof-ign.err
    rc=$?
    assert_contains prof-ign.err "signal 27 disposition: handled" "ignored: the agent's handler was in place"
    assert_eq "$plain_rc" "$rc" "ignored, with the agent: runs on"
    cmp -s plain-ign.out prof-ign.out || { fail "the output changed (ignored)"; diff plain-ign.out prof-ign.out | head; }
}

# --sampler perf: the signal engine with a perf event on each thread's task
# clock.  Skipped where the kernel refuses perf events (the trace says so:
# its sampler_start names the timer, or a note says a thread's event was
# refused; the run then samples with CPU timers, test_signal_* above).
perf_refused() {
    "$CLRPROBE" report "$1" --format jsonl 2>/dev/null |
        jq -r 'select(.kind=="note" or .kind=="sampler_start") | .text // .clock' |
        grep -q "^timer$\|perf event on a thread's task clock was refused"
}

# The sampler_start record of trace $1 as "ENGINE CLOCK USER_ONLY WHY".
sampler_said() {
    "$CLRPROBE" report "$1" --format jsonl 2>/dev/null |
        jq -r 'select(.kind=="sampler_start") | "\(.engine) \(.clock // "-") \(.user_time_only // false) \(.why)"'
}

# The perf clock asked by name, where the process may open perf events
# (root here, or perf_event_paranoid 1 or less; the default is the per-CPU
# clock where the command may hold one: test_percpu.sh): the signal engine
# with a perf event on each thread's task clock, and every format that has
# room for it says so and why: the trace's sampler_start, the text, pprof's
# comments, html's totals, speedscope's name, chrome's otherData.  The
# program's output and exit code are those of a run without the agent.
test_sampler_perf_where_allowed() {
    local paranoid
    paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 9)
    [[ $(id -u) -eq 0 || $paranoid -le 1 ]] || skip "perf events are not fully allowed to this user"
    [[ $(awk '/^Seccomp:/ {print $2}' /proc/self/status) == 0 ]] || skip "a seccomp filter is on here"
    "$SAMPLE" shares 1 >plain.out 2>&1
    local plain_rc=$?
    "$CLRPROBE" run -o d.clrp --sampler perf --collect cpu -- "$SAMPLE" shares 1 >d.out 2>d.err
    assert_eq "$plain_rc" "$?" "exit code under the agent: $(cat d.err)"
    assert_eq "$(cat plain.out)" "$(cat d.out)" "the program's output under the agent"
    assert_eq "signal perf false asked (--sampler perf)" "$(sampler_said d.clrp)" "the trace"
    local line="sampler: signal engine, perf events on each thread's task clock; why: asked (--sampler perf)"
    assert_sampler_line_everywhere d.clrp "$line"
    assert_contains d.txt "achieved of 100.0 asked (perf events on each thread's task clock" "the text's rate"
}

# No event limits: PERF_EVENT_IOC_REFRESH (an event that disables itself
# after an overflow) hangs Linux 6.16 and 6.17 when the event is a clock.
# Under a filter that ends the process at the first such ioctl, the perf
# clock samples at the rate asked and the program runs as without the agent.
test_sampler_perf_uses_no_event_limits() {
    local paranoid
    paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 9)
    [[ $(id -u) -eq 0 || $paranoid -le 1 ]] || skip "perf events are not fully allowed to this user"
    [[ $(awk '/^Seccomp:/ {print $2}' /proc/self/status) == 0 ]] || skip "a seccomp filter is on here"
    "$SAMPLE" shares 1 >plain.out 2>&1
    local plain_rc=$?
    "$DENY_PERF" --refresh KILL "$CLRPROBE" run -o l.clrp --sampler perf --collect cpu -- \
        "$SAMPLE" shares 1 >l.out 2>l.err
    assert_eq "$plain_rc" "$?" "exit code under the agent, event limits refused: $(cat l.err)"
    assert_eq "$(cat plain.out)" "$(cat l.out)" "the program's output under the agent"
    assert_eq "signal perf false asked (--sampler perf)" "$(sampler_said l.clrp)" "the trace"
    local rate
    rate=$("$CLRPROBE" report l.clrp 2>/dev/null | awk '/^  rate: / {print $2}')
    assert_ge 90 "${rate%.*}" "samples per CPU-second of 100 asked"
}

# A seccomp filter that refuses perf_event_open (a container's default
# profile does; tests/tools/deny_perf): under it the command holds no
# per-CPU clock and the agent samples with CPU timers and says why, naming
# the filter; --sampler perf says it was asked and refused.  After an attach
# from outside the filter the command's per-CPU clock samples the process
# (the filter is the process's, not the command's), and --sampler perf
# gets the timers.  The program runs as it does under the same filter
# without the agent.
test_sampler_under_a_seccomp_filter_uses_timers() {
    "$DENY_PERF" EPERM "$SAMPLE" shares 1 >plain.out 2>&1
    local plain_rc=$? tpid
    "$DENY_PERF" EPERM "$CLRPROBE" run -o s.clrp --collect cpu -- "$SAMPLE" shares 1 >s.out 2>s.err
    assert_eq "$plain_rc" "$?" "exit code under the agent: $(cat s.err)"
    assert_eq "$(cat plain.out)" "$(cat s.out)" "the program's output under the agent"
    assert_contains "$(sampler_said s.clrp)" "signal timer false the default where perf events are refused: a seccomp filter refuses perf_event_open (Operation not permitted;" "the trace"
    "$CLRPROBE" report s.clrp >s.txt 2>&1
    assert_contains s.txt "sampler: signal engine, a CPU timer per thread; why: the default where perf events are refused: a seccomp filter" "the text"
    assert_ge 50 "$(jcount <("$CLRPROBE" report s.clrp --format jsonl 2>/dev/null) 'select(.kind=="sample" and .clock=="cpu")')" "CPU samples by the timers"
    "$DENY_PERF" EACCES "$CLRPROBE" run -o a.clrp --sampler perf --collect cpu -- "$SAMPLE" shares 1 >/dev/null 2>&1
    assert_contains "$(sampler_said a.clrp)" "signal timer false --sampler perf was asked, but perf events are refused: a seccomp filter refuses perf_event_open (Permission denied;" "asked for perf"
    "$DENY_PERF" EPERM "$SAMPLE" nre until stop 2 >target.out 2>target.err &
    tpid=$!
    at_exit "kill $tpid 2>/dev/null"
    attach_when_ready "$tpid" -o t.clrp --collect cpu --sampler perf --duration 0.5 >/dev/null 2>t.err
    assert_eq 0 "$?" "attach: $(cat t.err)"
    attach_when_ready "$tpid" -o c.clrp --collect cpu --duration 0.5 >/dev/null 2>c.err
    assert_eq 0 "$?" "attach: $(cat c.err)"
    touch stop
    wait "$tpid"
    assert_eq 0 "$?" "the target's exit code"
    assert_contains "$(sampler_said t.clrp)" "signal timer false --sampler perf was asked, but perf events are refused: a seccomp filter" "after attach"
    if [[ $(id -u) -eq 0 ]]; then
        assert_contains "$(sampler_said c.clrp)" "signal kstack false the default where the clrprobe command may hold it" \
            "after attach from outside the filter"
    fi
}

# As a user without CAP_PERFMON at perf_event_paranoid 2 (the kernel's
# default), perf events are allowed for user time only: the default takes
# them, says so (the kernel time is not sampled), and a program that burns
# CPU in user space is sampled at the rate asked, 100 per CPU-second within
# 10% (some 400 samples: the draws' spread is a few percent; the rest is
# the time in the kernel those events do not see).
test_sampler_as_another_user_user_time_only() {
    [[ $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null) == 2 ]] || skip "perf_event_paranoid is not 2 here"
    other_user_setup
    other_user_sample
    as_other_user env HOME="$OTHER_OUT" "$OTHER_CLRPROBE" run -o "$OTHER_OUT/u.clrp" --collect cpu -- \
        "$OTHER_SAMPLE" shares 2 >u.out 2>u.err
    assert_eq 0 "$?" "exit code: $(cat u.err)"
    cp "$OTHER_OUT/u.clrp" u.clrp || fail "no trace"
    assert_eq "signal perf true the default where perf events are allowed, for user time only (perf_event_paranoid 2, without CAP_PERFMON): the time threads spend in the kernel is not sampled; no per-CPU clock: loading BPF needs CAP_BPF and CAP_PERFMON (Operation not permitted): run clrprobe as root" \
        "$(sampler_said u.clrp)" "the trace"
    "$CLRPROBE" report u.clrp >u.txt 2>&1
    local rate
    rate=$(stated_rate u.txt)
    echo "as another user: $rate samples per CPU-second"
    awk -v r="$rate" 'BEGIN {exit !(r >= 90 && r <= 110)}' || fail "$rate samples per CPU-second of 100 asked"
}

# The rate a text report states, samples per CPU-second.
stated_rate() {
    sed -n 's/.*rate: \([0-9.]*\) samples per CPU-second achieved.*/\1/p' "$1"
}

# `Sample bursty`: 4 async flows wake from 1-3 ms delays and burn 0.2 + 0.1
# ms (Burn200 and Burn100, 2:1 by their work) between the kernel's ticks.
# A CPU timer is checked only at the tick and rarely fires for these
# threads; the perf clock samples them at the rate asked: 100 per
# CPU-second of the threads' CPU by their own clocks, within 4 standard
# deviations of the count: n samples of periods drawn uniformly in
# [P/2, 3P/2) vary by n/12 (squared), and each of the ~12 threads' start at
# a random point of its first period by at most 1/4 more: about 8% for the
# ~200 samples of 4 s.  Burn200's share of the two is 2/3.  The program's
# output and exit code are those of a run without the agent.
test_perf_clock_samples_bursty_threads_at_the_rate_asked() {
    "$SAMPLE" bursty 4 >plain.out 2>&1
    local plain_rc=$?
    "$CLRPROBE" run -o b.clrp --sampler perf --collect cpu -- "$SAMPLE" bursty 4 >b.out 2>b.err
    assert_eq "$plain_rc" "$?" "exit code under the agent: $(cat b.err)"
    assert_eq "$(cat plain.out)" "$(cat b.out)" "the program's output under the agent"
    perf_refused b.clrp && skip "the kernel refuses perf events here"
    "$CLRPROBE" report b.clrp --format jsonl >b.jsonl 2>/dev/null
    assert_ge 1 "$(jcount b.jsonl 'select(.kind=="sampler_tick" and .clock=="perf")')" "ticks that say the perf clock sampled"
    "$CLRPROBE" report b.clrp >b.txt 2>/dev/null
    assert_contains b.txt "achieved of 100.0 asked (perf events on each thread's task clock" "the text names the clock"
    local rate n share
    rate=$(stated_rate b.txt)
    n=$(jcount b.jsonl 'select(.kind=="sample" and .clock=="cpu")')
    echo "perf clock, bursty threads: $rate samples per CPU-second of 100 asked ($n samples)"
    awk -v r="$rate" -v n="$n" 'BEGIN {tol = n > 0 ? 400 * sqrt(n / 12 + 12 / 4) / n : 0; print "tolerance: " tol "%";
        exit !(n > 0 && r >= 100 - tol && r <= 100 + tol)}' || fail "$rate samples per CPU-second of 100 asked"
    assert_few_lost b.txt "$n" "samples lost"
    "$CLRPROBE" report b.clrp --format collapsed >b.col 2>/dev/null
    grep -E 'BurstyTargets\.Burn(200|100) [0-9]+$' b.col >burns.col
    n=$(collapsed_total burns.col)
    share=$(collapsed_share 'BurstyTargets.Burn200 ' burns.col)
    assert_share "$share" 66.7 "$n" "$SHARES_BIAS" "Burn200's share of the two"
}

# At 1000 Hz the perf clock is not held to the kernel's tick (a CPU timer
# gives 250 a second per busy thread on a kernel with HZ=250): at least 900
# per CPU-second on two busy threads, and the samples hold the threads' CPU
# within 5%.
test_perf_clock_at_1000_hz() {
    "$CLRPROBE" run -o k.clrp --sampler perf --rate 1000 --collect cpu -- "$SAMPLE" burn 2 400000 >k.out 2>k.err
    assert_eq 0 "$?" "exit code: $(cat k.err)"
    perf_refused k.clrp && skip "the kernel refuses perf events here"
    "$CLRPROBE" report k.clrp >k.txt 2>/dev/null
    local rate held used
    rate=$(stated_rate k.txt)
    read -r held used < <(sed -n 's/.*they hold \([0-9.]*\) s of the \([0-9.]*\) s the sampled threads used.*/\1 \2/p' k.txt)
    echo "perf clock at 1000 Hz: $rate samples per CPU-second, holding $held s of the $used s used"
    awk -v r="$rate" 'BEGIN {exit !(r >= 900 && r <= 1100)}' || fail "$rate samples per CPU-second of 1000 asked"
    awk -v h="$held" -v u="$used" 'BEGIN {exit !(u > 0 && h >= 0.95 * u && h <= 1.05 * u)}' ||
        fail "the samples hold $held s of the $used s the threads used (not within 5%)"
}

# Ten attaches with the perf clock to a process that throws
# NullReferenceExceptions (the runtime's SIGSEGV handler beside our SIGPROF):
# each exits 0 with samples; after each detach no perf event descriptor, no
# timer, no SIGPROF handler and no thread with SIGPROF blocked is left, and
# the library is unmapped; the target's output is what it prints alone
# (the first and the last trace read: the perf clock sampled).
test_perf_clock_attach_detach_cycles() {
    local tpid i perf_fds timers cgt
    "$SAMPLE" nre until stop 2 >target.out 2>target.err &
    tpid=$!
    at_exit "kill $tpid 2>/dev/null"
    for ((i = 1; i <= 10; i++)); do
        attach_when_ready "$tpid" -o "p$i.clrp" --sampler perf --rate 1000 --duration 0.4 >a.out 2>a.err
        assert_eq "" "$(grep -v '^clrprobe: \(attached\|detached\)' a.err)" "attach $i: what it said"
        assert_eq 1 "$(grep -c '^clrprobe: detached' a.err)" "attach $i: detached"
        if ((i == 1)) && perf_refused p1.clrp; then
            skip "the kernel refuses perf events here"
        fi
        perf_fds=$(find "/proc/$tpid/fd" -lname 'anon_inode:*perf_event*' 2>/dev/null | wc -l)
        timers=$(grep -c '^ID:' "/proc/$tpid/timers")
        cgt=$(awk '/^SigCgt:/ {print $2}' "/proc/$tpid/status")
        echo "cycle $i at $SECONDS s: perf descriptors $perf_fds, timers $timers, SigCgt $cgt"
        assert_eq 0 "$(grep -c libclrprobe "/proc/$tpid/maps")" "attach $i: the agent's library unmapped after the detach"
        assert_eq 0 "$perf_fds" "attach $i: perf event descriptors left"
        assert_eq 0 "$timers" "attach $i: timers left"
        assert_eq 0 "$(( (0x$cgt >> 26) & 1 ))" "attach $i: SIGPROF still caught"
        ((i == 1 || i == 10)) || continue     # (a report takes a second or two)
        "$CLRPROBE" report "p$i.clrp" --format jsonl >p.jsonl 2>/dev/null
        assert_ge 1 "$(jcount p.jsonl 'select(.kind=="sampler_tick" and .clock=="perf")')" "attach $i: the perf clock sampled"
        assert_ge 1 "$(jcount p.jsonl 'select(.kind=="sample" and .clock=="cpu")')" "attach $i: CPU samples"
    done
    touch stop
    wait "$tpid"
    assert_eq 0 "$?" "the target's exit code"
    assert_eq "nre done: 2 threads, 0 failures" "$(cat target.out)" "the target's output"
}

# A process near its descriptor limit: the perf clock leaves the program
# 256 descriptors below it, so with a limit of 260 no thread gets a perf
# event; each keeps its CPU timer, the trace says why, the report names the
# timer, and the program's output and exit code are those it has alone
# under the same limit.
test_perf_clock_near_the_descriptor_limit_falls_back() {
    (ulimit -n 260 && exec "$SAMPLE" burn 2 400000) >plain.out 2>&1
    local plain_rc=$?
    (ulimit -n 260 && exec "$CLRPROBE" run -o l.clrp --sampler perf --collect cpu -- "$SAMPLE" burn 2 400000) >l.out 2>l.err
    assert_eq "$plain_rc" "$?" "exit code under the agent: $(cat l.err)"
    assert_eq "$(cat plain.out)" "$(cat l.out)" "the program's output under the agent"
    "$CLRPROBE" report l.clrp --format jsonl >l.jsonl 2>/dev/null
    assert_eq 1 "$(jcount l.jsonl 'select(.kind=="note" and (.text|contains("near its descriptor limit (260)")))')" \
        "the note that says why"
    assert_eq 0 "$(jcount l.jsonl 'select(.kind=="sampler_tick" and .clock=="perf")')" "ticks that say perf"
    assert_ge 10 "$(jcount l.jsonl 'select(.kind=="sample" and .clock=="cpu")')" "CPU samples by the timers"
    "$CLRPROBE" report l.clrp >l.txt 2>/dev/null
    assert_contains l.txt "achieved of 100.0 asked (a CPU timer per thread" "the text names the timer"
}

# One count everywhere: the bursty program's CPU profile (threads whose
# samples hold unequal CPU, the runtime's threads sampled before the
# runtime names them) states one number of samples in every section and
# format: the text's "N samples of M" (M = N unfiltered), its per-thread
# lists, collapsed (by thread too), the html page's total, its threads and
# its "of", pprof's samples (go tool pprof); their CPU time is the text's
# in speedscope's weights and pprof's nanoseconds; the samples taken are
# jsonl's records.  One OS thread is one row.  With --thread, N is the
# thread's and M still the whole.
test_profile_counts_agree_in_every_format() {
    "$CLRPROBE" run -o c.clrp --collect cpu,threads -- "$SAMPLE" bursty 2 >/dev/null 2>c.err
    assert_eq 0 "$?" "exit code: $(cat c.err)"
    "$CLRPROBE" report c.clrp >c.txt 2>/dev/null
    local n m taken rows col colt html htmlt htmlm cpu
    read -r n m < <(sed -n 's/^Where time goes (CPU view: \([0-9]*\) samples of \([0-9]*\).*/\1 \2/p' c.txt)
    echo "text: $n samples of $m"
    assert_ge 20 "$n" "samples"
    assert_eq "$n" "$m" "N of M unfiltered"
    taken=$(jcount <("$CLRPROBE" report c.clrp --format jsonl 2>/dev/null) 'select(.kind=="sample" and .clock=="cpu")')
    if grep -q "samples of $m ($taken taken" c.txt; then :; else assert_eq "$n" "$taken" "samples taken (jsonl)"; fi
    rows=$(sed -n 's/^  Thread .*: \([0-9]*\) samples, .*/\1/p' c.txt | awk '{s += $1} END {print s + 0}')
    assert_eq "$n" "$rows" "the per-thread lists add up"
    assert_eq "" "$(sed -n 's/^  Thread .*(\([0-9]*\)): .*/\1/p' c.txt | sort | uniq -d)" "an OS thread listed twice"
    "$CLRPROBE" report c.clrp --format collapsed >c.col 2>/dev/null
    col=$(awk '{s += $NF} END {print s + 0}' c.col)
    assert_eq "$n" "$col" "collapsed"
    "$CLRPROBE" report c.clrp --format collapsed --by-thread >ct.col 2>/dev/null
    colt=$(awk '{s += $NF} END {print s + 0}' ct.col)
    assert_eq "$n" "$colt" "collapsed by thread"
    "$CLRPROBE" report c.clrp --format html -o c.html 2>/dev/null
    html_first_view c.html >c1.html
    html=$(grep -o '"samples":[0-9]*,"total_samples":[0-9]*' c1.html | head -1)
    assert_eq "\"samples\":$n,\"total_samples\":$m" "$html" "html's total and its of"
    htmlt=$(grep -o '"tid":[0-9]*,"samples":[0-9]*' c1.html | sed 's/.*://' | awk '{s += $1} END {print s + 0}')
    assert_eq "$n" "$htmlt" "html's threads add up"
    assert_eq "" "$(grep -o '"tid":[0-9]*,"samples"' c1.html | sort | uniq -d)" "html: an OS thread listed twice"
    cpu=$(sed -n 's/^  \([0-9.]*\) s of CPU time in .*/\1/p' c.txt)
    "$CLRPROBE" report c.clrp --format speedscope -o c.json 2>/dev/null
    assert_eq "$cpu" "$(jq '[.profiles[].weights | add] | add / 1e9 * 100 | round / 100 | tostring' -r c.json |
        awk '{printf "%.2f", $1}')" "speedscope's CPU time"
    if command -v go >/dev/null; then
        "$CLRPROBE" report c.clrp --format pprof -o c.pb.gz 2>/dev/null
        HOME=${HOME:-$WORK} go tool pprof -raw c.pb.gz >raw.txt 2>/dev/null
        assert_eq "$n" "$(awk '/^Samples:/ {on = 1; next} /^Locations/ {on = 0} on && $1 ~ /^[0-9]+$/ {s += $1} END {print s + 0}' raw.txt)" \
            "pprof's samples"
    fi
    local tid
    tid=$(sed -n 's/^  Thread .* (\([0-9]*\)): [1-9][0-9]* samples, .*/\1/p' c.txt | head -1)
    "$CLRPROBE" report c.clrp --thread "$tid" >f.txt 2>/dev/null
    read -r n m < <(sed -n 's/^Where time goes (CPU view: \([0-9]*\) samples of \([0-9]*\).*/\1 \2/p' f.txt)
    assert_eq "$(sed -n "s/^  Thread .*($tid): \([0-9]*\) samples, .*/\1/p" c.txt)" "$n" "--thread: the thread's count"
    assert_eq "$col" "$m" "--thread: of the whole"
}
