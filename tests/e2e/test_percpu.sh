# test_percpu.sh - the per-CPU clock's signals (docs/sampling.md, "The
# per-CPU clock"), asked by name (--sampler percpu), and the default on a
# kernel without BPF ring buffers: the command's per-CPU events with a BPF
# filter that signals the profiled process's running thread, whose handler
# walks its stack.  The cases of clock_cases.sh that exercise the signals
# and the period's control.
source "$ROOT/tests/e2e/clock_cases.sh"
CLOCK=percpu
CLOCK_ARGS=(--sampler percpu)

# Asked by name: the known shares of `Sample shares` (lib.sh's
# check_shares), and every format that has room for it says so and why;
# the program's output and exit code are those of a run without the agent.
test_percpu_asked_by_name() {
    "$SAMPLE" shares 2 >plain.out 2>&1
    local plain_rc=$?
    "$CLRPROBE" run -o d.clrp --sampler percpu --collect cpu,threads,wall -- "$SAMPLE" shares 2 >d.out 2>d.err
    assert_eq "$plain_rc" "$?" "exit code under the agent: $(cat d.err)"
    assert_eq "$(cat plain.out)" "$(cat d.out)" "the program's output under the agent"
    clock_or_skip d.clrp
    check_shares d.clrp "the per-CPU clock"
    local line="sampler: signal engine, per-CPU perf events held by the clrprobe command, a BPF filter signalling the process's running thread; why: asked (--sampler percpu)"
    assert_sampler_line_everywhere d.clrp "$line"
    assert_contains d.txt "achieved of 100.0 asked (per-CPU perf events held by the clrprobe command" "the text's rate"
    "$CLRPROBE" report d.clrp --format jsonl >d.jsonl 2>/dev/null
    assert_ge 1 "$(jcount d.jsonl 'select(.kind=="sampler_tick" and .clock=="percpu")')" "ticks that say percpu"
    assert_contains "$(html_first_view d.html)" '"clock":"percpu"' "html's clock"
}

test_percpu_bursty_threads_at_the_rate_asked() { case_bursty_threads_at_the_rate_asked; }
test_percpu_busy_threads_at_1000_hz_and_on_one_cpu() { case_busy_threads_at_1000_hz_and_on_one_cpu; }
test_percpu_threads_that_start_and_end() { case_threads_that_start_and_end; }
test_percpu_attach_detach_cycles() { case_attach_detach_cycles; }
test_percpu_exec_ends_the_signals() { case_exec_ends_the_signals; }
