# lib.sh - helpers for the end-to-end tests: assertions that record a
# failure and go on, and fixtures that run the sample once per suite run and
# share the result (tests run in $WORK, fixtures live in $WORK/fixtures).

__failures=0

# The agent's CLSID, as CORECLR_PROFILER takes it: CLSID_clrprobe of
# src/common/identity.c in its string form (tests/unit/test_identity.c
# checks that form).  The tests that load the agent without `clrprobe run`
# use this.
CLSID='{8C5F2C71-3A9E-4E1B-9F4D-2B7A6C1D0E53}'

fail() {
    echo "  assertion failed: $*"
    __failures=$((__failures + 1))
}

skip() {        # reason: the test cannot run here (e.g. needs root)
    echo "$*"
    exit 77
}

assert_eq() {   # expected actual message
    [[ "$1" == "$2" ]] || fail "$3: expected '$1', got '$2'"
}

assert_ge() {   # minimum actual message
    [[ "$2" =~ ^[0-9]+$ && "$2" -ge "$1" ]] || fail "$3: expected at least $1, got '$2'"
}

# expect_error CODE NEEDLE COMMAND...: COMMAND fails with exit code CODE
# ("any": any but 0), says NEEDLE on stderr, and does not crash.
expect_error() {   # expected-exit-code needle command...
    local want=$1 needle=$2
    shift 2
    "$@" >cmd.out 2>cmd.err
    local rc=$?
    [[ $rc -ne 0 ]] || fail "'$*' succeeded"
    [[ $want == any || $rc -eq $want ]] || fail "'$*' exited $rc, expected $want"
    assert_contains cmd.err "$needle" "message of '$*'"
    grep -q 'Segmentation\|Aborted\|core dumped' cmd.err && fail "'$*' crashed"
    return 0
}

assert_contains() {   # file-or-text needle message
    if [[ -f "$1" ]]; then
        grep -qF -- "$2" "$1" || { fail "$3: '$2' not found in $1"; sed 's/^/    | /' "$1" | tail -5; }
    else
        [[ "$1" == *"$2"* ]] || fail "$3: '$2' not found in: $1"
    fi
}

assert_not_contains() {
    grep -qF -- "$2" "$1" && fail "$3: '$2' unexpectedly found in $1"
    return 0
}

# at_exit COMMAND: runs COMMAND (a string, evaluated) when the test ends, also
# when it is stopped by its time limit; the last registered runs first.
__at_exit=()
at_exit() {
    __at_exit+=("$1")
    trap __run_at_exit EXIT
    trap 'exit 1' TERM INT
}
__run_at_exit() {
    local i
    for ((i = ${#__at_exit[@]} - 1; i >= 0; i--)); do
        eval "${__at_exit[i]}"
    done
}

# ---- Sampled data ------------------------------------------------------------
# A share of CPU samples is an estimate, never exact.  If each of n samples
# lands in a function with probability p, the share has a standard deviation
# of sqrt(p(1-p)/n) (binomial; the sampler's ticks are periodic rather than
# random, which for the sample's workloads spreads less, as measured).  Every
# share assertion allows 5 standard deviations, so a correct profiler fails one
# check in about 1.7 million, plus a known systematic bias: a fraction b of the
# samples may land outside the functions a scenario names (see SHARES_BIAS),
# which lowers a share p by up to p*b.  When p is 0 or 1 the binomial spread is
# 0, and the spread of those outside samples, sqrt(b(1-b)/n), stands in:
#
#     tolerance = 100 * (p*b + 5 * sqrt(max(p(1-p), b(1-b)) / n))   percentage points
#
# n is the number of samples the share is taken of, read from the trace under
# test.  Shares that are 0 by construction (a function never called on a
# thread) are not estimates: they are asserted exactly.
#
# SHARES_BIAS, for `Sample shares`: in 28 recordings on a loaded 2-core
# machine, samples outside the three Burn functions (the loop that calls them,
# caught on its way between two calls; the main thread starting the threads)
# were at most 1.1% of the CPU samples, and samples in a Burn function whose
# leaf is below it (Stopwatch.GetTimestamp; it matters for leaf shares) at
# most 1.4%, 2.1% together; b = 3%.  With 3 s at 100 Hz, n is ~600 CPU samples
# (~420 when the machine is busy), ~300 per burning thread: 50% +-11.7
# points, 37.5% +-11.0, 12.5% +-7.1 of all samples; 100% -7.9 and 75% +-14.8
# of one thread's.  The per-thread shares are what catches a wrong
# attribution even on a busy machine: two functions swapped, or a tenth of a
# thread's samples charged to the wrong function, fails down to ~150 samples
# per thread.
SHARES_BIAS=0.03

# share_tolerance EXPECTED_PERCENT N BIAS: the tolerance in points (rule above).
share_tolerance() {
    awk -v p="$1" -v n="$2" -v b="$3" 'BEGIN {
        p /= 100; v = p * (1 - p); if (b * (1 - b) > v) v = b * (1 - b)
        printf "%.1f", 100 * (p * b + 5 * sqrt(v / n)) }'
}

# assert_few_lost TEXT_REPORT SAMPLES MESSAGE: the samples the text report
# says were lost to a full ring are at most 2% of SAMPLES, and one (the
# collector, starved of CPU on a loaded machine, drains late; a lost
# sample's CPU goes to its thread's next one, so the profile still holds it).
assert_few_lost() {
    local lost
    lost=$(sed -n 's/.* \([0-9][0-9]*\) samples lost (ring full).*/\1/p' "$1" | head -1)
    [[ -n $lost ]] || { fail "$3: no 'samples lost' in the report"; return; }
    awk -v l="$lost" -v n="$2" 'BEGIN {exit !(l <= 1 + 0.02 * n)}' || fail "$3: $lost of $2 samples lost (ring full)"
}

# assert_share ACTUAL_PERCENT EXPECTED_PERCENT N BIAS MESSAGE: ACTUAL (a share
# of N samples) is within share_tolerance of EXPECTED.
assert_share() {
    local tol
    if ! [[ $3 =~ ^[0-9]+$ && $3 -gt 0 ]]; then
        fail "$5: no samples to take a share of (n = '$3')"
        return
    fi
    tol=$(share_tolerance "$2" "$3" "$4")
    echo "$5: $1% of $3 samples; expected $2% +-$tol"
    awk -v v="$1" -v e="$2" -v d="$tol" 'BEGIN {exit !(v != "" && v >= e - d && v <= e + d)}' ||
        fail "$5: $1% of $3 samples is not within $tol points of $2% (5 standard deviations + bias $4)"
}

# check_shares TRACE LABEL: the known shares of `Sample shares` (tolerances:
# assert_share above), of each burning thread and of all CPU samples.  Of
# all: BurnOther holds the busy thread's part, the other two 3/4 and 1/4 of
# the burner's.  (Each thread's part is the CPU the scheduler gave it, half
# each on a quiet machine; beside busy processes, placed on CPUs shared
# unevenly, the two got 2:1 for the length of an attach: 66% in BurnOther.)
check_shares() {
    local n n_busy n_burner
    "$CLRPROBE" report "$1" --format collapsed >cpu.txt 2>/dev/null
    assert_eq 0 "$?" "collapsed report of $2"
    "$CLRPROBE" report "$1" --format collapsed --by-thread >cpu-threads.txt
    "$CLRPROBE" report "$1" --format collapsed --by-thread --view wall >wall-threads.txt
    collapsed_thread clrprobe-busy cpu-threads.txt >busy.txt
    collapsed_thread clrprobe-burner cpu-threads.txt >burner.txt
    n=$(collapsed_total cpu.txt)
    n_busy=$(collapsed_total busy.txt)
    n_burner=$(collapsed_total burner.txt)
    if ! [[ $n =~ ^[0-9]+$ && $n -gt 0 ]]; then
        fail "$2: no CPU samples (n = '$n')"
        return
    fi
    assert_share "$(collapsed_share SharesTargets.BurnOther cpu.txt)" \
        "$(awk -v b="$n_busy" -v n="$n" 'BEGIN {printf "%.1f", 100 * b / n}')" "$n" "$SHARES_BIAS" \
        "$2: BurnOther share (the busy thread's $n_busy samples)"
    assert_share "$(collapsed_share SharesTargets.BurnThreeQuarters cpu.txt)" \
        "$(awk -v b="$n_burner" -v n="$n" 'BEGIN {printf "%.1f", 75 * b / n}')" "$n" "$SHARES_BIAS" \
        "$2: BurnThreeQuarters share (3/4 of the burner's $n_burner samples)"
    assert_share "$(collapsed_share SharesTargets.BurnOneQuarter cpu.txt)" \
        "$(awk -v b="$n_burner" -v n="$n" 'BEGIN {printf "%.1f", 25 * b / n}')" "$n" "$SHARES_BIAS" \
        "$2: BurnOneQuarter share (1/4 of the burner's $n_burner samples)"
    # the two burning threads hold nearly all of the CPU samples (the rest: the loop between two calls and
    # the runtime's threads, SHARES_BIAS of the run; and the start, whose CPU is the same whatever the
    # run's length: up to 200 ms, 20 samples at 100 Hz, in a sanitized run beside busy processes)
    awk -v a="$((n_busy + n_burner))" -v n="$n" -v b="$SHARES_BIAS" 'BEGIN {exit !(a >= (1 - 2 * b) * n - 20)}' ||
        fail "$2: the busy and burner threads hold $((n_busy + n_burner)) of the $n CPU samples"
    # each thread's own split: all of the busy thread in BurnOther, the burner's 3:1
    n=$n_busy
    assert_share "$(collapsed_share SharesTargets.BurnOther busy.txt)" 100 "$n" "$SHARES_BIAS" \
        "$2: BurnOther share of the busy thread"
    n=$n_burner
    assert_share "$(collapsed_share SharesTargets.BurnThreeQuarters burner.txt)" 75 "$n" "$SHARES_BIAS" \
        "$2: BurnThreeQuarters share of the burner thread"
    assert_share "$(collapsed_share SharesTargets.BurnOneQuarter burner.txt)" 25 "$n" "$SHARES_BIAS" \
        "$2: BurnOneQuarter share of the burner thread"
    # (never called there: exactly none)
    assert_eq 0 "$(grep -c 'BurnThreeQuarters\|BurnOneQuarter' busy.txt)" "$2: the burner's functions in the busy thread"
    assert_eq 0 "$(grep -c 'BurnOther' burner.txt)" "$2: BurnOther in the burner thread"
    # (after an attach, threads started before it are known by their kernel name, cut to 15 bytes)
    # The sleeping thread wakes every 20 ms for a few microseconds: in the
    # CPU view only when two of its samples come so close together (ticks
    # delayed, then on time, on a busy machine) that those microseconds are
    # a quarter of the gap; a rare event, so at most 2% of its samples (and
    # one): with the quarter rule broken, all of them would be there.
    local sleeper_cpu sleeper_all
    collapsed_thread clrprobe-sleeper cpu-threads.txt >sleeper-cpu.txt
    collapsed_thread clrprobe-sleeper wall-threads.txt >sleeper-wall.txt
    sleeper_cpu=$(collapsed_total sleeper-cpu.txt)
    sleeper_all=$(collapsed_total sleeper-wall.txt)
    echo "$2: sleeping thread: $sleeper_cpu of its $sleeper_all samples in the CPU view"
    awk -v c="$sleeper_cpu" -v a="$sleeper_all" 'BEGIN {exit !(c <= 1 + 0.02 * a)}' ||
        fail "$2: sleeping thread in the CPU view: $sleeper_cpu of its $sleeper_all samples (at most 2% + 1)"
    assert_ge 1 "$(grep -c '^clrprobe-sleeper\? ([0-9]*);.*SharesTargets.Sleep' wall-threads.txt)" \
        "$2: sleeping thread in the wall view"
}

# assert_sampler_line_everywhere TRACE LINE: LINE ("sampler: ...") in every
# format that has room for it: the text (its report kept as d.txt), html's
# data (d.html), speedscope's name, chrome's otherData, pprof's comments.
assert_sampler_line_everywhere() {
    local trace=$1 line=$2
    "$CLRPROBE" report "$trace" >d.txt 2>&1
    assert_contains d.txt "  $line" "the text"
    "$CLRPROBE" report "$trace" --format html -o d.html 2>/dev/null
    assert_contains "$(html_first_view d.html)" "\"sampler\":\"${line#sampler: }" "html's data"
    "$CLRPROBE" report "$trace" --format speedscope -o d.json 2>/dev/null
    assert_contains "$(jq -r .name d.json)" "$line" "speedscope's name"
    "$CLRPROBE" report "$trace" --format chrome -o d.chrome.json 2>/dev/null
    assert_contains "$(jq -r .otherData.sampler d.chrome.json)" "${line#sampler: }" "chrome's otherData"
    if command -v go >/dev/null; then
        "$CLRPROBE" report "$trace" --format pprof -o d.pb.gz 2>/dev/null
        HOME=${HOME:-$WORK} go tool pprof -comments d.pb.gz >comments.txt 2>/dev/null
        assert_contains comments.txt "$line" "pprof's comments"
    fi
}

# collapsed_share NEEDLE FILE: percentage of the counts of collapsed-stack
# lines (`frames count`) whose stack contains NEEDLE; collapsed_total FILE:
# the total count.
collapsed_share() {
    awk -v n="$1" '{c = $NF; t += c; if (index($0, n)) m += c} END {if (t) printf "%.1f", 100 * m / t; else print "0"}' "$2"
}
collapsed_total() {
    awk '{t += $NF} END {print t + 0}' "$1"
}
# collapsed_thread NAME FILE: the lines of `--by-thread` collapsed output for
# the thread NAME (labelled "NAME (TID)"), also when it is known by its kernel
# name, NAME cut to 15 bytes (threads that started before an attach).
collapsed_thread() {
    awk -v a="$1 (" -v b="${1:0:15} (" '
        function labelled(p) { return index($0, p) == 1 && substr($0, length(p) + 1) ~ /^[0-9]+\);/ }
        labelled(a) || labelled(b)' "$2"
}

# ---- Another user ------------------------------------------------------------
# Tests that run clrprobe as another user (nobody, uid 65534) need root and
# setpriv, and must not run it from the checkout: under a directory that
# other users cannot enter (a 0700 home, mktemp -d) user nobody cannot reach
# it.  other_user_setup copies clrprobe and libclrprobe.so to a fresh
# directory under /tmp that everyone can reach (removed when the test ends)
# and sets OTHER_DIR, OTHER_CLRPROBE and OTHER_OUT (a directory of nobody's).
other_user_setup() {
    [[ $(id -u) -eq 0 ]] || skip "needs root to run clrprobe as another user"
    command -v setpriv >/dev/null || skip "needs setpriv (util-linux)"
    OTHER_DIR=$(mktemp -d /tmp/clrprobe-other.XXXXXX) || { fail "cannot make a directory in /tmp"; return 1; }
    at_exit 'rm -rf "$OTHER_DIR"'
    chmod 755 "$OTHER_DIR"
    cp "$CLRPROBE" "$AGENT" "$OTHER_DIR/" || fail "cannot copy clrprobe to $OTHER_DIR"
    OTHER_CLRPROBE="$OTHER_DIR/clrprobe"
    OTHER_OUT="$OTHER_DIR/out"
    install -d -m 700 -o 65534 -g 65534 "$OTHER_OUT"
}

# other_user_sample: after other_user_setup, a copy of the sample that nobody
# can run (the checkout may be in a 0700 home), started through a script that
# preloads ASan's runtime in a sanitized run (as $SAMPLE does); sets
# OTHER_SAMPLE.  The script execs the sample: its pid is the sample's.  A
# test that attaches root to such a process runs $OTHER_CLRPROBE, whose agent
# beside it the target can open.
other_user_sample() {
    cp -r "$ROOT/build/sample" "$OTHER_DIR/sample" && chmod -R a+rX "$OTHER_DIR/sample" ||
        { fail "cannot copy the sample to $OTHER_DIR"; return 1; }
    cat >"$OTHER_DIR/sample.sh" <<'SH'
#!/bin/sh
if [ -n "${SANITIZER_PRELOAD:-}" ]; then
    LD_PRELOAD=$SANITIZER_PRELOAD${LD_PRELOAD:+:$LD_PRELOAD} ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
    export LD_PRELOAD ASAN_OPTIONS
fi
exec "$(dirname "$0")/sample/Sample" "$@"
SH
    chmod 755 "$OTHER_DIR/sample.sh"
    OTHER_SAMPLE="$OTHER_DIR/sample.sh"
}

# as_other_user COMMAND ARGS...: runs COMMAND as nobody, in $OTHER_DIR.
as_other_user() {
    (cd "$OTHER_DIR" && setpriv --reuid=65534 --regid=65534 --clear-groups "$@")
}

# listener_py FILE: writes the tests' hostile listener, run as FILE ADDRESS
# LOG ANSWER READY: binds ADDRESS (a path; an abstract name when it does not
# start with /), writes its pid to READY once it listens, answers each
# connection with the line ANSWER (if not empty), and appends what it
# receives to LOG.
listener_py() {
    cat >"$1" <<'PY'
import os, socket, sys, threading
name, log, answer, ready = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(name if name.startswith("/") else "\0" + name)
s.listen(64)
with open(ready + ".tmp", "w") as f:
    f.write(str(os.getpid()))
os.rename(ready + ".tmp", ready)
held = []
def serve(c):
    if answer:
        c.sendall(answer.encode() + b"\n")
    while True:
        data = c.recv(4096)
        if not data:
            return
        with open(log, "ab") as f:
            f.write(data)
while True:
    c, _ = s.accept()
    held.append(c)
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
    chmod 644 "$1"
}

# squat_as_other_user NAME LOG [ANSWER]: after other_user_setup, a process of
# nobody's binds the abstract Unix socket @NAME first (as any local user
# may), answers every connection with the line ANSWER (if given) and then
# never again, and appends what it receives to LOG (in $OTHER_OUT).  Waits
# until it listens; sets SQUAT_PID (killed when the test ends).
squat_as_other_user() {
    local name=$1 log=$2 answer=${3:-}
    [[ -x /usr/bin/python3 ]] || skip "needs /usr/bin/python3 for the squatter"
    listener_py "$OTHER_DIR/squat.py"
    rm -f "$OTHER_OUT/squat.ready"
    as_other_user /usr/bin/python3 "$OTHER_DIR/squat.py" "$name" "$OTHER_OUT/$log" "$answer" "$OTHER_OUT/squat.ready" &
    wait_for_text "$OTHER_OUT/squat.ready" 20 "" && SQUAT_PID=$(cat "$OTHER_OUT/squat.ready")
    [[ -n ${SQUAT_PID:-} ]] || { fail "the squatter did not start"; return 1; }
    at_exit "kill $SQUAT_PID 2>/dev/null"
}

# forge_diag_socket PID DIR LOG [USER]: a process (of nobody's with USER
# "other", after other_user_setup; root's otherwise) binds the diagnostics
# socket name of process PID in DIR ("dotnet-diagnostic-PID-KEY-socket",
# the key its start time, public in /proc/PID/stat), accepts, never
# answers, and appends what it receives to LOG.  Waits until it listens;
# sets FORGED (the socket's path) and FORGER_PID (killed, and the socket
# removed, when the test ends).
forge_diag_socket() {
    local pid=$1 dir=$2 log=$3 user=${4:-root} key
    [[ -x /usr/bin/python3 ]] || skip "needs /usr/bin/python3 for the forger"
    key=$(sed 's/.*) //' "/proc/$pid/stat" | awk '{print $20}')
    FORGED="$dir/dotnet-diagnostic-$pid-$key-socket"
    listener_py "$WORK/forge.py"
    local ready="$dir/.forge-ready-$pid"
    rm -f "$ready"
    if [[ $user == other ]]; then
        cp "$WORK/forge.py" "$OTHER_DIR/forge.py" && chmod 644 "$OTHER_DIR/forge.py"
        as_other_user /usr/bin/python3 "$OTHER_DIR/forge.py" "$FORGED" "$log" "" "$ready" &
    else
        /usr/bin/python3 "$WORK/forge.py" "$FORGED" "$log" "" "$ready" &
    fi
    wait_for_text "$ready" 20 "" && FORGER_PID=$(cat "$ready")
    [[ -n ${FORGER_PID:-} ]] || { fail "the forger did not start"; return 1; }
    at_exit "kill $FORGER_PID 2>/dev/null; rm -f '$FORGED' '$ready'"
}

# In a sanitized run (make asan) a .NET program needs ASan's runtime
# preloaded for the sanitized agent (tests/run.sh); $SAMPLE and `dotnet` are
# wrappers that do it.  A test that starts the sample otherwise (with another
# argv[0], a copy of it) calls sanitizer_preload in the subshell that starts
# it, and runs $SAMPLE_BIN, the sample itself.  Nothing to do otherwise.
sanitizer_preload() {
    [[ -n ${SANITIZER_PRELOAD:-} ]] || return 0
    export LD_PRELOAD=$SANITIZER_PRELOAD${LD_PRELOAD:+:$LD_PRELOAD}
    export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
}

# Count jsonl lines matching a jq filter: jcount FILE 'select(...)'
jcount() {
    jq -c "$2" "$1" | wc -l | tr -d ' '
}

# fixture NAME ARGS...: runs the sample with ARGS under the agent once and
# without it once, keeping stdout/stderr/exit code and the trace as jsonl.
# Sets FX to the fixture directory.  The fixtures, like shares_trace, use the
# suspend engine, whose samples serve the CPU and the wall views alike: the
# tests that read them check the records and formats, not the engine
# (test_signal.sh and test_sampling.sh check the engines).
fixture() {
    local name=$1
    shift
    FX="$WORK/fixtures/$name"
    if [[ ! -f $FX/done ]]; then
        mkdir -p "$FX"
        (
            exec 9>"$FX.lock"
            flock 9
            [[ -f $FX/done ]] && exit 0
            "$SAMPLE" "$@" >"$FX/plain.out" 2>"$FX/plain.err"
            echo $? >"$FX/plain.rc"
            "$CLRPROBE" run -o "$FX/trace.clrp" --sampler suspend -- "$SAMPLE" "$@" >"$FX/prof.out" 2>"$FX/prof.err"
            echo $? >"$FX/prof.rc"
            "$CLRPROBE" report "$FX/trace.clrp" --format jsonl >"$FX/trace.jsonl" 2>"$FX/report.err"
            echo $? >"$FX/report.rc"
            "$CLRPROBE" report "$FX/trace.clrp" >"$FX/trace.txt" 2>>"$FX/report.err"
            touch "$FX/done"
        )
    fi
}

# shares_trace: records `Sample shares 3` once per suite run (the suspend
# engine, see fixture); sets TRACE.
shares_trace() {
    local dir="$WORK/fixtures/shares"
    TRACE="$dir/shares.clrp"
    mkdir -p "$dir"
    (
        exec 9>"$dir.lock"
        flock 9
        [[ -f $dir/done ]] && exit 0
        "$CLRPROBE" run -o "$TRACE" --sampler suspend -- "$SAMPLE" shares 3 >"$dir/run.out" 2>"$dir/run.err"
        echo $? >"$dir/run.rc"
        touch "$dir/done"
    )
    assert_eq 0 "$(cat "$dir/run.rc")" "exit code of the recording"
    [[ -s $TRACE ]] || fail "no trace recorded"
}

# sleeper_cpu_samples TRACE: how many samples the CPU view of TRACE gives the
# `shares` sample's sleeping thread.  It wakes every 20 ms for microseconds,
# so the CPU view has it only in the rare case test_sampling.sh bounds (two
# ticks close together on a busy machine): a format's CPU view must show
# exactly this many, most often none, not a fixed 0 that a loaded machine breaks.
sleeper_cpu_samples() {
    "$CLRPROBE" report "$1" --format collapsed --by-thread 2>/dev/null >sleeper-threads.txt
    collapsed_thread clrprobe-sleeper sleeper-threads.txt | collapsed_total /dev/stdin
}

# burn_until_exit TRACE ENGINE: records `Sample burn 2 2400000 wait` (two
# threads busy for ~1.5 s of CPU each, then a wait for a line on stdin)
# under clrprobe run --sampler ENGINE into TRACE, and sets PROC_CPU to the
# kernel's count of the target's CPU (utime + stime of /proc/PID/stat, in
# seconds) read just before it exits.  Returns non-zero (a failure said)
# when the sample or the recording failed.
burn_until_exit() {
    local rpid tpid rc
    PROC_CPU=
    mkfifo in.fifo
    "$CLRPROBE" run --sampler "$2" -o "$1" -- "$SAMPLE" burn 2 2400000 wait <in.fifo >burn.out 2>burn.err &
    rpid=$!
    exec 7>in.fifo
    at_exit "exec 7>&-; kill $rpid 2>/dev/null"
    wait_for_text burn.out 60 "burn waiting" || { fail "the sample did not get to its wait"; cat burn.err; return 1; }
    tpid=$(sed -n 's/^burn waiting (pid \([0-9]*\))$/\1/p' burn.out)
    PROC_CPU=$(sed 's/^.*) //' "/proc/$tpid/stat" | awk -v hz="$(getconf CLK_TCK)" '{printf "%.3f", ($12 + $13) / hz}')
    echo >&7
    exec 7>&-
    wait "$rpid"
    rc=$?
    assert_eq 0 "$rc" "exit code"
    return "$rc"
}

# Waits up to $2 seconds for file $1 to contain $3.
wait_for_text() {
    local i
    for ((i = 0; i < $2 * 20; i++)); do
        grep -qF -- "$3" "$1" 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}

# attach_when_ready PID ARG...: clrprobe attach PID ARG..., once the
# runtime's diagnostics socket is there (named with the process's start
# time, field 22 of its stat, so that a stale socket of an earlier process
# with the same pid is not taken for it; 30 s at most), and again while the
# runtime says it is still starting (10 s at most); what the last attach
# said on stderr goes to stderr, its exit code is returned.
attach_when_ready() {
    local pid=$1 start k rc
    shift
    start=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{print $20}')
    for ((k = 0; k < 300; k++)); do
        [[ -S ${TMPDIR:-/tmp}/dotnet-diagnostic-$pid-$start-socket ]] && break
        sleep 0.1
    done
    for ((k = 0; k < 100; k++)); do
        "$CLRPROBE" attach "$pid" "$@" 2>attach_when_ready.err
        rc=$?
        ((rc != 0)) && grep -q "the runtime is not ready yet" attach_when_ready.err || break
        sleep 0.1
    done
    cat attach_when_ready.err >&2
    return "$rc"
}

# agent_env CONFIG COMMAND...: runs COMMAND with the variables clrprobe run
# would set, but with our own configuration text.
agent_env() {
    env CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER="$CLSID" \
        CORECLR_PROFILER_PATH="$AGENT" CLRPROBE_CONFIG="$1" "${@:2}"
}

# file_mode PATH: the permission bits, e.g. 600.
file_mode() {
    stat -c %a "$1"
}

# need_chromium: sets CHROMIUM, or skips the test.
# html_first_view PAGE: an html report up to the data of the views it does
# not show first (those, for its view picker, follow in "views"): what
# greps for the shown view's numbers read.
html_first_view() {
    sed '/"views":\[/,$d' "$1"
}

need_chromium() {
    local c
    CHROMIUM=
    for c in chromium chromium-browser google-chrome; do
        command -v "$c" >/dev/null && { CHROMIUM=$c; break; }
    done
    [[ -n $CHROMIUM ]] || skip "chromium is not installed (scripts/setup.sh installs the Debian package 'chromium')"
    "$CHROMIUM" --version >/dev/null 2>&1 || skip "chromium is installed but does not run here ($CHROMIUM --version fails)"
}

# chrome ARGS...: headless Chromium with a throw-away profile, nothing fetched
# from the network; its own log goes to chromium.log.
chrome() {
    local profile rc
    profile=$(mktemp -d)
    timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync --disable-extensions \
        --user-data-dir="$profile" "$@" 2>>chromium.log
    rc=$?
    rm -rf "$profile"
    return $rc
}

# wait_unmapped PID: waits (up to 10 s) until libclrprobe.so is gone from
# the process's maps (the runtime unloads it just after a detach); prints
# how many mappings are left.
wait_unmapped() {
    local i lib
    for i in $(seq 200); do
        lib=$(grep -c libclrprobe.so "/proc/$1/maps")
        [[ $lib -eq 0 ]] && break
        sleep 0.05
    done
    echo "$lib"
}

# ---- A stand-in APM agent ----------------------------------------------------
# tests/apm/standin_agent.c, built by make into build/tests/: a minimal main
# profiler loaded at launch that logs each callback it gets, with the time
# (realtime ns), to $PWD/apm.log.
STANDIN="$ROOT/build/tests/libstandin_agent.so"
# A command run with perf_event_open refused by a seccomp filter (tests/tools/deny_perf).
DENY_PERF="$ROOT/build/tests/deny_perf"
STANDIN_CLSID='{A11CE0DE-5EED-4A9E-8C7B-0123456789AB}'

# with_standin COMMAND...: runs COMMAND with the stand-in as the startup
# profiler, logging to $PWD/apm.log.  In the background, `with_standin ... &`
# would give the pid of a subshell: start_with_standin OUT COMMAND... runs it
# there itself, output to OUT, and sets TPID to the program's own pid.
standin_env() {
    [[ -f $STANDIN ]] || { fail "the stand-in agent is not built (make $STANDIN)"; exit 1; }
    STANDIN_ENV=(CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER="$STANDIN_CLSID" CORECLR_PROFILER_PATH="$STANDIN"
                 APM_STANDIN_LOG="$PWD/apm.log")
}
with_standin() {
    standin_env
    env "${STANDIN_ENV[@]}" "$@"
}
start_with_standin() {
    local out=$1
    shift
    standin_env
    env "${STANDIN_ENV[@]}" "$@" >"$out" 2>"$out.err" &
    TPID=$!
    at_exit "kill $TPID 2>/dev/null"
}

# standin_events KIND [AFTER_NS]: how many callbacks of KIND the stand-in
# logged (after the realtime AFTER_NS).
standin_events() {
    awk -v k="$1" -v after="${2:-0}" '$2 == k && $1 > after { n++ } END { print n + 0 }' apm.log
}
