# test_files.sh - clrprobe with files, as root in shared directories: what
# it did not create is never destroyed or replaced (devices, pipes, the
# user's files, the input), a link planted by another user is not followed,
# what it creates is private (0600, owned by whoever ran clrprobe), and no
# output, input or unresponsive process makes it hang or ignore Ctrl-C.
# Rules: docs/files.md.

need_root() {
    [[ $(id -u) -eq 0 ]] || skip "needs root (device nodes, a second user)"
    command -v setpriv >/dev/null || skip "needs setpriv (util-linux)"
}

# Each test works in a directory of its own (they share $WORK).
fresh_dir() {
    mkdir -p "$WORK/${FUNCNAME[1]}" && cd "$WORK/${FUNCNAME[1]}"
}

as_nobody() {
    setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

# A directory under /tmp that user nobody can reach, removed when the test
# ends; sets SHARED.  With sticky=1 it is a /tmp-like directory: sticky and
# writable by everyone.
shared_dir() {
    SHARED=$(mktemp -d /tmp/clrprobe-test-shared.XXXXXX)
    at_exit 'rm -rf "$SHARED"'
    if [[ ${1:-0} == 1 ]]; then
        chmod 1777 "$SHARED"
    else
        chmod 755 "$SHARED"
    fi
}

test_report_outputs_that_are_not_files_are_written_in_place() {
    fresh_dir
    need_root
    fixture all all
    mknod dev-null c 1 3 && chmod 666 dev-null
    "$CLRPROBE" report "$FX/trace.clrp" -o dev-null 2>err
    assert_eq 0 "$?" "report into a device"
    [[ -c dev-null ]] || fail "the device node was replaced by a regular file"
    "$CLRPROBE" report "$FX/trace.clrp" -o - >dash.txt
    cmp -s dash.txt "$FX/trace.txt" || fail "-o - is not standard output"
    "$CLRPROBE" report "$FX/trace.clrp" -o /dev/stdout >stdout.txt
    cmp -s stdout.txt "$FX/trace.txt" || fail "-o /dev/stdout is not standard output"
    echo "an earlier line" >log.txt
    "$CLRPROBE" report "$FX/trace.clrp" -o /dev/stdout >>log.txt
    assert_eq "an earlier line" "$(head -1 log.txt)" "what the shell appended to is kept"
    assert_eq "$(($(wc -l <"$FX/trace.txt") + 1))" "$(wc -l <log.txt)" "the report follows it"
    mkfifo out-pipe
    timeout 10 "$CLRPROBE" report "$FX/trace.clrp" -o out-pipe 2>pipe.err
    assert_eq 1 "$?" "a report into a FIFO without a reader is refused at once"
    assert_contains pipe.err "it is a FIFO with no reader; start the reader first" "message"
    [[ -p out-pipe ]] || fail "the FIFO was replaced"
    mknod dev-full c 1 7 && chmod 666 dev-full
    "$CLRPROBE" report "$FX/trace.clrp" -o dev-full 2>full.err
    assert_eq 1 "$?" "report into a full device fails"
    assert_contains full.err "No space left on device" "the reason"
    [[ -c dev-full ]] || fail "the full device node was replaced"
}

test_run_output_that_is_a_device_or_a_fifo() {
    fresh_dir
    need_root
    mkdir -p tmp
    mknod dev-null c 1 3 && chmod 666 dev-null
    "$CLRPROBE" run -o dev-null -- /bin/true 2>true.err
    assert_eq 0 "$?" "exit code of /bin/true"
    [[ -c dev-null ]] || fail "run removed or replaced the device node"
    TMPDIR=$PWD/tmp "$CLRPROBE" run -o dev-null -- "$SAMPLE" jit >jit.out 2>jit.err
    assert_eq 0 "$?" "exit code of the sample"
    [[ -c dev-null ]] || fail "the device node was replaced by the trace"
    assert_contains jit.err "trace written to dev-null" "message"
    mkfifo pipe
    timeout 20 "$CLRPROBE" run -o pipe -- touch ran 2>fifo.err
    assert_eq 1 "$?" "a FIFO without a reader is refused at once"
    assert_contains fifo.err "it is a FIFO with no reader; start the reader first" "message"
    [[ ! -e ran ]] || fail "the program ran although the output could not be written"
    cat pipe >from-pipe.clrp &
    local reader=$!
    sleep 0.2
    TMPDIR=$PWD/tmp timeout 60 "$CLRPROBE" run -o pipe -- "$SAMPLE" jit >pipe.out 2>pipe.err
    assert_eq 0 "$?" "run into a FIFO with a reader"
    wait "$reader"
    "$CLRPROBE" report from-pipe.clrp --format jsonl >from-pipe.jsonl 2>/dev/null
    assert_eq true "$(jq -r 'select(.kind=="trace") | .complete' from-pipe.jsonl)" "the reader got a whole trace"
    assert_eq "" "$(ls tmp)" "no temporary file left in TMPDIR"
}

# ends_within PID SECONDS: waits for PID, a child of this shell, to end, up
# to SECONDS; its exit status in ENDED_RC.  If it does not end, that is a
# failure, and it is killed.
ends_within() {
    local i
    for ((i = 0; i < $2 * 10; i++)); do
        kill -0 "$1" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$1" 2>/dev/null; then
        fail "process $1 did not end within $2 s"
        kill -KILL "$1"
    fi
    wait "$1"
    ENDED_RC=$?
}

# A FIFO whose reader opened it and never reads: the trace (more than the
# FIFO's 64 KiB) cannot be copied into it at the end of a recording, and
# SIGINT or SIGTERM must end that copy at once, the temporary trace
# removed.  `run` first (its program has ended: signals are no longer
# forwarded), then `attach` (its signals are blocked for a signalfd).
test_copy_into_a_fifo_nobody_reads_can_be_interrupted() {
    fresh_dir
    mkdir tmp
    mkfifo pipe
    local sig reader cli t0 ms i expect
    for sig in INT TERM; do
        sleep 60 <pipe >/dev/null &            # opens the FIFO, never reads it
        reader=$!
        at_exit "kill $reader 2>/dev/null"
        sleep 0.2
        TMPDIR=$PWD/tmp "$CLRPROBE" run -o pipe -- "$SAMPLE" spin 1 >run-$sig.out 2>run-$sig.err &
        cli=$!
        wait_for_text run-$sig.out 30 "spin done" || fail "the sample did not end"
        for ((i = 0; i < 100; i++)); do          # the program has ended ...
            pgrep -P "$cli" >/dev/null || break
            sleep 0.1
        done
        sleep 1                                  # ... and its trace fills the FIFO
        kill -0 "$cli" 2>/dev/null || fail "run ended before SIG$sig (a trace smaller than the FIFO?)"
        t0=$(date +%s%N)
        kill -"$sig" "$cli"
        ends_within "$cli" 10
        ms=$((($(date +%s%N) - t0) / 1000000))
        expect=130 && [[ $sig == TERM ]] && expect=143
        assert_eq "$expect" "$ENDED_RC" "run's exit code after SIG$sig"
        [[ $ms -le 5000 ]] || fail "run took $ms ms to honour SIG$sig"   # (timed: generous)
        assert_contains run-$sig.err "interrupted while writing the trace file to pipe" "run's message ($sig)"
        assert_contains run-$sig.err "the trace file was not kept" "run's message ($sig)"
        assert_eq "" "$(ls tmp)" "no temporary file left after SIG$sig (run)"
        [[ -p pipe ]] || fail "the FIFO was replaced"
        kill "$reader" 2>/dev/null
        wait "$reader" 2>/dev/null
    done
    # attach: the target exits, and the trace is copied into the FIFO
    "$SAMPLE" spin 2 >spin.out 2>&1 &
    TPID=$!
    at_exit "kill $TPID 2>/dev/null"
    wait_for_text spin.out 30 "spin started" || fail "the sample did not start"
    sleep 60 <pipe >/dev/null &
    reader=$!
    at_exit "kill $reader 2>/dev/null"
    sleep 0.2
    TMPDIR=$PWD/tmp "$CLRPROBE" attach "$TPID" --rate 1000 -o pipe >att.out 2>att.err &
    cli=$!
    wait_for_text att.err 30 "attached to process" || fail "did not attach"
    wait "$TPID"
    sleep 1
    kill -0 "$cli" 2>/dev/null || fail "attach ended before SIGINT (a trace smaller than the FIFO?)"
    t0=$(date +%s%N)
    kill -INT "$cli"
    ends_within "$cli" 10
    ms=$((($(date +%s%N) - t0) / 1000000))
    assert_eq 130 "$ENDED_RC" "attach's exit code after SIGINT"
    [[ $ms -le 5000 ]] || fail "attach took $ms ms to honour SIGINT"   # (timed: generous)
    assert_contains att.err "interrupted while writing the trace file to pipe" "attach's message"
    assert_eq "" "$(ls tmp)" "no temporary file left (attach)"
    [[ -p pipe ]] || fail "the FIFO was replaced"
}

# The copy into standard output (-o -) never changes the flags of standard
# output's open file description, which others share (the shell, children
# of the profiled program that live on: with O_NONBLOCK set there, their
# writes would fail with EAGAIN).  Its non-blocking writes use a
# description of its own.  Seen while the copy is held by a FIFO nobody
# reads: clrprobe's descriptor 1 is not O_NONBLOCK.
test_copy_into_standard_output_leaves_its_flags_alone() {
    fresh_dir
    mkdir tmp
    mkfifo pipe
    local reader cli flags
    "$SAMPLE" spin 2 >spin.out 2>&1 &
    TPID=$!
    at_exit "kill $TPID 2>/dev/null"
    wait_for_text spin.out 30 "spin started" || fail "the sample did not start"
    sleep 60 <pipe >/dev/null &                  # opens the FIFO, never reads it
    reader=$!
    at_exit "kill $reader 2>/dev/null"
    sleep 0.2
    TMPDIR=$PWD/tmp "$CLRPROBE" attach "$TPID" --rate 1000 -o - >pipe 2>att.err &
    cli=$!
    wait_for_text att.err 30 "attached to process" || fail "did not attach"
    wait "$TPID"
    sleep 1
    kill -0 "$cli" 2>/dev/null || { fail "attach ended before the check (a trace smaller than the FIFO?)"; return; }
    flags=$(awk '/^flags:/ {print $2}' "/proc/$cli/fdinfo/1")
    [[ -n $flags ]] || fail "no flags for clrprobe's standard output"
    (((8#$flags & 8#4000) == 0)) || fail "standard output's description was made non-blocking (flags $flags)"
    kill -INT "$cli"
    ends_within "$cli" 10
    assert_eq 130 "$ENDED_RC" "attach's exit code after SIGINT"
    assert_eq "" "$(ls tmp)" "no temporary file left"
}

test_agent_never_removes_follows_or_blocks_on_its_output() {
    fresh_dir
    need_root
    "$SAMPLE" jit >plain.out 2>&1
    mknod dev-full c 1 7 && chmod 666 dev-full
    agent_env "output=$PWD/dev-full" "$SAMPLE" jit >full.out 2>full.err
    assert_eq 0 "$?" "exit code with a device as the output"
    [[ -c dev-full ]] || fail "the agent removed the device node"
    assert_eq 1 "$(grep -c '^clrprobe: ' full.err)" "one line on stderr"
    assert_contains full.err "is a character device; the agent writes only regular files" "reason"
    mkfifo fifo
    timeout 60 bash -c "$(declare -p CLSID); $(declare -f agent_env); agent_env 'output=$PWD/fifo' '$SAMPLE' jit" >fifo.out 2>fifo.err
    assert_eq 0 "$?" "the program neither hangs nor fails on a FIFO output"
    assert_contains fifo.err "FIFO" "reason"
    [[ -p fifo ]] || fail "the FIFO was removed"
    echo "someone's data" >existing.clrp
    agent_env "output=$PWD/existing.clrp" "$SAMPLE" jit >ex.out 2>ex.err
    assert_eq 0 "$?" "exit code with an existing file as the output"
    assert_contains ex.err "already holds data; the agent never overwrites a file" "reason"
    assert_eq "someone's data" "$(cat existing.clrp)" "the file is left as it was"
    ln -s target.clrp link.clrp
    agent_env "output=$PWD/link.clrp" "$SAMPLE" jit >ln.out 2>ln.err
    assert_contains ln.err "is a symbolic link; the agent does not follow links" "reason"
    [[ ! -e target.clrp ]] || fail "the agent wrote through a link"
    for f in full fifo ex ln; do
        cmp -s plain.out $f.out || fail "the program's output changed ($f)"
    done
}

# trace_fd_cloexec PID PATTERN: checks that every descriptor of process PID
# open on a file whose path matches PATTERN (a glob) is close-on-exec, and
# that there is one: a program the profiled process starts must not inherit
# its trace.  /proc/PID/fdinfo gives the flags in octal; O_CLOEXEC is 02000000.
trace_fd_cloexec() {
    local fd target flags found=0
    for fd in /proc/"$1"/fd/*; do
        target=$(readlink "$fd" 2>/dev/null) || continue
        # shellcheck disable=SC2053
        [[ $target == $2 ]] || continue
        found=1
        flags=$(awk '/^flags:/ {print $2}' "/proc/$1/fdinfo/${fd##*/}")
        [[ -n $flags ]] && (((8#$flags & 02000000) != 0)) ||
            fail "descriptor ${fd##*/} of process $1 on $target is not close-on-exec (flags $flags)"
    done
    [[ $found == 1 ]] || fail "process $1 holds no descriptor on $2"
}

test_trace_descriptors_are_close_on_exec() {
    fresh_dir
    local cli pid
    # run: the agent opens the file clrprobe prepared
    "$CLRPROBE" run -o t.clrp -- "$SAMPLE" spin 3 >run.out 2>&1 &
    cli=$!
    wait_for_text run.out 30 "spin started" || fail "the sample did not start"
    pid=$(pgrep -P "$cli" | head -1)
    trace_fd_cloexec "$pid" "$PWD/t.clrp.partial-*"
    wait "$cli"
    # attach: the descriptor handed over on the control socket
    "$SAMPLE" spin 3 >spin.out 2>&1 &
    TPID=$!
    at_exit "kill $TPID 2>/dev/null"
    wait_for_text spin.out 30 "spin started" || fail "the sample did not start"
    "$CLRPROBE" attach "$TPID" -o a.clrp >a.out 2>a.err &
    cli=$!
    wait_for_text a.err 30 "attached to process" || fail "did not attach"
    trace_fd_cloexec "$TPID" "$PWD/a.clrp.partial-*"
    wait "$cli"
    assert_eq 0 "$?" "attach's exit code"
}

test_existing_files_survive_failures() {
    fresh_dir
    fixture all all
    echo "my notes" >notes.txt
    "$CLRPROBE" run -o notes.txt -- /no/such/program >o 2>e
    assert_eq 127 "$?" "exit code of a missing program"
    assert_eq "my notes" "$(cat notes.txt)" "the file given as output is left as it was"
    cp "$FX/trace.clrp" t.clrp
    "$CLRPROBE" report t.clrp -o t.clrp 2>same.err
    assert_eq 1 "$?" "report over its own input is refused"
    assert_contains same.err "it is the trace being read" "message"
    cmp -s t.clrp "$FX/trace.clrp" || fail "the trace was overwritten by its own report"
    ln -s t.clrp t-link
    "$CLRPROBE" report t.clrp -o t-link 2>same2.err
    assert_eq 1 "$?" "report over its own input through a link is refused"
    # several traces, or a directory of them: the output is none of them
    cp t.clrp u.clrp
    "$CLRPROBE" report t.clrp u.clrp -o u.clrp 2>many.err
    assert_eq 1 "$?" "a report over the second of several inputs is refused"
    assert_contains many.err "it is u.clrp, one of the traces being read" "message"
    cmp -s u.clrp "$FX/trace.clrp" || fail "the second trace was overwritten by the report"
    cp "$FX/trace.clrp" u.clrp
    "$CLRPROBE" report t.clrp u.clrp -o t-link 2>many2.err
    assert_eq 1 "$?" "a report over the first of several inputs, through a link, is refused"
    cmp -s t.clrp "$FX/trace.clrp" || fail "the first trace was overwritten through a link"
    mkdir traces && cp t.clrp traces/a.clrp && cp t.clrp traces/b.clrp
    ln -s traces/b.clrp b-link
    "$CLRPROBE" report traces -o b-link 2>dir.err
    assert_eq 1 "$?" "a report over a trace of the directory read, through a link, is refused"
    assert_contains dir.err "one of the traces being read" "message"
    cmp -s traces/b.clrp "$FX/trace.clrp" || fail "a trace of the directory was overwritten by the report"
    "$CLRPROBE" report t.clrp --diff u.clrp -o u.clrp 2>diff.err
    assert_eq 1 "$?" "a report over its --diff input is refused"
    cmp -s u.clrp "$FX/trace.clrp" || fail "the --diff trace was overwritten by the report"
    echo "not a trace" >bad.clrp
    echo "an old report" >r.txt
    "$CLRPROBE" report bad.clrp -o r.txt 2>bad.err
    assert_eq 1 "$?" "a failed report"
    assert_eq "an old report" "$(cat r.txt)" "a failed report leaves the old one"
    "$CLRPROBE" report t.clrp -o r.txt
    assert_eq 0 "$?" "a report replacing an old one"
    cmp -s r.txt "$FX/trace.txt" || true          # (the title names the input path)
    assert_contains r.txt "Events by kind" "the new report is in place"
    assert_eq "" "$(ls | grep partial)" "no temporary files left"
}

test_planted_links_in_shared_directories_are_not_followed() {
    fresh_dir
    need_root
    echo "fs.protected_symlinks = $(cat /proc/sys/fs/protected_symlinks 2>/dev/null)"
    fixture all all
    shared_dir 1
    echo "root's own file" >"$WORK/victim" && chmod 600 "$WORK/victim"
    as_nobody ln -s "$WORK/victim" "$SHARED/report.txt"
    "$CLRPROBE" report "$FX/trace.clrp" -o "$SHARED/report.txt" 2>planted.err
    assert_eq 1 "$?" "report through a planted link"
    assert_contains planted.err "is a symbolic link that belongs to uid 65534 in $SHARED" "message"
    assert_eq "root's own file" "$(cat "$WORK/victim")" "the link's target is untouched"
    as_nobody ln -s /etc "$SHARED/etc"
    "$CLRPROBE" report "$FX/trace.clrp" -o "$SHARED/etc/clrprobe-test-$$.txt" 2>planted2.err
    assert_eq 1 "$?" "report through a planted directory link"
    [[ ! -e /etc/clrprobe-test-$$.txt ]] || { rm -f "/etc/clrprobe-test-$$.txt"; fail "wrote through the link"; }
    # the predictable default trace names of the next seconds, planted
    # (one reading of the clock: a date per name would skip a second
    # whenever the loop crosses into the next one)
    local s name now
    now=$(date +%s)
    for s in 0 1 2 3 4 5 6 7 8 9 10 11 12; do
        name=clrprobe-Sample-$(date -d "@$((now + s))" +%Y%m%d-%H%M%S).clrp
        as_nobody ln -s "$WORK/victim" "$SHARED/$name"
    done
    (cd "$SHARED" && "$CLRPROBE" run -- "$SAMPLE" exit 0 >"$OLDPWD/def.out" 2>"$OLDPWD/def.err")
    assert_eq 0 "$?" "exit code"
    assert_eq "root's own file" "$(cat "$WORK/victim")" "the planted default name was not followed"
    local trace
    trace=$(sed -n 's/^clrprobe: trace written to //p' def.err)
    [[ -f $trace && ! -L $trace ]] || fail "no trace of our own: '$trace'"
    [[ $trace == "$SHARED"/clrprobe-Sample-*-2.clrp ]] || fail "the trace did not take the next free name: $trace"
    assert_eq "0 600" "$(stat -c '%u %a' "$trace")" "owner and mode of the trace"
    # one's own link is followed, and stays a link
    echo "to be replaced" >"$WORK/mine.txt"
    ln -s "$WORK/mine.txt" "$SHARED/own-link"
    "$CLRPROBE" report "$FX/trace.clrp" -o "$SHARED/own-link"
    assert_eq 0 "$?" "report through one's own link"
    [[ -L $SHARED/own-link ]] || fail "the link was replaced"
    assert_contains "$WORK/mine.txt" "Events by kind" "the report went where the link points"
}

# The rule holds at every link met, not only at those of the path as given:
# one's own link that leads to a planted one, or through a planted
# directory link, is refused too.
test_planted_links_reached_through_other_links_are_not_followed() {
    fresh_dir
    need_root
    fixture all all
    shared_dir 1
    local here
    here=$(pwd -P)
    echo "root's own file" >victim && chmod 600 victim
    mkdir rootdir
    as_nobody ln -s "$here/victim" "$SHARED/p2"
    ln -s "$SHARED/p2" mylink                      # root's own link, in root's directory
    "$CLRPROBE" report "$FX/trace.clrp" -o mylink 2>chain.err
    assert_eq 1 "$?" "report through one's own link to a planted link"
    assert_contains chain.err "$SHARED/p2 is a symbolic link that belongs to uid 65534 in $SHARED" "message"
    assert_contains chain.err "reached through the link $here/mylink" "the message names the link given"
    assert_eq "root's own file" "$(cat victim)" "the planted link's target is untouched"
    [[ -L mylink && -L $SHARED/p2 ]] || fail "a link was replaced"
    "$CLRPROBE" run -o mylink -- touch ran 2>run.err
    assert_eq 1 "$?" "run through one's own link to a planted link"
    assert_contains run.err "is a symbolic link that belongs to uid 65534" "run's message"
    [[ ! -e ran ]] || fail "the program ran although the output could not be written"
    # relative links, and a planted link as a directory inside a link's target
    ln -s "$(realpath --relative-to=. "$SHARED")/./p2" mylink-rel
    "$CLRPROBE" report "$FX/trace.clrp" -o mylink-rel 2>rel.err
    assert_eq 1 "$?" "report through a relative link to a planted link"
    as_nobody ln -s "$here/rootdir" "$SHARED/d"
    ln -s "$SHARED/d/new.txt" mylink-dir
    "$CLRPROBE" report "$FX/trace.clrp" -o mylink-dir 2>dir.err
    assert_eq 1 "$?" "report through a planted directory link inside a link's target"
    assert_contains dir.err "$SHARED/d is a symbolic link that belongs to uid 65534" "message"
    assert_eq "" "$(ls rootdir)" "nothing was written through the planted directory link"
    assert_eq "root's own file" "$(cat victim)" "the victim is untouched"
    # a loop is refused with a message, not followed forever
    ln -s loop-b loop-a && ln -s loop-a loop-b
    timeout 10 "$CLRPROBE" report "$FX/trace.clrp" -o loop-a 2>loop.err
    assert_eq 1 "$?" "report into a loop of links"
    assert_contains loop.err "it leads through more than 40 symbolic links" "message"
    # a chain of one's own links through the shared directory is followed
    echo "to be replaced" >mine.txt
    ln -s "$here/mine.txt" "$SHARED/own"
    ln -s "$SHARED/own" own-chain
    "$CLRPROBE" report "$FX/trace.clrp" -o own-chain
    assert_eq 0 "$?" "report through a chain of one's own links"
    [[ -L own-chain && -L $SHARED/own ]] || fail "a link of the chain was replaced"
    assert_contains mine.txt "Events by kind" "the report went where the chain leads"
    assert_eq "" "$(ls "$SHARED" | grep partial)" "no temporary file left"
}

test_traces_reports_and_partial_files_are_private() {
    fresh_dir
    fixture all all
    (
        umask 000
        "$CLRPROBE" run -o t.clrp -- "$SAMPLE" jit >/dev/null 2>&1
        "$CLRPROBE" report t.clrp -o r.txt
        "$CLRPROBE" run -o long.clrp -- "$SAMPLE" spin 3 >spin.out 2>&1 &
        wait_for_text spin.out 30 "spin started"
        ls -l >during.txt
        stat -c '%n %a' long.clrp.partial-* >partial-mode.txt 2>&1
        wait
    )
    assert_eq 600 "$(file_mode t.clrp)" "mode of a trace (umask 000)"
    assert_eq 600 "$(file_mode r.txt)" "mode of a report (umask 000)"
    assert_eq 600 "$(file_mode long.clrp)" "mode of a trace recorded over time"
    assert_contains partial-mode.txt " 600" "the file being recorded is 0600"
    [[ $(id -u) -eq 0 ]] && command -v setpriv >/dev/null || return 0
    # root attaches to another user's process: the trace is root's, even in a
    # directory that user cannot enter
    shared_dir 0
    cp -r "$ROOT/build/sample" "$SHARED/sample"
    # nobody's process loads the agent: from a copy it can reach (the
    # checkout may be under a directory nobody cannot enter)
    cp "$CLRPROBE" "$AGENT" "$SHARED/"
    mkdir -p "$SHARED/tmp" && chown 65534 "$SHARED/tmp"
    (sanitizer_preload; exec setpriv --reuid=65534 --regid=65534 --clear-groups \
        env HOME="$SHARED/tmp" TMPDIR="$SHARED/tmp" "$SHARED/sample/Sample" spin 20) >nobody.out 2>&1 &
    local target=$!
    wait_for_text nobody.out 30 "spin started" || fail "the sample did not start as nobody"
    mkdir -m 700 private
    "$SHARED/clrprobe" attach "$target" --duration 0.5 -o private/att.clrp >att.out 2>att.err
    assert_eq 0 "$?" "root attaches to nobody's process"
    assert_eq "0 600" "$(stat -c '%u %a' private/att.clrp)" "owner and mode of the trace"
    "$CLRPROBE" report private/att.clrp >att.txt 2>&1
    assert_contains att.txt "trace      complete" "the trace is whole"
    kill "$target"
}

test_report_input_that_is_not_a_file() {
    fresh_dir
    mkfifo in-pipe
    timeout 10 "$CLRPROBE" report in-pipe >o 2>e
    assert_eq 1 "$?" "a FIFO as the trace is refused at once"
    assert_contains e "in-pipe is not a trace file: it is a FIFO" "message"
    mkdir in-dir
    timeout 10 "$CLRPROBE" report in-dir >o 2>e
    assert_contains e "it is a directory" "message"
    # a 1 GB trace (mostly a hole) is read in bounded memory
    fixture all all
    cp "$FX/trace.clrp" big.clrp
    truncate -s 1G big.clrp
    tail -c +300 "$FX/trace.clrp" >>big.clrp
    local kb
    [[ -x /usr/bin/time ]] || { fail "/usr/bin/time is missing (Debian package time, installed by make setup)"; return; }
    /usr/bin/time -o rss.txt -f '%M' "$CLRPROBE" report big.clrp >/dev/null 2>&1
    kb=$(tail -1 rss.txt)
    [[ $kb =~ ^[0-9]+$ ]] || { fail "no peak memory measured: '$kb'"; return; }
    echo "peak RSS reading a 1 GB trace: $kb KB"
    [[ $kb -lt 204800 ]] || fail "reading a 1 GB trace took $kb KB (more than 200 MB)"
}

test_attach_to_an_unresponsive_process_gives_up_in_time() {
    fresh_dir
    DOTNET_EnableDiagnostics=0 "$SAMPLE" mute 60 >mute.out 2>&1 &
    TPID=$!
    local target=$TPID t0 ms
    at_exit "kill $TPID 2>/dev/null"
    wait_for_text mute.out 30 "mute started" || fail "the fake process did not start"
    t0=$(date +%s%N)
    "$CLRPROBE" attach "$target" --timeout 1 -o m.clrp >a.out 2>a.err
    assert_eq 1 "$?" "exit code"
    ms=$((($(date +%s%N) - t0) / 1000000))
    echo "gave up after $ms ms (documented: the timeout, 1 s, plus 5 s)"
    # (timed: generous above for a busy machine; the wait it replaced was a minute longer)
    [[ $ms -ge 5500 && $ms -le 15000 ]] || fail "gave up after $ms ms, not about 6000"
    assert_contains a.err "it did not answer within the attach timeout and 5 s more" "message"
    # interrupted while waiting for the runtime
    "$CLRPROBE" attach "$target" --timeout 60 -o m.clrp >b.out 2>b.err &
    local cli=$!
    sleep 1
    t0=$(date +%s%N)
    kill -TERM "$cli"
    wait "$cli"
    assert_eq 130 "$?" "exit code when interrupted"
    ms=$((($(date +%s%N) - t0) / 1000000))
    [[ $ms -le 5000 ]] || fail "took $ms ms to honour the interruption"   # (timed: generous)
    assert_contains b.err "interrupted: nothing was attached" "message"
    [[ ! -e m.clrp ]] || fail "a trace file was left"
    assert_eq "" "$(ls | grep partial)" "no temporary file left"
}

test_interrupt_while_waiting_for_the_detach() {
    fresh_dir
    "$SAMPLE" spin 8 >spin.out 2>&1 &
    TPID=$!
    local target=$TPID cli t0 ms
    at_exit "kill -CONT $TPID 2>/dev/null; kill $TPID 2>/dev/null"
    wait_for_text spin.out 30 "spin started" || fail "the sample did not start"
    "$CLRPROBE" attach "$target" -o d.clrp >a.out 2>a.err &
    cli=$!
    wait_for_text a.err 30 "attached to process" || fail "did not attach"
    kill -STOP "$target"             # it cannot detach while stopped
    kill -TERM "$cli"                # stop recording: the detach is asked for
    sleep 1
    t0=$(date +%s%N)
    kill -TERM "$cli"                # stop waiting for it
    wait "$cli"
    assert_eq 130 "$?" "exit code"
    ms=$((($(date +%s%N) - t0) / 1000000))
    [[ $ms -le 5000 ]] || fail "took $ms ms to honour the second interruption"   # (timed: generous)
    assert_contains a.err "not waiting for process $target to detach" "message"
    local partial
    partial=$(sed -n 's/.*(`clrprobe report \(.*\)` reads it.*/\1/p' a.err)
    [[ $partial == *d.clrp.partial-* ]] || fail "the message names the file and how to read it: $(cat a.err)"
    kill -CONT "$target"
    wait "$target"
    assert_eq 0 "$?" "the target runs on and exits normally"
    assert_contains spin.out "spin done" "the target's output"
    "$CLRPROBE" report "$partial" >r.txt 2>r.err || fail "the partial trace does not read: $(cat r.err)"
    assert_contains r.txt "pid $target" "the report of the partial trace"
}

test_number_arguments_are_checked() {
    fresh_dir
    "$CLRPROBE" attach 4294967297 >o 2>e
    assert_eq 2 "$?" "pid 2^32+1"
    assert_contains e "'4294967297' is not a process id" "message"
    local v
    for v in nan inf -1 1e300 ""; do
        "$CLRPROBE" attach 1 --duration "$v" >o 2>e
        assert_eq 2 "$?" "--duration '$v'"
        "$CLRPROBE" attach 1 --timeout "$v" >o 2>e
        assert_eq 2 "$?" "--timeout '$v'"
    done
}

test_recording_stopped_early_is_said() {
    fresh_dir
    # A file size limit stops the agent as a full disk does.  (The runtime's
    # W^X double mapping sizes a file of its own, which the limit would
    # refuse: it is turned off for these runs.)
    export DOTNET_EnableWriteXorExecute=0
    ( ulimit -f 200; "$CLRPROBE" run -o small.clrp -- "$SAMPLE" work 5 >w.out 2>w.err )
    assert_eq 0 "$?" "the program runs on"
    assert_contains w.err "but the agent stopped recording early: the trace reached the process's file size limit" \
        "run says why the trace is short"
    (ulimit -f 100; exec "$SAMPLE" spin 8 >spin.out 2>&1) &
    TPID=$!
    at_exit "kill $TPID 2>/dev/null"
    wait_for_text spin.out 30 "spin started"
    "$CLRPROBE" attach "$TPID" --rate 1000 --duration 4 -o att.clrp >a.out 2>a.err
    assert_eq 1 "$?" "attach exit code when the recording stopped early"
    assert_contains a.err "trace written to $PWD/att.clrp, but the agent stopped recording early" "attach says why"
    [[ -f att.clrp ]] || fail "the trace was not put in place"
    assert_eq "" "$(ls | grep partial)" "no partial file left"
    wait "$TPID"
    assert_eq 0 "$?" "the target runs on"
}

test_full_disk_is_said() {
    fresh_dir
    [[ $(id -u) -eq 0 ]] || skip "needs root to mount a small file system"
    mkdir -p small
    mount -t tmpfs -o size=512k tmpfs small 2>/dev/null || skip "cannot mount a tmpfs here"
    at_exit "umount '$PWD/small'"
    "$SAMPLE" work 5 >plain.out
    "$CLRPROBE" run -o small/full.clrp -- "$SAMPLE" work 5 >run.out 2>run.err
    assert_eq 0 "$?" "the program runs on"
    cmp -s plain.out run.out || fail "the program's output changed"
    assert_contains run.err "but the agent stopped recording early: the disk is full" "run says why"
    "$CLRPROBE" report small/full.clrp >r.txt 2>r.err
    assert_eq 0 "$?" "the trace is readable"
    assert_contains r.err "the disk is full" "report says why the trace is short"
}

# swap_script FILE: writes FILE, a program for `clrprobe run` that first
# swaps the directory $SHARED/nb/out (nobody's, in nobody's $SHARED/nb) for
# a link to $ROOTONLY, as nobody, and then runs the sample with its
# arguments: in place of itself (exec) when $1 is exec, else as its child.
# It stands for a user who swaps a directory between the command's check of
# the output path and the agent's start.
swap_script() {
    cat >"$1" <<SCRIPT
#!/bin/bash
setpriv --reuid=65534 --regid=65534 --clear-groups \\
    sh -c 'mv "$SHARED/nb/out" "$SHARED/nb/moved" && ln -s "$ROOTONLY" "$SHARED/nb/out"' || exit 99
how=\$1
shift
[[ \$how == exec ]] && exec "$SAMPLE" "\$@"
"$SAMPLE" "\$@"
SCRIPT
    chmod 755 "$1"
}

# swap_setup: $SHARED/nb/out, nobody's, where root's trace goes, and
# $ROOTONLY, a root-only directory that must stay empty.
swap_setup() {
    shared_dir 0
    install -d -m 755 -o 65534 -g 65534 "$SHARED/nb" "$SHARED/nb/out"
    ROOTONLY=$(pwd -P)/rootonly
    install -d -m 700 "$ROOTONLY"
    swap_script swap.sh
}

# `run` hands the agent its trace file as an open descriptor: a directory
# on the way swapped for a link after the command checked the path (here by
# the program, before .NET starts) does not send the agent elsewhere, and
# the command says where the trace really is.
test_run_output_directory_swapped_at_launch() {
    fresh_dir
    need_root
    swap_setup
    "$SAMPLE" jit >plain.out 2>&1
    local plain_rc=$? trace
    "$CLRPROBE" run -o "$SHARED/nb/out/t.clrp" -- ./swap.sh exec jit >run.out 2>run.err
    assert_eq "$plain_rc" "$?" "exit code"
    cmp -s plain.out run.out || fail "the program's output changed"
    [[ -L $SHARED/nb/out ]] || fail "the directory was not swapped: $(cat run.err)"
    assert_eq "" "$(ls -A "$ROOTONLY")" "nothing is written in the link's target"
    trace=$(sed -n 's/^clrprobe: trace written to //p' run.err)
    assert_eq "$SHARED/nb/moved/t.clrp" "$trace" "the trace is said to be where it is"
    "$CLRPROBE" report "$trace" >report.txt 2>&1
    assert_contains report.txt "trace      complete" "the trace is whole"
    assert_eq "0 600" "$(stat -c '%u %a' "$trace")" "owner and mode of the trace"
    assert_eq "" "$(ls -A "$SHARED/nb/moved" | grep partial)" "no temporary file left"
}

# The same for a process the program starts: its trace file is made in the
# directory the command resolved, through its descriptor, never by path.
test_run_children_directory_swapped_at_launch() {
    fresh_dir
    need_root
    swap_setup
    "$SAMPLE" jit >plain.out 2>&1
    local plain_rc=$? kid
    "$CLRPROBE" run -o "$SHARED/nb/out/t.clrp" -- ./swap.sh child jit >run.out 2>run.err
    assert_eq "$plain_rc" "$?" "exit code"
    cmp -s plain.out run.out || fail "the program's output changed"
    [[ -L $SHARED/nb/out ]] || fail "the directory was not swapped: $(cat run.err)"
    assert_eq "" "$(ls -A "$ROOTONLY")" "nothing is written in the link's target"
    kid=$(sed -n 's/^clrprobe:   Sample (pid [0-9]*), [0-9.]* s: //p' run.err)
    [[ $kid == "$SHARED"/nb/moved/t.Sample-*.clrp ]] || fail "the child's trace is not listed where it is: '$kid'"
    [[ -f $kid ]] || fail "no child trace at $kid"
    "$CLRPROBE" report "$kid" >report.txt 2>&1
    assert_contains report.txt "trace      complete" "the child's trace is whole"
    assert_eq "" "$(ls -A "$SHARED/nb/moved" | grep -v '^t\.Sample-')" "nothing else left in the directory"
}

# -o through links that another user planted in that user's own directory
# (which the kernel's protected_symlinks rule, for sticky directories only,
# lets through): root never follows another user's link, nor a link not its
# own in another user's directory; one clear line says whose link it is.
# A user's own links still work.
test_links_planted_in_another_users_directory_are_not_followed() {
    fresh_dir
    fixture all all
    other_user_setup
    local here
    here=$(pwd -P)
    echo "root's own file" >victim && chmod 600 victim
    install -d -m 700 rootdir
    as_other_user ln -s "$here/victim" "$OTHER_OUT/out.clrp"
    as_other_user ln -s "$here/rootdir" "$OTHER_OUT/dir-link"
    "$SAMPLE" exit 0 >plain.out 2>&1
    "$CLRPROBE" run -o "$OTHER_OUT/out.clrp" -- "$SAMPLE" exit 0 >run.out 2>run.err
    assert_eq 1 "$?" "run -o through nobody's link"
    assert_eq 1 "$(wc -l <run.err)" "one line"
    assert_contains run.err "clrprobe: cannot write trace file: $OTHER_OUT/out.clrp is a symbolic link that belongs to uid 65534, another user" "run's message"
    assert_contains run.err "give the real path" "what to do"
    assert_eq "" "$(cat run.out)" "the program did not run"
    "$CLRPROBE" run -o "$OTHER_OUT/dir-link/t.clrp" -- "$SAMPLE" exit 0 >run2.out 2>run2.err
    assert_eq 1 "$?" "run -o through nobody's directory link"
    assert_contains run2.err "$OTHER_OUT/dir-link is a symbolic link that belongs to uid 65534" "run's message"
    "$CLRPROBE" report "$FX/trace.clrp" -o "$OTHER_OUT/out.clrp" 2>report.err
    assert_eq 1 "$?" "report -o through nobody's link"
    assert_eq 1 "$(wc -l <report.err)" "one line"
    assert_contains report.err "cannot write report: $OTHER_OUT/out.clrp is a symbolic link that belongs to uid 65534" "report's message"
    "$CLRPROBE" report "$FX/trace.clrp" -o "$OTHER_OUT/dir-link/r.txt" 2>report2.err
    assert_eq 1 "$?" "report -o through nobody's directory link"
    # attach and heap: the same rule, before anything is asked of the process
    "$SAMPLE" spin 5 >spin.out 2>&1 &
    local tpid=$!
    at_exit "kill $tpid 2>/dev/null"
    wait_for_text spin.out 30 "spin started" || fail "the sample did not start"
    "$CLRPROBE" attach "$tpid" -o "$OTHER_OUT/out.clrp" 2>attach.err
    assert_eq 1 "$?" "attach -o through nobody's link"
    assert_contains attach.err "$OTHER_OUT/out.clrp is a symbolic link that belongs to uid 65534" "attach's message"
    "$CLRPROBE" heap "$tpid" -o "$OTHER_OUT/dir-link/h.clrp" 2>heap.err
    assert_eq 1 "$?" "heap -o through nobody's directory link"
    assert_contains heap.err "$OTHER_OUT/dir-link is a symbolic link that belongs to uid 65534" "heap's message"
    kill "$tpid" 2>/dev/null
    assert_eq "root's own file" "$(cat victim)" "the victim is untouched"
    assert_eq "" "$(ls -A rootdir)" "nothing was written in the root-only directory"
    [[ -L $OTHER_OUT/out.clrp && -L $OTHER_OUT/dir-link ]] || fail "a planted link was replaced"
    # root's own link in nobody's directory is root's to follow
    echo "to be replaced" >mine.txt
    ln -s "$here/mine.txt" "$OTHER_OUT/roots-link"
    "$CLRPROBE" report "$FX/trace.clrp" -o "$OTHER_OUT/roots-link" 2>report3.err
    assert_eq 0 "$?" "root's own link, in nobody's directory"
    assert_contains mine.txt "Events by kind" "the report went where root's link points"
    # and the real path, given, works
    "$CLRPROBE" run -o "$OTHER_OUT/real.clrp" -- "$SAMPLE" exit 0 >real.out 2>real.err
    assert_eq 0 "$?" "run -o into nobody's directory by its real path"
    cmp -s plain.out real.out || fail "the program's output changed"
    [[ -f $OTHER_OUT/real.clrp && ! -L $OTHER_OUT/real.clrp ]] || fail "no trace at the real path"
    # nobody's own links are nobody's to follow
    cp "$FX/trace.clrp" "$OTHER_DIR/in.clrp" && chmod 644 "$OTHER_DIR/in.clrp"
    as_other_user sh -c 'echo old >out/mine.txt && ln -s "$PWD/out/mine.txt" out/my-link'
    as_other_user "$OTHER_CLRPROBE" report "$OTHER_DIR/in.clrp" -o "$OTHER_OUT/my-link" 2>own.err
    assert_eq 0 "$?" "nobody's report through its own link: $(cat own.err)"
    [[ -L $OTHER_OUT/my-link ]] || fail "nobody's link was replaced"
    assert_contains "$OTHER_OUT/mine.txt" "Events by kind" "the report went where nobody's link points"
}
