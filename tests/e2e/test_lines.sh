# test_lines.sh - source lines against the real runtime and the program's
# own PDBs: `Sample lines` (Release, its hot methods optimised by the JIT)
# spends its CPU in LinesTargets.Loops' two loops, one line each, 3:1, called
# from two lines of LinesTargets.Caller, 3:1, and in the Late library's
# LateLines.Spin (its PDB embedded in Late.dll).  Checked: the shares by line
# in `report --lines`' collapsed stacks and in `go tool pprof -lines` (the
# pprof file's Line table), at launch with both engines and after an
# attach; the text's "Hot lines"; the embedded PDB; a missing PDB (frames
# as before, a note naming the assembly, --symbols DIR finding it); a
# hostile PDB (garbage, a FIFO) read without harm.  The program's output
# and exit code are those of a run without the agent.

# line_of MARKER FILE: the line of the sample's source FILE that holds MARKER.
line_of() {
    grep -n -- "// $1\$" "$ROOT/sample/$2" | head -1 | cut -d: -f1
}

# leaf_count FILE FRAME: the samples of the collapsed stacks of FILE whose
# leaf (last) frame is FRAME.
leaf_count() {
    awk -v f="$2" '{
        c = $NF; s = $0; sub(/ [0-9]+$/, "", s); n = split(s, fr, ";")
        if (fr[n] == f) t += c } END { print t + 0 }' "$1"
}

# stack_count FILE FRAME: the samples of the stacks that hold FRAME.
stack_count() {
    awk -v f="$2" '{
        c = $NF; s = $0; sub(/ [0-9]+$/, "", s); n = split(s, fr, ";")
        for (i = 1; i <= n; i++) if (fr[i] == f) { t += c; break } } END { print t + 0 }' "$1"
}

# share A B: A's share of A + B, in percent.
share() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a + b) printf "%.1f", 100 * a / (a + b); else print "" }'
}

# copy_app: the sample's build in app/ (the sample itself, not the
# sanitized run's wrapper); app_run ARGS...: ./app/Sample ARGS, with ASan's
# runtime preloaded in a sanitized run (lib.sh, sanitizer_preload).
copy_app() {
    mkdir app && cp -r "$(dirname "$SAMPLE_BIN")"/. app/
}
app_run() {
    env ${SANITIZER_PRELOAD:+LD_PRELOAD=$SANITIZER_PRELOAD ASAN_OPTIONS=detect_leaks=0} ./app/Sample "$@"
}

# check_line_shares TRACE LABEL: the 3:1 of Loops' two lines (self) and of
# Caller's two calls (total), in report --lines' collapsed stacks.
check_line_shares() {
    local l3 l1 c3 c1 n3 n1 loops other
    l3=$(line_of LINES-LOOP-3 LinesScenario.cs)
    l1=$(line_of LINES-LOOP-1 LinesScenario.cs)
    c3=$(line_of LINES-CALL-3 LinesScenario.cs)
    c1=$(line_of LINES-CALL-1 LinesScenario.cs)
    "$CLRPROBE" report "$1" --lines --format collapsed >lines.txt 2>lines.err
    assert_eq 0 "$?" "$2: report --lines --format collapsed"
    n3=$(leaf_count lines.txt "ClrProbe.Sample.LinesTargets.Loops (LinesScenario.cs:$l3)")
    n1=$(leaf_count lines.txt "ClrProbe.Sample.LinesTargets.Loops (LinesScenario.cs:$l1)")
    assert_share "$(share "$n3" "$n1")" 75 "$((n3 + n1))" "$SHARES_BIAS" "$2: Loops' self on line $l3 (of lines $l3, $l1)"
    # the rest of Loops' own time (its prolog, the lines around the loops) is little
    loops=$(awk '{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s); n = split(s, fr, ";")
                   if (index(fr[n], "ClrProbe.Sample.LinesTargets.Loops") == 1) t += c } END { print t + 0 }' lines.txt)
    other=$((loops - n3 - n1))
    echo "$2: Loops' self: $n3 on line $l3, $n1 on line $l1, $other elsewhere"
    awk -v o="$other" -v a="$loops" 'BEGIN { exit !(a > 0 && o <= 0.05 * a + 2) }' ||
        fail "$2: $other of Loops' $loops self samples on other lines"
    n3=$(stack_count lines.txt "ClrProbe.Sample.LinesTargets.Caller (LinesScenario.cs:$c3)")
    n1=$(stack_count lines.txt "ClrProbe.Sample.LinesTargets.Caller (LinesScenario.cs:$c1)")
    assert_share "$(share "$n3" "$n1")" 75 "$((n3 + n1))" "$SHARES_BIAS" "$2: Caller's call on line $c3 (of lines $c3, $c1)"
    # the Late library's loop, from the PDB embedded in Late.dll
    assert_ge 1 "$(leaf_count lines.txt "ClrProbe.Late.LateLines.Spin (LateLines.cs:$(line_of LINES-LATE late/LateLines.cs))")" \
        "$2: LateLines.Spin's line, from the embedded PDB"
    # without --lines: a frame per method, as before
    "$CLRPROBE" report "$1" --format collapsed >plain.txt
    assert_eq 0 "$(grep -c 'LinesScenario.cs' plain.txt)" "$2: no lines without --lines"
    assert_ge 1 "$(leaf_count plain.txt ClrProbe.Sample.LinesTargets.Loops)" "$2: Loops without --lines"
}

# check_pprof_lines TRACE LABEL: the same 3:1 in go tool pprof -lines.
check_pprof_lines() {
    local l3 l1 n3 n1
    l3=$(line_of LINES-LOOP-3 LinesScenario.cs)
    l1=$(line_of LINES-LOOP-1 LinesScenario.cs)
    "$CLRPROBE" report "$1" --format pprof -o lines.pb.gz
    assert_eq 0 "$?" "$2: pprof"
    HOME=${HOME:-$WORK} go tool pprof -lines -top -nodecount=200 -unit=ms lines.pb.gz >top.txt 2>top.err
    assert_eq 0 "$?" "$2: go tool pprof -lines"
    # "flat flat% sum% cum cum% NAME FILE:LINE", flat in ms
    n3=$(awk -v l="LinesScenario.cs:$l3" '$6 == "ClrProbe.Sample.LinesTargets.Loops" && $7 ~ ("/" l "$") {
        sub(/ms$/, "", $1); print int($1 / 10 + 0.5) }' top.txt)
    n1=$(awk -v l="LinesScenario.cs:$l1" '$6 == "ClrProbe.Sample.LinesTargets.Loops" && $7 ~ ("/" l "$") {
        sub(/ms$/, "", $1); print int($1 / 10 + 0.5) }' top.txt)
    [[ -n $n3 && -n $n1 ]] || { cat top.txt; fail "$2: go tool pprof -lines has no rows for lines $l3 and $l1 of Loops"; return; }
    # (samples of 10 ms of CPU each: the share of the CPU time of the two lines)
    assert_share "$(share "$n3" "$n1")" 75 "$((n3 + n1))" "$SHARES_BIAS" "$2: go tool pprof -lines, Loops' line $l3"
    # without -lines, pprof's functions are whole methods, with their file
    HOME=${HOME:-$WORK} go tool pprof -top -nodecount=50 lines.pb.gz >fn.txt 2>/dev/null
    assert_eq 1 "$(grep -c 'ClrProbe.Sample.LinesTargets.Loops$' fn.txt)" "$2: one pprof function for Loops"
}

test_lines_at_launch_in_collapsed_pprof_and_text() {
    "$SAMPLE" lines 3 >plain.out
    assert_eq 0 "$?" "unprofiled exit code"
    "$CLRPROBE" run -o l.clrp -- "$SAMPLE" lines 3 >prof.out 2>err
    assert_eq 0 "$?" "exit code"
    cmp -s plain.out prof.out || fail "output changed under the agent"
    check_line_shares l.clrp "launch"
    check_pprof_lines l.clrp "launch"
    # the text: the hot lines on the first screen, the --lines frames in its tables
    "$CLRPROBE" report l.clrp >t.txt
    assert_contains t.txt "Hot lines (cpu view)" "text: hot lines"
    local first
    first=$(grep -n "^Hot lines" t.txt | cut -d: -f1)
    [[ -n $first && $first -le 50 ]] || fail "text: hot lines not within the first 50 lines (at '$first')"
    grep -A3 "^Hot lines" t.txt | grep -q "LinesScenario.cs:$(line_of LINES-LOOP-3 LinesScenario.cs)$" ||
        fail "text: Loops' hot line is not the first line of its hot lines"
    "$CLRPROBE" report l.clrp --lines >tl.txt
    assert_contains tl.txt "ClrProbe.Sample.LinesTargets.Loops (LinesScenario.cs:$(line_of LINES-LOOP-3 LinesScenario.cs))" \
        "text --lines: a frame per line"
    # speedscope: the frames' file and line
    "$CLRPROBE" report l.clrp --lines --format speedscope >s.json
    assert_eq true "$(jq '[.shared.frames[] | select(.name == "ClrProbe.Sample.LinesTargets.Loops")
        | .line] | contains(['"$(line_of LINES-LOOP-3 LinesScenario.cs)"'])' s.json)" "speedscope: Loops' line"
    assert_eq true "$(jq '[.shared.frames[] | select(.name == "ClrProbe.Sample.LinesTargets.Loops") | .file]
        | all(endswith("/sample/LinesScenario.cs"))' s.json)" "speedscope: Loops' file"
    # jsonl: each frame's IL offset, every sample one per frame
    "$CLRPROBE" report l.clrp --format jsonl >l.jsonl
    assert_eq 0 "$(jcount l.jsonl 'select(.kind=="sample" and (.il | length) != (.frames | length))')" \
        "jsonl: an IL offset per frame"
    assert_ge 1 "$(jcount l.jsonl 'select(.kind=="function_name" and .name == "ClrProbe.Sample.LinesTargets.Loops" and .token > 100663296)')" \
        "jsonl: the method's token"
}

test_lines_suspend_engine() {
    "$CLRPROBE" run --sampler suspend -o l.clrp -- "$SAMPLE" lines 3 >prof.out 2>err
    assert_eq 0 "$?" "exit code"
    check_line_shares l.clrp "suspend engine"
}

test_lines_after_attach() {
    "$SAMPLE" lines 9 >lines.out 2>&1 &
    TPID=$!
    at_exit "kill $TPID 2>/dev/null"
    wait_for_text lines.out 30 "lines started" || fail "sample did not start"
    attach_when_ready "$TPID" -o att.clrp --collect cpu,threads --duration 3 >a.out
    assert_eq 0 "$?" "attach exit code"
    wait "$TPID"
    assert_eq 0 "$?" "target exit code"
    assert_eq "lines started
lines done" "$(cat lines.out)" "the target's output"
    check_line_shares att.clrp "attach"
    check_pprof_lines att.clrp "attach"
}

# The program without its PDB: frames as they were, a note that names it,
# and --symbols DIR finds it there.
test_lines_missing_pdb_and_symbols_dir() {
    copy_app
    mkdir syms
    mv app/Sample.pdb syms/
    rm -f app/Late.pdb                  # (a build before its PDB was embedded)
    app_run lines 2 >plain.out
    "$CLRPROBE" run -o l.clrp -- env ${SANITIZER_PRELOAD:+LD_PRELOAD=$SANITIZER_PRELOAD ASAN_OPTIONS=detect_leaks=0} \
        ./app/Sample lines 2 >prof.out 2>err
    assert_eq 0 "$?" "exit code"
    cmp -s plain.out prof.out || fail "output changed under the agent"
    "$CLRPROBE" report l.clrp --lines --format collapsed >c.txt
    assert_eq 0 "$?" "report --lines without the PDB"
    assert_eq 0 "$(grep -c 'LinesScenario.cs' c.txt)" "no Sample lines without its PDB"
    assert_ge 1 "$(leaf_count c.txt ClrProbe.Sample.LinesTargets.Loops)" "Loops as a whole method"
    assert_ge 1 "$(grep -c 'LateLines.cs' c.txt)" "Late's lines still (its PDB is embedded)"
    "$CLRPROBE" report l.clrp >t.txt
    assert_contains t.txt "no Sample.pdb beside" "text: the missing PDB named"
    # the PDB in a directory of its own
    "$CLRPROBE" report l.clrp --lines --symbols syms --format collapsed >s.txt
    assert_eq 0 "$?" "report --symbols"
    assert_ge 1 "$(grep -c 'LinesTargets.Loops (LinesScenario.cs:' s.txt)" "the lines found with --symbols"
    expect_error 2 "--symbols nowhere" "$CLRPROBE" report l.clrp --symbols nowhere
}

# A hostile PDB beside the assembly (garbage, a FIFO, a PDB whose header
# fields are damaged): the report is whole, the frames without lines, and
# it never blocks.
test_lines_hostile_pdb() {
    copy_app
    "$CLRPROBE" run -o l.clrp -- env ${SANITIZER_PRELOAD:+LD_PRELOAD=$SANITIZER_PRELOAD ASAN_OPTIONS=detect_leaks=0} \
        ./app/Sample lines 1 >/dev/null 2>err
    assert_eq 0 "$?" "exit code"
    local kind
    for kind in garbage windows damaged fifo; do
        rm -f app/Sample.pdb
        case $kind in
        garbage) head -c 100000 /dev/urandom >app/Sample.pdb ;;
        windows) { printf 'Microsoft C/C++ MSF 7.00\r\n\032DS\0\0\0'; head -c 5000 /dev/urandom; } >app/Sample.pdb ;;
        damaged)
            # the real PDB, every 4th byte of its first 4 KiB (stream headers, table row counts) set to 0xff
            python3 - "$(dirname "$SAMPLE_BIN")/Sample.pdb" app/Sample.pdb <<'EOF'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
for i in range(32, min(4096, len(b)), 4):
    b[i] = 0xff
open(sys.argv[2], 'wb').write(b)
EOF
            ;;
        fifo) mkfifo app/Sample.pdb ;;
        esac
        timeout 20 "$CLRPROBE" report l.clrp --lines --format collapsed >c.txt 2>c.err
        assert_eq 0 "$?" "$kind PDB: report --lines"
        assert_ge 1 "$(leaf_count c.txt ClrProbe.Sample.LinesTargets.Loops)" "$kind PDB: Loops as a whole method"
        timeout 20 "$CLRPROBE" report l.clrp --format pprof -o l.pb.gz 2>p.err
        assert_eq 0 "$?" "$kind PDB: pprof"
    done
}

# PDBs made huge (1 GiB each, sparse: a few KB on disk) cost the report
# only what their streams hold: past the last stream nothing is read, so
# the program's padded PDB still gives its lines, and two padded ones in
# --symbols (another build's, refused) cost nothing either; all the
# report reads shares one 256 MiB budget, so a PDB whose stream claims
# 300 MiB is skipped, and the note names why.  Peak memory stays far under
# the 3 GiB the files' sizes add up to.
test_lines_padded_pdbs_in_bounded_memory() {
    [[ -x /usr/bin/time ]] || { fail "/usr/bin/time is missing (Debian package time, installed by make setup)"; return; }
    copy_app
    "$CLRPROBE" run -o l.clrp -- env ${SANITIZER_PRELOAD:+LD_PRELOAD=$SANITIZER_PRELOAD ASAN_OPTIONS=detect_leaks=0} \
        ./app/Sample lines 1 >/dev/null 2>err
    assert_eq 0 "$?" "exit code"
    mkdir syms
    cp app/Sample.pdb syms/System.Private.CoreLib.pdb
    cp app/Sample.pdb syms/System.Console.pdb
    cp app/Sample.pdb real.pdb
    truncate -s 1G app/Sample.pdb syms/System.Private.CoreLib.pdb syms/System.Console.pdb
    local kb
    /usr/bin/time -o rss.txt -f '%M' "$CLRPROBE" report l.clrp --lines --symbols syms --format collapsed >c.txt 2>c.err
    assert_eq 0 "$?" "report --lines: $(cat c.err)"
    kb=$(tail -1 rss.txt)
    echo "peak RSS with three 1 GiB PDBs: $kb KB"
    [[ $kb =~ ^[0-9]+$ && $kb -lt 524288 ]] || fail "report --lines with three 1 GiB PDBs took '$kb' KB (512 MB at most)"
    assert_ge 1 "$(grep -c 'LinesTargets.Loops (LinesScenario.cs:' c.txt)" "the padded PDB's lines"
    # a PDB whose #Blob stream claims 300 MiB, in a 1 GiB file
    python3 - real.pdb app/Sample.pdb <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
off = 16 + struct.unpack_from('<I', b, 12)[0]
n = struct.unpack_from('<H', b, off + 2)[0]
off += 4
for i in range(n):
    name = bytes(b[off + 8:b.index(0, off + 8)]).decode()
    if name == '#Blob':
        struct.pack_into('<I', b, off + 4, 300 << 20)
    off += 8 + ((len(name) + 4) & ~3)
open(sys.argv[2], 'wb').write(b)
EOF
    truncate -s 1G app/Sample.pdb
    /usr/bin/time -o rss.txt -f '%M' "$CLRPROBE" report l.clrp --lines >t.txt 2>t.err
    assert_eq 0 "$?" "report --lines, the PDB over the budget: $(cat t.err)"
    kb=$(tail -1 rss.txt)
    [[ $kb =~ ^[0-9]+$ && $kb -lt 524288 ]] || fail "report --lines with a PDB over the budget took '$kb' KB"
    assert_contains t.txt "Sample.pdb: skipped: past the 256 MiB that one report reads of assemblies and PDBs in all" \
        "the note names the PDB over the budget"
    assert_ge 1 "$(grep -c 'LateLines.cs' t.txt)" "Late's lines still (its PDB is embedded)"
}

# Allocation stacks have lines too: `Sample alloc`'s byte arrays are all
# allocated on one line of AllocTargets.AllocateLarge's loop.  Optimised
# code maps only as finely as the JIT records: its tier-1 code has the
# loop's first statement (the allocation) under the loop's own line (the
# `for`), so either of the two.
test_lines_allocation_stacks() {
    local line loop n all
    line=$(grep -n 'var bytes = new byte\[LargeLength\];' "$ROOT/sample/AllocScenario.cs" | cut -d: -f1)
    loop=$((line - 2))
    sed -n "${loop}p" "$ROOT/sample/AllocScenario.cs" | grep -q 'for (int i = 0; i < count; i++)' ||
        fail "AllocScenario.cs: the loop is not two lines above the allocation"
    "$CLRPROBE" run -c alloc -o a.clrp -- "$SAMPLE" alloc 1 >/dev/null 2>err
    assert_eq 0 "$?" "exit code"
    "$CLRPROBE" report a.clrp --view alloc --lines --format collapsed >a.txt
    assert_eq 0 "$?" "report --view alloc --lines"
    n=$(awk -v f="ClrProbe.Sample.AllocTargets.AllocateLarge (AllocScenario.cs:$line);System.Byte[]" \
            -v g="ClrProbe.Sample.AllocTargets.AllocateLarge (AllocScenario.cs:$loop);System.Byte[]" \
        'index($0, f) || index($0, g) { t += $NF } END { print t + 0 }' a.txt)
    all=$(awk '/AllocTargets.AllocateLarge/ && /System.Byte\[\]/ { t += $NF } END { print t + 0 }' a.txt)
    echo "AllocateLarge's byte arrays: $n of $all bytes on lines $loop and $line"
    awk -v n="$n" -v a="$all" 'BEGIN { exit !(a > 0 && n >= 0.95 * a) }' ||
        fail "$n of AllocateLarge's $all bytes of byte arrays on lines $loop and $line"
}
