# test_counters.sh - `clrprobe counters` on the real runtime: `Sample rates`
# throws 200 exceptions a second, allocates 20 MiB a second and keeps one
# thread busy; the figures clrprobe shows are checked against those rates,
# against the kernel's CPU accounting of the process, and against
# dotnet-counters (Microsoft's tool, installed by `make setup`) on the same
# process (the rates directly; the CPU, which the machine's load moves,
# each tool against the kernel over its own window); the program's output is as without it; every format parses; bad
# input gets one line and a non-zero exit; nothing is left behind.

DOTNET_COUNTERS="$ROOT/build/tools/dotnet-counters/dotnet-counters"

# rates_target SECONDS: starts `Sample rates SECONDS` (RATES_PID), waits until it runs.
rates_target() {
    "$SAMPLE" rates "$1" >target.out 2>target.err &
    RATES_PID=$!
    at_exit "kill $RATES_PID 2>/dev/null"
    wait_for_text target.out 30 "rates started" || { fail "the sample did not start"; return 1; }
}

# cpu_seconds PID: the process's user + system CPU time, from the kernel.
cpu_seconds() {
    sed 's/^.*) //' "/proc/$1/stat" | awk -v hz="$(getconf CLK_TCK)" '{printf "%.3f", ($12 + $13) / hz}'
}

# median: of the numbers on stdin.
median() {
    sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2];
                                      else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

# mean: of the numbers on stdin.
mean() {
    awk '{s += $1; n++} END {if (n == 0) print "nan"; else print s / n}'
}

# within A B PERCENT: |A - B| <= PERCENT% of B.
within() {
    awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN {d = a - b; if (d < 0) d = -d; exit !(b != 0 && d <= b * p / 100)}'
}

test_counters_agree_with_the_truth_and_dotnet_counters() {
    [[ -x $DOTNET_COUNTERS ]] || { fail "dotnet-counters is not installed in build/tools (run make setup)"; return; }
    "$SAMPLE" rates 1 >plain.out 2>plain.err
    assert_eq 0 "$?" "the program's exit code without clrprobe"
    rates_target 16 || return
    mkdir tmp
    # dotnet-counters first (its `collect` takes the metrics source for itself), then clrprobe; the
    # kernel's count of the process's CPU over each one's window (the machine's load may differ between them)
    local d0 d1 s0 s1
    d0=$(cpu_seconds "$RATES_PID")
    s0=$(date +%s%N)
    "$DOTNET_COUNTERS" collect -p "$RATES_PID" --format json -o dc.json --refresh-interval 1 \
        --counters System.Runtime --duration 00:00:00:05 >dc.out 2>&1 </dev/null
    assert_eq 0 "$?" "dotnet-counters' exit code: $(tail -3 dc.out)"
    s1=$(date +%s%N)
    d1=$(cpu_seconds "$RATES_PID")
    local c0 c1 t0 t1
    c0=$(cpu_seconds "$RATES_PID")
    t0=$(date +%s%N)
    TMPDIR=$PWD/tmp "$CLRPROBE" counters "$RATES_PID" --duration 6s --format json >ours.json 2>ours.err
    assert_eq 0 "$?" "exit code: $(cat ours.err)"
    t1=$(date +%s%N)
    c1=$(cpu_seconds "$RATES_PID")
    assert_eq "" "$(cat ours.err)" "stderr"
    jq -e . ours.json >/dev/null || { fail "not JSON lines"; return; }
    # every line has the fields the issue names, a counter's unit is per second
    assert_eq 0 "$(jq -c 'select((.time | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$") | not) or
                              (.metric | type) != "string" or (.attributes | type) != "object" or
                              (.value | type) != "number" or (.unit | type) != "string")' ours.json | wc -l)" \
        "lines without time, metric, attributes, value or unit"
    local name
    jq -r .metric ours.json | sort -u >names
    for name in dotnet.gc.collections dotnet.gc.heap.total_allocated dotnet.gc.last_collection.heap.size \
        dotnet.gc.pause.time dotnet.exceptions dotnet.monitor.lock_contentions dotnet.thread_pool.thread.count \
        dotnet.thread_pool.queue.length dotnet.thread_pool.work_item.count dotnet.jit.compiled_methods \
        dotnet.process.cpu.time dotnet.process.memory.working_set dotnet.assembly.count dotnet.timer.count; do
        grep -qxF "$name" names || fail "no $name"
    done
    assert_eq "{exception}/s" "$(jq -r 'select(.metric == "dotnet.exceptions") | .unit' ours.json | head -1)" \
        "a counter's unit"
    assert_eq "By" "$(jq -r 'select(.metric == "dotnet.process.memory.working_set") | .unit' ours.json | head -1)" \
        "a gauge's unit"
    # the figures: ours against the program's rates, the kernel, and dotnet-counters
    local exc alloc cpu dc_exc dc_alloc dc_cpu kernel_cpu dc_kernel_cpu
    exc=$(jq 'select(.metric == "dotnet.exceptions" and .attributes."error.type" == "InvalidOperationException")
              | .value' ours.json | median)
    alloc=$(jq 'select(.metric == "dotnet.gc.heap.total_allocated") | .value' ours.json | median)
    # (CPU: the mean over the intervals, which cover most of each window the kernel is read over; the
    # machine's load moves it, so the tolerance adds the part of the window no interval covers)
    cpu=$(jq -s '[.[] | select(.metric == "dotnet.process.cpu.time")] | group_by(.time)
                 | map(map(.value) | add) | .[]' ours.json | mean)
    cpu_n=$(jq -r 'select(.metric == "dotnet.process.cpu.time") | .time' ours.json | sort -u | wc -l)
    dc_exc=$(jq '.Events[] | select((.name | startswith("dotnet.exceptions ")) and
                                    .tags == "error.type=InvalidOperationException") | .value' dc.json | median)
    dc_alloc=$(jq '.Events[] | select(.name | startswith("dotnet.gc.heap.total_allocated ")) | .value' dc.json | median)
    dc_cpu=$(jq '[.Events[] | select(.name | startswith("dotnet.process.cpu.time "))] | group_by(.timestamp[0:19])
                 | map(map(.value) | add) | .[]' dc.json | mean)
    dc_cpu_n=$(jq -r '.Events[] | select(.name | startswith("dotnet.process.cpu.time ")) | .timestamp[0:19]' dc.json |
               sort -u | wc -l)
    kernel_cpu=$(awk -v a="$c0" -v b="$c1" -v t0="$t0" -v t1="$t1" 'BEGIN {printf "%.3f", (b - a) / ((t1 - t0) / 1e9)}')
    dc_kernel_cpu=$(awk -v a="$d0" -v b="$d1" -v t0="$s0" -v t1="$s1" 'BEGIN {printf "%.3f", (b - a) / ((t1 - t0) / 1e9)}')
    echo "exceptions/s: clrprobe $exc, dotnet-counters $dc_exc, the program 200"
    echo "bytes allocated/s: clrprobe $alloc, dotnet-counters $dc_alloc, the program 20971520 in arrays"
    echo "CPU s/s: clrprobe $cpu (the kernel $kernel_cpu), dotnet-counters $dc_cpu (the kernel $dc_kernel_cpu)"
    within "$exc" 200 10 || fail "exceptions a second: $exc, the program throws 200"
    within "$alloc" 20971520 10 || fail "bytes allocated a second: $alloc, the program allocates 20971520"
    local tol dc_tol
    tol=$(awk -v n="$cpu_n" -v t0="$t0" -v t1="$t1" 'BEGIN {w = (t1 - t0) / 1e9; u = 1 - n / w; printf "%.0f", 10 + (u > 0 ? 100 * u : 0)}')
    dc_tol=$(awk -v n="$dc_cpu_n" -v t0="$s0" -v t1="$s1" 'BEGIN {w = (t1 - t0) / 1e9; u = 1 - n / w; printf "%.0f", 10 + (u > 0 ? 100 * u : 0)}')
    echo "CPU tolerances: clrprobe $tol% ($cpu_n intervals), dotnet-counters $dc_tol% ($dc_cpu_n intervals)"
    within "$cpu" "$kernel_cpu" "$tol" || fail "CPU: $cpu s/s, the kernel counted $kernel_cpu"
    within "$exc" "$dc_exc" 10 || fail "exceptions a second: clrprobe $exc, dotnet-counters $dc_exc"
    within "$alloc" "$dc_alloc" 10 || fail "bytes allocated a second: clrprobe $alloc, dotnet-counters $dc_alloc"
    within "$dc_cpu" "$dc_kernel_cpu" "$dc_tol" || fail "CPU: dotnet-counters $dc_cpu s/s, the kernel counted $dc_kernel_cpu"
    wait "$RATES_PID"
    assert_eq 0 "$?" "the program's exit code"
    cmp -s plain.out target.out || fail "the program's output changed: $(diff plain.out target.out | head -5)"
    assert_eq "" "$(ls -A tmp)" "files left in TMPDIR"
}

test_counters_formats() {
    rates_target 12 || return
    # table, not on a terminal: one block an interval, a header each
    "$CLRPROBE" counters "$RATES_PID" --duration 2.5s >table.txt 2>err
    assert_eq 0 "$?" "exit code (table): $(cat err)"
    assert_eq 2 "$(grep -c "^process $RATES_PID (Sample)  20[0-9-]*T[0-9:.]*Z  interval 1.0 s$" table.txt)" \
        "interval headers: $(head -2 table.txt)"
    grep -q '^\[System.Runtime\]$' table.txt || fail "no meter line"
    grep -qE '^    error.type=InvalidOperationException +[0-9]+$' table.txt || fail "no exceptions row"
    grep -q $'\e' table.txt && fail "terminal codes written to a file"
    # csv: a header, then rows of six fields
    "$CLRPROBE" counters "$RATES_PID" --duration 2.5s --format csv --meters 'System.Runtime\dotnet.exceptions' \
        >c.csv 2>err
    assert_eq 0 "$?" "exit code (csv): $(cat err)"
    assert_eq "time,meter,metric,attributes,value,unit" "$(head -1 c.csv)" "the csv header"
    assert_eq 0 "$(tail -n +2 c.csv | grep -cv '^20[^,]*,System.Runtime,dotnet.exceptions,error.type=InvalidOperationException,[0-9.]*,{exception}/s$')" \
        "csv rows other than the one instrument asked for: $(tail -n +2 c.csv | head -3)"
    [[ $(tail -n +2 c.csv | wc -l) -ge 1 ]] || fail "no csv rows"
    # prometheus: the exposition of the last interval, into a file of ours
    "$CLRPROBE" counters "$RATES_PID" --duration 2.5s --format prometheus -o metrics.prom 2>err
    assert_eq 0 "$?" "exit code (prometheus): $(cat err)"
    assert_eq 600 "$(file_mode metrics.prom)" "the output file's mode"
    assert_eq 0 "$(grep -v '^#' metrics.prom | grep -cvE '^[a-zA-Z_:][a-zA-Z0-9_:]*\{pid="[0-9]+",process="Sample"(,[a-zA-Z_][a-zA-Z0-9_]*="[^"]*")*\} [0-9.e+-]+$')" \
        "lines that are not samples: $(grep -v '^#' metrics.prom | head -3)"
    grep -q '^# TYPE dotnet_exceptions_total counter$' metrics.prom || fail "no dotnet_exceptions_total"
    grep -q '^# TYPE dotnet_gc_heap_total_allocated_bytes_total counter$' metrics.prom || fail "no allocated bytes"
    grep -q '^# TYPE dotnet_process_memory_working_set_bytes gauge$' metrics.prom || fail "no working set"
    local total
    total=$(sed -n 's/^dotnet_exceptions_total{.*error_type="InvalidOperationException"} //p' metrics.prom)
    echo "dotnet_exceptions_total over 2.5 s: $total"
    awk -v t="$total" 'BEGIN {exit !(t >= 200 && t <= 700)}' || fail "exceptions counted over ~2 s: $total"
    # Ctrl-C ends it cleanly: the intervals so far, exit code 0
    "$CLRPROBE" counters "$RATES_PID" --format json >int.json 2>err &
    local cpid=$!
    wait_for_text int.json 20 '"metric": "dotnet.exceptions"'
    kill -INT "$cpid"
    wait "$cpid"
    assert_eq 0 "$?" "exit code after Ctrl-C: $(cat err)"
    jq -e . int.json >/dev/null || fail "the output after Ctrl-C is not whole JSON lines"
    wait "$RATES_PID"
    assert_eq 0 "$?" "the program's exit code"
}

test_counters_bad_input() {
    expect_error 2 "counters: unknown format 'xml' (formats: table, csv, json, prometheus)" \
        "$CLRPROBE" counters 1 --format xml
    expect_error 2 "counters: --interval takes whole seconds (1s to 1h), not '1.5'" \
        "$CLRPROBE" counters 1 --interval 1.5
    expect_error 2 "counters: unexpected argument 'extra'" "$CLRPROBE" counters 1 extra
    expect_error 1 "counters: no process with pid 999999999" "$CLRPROBE" counters 999999999
    sleep 30 &
    local other=$!
    at_exit "kill $other 2>/dev/null"
    "$CLRPROBE" counters "$other" --duration 2 >out 2>err
    assert_eq 1 "$?" "exit code for a process that is not .NET"
    assert_eq 1 "$(wc -l <err | tr -d ' ')" "one line on stderr: $(cat err)"
    assert_contains err "is not a .NET process" "the reason"
    "$SAMPLE" rates until stop-first >target.out 2>target.err &
    RATES_PID=$!
    at_exit "kill $RATES_PID 2>/dev/null"
    wait_for_text target.out 30 "rates started" || { fail "the sample did not start"; return; }
    # a meter the process does not have: named, with those it has
    "$CLRPROBE" counters "$RATES_PID" --meters No.Such.Meter --duration 5 >out 2>err
    assert_eq 1 "$?" "exit code for a meter that does not exist"
    assert_eq 1 "$(wc -l <err | tr -d ' ')" "one line on stderr: $(cat err)"
    assert_contains err "process $RATES_PID has no meter 'No.Such.Meter';" "the message"
    assert_contains err "(meter names are case-sensitive;" "the hint"
    assert_contains err "it publishes System.Runtime" "the meters it has"
    # the session it opened is closed: another one starts at once
    "$CLRPROBE" counters "$RATES_PID" --duration 1.5 --format csv >out 2>err
    assert_eq 0 "$?" "a session after the refused one: $(cat err)"
    # the process exits while watched (a program of its own that runs until told to stop, told once an
    # interval was printed): what was seen, a message, exit code 0
    touch stop-first
    wait "$RATES_PID"
    assert_eq 0 "$?" "the first program's exit code"
    "$SAMPLE" rates until stop >target.out 2>target.err &
    RATES_PID=$!
    at_exit "kill $RATES_PID 2>/dev/null"
    wait_for_text target.out 30 "rates started" || { fail "the sample did not start"; return; }
    # (the file made here, before the background command opens it: the loop read a file not yet made
    # once under load, ended at once and stopped the program before clrprobe saw it)
    : >watched.csv
    "$CLRPROBE" counters "$RATES_PID" --format csv >watched.csv 2>err &
    local cpid=$! i
    for ((i = 0; i < 600; i++)); do
        [[ $(wc -l <watched.csv) -ge 2 ]] && break
        sleep 0.1
    done
    touch stop
    wait "$cpid"
    assert_eq 0 "$?" "exit code when the process exits: $(cat err)"
    assert_eq "clrprobe: counters: process $RATES_PID exited" "$(cat err)" "the message"
    [[ $(wc -l <watched.csv) -ge 2 ]] || fail "no interval before the exit"
    wait "$RATES_PID"
    assert_eq 0 "$?" "the program's exit code"
}

test_counters_stopped_in_the_first_collection_leaves_the_process_running() {
    # A program that has not used the thread pool: the metrics source's first collection initializes it,
    # and a session stopped during that collection deadlocked the runtime (stopped 0.98 s after it began,
    # with a 1 s interval: 5 hangs in 5 before clrprobe waited for the first interval to end)
    local d pid k
    for d in 0.95 0.98 1.0; do
        "$SAMPLE" shares 4 >shares.out 2>&1 &
        pid=$!
        at_exit "kill -9 $pid 2>/dev/null"
        sleep 2.1       # (its first 2 s, which clrprobe would wait out anyway)
        "$CLRPROBE" counters "$pid" --duration "$d" --format csv >out.csv 2>err
        assert_eq 0 "$?" "exit code (--duration $d): $(cat err)"
        for ((k = 0; k < 100; k++)); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$pid" 2>/dev/null; then
            fail "the program hangs after a session stopped at $d s"
            kill -9 "$pid"
        fi
        wait "$pid"
    done
}
