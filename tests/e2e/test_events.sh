# test_events.sh - what the agent records from the real runtime: names of
# functions and types, threads with names, exceptions, GCs, module loads and
# unloads (collectible and dynamic), precompiled code, and --collect.

test_jit_function_names() {
    fixture all all
    local f
    for f in ClrProbe.Sample.JitTargets.ComputeFibonacci ClrProbe.Sample.JitTargets.SumSquares \
             ClrProbe.Sample.JitTargets.ReverseWords 'ClrProbe.Sample.GenericTargets.Echo<System.Int32>' \
             'ClrProbe.Sample.Outer+Inner.Describe' 'ClrProbe.Sample.Box<System.Int32>.Describe'; do
        assert_ge 1 "$(jcount "$FX/trace.jsonl" "select(.kind==\"jit\" and .function==\"$f\")")" "jit of $f"
    done
    # every jit record has a module and a duration
    assert_eq 0 "$(jcount "$FX/trace.jsonl" 'select(.kind=="jit" and (.module=="" or .duration_ns==null))')" \
        "jit records without module or duration"
    assert_eq Sample.dll "$(jq -r 'select(.kind=="jit" and .function=="ClrProbe.Sample.JitTargets.SumSquares") | .module' "$FX/trace.jsonl" | head -1)" "module of SumSquares"
    assert_eq 0 "$(jcount "$FX/trace.jsonl" 'select(.kind=="jit" and (.function|startswith("?")))')" "unresolved jit names"
}

test_generic_class_names() {
    fixture all all
    assert_ge 1 "$(jcount "$FX/trace.jsonl" 'select(.kind=="class_load" and .name=="System.Collections.Generic.Dictionary<System.Int32,System.String>")')" \
        "class_load of Dictionary<int,string>"
    assert_ge 1 "$(jcount "$FX/trace.jsonl" 'select(.kind=="class_load" and .name=="ClrProbe.Sample.Box<System.String>")')" \
        "class_load of Box<string>"
}

test_thread_names_and_os_ids() {
    fixture all all
    local i
    for i in 0 1 2 3; do
        assert_eq 1 "$(jcount "$FX/trace.jsonl" "select(.kind==\"thread_create\" and .name==\"clrprobe-worker-$i\" and .os_tid > 0)")" \
            "thread_create of clrprobe-worker-$i with an OS thread id"
        assert_eq 1 "$(jcount "$FX/trace.jsonl" "select(.kind==\"thread_destroy\" and .name==\"clrprobe-worker-$i\")")" \
            "thread_destroy of clrprobe-worker-$i"
    done
    assert_contains "$FX/trace.txt" "clrprobe-worker-2" "text report lists thread names"
}

test_exceptions_counted_exactly() {
    "$SAMPLE" exceptions 37 >plain.out
    "$CLRPROBE" run -o ex.clrp -- "$SAMPLE" exceptions 37 >prof.out 2>err
    cmp -s plain.out prof.out || fail "stdout differs"
    "$CLRPROBE" report ex.clrp --format jsonl >ex.jsonl
    local printed
    printed=$(sed -n 's/^SampleException: //p' prof.out)
    assert_eq 37 "$printed" "sample's own count"
    assert_eq "$printed" "$(jcount ex.jsonl 'select(.kind=="exception_thrown" and .type=="ClrProbe.Sample.SampleException")')" \
        "exception_thrown of SampleException"
    assert_eq 3 "$(jcount ex.jsonl 'select(.kind=="exception_thrown" and .type=="System.InvalidOperationException")')" \
        "exception_thrown of InvalidOperationException"
    assert_eq "$(sed -n 's/^exceptions thrown: //p' prof.out)" "$(jcount ex.jsonl 'select(.kind=="exception_thrown")')" \
        "all exceptions thrown"
    assert_eq 37 "$(jcount ex.jsonl 'select(.kind=="exception_catch" and .type=="ClrProbe.Sample.SampleException" and .function=="ClrProbe.Sample.ExceptionTargets.Catcher")')" \
        "exception_catch in ExceptionTargets.Catcher"
    "$CLRPROBE" report ex.clrp >ex.txt
    assert_contains ex.txt "37  ClrProbe.Sample.SampleException" "text report counts by type"
}

test_gc_count_at_least_induced() {
    "$CLRPROBE" run -o gc.clrp -- "$SAMPLE" gc 9 >out 2>err
    assert_contains out "induced gcs: 9" "sample output"
    "$CLRPROBE" report gc.clrp --format jsonl >gc.jsonl
    assert_ge 9 "$(jcount gc.jsonl 'select(.kind=="gc_start" and .reason=="induced")')" "induced gc_start records"
    assert_eq "$(jcount gc.jsonl 'select(.kind=="gc_start")')" "$(jcount gc.jsonl 'select(.kind=="gc_end")')" "gc_start/gc_end pairs"
    assert_ge 3 "$(jcount gc.jsonl 'select(.kind=="gc_start" and (.generations|index(2)))')" "gen2 collections"
    assert_ge 9 "$(jcount gc.jsonl 'select(.kind=="suspend" and .reason=="gc" and .duration_ns > 0)')" "GC suspensions"
    "$CLRPROBE" report gc.clrp >gc.txt
    assert_contains gc.txt "Garbage collections:" "text report GC section"
    assert_contains gc.txt "longest pause" "text report pause column"
}

test_collectible_and_dynamic_modules_load_and_unload() {
    fixture all all
    local id
    id=$(jq -r 'select(.kind=="module_load" and .collectible and (.path|endswith("/Sample.dll"))) | .id' "$FX/trace.jsonl" | head -1)
    [[ -n $id ]] || fail "no collectible module_load for Sample.dll"
    assert_eq 1 "$(jcount "$FX/trace.jsonl" "select(.kind==\"module_unload\" and .id==\"$id\" and (.path|endswith(\"/Sample.dll\")))")" \
        "module_unload of the collectible Sample.dll"
    id=$(jq -r 'select(.kind=="module_load" and .dynamic and .collectible) | .id' "$FX/trace.jsonl" | head -1)
    [[ -n $id ]] || fail "no dynamic collectible module_load"
    assert_eq 1 "$(jcount "$FX/trace.jsonl" "select(.kind==\"module_unload\" and .id==\"$id\")")" "dynamic module unload"
    assert_ge 1 "$(jcount "$FX/trace.jsonl" 'select(.kind=="assembly_load" and .name=="Sample" and (.version|test("^[0-9]+\\.[0-9]+\\.[0-9]+\\.[0-9]+$")))')" \
        "assembly_load with name and version"
    assert_ge 2 "$(jcount "$FX/trace.jsonl" 'select(.kind=="assembly_unload")')" "assembly unloads"
    # the non-collectible Sample.dll stays loaded
    assert_eq 1 "$(jcount "$FX/trace.jsonl" 'select(.kind=="module_load" and (.collectible|not) and (.path|endswith("/Sample.dll")))')" \
        "main Sample.dll module_load"
}

test_precompiled_code_found() {
    fixture all all
    assert_ge 50 "$(jcount "$FX/trace.jsonl" 'select(.kind=="precompiled")')" "precompiled (ReadyToRun) methods"
    assert_eq 0 "$(jcount "$FX/trace.jsonl" 'select(.kind=="precompiled" and (.function|startswith("?")))')" "unnamed precompiled"
    assert_ge 1 "$(jcount "$FX/trace.jsonl" 'select(.kind=="precompiled" and .module=="System.Private.CoreLib.dll")')" "CoreLib R2R code"
}

test_runtime_and_trace_metadata() {
    fixture all all
    local v
    v=$(jq -r 'select(.kind=="trace") | .runtime_version' "$FX/trace.jsonl")
    [[ $v =~ ^[0-9]+\.[0-9]+\.[0-9]+ ]] || fail "runtime version '$v'"
    assert_eq "$v" "$(dotnet --list-runtimes | awk '/Microsoft.NETCore.App/ {print $2}' | tail -1)" "runtime version matches the installed runtime"
    assert_eq true "$(jq -r 'select(.kind=="trace") | .complete' "$FX/trace.jsonl")" "trace complete"
    assert_eq 1 "$(jcount "$FX/trace.jsonl" 'select(.kind=="runtime_start")')" "runtime_start"
    assert_eq 1 "$(jcount "$FX/trace.jsonl" 'select(.kind=="runtime_shutdown")')" "runtime_shutdown"
    assert_eq 0 "$(jq -c 'select(.t == null or .tid == null or .kind == null)' "$FX/trace.jsonl" | wc -l)" "every line has kind, t, tid"
    # times are sorted
    jq -r '.t' "$FX/trace.jsonl" | sort -n -c 2>/dev/null || fail "events are not in time order"
    assert_contains "$FX/trace.txt" "runtime    .NET $v" "text report runtime"
    assert_contains "$FX/trace.txt" "Slowest to compile" "text report JIT section"
    assert_contains "$FX/trace.txt" "Modules (" "text report modules"
    assert_eq 0 "$(cat "$FX/report.rc")" "report exit code"
}

test_collect_subset() {
    "$CLRPROBE" run -o sub.clrp --collect jit,exceptions -- "$SAMPLE" all >out 2>err
    assert_eq 0 "$?" "exit code"
    "$CLRPROBE" report sub.clrp --format jsonl >sub.jsonl
    assert_ge 10 "$(jcount sub.jsonl 'select(.kind=="jit")')" "jit recorded"
    assert_eq 28 "$(jcount sub.jsonl 'select(.kind=="exception_thrown")')" "exceptions recorded"
    local k
    for k in gc_start suspend thread_create class_load assembly_load appdomain_create; do
        assert_eq 0 "$(jcount sub.jsonl "select(.kind==\"$k\")")" "$k must not be recorded"
    done
    # the modules come with the stacks (exceptions' throw stacks): the report finds frames' assemblies by them
    assert_ge 1 "$(jcount sub.jsonl 'select(.kind=="module_load")')" "module_load with the throw stacks"
    "$CLRPROBE" run -o jit.clrp --collect jit -- "$SAMPLE" all >out 2>err
    assert_eq 0 "$?" "exit code (jit only)"
    "$CLRPROBE" report jit.clrp --format jsonl >jit.jsonl
    assert_ge 10 "$(jcount jit.jsonl 'select(.kind=="jit")')" "jit recorded (jit only)"
    assert_eq 0 "$(jcount jit.jsonl 'select(.kind=="module_load")')" "module_load must not be recorded without stacks"
}
