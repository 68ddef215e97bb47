# test_compat.sh - traces written by an earlier clrprobe read exactly the
# same: tests/data/compat/ holds three small traces recorded before the
# record catalogue (src/trace/records.def) replaced the hand-written
# encoders and decoders - one launched (`Sample all`), one attached
# (`Sample churn`), one with a hostile thread name (`Sample hostile`) - and
# the reports that clrprobe made of them then.  Every report made now must
# be byte for byte the same.  Only the first line of the text report names
# the file as given on the command line: the test gives it the same way.
# The text reports were made again when the text's layout changed (the
# answers first, the inventory last); jsonl and collapsed are the earlier
# clrprobe's.

COMPAT=$ROOT/tests/data/compat

# compat_report NAME SUFFIX ARGS...: reports NAME.clrp with ARGS and compares
# with NAME.SUFFIX.
compat_report() {
    local name=$1 suffix=$2
    shift 2
    "$CLRPROBE" report "$name.clrp" "$@" >"$name.$suffix" 2>"$name.$suffix.err"
    assert_eq 0 "$?" "exit code of report $name $*"
    if ! cmp -s "$COMPAT/$name.$suffix" "$name.$suffix"; then
        fail "report $name $* differs from the one the earlier clrprobe made"
        diff "$COMPAT/$name.$suffix" "$name.$suffix" | head -10 | sed 's/^/    | /'
    fi
}

test_compat_old_traces_read_the_same() {
    local name
    mkdir -p compat && cd compat || fail "work directory"
    for name in launch attach hostile; do
        cp "$COMPAT/$name.clrp" . || fail "copy $name.clrp"
        compat_report "$name" jsonl --format jsonl
        compat_report "$name" txt --format text
        compat_report "$name" collapsed --format collapsed --view wall
        compat_report "$name" by-thread.collapsed --format collapsed --view wall --by-thread
    done
    compat_report launch cpu.collapsed --format collapsed
    compat_report hostile cpu.collapsed --format collapsed
}
