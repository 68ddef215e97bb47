# test_strings.sh - hostile strings stay inert: a thread name that the
# program sets with terminal escapes, CR LF, a fake report line and a NUL
# (`Sample hostile`) is kept whole, printed escaped in every text output,
# and given back exactly by jsonl; the program is not affected.

# The name as the sample sets it, as a JSON string literal (jq reads it).
HOSTILE_JSON='"\u001b[31mevil\r\n  runtime    .NET 99\u0000tail"'
# ... and as the text outputs show it.
HOSTILE_SHOWN='\x1b[31mevil\r\n  runtime    .NET 99\0tail'

# no_controls FILE WHAT: FILE holds no control byte but the line ends.
no_controls() {
    if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$1"; then
        fail "$2: control characters found"
        LC_ALL=C grep -n $'[\x01-\x09\x0b-\x1f\x7f]' "$1" | cat -v | head -3 | sed 's/^/    | /'
    fi
    tr -d '\000' <"$1" | cmp -s - "$1" || fail "$2: NUL bytes found"
}

test_hostile_thread_name_stays_inert() {
    fixture hostile hostile
    # the program is not affected
    assert_eq 0 "$(cat "$FX/plain.rc")" "exit code without the agent"
    assert_eq "$(cat "$FX/plain.rc")" "$(cat "$FX/prof.rc")" "exit code with the agent"
    cmp -s "$FX/plain.out" "$FX/prof.out" || fail "stdout differs with the agent"
    assert_contains "$FX/prof.out" "hostile name length: 36" "the sample ran"
    assert_eq 0 "$(cat "$FX/report.rc")" "exit code of the jsonl report"

    # text report: no escape sequence, no CR, no forged line, the name whole
    local txt=$FX/trace.txt
    no_controls "$txt" "text report"
    assert_eq 1 "$(grep -c '^  runtime    ' "$txt")" "lines starting like the runtime line"
    assert_eq 0 "$(grep -c '^  runtime    .NET 99' "$txt")" "forged runtime lines"
    assert_contains "$txt" "$HOSTILE_SHOWN" "the name, escaped and whole, in the text report"
    assert_contains "$txt" "  Thread $HOSTILE_SHOWN (" "the name in the profile section"

    # collapsed: no control bytes; the thread name is one frame, whole
    "$CLRPROBE" report "$FX/trace.clrp" --format collapsed --by-thread --view wall >collapsed.txt 2>collapsed.err
    assert_eq 0 "$?" "exit code of the collapsed report"
    no_controls collapsed.txt "collapsed output"
    assert_ge 1 "$(grep -cF -- "$HOSTILE_SHOWN (" collapsed.txt)" "stacks rooted at the escaped name (its label, NAME (TID))"
    assert_eq 0 "$(grep -vcE ' [0-9]+$' collapsed.txt)" "lines that do not end in a count"
    "$CLRPROBE" report "$FX/trace.clrp" --format collapsed >collapsed-all.txt 2>/dev/null
    no_controls collapsed-all.txt "collapsed output without threads"
    assert_ge 1 "$(grep -c 'BurnTargets.Work' collapsed-all.txt)" "samples in the burning function"

    # jsonl: the name parses back exactly, ESC and NUL included
    assert_eq 1 "$(jcount "$FX/trace.jsonl" "select(.kind==\"thread_name\" and .name==$HOSTILE_JSON)")" \
        "thread_name with the exact name"
    assert_eq 36 "$(jq -r "select(.kind==\"thread_name\") | .name | explode | length" "$FX/trace.jsonl" | head -1)" \
        "code points of the name"
    assert_ge 1 "$(jcount "$FX/trace.jsonl" "select(.kind==\"thread_destroy\" and .name==$HOSTILE_JSON)")" \
        "thread_destroy carries the exact name"
    no_controls "$FX/trace.jsonl" "jsonl output"

    # the other text-like outputs carry no control bytes either
    "$CLRPROBE" report "$FX/trace.clrp" --format html --view wall -o page.html 2>/dev/null
    assert_eq 0 "$?" "exit code of the html report"
    no_controls page.html "html page"
    "$CLRPROBE" report "$FX/trace.clrp" --format speedscope --view wall >ss.json 2>/dev/null
    # (labelled "NAME (TID)": the name whole, then the OS thread id)
    assert_eq 1 "$(jq "[.profiles[] | select(.name | startswith($HOSTILE_JSON + \" (\"))] | length" ss.json)" \
        "speedscope profile labelled with the name exactly"
}
