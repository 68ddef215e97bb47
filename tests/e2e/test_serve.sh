# test_serve.sh - `clrprobe serve` with its real consumer: a Prometheus
# (Debian's, from `make setup`) scrapes it every second and its HTTP API is
# asked for the series of `Sample rates` (200 exceptions a second): the
# series is there with the process's labels and the rate Prometheus computes
# from the totals is the program's; every endpoint's body parses; garbage
# requests get an HTTP error and leave the server as it was; a process that
# exits is dropped; SIGTERM ends serve and its sessions.

# free_port: a TCP port nobody listens on now (for Prometheus' own).
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# serve_start ARGS...: `clrprobe serve --listen 127.0.0.1:0 --token-file serve.token ARGS`
# (SERVE_PID), its port in SERVE_PORT, its token in SERVE_TOKEN and as curl's
# header in AUTH.  (The tests always name their processes with --pids: serve
# must not touch the other .NET processes of the machine, other users' and
# other tests'.)
serve_start() {
    "$CLRPROBE" serve --listen 127.0.0.1:0 --token-file "$PWD/serve.token" "$@" 2>serve.err &
    SERVE_PID=$!
    at_exit "kill $SERVE_PID 2>/dev/null"
    wait_for_text serve.err 20 "/metrics and /processes" || { fail "serve did not start: $(cat serve.err)"; return 1; }
    SERVE_PORT=$(sed -n 's/.*serving http:\/\/127\.0\.0\.1:\([0-9]*\)\/metrics.*/\1/p' serve.err)
    [[ -n $SERVE_PORT ]] || { fail "no port in: $(cat serve.err)"; return 1; }
    SERVE_TOKEN=$(cat serve.token)
    AUTH=(-H "Authorization: Bearer $SERVE_TOKEN")
}

# get PATH [CURL ARGS...]: the body of http://127.0.0.1:SERVE_PORT/PATH
get() {
    local path=$1
    shift
    curl -s --max-time 10 "${AUTH[@]}" "$@" "http://127.0.0.1:$SERVE_PORT$path"
}

# until_reading PID: waits (30 s at most) until serve reads PID's metrics.
until_reading() {
    local k
    for ((k = 0; k < 300; k++)); do
        get /processes | jq -e --argjson p "$1" '.[] | select(.pid == $p and .metrics == "reading" and .series > 0)' \
            >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    return 1
}

test_serve_prometheus_stores_the_runtime_metrics() {
    "$SAMPLE" rates 1 >plain.out 2>/dev/null
    "$SAMPLE" rates 25 >target.out 2>/dev/null &
    local pid=$! pport
    at_exit "kill $pid 2>/dev/null"
    wait_for_text target.out 30 "rates started" || { fail "the sample did not start"; return; }
    serve_start --pids "$pid" || return
    until_reading "$pid" || { fail "serve does not read process $pid: $(get /processes)"; return; }
    # /processes: the process, with its name and runtime
    get /processes >processes.json
    jq -e . processes.json >/dev/null || { fail "/processes is not JSON"; return; }
    assert_eq Sample "$(jq -r --argjson p "$pid" '.[] | select(.pid == $p) | .name' processes.json)" "its name"
    [[ $(jq -r --argjson p "$pid" '.[] | select(.pid == $p) | .runtime' processes.json) =~ ^[0-9]+\.[0-9]+\.[0-9]+ ]] ||
        fail "its runtime version: $(cat processes.json)"
    # /metrics: every line a comment or a sample
    get /metrics >metrics.txt
    assert_eq 0 "$(grep -v '^#' metrics.txt | grep -cvE '^[a-zA-Z_:][a-zA-Z0-9_:]*\{[^}]*\} [0-9.e+-]+$')" \
        "lines that are not samples: $(grep -v '^#' metrics.txt | head -3)"
    grep -q "^dotnet_exceptions_total{pid=\"$pid\",process=\"Sample\",runtime_version=\"[0-9.]*\",otel_scope_name=\"System.Runtime\",error_type=\"InvalidOperationException\"} [0-9]" \
        metrics.txt || fail "no dotnet_exceptions_total of $pid: $(grep exceptions metrics.txt | head -3)"
    # a real Prometheus scrapes it every second
    pport=$(free_port)
    cat >prometheus.yml <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: clrprobe
    authorization:
      credentials_file: $PWD/serve.token
    static_configs:
      - targets: ["127.0.0.1:$SERVE_PORT"]
YML
    prometheus --config.file=prometheus.yml --storage.tsdb.path=tsdb --web.listen-address="127.0.0.1:$pport" \
        >prometheus.log 2>&1 &
    local prom=$!
    at_exit "kill $prom 2>/dev/null"
    local k rate="" q
    q="rate(dotnet_exceptions_total{pid=\"$pid\",error_type=\"InvalidOperationException\"}[10s])"
    for ((k = 0; k < 60; k++)); do
        sleep 0.5
        # (after 12 s of scrapes the 10 s window is full)
        curl -s "http://127.0.0.1:$pport/api/v1/query" --data-urlencode \
            "query=count_over_time(dotnet_exceptions_total{pid=\"$pid\"}[12s])" >count.json 2>/dev/null || continue
        [[ $(jq -r '.data.result[0].value[1] // 0' count.json) -ge 11 ]] && break
    done
    curl -s "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$q" >rate.json
    rate=$(jq -r '.data.result[0].value[1] // empty' rate.json)
    echo "Prometheus: $q = $rate (the program throws 200 a second)"
    [[ -n $rate ]] || { fail "Prometheus has no such series: $(cat rate.json) $(tail -3 prometheus.log)"; return; }
    awk -v r="$rate" 'BEGIN {exit !(r >= 160 && r <= 240)}' || fail "the rate Prometheus computed: $rate"
    curl -s "http://127.0.0.1:$pport/api/v1/query" --data-urlencode \
        "query=dotnet_process_memory_working_set_bytes{pid=\"$pid\",process=\"Sample\"}" >ws.json
    [[ $(jq -r '.data.result[0].value[1] // 0' ws.json) -gt 1000000 ]] || fail "no working set: $(cat ws.json)"
    curl -s "http://127.0.0.1:$pport/api/v1/targets" | jq -e '.data.activeTargets[0].health == "up"' >/dev/null ||
        fail "the scrape target is not up"
    wait "$pid"
    assert_eq 0 "$?" "the program's exit code"
    cmp -s plain.out target.out || fail "the program's output changed"
}

# A diagnostics socket nobody forged for a root process (its pid and start
# time are public) is not served: root's serve neither lists the process
# nor reads it, names the socket once on its stderr, and sends it nothing;
# the real .NET process beside it is served as before.
test_serve_forged_socket_is_not_served() {
    other_user_setup
    local tmp="$OTHER_DIR/tmp" live victim
    install -d -m 1777 "$tmp"
    TMPDIR="$tmp" "$SAMPLE" spin 60 >live.out 2>&1 &
    live=$!
    at_exit "kill $live 2>/dev/null"
    wait_for_text live.out 30 "spin started" || { fail "the sample did not start"; return; }
    sleep 60 &
    victim=$!
    at_exit "kill $victim 2>/dev/null"
    install -m 666 /dev/null "$OTHER_OUT/sent.log"
    forge_diag_socket "$victim" "$tmp" "$OTHER_OUT/sent.log" other || return
    TMPDIR="$tmp" serve_start --pids "$live,$victim" || return
    until_reading "$live" || { fail "serve does not read process $live: $(get /processes)"; return; }
    assert_eq "" "$(get /processes | jq -r --argjson p "$victim" '.[] | select(.pid == $p) | .pid')" \
        "root's sleep $victim in /processes"
    assert_eq 0 "$(get /metrics | grep -c "pid=\"$victim\"")" "series of root's sleep $victim"
    assert_eq 404 "$(get "/pid/$victim/debug/pprof/profile?seconds=1" -o /dev/null -w '%{http_code}')" \
        "a profile of root's sleep"
    assert_eq 1 "$(grep -c "skipped $FORGED: made by uid 65534 (nobody)" serve.err)" "lines naming the fake: $(cat serve.err)"
    assert_eq 0 "$(stat -c %s "$OTHER_OUT/sent.log")" "bytes sent to nobody's socket"
}

# Credentials by default: as another user (nobody), every path of root's
# serve answers 401 without the token, with a wrong one of the same length,
# a shorter one or another scheme, and says nothing of the processes; with
# the token, a profile is served.  The token file serve made is 0600 and
# holds 64 hex digits, which are neither on serve's command line nor on its
# stderr.  A token file another user could read or replace is refused, one
# line why; --no-auth asks nothing and says what that exposes.
test_serve_asks_credentials_of_everyone() {
    other_user_setup
    "$SAMPLE" rates 30 >target.out 2>/dev/null &
    local pid=$! path code bad wrong
    at_exit "kill $pid 2>/dev/null"
    wait_for_text target.out 30 "rates started" || { fail "the sample did not start"; return; }
    serve_start --pids "$pid" || return
    until_reading "$pid" || { fail "serve does not read process $pid"; return; }
    assert_eq "600 0" "$(stat -c '%a %u' serve.token)" "the token file made"
    [[ $SERVE_TOKEN =~ ^[0-9a-f]{64}$ ]] || fail "the token is not 64 hex digits: '$SERVE_TOKEN'"
    tr '\0' ' ' <"/proc/$SERVE_PID/cmdline" | grep -q "$SERVE_TOKEN" && fail "the token is on serve's command line"
    grep -q "$SERVE_TOKEN" serve.err && fail "the token is on serve's stderr"
    wrong=$(printf '%s' "$SERVE_TOKEN" | tr '0-9a-f' '1-9a-f0')
    for path in /metrics /processes "/pid/$pid/debug/pprof/profile?seconds=1" "/pid/$pid/debug/pprof/heap" \
        "/pid/$pid/debug/pprof/goroutine" "/pid/$pid/debug/pprof/allocs?seconds=1" \
        "/pid/$pid/debug/pprof/mutex?seconds=1" /nothing-here; do
        for bad in "" "Bearer $wrong" "Bearer ${SERVE_TOKEN:0:63}" "Bearer ${SERVE_TOKEN}x" "Basic $SERVE_TOKEN" \
            "bearer $SERVE_TOKEN"; do
            code=$(as_other_user curl -s --max-time 10 ${bad:+-H "Authorization: $bad"} -o "$OTHER_OUT/body" \
                -w '%{http_code}' "http://127.0.0.1:$SERVE_PORT$path")
            assert_eq 401 "$code" "nobody on $path with '${bad:0:12}...'"
            grep -q -e "$pid" -e Sample "$OTHER_OUT/body" && fail "the refusal of $path names the process"
        done
    done
    code=$(as_other_user curl -s --max-time 30 -H "Authorization: Bearer $SERVE_TOKEN" -o "$OTHER_OUT/p.pb.gz" \
        -w '%{http_code}' "http://127.0.0.1:$SERVE_PORT/pid/$pid/debug/pprof/profile?seconds=1")
    assert_eq 200 "$code" "a profile with the token"
    kill -TERM "$SERVE_PID"
    wait "$SERVE_PID"
    # token files that are not this user's alone
    printf '%s\n' "$SERVE_TOKEN" >open.token
    chmod 644 open.token
    expect_error 1 "the token file $PWD/open.token must be this user's (uid 0) and readable by it alone (it is uid 0's, mode 0644)" \
        "$CLRPROBE" serve --listen 127.0.0.1:0 --token-file "$PWD/open.token"
    install -m 600 -o 65534 open.token nobodys.token
    expect_error 1 "(it is uid 65534's, mode 0600)" "$CLRPROBE" serve --listen 127.0.0.1:0 --token-file "$PWD/nobodys.token"
    ln -s serve.token link.token
    expect_error 1 "cannot read the token file $PWD/link.token: it is a symbolic link" \
        "$CLRPROBE" serve --listen 127.0.0.1:0 --token-file "$PWD/link.token"
    mkfifo fifo.token
    expect_error 1 "the token file $PWD/fifo.token is not a regular file" \
        timeout 10 "$CLRPROBE" serve --listen 127.0.0.1:0 --token-file "$PWD/fifo.token"
    install -m 600 /dev/null short.token
    echo short >short.token
    expect_error 1 "the token in $PWD/short.token must be 16 to" \
        "$CLRPROBE" serve --listen 127.0.0.1:0 --token-file "$PWD/short.token"
    expect_error 2 "serve: --no-auth and --token-file exclude each other" \
        "$CLRPROBE" serve --no-auth --token-file "$PWD/serve.token"
    # --no-auth: nothing asked, and said
    "$CLRPROBE" serve --listen 127.0.0.1:0 --no-auth --pids "$pid" 2>open.err &
    local open=$! port
    at_exit "kill $open 2>/dev/null"
    wait_for_text open.err 20 "/metrics and /processes" || { fail "serve --no-auth did not start"; return; }
    assert_contains open.err "serve: --no-auth: no credentials asked: whoever reaches 127.0.0.1:" "what --no-auth exposes"
    port=$(sed -n 's/.*serving http:\/\/127\.0\.0\.1:\([0-9]*\)\/metrics.*/\1/p' open.err)
    assert_eq 200 "$(curl -s --max-time 10 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/processes")" \
        "/processes without a token under --no-auth"
    kill -TERM "$open"
    wait "$open"
}

test_serve_bad_requests_and_ends() {
    "$SAMPLE" rates 30 >target.out 2>/dev/null &
    local pid=$! code
    at_exit "kill $pid 2>/dev/null"
    wait_for_text target.out 30 "rates started" || { fail "the sample did not start"; return; }
    serve_start --pids "$pid" || return
    until_reading "$pid" || { fail "serve does not read process $pid"; return; }
    assert_eq 405 "$(get /metrics -o /dev/null -w '%{http_code}' -X POST -d x=1)" "POST"
    assert_eq 404 "$(get /etc/passwd -o /dev/null -w '%{http_code}')" "a path that is not served"
    assert_eq 404 "$(get '/../../metrics%00' -o /dev/null -w '%{http_code}' --path-as-is)" "a path with dots and a NUL"
    # a request line bigger than a request may be, and bytes that are not HTTP
    code=$(get "/metrics?$(head -c 100000 /dev/zero | tr '\0' a)" -o /dev/null -w '%{http_code}')
    [[ $code == 414 || $code == 431 || $code == 400 || $code == 000 ]] || fail "an oversized request got $code"
    printf 'GARBAGE\r\n\r\n\001\002' | timeout 5 python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(sys.stdin.buffer.read()); s.settimeout(5)
try: s.recv(100)
except Exception: pass' "$SERVE_PORT"
    # 60 clients at once: some may be refused (32 connections at most), the server lives on
    local i crowd=()
    for ((i = 0; i < 60; i++)); do
        get /metrics -o /dev/null &
        crowd+=($!)
    done
    wait "${crowd[@]}"
    # (the crowd's connections end in the server a little after its clients: on a loaded machine the next
    # request may still find the per-address limit taken, so it lives on once they are gone, within 10 s)
    for ((i = 0; i < 20; i++)); do
        code=$(get /metrics -o /dev/null -w '%{http_code}')
        [[ $code == 200 ]] && break
        sleep 0.5
    done
    assert_eq 200 "$code" "after the garbage and the crowd"
    # a process that exits is dropped
    kill "$pid"
    wait "$pid" 2>/dev/null
    local k
    for ((k = 0; k < 100; k++)); do
        get /processes | jq -e --argjson p "$pid" 'all(.[]; .pid != $p)' >/dev/null && break
        sleep 0.1
    done
    get /processes | jq -e --argjson p "$pid" 'all(.[]; .pid != $p)' >/dev/null || fail "the exited process stays listed"
    # SIGTERM: serve ends, and says nothing more than its first line
    kill -TERM "$SERVE_PID"
    wait "$SERVE_PID"
    assert_eq 0 "$?" "serve's exit code after SIGTERM"
    assert_eq 2 "$(wc -l <serve.err | tr -d ' ')" "serve's stderr: $(cat serve.err)"
}

test_serve_bad_input() {
    expect_error 2 "serve: --listen takes ADDR:PORT ([ADDR]:PORT for IPv6, or PORT), not 'localhost'" \
        "$CLRPROBE" serve --listen localhost
    expect_error 2 "serve: --interval takes whole seconds (1s to 1h), not '1.5s'" "$CLRPROBE" serve --interval 1.5s
    expect_error 2 "serve: unexpected argument 'x'" "$CLRPROBE" serve x
    expect_error 1 "serve: 'nohost' is not an IPv4 or IPv6 address" "$CLRPROBE" serve --listen nohost:1 --no-auth
    expect_error 2 "serve: --pids takes up to 64 process ids separated by commas, not '12,x'" \
        "$CLRPROBE" serve --pids 12,x
    # a port that is taken
    serve_start --pids 999999999 || return
    expect_error 1 "serve: cannot listen on 127.0.0.1:$SERVE_PORT (the port is taken, or needs privileges)" \
        "$CLRPROBE" serve --listen "127.0.0.1:$SERVE_PORT" --no-auth
    kill -TERM "$SERVE_PID"
    wait "$SERVE_PID"
    # listening wider is said
    "$CLRPROBE" serve --listen 0.0.0.0:0 --token-file "$PWD/wide.token" --pids 999999999 2>wide.err &
    local wide=$!
    at_exit "kill $wide 2>/dev/null"
    wait_for_text wide.err 20 "/metrics and /processes" || fail "serve on 0.0.0.0 did not start"
    assert_contains wide.err "serve: listening on 0.0.0.0, not on this host's loopback: whoever reaches it can try" \
        "the warning"
    kill -TERM "$wide"
    wait "$wide"
}

test_serve_pprof_profiles_for_go_tool_pprof() {
    "$SAMPLE" rates 1 >plain.out 2>/dev/null
    "$SAMPLE" rates 30 >target.out 2>/dev/null &
    local pid=$! base t0 t1 top
    at_exit "kill $pid 2>/dev/null"
    wait_for_text target.out 30 "rates started" || { fail "the sample did not start"; return; }
    mkdir tmp
    TMPDIR=$PWD/tmp serve_start --pids "$pid" || return
    until_reading "$pid" || { fail "serve does not read process $pid"; return; }
    base="http://127.0.0.1:$SERVE_PORT/pid/$pid/debug/pprof"
    # go tool pprof fetches a CPU profile over HTTP and finds the hot method (the busy thread's)
    curl -s --max-time 30 "${AUTH[@]}" -o cpu.pb.gz "$base/profile?seconds=3"
    PPROF_TMPDIR=$PWD HOME=$PWD go tool pprof -top cpu.pb.gz >cpu.top 2>cpu.err
    assert_eq 0 "$?" "go tool pprof: $(tail -3 cpu.err)"
    head -12 cpu.top
    grep -q '^Type: cpu$' cpu.top || fail "not a CPU profile"
    top=$(awk '/flat%/ {getline; print $NF; exit}' cpu.top)
    assert_eq ClrProbe.Sample.RatesScenario.Busy "$top" "the top function"
    # allocations: Go's sample types, the program's 20 MiB a second in byte arrays
    pprof_get() {   # ARGS... URL: the profile fetched with serve's token, then read by go tool pprof
        local url=${*: -1} args=("${@:1:$#-1}")
        curl -s --max-time 30 "${AUTH[@]}" -o fetched.pb.gz "$url" || return 1
        PPROF_TMPDIR=$PWD HOME=$PWD go tool pprof "${args[@]}" fetched.pb.gz 2>&1
    }
    pprof_get -sample_index=alloc_space -top "$base/allocs?seconds=2" >allocs.top || fail "allocs: $(head -3 allocs.top)"
    grep -q '^Type: alloc_space$' allocs.top || fail "allocs: not alloc_space: $(head -5 allocs.top)"
    awk '/flat%/ {getline; print $NF; exit}' allocs.top | grep -qx 'System.Byte\[\]' || fail "allocs: the top type"
    # the live heap: a snapshot's inuse_space by type
    pprof_get -top "$base/heap" >heap.top || fail "heap: $(head -3 heap.top)"
    grep -q '^Type: inuse_space$' heap.top || fail "heap: not inuse_space: $(head -5 heap.top)"
    # lock waits: none in this program, so an empty profile of Go's mutex types
    pprof_get -raw "$base/mutex?seconds=1" >mutex.raw || fail "mutex: $(head -3 mutex.raw)"
    grep -q '^contentions/count delay/nanoseconds' mutex.raw || fail "mutex: sample types: $(head -8 mutex.raw)"
    # every thread's stack now, as Go's goroutine profile: the busy thread in Busy
    pprof_get -traces "$base/goroutine" >threads.txt || fail "goroutine: $(head -3 threads.txt)"
    grep -q 'ClrProbe.Sample.RatesScenario.Busy' threads.txt || fail "goroutine: no thread in Busy"
    grep -q '^Type: goroutine$' threads.txt || fail "goroutine: not a goroutine profile: $(head -5 threads.txt)"
    # two requests for one process at once: the second waits for the first (never two agents)
    t0=$(date +%s%N)
    curl -s --max-time 60 "${AUTH[@]}" -o a.pb.gz -w '%{http_code}\n' "$base/profile?seconds=2" >a.code &
    local first=$!
    curl -s --max-time 60 "${AUTH[@]}" -o b.pb.gz -w '%{http_code}\n' "$base/profile?seconds=2" >b.code
    wait "$first"
    t1=$(date +%s%N)
    assert_eq 200 "$(cat a.code)" "the first of two requests"
    assert_eq 200 "$(cat b.code)" "the second of two requests"
    (( (t1 - t0) / 1000000 >= 4000 )) || fail "two 2 s profiles of one process took $(( (t1 - t0) / 1000000 )) ms: they overlapped"
    assert_eq "" "$(ls -A tmp)" "files left in serve's TMPDIR"
    assert_eq 200 "$(get /metrics -o /dev/null -w '%{http_code}')" "/metrics after"
    wait "$pid"
    assert_eq 0 "$?" "the program's exit code"
    cmp -s plain.out target.out || fail "the program's output changed"
}

test_serve_clients_that_stall_or_vanish_and_a_process_that_exits() {
    "$SAMPLE" rates 12 >target.out 2>/dev/null &
    local pid=$! base slow code t0
    at_exit "kill $pid 2>/dev/null"
    wait_for_text target.out 30 "rates started" || { fail "the sample did not start"; return; }
    serve_start --pids "$pid" || return
    until_reading "$pid" || { fail "serve does not read process $pid"; return; }
    base="http://127.0.0.1:$SERVE_PORT/pid/$pid/debug/pprof"
    # a client that sends half a request and waits: the others are served meanwhile
    python3 -c '
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
time.sleep(20)' "$SERVE_PORT" &
    slow=$!
    at_exit "kill $slow 2>/dev/null"
    sleep 0.5
    assert_eq 200 "$(get /metrics -o /dev/null -w '%{http_code}')" "/metrics beside a stalled client"
    # a client that goes away during a profile: the recording ends in its time, the next one is served
    curl -s --max-time 1 "${AUTH[@]}" -o /dev/null "$base/profile?seconds=2"
    t0=$(date +%s%N)
    code=$(curl -s --max-time 30 "${AUTH[@]}" -o again.pb.gz -w '%{http_code}' "$base/profile?seconds=1")
    assert_eq 200 "$code" "a profile after a client that vanished"
    go tool pprof -top again.pb.gz >/dev/null 2>&1 || fail "that profile does not decode"
    echo "the next profile came after $(( ($(date +%s%N) - t0) / 1000000 )) ms"
    # the process exits during a profile: an HTTP error that says so, and serve lives on
    code=$(curl -s --max-time 40 "${AUTH[@]}" -o exited.txt -w '%{http_code}' "$base/profile?seconds=15")
    echo "profile across the exit: $code $(head -c 200 exited.txt | tr -cd "[:print:]")"
    assert_eq 502 "$code" "the status of a profile the process did not live through"
    assert_contains exited.txt "process $pid exited during the profile" "its reason"
    wait "$pid"
    assert_eq 0 "$?" "the program's exit code"
    assert_eq 404 "$(get "/pid/$pid/debug/pprof/profile?seconds=1" -o /dev/null -w '%{http_code}')" \
        "a profile of a process that is gone"
    assert_eq 200 "$(get /metrics -o /dev/null -w '%{http_code}')" "/metrics at the end"
    kill "$slow" 2>/dev/null
}
