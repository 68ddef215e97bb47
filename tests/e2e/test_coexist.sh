# test_coexist.sh - clrprobe beside another main profiler, on the real
# runtime: a stand-in APM agent (tests/apm/standin_agent.c, a minimal main
# profiler in C loaded at launch that logs each callback it gets, with the
# time, to $APM_STANDIN_LOG) keeps the main role, and our agent loads beside
# it as a notification profiler, by `clrprobe attach`, `clrprobe heap` and
# `clrprobe run --notification`.  The other profiler must go on getting its
# callbacks, our library must leave after each detach, the target's output
# and exit code must be those of a run without clrprobe.  (The stand-in's
# helpers are in lib.sh: test_alloc.sh uses them too.)

test_attach_beside_an_apm_agent_ten_times() {
    "$SAMPLE" churn until "$PWD/never" >plain.out 2>&1 &
    local plain=$!
    at_exit "kill $plain 2>/dev/null"
    touch never
    wait "$plain"
    local plain_rc=$?
    rm -f never
    start_with_standin churn.out "$SAMPLE" churn until "$PWD/stop"
    local tpid=$TPID
    wait_for_text churn.out 30 "churn started" || fail "the sample did not start: $(cat churn.out.err)"
    grep -q "$STANDIN" /proc/$tpid/maps || fail "the stand-in agent is not loaded"
    assert_eq 1 "$(standin_events initialize)" "the stand-in initialized, as the main profiler"
    assert_eq libstandin_agent.so "$("$CLRPROBE" ps | awk -v p="$tpid" '$1 == p {print $4}')" \
        "clrprobe ps names the main profiler"
    local i before after
    for i in $(seq 10); do
        before=$(standin_events exception)
        # (churn until: a thread spins all along, about 30 samples a window)
        "$CLRPROBE" attach "$tpid" -o a$i.clrp --duration 0.3 >a$i.out 2>a$i.err
        assert_eq 0 "$?" "attach $i beside the stand-in: exit status ($(tail -1 a$i.err))"
        assert_contains a$i.err "process $tpid's main profiler is $STANDIN, its startup profiler (CORECLR_PROFILER_PATH): attaching beside it as a notification profiler" \
            "attach $i names the other profiler"
        assert_eq 0 "$(wait_unmapped "$tpid")" "libclrprobe.so mappings left after detach $i"
        grep -q "$STANDIN" /proc/$tpid/maps || fail "the stand-in agent is gone after attach $i"
        after=$(standin_events exception)
        ((after > before)) || fail "the stand-in got no exception callback during attach $i ($before, then $after)"
        "$CLRPROBE" report a$i.clrp --format jsonl >a$i.jsonl 2>/dev/null || fail "report $i"
        assert_eq true "$(jq -r 'select(.kind=="trace") | .complete' a$i.jsonl)" "trace $i complete"
        assert_eq true "$(jq -r 'select(.kind=="trace") | .notification' a$i.jsonl)" "trace $i: the notification role"
        assert_eq "$STANDIN" "$(jq -r 'select(.kind=="trace") | .main_profiler' a$i.jsonl)" "trace $i names the main profiler"
        assert_eq 1 "$(jcount a$i.jsonl 'select(.kind=="attach")')" "trace $i: catch-up"
        # (the plugins, collectible copies of Sample.dll, compile their own)
        assert_ge 1 "$(jcount a$i.jsonl 'select(.kind=="jit" and .catchup and .function=="ClrProbe.Sample.JitTargets.ComputeFibonacci")')" \
            "trace $i: ComputeFibonacci (compiled before the start) caught up"
        assert_ge 1 "$(jcount a$i.jsonl 'select(.kind=="sample" and any(.frames[]; startswith("ClrProbe.Sample.ChurnTargets.Spin")))')" \
            "trace $i: CPU samples of the spinning thread"
        assert_ge 1 "$(jcount a$i.jsonl 'select(.kind=="exception_thrown" and .type=="ClrProbe.Sample.SampleException")')" \
            "trace $i: exceptions"
    done
    # every report says the role: text, jsonl (above), and the titles of the others
    "$CLRPROBE" report a1.clrp >a1.txt 2>/dev/null
    assert_contains a1.txt "mode       attached, as a notification profiler beside the process's main profiler, $STANDIN" \
        "the text report's mode"
    "$CLRPROBE" report a1.clrp --format speedscope -o a1.speedscope.json 2>/dev/null
    assert_contains "$(jq -r .name a1.speedscope.json)" "a1.clrp (notification profiler beside $STANDIN)" "speedscope's name"
    "$CLRPROBE" report a1.clrp --format chrome -o a1.chrome.json 2>/dev/null
    assert_contains "$(jq -r '.traceEvents[] | select(.name=="process_name") | .args.name' a1.chrome.json)" \
        "(notification profiler beside $STANDIN)" "the timeline's process name"
    "$CLRPROBE" report a1.clrp --format html -o a1.html 2>/dev/null
    assert_contains a1.html "\"title\":\"a1.clrp (notification profiler beside $STANDIN)\"" "the html page's title"
    # after the last detach, the stand-in's callbacks still come: the target
    # runs 5 more rounds (threads, exceptions, a plugin loaded, a GC) once told
    local t_last kind
    t_last=$(date +%s%N)
    touch stop
    wait "$tpid"
    assert_eq "$plain_rc" "$?" "the target's exit code"
    cmp -s plain.out churn.out || fail "the target's output changed: $(diff plain.out churn.out | head -3)"
    for kind in thread exception module gc; do
        assert_ge 1 "$(standin_events $kind "$t_last")" "the stand-in's $kind callbacks after the last detach"
    done
    assert_ge 15 "$(standin_events exception "$t_last")" "the stand-in's exception callbacks after the last detach (3 a round)"
    assert_eq 1 "$(standin_events shutdown)" "the stand-in's Shutdown"
}

test_attach_with_trace_beside_an_apm_agent_is_refused() {
    start_with_standin spin.out "$SAMPLE" spin 20
    local tpid=$TPID
    wait_for_text spin.out 30 "spin started" || fail "the sample did not start"
    "$CLRPROBE" attach "$tpid" -o t.clrp --trace 'ClrProbe.*' --duration 0.1 >t.out 2>t.err
    assert_eq 1 "$?" "exit status"
    assert_contains t.err "cannot attach with --trace: process $tpid's main profiler is $STANDIN, its startup profiler (CORECLR_PROFILER_PATH), and --trace needs the main profiler's role" \
        "the refusal names the other profiler"
    assert_contains t.err "no attach was attempted" "nothing tried"
    assert_eq 0 "$(grep -c libclrprobe.so /proc/$tpid/maps)" "libclrprobe.so mapped in the process"
    [[ -e t.clrp ]] && fail "a trace file was left"
    return 0
}

# Heap snapshots beside the stand-in: a notification profiler may not
# monitor GCs, so the runtime's heap enumeration (ICorProfilerInfo15),
# roots approximate: the known counts of `Sample heap`.
test_heap_beside_an_apm_agent() {
    "$SAMPLE" heap 6 >plain.out 2>plain.err
    local plain_rc=$?
    start_with_standin heap.out "$SAMPLE" heap 6
    local tpid=$TPID
    wait_for_text heap.out 30 "heap built" || fail "the sample did not build its heap"
    "$CLRPROBE" heap "$tpid" -o h.clrp >h.out 2>h.err
    assert_eq 0 "$?" "clrprobe heap exit code: $(tail -1 h.err)"
    assert_contains h.err "attaching beside it as a notification profiler" "the role said"
    assert_contains h.err "roots approximate: the process has another main profiler" "why the roots are approximate"
    assert_eq 0 "$(wait_unmapped "$tpid")" "libclrprobe.so mappings left after the snapshot"
    wait "$tpid"
    assert_eq "$plain_rc" "$?" "the target's exit code"
    cmp -s plain.out heap.out || fail "the target's output changed"
    "$CLRPROBE" report h.clrp --format jsonl >h.jsonl || fail "report"
    assert_eq 1 "$(jcount h.jsonl 'select(.kind=="heap_snapshot" and .complete and .method=="enumerate" and .roots_approximate)')" \
        "one snapshot, by enumeration"
    assert_eq 1000 "$(jq -r 'select(.kind=="heap_type" and .type=="ClrProbe.Sample.HeapLeaf") | .count' h.jsonl)" \
        "HeapLeaf counted"
    assert_eq 500 "$(jq -r 'select(.kind=="heap_type" and .type=="ClrProbe.Sample.HeapTwig") | .count' h.jsonl)" \
        "HeapTwig counted"
    assert_eq 1 "$(standin_events shutdown)" "the stand-in's Shutdown"
}

# At launch: the stand-in named by CORECLR_ENABLE_PROFILING/CORECLR_PROFILER*
# stays the main profiler; `clrprobe run --notification` lists the agent in
# CORECLR_NOTIFICATION_PROFILERS.  Both get every exception the program
# throws (churn: 3 a round).
test_run_notification_beside_an_apm_agent() {
    "$SAMPLE" churn 20 >plain.out 2>&1
    local plain_rc=$?
    with_standin "$CLRPROBE" run --notification --rate 1000 -o run.clrp -- "$SAMPLE" churn 20 >run.out 2>run.err
    assert_eq "$plain_rc" "$?" "the program's exit code through clrprobe run"
    cmp -s plain.out run.out || fail "the program's output changed: $(diff plain.out run.out | head -3)"
    assert_contains run.err "the environment names a startup profiler, $STANDIN (CORECLR_PROFILER_PATH), which stays the process's main profiler" \
        "the run says the other profiler stays the main one"
    assert_eq 1 "$(standin_events initialize)" "the stand-in initialized, as the main profiler"
    assert_eq 60 "$(standin_events exception)" "the stand-in's exception callbacks"
    "$CLRPROBE" report run.clrp --format jsonl >run.jsonl || fail "report"
    assert_eq true "$(jq -r 'select(.kind=="trace") | .complete' run.jsonl)" "trace complete"
    assert_eq true "$(jq -r 'select(.kind=="trace") | .notification' run.jsonl)" "the notification role"
    assert_eq "$STANDIN" "$(jq -r 'select(.kind=="runtime_start") | .main_profiler' run.jsonl)" "the main profiler named"
    assert_eq 60 "$(jcount run.jsonl 'select(.kind=="exception_thrown" and .type=="ClrProbe.Sample.SampleException")')" \
        "our exception records"
    assert_ge 1 "$(jcount run.jsonl 'select(.kind=="sample")')" "CPU samples"
    # the GC timeline from the basic GC events: every GC the stand-in was told of (a GC.Collect every 5 rounds)
    assert_ge 4 "$(jcount run.jsonl 'select(.kind=="gc_start")')" "our gc_start records"
    assert_eq "$(standin_events gc)" "$(jcount run.jsonl 'select(.kind=="gc_start")')" "GCs: ours and the stand-in's"
    assert_ge 40 "$(jcount run.jsonl 'select(.kind=="thread_name" and (.name|startswith("clrprobe-churn-")))')" \
        "the program's threads (2 a round)"
    "$CLRPROBE" report run.clrp >run.txt 2>/dev/null
    assert_contains run.txt "mode       launched, as a notification profiler beside the process's main profiler, $STANDIN" \
        "the text report's mode"

    # without --notification, the same (the environment's startup profiler is kept)
    rm -f apm.log
    with_standin "$CLRPROBE" run -o auto.clrp -- "$SAMPLE" churn 2 >auto.out 2>auto.err
    assert_eq 0 "$?" "run beside the stand-in without --notification"
    assert_eq 1 "$(standin_events initialize)" "the stand-in kept the main role"
    "$CLRPROBE" report auto.clrp --format jsonl >auto.jsonl || fail "report"
    assert_eq true "$(jq -r 'select(.kind=="trace") | .notification' auto.jsonl)" "the notification role, chosen"

    # --trace needs the main role: refused before the program starts
    with_standin "$CLRPROBE" run --trace 'ClrProbe.*' -o tr.clrp -- "$SAMPLE" echo hello >tr.out 2>tr.err
    assert_eq 2 "$?" "run --trace beside the stand-in"
    assert_contains tr.err "run: --trace needs the main profiler's role (enter/leave hooks), and the environment names another startup profiler, $STANDIN" \
        "the refusal names the other profiler"
    [[ -s tr.out ]] && fail "the program ran: $(cat tr.out)"
    [[ -e tr.clrp ]] && fail "a trace file was left"

    # the user's own list of notification profilers is kept: the stand-in listed there (its entry without
    # the trailing ';' that runtimes before dotnet/runtime#130584 need: added) loads too, as ours does
    rm -f apm.log
    env CORECLR_ENABLE_NOTIFICATION_PROFILERS=1 CORECLR_NOTIFICATION_PROFILERS="$STANDIN=$STANDIN_CLSID" \
        APM_STANDIN_LOG="$PWD/apm.log" "$CLRPROBE" run --notification -o list.clrp -- "$SAMPLE" churn 20 >list.out 2>list.err
    assert_eq "$plain_rc" "$?" "run --notification beside a listed profiler"
    cmp -s plain.out list.out || fail "the program's output changed: $(diff plain.out list.out | head -3)"
    assert_eq 1 "$(standin_events initialize)" "the listed stand-in loaded"
    assert_eq 60 "$(standin_events exception)" "the listed stand-in's exception callbacks"
    "$CLRPROBE" report list.clrp --format jsonl >list.jsonl || fail "report"
    assert_eq true "$(jq -r 'select(.kind=="trace") | .notification' list.jsonl)" "our notification role"
    assert_eq 60 "$(jcount list.jsonl 'select(.kind=="exception_thrown" and .type=="ClrProbe.Sample.SampleException")')" \
        "our exception records beside the listed stand-in"

    # --notification with no main profiler: the role, and nothing named
    "$CLRPROBE" run --notification -o alone.clrp -- "$SAMPLE" churn 2 >alone.out 2>alone.err
    assert_eq 0 "$?" "run --notification alone"
    "$CLRPROBE" report alone.clrp --format jsonl >alone.jsonl || fail "report"
    assert_eq true "$(jq -r 'select(.kind=="trace") | .notification' alone.jsonl)" "the notification role, alone"
    assert_eq null "$(jq -r 'select(.kind=="trace") | .main_profiler' alone.jsonl)" "no main profiler named"
    assert_ge 1 "$(jcount alone.jsonl 'select(.kind=="note" and (.text|startswith("loaded as a notification profiler (no main profiler known)")))')" \
        "the note says none is known"
}
