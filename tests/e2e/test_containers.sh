# test_containers.sh - clrprobe where .NET runs in production: in real
# containers (podman with runc; their own mount, pid and network
# namespaces) on Debian 11's root file system (glibc 2.31, built once by
# tests/tools/containers/debian11_rootfs.sh into build/containers/), with
# the machine's .NET runtime, the sample and clrprobe's release build
# mounted in.  The agent at launch inside a container; from the host: ps,
# attach (the known shares), heap, attach --trace and the quiet agent after
# it; links planted in the container never followed to the host's files; a
# sidecar sharing the pid namespace; a user namespace; the Debian package
# installed in the container.  Root only (namespaces, podman).  The host's
# command is the release build too ($CT_CLRPROBE), also in the sanitized run:
# the agent it places in a container must load there, and a sanitized agent
# needs the sanitizer's runtime, which neither a container nor its process
# has (ps, which loads nothing, is the sanitized one's).

CT_DIR="$ROOT/build/containers"
CT_CLRPROBE="$ROOT/build/clrprobe"
CT_ROOTFS="$CT_DIR/debian11"
CT_NAMES=()

need_containers() {
    [[ $(id -u) -eq 0 ]] || skip "containers need root (podman, entering namespaces)"
    local c
    for c in podman runc debootstrap; do
        command -v "$c" >/dev/null || { fail "$c is missing: 'make setup' installs podman, runc and debootstrap"; return 1; }
    done
    mkdir -p "$CT_DIR"
    (
        exec 9>"$CT_DIR/.lock"
        flock 9
        "$ROOT/tests/tools/containers/debian11_rootfs.sh" "$CT_ROOTFS"
    ) || { fail "no Debian 11 root file system (see $CT_ROOTFS.log)"; return 1; }
    # podman's default ulimits are refused here; crun refuses this machine's
    # cgroups (hybrid), runc does not
    printf '[containers]\ndefault_ulimits = []\n' >"$CT_DIR/containers.conf"
    export CONTAINERS_CONF="$CT_DIR/containers.conf"
    # (the runtime's own directory: `dotnet` on PATH may be a wrapper, as in make asan)
    DOTNET_ROOT_HOST=$(dotnet --list-runtimes | awk '$1 == "Microsoft.NETCore.App" {print $3; exit}' | tr -d '[]')
    DOTNET_ROOT_HOST=${DOTNET_ROOT_HOST%/shared/Microsoft.NETCore.App}
    [[ -x $DOTNET_ROOT_HOST/dotnet ]] || { fail "cannot find the .NET runtime's directory ($DOTNET_ROOT_HOST)"; return 1; }
    at_exit 'for n in "${CT_NAMES[@]}"; do podman rm -f -t 0 "$n" >/dev/null 2>&1; done'
}

# ct_run NAME [PODMAN OPTIONS...] -- COMMAND...: COMMAND in a new container
# NAME (removed at the end) on a throwaway overlay of the Debian 11 root,
# with the .NET runtime at /usr/share/dotnet, the sample at /app, clrprobe
# and its agent at /opt/clrprobe and this test's directory at /out.
ct_run() {
    local name=$1 opts=()
    shift
    while [[ $1 != -- ]]; do opts+=("$1"); shift; done
    shift
    CT_NAMES+=("$name")
    podman --runtime runc run --rm --name "$name" \
        -v "$DOTNET_ROOT_HOST:/usr/share/dotnet:ro" -v "$ROOT/build/sample:/app:ro" \
        -v "$ROOT/build/clrprobe:/opt/clrprobe/clrprobe:ro" -v "$ROOT/build/libclrprobe.so:/opt/clrprobe/libclrprobe.so:ro" \
        -v "$PWD:/out" -e DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 \
        "${opts[@]}" --rootfs "$CT_ROOTFS:O" "$@"
}

# ct_start NAME OUT [PODMAN OPTIONS...] -- COMMAND...: ct_run in the
# background, stdout into OUT; sets CT_PID (podman's) and waits until the
# container's process runs (its host pid in HOST_PID).
ct_start() {
    local name=$1 out=$2 k
    shift 2
    CT_NAMES+=("$name")     # (ct_run's own entry is its subshell's)
    ct_run "$name" "$@" >"$out" 2>"$out.err" &
    CT_PID=$!
    HOST_PID=
    for ((k = 0; k < 300; k++)); do
        HOST_PID=$(podman inspect --format '{{.State.Pid}}' "$name" 2>/dev/null)
        [[ -n $HOST_PID && $HOST_PID != 0 ]] && break
        HOST_PID=
        kill -0 "$CT_PID" 2>/dev/null || break     # (podman gave up)
        sleep 0.1
    done
    [[ -n $HOST_PID ]] || { fail "container $name did not start: $(cat "$out.err")"; return 1; }
}

# ct_wait_dotnet NAME OUT: waits until `Sample shares` in container NAME has
# started and its runtime's diagnostics socket is there (seen by ps).
ct_wait_dotnet() {
    wait_for_text "$2" 60 "shares started" || { fail "the sample in $1 did not start: $(cat "$2.err")"; return 1; }
    local k
    for ((k = 0; k < 100; k++)); do
        "$CLRPROBE" ps 2>/dev/null | awk -v p="$HOST_PID" '$1 == p' | grep -q . && return 0
        sleep 0.1
    done
    fail "ps does not list process $HOST_PID of container $1"
    return 1
}

test_container_agent_loads_at_launch_on_debian11() {
    need_containers || return
    local n=clrprobe-t-$$
    # the container's C library is Debian 11's
    assert_contains "$(ct_run "$n-libc" -- /lib/x86_64-linux-gnu/libc.so.6 2>&1 | head -1)" "release version 2.31" \
        "glibc in the container"
    ct_run "$n-plain" -- /usr/share/dotnet/dotnet /app/Sample.dll jit >plain.out 2>plain.err
    assert_eq 0 "$?" "exit code without the agent: $(tail -2 plain.err)"
    # clrprobe run inside the container
    ct_run "$n-run" -- /opt/clrprobe/clrprobe run -o /out/run.clrp -- /usr/share/dotnet/dotnet /app/Sample.dll jit \
        >run.out 2>run.err
    assert_eq 0 "$?" "exit code under clrprobe run in the container: $(tail -2 run.err)"
    cmp -s plain.out run.out || fail "output changed under clrprobe run in the container"
    "$CLRPROBE" report run.clrp >run.txt 2>&1
    assert_contains run.txt "trace      complete" "the trace recorded in the container"
    assert_contains run.txt "ClrProbe.Sample" "the sample's methods"
    # with the rights to load BPF, clrprobe run in the container holds the per-CPU clock, naming the
    # process by its pid in the container's namespace (which it sees as its first)
    ct_run "$n-bpf" --cap-add BPF,PERFMON --security-opt seccomp=unconfined -- \
        /opt/clrprobe/clrprobe run -o /out/bpf.clrp --collect cpu --rate 1000 -- /usr/share/dotnet/dotnet /app/Sample.dll burn 2 300000 \
        >bpf.out 2>bpf.err
    assert_eq 0 "$?" "exit code under clrprobe run with CAP_BPF in the container: $(tail -2 bpf.err)"
    "$CLRPROBE" report bpf.clrp >bpf.txt 2>&1
    assert_contains bpf.txt "sampler: stack engine, per-CPU perf events held by the clrprobe command" \
        "the per-CPU clock's stacks in the container: $(grep sampler: bpf.txt)"
    local rate
    rate=$(sed -n 's/.*rate: \([0-9.]*\) samples per CPU-second achieved.*/\1/p' bpf.txt)
    awk -v r="$rate" 'BEGIN {exit !(r >= 900 && r <= 1100)}' || fail "in the container: $rate samples per CPU-second of 1000"
    # the profiler's variables set in the container, as an image would
    ct_run "$n-env" -e CORECLR_ENABLE_PROFILING=1 -e "CORECLR_PROFILER=$CLSID" \
        -e CORECLR_PROFILER_PATH=/opt/clrprobe/libclrprobe.so -e CLRPROBE_CONFIG=output=/out/env.clrp \
        -- /usr/share/dotnet/dotnet /app/Sample.dll jit >env.out 2>env.err
    assert_eq 0 "$?" "exit code with CORECLR_* in the container: $(tail -2 env.err)"
    cmp -s plain.out env.out || fail "output changed with the agent loaded by CORECLR_* in the container"
    "$CLRPROBE" report env.clrp >env.txt 2>&1
    assert_contains env.txt "mode       launched" "the agent loaded at launch"
    assert_contains env.txt "ClrProbe.Sample" "the sample's methods (CORECLR_*)"
}

test_container_reached_from_the_host() {
    need_containers || return
    local n=clrprobe-t-$$ id row
    ct_run "$n-plain" -- /usr/share/dotnet/dotnet /app/Sample.dll shares 1 >plain.out 2>/dev/null   # (its output does not depend on the time)
    # (until the test is done: a fixed time is too short on a loaded machine)
    ct_start "$n" target.out -- /usr/share/dotnet/dotnet /app/Sample.dll shares until /out/done || return
    ct_wait_dotnet "$n" target.out || return
    id=$(podman inspect --format '{{.Id}}' "$n")
    # ps: the host's pid, the container and the pid in it, the runtime
    row=$("$CT_CLRPROBE" ps | awk -v p="$HOST_PID" '$1 == p')
    echo "ps: $row"
    assert_eq "${id:0:12}/1" "$(awk '{print $5}' <<<"$row")" "CONTAINER column: its id and its pid in it"
    [[ $(awk '{print $3}' <<<"$row") =~ ^[0-9]+\.[0-9]+\.[0-9]+ ]] || fail "RUNTIME column: '$row'"
    # attach by the host's pid: the known shares
    "$CT_CLRPROBE" attach "$HOST_PID" --sampler suspend -o att.clrp --collect cpu,threads --duration 3 >a.out 2>a.err
    assert_eq 0 "$?" "attach exit code: $(tail -2 a.err)"
    assert_eq 600 "$(file_mode att.clrp)" "the trace's mode on the host"
    check_shares att.clrp "in a container"
    # the default clock: the per-CPU clock the host's command holds, the process named by its host pid
    "$CT_CLRPROBE" attach "$HOST_PID" -o pc.clrp --collect cpu,threads,wall --duration 2 >p.out 2>p.err
    assert_eq 0 "$?" "attach (per-CPU clock) exit code: $(tail -2 p.err)"
    assert_eq kstack "$("$CLRPROBE" report pc.clrp --format jsonl 2>/dev/null | jq -r 'select(.kind=="sampler_start") | .clock')" \
        "the clock after an attach from the host"
    check_shares pc.clrp "in a container, by the per-CPU clock"
    # a heap snapshot
    "$CT_CLRPROBE" heap "$HOST_PID" -o heap.clrp >h.out 2>h.err
    assert_eq 0 "$?" "heap exit code: $(tail -2 h.err)"
    grep -q 'snapshot 1 of 1: [1-9][0-9]* objects' h.err || fail "heap: no objects: $(cat h.err)"
    # attach --trace, then the quiet agent it leaves
    "$CT_CLRPROBE" attach "$HOST_PID" --trace 'ClrProbe.Sample.SharesTargets.*' --duration 1 -o tr.clrp >t.out 2>t.err
    assert_eq 0 "$?" "attach --trace exit code: $(tail -2 t.err)"
    "$CLRPROBE" report tr.clrp --format jsonl 2>/dev/null | jq -c 'select(.kind=="method_stats")' >stats.jsonl
    assert_ge 1 "$(jq -s '[.[] | select(.function=="ClrProbe.Sample.SharesTargets.BurnOther") | .calls] | add // 0' stats.jsonl)" \
        "traced calls of BurnOther"
    "$CT_CLRPROBE" attach "$HOST_PID" --duration 1 -o quiet.clrp >q.out 2>q.err
    assert_eq 0 "$?" "attach to the quiet agent: $(tail -2 q.err)"
    assert_contains q.err "quiet" "talked to the quiet agent"
    # nothing of ours left in the container's /tmp
    assert_eq "" "$(ls -A "/proc/$HOST_PID/root/tmp" | grep clrprobe)" "clrprobe's files left in the container's /tmp"
    touch done                   # (/out/done in the container: the target ends)
    wait "$CT_PID"
    assert_eq 0 "$?" "the container's exit code"
    cmp -s plain.out target.out || fail "the program's output changed under the attaches"
}

# The container's /tmp is a link to an absolute path that names a directory
# of the host too (one of /var/tmp: not under /tmp, which the link itself
# replaces, as a checkout in /tmp would be): what attach and heap make there
# (the control socket, the agent's copy) must land in the container's, never
# the host's.
test_container_planted_links_are_not_followed() {
    need_containers || return
    local n=clrprobe-t-$$ victim
    victim=$(mktemp -d /var/tmp/clrprobe-planted-XXXXXX) || { fail "mktemp in /var/tmp"; return; }
    at_exit "rm -rf '$victim'"
    ct_start "$n" target.out -- sh -c "mkdir -p '$victim' && rm -rf /tmp && ln -s '$victim' /tmp &&
        exec /usr/share/dotnet/dotnet /app/Sample.dll shares 6" || return
    ct_wait_dotnet "$n" target.out || return
    [[ $(readlink "/proc/$HOST_PID/root/tmp") == "$victim" ]] || fail "the link was not planted"
    "$CT_CLRPROBE" attach "$HOST_PID" --duration 1 -o att.clrp >a.out 2>a.err
    assert_eq 0 "$?" "attach exit code: $(tail -2 a.err)"
    "$CT_CLRPROBE" heap "$HOST_PID" -o heap.clrp >h.out 2>h.err
    assert_eq 0 "$?" "heap exit code: $(tail -2 h.err)"
    assert_eq "" "$(ls -A "$victim")" "what was made in the host's directory the planted link names"
    wait "$CT_PID"
    assert_eq 0 "$?" "the container's exit code"
}

# A sidecar: clrprobe in another container that shares the target's pid
# namespace (Kubernetes shareProcessNamespace), with the capabilities to
# enter its namespaces; the trace lands in the sidecar's /out.
test_container_sidecar_sharing_the_pid_namespace() {
    need_containers || return
    local n=clrprobe-t-$$
    ct_start "$n" target.out -- /usr/share/dotnet/dotnet /app/Sample.dll shares 6 || return
    ct_wait_dotnet "$n" target.out || return
    ct_run "$n-side" --pid "container:$n" --cap-add SYS_ADMIN,SYS_PTRACE,SYS_CHROOT -- \
        sh -c '/opt/clrprobe/clrprobe ps && /opt/clrprobe/clrprobe attach 1 --duration 1 -o /out/side.clrp' \
        >side.out 2>side.err
    assert_eq 0 "$?" "attach from the sidecar: $(tail -2 side.err)"
    assert_eq 1 "$(awk '$1 == 1 && $2 == "dotnet"' side.out | wc -l)" "the target in the sidecar's ps"
    "$CLRPROBE" report side.clrp >side.txt 2>&1
    assert_contains side.txt "mode       attached" "the sidecar's trace"
    wait "$CT_PID"
    assert_eq 0 "$?" "the container's exit code"
}

# A user namespace (as rootless containers have): the container's root is
# uid 100000 here; the control socket and the trace's descriptor are given
# to that uid, the agent's copy is readable by it.
test_container_user_namespace() {
    need_containers || return
    local n=clrprobe-t-$$
    ct_start "$n" target.out --uidmap 0:100000:65536 --gidmap 0:100000:65536 -- \
        /usr/share/dotnet/dotnet /app/Sample.dll shares 6 || return
    ct_wait_dotnet "$n" target.out || return
    assert_eq 100000 "$(awk '/^Uid:/ {print $2}' "/proc/$HOST_PID/status")" "the target's uid on the host"
    "$CT_CLRPROBE" attach "$HOST_PID" --duration 1 -o att.clrp >a.out 2>a.err
    assert_eq 0 "$?" "attach exit code: $(tail -2 a.err)"
    assert_eq "600 0" "$(stat -c '%a %u' att.clrp)" "the trace: root's, 0600"
    "$CLRPROBE" report att.clrp --format jsonl 2>/dev/null | jq -c 'select(.kind=="sample")' | head -1 >s.jsonl
    [[ -s s.jsonl ]] || fail "no samples recorded in the user namespace's process"
    wait "$CT_PID"
    assert_eq 0 "$?" "the container's exit code"
}

# A process of another user in that user's own user, mount and network
# namespaces (unshare, no privilege needed), its /tmp a bind mount of a
# directory of root's that the user may enter but not write: root's `stack`
# and `heap` make nothing there, even when the process ends while they
# wait on it (root could not enter its namespaces again to clean up).
# Inside a process's namespaces clrprobe works as the process's user, so
# it can make only what that user could: here nothing, and it says why.
# (The program is outside /tmp, which the bind mount hides.)
test_container_users_own_namespace_gets_nothing_of_roots() {
    [[ $(id -u) -eq 0 ]] || skip "needs root"
    command -v setpriv >/dev/null && unshare --help 2>/dev/null | grep -q -- --map-root-user ||
        skip "needs setpriv and unshare --map-root-user (util-linux)"
    [[ -d /var/tmp ]] || skip "no /var/tmp"
    local dir rootonly cmd
    dir=$(mktemp -d /var/tmp/clrprobe-ns.XXXXXX) || { fail "cannot make a directory in /var/tmp"; return; }
    rootonly=$(mktemp -d /tmp/clrprobe-rootonly.XXXXXX) || { fail "cannot make a directory in /tmp"; return; }
    at_exit "rm -rf '$dir' '$rootonly'"
    chmod 755 "$dir" "$rootonly"
    cp "$CLRPROBE" "$AGENT" "$dir/" && cp -r "$ROOT/build/sample" "$dir/sample" && chmod -R a+rX "$dir" ||
        { fail "cannot copy clrprobe and the sample to $dir"; return; }
    install -d -m 700 -o 65534 -g 65534 "$dir/out" "$dir/out/tmp"
    cat >"$dir/ns.sh" <<'SH'
#!/bin/sh
# ns.sh PIDFILE ROOTONLY TMPDIR COMMAND...: COMMAND with ROOTONLY as /tmp
echo $$ >"$1"
mount --bind "$2" /tmp || exit 9
TMPDIR=$3
export TMPDIR
shift 3
if [ -n "${SANITIZER_PRELOAD:-}" ]; then
    LD_PRELOAD=$SANITIZER_PRELOAD ASAN_OPTIONS=detect_leaks=0
    export LD_PRELOAD ASAN_OPTIONS
fi
exec "$@"
SH
    chmod 755 "$dir/ns.sh"
    for cmd in stack heap; do
        rm -f "$dir/out/pid" "$dir/out/$cmd.out"
        (cd "$dir" && setpriv --reuid=65534 --regid=65534 --clear-groups unshare --user --map-root-user --mount \
            --net "$dir/ns.sh" "$dir/out/pid" "$rootonly" "$dir/out/tmp" "$dir/sample/Sample" spin 60 \
            >"$dir/out/$cmd.out" 2>&1 &)
        wait_for_text "$dir/out/$cmd.out" 30 "started" ||
            { cat "$dir/out/$cmd.out"; skip "no process in a user namespace of its own here (unprivileged user namespaces off?)"; }
        local tpid s
        tpid=$(cat "$dir/out/pid")
        at_exit "kill -9 $tpid 2>/dev/null"
        kill -STOP "$tpid"                 # (it never answers: the command waits on it)
        if [[ $cmd == stack ]]; then
            "$dir/clrprobe" stack "$tpid" --timeout 20s >c.out 2>c.err &
        else
            "$dir/clrprobe" heap "$tpid" -o h.clrp >c.out 2>c.err &
        fi
        s=$!
        # until the command made something there, or gave up
        for _ in $(seq 300); do
            [[ -n $(ls -A "$rootonly") ]] && break
            kill -0 "$s" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$tpid"                    # (its namespaces are gone with it)
        wait "$s"
        echo "$cmd: exit $?: $(cat c.err)"
        assert_eq "" "$(ls -A "$rootonly")" "what root's $cmd left in the directory under the user's /tmp"
        assert_contains c.err "Permission denied" "why $cmd could not"
    done
}

# make deb's package, installed with apt in the container (no network: its
# dependencies are Debian 11's own), runs there.
test_container_debian_package_installs() {
    need_containers || return
    local n=clrprobe-t-$$ deb
    [[ -f $ROOT/build/sysroot/.made ]] || { fail "no build/sysroot: 'make setup' makes it"; return; }
    mkdir debs
    deb=$("$ROOT/scripts/make_deb.sh" "$ROOT/build" "$PWD/debs" 2>err)
    assert_eq 0 "$?" "make_deb.sh: $(cat err)"
    ct_run "$n" --network none -v "$PWD/debs:/debs:ro" -- sh -c \
        "apt-get install -y -q /debs/${deb##*/} >/out/apt.log 2>&1 && clrprobe --version &&
         clrprobe run -o /out/deb.clrp -- /usr/share/dotnet/dotnet /app/Sample.dll jit" >deb.out 2>deb.err
    assert_eq 0 "$?" "apt install and run in the container: $(tail -3 apt.log) $(tail -2 deb.err)"
    assert_contains deb.out "runs on glibc 2.28 or later" "the installed command's --version"
    "$CLRPROBE" report deb.clrp >deb.txt 2>&1
    assert_contains deb.txt "ClrProbe.Sample" "the trace of the installed clrprobe"
}
