# test_pseudo_files.sh - outputs on the kernel's pseudo file systems
# (procfs, sysfs, ...): a file there may look like an empty regular file of
# ours (/proc/self/comm) but keeps nothing, and writing it does something
# (renames the thread).  The command and the agent refuse such an output in
# one line; the program profiled by the agent runs on as without it.

# clrprobe run refuses before starting the program.
test_run_refuses_an_output_on_procfs() {
    "$CLRPROBE" run -o /proc/self/comm -- "$SAMPLE" exit 3 >run.out 2>run.err
    assert_eq 1 "$?" "exit code"
    assert_eq 1 "$(wc -l <run.err)" "one line on stderr: $(cat run.err)"
    assert_contains run.err "clrprobe: cannot write trace file /proc/self/comm: it is on procfs, a pseudo file system; give a file on a real file system" \
        "the reason and the fix"
    assert_not_contains run.out "exiting with" "the program did not start"
}

# The agent loaded with output=/proc/self/comm in its configuration: one
# line, activation cancelled, the program's output and exit code as without
# the agent, and its main thread keeps its name (the trace's header, written
# when the trace opens, before Main, would rename it; `churn until FILE`
# runs until told, so its name can be read).
test_agent_refuses_an_output_on_procfs() {
    local pid plain_comm comm
    "$SAMPLE" churn until "$PWD/stop0" >plain.out 2>plain.err &
    pid=$!
    at_exit "kill $pid 2>/dev/null"
    wait_for_text plain.out 30 "churn started" || fail "the plain run did not start"
    plain_comm=$(cat /proc/$pid/comm)
    touch stop0
    wait "$pid"
    local plain_rc=$?

    # (agent_env's variables, on a simple command: $! is the program's pid)
    env CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER="$CLSID" CORECLR_PROFILER_PATH="$AGENT" \
        CLRPROBE_CONFIG="output=/proc/self/comm" "$SAMPLE" churn until "$PWD/stop" >prof.out 2>prof.err &
    pid=$!
    at_exit "kill $pid 2>/dev/null"
    wait_for_text prof.out 30 "churn started" || fail "the run with the agent did not start"
    comm=$(cat /proc/$pid/comm)
    touch stop
    wait "$pid"
    assert_eq "$plain_rc" "$?" "exit code with the agent"
    assert_eq "$plain_comm" "$comm" "the main thread's name"
    cmp -s plain.out prof.out || { fail "the program's output changed"; diff plain.out prof.out | head; }
    assert_eq 1 "$(grep -c '^clrprobe: ' prof.err)" "one line from the agent: $(cat prof.err)"
    assert_contains prof.err "clrprobe: the trace file /proc/self/comm is on procfs, a pseudo file system; give a file on a real file system; the program runs without profiling" \
        "the reason and the fix"
}
