# test_stack.sh - `clrprobe stack` on the real runtime: `Sample stacks` has
# a thread waiting in Monitor.Wait in StackTargets.WaitForSignal, one
# spinning in StackTargets.Spin, one sleeping in StackTargets.Nap, one
# reading a loopback TCP connection in StackTargets.Read and one waiting to
# enter a lock another holds in StackTargets.Enter; each is named with its
# state, what it waits in and on, and its stack, innermost first; the
# program's output is as without it; bad input gets one line and a
# non-zero exit.

# stack_target SECONDS: starts `Sample stacks SECONDS` (STACK_PID), waits until its threads are in place.
stack_target() {
    "$SAMPLE" stacks "$1" >target.out 2>&1 &
    STACK_PID=$!
    at_exit "kill $STACK_PID 2>/dev/null"
    wait_for_text target.out 30 "stacks started" || { fail "the sample did not start"; return 1; }
}

# thread_json NAME: the line of stack.json for the thread NAME (or its
# kernel name, NAME cut to 15 bytes: the managed name of a thread that
# started before the attach is not known).
thread_json() {
    jq -c --arg n "$1" --arg k "${1:0:15}" 'select(.name == $n or .name == $k)' stack.json
}

# index_of FRAME LINE: where FRAME is in the line's frames (innermost 0), or -1.
index_of() {
    jq --arg f "$1" '.frames | index($f) // -1' <<<"$2"
}

test_stack_says_what_each_thread_does() {
    "$SAMPLE" stacks 1 >plain.out 2>&1
    stack_target 6 || return
    local t0 t1
    mkdir tmp
    t0=$(date +%s%N)
    TMPDIR=$PWD/tmp "$CLRPROBE" stack "$STACK_PID" --format json >stack.json 2>stack.err
    assert_eq 0 "$?" "exit code: $(cat stack.err)"
    t1=$(date +%s%N)
    echo "clrprobe stack took $(( (t1 - t0) / 1000000 )) ms"
    assert_eq "" "$(cat stack.err)" "stderr"
    jq -e . stack.json >/dev/null || { fail "not JSON lines"; return; }
    local waiter spinner napper
    waiter=$(thread_json clrprobe-waiter)
    spinner=$(thread_json clrprobe-spinner)
    napper=$(thread_json clrprobe-napper)
    echo "waiter: $waiter" | cut -c1-400
    echo "spinner: $spinner" | cut -c1-400
    # the waiter: in Monitor.Wait, called from WaitForSignal, under the C library's wait
    assert_eq waiting "$(jq -r .state <<<"$waiter")" "the waiter's state"
    assert_eq System.Threading.Monitor.Wait "$(jq -r .waiting_in <<<"$waiter")" "what the waiter waits in"
    local w m
    m=$(index_of System.Threading.Monitor.Wait "$waiter")
    w=$(index_of ClrProbe.Sample.StackTargets.WaitForSignal "$waiter")
    [[ $m -ge 1 && $w -gt $m ]] || fail "Monitor.Wait ($m) not inside WaitForSignal ($w), with native frames inside it"
    [[ $(jq -r '.frames[0]' <<<"$waiter") == libc.so.6* ]] || fail "the waiter's innermost frame is not the C library's"
    # the spinner: running in Spin
    assert_eq running "$(jq -r .state <<<"$spinner")" "the spinner's state"
    assert_eq null "$(jq -r .waiting_in <<<"$spinner")" "waiting_in of a running thread"
    [[ $(index_of ClrProbe.Sample.StackTargets.Spin "$spinner") -ge 0 ]] || fail "Spin not on the spinner's stack"
    # the napper: in Thread.Sleep from Nap
    assert_eq waiting "$(jq -r .state <<<"$napper")" "the napper's state"
    assert_eq System.Threading.Thread.Sleep "$(jq -r .waiting_in <<<"$napper")" "what the napper waits in"
    [[ $(index_of ClrProbe.Sample.StackTargets.Nap "$napper") -gt $(index_of System.Threading.Thread.Sleep "$napper") ]] ||
        fail "Thread.Sleep not inside Nap"
    # on what: the sleep, the lock, the socket (its ports the process's own, as the kernel lists them)
    assert_eq "a sleep" "$(jq -r .waiting_on <<<"$napper")" "what the napper waits on"
    assert_eq "a Monitor.Pulse; the lock is released meanwhile" "$(jq -r .waiting_on <<<"$waiter")" \
        "what the waiter waits on"
    local blocked reader on lport rport
    blocked=$(thread_json clrprobe-blocked)
    reader=$(thread_json clrprobe-reader)
    echo "blocked: $(jq -c '{waiting_in, waiting_on}' <<<"$blocked")"
    echo "reader: $(jq -c '{waiting_in, waiting_on}' <<<"$reader")"
    [[ $(jq -r .waiting_in <<<"$blocked") == System.Threading.Monitor.*Enter* ]] ||
        fail "the blocked thread waits in $(jq -r .waiting_in <<<"$blocked")"
    assert_eq "a lock another thread holds" "$(jq -r .waiting_on <<<"$blocked")" "what the blocked thread waits on"
    [[ $(index_of ClrProbe.Sample.StackTargets.Enter "$blocked") -ge 0 ]] || fail "Enter not on the blocked thread's stack"
    on=$(jq -r .waiting_on <<<"$reader")
    [[ $on =~ ^reading\ tcp\ socket\ 127\.0\.0\.1:([0-9]+)\ to\ 127\.0\.0\.1:([0-9]+)$ ]] ||
        fail "what the reader waits on: $on"
    lport=${BASH_REMATCH[1]}
    rport=${BASH_REMATCH[2]}
    [[ -n $lport ]] && awk -v l="$(printf '%04X' "$lport")" -v r="$(printf '%04X' "$rport")" \
        '$2 ~ ":" l "$" && $3 ~ ":" r "$" {found = 1} END {exit !found}' "/proc/$STACK_PID/net/tcp" ||
        fail "no connection $lport -> $rport in the kernel's table"
    [[ $(index_of ClrProbe.Sample.StackTargets.Read "$reader") -ge 0 ]] || fail "Read not on the reader's stack"
    # every thread once, with its tid one of the process's
    assert_eq 0 "$(jq -r .os_tid stack.json | sort | uniq -d | wc -l)" "threads listed twice"
    local tid
    for tid in $(jq -r .os_tid stack.json); do
        [[ -d /proc/$STACK_PID/task/$tid ]] || fail "tid $tid is not a thread of process $STACK_PID"
    done
    # the text form: a header, then one block a thread
    TMPDIR=$PWD/tmp "$CLRPROBE" stack "$STACK_PID" >stack.txt 2>stack.err
    assert_eq 0 "$?" "exit code (text)"
    grep -q "^Process $STACK_PID: [0-9]* threads" stack.txt || fail "no header: $(head -1 stack.txt)"
    grep -q "^Thread clrprobe-waiter (tid [0-9]*): waiting in System.Threading.Monitor.Wait (a Monitor.Pulse; the lock is released meanwhile)$" stack.txt ||
        fail "the waiter's line in the text form"
    grep -q "^Thread clrprobe-spinne (tid [0-9]*): running$" stack.txt || fail "the spinner's line in the text form"
    assert_eq "" "$(ls -A tmp)" "temporary files left"
    wait "$STACK_PID"
    assert_eq 0 "$?" "the program's exit code"
    cmp -s plain.out target.out || fail "the program's output changed"
}

test_stack_bad_input() {
    expect_error 2 "stack: unknown format 'xml' (formats: text, json, pprof)" "$CLRPROBE" stack 1 --format xml
    expect_error 2 "stack: unexpected argument 'extra'" "$CLRPROBE" stack 1 extra
    sleep 30 &
    local other=$!
    at_exit "kill $other 2>/dev/null"
    "$CLRPROBE" stack "$other" >out 2>err
    [[ $? -ne 0 ]] || fail "exit code 0 for a process that is not .NET"
    assert_eq 1 "$(wc -l <err | tr -d ' ')" "one line on stderr: $(cat err)"
    assert_contains err "is not a .NET process" "the reason"
    assert_eq "" "$(cat out)" "stdout"
    # a process that exits while it is watched: short-lived, stack started as it ends
    mkdir tmp
    "$SAMPLE" stacks 0.3 >t.out 2>&1 &
    local pid=$!
    wait_for_text t.out 30 "stacks started"
    sleep 0.25
    TMPDIR=$PWD/tmp "$CLRPROBE" stack "$pid" >out2 2>err2
    local rc=$?
    echo "exit code $rc for a process ending under it: $(cat err2)"
    if ((rc == 0)); then
        # (the threads still there: the sample's own may have ended already)
        grep -q "^Process $pid: [1-9][0-9]* threads" out2 || fail "exit code 0 without the header: $(head -2 out2)"
        grep -q "^Thread .* (tid [0-9]*): \(running\|waiting\)" out2 || fail "exit code 0 without a thread"
    else
        assert_eq 1 "$(wc -l <err2 | tr -d ' ')" "one line on stderr: $(cat err2)"
        assert_eq "" "$(cat out2)" "stdout of a failed stack"
    fi
    wait "$pid"
    assert_eq 0 "$?" "the program's exit code"
    assert_eq "" "$(ls -A tmp)" "temporary files left"
}
