# test_html.sh - `clrprobe report --format html`: one self-contained page
# (no network, the data inline and escaped) with the flame graph of the
# sample's "shares" scenario.  Headless Chromium renders it: a screenshot
# that is not blank, and --dump-dom with the page's URL fragment
# (#search=RE, #thread=NAME, #zoom=NAME) to read the state the page writes
# into <div id="status">: the matched share must be the known one.

# html_trace: the shared `Sample shares 3` recording (shares_trace in
# lib.sh) and its page, written once per suite run; sets TRACE and PAGE.
html_trace() {
    local dir="$WORK/fixtures/html"
    shares_trace
    PAGE="$dir/page.html"
    mkdir -p "$dir"
    (
        exec 9>"$dir.lock"
        flock 9
        [[ -f $dir/done ]] && exit 0
        "$CLRPROBE" report "$TRACE" --format html -o "$PAGE" 2>"$dir/report.err"
        echo $? >"$dir/report.rc"
        "$CLRPROBE" report "$TRACE" --format collapsed --by-thread >"$dir/threads.txt" 2>>"$dir/report.err"
        touch "$dir/done"
    )
    assert_eq 0 "$(cat "$dir/report.rc")" "exit code of the html report"
    [[ -s $PAGE ]] || fail "no page written"
}

# first_view_trees PAGE: the call trees of the view the page shows first
# (html_first_view, lib.sh).
first_view_trees() {
    html_first_view "$1" | grep -o '"tree":\[' | wc -l | tr -d ' '
}

# status FRAGMENT: the text of <div id="status"> of the page opened at #FRAGMENT.
status() {
    chrome --virtual-time-budget=5000 --dump-dom "file://$PAGE#$1" >dom.html
    sed -n 's|.*<div id="status">\([^<]*\)</div>.*|\1|p' dom.html | head -1
}

# matched STATUS: the matched percentage in a status line; matched_of STATUS:
# the number of samples it is a share of.
matched() {
    sed -n 's/.*; matched \([0-9.]*\)% of .*/\1/p' <<<"$1"
}
matched_of() {
    sed -n 's/.*; matched [0-9.]*% of \([0-9]*\) samples.*/\1/p' <<<"$1"
}

# share NEEDLE: percentage of the CPU samples whose stack contains NEEDLE (from collapsed output)
share() {
    collapsed_share "$1" "$WORK/fixtures/html/threads.txt"
}

# same_share VALUE EXPECTED MESSAGE: the page's share is the one computed from
# the same samples by the collapsed output (not an estimate: equal but for
# rounding to 0.1).
same_share() {
    awk -v v="$1" -v e="$2" 'BEGIN {exit !(v != "" && v >= e - 0.1 && v <= e + 0.1)}' ||
        fail "$3: '$1'% where the collapsed output has $2%"
}

test_html_self_contained() {
    html_trace
    assert_eq "<!DOCTYPE html>" "$(head -1 "$PAGE")" "first line"
    # nothing to fetch: no URLs at all, no external scripts, styles, images or fonts
    assert_eq 0 "$(grep -ciE 'https?://|<script[^>]+src|<link|<img|<iframe|@import|url\(|src=|href=' "$PAGE")" \
        "lines referring to anything outside the page"
    assert_eq 4 "$(grep -c '<script' "$PAGE")" "script elements (the data, the code, the heap view and its fragment keeper)"
    assert_contains "$PAGE" '<div id="status">' "status element"
    assert_contains "$PAGE" '"ClrProbe.Sample.SharesTargets.BurnOther"' "frame names in the data"
    assert_contains "$PAGE" '"name":"clrprobe-busy (' "thread labels in the data"
    assert_contains "$PAGE" '"view":"cpu"' "view in the data"
    # aggregated in C: one tree per thread, not one stack per sample
    local nthreads
    nthreads=$(cut -d';' -f1 "$WORK/fixtures/html/threads.txt" | sed 's/ [0-9]*$//' | sort -u | wc -l)
    assert_eq "$nthreads" "$(first_view_trees "$PAGE")" "one tree per thread"
    assert_ge 1 "$(grep -c 'u003c' "$PAGE")" "'<' in names (generic types) written as \\u003c"
    [[ $(wc -c <"$PAGE") -lt 300000 ]] || fail "page of a 3 s profile is $(wc -c <"$PAGE") bytes"

    # the title (the trace's file name) is HTML-escaped in <title> and JSON-escaped in the data
    cp "$TRACE" 'odd<b>&name.clrp'
    "$CLRPROBE" report 'odd<b>&name.clrp' --format html -o odd.html 2>err
    assert_eq 0 "$?" "exit code for an odd file name"
    assert_contains odd.html '<title>odd&lt;b&gt;&amp;name.clrp - clrprobe flame graph</title>' "escaped <title>"
    assert_contains odd.html '"title":"odd\u003cb\u003e\u0026name.clrp"' "escaped title in the data"
    assert_not_contains odd.html '<b>' "raw markup from the file name"

    # the other view and the thread filter
    "$CLRPROBE" report "$TRACE" --format html --view wall -o wall.html 2>err
    assert_eq 0 "$?" "exit code of the wall view"
    assert_contains wall.html '"view":"wall"' "wall view in the data"
    assert_contains wall.html '"name":"clrprobe-sleeper (' "sleeping thread in the wall view"
    html_first_view "$PAGE" >first.html
    if [[ $(sleeper_cpu_samples "$TRACE") == 0 ]]; then
        assert_not_contains first.html '"name":"clrprobe-sleeper (' "sleeping thread in the CPU view"
    else
        assert_contains first.html '"name":"clrprobe-sleeper (' "the sleeping thread the CPU view has"
    fi
    "$CLRPROBE" report "$TRACE" --format html --thread clrprobe-busy -o busy.html 2>err
    assert_eq 0 "$?" "exit code with --thread"
    assert_eq 1 "$(first_view_trees busy.html)" "trees with --thread clrprobe-busy"
    assert_contains busy.html '"name":"clrprobe-busy (' "the chosen thread"
    # the totals the header shows are the text report's
    local cpu dur
    "$CLRPROBE" report "$TRACE" >text.txt
    read -r cpu dur < <(grep -o '[0-9.]* s of CPU time in [0-9.]* s' text.txt | awk '{print $1, $7}')
    assert_eq "$cpu $dur" "$(grep -o '"duration_ns":[0-9]*,"cpu_ns":[0-9]*' first.html |
        awk -F'[:,]' '{printf "%.2f %.2f", $4 / 1e9, $2 / 1e9}')" "the page's CPU time and duration"
}

test_html_screenshot_in_chromium() {
    need_chromium
    html_trace
    chrome --screenshot="$PWD/shot.png" --window-size=1400,900 --virtual-time-budget=5000 "file://$PAGE" >/dev/null
    assert_eq 0 "$?" "chromium exit code"
    [[ -f shot.png ]] || { fail "no screenshot"; tail -5 chromium.log; return; }
    assert_ge 20000 "$(wc -c <shot.png | tr -d ' ')" "screenshot size in bytes"
    # PNG signature, then the IHDR chunk's width and height (big-endian)
    assert_eq "137 80 78 71 13 10 26 10 0 0 5 120 0 0 3 132" \
        "$(od -An -tu1 -N24 shot.png | tr -s ' \n' ' ' | sed 's/^ //; s/ $//' | cut -d' ' -f1-8,17-24)" \
        "PNG of 1400 x 900 pixels"
    if ! command -v python3 >/dev/null; then
        echo "python3 missing: pixel check left out"
        return
    fi
    # decode the PNG (8-bit RGB or RGBA): many colours, not one background, and
    # a fair share of the flame graph's warm reds, oranges and yellows
    local stats
    stats=$(python3 - shot.png <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat = 8, b''
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    pos += 12 + n
    if kind == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
    elif kind == b'IDAT':
        idat += body
assert depth == 8 and ctype in (2, 6), 'unexpected PNG type'
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, counts, warm = bytearray(stride), {}, 0
for y in range(h):
    f = raw[y * (stride + 1)]
    cur = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = cur[i - bpp] if i >= bpp else 0
        b = prev[i]
        if f == 1: cur[i] = (cur[i] + a) & 255
        elif f == 2: cur[i] = (cur[i] + b) & 255
        elif f == 3: cur[i] = (cur[i] + ((a + b) >> 1)) & 255
        elif f == 4:
            c = prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            cur[i] = (cur[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        px = (cur[x], cur[x + 1], cur[x + 2])
        counts[px] = counts.get(px, 0) + 1
        if px[0] > 200 and 60 < px[1] < 225 and px[2] < 130:
            warm += 1
    prev = cur
print(len(counts), 100 * max(counts.values()) // (w * h), 1000 * warm // (w * h))
EOF
)
    echo "screenshot: distinct colours, % of the commonest, per mille warm: $stats"
    read -r colours common warm <<<"$stats"
    assert_ge 50 "$colours" "distinct colours in the screenshot"
    [[ -n $common && $common -lt 95 ]] || fail "screenshot is nearly one colour ($common% of pixels)"
    assert_ge 20 "$warm" "warm (flame) pixels per mille"
}

test_html_search_shares_in_chromium() {
    need_chromium
    html_trace
    local st
    st=$(status 'search=BurnOther')
    echo "search=BurnOther: $st"
    assert_contains "$st" 'thread all;' "all threads by default"
    assert_contains "$st" 'search "BurnOther"' "search from the fragment"
    # (tolerances of the sampled shares: assert_share in lib.sh)
    assert_share "$(matched "$st")" 50 "$(matched_of "$st")" "$SHARES_BIAS" "matched share of BurnOther"
    same_share "$(matched "$st")" "$(share SharesTargets.BurnOther)" "matched share of BurnOther vs collapsed output"
    local drawn
    drawn=$(sed -n 's/.*; frames drawn \([0-9]*\).*/\1/p' <<<"$st")
    assert_ge 6 "$drawn" "frames drawn"

    st=$(status 'search=BurnThreeQuarters')
    echo "search=BurnThreeQuarters: $st"
    assert_share "$(matched "$st")" 37.5 "$(matched_of "$st")" "$SHARES_BIAS" "matched share of BurnThreeQuarters"
    same_share "$(matched "$st")" "$(share SharesTargets.BurnThreeQuarters)" \
        "matched share of BurnThreeQuarters vs collapsed output"

    # a case-insensitive regex; both burner functions: about half
    st=$(status 'search=burn(three|one)quarter')
    echo "search=burn(three|one)quarter: $st"
    assert_share "$(matched "$st")" 50 "$(matched_of "$st")" "$SHARES_BIAS" "matched share of the regex"
    # an invalid regex is taken as a substring; nothing matches
    st=$(status 'search=Burn(')
    assert_eq 0.0 "$(matched "$st")" "matched share of an invalid regex"
}

test_html_thread_and_zoom_in_chromium() {
    need_chromium
    html_trace
    local st busy
    busy=$(awk '/^clrprobe-busy \([0-9]+\);/ {t += $NF} END {print t + 0}' "$WORK/fixtures/html/threads.txt")
    st=$(status 'thread=clrprobe-busy&search=BurnOther')
    echo "thread=clrprobe-busy&search=BurnOther: $st"
    assert_contains "$st" "thread clrprobe-busy (" "the busy thread's label"
    assert_contains "$st" "; samples $busy of " "only the busy thread's $busy samples"
    # All but a few: a sample can catch the thread in the loop that calls
    # BurnOther, between two calls (lib.sh, SHARES_BIAS)
    assert_share "$(matched "$st")" 100 "$busy" "$SHARES_BIAS" "BurnOther's share of the busy thread"
    same_share "$(matched "$st")" \
        "$(collapsed_thread clrprobe-busy "$WORK/fixtures/html/threads.txt" | collapsed_share SharesTargets.BurnOther -)" \
        "BurnOther's share of the busy thread vs collapsed output"
    # never called on that thread: exactly none
    st=$(status 'thread=clrprobe-busy&search=BurnThreeQuarters')
    assert_eq 0.0 "$(matched "$st")" "the burner's function in the busy thread"
    st=$(status 'thread=no-such-thread')
    assert_contains "$st" 'thread "no-such-thread" not found' "unknown thread reported"
    # the page matches threads as --thread does (docs/sampling.md): the label, the OS thread id, a
    # kernel name in parentheses; the samples are those of the collapsed output with --thread
    local label tid n
    label=$(awk -F';' '/^clrprobe-busy \([0-9]+\);/ {print $1; exit}' "$WORK/fixtures/html/threads.txt")
    tid=$(sed 's/.*(\([0-9]*\))$/\1/' <<<"$label")
    for key in "$label" "$tid" "(clrprobe-busy)"; do
        n=$("$CLRPROBE" report "$TRACE" --format collapsed --thread "$key" | awk '{t += $NF} END {print t + 0}')
        st=$(status "thread=$(jq -rn --arg v "$key" '$v | @uri')")
        assert_contains "$st" "thread $label; samples $n of " "#thread=$key vs --thread $key"
    done

    st=$(status 'zoom=BurnThreeQuarters&search=BurnThreeQuarters')
    echo "zoom=BurnThreeQuarters: $st"
    assert_contains "$st" 'zoom "ClrProbe.Sample.SharesTargets.BurnThreeQuarters"' "zoomed frame"
    same_share "$(matched "$st")" "$(share SharesTargets.BurnThreeQuarters)" "matched share while zoomed"
}

# roots FRAGMENT HEIGHT: where the page opened at #FRAGMENT in a window HEIGHT
# pixels high says the flame graph's roots are (#graph's data-roots), how far
# the page itself is scrolled (data-page-scroll), then its status.
roots() {
    chrome --window-size=1200,"$2" --virtual-time-budget=5000 --dump-dom "file://$PAGE#$1" >dom.html
    sed -n 's|.*<div id="graph"[^>]* data-roots="\([^"]*\)".*|\1|p' dom.html | head -1
    sed -n 's|.*<div id="graph"[^>]* data-page-scroll="\([^"]*\)".*|\1|p' dom.html | head -1
    sed -n 's|.*<div id="status">\([^<]*\)</div>.*|\1|p' dom.html | head -1
}

test_html_opens_at_its_header_with_the_roots_in_view_in_chromium() {
    need_chromium
    html_trace
    local out
    # a window lower than the page: the page stays at its top (its header), the flame graph scrolls within
    # itself to its roots (at the bottom)
    out=$(roots 'search=BurnOther' 640)
    echo "640 px, #search=BurnOther: $out"
    assert_eq "in view" "$(sed -n 1p <<<"$out")" "the roots in a low window"
    assert_eq 0 "$(sed -n 2p <<<"$out")" "the page opens at its top"
    assert_contains "$out" 'search "BurnOther"' "the fragment's state, restored"
    out=$(roots 'zoom=BurnThreeQuarters' 640)
    assert_eq "in view" "$(sed -n 1p <<<"$out")" "the roots in a low window, zoomed"
    assert_eq 0 "$(sed -n 2p <<<"$out")" "the page opens at its top, zoomed"
    assert_contains "$out" 'zoom "ClrProbe.Sample.SharesTargets.BurnThreeQuarters"' "the zoom, restored"
    # a high window: nothing to scroll; icicle: the roots are at the top
    assert_eq "in view" "$(roots '' 2000 | head -1)" "the roots in a high window"
    assert_eq "top" "$(roots 'icicle=1' 640 | head -1)" "the roots with icicle"
}

# The labels of narrow boxes keep the method: the page's own label code, run
# by node with a font 7 px wide per character.
test_html_narrow_labels_keep_the_method() {
    command -v node >/dev/null || skip "node is not installed"
    html_trace
    cat >labels.js <<'JS'
const fs = require('fs');
const page = fs.readFileSync(process.argv[2], 'utf8');
const code = page.slice(page.indexOf('function label(n, w)'), page.indexOf('function draw()'));
const ctx = { measureText: s => ({ width: 7 * s.length }) }, widthCache = {}, nameOf = n => n.name;
eval(code);
for (const line of fs.readFileSync(0, 'utf8').split('\n').filter(Boolean)) {
  const sp = line.indexOf(' ');
  console.log(label({ name: line.slice(sp + 1) }, parseInt(line.slice(0, sp), 10)));
}
JS
    node labels.js "$PAGE" >labels.txt 2>err <<'NAMES'
1000 ClrProbe.Sample.AsyncTargets.BurnAsync [async]
300 ClrProbe.Sample.AsyncTargets.BurnAsync [async]
150 ClrProbe.Sample.AsyncTargets.BurnAsync [async]
100 ClrProbe.Sample.AsyncTargets.BurnAsync [async]
60 ClrProbe.Sample.AsyncTargets.BurnAsync [async]
200 A.Outer+Inner.Method [async]
300 Microsoft.Build.BackEnd.RequestBuilder+<BuildProject>d__68.MoveNext
100 Microsoft.Build.BackEnd.RequestBuilder+<BuildProject>d__68.MoveNext
100 System.Collections.Generic.Dictionary<System.__Canon,System.__Canon>.Remove
20 X.Y
NAMES
    assert_eq 0 "$?" "node's exit code ($(cat err))"
    assert_eq "ClrProbe.Sample.AsyncTargets.BurnAsync [async]
AsyncTargets.BurnAsync [async]
BurnAsync [async]
BurnAsync
BurnAs…
Outer+Inner.Method [async]
<BuildProject>d__68.MoveNext
<BuildProjec…
Remove" "$(cat labels.txt)" "labels by width"
    assert_eq 10 "$(wc -l <labels.txt | tr -d ' ')" "labels (the last one empty: too narrow for any)"
}

# The page's scripts are JavaScript that parses: each file of src/report/page/
# (node --check), and each <script> element of a page written from them, which
# is what a browser runs.
test_html_scripts_parse_with_node() {
    command -v node >/dev/null || skip "node is not installed"
    local f n=0
    for f in "$ROOT"/src/report/page/*.js; do
        [[ -f $f ]] || continue
        node --check "$f" 2>err || fail "node --check $f: $(cat err)"
        n=$((n + 1))
    done
    assert_ge 1 "$n" "script files in src/report/page"
    "$CLRPROBE" report "$ROOT/tests/data/compat/launch.clrp" --format html -o page.html 2>rep.err ||
        fail "html report: $(cat rep.err)"
    # each <script> element but the data's into its own file (one of them is one line)
    awk '/^<script>/ { n++; f = "script" n ".js"; s = substr($0, 9)
                       if (sub(/<\/script>$/, "", s)) { print s > f; close(f) } else inside = 1; next }
         inside && /^<\/script>$/ { inside = 0; close(f); next }
         inside { print > f }' page.html
    assert_eq 3 "$(ls script*.js 2>/dev/null | wc -l | tr -d ' ')" "script elements with code"
    for f in script*.js; do
        node --check "$f" 2>err || fail "node --check of the page's $f: $(cat err)"
    done
}

# The GC timeline beside the flame graph: `Sample gc 9` recorded (sampled at
# 1 kHz, the wall view, so the short run has samples), its page rendered: a
# pause for every GC (each has its suspension), an area per generation that
# held anything, and the title's counts; a page of a trace without GCs keeps
# the section hidden.
test_html_gc_timeline_in_chromium() {
    need_chromium
    mkdir -p html_gc && cd html_gc || fail "work directory"
    "$CLRPROBE" run -o gc.clrp --sampler suspend --rate 1000 -- "$SAMPLE" gc 9 >out 2>err || fail "recording: $(cat err)"
    "$CLRPROBE" report gc.clrp --format html --view wall -o gc.html 2>rep.err || fail "html report: $(cat rep.err)"
    "$CLRPROBE" report gc.clrp --format jsonl >gc.jsonl || fail "jsonl report"
    local gcs
    gcs=$(jcount gc.jsonl 'select(.kind=="gc_start")')
    assert_ge 9 "$gcs" "gc_start records"
    chrome --virtual-time-budget=5000 --dump-dom "file://$PWD/gc.html" >dom.html
    local sec
    sec=$(grep -o '<section id="gcview"[^>]*>' dom.html)
    [[ $sec == *"data-gcs=\"$gcs\""* ]] || fail "GC section: '$sec' (want $gcs GCs)"
    [[ $sec == *"data-pauses=\"$gcs\""* ]] || fail "pauses drawn: '$sec' (want $gcs)"
    [[ $sec =~ data-areas=\"([3-5])\" ]] || fail "generation areas drawn: '$sec' (want gen0, LOH, POH at least)"
    [[ $sec != *hidden* ]] || fail "the GC section is hidden"
    # pauses closer than a mark's width share one mark: between 1 and one per GC
    local bands
    [[ $sec =~ data-bands=\"([0-9]+)\" ]] && bands=${BASH_REMATCH[1]} || fail "no data-bands: '$sec'"
    ((bands >= 1 && bands <= gcs)) || fail "pause marks: $bands for $gcs GCs"
    assert_eq "$bands" "$(grep -o '<rect[^>]*class="pause"' dom.html | wc -l | tr -d ' ')" "pause marks in the SVG"
    grep -q "id=\"gctitle\">— $gcs GCs (9 induced), paused " dom.html || fail "GC title: $(grep -o 'id="gctitle">[^<]*' dom.html)"
    # the shared shares page: no GC section drawn unless that run had GCs
    html_trace
    chrome --virtual-time-budget=5000 --dump-dom "file://$PAGE" >dom2.html
    local n2
    n2=$("$CLRPROBE" report "$TRACE" --format jsonl | jq -c 'select(.kind=="gc_start")' | wc -l | tr -d ' ')
    grep -q "<section id=\"gcview\"[^>]*data-gcs=\"$n2\"" dom2.html || fail "shares page: GC section for $n2 GCs"
}

# The overview strip: a time range chosen on it (#range=START-END, ms since the recording began, as a drag sets it)
# shows only the samples of that range.  Sample phases burns in PhaseOne for the first half, PhaseTwo for the second.
test_html_time_range_filters_the_flame_graph() {
    need_chromium
    mkdir -p html_range && cd html_range || fail "work directory"
    "$CLRPROBE" run -o ph.clrp --rate 1000 -- "$SAMPLE" phases 1.2 >out 2>err || fail "recording: $(cat err)"
    "$CLRPROBE" report ph.clrp --format html -o ph.html 2>rep.err || fail "html report: $(cat rep.err)"
    PAGE=$PWD/ph.html
    local t0 w first_half second_half whole s1 s2 sall n1 n2 nall p1_end p2_start
    t0=$(grep -o '"t0_ns":[0-9]*' ph.html | head -1 | cut -d: -f2)
    w=$(grep -o '"bucket_ns":[0-9]*' ph.html | head -1 | cut -d: -f2)
    [[ -n $t0 && -n $w ]] || fail "no strip data in the page"
    # when the phases are, from the samples themselves: PhaseOne's last sample, PhaseTwo's first
    "$CLRPROBE" report ph.clrp --format jsonl >ph.jsonl || fail "jsonl"
    p1_end=$(jq -s '[.[] | select(.kind=="sample" and (.frames | index("ClrProbe.Sample.PhaseTargets.PhaseOne"))) | .t] | max' ph.jsonl)
    p2_start=$(jq -s '[.[] | select(.kind=="sample" and (.frames | index("ClrProbe.Sample.PhaseTargets.PhaseTwo"))) | .t] | min' ph.jsonl)
    [[ $p1_end =~ ^[0-9]+$ && $p2_start =~ ^[0-9]+$ ]] || fail "no samples of the phases ($p1_end, $p2_start)"
    # whole columns (bucket boundaries, at ns precision): before PhaseTwo's first column, after PhaseOne's last
    first_half=$(awk -v t="$t0" -v w="$w" -v b="$p2_start" 'BEGIN { k = int((b - t) / w); printf "%.6f-%.6f", t / 1e6, (t + k * w) / 1e6 }')
    second_half=$(awk -v t="$t0" -v w="$w" -v e="$p1_end" 'BEGIN { k = int((e - t) / w) + 1; printf "%.6f-%.6f", (t + k * w) / 1e6, (t + 200 * w) / 1e6 }')
    whole=$(awk -v t="$t0" -v w="$w" 'BEGIN { printf "%.6f-%.6f", t / 1e6, (t + 200 * w) / 1e6 }')
    s1=$(status "search=PhaseTwo&range=$first_half")
    s2=$(status "search=PhaseOne&range=$second_half")
    sall=$(status "search=PhaseTwo&range=$whole")
    [[ $s1 == *"range "* && $s1 != *"range all"* ]] || fail "the range was not applied: $s1"
    assert_eq 0.0 "$(matched "$s1")" "PhaseTwo before its first sample's column"
    assert_eq 0.0 "$(matched "$s2")" "PhaseOne after its last sample's column"
    n1=$(matched_of "$s1"); n2=$(matched_of "$s2"); nall=$(matched_of "$sall")
    assert_ge 40 "$n1" "samples in the first range"
    assert_ge 40 "$n2" "samples in the second range"
    assert_ge $((n1 + n2)) "$nall" "the whole range holds both"
    (( n1 < nall && n2 < nall )) || fail "a part holds as many as the whole ($n1, $n2, $nall)"
    # the whole range is every sample: the same as no range
    assert_eq "$(matched_of "$(status "search=PhaseTwo")")" "$nall" "the whole range and no range"
    # the strip is drawn, and says what it shows
    chrome --virtual-time-budget=5000 --dump-dom "file://$PAGE#range=$first_half" >dom.html
    grep -q '<div id="stripview">' dom.html || fail "the strip is hidden"
    grep -q 'id="rangeinfo">Showing ' dom.html || fail "range text: $(grep -o 'id="rangeinfo">[^<]*' dom.html)"
}
