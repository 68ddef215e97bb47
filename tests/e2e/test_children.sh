# test_children.sh - `clrprobe run` follows the .NET processes its program
# starts (docs/config.md#child-processes): the app under `dotnet run` records
# its own trace beside the parent's and the command says which child holds
# it; a process that outlives the run stops recording when it ends, and one
# started after it never records nor creates a file; --no-follow records the
# program alone.

test_children_dotnet_run_traces_the_app() {
    mkdir dr && cd dr || return
    "$CLRPROBE" run -o dr.clrp -- dotnet run --project "$ROOT/sample/Sample.csproj" -c Release --no-build \
        -p:OutDir="$ROOT/build/sample/" -- spin 1 >out 2>err
    assert_eq 0 "$?" "exit code"
    assert_eq "$(printf 'spin started\nspin done')" "$(cat out)" "the app's output"
    local kids=(dr.Sample-*.clrp)
    assert_eq 1 "${#kids[@]}" "one child trace beside the parent's"
    [[ -f ${kids[0]} ]] || { fail "no child trace: $(cat err)"; return; }
    assert_eq 600 "$(file_mode "${kids[0]}")" "the child trace's mode"
    local pid=${kids[0]#dr.Sample-}
    pid=${pid%.clrp}
    assert_contains err "trace written to $PWD/dr.clrp" "the parent's trace"
    assert_contains err "1 process started by dotnet recorded its own trace:" "the list of children"
    assert_contains err "  Sample (pid $pid), " "the child, its pid"
    assert_contains err "dotnet run only launched the app: it ran in Sample (pid $pid), whose trace is $PWD/${kids[0]}" \
        "which child holds the app"
    "$CLRPROBE" report -f collapsed "${kids[0]}" >kid.folded 2>/dev/null
    # (the app spins for a second of wall time: on a loaded machine it gets
    # less of the CPU, so its share of the child's samples, and some)
    local spin all
    spin=$(awk '/ProcessScenarios.Spin/ { n += $NF } END { print n + 0 }' kid.folded)
    all=$(awk '{ n += $NF } END { print n + 0 }' kid.folded)
    assert_ge 10 "$spin" "samples of the app's Spin in the child's trace"
    assert_ge "$((all * 3 / 4))" "$spin" "the app's Spin: most of the child's $all samples"
    "$CLRPROBE" report "${kids[0]}" >kid.txt 2>&1
    assert_contains kid.txt "trace      complete" "the child's trace is complete"
    # The parent's report lists the child; several traces or the directory
    # make one report, each process the root frame.
    "$CLRPROBE" report dr.clrp >parent.txt 2>&1
    assert_contains parent.txt "Processes it started" "the parent's report lists its children"
    assert_contains parent.txt "Sample (pid $pid) " "the child in the parent's report"
    assert_contains parent.txt "${kids[0]}" "the child's trace in the parent's report"
    assert_contains parent.txt "dotnet run only launched the app: it ran in Sample (pid $pid)" \
        "the parent's report says which child holds the app"
    "$CLRPROBE" report -f collapsed . >all.folded 2>all.err
    assert_eq 0 "$?" "report of the directory"
    assert_eq "$spin" "$(awk -v r="Sample (pid $pid);" 'index($0, r) == 1 && /ProcessScenarios.Spin/ { n += $NF } END { print n + 0 }' all.folded)" \
        "the app's samples under its process's root frame"
    assert_eq 0 "$(grep -cv '^\(dotnet\|Sample\) (pid [0-9]*);' all.folded)" "every stack starts with its process"
    "$CLRPROBE" report -f collapsed dr.clrp "${kids[0]}" >two.folded 2>/dev/null
    cmp -s all.folded two.folded || fail "the directory and the two traces named give different reports"
    "$CLRPROBE" report . >all.txt 2>&1
    assert_contains all.txt "Processes" "the text report over the directory lists the processes"
    assert_contains all.txt "== Sample (pid $pid) ==" "and each one's summary"
    "$CLRPROBE" report -f jsonl . >/dev/null 2>jsonl.err
    assert_eq 2 "$?" "jsonl of several traces is refused"
    assert_contains jsonl.err "the jsonl format reads one trace at a time" "why"
}

test_children_no_follow_records_the_program_only() {
    mkdir nf && cd nf || return
    "$CLRPROBE" run --no-follow -o nf.clrp -- dotnet run --project "$ROOT/sample/Sample.csproj" -c Release \
        --no-build -p:OutDir="$ROOT/build/sample/" -- exit 3 >out 2>err
    assert_eq 3 "$?" "exit code"
    assert_contains out "exiting with 3" "the app's output"
    assert_eq "nf.clrp" "$(ls -- *.clrp | tr '\n' ' ' | sed 's/ $//')" "only the parent's trace"
    assert_not_contains err "recorded its own trace" "no children listed"
    assert_contains err "dotnet run only launches the app, in a process that --no-follow leaves unprofiled" \
        "the user is told the app was not profiled"
}

test_children_outliving_and_late_processes() {
    mkdir late && cd late || return
    # The program (sh) ends after 1.5 s: the spinning child outlives the run,
    # and the one started at 3 s comes after it.
    "$CLRPROBE" run -o late.clrp -- sh -c "\"\$0\" spin 4 >spin.out & (sleep 3; \"\$0\" exit 0 >late.out 2>late.err) & sleep 1.5" \
        "$SAMPLE" >out 2>err
    assert_eq 0 "$?" "exit code"
    wait_for_text late.out 30 "exiting with 0" || fail "the late process did not run"
    wait_for_text spin.out 30 "spin done" || fail "the outliving process did not end"
    sleep 0.5
    local kids=(late.*.clrp)
    assert_eq 1 "${#kids[@]}" "one child trace: the outliving one, none of the late one"
    assert_eq "" "$(cat late.err)" "the late process says nothing"
    assert_contains err "still running when the run ended (recording stopped then)" "the outliving child listed"
    assert_contains err "sh itself did not load the .NET runtime with the agent" "the program itself recorded nothing"
    "$CLRPROBE" report -f jsonl "${kids[0]}" >kid.jsonl 2>/dev/null
    assert_eq 1 "$(jcount kid.jsonl 'select(.kind=="note" and (.text|contains("the clrprobe run ended while this process went on")))')" \
        "the note saying why recording stopped"
    # the process's CPU up to then: the window closes before the note
    assert_eq 2 "$(jcount kid.jsonl 'select(.kind=="process_cpu")')" "process_cpu records of the outliving child"
    assert_eq "process_cpu note" "$(jq -r 'select(.kind=="process_cpu" or .kind=="note") | .kind' kid.jsonl | tail -2 |
        tr '\n' ' ' | sed 's/ $//')" "the last process_cpu before the note"
}

# The program's trace file is left open for the program (output_fd): a
# program that does not load .NET (sh) keeps it, but a .NET process it
# starts closes it at once, as the trace is not its own to write.
test_children_do_not_keep_the_programs_trace() {
    mkdir keep && cd keep || return
    local cli shpid kid fd
    # (the command after it keeps a shell from exec'ing the sample in its place)
    "$CLRPROBE" run -o k.clrp -- sh -c '"$0" spin 3 >spin.out; echo "sh done"' "$SAMPLE" >out 2>err &
    cli=$!
    wait_for_text spin.out 30 "spin started" || fail "the sample did not start"
    shpid=$(pgrep -P "$cli" | head -1)
    kid=$(pgrep -P "$shpid" | head -1)
    [[ -n $kid ]] || fail "no child of sh"
    # (under ASan $SAMPLE is a wrapper: the sample may be one level down)
    [[ $(readlink "/proc/$kid/exe") == */Sample ]] || kid=$(pgrep -P "$kid" | head -1)
    local held=0
    for fd in /proc/"$shpid"/fd/*; do
        [[ $(readlink "$fd") == "$PWD"/k.clrp.partial-* ]] && held=1
    done
    assert_eq 1 "$held" "sh, which does not load .NET, holds the trace it inherited"
    for fd in /proc/"$kid"/fd/*; do
        [[ $(readlink "$fd") == "$PWD"/k.clrp.partial-* ]] && fail "the child $kid holds the program's trace"
    done
    wait "$cli"
    assert_eq 0 "$?" "exit code"
    assert_contains err "1 process started by sh recorded its own trace:" "the child recorded its own"
}
