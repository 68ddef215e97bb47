# test_attach.sh - `clrprobe attach` against the real runtime: catch-up of
# what was there before the attach, live events during it, a clean detach,
# many cycles on one process, and the errors a user can run into.

# start_target NAME ARGS...: runs the sample in the background, waits for its
# "... started" line; sets TPID.  The process is killed when the test ends.
start_target() {
    local out=$1
    shift
    "$SAMPLE" "$@" >"$out" 2>"$out.err" &
    TPID=$!
    at_exit "kill $TPID 2>/dev/null"
    wait_for_text "$out" 30 "started" || fail "the sample did not start"
}

test_attach_catches_up_records_and_detaches() {
    "$SAMPLE" churn 140 >plain.out
    local plain_rc=$?
    start_target churn.out churn 140
    "$CLRPROBE" attach "$TPID" -o att.clrp --duration 1.2 >att.out 2>att.err
    assert_eq 0 "$?" "attach exit code"
    assert_contains att.err "attached to process $TPID in" "attach message"
    assert_contains att.err "detached from process $TPID in" "detach message"
    wait "$TPID"
    assert_eq "$plain_rc" "$?" "the target's exit code"
    cmp -s plain.out churn.out || { fail "the target's output changed"; diff plain.out churn.out | head; }

    "$CLRPROBE" report att.clrp --format jsonl >att.jsonl 2>rep.err
    assert_eq 0 "$?" "report exit code"
    assert_eq true "$(jq -r 'select(.kind=="trace") | .attached' att.jsonl)" "trace marked attached"
    assert_eq true "$(jq -r 'select(.kind=="trace") | .complete' att.jsonl)" "trace complete after detach"
    assert_eq 1 "$(jcount att.jsonl 'select(.kind=="attach")')" "catch-up record"
    assert_eq 1 "$(jcount att.jsonl 'select(.kind=="detach")')" "detach record"
    # compiled before the attach: found by the catch-up, with names
    local f
    local main_module
    main_module=$(jq -r 'select(.kind=="module_load" and (.collectible|not) and (.path|endswith("/Sample.dll"))) | .id' att.jsonl)
    for f in ClrProbe.Sample.JitTargets.ComputeFibonacci ClrProbe.Sample.JitTargets.SumSquares ClrProbe.Sample.Program.Main; do
        # (a live collectible copy of Sample.dll may hold its own compiled copy too)
        assert_eq 1 "$(jcount att.jsonl "select(.kind==\"jit\" and .catchup and .function==\"$f\" and .module_id==\"$main_module\")")" \
            "catch-up of $f in the main Sample.dll"
    done
    # no holes: modules loaded before the attach and still loaded are there, once
    for f in /System.Private.CoreLib.dll /Sample.dll /System.Runtime.dll; do
        assert_eq 1 "$(jcount att.jsonl "select(.kind==\"module_load\" and (.collectible|not) and (.path|endswith(\"$f\")))")" \
            "module $f reported once"
    done
    assert_eq 0 "$(jq -r 'select(.kind=="module_load") | .id' att.jsonl | sort | uniq -d | wc -l)" \
        "no module ID loaded twice"
    # live events during the window
    assert_ge 1 "$(jcount att.jsonl 'select(.kind=="module_load" and .collectible and (.catchup|not))')" "collectible loads seen live"
    assert_ge 1 "$(jcount att.jsonl 'select(.kind=="module_unload" and .collectible)')" "collectible unloads seen live"
    assert_ge 2 "$(jcount att.jsonl 'select(.kind=="thread_create" and (.name|startswith("clrprobe-churn-")))')" "named threads"
    assert_ge 3 "$(jcount att.jsonl 'select(.kind=="exception_thrown" and .type=="ClrProbe.Sample.SampleException")')" "exceptions"
    assert_ge 1 "$(jcount att.jsonl 'select(.kind=="jit" and (.catchup|not))')" "live JIT events"
    # modules unloaded during the window end unloaded
    assert_ge 1 "$(jcount att.jsonl 'select(.kind=="module_unload" and .collectible and (.path|endswith("/Sample.dll")))')" \
        "unloads carry the module's path"
    "$CLRPROBE" report att.clrp >att.txt
    assert_contains att.txt "mode       attached" "text report mode"
    assert_contains att.txt "[collectible]  [unloaded]" "text report shows unloaded collectible modules"
}

# The process is killed while the agent detaches (after the command's
# "detach", before "detached": the runtime confirms a detach 300 ms after the
# request at the earliest): the trace still takes the output's place, cut
# short, and the command says so and exits 1.  Should the kill come after
# the detach (a slow machine), the trace is complete and the exit 0: either
# way it reads back from the output.
test_attach_process_killed_during_the_detach() {
    start_target spin.out spin 60
    "$CLRPROBE" attach "$TPID" -o k.clrp --duration 0.5 >att.out 2>att.err &
    local att=$! rc
    at_exit "kill $att 2>/dev/null"
    wait_for_text att.err 20 "attached to process $TPID" || fail "no attach: $(cat att.err)"
    sleep 0.62                                  # (the detach is asked 0.5 s after that line)
    kill -9 "$TPID"
    wait "$att"
    rc=$?
    [[ -f k.clrp ]] || fail "the trace did not take the output's place: $(cat att.err)"
    "$CLRPROBE" report k.clrp --format jsonl >k.jsonl 2>rep.err || fail "the trace does not read back: $(cat rep.err)"
    assert_eq 1 "$(jcount k.jsonl 'select(.kind=="attach")')" "the trace holds the attach"
    if grep -q "detached from process $TPID" att.err; then
        echo "(the detach ended before the kill)"
        assert_eq 0 "$rc" "exit code after a detach"
        assert_eq true "$(jq -r 'select(.kind=="trace") | .complete' k.jsonl)" "complete trace"
    else
        assert_eq 1 "$rc" "exit code: $(cat att.err)"
        assert_contains att.err "process $TPID exited while the agent was detaching; trace written to " "the message"
        assert_contains att.err "/k.clrp, but it was not closed: it ends at the agent's last flush" "the message's trace"
        assert_eq false "$(jq -r 'select(.kind=="trace") | .complete' k.jsonl)" "the trace says it was cut short"
    fi
}

test_ten_attach_detach_cycles() {
    start_target spin.out spin 45
    local threads_after_first lib i cpu_ms samples total=0
    for i in 1 2 3 4 5 6 7 8 9 10; do
        "$CLRPROBE" attach -p "$TPID" -o cycle$i.clrp --duration 0.1 >c.out 2>c$i.err
        assert_eq 0 "$?" "attach/detach cycle $i"
        "$CLRPROBE" report cycle$i.clrp --format jsonl >cycle$i.jsonl 2>/dev/null
        assert_eq true "$(jq -r 'select(.kind=="trace") | .complete' cycle$i.jsonl)" "trace $i complete"
        assert_ge 1 "$(jcount cycle$i.jsonl 'select(.kind=="module_load" and .catchup)')" "trace $i caught up"
        # (samples when the target's threads had the CPU for 3 periods of
        # the 100 Hz asked: on a loaded machine a 0.1 s attach may not)
        cpu_ms=$(jq -s '[.[] | select(.kind=="sampler_tick") | .thread_cpu_ns] | add // 0 | . / 1e6 | floor' cycle$i.jsonl)
        samples=$(jcount cycle$i.jsonl 'select(.kind=="sample")')
        total=$((total + samples))
        if ((cpu_ms >= 30)); then
            assert_ge 1 "$samples" "trace $i has CPU samples ($cpu_ms ms of the target's CPU)"
        else
            echo "(cycle $i: $cpu_ms ms of the target's CPU, $samples samples)"
        fi
        [[ $i -eq 1 ]] && threads_after_first=$(ls /proc/$TPID/task | wc -l)
    done
    assert_ge 1 "$total" "CPU samples in the ten traces"
    # the runtime unloads the library just after the detach: wait for it (up to 10 s)
    assert_eq 0 "$(wait_unmapped "$TPID")" "the agent library is unloaded after the last detach"
    # (the runtime starts a thread of its own the first time it is sampled; ours are all gone)
    assert_eq 0 "$(cat /proc/$TPID/task/*/comm | grep -c '^clrprobe-')" "agent threads left in the target"
    # (no more than after the first cycle: a thread of the runtime's that the
    # first attach started may have ended since)
    local threads_now
    threads_now=$(ls /proc/$TPID/task | wc -l)
    echo "threads after the first cycle: $threads_after_first, after the tenth: $threads_now"
    ((threads_now <= threads_after_first)) || fail "the target's thread count grew: $threads_after_first -> $threads_now"
    kill -0 "$TPID" || fail "the target died"
}

# --trace '*' against a process that loads and unloads collectible
# assemblies all the time (`churn until FILE`: a collectible copy of
# Sample.dll each round, a GC every fifth): the ReJIT thread reads every
# module's metadata for the matching methods, long enough with '*' for
# modules of its snapshot to be unloaded under it; it must query none after
# its unload.  Ten attaches (the first loads the agent, the others reach it
# quiet), each tracing for a while: the process lives through all of them,
# and its output and exit code are those of a run without clrprobe.
test_attach_trace_all_beside_collectible_unloads() {
    local i rc
    touch stop0
    "$SAMPLE" churn until "$PWD/stop0" >plain.out 2>plain.err
    local plain_rc=$?
    start_target churn.out churn until "$PWD/stop"
    for i in 1 2 3 4 5 6 7 8 9 10; do
        "$CLRPROBE" attach "$TPID" -o t$i.clrp --trace '*' --duration 0.5 >t$i.out 2>t$i.err
        rc=$?
        kill -0 "$TPID" 2>/dev/null || { fail "the target died during attach $i: $(tail -2 t$i.err)"; break; }
        assert_eq 0 "$rc" "attach $i exit code: $(tail -2 t$i.err)"
        assert_contains t$i.err "clrprobe: tracing " "attach $i traced"
    done
    touch stop
    wait "$TPID"
    assert_eq "$plain_rc" "$?" "the target's exit code"
    cmp -s plain.out churn.out || { fail "the target's output changed"; diff plain.out churn.out | head; tail -5 churn.out.err; }
    "$CLRPROBE" report t1.clrp --format jsonl >t1.jsonl 2>/dev/null
    assert_ge 1000 "$(jcount t1.jsonl 'select(.kind=="traced_method" and .how=="il")')" "methods rewritten"
    local unloads=0
    for i in 1 2 3 4 5 6 7 8 9 10; do
        "$CLRPROBE" report t$i.clrp --format jsonl >t.jsonl 2>/dev/null
        unloads=$((unloads + $(jcount t.jsonl 'select(.kind=="module_unload" and .collectible)')))
    done
    assert_ge 1 "$unloads" "collectible unloads while tracing"
}

test_attach_errors() {
    expect_attach_error() {   # needle command...
        local needle=$1
        shift
        "$@" >e.out 2>e.err
        local rc=$?
        [[ $rc -ne 0 ]] || fail "'$*' succeeded"
        assert_contains e.err "$needle" "message of '$*'"
    }
    expect_attach_error "no process with pid 4194303" "$CLRPROBE" attach 4194303
    expect_attach_error "no process given" "$CLRPROBE" attach
    expect_attach_error "'12ab' is not a process id" "$CLRPROBE" attach 12ab
    # a program's name where a pid goes: the message says how to find it by name
    expect_attach_error "'webapp' is not a process id; to find a process by its name: attach -n webapp" \
        "$CLRPROBE" attach webapp
    expect_attach_error "--duration 'x'" "$CLRPROBE" attach 1 --duration x
    # a recording of no time is a mistake, not a 0.3 s trace
    "$CLRPROBE" attach 1 --duration 0 >e.out 2>e.err
    assert_eq 2 "$?" "--duration 0 is a usage error"
    assert_contains e.err "--duration" "the message names the option"
    sleep 30 &
    local sleeper=$!
    expect_attach_error "is not a .NET process" "$CLRPROBE" attach "$sleeper"
    kill "$sleeper"
    DOTNET_EnableDiagnostics=0 "$SAMPLE" spin 20 >nodiag.out 2>&1 &
    local nodiag=$!
    wait_for_text nodiag.out 30 "spin started"
    expect_attach_error "DOTNET_EnableDiagnostics=0" "$CLRPROBE" attach "$nodiag"
    kill "$nodiag"
    # clrprobe run's own agent is the main profiler: --trace needs that role, so no attempt is made
    "$CLRPROBE" run -o run.clrp -- "$SAMPLE" spin 20 >run.out 2>run.err &
    local runner=$!
    wait_for_text run.out 30 "spin started"
    local child
    child=$(pgrep -P "$runner" | head -1)
    local maps_before
    maps_before=$(grep libclrprobe.so /proc/$child/maps | awk '{print $6}' | sort -u | wc -l)
    expect_attach_error "cannot attach with --trace: process $child's main profiler is clrprobe's agent (clrprobe run, " \
        "$CLRPROBE" attach "$child" --trace 'ClrProbe.Sample.*'
    assert_contains e.err "no attach was attempted" "the refusal says nothing was tried"
    assert_eq 1 "$maps_before" "one agent library in the process before (the main one's)"
    assert_eq 1 "$(grep libclrprobe.so /proc/$child/maps | awk '{print $6}' | sort -u | wc -l)" "and after"
    assert_eq 1 "$(cat /proc/$child/task/*/comm 2>/dev/null | grep -c '^clrprobe-flush$')" \
        "one agent instance (one flusher thread): no second one started"
    kill "$child"
    wait "$runner" 2>/dev/null
    return 0
}

# Beside ourselves: a process under clrprobe run (our agent its main
# profiler) attached to by clrprobe attach, which loads as a notification
# profiler: both traces complete, the target's output unchanged, the
# attached instance gone after its detach while the main one records on.
test_attach_beside_clrprobe_run_as_notification_profiler() {
    "$SAMPLE" spin 5 >plain.out
    local plain_rc=$?
    # the main agent samples with signals: the ones beside it fall back to the suspend engine
    "$CLRPROBE" run -o main.clrp -- "$SAMPLE" spin 5 >run.out 2>run.err &
    local runner=$!
    at_exit "kill $runner 2>/dev/null"
    wait_for_text run.out 30 "started" || fail "the sample did not start"
    local child i
    child=$(pgrep -P "$runner" | head -1)
    assert_eq clrprobe "$("$CLRPROBE" ps | awk -v p="$child" '$1 == p {print $4}')" "clrprobe ps: the main profiler"
    for i in 1 2 3; do
        "$CLRPROBE" attach "$child" -o side$i.clrp --duration 0.6 >side$i.out 2>side$i.err
        assert_eq 0 "$?" "attach $i beside clrprobe run: exit status ($(tail -1 side$i.err))"
        assert_contains side$i.err "main profiler is clrprobe's agent (clrprobe run, " "attach $i names the main profiler"
        assert_contains side$i.err "libclrprobe.so): attaching beside it as a notification profiler" \
            "attach $i says how it loads"
        assert_contains side$i.err "detached from process $child in" "attach $i detached"
    done
    wait "$runner"
    assert_eq "$plain_rc" "$?" "the target's exit code"
    cmp -s plain.out run.out || fail "the target's output changed: $(diff plain.out run.out | head -3)"
    "$CLRPROBE" report main.clrp --format jsonl >main.jsonl || fail "main report"
    assert_eq true "$(jq -r 'select(.kind=="trace") | .complete' main.jsonl)" "the main trace complete"
    assert_eq false "$(jq -r 'select(.kind=="trace") | (.notification // false)' main.jsonl)" "the main trace: main role"
    assert_ge 50 "$(jcount main.jsonl 'select(.kind=="sample")')" "the main agent sampled all along"
    for i in 1 2 3; do
        "$CLRPROBE" report side$i.clrp --format jsonl >side$i.jsonl || fail "side report $i"
        assert_eq true "$(jq -r 'select(.kind=="trace") | .complete' side$i.jsonl)" "side trace $i complete"
        assert_eq true "$(jq -r 'select(.kind=="trace") | .notification' side$i.jsonl)" "side trace $i: notification role"
        assert_eq 1 "$(jcount side$i.jsonl 'select(.kind=="attach")')" "side trace $i: catch-up"
        assert_ge 1 "$(jcount side$i.jsonl 'select(.kind=="jit" and .catchup and .function=="ClrProbe.Sample.Program.Main")')" \
            "side trace $i: Main caught up"
        assert_ge 1 "$(jcount side$i.jsonl 'select(.kind=="sampler_tick")')" "side trace $i: the sampler ticked"
        assert_ge 1 "$(jcount side$i.jsonl 'select(.kind=="note" and (.text|startswith("loaded as a notification profiler")))')" \
            "side trace $i says its role"
        assert_ge 1 "$(jcount side$i.jsonl 'select(.kind=="note" and (.text|contains("sampling with the suspend engine")))')" \
            "side trace $i: the suspend engine, beside the main one's signals"
    done
    # samples: a thread spinning on a CPU is sampled in at least one of the three windows, whatever the load
    assert_ge 1 "$(cat side1.jsonl side2.jsonl side3.jsonl | jcount - 'select(.kind=="sample")')" "CPU samples beside"
    "$CLRPROBE" report side1.clrp >side1.txt 2>/dev/null
    assert_contains side1.txt "mode       attached, as a notification profiler beside the process's main profiler, /" \
        "the text report"
    assert_eq libclrprobe.so "$(jq -r 'select(.kind=="trace") | .main_profiler | split("/") | last' side1.jsonl)" \
        "the main profiler named in the trace"
}

test_attach_twice_at_once() {     # (the second as a notification profiler beside the first)
    start_target spin2.out spin 30
    # the first records until told to stop (no time window the second must hit)
    "$CLRPROBE" attach "$TPID" -o first.clrp --duration 25 >first.out 2>first.err &
    local first=$!
    at_exit "kill $first 2>/dev/null"
    wait_for_text first.err 20 "attached to process" || fail "the first attach did not attach"
    # the second loads beside the first, as a notification profiler
    "$CLRPROBE" attach "$TPID" -o second.clrp --duration 0.3 >second.out 2>second.err
    local rc=$?
    assert_eq 0 "$rc" "exit status of the second attach ($(tail -1 second.err))"
    assert_contains second.err "process $TPID's main profiler is clrprobe's agent (another clrprobe attach, " \
        "the second attach names the main profiler"
    assert_contains second.err "libclrprobe.so): attaching beside it as a notification profiler" \
        "the second attach says how it loads"
    assert_contains second.err "detached from process $TPID in" "the second detaches"
    [[ -s second.clrp ]] || fail "the second attach wrote no trace"
    kill -TERM "$first"
    wait "$first"
    rc=$?
    # SIGTERM, like Ctrl-C, ends the recording: a clean detach, status 0
    assert_eq 0 "$rc" "exit status of the attach ended by SIGTERM"
    assert_contains first.err "detached from process $TPID in" "the first attach still detaches cleanly"
    [[ -s first.clrp ]] || fail "the first attach wrote no trace"
    # both detached: nothing holds the library, it leaves with the first
    # session (the runtime unloads it just after the detach)
    assert_eq 0 "$(wait_unmapped "$TPID")" "libclrprobe.so mappings left in the target after the first session ended"
    # and a new attach works
    "$CLRPROBE" attach "$TPID" -o third.clrp --duration 0.1 >third.out 2>third.err
    assert_eq 0 "$?" "an attach after the first session ended"
}

# A startup profiler that is configured but not loaded (here: its library
# does not exist) is no reason to refuse.
test_attach_beside_configured_but_unloaded_profiler() {
    CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER='{11111111-2222-3333-4444-555555555555}' \
        CORECLR_PROFILER_PATH=/nonexistent/libprof.so start_target cfg.out spin 20
    "$CLRPROBE" attach "$TPID" -o cfg.clrp --duration 0.2 >att.out 2>att.err
    assert_eq 0 "$?" "attach exit code"
    assert_contains att.err "detached from process $TPID in" "attached and detached"
}

test_attach_permission_denied() {
    other_user_setup
    start_target perm.out spin 20
    as_other_user "$OTHER_CLRPROBE" attach "$TPID" -o "$OTHER_OUT/perm.clrp" >perm.o 2>perm.e
    local rc=$?
    [[ $rc -ne 0 ]] || fail "attach as another user succeeded"
    assert_contains perm.e "run clrprobe as the same user as process $TPID, or as root" "permission message"
}

# start_named NAME OUT ARGS...: runs the sample under the program name NAME
# (a symbolic link to it: the kernel names the process after the link, the
# apphost still finds Sample.dll beside the real file); sets NPID.  Unique
# names keep other samples on the machine out of the match.
start_named() {
    local name=$1 out=$2 argv0=${ARGV0:-named/$1}
    shift 2
    mkdir -p named
    ln -sf "$SAMPLE_BIN" "named/$name"
    (sanitizer_preload; exec -a "$argv0" "named/$name" "$@") >"$out" 2>"$out.err" &
    NPID=$!
    at_exit "kill $NPID 2>/dev/null"
    wait_for_text "$out" 30 "started" || fail "the sample named $name did not start"
}

test_attach_by_name() {
    # longer than the kernel's 15 bytes of comm: matched whole, as .NET names it
    local name="cpnametest-long-$$"
    start_named "$name" one.out spin 60
    local one=$NPID
    "$CLRPROBE" ps >ps.out 2>ps.err
    assert_eq "$name" "$(awk -v p="$one" '$1 == p {print $2}' ps.out)" "ps NAME is the whole program name"
    "$CLRPROBE" attach -n "${name^^}" -o byname.clrp --duration 00:00:00:01 >att.out 2>att.err
    assert_eq 0 "$?" "attach -n with one match (case ignored)"
    assert_contains att.err "attach: '${name^^}' is process $one: named/$name spin 60" "which process was chosen"
    assert_contains att.err "detached from process $one in" "attached and detached"
    "$CLRPROBE" report byname.clrp --format jsonl >byname.jsonl 2>/dev/null
    assert_eq "$one" "$(jq -r 'select(.kind=="trace") | .pid' byname.jsonl)" "the trace is of that process"
    # the duration forms: 1 s above, then 500 ms and plain seconds
    local dur t0 t1 ms
    for dur in 500ms 1.5s 0.5; do
        t0=$(date +%s%N)
        "$CLRPROBE" attach -n "$name" -o "d$dur.clrp" --duration "$dur" >d.out 2>d.err
        assert_eq 0 "$?" "attach --duration $dur"
        t1=$(date +%s%N)
        ms=$(( (t1 - t0) / 1000000 ))
        awk -v d="$dur" -v ms="$ms" 'BEGIN { s = d; sub(/ms$/, "", s) ; if (d ~ /ms$/) s /= 1000; else sub(/s$/, "", s);
            exit !(ms >= s * 1000 && ms < s * 1000 + 5000) }' || fail "--duration $dur took $ms ms"
    done

    # none
    "$CLRPROBE" attach -n "nosuch-$$" -o none.clrp >none.out 2>none.err
    assert_eq 1 "$?" "exit status when no process matches"
    assert_contains none.err "attach: no .NET process is named 'nosuch-$$'" "message when none matches"
    [[ ! -e none.clrp ]] || fail "a trace file was left"

    # several: each listed with its pid and command line, escaped
    ARGV0=$'named\x1b[31m/'"$name" start_named "$name" two.out spin 60
    local two=$NPID
    "$CLRPROBE" attach -n "$name" -o two.clrp >two.o 2>two.err
    assert_eq 1 "$?" "exit status when several match"
    assert_contains two.err "attach: 2 .NET processes are named '$name'; choose one with -p PID:" "message when several match"
    assert_contains two.err "  $one $name named/$name spin 60" "the first candidate"
    assert_contains two.err "  $two $name named\x1b[31m/$name spin 60" "the second candidate, escaped"
    if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' two.err; then fail "a control character reached stderr"; fi
    [[ ! -e two.clrp ]] || fail "a trace file was left"
    grep -q libclrprobe.so /proc/$one/maps /proc/$two/maps && fail "an agent was loaded although nothing was chosen"

    # the main assembly's name finds 'dotnet Sample.dll' (with our own apphost
    # Sample there are always several, whatever else runs on the machine)
    (sanitizer_preload; exec dotnet "$ROOT/build/sample/Sample.dll" spin 30) >host.out 2>&1 &
    local host=$!
    at_exit "kill $host 2>/dev/null"
    start_target apphost.out spin 30
    wait_for_text host.out 30 "started" || fail "dotnet Sample.dll did not start"
    "$CLRPROBE" attach -n sample >asm.o 2>asm.err
    assert_eq 1 "$?" "exit status for -n sample"
    # (the command line as the process has it: argv[0] may be 'dotnet' or its
    # full path, as under the sanitizer build's preload)
    assert_contains "$(grep -F "  $host dotnet (assembly Sample) " asm.err)" "dotnet $ROOT/build/sample/Sample.dll spin 30" \
        "'dotnet Sample.dll' matched by its assembly"
    assert_contains asm.err "  $TPID Sample " "the apphost Sample matched by its name"

    # usage
    "$CLRPROBE" attach 123 -n x >u.o 2>u.err
    assert_eq 2 "$?" "exit status of a pid and a name"
    assert_contains u.err "give a process id or -n NAME, not both" "message"
    "$CLRPROBE" attach -n "$name" --duration 00:05 >u.o 2>u.err
    assert_eq 2 "$?" "exit status of an ambiguous duration"
    assert_contains u.err "--duration '00:05' is ambiguous" "message"
    "$CLRPROBE" attach -n "$name" --duration 5sec >u.o 2>u.err
    assert_eq 2 "$?" "exit status of a bad duration"
    assert_contains u.err "--duration '5sec' is not a duration: give seconds (5, 1.5), a number and a unit (500ms, 5s, 2m, 1h, 1m30s) or dd:hh:mm:ss (00:00:00:05)" "message names the accepted forms"
}

# A copy of clrprobe's agent under another name, loaded at launch by a
# relative path (as an APM agent may be configured), is another main
# profiler (its instances do not know ours): found from the environment and
# the mapped libraries, named in the message; the attach loads beside it,
# and leaves no library behind.
test_attach_beside_a_copy_of_the_agent_at_startup() {
    mkdir -p apm
    cp "$AGENT" apm/libapm.so
    (cd apm && exec env CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER="$CLSID" \
        CORECLR_PROFILER_PATH_64=./libapm.so CLRPROBE_CONFIG="v=1;output=$PWD/apm.clrp;collect=jit" \
        "$SAMPLE" spin 30) >apm.out 2>apm.err &
    local pid=$!
    at_exit "kill $pid 2>/dev/null"
    wait_for_text apm.out 30 "spin started" || fail "the sample did not start"
    grep -q "$PWD/apm/libapm.so" /proc/$pid/maps || fail "the copy is not loaded"
    "$CLRPROBE" attach "$pid" -o x.clrp --duration 0.2 >out 2>err
    assert_eq 0 "$?" "exit status ($(tail -1 err))"
    assert_contains err "process $pid's main profiler is $PWD/apm/libapm.so, its startup profiler (CORECLR_PROFILER_PATH_64): attaching beside it as a notification profiler" \
        "message names the other profiler"
    "$CLRPROBE" report x.clrp --format jsonl >x.jsonl || fail "report"
    assert_eq true "$(jq -r 'select(.kind=="trace") | .notification' x.jsonl)" "the notification role"
    assert_eq 0 "$(wait_unmapped "$pid")" "libclrprobe.so mapped in the process after the detach"
}

# Another user binds the quiet agent's name of root's target first, while
# an attach of root's records: a second attach must not take it for a quiet
# agent (/proc/PID/net/unix lists everyone's sockets) and send it its
# configuration; it attaches beside the first as it would without it.
test_attach_does_not_take_a_squatted_quiet_socket_for_the_agent() {
    other_user_setup
    start_target spinq.out spin 30
    squat_as_other_user "clrprobe-quiet-$TPID" quiet.log || return
    "$CLRPROBE" attach "$TPID" -o first.clrp --duration 25 >first.out 2>first.err &
    local first=$!
    at_exit "kill $first 2>/dev/null"
    wait_for_text first.err 20 "attached to process" || fail "the first attach did not attach: $(cat first.err)"
    timeout 60 "$CLRPROBE" attach "$TPID" -o second.clrp --duration 0.3 >second.out 2>second.err
    assert_eq 0 "$?" "exit status of the second attach: $(cat second.err)"
    assert_contains second.err "attaching beside it as a notification profiler" "the second attach loads beside the first"
    [[ ! -s $OTHER_OUT/quiet.log ]] || fail "the configuration went to the squatter: $(head -c 300 "$OTHER_OUT/quiet.log")"
    kill -TERM "$first"
    wait "$first"
    assert_eq 0 "$?" "exit status of the first attach: $(cat first.err)"
}

# Root attaches to a process of another user's (nobody).  That user may
# keep, by any means, the descriptor the agent writes the trace through:
# here a parent of the target's, as nobody, takes a copy of it during the
# recording (pidfd_getfd: what the target itself could do with dup), and
# once root's trace is finished, cuts and rewrites through it.  Root's
# finished trace must stay as it was: that descriptor was never one of it.
test_attach_another_users_process_cannot_write_the_trace_afterwards() {
    other_user_setup
    other_user_sample || return
    [[ -x /usr/bin/python3 ]] || skip "needs /usr/bin/python3 for the target's parent"
    mkdir -p out && chmod 755 out
    cat >"$OTHER_DIR/keeper.py" <<'PY'
import ctypes, os, subprocess, sys, time
prefix, d = sys.argv[1], sys.argv[2]
def say(name, text):
    with open(d + "/" + name + ".tmp", "w") as f:
        f.write(text)
    os.rename(d + "/" + name + ".tmp", d + "/" + name)
def wait_for(name):
    while not os.path.exists(d + "/" + name):
        time.sleep(0.05)
p = subprocess.Popen(sys.argv[3:], stdout=open(d + "/target.out", "w"), stderr=subprocess.STDOUT)
say("pid", str(p.pid))
wait_for("grab")
libc = ctypes.CDLL(None, use_errno=True)
pidfd, kept = os.pidfd_open(p.pid), -1
for n in os.listdir("/proc/%d/fd" % p.pid):
    try:
        link = os.readlink("/proc/%d/fd/%s" % (p.pid, n))
    except OSError:
        continue
    if link.startswith(prefix):
        kept = libc.syscall(438, pidfd, int(n), 0)      # pidfd_getfd
        if kept >= 0:
            break
say("grabbed", "kept" if kept >= 0 else "none")
wait_for("write")
done = "none"
if kept >= 0:
    os.ftruncate(kept, 0)
    os.write(kept, b"forged by the target's user\n" * 100)
    done = "written"
say("written", done)
p.wait()
PY
    as_other_user /usr/bin/python3 "$OTHER_DIR/keeper.py" "$PWD/out/" "$OTHER_OUT" "$OTHER_SAMPLE" spin 60 &
    wait_for_text "$OTHER_OUT/pid" 20 "" || { fail "the target's parent did not start"; return; }
    TPID=$(cat "$OTHER_OUT/pid")
    at_exit "kill $TPID 2>/dev/null"
    wait_for_text "$OTHER_OUT/target.out" 30 "started" || { fail "the target did not start"; return; }
    "$OTHER_CLRPROBE" attach "$TPID" -o out/t.clrp --duration 30 >att.out 2>att.err &
    local att=$!
    at_exit "kill $att 2>/dev/null"
    wait_for_text att.err 20 "attached to process $TPID" || { fail "the attach did not attach: $(cat att.err)"; return; }
    touch "$OTHER_OUT/grab"
    wait_for_text "$OTHER_OUT/grabbed" 20 "" || fail "the target's parent did not look for the descriptor"
    assert_eq kept "$(cat "$OTHER_OUT/grabbed")" "the target's user holds the descriptor the agent writes through"
    kill -INT "$att"
    wait "$att"
    assert_eq 0 "$?" "attach exit code: $(cat att.err)"
    assert_contains att.err "detached from process $TPID in" "detached"
    local before
    before=$(sha256sum <out/t.clrp)
    touch "$OTHER_OUT/write"
    wait_for_text "$OTHER_OUT/written" 20 "" || fail "the target's parent did not write"
    assert_eq written "$(cat "$OTHER_OUT/written")" "the target's user wrote through the descriptor it kept"
    assert_eq "$before" "$(sha256sum <out/t.clrp)" "root's finished trace is unchanged (bytes and size)"
    assert_eq "0 600" "$(stat -c '%u %a' out/t.clrp)" "owner and mode of root's trace"
    "$CLRPROBE" report out/t.clrp --format jsonl >t.jsonl 2>rep.err
    assert_eq 0 "$?" "report exit code: $(cat rep.err)"
    assert_eq true "$(jq -r 'select(.kind=="trace") | .complete' t.jsonl)" "the trace is complete"
    assert_eq "" "$(ls -A out | grep -v '^t\.clrp$')" "nothing else left in the output's directory"
}

# Root attaches to nobody's process: the control socket is nobody's (so
# that the agent can connect), and so any process of nobody's can connect
# to it too.  Only the target's own connection is taken: another one,
# made while the target is stopped (so before its agent can call back), is
# said and closed, and gets nothing (no trace descriptor); the attach then
# goes on with the real agent.
test_attach_control_socket_takes_only_the_targets_connection() {
    other_user_setup
    other_user_sample || return
    [[ -x /usr/bin/python3 ]] || skip "needs /usr/bin/python3 for the other process"
    cat >"$OTHER_DIR/intruder.py" <<'PY'
import array, glob, os, socket, sys, time
d = sys.argv[1]
def say(name, text):
    with open(d + "/" + name + ".tmp", "w") as f:
        f.write(text)
    os.rename(d + "/" + name + ".tmp", d + "/" + name)
say("intruder", str(os.getpid()))
deadline = time.time() + 30
while time.time() < deadline:
    for path in glob.glob("/tmp/clrprobe-ctl-*/ctl"):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
        except OSError:
            continue
        s.settimeout(20)
        fds = array.array("i")
        try:
            # (the command may refuse it before the hello is sent: EPIPE)
            s.sendall(b"hello %d\n" % os.getpid())
            msg, anc, _, _ = s.recvmsg(64, socket.CMSG_SPACE(4 * fds.itemsize))
        except OSError:
            msg, anc = b"", []
        got = any(level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS for level, kind, _ in anc)
        say("result", "descriptor" if got else "nothing")
        sys.exit(0)
    time.sleep(0.02)
say("result", "no socket")
PY
    as_other_user sh -c 'echo $$ >"$1/pid"; shift; exec "$@"' sh "$OTHER_OUT" "$OTHER_SAMPLE" spin 60 >"$OTHER_OUT/spin.out" 2>&1 &
    wait_for_text "$OTHER_OUT/spin.out" 30 "started" || { fail "the target did not start"; return; }
    TPID=$(cat "$OTHER_OUT/pid")
    at_exit "kill -CONT $TPID 2>/dev/null; kill $TPID 2>/dev/null"
    kill -STOP "$TPID"
    as_other_user /usr/bin/python3 "$OTHER_DIR/intruder.py" "$OTHER_OUT" &
    wait_for_text "$OTHER_OUT/intruder" 20 "" || { fail "the other process did not start"; return; }
    local intruder
    intruder=$(cat "$OTHER_OUT/intruder")
    "$OTHER_CLRPROBE" attach "$TPID" -o out.clrp --duration 0.5 --timeout 60 >att.out 2>att.err &
    local att=$!
    at_exit "kill $att 2>/dev/null"
    wait_for_text att.err 20 "ignored a connection to the control socket from process $intruder of uid 65534: only process $TPID's agent may connect" ||
        fail "the other process's connection was not refused: $(cat att.err)"
    wait_for_text "$OTHER_OUT/result" 30 "" || fail "the other process did not finish"
    assert_eq nothing "$(cat "$OTHER_OUT/result")" "what the other process got"
    kill -CONT "$TPID"
    wait "$att"
    assert_eq 0 "$?" "attach exit code: $(cat att.err)"
    assert_contains att.err "detached from process $TPID in" "the attach went on with the target's agent"
}
