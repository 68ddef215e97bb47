# test_layers.sh - the architecture the layout shows (docs/architecture.md)
# holds in the code: each folder uses only the folders below it, and the
# agent's files call each other without a circle (a lower file never calls
# up).  Read from the built objects and the #include lines: nothing is run.

# object_name DIR OBJ: OBJ's path under DIR, without .o.
object_name() {
    local rel=${2#"$1"/}
    echo "${rel%.o}"
}

# "FILE USES" lines for the objects of one folder: which other file of the
# folder defines a symbol this one uses, but for the symbols SKIP names
# (one a line).  Files in subfolders are named by their path in the
# folder (sub/file).
object_edges() {
    local dir=$1 skip=${2:-} o def
    declare -A owner=() skipped=()
    while read -r def; do [[ -n $def ]] && skipped[$def]=1; done <<<"$skip"
    local objs=()
    mapfile -t objs < <(find "$dir" -name '*.o' | sort)
    for o in "${objs[@]}"; do
        while read -r def; do
            [[ -n ${skipped[$def]:-} ]] && continue
            owner[$def]=$(object_name "$dir" "$o")
        done < <(nm --defined-only -g "$o" | awk '{print $3}')
    done
    for o in "${objs[@]}"; do
        local me used
        me=$(object_name "$dir" "$o")
        while read -r used; do
            [[ -n ${owner[$used]:-} && ${owner[$used]} != "$me" ]] && echo "$me ${owner[$used]}"
        done < <(nm -u "$o" | awk '{print $2}')
    done | sort -u
}

# The services' descriptors (NAME_service, one per line of
# src/agent/core/service_list.h): the core's table names them, and they
# name their service's functions: a registration, by which the core calls
# up through pointers, not a call of one file by another.  Left out of the
# edges, like the data of the table itself.
registration_symbols() {
    sed -n 's/^ *X(\([a-z_]*\)).*/\1_service/p' "$ROOT/src/agent/core/service_list.h"
}

test_layers_agent_files_call_without_a_circle() {
    local dir edges loop reg
    dir="$(dirname "$AGENT")/obj/pic/src/agent"
    [[ -d $dir ]] || { fail "no agent objects in $dir"; return; }
    reg=$(registration_symbols)
    [[ $(wc -l <<<"$reg") -ge 10 ]] || { fail "too few services in service_list.h: $reg"; return; }
    edges=$(object_edges "$dir" "$reg")
    [[ $(wc -l <<<"$edges") -ge 20 ]] || { fail "too few calls between agent files found: $edges"; return; }
    grep -q '^core/session core/service$' <<<"$edges" || fail "session.o does not call service.o? edges: $edges"
    grep -q '^events/cb_gc core/service$' <<<"$edges" || fail "cb_gc.o does not call service.o? edges: $edges"
    # no file of the core calls a service's file (the table aside)
    loop=$(grep '^core/' <<<"$edges" | grep -v ' core/')
    [[ -z $loop ]] || fail "the core calls a service's files: $loop"
    # tsort names the files of a circle on stderr
    loop=$(tsort <<<"$edges" 2>&1 >/dev/null)
    [[ -z $loop ]] || fail "the agent's files call each other in a circle: $loop"
    # and the test itself sees a circle when there is one, and the registration
    loop=$(printf '%s\ncore/service events/cb_gc\n' "$edges" | tsort 2>&1 >/dev/null)
    assert_contains "$loop" "loop" "tsort reports a planted circle"
    assert_contains "$(object_edges "$dir" "")" "core/service sampling/sampler" "the table's references, unless left out"
}

# "FILE INCLUDED" lines for the agent's files (paths under src/, headers
# and sources alike): each #include of another agent file.
include_edges() {
    local src=$1 file inc
    while read -r file; do
        while read -r inc; do
            echo "${file#"$src"/} $inc"
        done < <(sed -n 's|^#include "\(agent/[^"]*\)".*|\1|p' "$file")
    done < <(find "$src/agent" -type f -name '*.[chS]' | sort)
}

test_layers_agent_files_include_without_a_circle() {
    local edges loop
    edges=$(include_edges "$ROOT/src")
    [[ $(wc -l <<<"$edges") -ge 50 ]] || { fail "too few includes between agent files found: $edges"; return; }
    grep -q '^agent/heap/heap.c agent/core/service.h$' <<<"$edges" || fail "heap.c does not include service.h? $edges"
    loop=$(tsort <<<"$edges" 2>&1 >/dev/null)
    [[ -z $loop ]] || fail "the agent's files include each other in a circle: $loop"
    loop=$(printf '%s\nagent/core/service.h agent/heap/heap.c\n' "$edges" | tsort 2>&1 >/dev/null)
    assert_contains "$loop" "loop" "tsort reports a planted include circle"
}

# "FILE SYMBOL" for each function or variable an agent object defines for the
# other files that its header does not declare (header: HDR_DIR/FILE.h).
# Callbacks are declared in the callbacks.h of their folder
# (docs/architecture.md: "A callback"), the services' descriptors by
# service_list.h, the trampolines of tracer_trampolines.S in
# tracer_hooks.h, and DllGetClassObject is the library's export
# (exports.map); names in __ are the compiler's (a sanitizer's indicators).
undeclared_in_own_header() {
    local obj_dir=$1 hdr_dir=$2 o me sym
    while read -r o; do
        me=$(object_name "$obj_dir" "$o")
        [[ ${me##*/} == tracer_trampolines ]] && continue
        while read -r sym; do
            [[ $sym == DllGetClassObject || $sym == __* ]] && continue
            grep -qw -- "$sym" "$hdr_dir/$me.h" 2>/dev/null && continue
            grep -qw -- "$sym" "$hdr_dir/$(dirname "$me")/callbacks.h" 2>/dev/null && continue
            [[ $sym == *_service ]] && grep -q "^ *X(${sym%_service})" "$ROOT/src/agent/core/service_list.h" && continue
            echo "$me $sym"
        done < <(nm --defined-only -g "$o" | awk '$2 ~ /^[TDBR]$/ {print $3}')
    done < <(find "$obj_dir" -name '*.o' | sort)
}

test_layers_agent_files_declare_their_interface_in_their_own_header() {
    local dir missing
    dir="$(dirname "$AGENT")/obj/pic/src/agent"
    [[ -d $dir ]] || { fail "no agent objects in $dir"; return; }
    missing=$(undeclared_in_own_header "$dir" "$ROOT/src/agent")
    [[ -z $missing ]] || fail "declared outside the .h of their .c (docs/architecture.md): $(tr '\n' ';' <<<"$missing")"
    # and the test itself sees a function its header does not declare
    mkdir -p planted/core && : >planted/core/thread_state.h
    cp "$dir/core/thread_state.o" planted/core/ || { fail "copy thread_state.o"; return; }
    missing=$(undeclared_in_own_header planted planted)
    assert_contains "$missing" "core/thread_state emit_begin" "a planted header without emit_begin"
}

# bad_agent_includes AGENT: what breaks the agent's own layering (the tree
# AGENT, a src/agent folder): a file outside a folder; a file of the core
# that includes a service's folder; a service's file that includes from
# the core anything but core/service.h, or from another service's folder.
bad_agent_includes() {
    local agent=$1 file inc folder target
    while read -r file; do
        echo "${file#"$agent"/} is in no folder of the agent; "
    done < <(find "$agent" -maxdepth 1 -type f -name '*.[chS]' | sort)
    while read -r file; do
        folder=${file#"$agent"/}
        folder=${folder%%/*}
        while read -r inc; do
            target=${inc#agent/}
            target=${target%%/*}
            if [[ $folder == core ]]; then
                [[ $target == core ]] || echo "core/${file##*/core/} includes $inc (a service); "
            elif [[ $target == core ]]; then
                [[ $inc == agent/core/service.h ]] || echo "$folder/${file##*/} includes $inc (not core/service.h); "
            elif [[ $target != "$folder" ]]; then
                echo "$folder/${file##*/} includes $inc (another service's folder); "
            fi
        done < <(sed -n 's|^#include "\(agent/[^"]*\)".*|\1|p' "$file")
    done < <(find "$agent" -mindepth 2 -type f -name '*.[chS]' | sort)
}

test_layers_the_core_includes_no_service() {
    local bad
    [[ -f $ROOT/src/agent/core/service.h ]] || { fail "no src/agent/core/service.h"; return; }
    bad=$(bad_agent_includes "$ROOT/src/agent")
    [[ -z $bad ]] || fail "the agent's folders include across their bounds (docs/architecture.md): $bad"
    # and the check sees each kind of break
    mkdir -p planted/agent/core planted/agent/heap planted/agent/sampling
    echo '#include "agent/heap/heap.h"' >planted/agent/core/session.c
    printf '#include "agent/core/service.h"\n#include "agent/core/names.h"\n' >planted/agent/heap/heap.c
    echo '#include "agent/heap/heap.h"' >planted/agent/sampling/sampler.c
    : >planted/agent/loose.c
    bad=$(bad_agent_includes "$PWD/planted/agent")
    assert_contains "$bad" "core/session.c includes agent/heap/heap.h" "the core including a service"
    assert_contains "$bad" "heap/heap.c includes agent/core/names.h" "a service including the core past service.h"
    assert_not_contains "$bad" "heap/heap.c includes agent/core/service.h" "service.h is allowed"
    assert_contains "$bad" "sampling/sampler.c includes agent/heap/heap.h" "a service including another's folder"
    assert_contains "$bad" "loose.c is in no folder" "a file outside the folders"
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
        eventpipe) echo "ipc" ;;
        symbols) echo "common" ;;
        report) echo "common trace eventpipe symbols" ;;
        serve) echo "common report eventpipe ipc" ;;
        cpuclock) echo "common" ;;
        cli) echo "common trace report serve eventpipe ipc symbols cpuclock" ;;
    esac
}

LAYER_FOLDERS="api common trace unwind agent ipc eventpipe symbols report serve cpuclock cli"

# bad_includes SRC: what breaks the layering in the tree SRC (a src/
# folder): a folder of SRC that is not one of the layers, and an #include,
# in any file at any depth, of a folder above or beside its own.
bad_includes() {
    local src=$1 folder file inc target
    for folder in "$src"/*/; do
        folder=${folder%/}
        [[ " $LAYER_FOLDERS " == *" ${folder##*/} "* ]] || echo "${folder##*/} is not a layer of docs/architecture.md; "
    done
    for folder in $LAYER_FOLDERS; do
        local allowed
        allowed=" $folder $(allowed_includes "$folder") "
        [[ -d $src/$folder ]] || continue
        while read -r file; do
            while read -r inc; do
                target=${inc%%/*}
                [[ $allowed == *" $target "* ]] || echo "${file#"$src"/} includes $inc; "
            done < <(sed -n 's|^#include "\([a-z_]*/[^"]*\)".*|\1|p' "$file")
        done < <(find "$src/$folder" -type f -name '*.[chS]' | sort)
    done
}

test_layers_folders_include_only_lower_folders() {
    local bad
    bad=$(bad_includes "$ROOT/src")
    [[ -z $bad ]] || fail "a folder includes from one above it or beside it: $bad"
    # and the check sees a file in a subfolder, and a folder that is no layer
    mkdir -p planted/src/common/deep planted/src/engines
    echo '#include "agent/core/profiler.h"' >planted/src/common/deep/x.c
    bad=$(bad_includes "$PWD/planted/src")
    assert_contains "$bad" "common/deep/x.c includes agent/core/profiler.h" "an include in a subfolder"
    assert_contains "$bad" "engines is not a layer" "a folder that is no layer"
}

# The repository stands on its own: no file of it cites a document outside
# it (docs/architecture.md, "Documents").  The patterns are built from
# pieces so that this file does not match them itself.
outside_citation_pattern() {
    local s=shared
    printf '%s' "$s/seeds|$s/reference|\\.\\./$s|[a-z]-facts\\b|[Ss]eeds? 00[0-9]"
}

# The tracked files (git ls-files), or, outside a git work tree (a copy of
# the sources), the files of the folders and files a release holds.
repository_files() {
    if git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$ROOT" ls-files -z | sed -z "s|^|$ROOT/|"
    else
        local p
        for p in src tests docs bench scripts sample README.md Makefile .ci; do
            [[ -e $ROOT/$p ]] && find "$ROOT/$p" -type f -not -path '*/bin/*' -not -path '*/obj/*' -print0
        done
    fi
}

# "FILE:LINE: TEXT" for every line of the files named on stdin (NUL ends
# each) that cites a document outside the repository; binary files skipped.
outside_citations() {
    xargs -0 -r grep -I -n -s -E -- "$(outside_citation_pattern)" | sed "s|^$ROOT/||"
}

test_layers_no_citation_outside_the_repository() {
    local files found planted
    files=$(repository_files | tr '\0' '\n')
    [[ $(wc -l <<<"$files") -ge 100 ]] || { fail "too few files of the repository found: $(wc -l <<<"$files")"; return; }
    grep -q 'src/agent/core/catchup.h$' <<<"$files" || fail "src/agent/core/catchup.h is not among the files searched"
    found=$(repository_files | outside_citations)
    [[ -z $found ]] || fail "files cite documents outside the repository (write the facts in docs/ and cite that): $found"
    # and the check sees a citation when there is one, in each form
    planted="$WORK/t/planted.h"
    mkdir -p "$WORK/t"
    local s=shared
    printf '/* see ../%s/seeds/000_x.txt */\n/* %s/reference/a.md */\n/* heap-%s.md */\n/* seed %s */\n' \
        "$s" "$s" facts 004 >"$planted"
    found=$(printf '%s\0' "$planted" | outside_citations)
    assert_eq 4 "$(grep -c . <<<"$found")" "citations found in a planted file: $found"
}
