# test_kstack.sh - the stack engine (docs/sampling.md, "The stack engine"):
# the command's per-CPU events, their BPF program taking the stack of the
# profiled process's running thread itself (the kernel's frame-pointer walk,
# the stack's top copied for the agent to walk by the unwind tables) and
# signalling it only in a system call.  The default where the command may
# load BPF (root here), at launch, after attach and for the processes a run
# follows: the cases of clock_cases.sh, and the shares and frames the
# signal engine gives.
source "$ROOT/tests/e2e/clock_cases.sh"
CLOCK=kstack
CLOCK_ARGS=()

# The default where the command may hold it: the known shares of `Sample
# shares` (lib.sh's check_shares), and every format that has room for it
# says so and why; the program's output and exit code are those of a run
# without the agent; asked by name, the same.
test_kstack_is_the_default_where_the_command_may_hold_it() {
    "$SAMPLE" shares 2 >plain.out 2>&1
    local plain_rc=$?
    "$CLRPROBE" run -o d.clrp --collect cpu,threads,wall -- "$SAMPLE" shares 2 >d.out 2>d.err
    assert_eq "$plain_rc" "$?" "exit code under the agent: $(cat d.err)"
    assert_eq "$(cat plain.out)" "$(cat d.out)" "the program's output under the agent"
    clock_or_skip d.clrp
    check_shares d.clrp "the stack engine"
    local line="sampler: stack engine, per-CPU perf events held by the clrprobe command, whose BPF program takes the running thread's stack (a signal only in a system call); why: the default where the clrprobe command may hold it (CAP_BPF and CAP_PERFMON)"
    assert_sampler_line_everywhere d.clrp "$line"
    assert_contains d.txt "each holding one period" "the text's rate"
    "$CLRPROBE" report d.clrp --format jsonl >d.jsonl 2>/dev/null
    assert_ge 1 "$(jcount d.jsonl 'select(.kind=="sampler_tick" and .clock=="kstack")')" "ticks that say kstack"
    assert_contains "$(html_first_view d.html)" '"clock":"kstack"' "html's clock"
    "$CLRPROBE" run -o n.clrp --sampler kstack --collect cpu -- "$SAMPLE" exit 0 >/dev/null 2>&1
    assert_eq "kstack asked (--sampler kstack)" "$("$CLRPROBE" report n.clrp --format jsonl 2>/dev/null |
        jq -r 'select(.kind=="sampler_start") | "\(.clock) \(.why)"')" "--sampler kstack"
}

test_kstack_bursty_threads_at_the_rate_asked() { case_bursty_threads_at_the_rate_asked; }
test_kstack_busy_threads_at_1000_hz_and_on_one_cpu() { case_busy_threads_at_1000_hz_and_on_one_cpu; }
test_kstack_threads_that_start_and_end() { case_threads_that_start_and_end; }
test_kstack_attach_detach_cycles() { case_attach_detach_cycles; }
test_kstack_exec_ends_the_signals() { case_exec_ends_the_signals; }
test_kstack_command_killed_the_program_runs_on() { case_command_killed_the_program_runs_on; }
test_kstack_followed_children() { case_followed_children; }
