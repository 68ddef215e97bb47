# test_sampling.sh - CPU sampling with the suspend engine (--sampler suspend;
# test_signal.sh has the signal engine's) against the real runtime: known shares in
# the CPU view, the sleeping thread only in the wall view, the same after
# attach, and the sampler's own overhead recorded; the managed callers of
# native code (`Sample sha`) and dynamic methods (`Sample expr`) in the
# profile, with the program's output unchanged.

test_cpu_shares_at_launch() {
    "$SAMPLE" shares 3 >plain.out
    "$CLRPROBE" run --sampler suspend -o shares.clrp -- "$SAMPLE" shares 3 >prof.out 2>err
    assert_eq 0 "$?" "exit code"
    cmp -s plain.out prof.out || fail "output changed under sampling"
    check_shares shares.clrp "launch"
    "$CLRPROBE" report shares.clrp --format jsonl >s.jsonl
    # Counts that depend on timing get generous bounds: 3 s at 100 Hz is 300
    # ticks on schedule, at least half of them even when the machine is busy;
    # every tick samples the scenario's three threads and the main thread
    # (all but the first few, before they start), so twice the ticks at least.
    local ticks
    ticks=$(jcount s.jsonl 'select(.kind=="sampler_tick")')
    assert_ge 150 "$ticks" "sampler ticks in 3 s at 100 Hz"
    assert_ge $((2 * ticks)) "$(jcount s.jsonl 'select(.kind=="sample")')" "samples recorded ($ticks ticks)"
    assert_ge $((ticks / 2)) "$(jcount s.jsonl 'select(.kind=="sampler_tick" and .suspend_ns > 0 and .sampler_cpu_ns > 0)')" \
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
    at_exit "kill $TPID 2>/dev/null"
    wait_for_text shares.out 30 "shares started" || fail "sample did not start"
    "$CLRPROBE" attach "$TPID" --sampler suspend -o att.clrp --collect cpu,threads --duration 3 >a.out 2>a.err
    assert_eq 0 "$?" "attach exit code"
    wait "$TPID"
    assert_eq 0 "$?" "target exit code"
    check_shares att.clrp "attach"
    # the process's CPU from the end of the catch-up to the detach holds all that the samples measured
    "$CLRPROBE" report att.clrp --format jsonl >att.jsonl
    assert_eq 2 "$(jcount att.jsonl 'select(.kind=="process_cpu")')" "process_cpu records after attach"
    assert_eq true "$(jq -s '([.[] | select(.kind=="process_cpu") | .cpu_ns] | last - first) as $p |
        [.[] | select(.kind=="sample") | .cpu_ns] | add as $s | $s > 0 and $p >= $s' att.jsonl)" \
        "the process's CPU over the attach is at least the samples' CPU"
}

test_rate_is_honoured_and_checked() {
    "$CLRPROBE" run --sampler suspend -o r.clrp --collect cpu --rate 20 -- "$SAMPLE" shares 2 >/dev/null 2>&1
    "$CLRPROBE" report r.clrp --format jsonl >r.jsonl
    # The ticks are due on a fixed schedule (a late one does not move the
    # next), so over the recording they come at 20 a second, a little less
    # if some came so late that the schedule restarted: between half and 1.1
    # times the rate (the default 100 Hz would be far outside), and at least
    # half of the 40 due in the scenario's 2 s.
    local ticks rate
    ticks=$(jcount r.jsonl 'select(.kind=="sampler_tick")')
    assert_ge 20 "$ticks" "ticks at 20 Hz for ~2 s"
    rate=$(jq -r 'select(.kind=="sampler_tick") | .t' r.jsonl |
        awk 'NR == 1 {f = $1} {l = $1} END {if (NR > 1 && l > f) printf "%.1f", (NR - 1) / ((l - f) / 1e9); else print 0}')
    echo "ticks: $ticks at $rate per second"
    awk -v r="$rate" 'BEGIN {exit !(r >= 10 && r <= 22)}' || fail "--rate 20 gave $rate ticks per second ($ticks ticks)"
    # the rate the reports state is the tick records' own: their number over
    # the window from the first to the last plus one period
    local stated computed exact
    "$CLRPROBE" report r.clrp >r.txt 2>r.err
    stated=$(sed -n 's/.*rate: \([0-9.]*\) ticks\/s achieved of 20.0 asked (every 50.0 ms).*/\1/p' r.txt)
    exact=$(jq -r 'select(.kind=="sampler_tick") | "\(.t) \(.period_ns)"' r.jsonl |
        awk 'NR == 1 {f = $1} {l = $1; p = $2} END {printf "%.9f", NR / ((l - f + p) / 1e9)}')
    computed=$(awk -v r="$exact" 'BEGIN {printf "%.1f", r}')
    echo "stated rate $stated, from the ticks $computed ($exact)"
    assert_eq "$computed" "$stated" "the achieved rate in the text report"
    # (the warning is judged on the rate itself, not on its rounding: 17.97 is below 90% of 20 and is
    # printed 18.0; under load with the sanitizers the rate came that close)
    if awk -v r="$exact" 'BEGIN {exit !(r < 18)}'; then
        assert_contains r.txt "warning: below 90% of the rate asked" "the warning below 90%"
        assert_contains r.err "warning: r.clrp: sampled at $stated ticks/s" "the warning on stderr"
    else
        assert_not_contains r.txt "warning: below 90%" "a warning at ${stated}/s of 20"
    fi
    "$CLRPROBE" report r.clrp --format html -o r.html 2>/dev/null
    # (the page's data has three decimals, the text one: 20.049 and 20.0 are the same rate, 20.05 read
    # back and rounded again is not always 20.0)
    local html_rate
    html_rate=$(html_first_view r.html | grep -o '"rate_hz":[0-9.]*' | cut -d: -f2)
    awk -v h="$html_rate" -v s="$stated" 'BEGIN {d = h - s; exit !(h != "" && d >= -0.05 && d <= 0.05)}' ||
        fail "the achieved rate in the html page's data: $html_rate, the text's $stated"
    "$CLRPROBE" report r.clrp --format speedscope -o r.json 2>/dev/null
    assert_contains "$(jq -r .name r.json)" "; $stated ticks/s of 20.0 asked" "the achieved rate in speedscope's name"
    for bad in 0 1001 fast; do
        "$CLRPROBE" run --sampler suspend --rate "$bad" -- "$SAMPLE" exit 0 >o 2>e
        assert_eq 2 "$?" "exit code for --rate $bad"
        assert_contains e "out of range (1..1000 samples per second)" "message for --rate $bad"
    done
    "$CLRPROBE" attach 1 --rate 5000 >o 2>e
    assert_eq 2 "$?" "attach --rate 5000"
}

# Thread-pool threads started before an attach are known by their kernel
# name only, all ".NET TP Worker": every format labels each with its OS
# thread id, the same label everywhere, and --thread matches them by the name
# (all of them), the label or the tid (one).
test_thread_labels_after_attach() {
    "$SAMPLE" pool 6 >pool.out 2>&1 &
    TPID=$!
    at_exit "kill $TPID 2>/dev/null"
    wait_for_text pool.out 30 "pool started" || fail "sample did not start"
    "$CLRPROBE" attach "$TPID" --sampler suspend -o pool.clrp --collect cpu,threads --duration 2 >a.out 2>a.err
    assert_eq 0 "$?" "attach exit code"
    wait "$TPID"
    assert_eq 0 "$?" "target exit code"
    "$CLRPROBE" report pool.clrp --format collapsed --by-thread >threads.txt 2>/dev/null
    assert_eq 0 "$?" "collapsed --by-thread"
    local -a labels
    mapfile -t labels < <(grep 'PoolTargets.Work' threads.txt | cut -d';' -f1 | sort -u)
    echo "pool threads: ${labels[*]}"
    assert_eq 4 "${#labels[@]}" "distinct labels of the 4 busy pool threads"
    assert_eq 0 "$(printf '%s\n' "${labels[@]}" | grep -cv '^\.NET TP Worker ([0-9]*)$')" "labels not '.NET TP Worker (TID)'"
    local expect
    expect=$(printf '%s\n' "${labels[@]}")
    # the same labels in the other formats
    "$CLRPROBE" report pool.clrp --format speedscope -o pool.json 2>/dev/null
    assert_eq "$expect" "$(jq -r '.shared.frames as $f | .profiles[] | select(any(.samples[]; any(.[]; $f[.].name
        | endswith("PoolTargets.Work")))) | .name' pool.json | sort)" "speedscope's profiles"
    "$CLRPROBE" report pool.clrp --format html -o pool.html 2>/dev/null
    assert_eq "$expect" "$(html_first_view pool.html | grep -o '"name":"\.NET TP Worker ([0-9]*)"' | cut -d'"' -f4 | sort)" \
        "the html page's threads"
    "$CLRPROBE" report pool.clrp >pool.txt 2>/dev/null
    assert_eq "$expect" "$(sed -n 's/^  Thread \(\.NET TP Worker ([0-9]*)\): .*/\1/p' pool.txt | sort)" "the text report's threads"
    # --thread: the name matches all of them, a label or a tid one
    assert_eq "$expect" "$("$CLRPROBE" report pool.clrp --format collapsed --by-thread --thread ".NET TP Worker" |
        cut -d';' -f1 | sort -u)" "--thread '.NET TP Worker'"
    assert_eq "${labels[1]}" "$("$CLRPROBE" report pool.clrp --format collapsed --by-thread --thread "${labels[1]}" |
        cut -d';' -f1 | sort -u)" "--thread '${labels[1]}'"
    local tid=${labels[2]##*(}
    tid=${tid%)}
    assert_eq "${labels[2]}" "$("$CLRPROBE" report pool.clrp --format collapsed --by-thread --thread "$tid" |
        cut -d';' -f1 | sort -u)" "--thread $tid"
}

# The CPU total the reports state, from the threads' own CPU clocks, against
# the kernel's count for the whole process (GNU time's user + system of the
# profiled run: the program and the clrprobe command, whose own share is a
# few milliseconds).  `burn 2` keeps two threads busy for ~1.5 s of CPU
# each.  The report sees a part of the process's CPU: not the CPU of threads
# before their first sample (the runtime's start-up, the first
# milliseconds of each thread), not native-only threads (the JIT's background
# compiler, the GC's), not the sampler's own (its own line).  So it may be
# below the kernel's count, by at most 15% (the issue's bound), and above it
# only by rounding: the clocks are the same kernel accounting, and time(1)
# prints hundredths.
test_cpu_total_matches_the_kernel() {
    command -v /usr/bin/time >/dev/null || skip "GNU time is not installed (Debian package 'time')"
    /usr/bin/time -f '%U %S' -o plain.time "$SAMPLE" burn 2 2400000 >/dev/null
    /usr/bin/time -f '%U %S' -o prof.time "$CLRPROBE" run --sampler suspend -o burn.clrp -- "$SAMPLE" burn 2 2400000 >/dev/null 2>&1
    assert_eq 0 "$?" "exit code"
    local plain kernel cpu dur
    plain=$(awk '{printf "%.2f", $1 + $2}' plain.time)
    kernel=$(awk '{printf "%.2f", $1 + $2}' prof.time)
    "$CLRPROBE" report burn.clrp >burn.txt 2>/dev/null
    read -r cpu dur < <(grep -o '[0-9.]* s of CPU time in [0-9.]* s' burn.txt | awk '{print $1, $7}')
    echo "CPU: report $cpu s in $dur s; kernel $kernel s profiled, $plain s unprofiled"
    [[ -n $cpu ]] || { fail "no 'N.NN s of CPU time' line in the text report"; return; }
    awk -v c="$cpu" -v k="$kernel" 'BEGIN {exit !(c >= 0.85 * k && c <= k + 0.02)}' ||
        fail "the report's CPU time $cpu s is not within 85%..100% of the kernel's $kernel s"
    # the other formats state the same figure
    "$CLRPROBE" report burn.clrp --format html -o burn.html 2>/dev/null
    assert_eq "$cpu" "$(html_first_view burn.html | grep -o '"cpu_ns":[0-9]*,"cpu_unshown' | awk -F'[:,]' '{printf "%.2f", $2 / 1e9}')" \
        "the html page's CPU time"
    "$CLRPROBE" report burn.clrp --format speedscope -o burn.json 2>/dev/null
    assert_eq "$cpu" "$(jq '[.profiles[].endValue] | add / 1e9 * 100 | round / 100' burn.json | awk '{printf "%.2f", $1}')" \
        "speedscope's CPU time"
    assert_contains "$(jq -r .name burn.json)" ": $cpu s of CPU time in sampled threads" "speedscope's stated CPU time"
    assert_contains "$(jq -r .name burn.json)" "; in $dur s" "speedscope's stated window"
}

# The process's CPU: the two process_cpu records (CLOCK_PROCESS_CPUTIME_ID
# when the sampler starts and when it stops) against the kernel's count
# that the test reads in /proc/PID/stat just before the target exits
# (`burn ... wait` waits for a line on stdin).  The same accounting over a
# window a little narrower at the start (the runtime's start before
# Initialize) and wider at the end (the exit, a few ms), so within 15%
# (/proc counts in clock ticks).  Every format states that difference, and
# for `burn 2` (two busy threads: nearly all of the process's CPU) the
# samples hold at least 85% of it: the rest is the runtime's start-up and JIT
# threads, the sampler's own CPU and each thread's CPU before its first
# sample, a few %.  (The CPU view's part and the part in samples of threads
# that were "mostly waiting" together: on a busy machine a busy thread that
# got less than a quarter of a CPU since its previous sample is counted
# there; beside two busy processes 84% + 9%, the sampler 7%.)
test_process_cpu_matches_proc() {
    local proc rec text share waiting
    burn_until_exit pc.clrp suspend || return
    proc=$PROC_CPU
    "$CLRPROBE" report pc.clrp --format jsonl >pc.jsonl
    assert_eq 2 "$(jcount pc.jsonl 'select(.kind=="process_cpu" and .cpu_ns > 0 and .threads > 0)')" "process_cpu records"
    rec=$(jq -s '[.[] | select(.kind=="process_cpu") | .cpu_ns] | (last - first) / 1e9' pc.jsonl)
    echo "process CPU: records $rec s, /proc $proc s"
    awk -v r="$rec" -v k="$proc" 'BEGIN {exit !(k > 0 && r >= 0.85 * k && r <= 1.15 * k)}' ||
        fail "the process_cpu records' $rec s is not within 15% of /proc's $proc s"
    "$CLRPROBE" report pc.clrp >pc.txt
    text=$(sed -n 's/^  the process used \([0-9.]*\) s of CPU time.*/\1/p' pc.txt)
    assert_eq "$(awk -v r="$rec" 'BEGIN {printf "%.2f", r}')" "$text" "the text report's process CPU"
    share=$(sed -n 's/^  the process used .*: \([0-9]*\)% in this view.*/\1/p' pc.txt)
    waiting=$(sed -n 's/^  the process used .*% in this view, \([0-9]*\)% in samples of threads that were mostly waiting.*/\1/p' pc.txt)
    echo "the CPU view holds $share% of it, the samples of threads mostly waiting $waiting%"
    assert_ge 85 "$((share + ${waiting:-0}))" "the share of the process's CPU in the samples ($share% + $waiting%)"
    "$CLRPROBE" report pc.clrp --format html -o pc.html
    assert_eq "$(jq -s '[.[] | select(.kind=="process_cpu") | .cpu_ns] | last - first' pc.jsonl)" \
        "$(html_first_view pc.html | grep -o '"process_cpu_ns":[0-9]*' | cut -d: -f2)" "the html page's process CPU"
    "$CLRPROBE" report pc.clrp --format speedscope -o pc.json
    assert_contains "$(jq -r .name pc.json)" "$share% of the $text s the process used" "speedscope's name"
}

test_profile_formats_need_samples() {
    "$CLRPROBE" run --sampler suspend -o nosamples.clrp --collect jit -- "$SAMPLE" jit >/dev/null 2>&1
    "$CLRPROBE" report nosamples.clrp --format collapsed >o 2>e
    assert_eq 1 "$?" "exit code"
    assert_contains e "has no CPU samples" "message"
    assert_contains e "--collect cpu" "message says what to collect"
    "$CLRPROBE" report nosamples.clrp --format collapsed -o out.txt >o 2>e
    [[ ! -e out.txt ]] || fail "an empty output file was left"
    "$CLRPROBE" report nosamples.clrp >o 2>e
    assert_eq 0 "$?" "the text report works without samples"
}

# record_scenario NAME SECONDS: runs `Sample NAME SECONDS` without and with the
# agent (200 Hz), checks that stdout and the exit code are the same, and
# writes NAME.clrp and its CPU profile by thread, NAME-threads.txt.
record_scenario() {
    "$SAMPLE" "$1" "$2" >"$1.plain" 2>/dev/null
    echo $? >"$1.plain.rc"
    "$CLRPROBE" run --sampler suspend -o "$1.clrp" --rate 200 -- "$SAMPLE" "$1" "$2" >"$1.prof" 2>"$1.err"
    assert_eq "$(cat "$1.plain.rc")" "$?" "$1: exit code with and without the agent"
    assert_eq 0 "$(cat "$1.plain.rc")" "$1: exit code"
    cmp -s "$1.plain" "$1.prof" || { fail "$1: stdout differs with the agent"; diff "$1.plain" "$1.prof" | head; }
    "$CLRPROBE" report "$1.clrp" --format collapsed --by-thread >"$1-threads.txt"
    assert_eq 0 "$?" "$1: collapsed report"
}

# `Sample sha`: thread clrprobe-hasher spends 3/4 of its time in
# HashWork.HashLoop, nearly all of it inside libcrypto (SHA-256 through a
# P/Invoke), and 1/4 in managed HashWork.Mix.  A thread in native code is
# walked from its last managed frames, so the managed callers of the native
# call keep the time: HashLoop's share of the thread's CPU samples is the
# 75% of the design.  Bias: samples outside the two functions (the loop
# between calls, the thread's start) are rare, as in `Sample shares`
# (SHARES_BIAS).
test_native_callers_kept_sha() {
    local n
    record_scenario sha 3
    collapsed_thread clrprobe-hasher sha-threads.txt >hasher.txt
    n=$(collapsed_total hasher.txt)
    assert_share "$(collapsed_share HashWork.HashLoop hasher.txt)" 75 "$n" "$SHARES_BIAS" \
        "sha: HashLoop (calling into libcrypto) share of the hasher thread"
    assert_share "$(collapsed_share HashWork.Mix hasher.txt)" 25 "$n" "$SHARES_BIAS" \
        "sha: Mix share of the hasher thread"
    # the hashing code below HashLoop shows where the walk sees it
    assert_ge 1 "$(grep -c 'HashWork.HashLoop;System.Security.Cryptography.SHA256.HashData' hasher.txt)" \
        "sha: SHA256.HashData under HashLoop"
    assert_eq 0 "$(grep 'HashWork.Mix;' hasher.txt | grep -cv 'HashWork.Mix;System.Diagnostics.Stopwatch.GetTimestamp')" \
        "sha: frames under Mix but the clock it reads"
}

# `Sample expr`: a compiled expression (a dynamic method, lambda_method<N>)
# called by ExprWork.CallLoop does arithmetic and calls ExprWork.Step.  The
# runtime's walk passes over dynamic methods; the sampler finds them between
# two reported frames.  Every call of Step comes from the lambda, so the
# samples in Step show the lambda, named and marked, right under CallLoop:
# 100% of them, less a bias b = 10%: a frame-pointer chain that does not
# show the lambda (Step stopped in its prolog or epilog, where its frame is
# not set up).  Samples in Step's OSR code (its loop moved to optimized code
# on the stack) are on top of its tier-0 frame and need the OSR case of the
# chain: without it 5-8% of the Step samples in 6 recordings, 57% of 14 in
# one under ASan (a CI failure); with it none of 234 in 10 recordings.  Time
# in the lambda's own loop, where the thread stops in the
# lambda itself, cannot be seen (docs/sampling.md) and goes to CallLoop.
test_dynamic_method_named_expr() {
    local n
    record_scenario expr 3
    collapsed_thread clrprobe-expr expr-threads.txt >ex.txt
    assert_ge 1 "$(grep -cE 'ExprWork\.CallLoop;lambda_method[0-9]+ \[dynamic\];ClrProbe\.Sample\.ExprWork\.Step' ex.txt)" \
        "expr: lambda_method between CallLoop and Step"
    assert_eq 0 "$(grep 'lambda_method' ex.txt | grep -cvE 'ExprWork\.CallLoop;lambda_method[0-9]+ \[dynamic\](;| )')" \
        "expr: lambda_method anywhere but right under CallLoop"
    assert_eq 0 "$(grep -c '?(0x' ex.txt)" "expr: frames without a name"
    grep 'ExprWork.Step' ex.txt >step.txt
    n=$(collapsed_total step.txt)
    assert_share "$(collapsed_share 'lambda_method' step.txt)" 100 "$n" 0.10 \
        "expr: share of Step's samples that show the lambda calling it"
    "$CLRPROBE" report expr.clrp --format jsonl >expr.jsonl
    assert_ge 1 "$(jcount expr.jsonl 'select(.kind=="function_name" and (.name | test("^lambda_method[0-9]+ \\[dynamic\\]$")))')" \
        "expr: function_name record of the lambda"
}
