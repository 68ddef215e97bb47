# test_robustness.sh - the program is never hurt by the agent: a bad
# configuration cancels profiling with one stderr line (one, even when the
# value it quotes holds a line break) and the program runs on; a program killed with -9 leaves a readable trace; a damaged trace is
# read around the damage.

test_invalid_config_program_runs_normally() {
    "$SAMPLE" all >plain.out 2>plain.err
    local cfg n=0
    for cfg in 'output=relative.clrp' 'output=/tmp/x.clrp;collect=bogus' 'nonsense' 'output=/tmp/x;colour=red' \
               'output=/nonexistent-dir/x.clrp'; do
        n=$((n + 1))
        agent_env "$cfg" "$SAMPLE" all >bad$n.out 2>bad$n.err
        assert_eq 0 "$?" "exit code with config '$cfg'"
        cmp -s plain.out bad$n.out || fail "stdout changed with config '$cfg'"
        assert_eq 1 "$(grep -c '^clrprobe: ' bad$n.err)" "one clrprobe line on stderr for '$cfg'"
        assert_contains bad$n.err "the program runs without profiling" "message for '$cfg'"
    done
    assert_contains bad1.err "not an absolute path" "relative output"
    assert_contains bad2.err "unknown collect kind 'bogus'" "bad collect kind"
    assert_contains bad4.err "unknown key 'colour'" "unknown key"
    assert_contains bad5.err "cannot create the trace file /nonexistent-dir/x.clrp" "unwritable output"
    # no config at all
    env CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER="$CLSID" \
        CORECLR_PROFILER_PATH="$AGENT" "$SAMPLE" jit >none.out 2>none.err
    assert_eq 0 "$?" "exit code without CLRPROBE_CONFIG"
    assert_contains none.err "CLRPROBE_CONFIG is not set" "missing config"
}

test_config_value_cannot_forge_a_stderr_line() {
    # %0A decodes to a line break inside the value the message quotes; %1B
    # to ESC.  The agent's one line must stay one line, with both escaped.
    "$SAMPLE" jit >plain.out 2>plain.err
    echo $? >plain.rc
    agent_env 'output=relative%0Aclrprobe: forged line%1B[2J' "$SAMPLE" jit >bad.out 2>bad.err
    assert_eq "$(cat plain.rc)" "$?" "exit code with the hostile config"
    cmp -s plain.out bad.out || fail "stdout changed with the hostile config"
    assert_eq 1 "$(wc -l <bad.err | tr -d ' ')" "lines on stderr"
    assert_eq 0 "$(grep -c '^clrprobe: forged' bad.err)" "forged stderr lines"
    assert_contains bad.err "output 'relative\nclrprobe: forged line\x1b[2J' is not an absolute path" \
        "the value is quoted escaped"
    assert_contains bad.err "the program runs without profiling" "message"
    if LC_ALL=C grep -q $'\x1b' bad.err; then fail "an ESC byte reached stderr"; fi
}

test_child_process_of_other_pid_is_silent() {
    # A config for another pid (what a child of the profiled program sees).
    agent_env "output=$WORK/other.clrp;pid=1" "$SAMPLE" jit >out 2>err
    assert_eq 0 "$?" "exit code"
    assert_eq 0 "$(wc -c <err | tr -d ' ')" "nothing on stderr"
    [[ ! -e $WORK/other.clrp ]] || fail "a trace was written for another pid"
}

test_kill_9_leaves_readable_trace() {
    "$CLRPROBE" run -o k9.clrp -- "$SAMPLE" spin 60 >out 2>err &
    local cli=$! child
    wait_for_text out 30 "spin started" || fail "sample did not start"
    sleep 1.2                                      # let the flusher write at least once
    child=$(pgrep -P "$cli" | head -1)
    [[ -n $child ]] || fail "no child process"
    kill -9 "$child"
    wait "$cli"
    assert_eq 137 "$?" "clrprobe exits like its child (128+9)"
    assert_contains err "killed by signal 9" "clrprobe says the program was killed"
    "$CLRPROBE" report k9.clrp --format jsonl >k9.jsonl 2>k9.err
    assert_eq 0 "$?" "report exit code"
    assert_contains k9.err "cut short" "report says the trace was cut short"
    assert_eq false "$(jq -r 'select(.kind=="trace") | .complete' k9.jsonl)" "trace marked incomplete"
    assert_eq 1 "$(jcount k9.jsonl 'select(.kind=="runtime_start")')" "runtime_start survived"
    assert_ge 5 "$(jcount k9.jsonl 'select(.kind=="jit")')" "jit records survived"
    assert_ge 1 "$(jcount k9.jsonl 'select(.kind=="module_load" and (.path|endswith("Sample.dll")))')" "module loads survived"
    "$CLRPROBE" report k9.clrp >k9.txt 2>/dev/null
    assert_contains k9.txt "cut short" "text report says cut short"
}

test_corrupted_chunk_is_skipped() {
    fixture all all
    cp "$FX/trace.clrp" bad.clrp
    local size
    size=$(stat -c %s bad.clrp)
    # flip one byte in the middle of the file
    printf '\xff' | dd of=bad.clrp bs=1 seek=$((size / 2)) conv=notrunc status=none
    "$CLRPROBE" report bad.clrp --format jsonl >bad.jsonl 2>bad.err
    assert_eq 0 "$?" "report exit code"
    assert_contains bad.err "corrupted chunk" "report names the damage"
    local good all
    good=$(wc -l <"$FX/trace.jsonl")
    all=$(wc -l <bad.jsonl)
    [[ $all -lt $good && $all -gt $((good / 4)) ]] || fail "expected some but not all events ($all of $good)"
    assert_eq 1 "$(jq -r 'select(.kind=="trace") | .corrupt_chunks' bad.jsonl)" "one corrupt chunk"
}

test_truncated_file_reads_up_to_last_chunk() {
    fixture all all
    local size
    size=$(stat -c %s "$FX/trace.clrp")
    head -c $((size - 100)) "$FX/trace.clrp" >cut.clrp
    "$CLRPROBE" report cut.clrp >cut.txt 2>cut.err
    assert_eq 0 "$?" "report exit code"
    assert_contains cut.err "cut short" "warning"
    assert_contains cut.txt "jit" "events still reported"
}

test_disk_full_stops_recording_program_unaffected() {
    [[ $(id -u) -eq 0 ]] || skip "needs root to mount a small tmpfs"
    mkdir -p small
    mount -t tmpfs -o size=256k tmpfs small 2>/dev/null || skip "cannot mount a tmpfs here"
    "$SAMPLE" work 3 >plain.out
    "$CLRPROBE" run -o small/full.clrp -- "$SAMPLE" work 3 >prof.out 2>prof.err
    local rc=$?
    "$CLRPROBE" report small/full.clrp --format jsonl >full.jsonl 2>full.err
    "$CLRPROBE" report small/full.clrp >full.txt 2>/dev/null
    umount small
    assert_eq 0 "$rc" "exit code with a full disk"
    cmp -s plain.out prof.out || fail "output changed when the disk filled up"
    assert_eq 1 "$(jcount full.jsonl 'select(.kind=="note" and (.text|startswith("recording stopped: the disk is full")))')" \
        "the trace says recording stopped because the disk is full"
    assert_contains full.err "the agent stopped early, recording stopped: the disk is full" "report warning"
    assert_ge 100 "$(jcount full.jsonl 'select(.kind=="jit")')" "events before the disk filled"
}
