# test_heap_cmd.sh - `clrprobe heap` on the real runtime: snapshots of a
# process the agent is attached to for them (and detached after), of a
# process that already runs under `clrprobe run` (asked through its agent's
# heap listener), and the errors a user can run into.  The sample's `heap`
# scenario builds a known heap (1000 HeapLeaf, 500 HeapTwig, garbage
# dropped) and holds it; its output and exit code must be those of a run
# without clrprobe.

# start_heap_target OUT SECONDS [GROW]: the heap scenario in the
# background, once its heap is built; sets TPID.
start_heap_target() {
    local out=$1
    shift
    "$SAMPLE" heap "$@" >"$out" 2>"$out.err" &
    TPID=$!
    at_exit "kill $TPID 2>/dev/null"
    wait_for_text "$out" 30 "heap built" || fail "the sample did not build its heap"
}

# assert_known_heap JSONL: every snapshot in it counts the scenario's heap exactly.
assert_known_heap() {
    local s
    for s in $(jq -r 'select(.kind=="heap_snapshot") | .snapshot' "$1"); do
        assert_eq 1000 "$(jq -r "select(.kind==\"heap_type\" and .snapshot==$s and .type==\"ClrProbe.Sample.HeapLeaf\") | .count" "$1")" \
            "HeapLeaf in snapshot $s"
        assert_eq 500 "$(jq -r "select(.kind==\"heap_type\" and .snapshot==$s and .type==\"ClrProbe.Sample.HeapTwig\") | .count" "$1")" \
            "HeapTwig in snapshot $s"
        assert_eq 300 "$(jq -r "select(.kind==\"heap_type\" and .snapshot==$s and .type==\"ClrProbe.Sample.HeapStackOnly\") | .count" "$1")" \
            "HeapStackOnly in snapshot $s"
        assert_eq 0 "$(jcount "$1" "select(.kind==\"heap_type\" and .snapshot==$s and .type==\"ClrProbe.Sample.HeapGarbage\")")" \
            "garbage in snapshot $s"
    done
}

test_heap_command_attaches_snapshots_and_detaches() {
    mkdir -p test_heap_command_attaches_snapshots_and_detaches && cd test_heap_command_attaches_snapshots_and_detaches || fail "work directory"
    "$SAMPLE" heap 5 >plain.out 2>plain.err
    local plain_rc=$?
    start_heap_target prof.out 5
    "$CLRPROBE" heap "$TPID" -o h.clrp --count 2 --interval 1 >heap.out 2>heap.err
    assert_eq 0 "$?" "clrprobe heap exit code"
    assert_contains heap.err "snapshot 1 of 2: " "progress of snapshot 1"
    assert_contains heap.err "snapshot 2 of 2: " "progress of snapshot 2"
    assert_contains heap.err "detached from process $TPID" "detached"
    grep -Eq 'snapshot 1 of 2: [0-9]+ objects, [0-9.]+ MiB, [0-9]+ roots; the process was paused [0-9]+ ms' heap.err ||
        fail "progress line format: $(cat heap.err)"
    wait "$TPID"
    assert_eq "$plain_rc" "$?" "the target's exit code"
    cmp -s plain.out prof.out || fail "the target's output changed"
    "$CLRPROBE" report h.clrp --format jsonl >h.jsonl || fail "report jsonl"
    assert_eq 2 "$(jcount h.jsonl 'select(.kind=="heap_snapshot" and .complete and .method=="gc_roots")')" \
        "complete snapshots"
    assert_known_heap h.jsonl
    # the progress line's object count is the snapshot's
    local said
    said=$(sed -n 's/.*snapshot 1 of 2: \([0-9]*\) objects.*/\1/p' heap.err)
    assert_eq "$said" "$(jq -r 'select(.kind=="heap_snapshot" and .snapshot==1) | .objects' h.jsonl)" \
        "objects said vs recorded"
    # no sampling: the heap command records names, not CPU
    assert_eq 0 "$(jcount h.jsonl 'select(.kind=="sample")')" "CPU samples"
    # the process can be attached to again (the agent left)
    start_heap_target again.out 3
    "$CLRPROBE" heap "$TPID" -o again.clrp >again.err 2>&1
    assert_eq 0 "$?" "a second clrprobe heap on a new process"
}

test_heap_command_asks_the_agent_of_clrprobe_run() {
    mkdir -p test_heap_command_asks_the_agent_of_clrprobe_run && cd test_heap_command_asks_the_agent_of_clrprobe_run || fail "work directory"
    "$SAMPLE" heap 6 >plain.out 2>plain.err
    local plain_rc=$?
    DOTNET_gcConcurrent=0 "$CLRPROBE" run -o run.clrp -- "$SAMPLE" heap 6 >prof.out 2>run.err &
    local run=$!
    at_exit "kill $run 2>/dev/null"
    wait_for_text prof.out 30 "heap built" || fail "the sample did not build its heap"
    local tpid
    tpid=$(pgrep -n -P "$run")
    [[ -n $tpid ]] || fail "no target pid"
    "$CLRPROBE" heap "$tpid" -o nope.clrp >o.out 2>o.err
    assert_eq 2 "$?" "-o refused for a process under clrprobe run"
    assert_contains o.err "run clrprobe heap $tpid without -o" "the -o message"
    [[ ! -e nope.clrp ]] || fail "-o file created"
    "$CLRPROBE" heap "$tpid" --count 2 --interval 0.5 >h.out 2>h.err
    assert_eq 0 "$?" "clrprobe heap exit code: $(cat h.err)"
    assert_contains h.err "already runs clrprobe's agent (clrprobe run)" "the listener path"
    assert_contains h.err "snapshot 2 of 2: " "progress"
    wait "$run"
    assert_eq "$plain_rc" "$?" "the target's exit code"
    cmp -s plain.out prof.out || fail "the target's output changed"
    "$CLRPROBE" report run.clrp --format jsonl >run.jsonl || fail "report jsonl"
    assert_eq 2 "$(jcount run.jsonl 'select(.kind=="heap_snapshot" and .complete)')" "snapshots in the run's trace"
    assert_known_heap run.jsonl
}

# A process under a plain `clrprobe attach` (no --heap-every): its agent did
# not ask for GC monitoring in InitializeForAttach (that turns background GC
# off, a cost plain attach does not impose) and the runtime refuses it later
# while background GC is on, so `clrprobe heap` goes through that agent's heap
# listener and the agent enumerates the heap (.NET 9+): the known counts, in
# the attach's trace, roots approximate, and the command says why and what
# to do for exact roots.
test_heap_command_asks_the_agent_of_clrprobe_attach() {
    mkdir -p test_heap_command_asks_the_agent_of_clrprobe_attach && cd test_heap_command_asks_the_agent_of_clrprobe_attach || fail "work directory"
    "$SAMPLE" heap 8 >plain.out 2>plain.err
    local plain_rc=$?
    start_heap_target prof.out 8
    "$CLRPROBE" attach "$TPID" -o att.clrp --duration 5 >att.out 2>att.err &
    local att=$!
    at_exit "kill $att 2>/dev/null"
    wait_for_text att.err 20 "attached to process $TPID" || fail "the attach did not attach: $(cat att.err)"
    "$CLRPROBE" heap "$TPID" >h.out 2>h.err
    assert_eq 0 "$?" "clrprobe heap exit code: $(cat h.err)"
    assert_contains h.err "process $TPID already runs clrprobe's agent (clrprobe attach)" "the already-loaded agent"
    assert_contains h.err "snapshot 1 of 1: " "progress"
    assert_contains h.err "roots approximate: the recording was started without --heap-every, so GC monitoring is off" \
        "why the roots are approximate"
    assert_contains h.err "for exact roots attach with --heap-every S or use clrprobe heap on a process with no clrprobe session (end this recording first)" \
        "what to do for exact roots"
    wait "$att"
    assert_eq 0 "$?" "the attach's exit code: $(cat att.err)"
    wait "$TPID"
    assert_eq "$plain_rc" "$?" "the target's exit code"
    cmp -s plain.out prof.out || fail "the target's output changed"
    "$CLRPROBE" report att.clrp --format jsonl >att.jsonl || fail "report jsonl"
    assert_eq 1 "$(jcount att.jsonl 'select(.kind=="heap_snapshot" and .complete and .method=="enumerate" and .roots_approximate)')" \
        "the snapshot, by enumeration, in the attach's trace"
    assert_known_heap att.jsonl
}

# Background GC on and the agent started without --heap-every: the runtime
# refuses GC monitoring; the agent falls back to the heap enumeration of
# ICorProfilerInfo15 (.NET 9+) and says the roots are approximate; with
# heap_method=gc it does not, and the command says why and how to get one.
test_heap_command_under_run_with_background_gc_falls_back() {
    mkdir -p test_heap_command_under_run_with_background_gc_falls_back && cd test_heap_command_under_run_with_background_gc_falls_back || fail "work directory"
    "$CLRPROBE" run -o run.clrp -- "$SAMPLE" heap 4 >prof.out 2>run.err &
    local run=$!
    at_exit "kill $run 2>/dev/null"
    wait_for_text prof.out 30 "heap built" || fail "the sample did not build its heap"
    local tpid
    tpid=$(pgrep -n -P "$run")
    [[ -n $tpid ]] || fail "no target pid"
    "$CLRPROBE" heap "$tpid" >h.out 2>h.err
    assert_eq 0 "$?" "clrprobe heap exit code: $(cat h.err)"
    assert_contains h.err "a heap enumeration without GC monitoring" "the approximate method said"
    assert_contains h.err "roots approximate: the process was started under clrprobe run without --heap-every" "why"
    assert_contains h.err "for exact roots run it with --heap-every S, or with DOTNET_gcConcurrent=0" "what to do"
    wait "$run"
    assert_eq 0 "$?" "the run's exit code"
    "$CLRPROBE" report run.clrp --format jsonl >run.jsonl || fail "report"
    assert_eq enumerate "$(jq -r 'select(.kind=="heap_snapshot") | .method' run.jsonl)" "the method"
    assert_eq 1000 "$(jq -r 'select(.kind=="heap_type" and .type=="ClrProbe.Sample.HeapLeaf") | .count' run.jsonl)" \
        "HeapLeaf counted by the enumeration"
    # heap_method=gc: no fallback, a clear refusal
    agent_env "v=1;output=$PWD/gc.clrp;collect=modules;heap_method=gc" "$SAMPLE" heap 4 >gc.out 2>&1 &
    local t2=$!
    at_exit "kill $t2 2>/dev/null"
    wait_for_text gc.out 30 "heap built" || fail "the sample did not build its heap"
    t2=$(pgrep -n -P "$t2" || echo "$t2")            # (agent_env runs in a subshell)
    "$CLRPROBE" heap "$t2" >h2.out 2>h2.err
    assert_eq 1 "$?" "clrprobe heap exit code with heap_method=gc"
    assert_contains h2.err "DOTNET_gcConcurrent=0" "how to fix it"
}

test_heap_command_refuses_a_second_heap_at_once() {
    mkdir -p test_heap_command_refuses_a_second_heap_at_once && cd test_heap_command_refuses_a_second_heap_at_once || fail "work directory"
    start_heap_target t.out 8
    "$CLRPROBE" heap "$TPID" -o first.clrp --count 2 --interval 3 >first.out 2>first.err &
    local first=$!
    at_exit "kill $first 2>/dev/null"
    wait_for_text first.err 20 "snapshot 1 of 2" || fail "the first heap did not snapshot: $(cat first.err)"
    "$CLRPROBE" heap "$TPID" >second.out 2>second.err
    local rc=$?
    [[ $rc -ne 0 ]] || fail "a second clrprobe heap succeeded"
    assert_contains second.err "already being taken" "the busy message"
    wait "$first"
    assert_eq 0 "$?" "the first clrprobe heap"
    "$CLRPROBE" report first.clrp --format jsonl >f.jsonl || fail "report"
    assert_eq 2 "$(jcount f.jsonl 'select(.kind=="heap_snapshot" and .complete)')" "the first's snapshots"
}

test_heap_command_process_exits_during_the_snapshots() {
    mkdir -p test_heap_command_process_exits_during_the_snapshots && cd test_heap_command_process_exits_during_the_snapshots || fail "work directory"
    start_heap_target t.out 2.5
    "$CLRPROBE" heap "$TPID" -o cut.clrp --count 10 --interval 1 >cut.out 2>cut.err
    assert_eq 1 "$?" "exit code when the process exits first"
    grep -Eq "process $TPID exited after [0-9]+ of 10 snapshots" cut.err || fail "message: $(cat cut.err)"
    [[ -s cut.clrp ]] || fail "the snapshots taken were not kept"
    "$CLRPROBE" report cut.clrp --format jsonl >cut.jsonl || fail "the kept trace does not read"
    assert_ge 1 "$(jcount cut.jsonl 'select(.kind=="heap_snapshot" and .complete)')" "complete snapshots kept"
    assert_known_heap cut.jsonl
}

# -n NAME (shared with attach): the heap scenario started under a name of its
# own, as test_attach_by_name does; no match, then one (with --interval in
# dotnet-trace's dd:hh:mm:ss form).
test_heap_command_by_name() {
    mkdir -p test_heap_command_by_name && cd test_heap_command_by_name || fail "work directory"
    local name="cpheapname-$$" tpid
    mkdir -p named
    ln -sf "$SAMPLE_BIN" "named/$name"
    (sanitizer_preload; exec -a "named/$name" "named/$name" heap 8) >t.out 2>t.err &
    tpid=$!
    at_exit "kill $tpid 2>/dev/null"
    wait_for_text t.out 30 "heap built" || fail "the sample named $name did not build its heap"
    # none
    "$CLRPROBE" heap -n "nosuch-$$" -o none.clrp >none.out 2>none.err
    assert_eq 1 "$?" "exit status when no process matches"
    assert_contains none.err "heap: no .NET process is named 'nosuch-$$'" "message when none matches"
    [[ $(wc -l <none.err) -eq 1 ]] || fail "no match: not one line: $(cat none.err)"
    [[ ! -e none.clrp ]] || fail "no match: a trace file was left"
    # one (case ignored, as for attach)
    "$CLRPROBE" heap -n "${name^^}" -o byname.clrp --count 2 --interval 00:00:00:01 >one.out 2>one.err
    assert_eq 0 "$?" "clrprobe heap -n with one match: $(cat one.err)"
    assert_contains one.err "heap: '${name^^}' is process $tpid: named/$name heap 8" "which process was chosen"
    assert_contains one.err "snapshot 2 of 2: " "the snapshots"
    assert_contains one.err "detached from process $tpid" "detached"
    "$CLRPROBE" report byname.clrp --format jsonl >byname.jsonl || fail "report jsonl"
    assert_eq "$tpid" "$(jq -r 'select(.kind=="trace") | .pid' byname.jsonl)" "the trace is of that process"
    assert_eq 2 "$(jcount byname.jsonl 'select(.kind=="heap_snapshot" and .complete and .method=="gc_roots")')" \
        "complete snapshots"
    assert_known_heap byname.jsonl
}

# The target killed (kill -9) while a snapshot of a big heap is under way
# (2 million objects: its GC and walk take a while), 50 ms after clrprobe heap
# says it attached: clrprobe heap exits 1 at once, saying the process exited
# and after how many snapshots, and the trace takes the output's place and
# reads back, saying it was cut short (and the snapshot, if its records
# began, incomplete).  Should the snapshot be over first (a fast machine), it
# is whole in the trace, as the command said.
test_heap_command_target_killed_during_a_snapshot() {
    mkdir -p test_heap_command_target_killed_during_a_snapshot && cd test_heap_command_target_killed_during_a_snapshot || fail "work directory"
    local tpid hpid rc t0 t1 i
    "$SAMPLE" heapbench 2 60 >t.out 2>t.err &
    tpid=$!
    at_exit "kill -9 $tpid 2>/dev/null"
    wait_for_text t.out 60 "ready" || fail "the sample did not build its heap"
    "$CLRPROBE" heap "$tpid" -o k.clrp >h.out 2>h.err &
    hpid=$!
    at_exit "kill $hpid 2>/dev/null"
    for ((i = 0; i < 3000; i++)); do
        grep -q "attached to process $tpid" h.err && break
        sleep 0.01
    done
    sleep 0.05
    kill -9 "$tpid"
    t0=$(date +%s%N)
    wait "$hpid"
    rc=$?
    t1=$(date +%s%N)
    echo "clrprobe heap: exit $rc $(( (t1 - t0) / 1000000 )) ms after the kill: $(cat h.err)"
    # promptly: the control connection closes with the process (5 s: room for a loaded machine)
    [[ $(( (t1 - t0) / 1000000 )) -lt 5000 ]] || fail "clrprobe heap took $(( (t1 - t0) / 1000000 )) ms after the kill"
    [[ -f k.clrp ]] || fail "the trace did not take the output's place"
    "$CLRPROBE" report k.clrp --format jsonl >k.jsonl 2>rep.err || fail "the trace does not read back (jsonl): $(cat rep.err)"
    "$CLRPROBE" report k.clrp >k.txt 2>rep.err || fail "the trace does not read back (text): $(cat rep.err)"
    if grep -q "snapshot 1 of 1: " h.err; then
        echo "(the snapshot was over before the kill)"
        assert_eq 1 "$(jcount k.jsonl 'select(.kind=="heap_snapshot" and .complete and .objects >= 2000000 and (.walk_stopped|not))')" \
            "the snapshot said taken is whole in the trace"
        if grep -q "detached from process $tpid" h.err; then
            echo "(and so was the detach)"
            assert_eq 0 "$rc" "exit code (detached before the kill)"
            assert_eq true "$(jq -r 'select(.kind=="trace") | .complete' k.jsonl)" "the trace is complete"
        else
            assert_eq 1 "$rc" "exit code"
            grep -Eq "process $tpid exited (after 1 of 1 snapshots|while the agent was detaching); trace written to " h.err ||
                fail "message: $(cat h.err)"
            assert_eq false "$(jq -r 'select(.kind=="trace") | .complete' k.jsonl)" "the trace says it was cut short"
            assert_contains k.txt "the trace was cut short" "the text says so"
        fi
    else
        assert_eq 1 "$rc" "exit code"
        assert_eq false "$(jq -r 'select(.kind=="trace") | .complete' k.jsonl)" "the trace says it was cut short"
        assert_contains k.txt "the trace was cut short" "the text says so"
        grep -Eq "process $tpid exited after 0 of 1 snapshots; trace written to .*/k\.clrp, but it was not closed" h.err ||
            fail "message: $(cat h.err)"
        assert_eq 0 "$(jcount k.jsonl 'select(.kind=="heap_snapshot" and .complete)')" "no snapshot claims to be complete"
        if [[ $(jcount k.jsonl 'select(.kind=="heap_snapshot")') -gt 0 ]]; then
            echo "(the snapshot's records had begun)"
            assert_contains k.txt " - cut short: the snapshot did not finish" "the text: the snapshot cut short"
            assert_contains k.txt "    incomplete: only what was recorded before it stopped is here" "the text: incomplete"
            assert_not_contains k.txt "not held by any retaining root" "the text claims no unrooted objects"
            assert_eq false "$(jq -r 'select(.kind=="heap_snapshot") | .identity' k.jsonl)" "no identity claimed"
        fi
    fi
}

test_heap_command_errors() {
    mkdir -p test_heap_command_errors && cd test_heap_command_errors || fail "work directory"
    sleep 30 &
    local sleeper=$!
    at_exit "kill $sleeper 2>/dev/null"
    "$CLRPROBE" heap "$sleeper" -o x.clrp >o 2>e
    assert_eq 1 "$?" "not .NET: exit code"
    assert_contains e "not a .NET process" "not .NET: message"
    [[ ! -e x.clrp ]] || fail "not .NET: an output was left"
    kill "$sleeper"
    wait "$sleeper" 2>/dev/null
    "$CLRPROBE" heap "$sleeper" >o 2>e
    [[ $? -ne 0 ]] || fail "a process that is gone: exit 0"
    [[ $(wc -l <e) -eq 1 ]] || fail "a process that is gone: not one line: $(cat e)"
    local args
    for args in "--count 0" "--count 10001" "--count x" "--interval 0.01" "--bogus" "" "1 2" "-n"; do
        # shellcheck disable=SC2086
        "$CLRPROBE" heap $args >o 2>e
        assert_eq 2 "$?" "usage error for '$args'"
        [[ $(wc -l <e) -eq 1 ]] || fail "'$args': not one line: $(cat e)"
    done
    "$CLRPROBE" heap --help >help.out || fail "--help"
    assert_contains help.out "usage: clrprobe heap PID" "help"
    assert_contains help.out "dd:hh:mm:ss (00:00:00:05)" "help: the duration forms"
}

test_heap_command_permission_denied() {
    mkdir -p test_heap_command_permission_denied && cd test_heap_command_permission_denied || fail "work directory"
    other_user_setup
    start_heap_target perm.out 20
    as_other_user "$OTHER_CLRPROBE" heap "$TPID" -o "$OTHER_OUT/perm.clrp" >perm.o 2>perm.e
    local rc=$?
    [[ $rc -ne 0 ]] || fail "clrprobe heap as another user succeeded"
    assert_contains perm.e "run clrprobe as the same user as process $TPID, or as root" "permission message"
}

test_attach_heap_every_takes_snapshots_while_recording() {
    mkdir -p test_attach_heap_every_takes_snapshots_while_recording && cd test_attach_heap_every_takes_snapshots_while_recording || fail "work directory"
    start_heap_target t.out 6
    "$CLRPROBE" attach "$TPID" -o att.clrp --heap-every 0.5 --duration 1.4 >att.out 2>att.err
    assert_eq 0 "$?" "attach exit code: $(cat att.err)"
    "$CLRPROBE" report att.clrp --format jsonl >att.jsonl || fail "report jsonl"
    assert_ge 2 "$(jcount att.jsonl 'select(.kind=="heap_snapshot" and .complete and .method=="gc_roots")')" \
        "complete snapshots after the attach"
    assert_known_heap att.jsonl
    # the recording goes on beside them: the GC timeline has the induced GCs
    assert_ge 1 "$(jcount att.jsonl 'select(.kind=="gc_start")')" "GC events"
}

# --why names the static field, the stack frame's method and each hop's
# field; two snapshots 5 s apart around a known growth (2000 HeapLeaf) show
# it in the diff.
test_heap_why_and_diff_of_a_known_growth() {
    mkdir -p test_heap_why_and_diff_of_a_known_growth && cd test_heap_why_and_diff_of_a_known_growth || fail "work directory"
    start_heap_target t.out 8 2000
    "$CLRPROBE" heap "$TPID" -o grow.clrp --count 2 --interval 5 >heap.out 2>heap.err
    assert_eq 0 "$?" "clrprobe heap: $(cat heap.err)"
    wait "$TPID"
    grep -q "heap grown by 2000" t.out || fail "the target did not grow"
    "$CLRPROBE" report grow.clrp --format jsonl >g.jsonl || fail "report jsonl"
    # the growth happened between the snapshots (4 s after the heap was built; snapshots at about 0 and 5 s)
    assert_eq 1000 "$(jq -r 'select(.kind=="heap_type" and .snapshot==1 and .type=="ClrProbe.Sample.HeapLeaf") | .count' g.jsonl)" \
        "HeapLeaf before the growth"
    assert_eq 3000 "$(jq -r 'select(.kind=="heap_type" and .snapshot==2 and .type=="ClrProbe.Sample.HeapLeaf") | .count' g.jsonl)" \
        "HeapLeaf after the growth"
    # the diff: exact count change, retained growth at least the new leaves' bytes (24 + 128 each)
    assert_eq 2000 "$(jq -r 'select(.kind=="heap_diff" and .type=="ClrProbe.Sample.HeapLeaf") | .count_change' g.jsonl)" \
        "the diff's count change of HeapLeaf"
    assert_eq 1 "$(jcount g.jsonl 'select(.kind=="heap_diff" and .type=="System.Collections.Generic.List<ClrProbe.Sample.HeapLeaf>" and .retained_bytes_change >= 2000 * 144)')" \
        "the list's retained growth"
    # identity across the GCs in between: the 2000 new leaves (and their arrays) are exactly the new ones
    assert_eq true "$(jq -r 'select(.kind=="heap_snapshot" and .snapshot==2) | .identity' g.jsonl)" "identity kept"
    assert_eq 2000 "$(jq -r 'select(.kind=="heap_diff" and .type=="ClrProbe.Sample.HeapLeaf") | .new_objects' g.jsonl)" \
        "new HeapLeaf objects"
    assert_ge 3000 "$(jq -r 'select(.kind=="heap_snapshot" and .snapshot==2) | .seen' g.jsonl)" \
        "objects of snapshot 1 seen again in snapshot 2"
    "$CLRPROBE" report grow.clrp >g.txt || fail "report text"
    assert_contains g.txt "Heap growth (snapshot 1 to snapshot 2" "text diff section"
    grep -Eq '^ +\+2000 .* ClrProbe\.Sample\.HeapLeaf$' g.txt || fail "text diff row of HeapLeaf: $(grep -A8 'Heap growth' g.txt)"
    # the same growth across two traces: --diff OLD
    start_heap_target t2.out 3
    "$CLRPROBE" heap "$TPID" -o small.clrp >/dev/null 2>&1 || fail "clrprobe heap of the small heap"
    "$CLRPROBE" report grow.clrp --diff small.clrp --format jsonl >d.jsonl || fail "report --diff"
    assert_eq 0 "$(jcount d.jsonl 'select(.kind != "heap_diff")')" "jsonl --diff: only its answer's lines"
    "$CLRPROBE" report grow.clrp --diff small.clrp >d.txt || fail "report --diff text"
    assert_contains "$(head -1 d.txt)" "clrprobe trace grow.clrp (pid " "--diff: the one-line header"
    assert_contains "$(head -1 d.txt)" "against small.clrp" "--diff: the older trace named"
    assert_eq "Heap growth" "$(sed -n '3p' d.txt | cut -c1-11)" "--diff: the answer right under the header"
    assert_eq 2000 "$(jq -r 'select(.kind=="heap_diff" and .type=="ClrProbe.Sample.HeapLeaf") | .count_change' d.jsonl)" \
        "--diff OLD: count change of HeapLeaf"
    # --why: the static by name, the stack root by method
    "$CLRPROBE" report grow.clrp --why HeapLeaf >why.txt || fail "report --why"
    # only the answer, under one line naming the trace
    assert_contains "$(head -1 why.txt)" "clrprobe trace grow.clrp (pid " "the one-line header"
    assert_not_contains why.txt "Events by kind" "the rest of the report"
    assert_eq "Why" "$(sed -n '3p' why.txt | cut -c1-3)" "the answer right under the header"
    assert_contains why.txt "Why ClrProbe.Sample.HeapLeaf is alive (snapshot 2: 3000 instances" "why title"
    assert_contains why.txt "3000 instances" "all leaves share one path"
    assert_contains why.txt "    static ClrProbe.Sample.HeapScenario.Owner" "the static root by name"
    assert_contains why.txt "    -> System.Collections.Generic.List<ClrProbe.Sample.HeapLeaf>" "a hop"
    # each hop with the field that holds the next (a property's backing field by the property's name;
    # an array's element without one), as the sample's classes declare them
    assert_eq "$(printf '%s\n' '    static ClrProbe.Sample.HeapScenario.Owner' '    -> ClrProbe.Sample.HeapOwner.Leaves' \
        '    -> System.Collections.Generic.List<ClrProbe.Sample.HeapLeaf>._items' '    -> ClrProbe.Sample.HeapLeaf[]' \
        '    -> ClrProbe.Sample.HeapLeaf')" "$(grep -A4 '^    static ClrProbe.Sample.HeapScenario.Owner$' why.txt)" \
        "the path to HeapLeaf, field by field"
    "$CLRPROBE" report grow.clrp --why 'System.Byte[]' >bytes.txt || fail "report --why System.Byte[]"
    assert_contains bytes.txt "    -> ClrProbe.Sample.HeapLeaf.Payload" "the leaves' arrays by their field"
    "$CLRPROBE" report grow.clrp --why HeapTwig --format jsonl >twig.jsonl || fail "report --why HeapTwig jsonl"
    assert_eq '["Twigs","_entries",null,null]' \
        "$(jq -c 'select(.kind=="heap_root_path" and .root=="static ClrProbe.Sample.HeapScenario.Owner") | .fields' twig.jsonl)" \
        "jsonl: the fields of the path to HeapTwig (Owner.Twigs -> Dictionary._entries -> Entry[] -> HeapTwig)"
    "$CLRPROBE" report grow.clrp --why HeapStackOnly --format jsonl >why.jsonl || fail "report --why jsonl"
    assert_eq 0 "$(jcount why.jsonl 'select(.kind != "heap_root_path")')" "jsonl --why: only its answer's lines"
    assert_eq 300 "$(jq -s '[.[] | select(.kind=="heap_root_path" and .root=="local in ClrProbe.Sample.HeapScenario.HoldOnStack") | .instances] | add' why.jsonl)" \
        "stack-only objects by the method of the frame"
    # errors: an unknown type, a trace without a snapshot, --why with a profile format
    "$CLRPROBE" report grow.clrp --why NoSuchType >o 2>e
    assert_eq 1 "$?" "--why of an unknown type"
    assert_contains e "no object of type 'NoSuchType'" "unknown type message"
    "$CLRPROBE" report grow.clrp --why HeapLeaf --format collapsed >o 2>e
    assert_eq 2 "$?" "--why with collapsed"
}

# Another user binds the heap listener's name of root's target first (any
# user may bind an abstract name) and answers with a made-up snapshot, then
# never again: root's clrprobe heap must not believe it, nor wait on it; it
# says who holds the name, in bounded time.
test_heap_command_refuses_a_squatted_heap_socket() {
    other_user_setup
    start_heap_target prof.out 30
    squat_as_other_user "clrprobe-heap-$TPID" heap.log "snapshot 1 0x00000000 0x0 999999999 1000000000000 5 1000" || return
    "$CLRPROBE" attach "$TPID" -o att.clrp --duration 25 >att.out 2>att.err &
    local att=$!
    at_exit "kill $att 2>/dev/null"
    wait_for_text att.err 20 "attached to process $TPID" || fail "the attach did not attach: $(cat att.err)"
    timeout 60 "$CLRPROBE" heap "$TPID" >h.out 2>h.err
    assert_eq 1 "$?" "clrprobe heap exit code (124: it waited on the squatter): $(cat h.err)"
    assert_contains h.err "the socket name @clrprobe-heap-$TPID is held by process $SQUAT_PID of uid 65534, not by process $TPID" \
        "who holds the name"
    assert_eq 1 "$(wc -l <h.err)" "one line"
    ! grep -q 999999999 h.err || fail "the squatter's snapshot was printed: $(cat h.err)"
    [[ ! -s $OTHER_OUT/heap.log ]] || fail "the request went to the squatter: $(cat "$OTHER_OUT/heap.log")"
    kill -INT "$att"
    wait "$att"
    assert_eq 0 "$?" "the attach's exit code: $(cat att.err)"
}

# A snapshot that does not fit on the disk: the trace stops while it is
# written (the agent's stop note), so the command must not say it was taken
# ("snapshot 1 of 1: N objects"), but say, in one line, that it is not in
# the trace whole and why, and exit 1.  The target is another user's
# (nobody's): the trace goes through a file of that user's and is copied
# into root's at the end, which on a full disk must fit too.
test_heap_command_on_a_full_disk_says_the_snapshot_is_not_whole() {
    other_user_setup
    other_user_sample || return
    mkdir -p small
    mount -t tmpfs -o size=96k tmpfs small 2>/dev/null || skip "cannot mount a tmpfs here"
    at_exit "umount '$PWD/small'"
    chmod 755 small
    as_other_user sh -c 'echo $$ >"$1/pid"; shift; exec "$@"' sh "$OTHER_OUT" "$OTHER_SAMPLE" heap 30 >"$OTHER_OUT/heap.out" 2>&1 &
    wait_for_text "$OTHER_OUT/heap.out" 30 "heap built" || { fail "the sample did not build its heap"; return; }
    TPID=$(cat "$OTHER_OUT/pid")
    at_exit "kill $TPID 2>/dev/null"
    [[ $(stat -c %u "/proc/$TPID") == 65534 ]] || { fail "the target is not nobody's"; return; }
    "$OTHER_CLRPROBE" heap "$TPID" -o small/h.clrp >h.out 2>h.err
    assert_eq 1 "$?" "exit code: $(cat h.err)"
    ! grep -q "snapshot 1 of 1: " h.err || fail "a snapshot not in the trace whole was said to be taken: $(cat h.err)"
    assert_contains h.err "trace written to $PWD/small/h.clrp, but the agent stopped recording early while snapshot 1 of 1 was written, which is not in the trace whole: the disk is full" \
        "what happened"
    assert_eq 2 "$(wc -l <h.err)" "the attach's line and that one"
    "$CLRPROBE" report small/h.clrp --format jsonl >h.jsonl 2>rep.err
    assert_eq 0 "$?" "the trace reads back: $(cat rep.err)"
    assert_eq false "$(jq -r 'select(.kind=="heap_snapshot") | .complete' h.jsonl)" "the report calls it cut short too"
}
