# test_build.sh - the Makefile: the user's CFLAGS come on top of the
# project's own flags, never instead of them, and the html page's files are
# built into the command (dry runs: nothing is built).

test_build_keeps_project_flags_with_user_cflags() {
    local out line
    # (not the flags of a make this suite may run under)
    out=$(cd "$ROOT" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -n -B CC=clang CFLAGS=-O1 build/clrprobe 2>&1)
    assert_eq 0 "$?" "make -n exit code"
    line=$(grep -m1 -- ' -c src/cli/main.c ' <<<"$out")
    [[ -n $line ]] || { fail "no compile line for src/cli/main.c in: $(head -3 <<<"$out")"; return; }
    echo "$line"
    local flag
    for flag in "clang " -std=c11 -D_GNU_SOURCE -Wall -Wextra -Isrc -MMD -O1; do
        assert_contains "$line" "$flag" "make CC=clang CFLAGS=-O1 compiles with $flag"
    done
    [[ $line != *-O2* ]] || fail "the default -O2 stayed although CFLAGS=-O1 was given: $line"
    # the sanitized build adds its flags to the compile and link lines
    out=$(cd "$ROOT" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -n -B BUILD=build-dry SANITIZE=-fsanitize=address \
        build-dry/libclrprobe.so 2>&1)
    assert_contains "$(grep -m1 -- ' -c src/agent/sampling/sampler.c ' <<<"$out")" "-std=c11" "project flags with SANITIZE"
    assert_contains "$(grep -m1 -- ' -shared ' <<<"$out")" "-fsanitize=address" "SANITIZE on the link line"
}

# The html report's page files (src/report/page/) are built into the command
# and the unit tests by html_page_files.S, whose .incbin no dependency file
# lists: the Makefile makes each page file a prerequisite of its object, so
# that `make` rebuilds them when one changes.
test_build_rebuilds_the_command_when_a_page_file_changes() {
    local obj=build-dry/obj/std/src/report/html_page_files.o deps f n=0 out
    deps=$(cd "$ROOT" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -pq BUILD=build-dry "$obj" 2>/dev/null |
        grep -m1 "^$obj:")
    for f in "$ROOT"/src/report/page/*; do
        [[ -f $f ]] || continue
        n=$((n + 1))
        [[ " $deps " == *" src/report/page/${f##*/} "* ]] || fail "$obj does not depend on ${f#$ROOT/}: '$deps'"
    done
    assert_ge 1 "$n" "page files"
    # the object goes into the command and the unit tests (html_page.c needs its symbols)
    out=$(cd "$ROOT" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -n -B BUILD=build-dry build-dry/clrprobe \
        build-dry/unit_tests 2>&1)
    assert_contains "$out" "-c src/report/html_page_files.S -o $obj" "the page files assembled"
    assert_eq 2 "$(grep -c -- " -o build-dry/\(clrprobe\|unit_tests\) .*$obj" <<<"$out")" "links with the page files"
}
