# test_layers.sh - the architecture the layout shows (docs/architecture.md)
# holds in the code: each folder uses only the folders below it, and the
# agent's files call each other without a circle (a lower file never calls
# up).  Read from the built objects and the #include lines: nothing is run.

# "FILE USES" lines for the objects of one folder: which other file of the
# folder defines a symbol this one uses.
object_edges() {
    local dir=$1 o def
    declare -A owner=()
    for o in "$dir"/*.o; do
        while read -r def; do owner[$def]=$(basename "$o" .o); done < <(nm --defined-only -g "$o" | awk '{print $3}')
    done
    for o in "$dir"/*.o; do
        local me used
        me=$(basename "$o" .o)
        while read -r used; do
            [[ -n ${owner[$used]:-} && ${owner[$used]} != "$me" ]] && echo "$me ${owner[$used]}"
        done < <(nm -u "$o" | awk '{print $2}')
    done | sort -u
}

test_layers_agent_files_call_without_a_circle() {
    local dir edges loop
    dir="$(dirname "$AGENT")/obj/pic/src/agent"
    [[ -d $dir ]] || { fail "no agent objects in $dir"; return; }
    edges=$(object_edges "$dir")
    [[ $(wc -l <<<"$edges") -ge 20 ]] || { fail "too few calls between agent files found: $edges"; return; }
    grep -q '^session sampler$' <<<"$edges" || fail "session.o does not call sampler.o? edges: $edges"
    # tsort names the files of a circle on stderr
    loop=$(tsort <<<"$edges" 2>&1 >/dev/null)
    [[ -z $loop ]] || fail "the agent's files call each other in a circle: $loop"
    # and the test itself sees a circle when there is one
    loop=$(printf '%s\nsampler session\n' "$edges" | tsort 2>&1 >/dev/null)
    assert_contains "$loop" "loop" "tsort reports a planted circle"
}

# The folders a folder's sources may include from (besides its own).
allowed_includes() {
    case $1 in
        api) echo "" ;;
        common) echo "api" ;;
        trace) echo "common" ;;
        unwind) echo "" ;;
        agent) echo "api common trace unwind" ;;
        ipc) echo "api common" ;;
        report) echo "common trace" ;;
        cli) echo "common trace report ipc" ;;
    esac
}

test_layers_folders_include_only_lower_folders() {
    local folder file inc target bad=""
    for folder in api common trace unwind agent ipc report cli; do
        local allowed
        allowed=" $folder $(allowed_includes "$folder") "
        for file in "$ROOT"/src/"$folder"/*.[ch]; do
            while read -r inc; do
                target=${inc%%/*}
                [[ $allowed == *" $target "* ]] || bad+="${file#"$ROOT"/} includes $inc; "
            done < <(sed -n 's|^#include "\([a-z_]*/[^"]*\)".*|\1|p' "$file")
        done
    done
    [[ -z $bad ]] || fail "a folder includes from one above it or beside it: $bad"
}
