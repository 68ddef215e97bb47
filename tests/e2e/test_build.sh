# test_build.sh - the Makefile: the user's CFLAGS come on top of the
# project's own flags, never instead of them (dry runs: nothing is built).

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
    assert_contains "$(grep -m1 -- ' -c src/agent/sampler.c ' <<<"$out")" "-std=c11" "project flags with SANITIZE"
    assert_contains "$(grep -m1 -- ' -shared ' <<<"$out")" "-fsanitize=address" "SANITIZE on the link line"
}
