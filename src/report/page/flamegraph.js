/* flamegraph.js - the html report's flame graph (page.html): reads the data
 * (html.c), draws the flame graph on a <canvas>, the overview strip, the top
 * functions, the tooltip, the thread and view pickers, and after every render
 * writes its state into <div id="status"> (for tests: chromium --headless
 * --dump-dom on page.html#search=RE&thread=NAME&zoom=NAME&icicle=1&bythread=1).
 * Embedded into clrprobe when it is built (html_page_files.S); html_page.c
 * writes it in place of the line @flamegraph.js@, without this comment. */
(function () {
'use strict';
var D = JSON.parse(document.getElementById('profile-data').textContent), ALL = [D].concat(D.views || []);
var F = D.frames, ROW = 18, MINW = 0.5, ROOT = -1, THREAD = -2;
var $ = function (id) { return document.getElementById(id); };
var canvas = $('canvas'), ctx = canvas.getContext('2d'), tip = $('tip');
var st = { thread: -1, group: null, byThread: false, icicle: false, query: '', re: null, tree: null, zoom: null, hover: null, range: null };
var rects = [], rows = 0, widthCache = {};

function fmtMs(ns) {
  var ms = ns / 1e6;
  return ms >= 1000 ? (ms / 1000).toFixed(2) + ' s' : ms.toFixed(ms >= 100 ? 0 : ms >= 1 ? 1 : 2) + ' ms';
}
function fmtS(ns) { return (ns / 1e9).toFixed(2) + ' s'; }
function fmtB(b) {
  return b >= 1073741824 ? (b / 1073741824).toFixed(2) + ' GiB' : b >= 1048576 ? (b / 1048576).toFixed(2) + ' MiB' :
    b >= 1024 ? (b / 1024).toFixed(1) + ' KiB' : b + ' B';
}
/* The views that weigh samples (alloc, alloc-count, live, contention) count their unit in the trees (D.counts);
 * cpu and wall count samples. */
function weighs() { return !!D.counts; }
function countWord() { return D.counts || 'samples'; }
function countTotal() { return D.counts ? D.count_total : D.samples; }
function fmtVal(v) { return D.unit === 'bytes' ? fmtB(v) : D.unit === 'nanoseconds' ? fmtMs(v) : D.unit === 'objects' ? v + ' objects' : String(v); }
function what(v) { return v.view_counts || (v.view === 'wall' ? 'thread time, running or waiting' : 'CPU time of threads that were on a CPU'); }
function pct(a, b) { return b ? (100 * a / b).toFixed(1) + '%' : '0.0%'; }
function plural(n, w) { return n + ' ' + w + (n === 1 ? '' : 's'); }
function el(tag, text, cls) { var e = document.createElement(tag); if (text != null) e.textContent = text; if (cls) e.className = cls; return e; }

/* ---- trees: each thread's is preorder triples (frame, samples, children); root frame -1 ---- */
/* With a time range chosen on the strip (st.range: first and last bucket), each node counts only the samples
 * of the range: the thread's times give every node's own count per bucket (html.c). */
function decode(t) {
  var a = t.tree, pos = 0, own = null;
  if (st.range && t.times) {
    own = new Float64Array(a.length / 3);
    for (var j = 0; j < t.times.length; j += 3)
      if (t.times[j] >= st.range[0] && t.times[j] <= st.range[1]) own[t.times[j + 1]] += t.times[j + 2];
  }
  function rec() {
    var i = pos / 3, n = { f: a[pos], n: a[pos + 1], kids: [] }, k = a[pos + 2];
    pos += 3;
    while (k--) { var kid = rec(); if (!own || kid.n > 0) n.kids.push(kid); }
    if (own) n.n = own[i] + n.kids.reduce(function (s, x) { return s + x.n; }, 0);
    return n;
  }
  var r = rec();
  r.label = t.name;
  return r;
}
function merge(dst, src) {
  dst.n += src.n;
  src.kids.forEach(function (s) {
    var d = dst.idx.get(s.f);
    if (!d) { d = { f: s.f, n: 0, kids: [], idx: new Map() }; dst.idx.set(s.f, d); dst.kids.push(d); }
    merge(d, s);
  });
}
function nameOf(n) { return n.f >= 0 ? F[n.f] : n.label; }
function finish(n, parent) {
  var sum = 0, h = 0;
  n.parent = parent;
  n.depth = parent ? parent.depth + 1 : 0;
  delete n.idx;
  if (!n.kids.length || n.kids[0].f !== THREAD) n.kids.sort(function (x, y) { var a = nameOf(x), b = nameOf(y); return a < b ? -1 : a > b ? 1 : 0; });
  n.kids.forEach(function (k) { finish(k, n); sum += k.n; h = Math.max(h, k.h + 1); });
  n.self = n.n - sum;
  n.h = h;
  return n;
}
function buildTree() {
  var r;
  if (st.thread >= 0) {
    r = decode(D.threads[st.thread]);
    r.label = 'thread ' + D.threads[st.thread].name;
  } else if (st.group) {     /* a #thread= that matches several threads, as --thread does */
    r = { f: ROOT, n: 0, kids: [], idx: new Map(), label: 'threads ' + st.group.v };
    st.group.idx.forEach(function (i) { merge(r, decode(D.threads[i])); });
  } else if (st.byThread) {
    r = { f: ROOT, n: 0, kids: [], label: 'all threads' };
    order.forEach(function (i) { var t = decode(D.threads[i]); t.f = THREAD; r.kids.push(t); r.n += t.n; });
  } else {
    r = { f: ROOT, n: 0, kids: [], idx: new Map(), label: 'all threads' };
    D.threads.forEach(function (t) { merge(r, decode(t)); });
  }
  return finish(r, null);
}

/* ---- colors: warm hues by name; framework code yellower, app code redder; runtime frames blue-grey ---- */
function hash(s) {
  var h = 2166136261;
  for (var i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}
function color(n) {
  var name = nameOf(n), h, s, l;
  if (n.f < 0) { h = 215; s = 12; l = 82; }
  else if (name.charAt(0) === '[') { h = 208; s = 30; l = 70; }
  else {
    var x = hash(name), fw = /^(System|Microsoft|Internal|Interop)\./.test(name);
    h = fw ? 36 + x % 20 : 4 + x % 26;
    s = 72 + (x >>> 8) % 20;
    l = 56 + (x >>> 16) % 12;
  }
  if (st.re) {
    if (n.hit) { h = 292; s = 72; l = 56; } else { s = Math.round(s * 0.55); l = Math.round(l + (93 - l) * 0.6); }
  }
  return 'hsl(' + h + ',' + s + '%,' + l + '%)';
}

/* ---- search ---- */
function setQuery(q) {
  st.query = q;
  st.re = null;
  $('search').classList.remove('bad');
  if (q) {
    try { st.re = new RegExp(q, 'i'); }
    catch (e) { st.re = new RegExp(q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i'); $('search').classList.add('bad'); }
  }
}
function counted(n) { return n.hit ? n.n : n.kids.reduce(function (m, k) { return m + counted(k); }, 0); }
function mark(n, re) {      /* sets n.hit; returns the samples of stacks with a matching frame */
  var m = 0;
  n.hit = n.f !== ROOT && re.test(nameOf(n));
  if (n.hit) m = n.n;
  n.kids.forEach(function (k) { var km = mark(k, re); if (!n.hit) m += km; });
  return m;
}

/* ---- drawing ---- */
function label(n, w) {     /* the name, else a shorter form that keeps the method (shortForms), cut */
  var full = nameOf(n), room = w - 8;
  if (room < 14) return '';
  var fw = widthCache[full] || (widthCache[full] = ctx.measureText(full).width), per = fw / full.length;
  if (fw <= room) return full;
  var forms = shortForms(full), s = full;
  for (var i = 0; i < forms.length; i++) { s = forms[i]; if (s.length * per <= room) return s; }
  var keep = Math.floor(room / per) - 1;
  return keep >= 2 ? s.slice(0, keep) + '\u2026' : '';
}
function tops(s, sep) {     /* the positions of sep outside <...>, (...), [...] */
  var d = 0, at = [];
  for (var i = 0; i < s.length; i++) {
    var c = s.charAt(i);
    if (c === '<' || c === '(' || c === '[') d++;
    else if ((c === '>' || c === ')' || c === ']') && d > 0) d--;
    else if (c === sep && d === 0 && (sep !== '.' || s.charAt(i - 1) !== '.')) at.push(i);
  }
  return at;
}
function shortName(s, keep) {     /* Namespace.Type.Method -> Type.Method (keep 2) or Method (keep 1) */
  var dots = tops(s, '.');
  return dots.length >= keep ? s.slice(dots[dots.length - keep] + 1) : s;
}
/* Shorter and shorter forms of a frame name for narrow boxes, each ending with the method: Ns.Outer+Inner.Method
 * [async] -> Outer+Inner.Method [async] -> Inner.Method [async] -> Method [async] -> Method.  A state machine's
 * MoveNext as recorded (report --raw-frames) keeps its type, which names the method: <Method>d__12.MoveNext. */
function shortForms(full) {
  var m = / \[async\]$/.exec(full), tag = m ? m[0] : '', base = tag ? full.slice(0, -tag.length) : full;
  var two = shortName(base, 2), plus = tops(two, '+'), inner = plus.length ? two.slice(plus[plus.length - 1] + 1) : two;
  var one = shortName(base, 1), forms = [two + tag, inner + tag], out = [];
  if (!/^<.+>d(__\d+)?(<.*>)?\.MoveNext$/.test(inner)) forms.push(one + tag, one);
  forms.forEach(function (f) { if (f.length < full.length && out.indexOf(f) < 0) out.push(f); });
  return out;
}
function draw() {
  var z = st.zoom, W = canvas.parentNode.clientWidth - 32, dpr = window.devicePixelRatio || 1;
  rows = z.depth + z.h + 1;
  var H = rows * ROW + 2;
  canvas.style.height = H + 'px';
  canvas.width = Math.round(W * dpr);
  canvas.height = Math.round(H * dpr);
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.font = '12px system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif';
  ctx.textBaseline = 'middle';
  rects = [];
  function y(depth) { return st.icicle ? depth * ROW + 1 : (rows - 1 - depth) * ROW + 1; }
  function box(n, x, w, faded) {
    ctx.globalAlpha = faded ? 0.55 : 1;
    ctx.fillStyle = color(n);
    ctx.fillRect(x, y(n.depth), Math.max(w - 1, 0.5), ROW - 1);
    var t = label(n, w);
    if (t) { ctx.fillStyle = '#1b1b1b'; ctx.fillText(t, x + 4, y(n.depth) + ROW / 2); }
    if (n === st.hover) { ctx.strokeStyle = '#111'; ctx.lineWidth = 1.5; ctx.strokeRect(x + 0.75, y(n.depth) + 0.75, Math.max(w - 2.5, 0.5), ROW - 2.5); }
    rects.push({ x: x, w: w, d: n.depth, n: n });
  }
  for (var a = z.parent; a; a = a.parent) box(a, 0, W, true);
  (function rec(n, x, w) {
    box(n, x, w, false);
    var scale = w / n.n;
    n.kids.forEach(function (k) { var kw = k.n * scale; if (kw >= MINW) rec(k, x, kw); x += kw; });
  })(z, 0, W);
  ctx.globalAlpha = 1;
}
function hit(ev) {
  var r = canvas.getBoundingClientRect(), x = ev.clientX - r.left, yy = ev.clientY - r.top;
  var row = Math.floor((yy - 1) / ROW), depth = st.icicle ? row : rows - 1 - row;
  for (var i = 0; i < rects.length; i++) {
    var q = rects[i];
    if (q.d === depth && x >= q.x && x < q.x + q.w) return q.n;
  }
  return null;
}

/* ---- the page ---- */
var order, viewName;
function threadOrder() {
  var w = function (t) { return weighs() ? t.weight : t.samples; };
  order = D.threads.map(function (t, i) { return i; }).sort(function (a, b) { return w(D.threads[b]) - w(D.threads[a]); });
  viewName = D.view === 'wall' ? 'wall-clock' : D.view === 'cpu' ? 'CPU' : D.view;
}
threadOrder();
var rootTotal = 0;

function crumbs() {
  var c = $('crumbs'), chain = [];
  c.textContent = '';
  for (var n = st.zoom; n; n = n.parent) chain.unshift(n);
  chain.forEach(function (n, i) {
    if (i) c.appendChild(document.createTextNode(' \u203a '));
    var name = n.f >= 0 ? shortName(F[n.f], 2) : n.label;
    if (n === st.zoom) c.appendChild(el('span', name, 'here'));
    else { var a = el('a', name); a.title = nameOf(n); a.onclick = function () { zoomTo(n); }; c.appendChild(a); }
  });
  if (st.zoom.parent) c.appendChild(document.createTextNode('  (' + pct(st.zoom.n, rootTotal) + ' of ' + st.tree.label + ')'));
}
function topTable() {
  var z = st.zoom, self = {}, total = {}, onStack = {}, rowsOut = [];
  (function rec(n) {
    if (n.f >= 0) {
      self[n.f] = (self[n.f] || 0) + n.self;
      if (!onStack[n.f]) total[n.f] = (total[n.f] || 0) + n.n;
      onStack[n.f] = (onStack[n.f] || 0) + 1;
    }
    n.kids.forEach(rec);
    if (n.f >= 0) onStack[n.f]--;
  })(z);
  Object.keys(self).forEach(function (f) { if (self[f] > 0) rowsOut.push(+f); });
  rowsOut.sort(function (a, b) { return self[b] - self[a] || total[b] - total[a]; });
  var tb = $('top');
  tb.textContent = '';
  rowsOut.slice(0, 25).forEach(function (f) {
    var tr = el('tr'), td = el('td');
    var bar = el('span', null, 'bar');
    bar.style.width = Math.max(1, Math.round(60 * self[f] / z.n)) + 'px';
    td.appendChild(bar);
    td.appendChild(document.createTextNode(weighs() ? fmtVal(self[f]) : self[f]));
    tr.appendChild(td);
    tr.appendChild(el('td', pct(self[f], z.n)));
    tr.appendChild(el('td', pct(total[f], z.n)));
    tr.appendChild(el('td', F[f], 'fn'));
    tr.onclick = function () { $('search').value = '^' + F[f].replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$'; update(); };
    tb.appendChild(tr);
  });
  $('tophead').textContent = weighs() ? 'Top frames by self ' + (D.unit === 'nanoseconds' ? 'time' : D.unit) : 'Top functions by self time';
  $('toptitle').textContent = '\u2014 ' + (z.parent ? 'under ' + nameOf(z) : st.tree.label) + ', ' + (weighs() ? fmtVal(z.n) : plural(z.n, 'sample'));
}
function render() {
  var matched = 0;
  rootTotal = st.tree.n;
  if (st.re) matched = mark(st.tree, st.re);
  var zm = matched;
  if (st.re && st.zoom.parent) {
    zm = counted(st.zoom);
    for (var a = st.zoom.parent; a; a = a.parent) if (a.hit) zm = st.zoom.n;
  }
  $('matched').textContent = st.re ? 'Matched: ' + pct(matched, rootTotal) + ' of ' + (weighs() ? D.unit : 'samples') +
    (st.zoom.parent ? ' (' + pct(zm, st.zoom.n) + ' of the zoomed frame)' : '') : '';
  draw();
  drawStrip();
  crumbs();
  topTable();
  var th = st.thread >= 0 ? D.threads[st.thread].name : st.group ? st.group.v : 'all';
  $('status').textContent = 'view ' + D.view + '; thread ' + th + '; ' + countWord() + ' ' + rootTotal + ' of ' + countTotal() +
    '; search ' + (st.query ? JSON.stringify(st.query) : 'none') + '; matched ' + pct(matched, rootTotal) + ' of ' +
    rootTotal + ' ' + countWord() + '; zoom ' + (st.zoom.parent ? JSON.stringify(nameOf(st.zoom)) : 'all') + '; frames drawn ' + rects.length +
    '; range ' + (st.range ? rangeMs(st.range).join('-') + ' ms' : 'all');
  saveHash();
}
/* The page opens at its top (the header says what this is); the flame graph gets the rest of the window (at least
 * 120 px) and, taller than that, scrolls within itself, opened at its roots (at the bottom; at the top as an
 * icicle).  Records where the roots are in #graph's data-roots, and the page's own scroll in data-page-scroll, for
 * tests. */
function showRoots() {
  var g = $('graph'), h = window.innerHeight || document.documentElement.clientHeight;
  var top = g.getBoundingClientRect().top + (window.scrollY || 0);
  g.style.maxHeight = Math.max(Math.floor(h - top - 8), 120) + 'px';
  g.scrollTop = st.icicle ? 0 : g.scrollHeight;
  var r = canvas.getBoundingClientRect(), gr = g.getBoundingClientRect();
  g.setAttribute('data-roots', st.icicle ? 'top' : r.bottom <= gr.bottom + 1 && gr.bottom <= h ? 'in view' : 'below the window');
  g.setAttribute('data-page-scroll', String(Math.round(window.scrollY || 0)));
}
function zoomTo(n) { st.zoom = n || st.tree; st.hover = null; hideTip(); render(); }

/* ---- the overview strip: the samples over time; drag across it to show the flame graph of a time range ---- */
var strip = $('strip'), dragFrom = null;
function rangeMs(r) {     /* buckets [first, last] -> [start, end] in ms since the recording began */
  return [((D.t0_ns + r[0] * D.bucket_ns) / 1e6).toFixed(3), ((D.t0_ns + (r[1] + 1) * D.bucket_ns) / 1e6).toFixed(3)];
}
function rangeOf(text) {  /* 'START-END' in ms -> buckets, or null */
  var m = /^([0-9.]+)-([0-9.]+)$/.exec(text || ''), a, b;
  if (!m || !D.buckets) return null;
  a = Math.floor((m[1] * 1e6 - D.t0_ns) / D.bucket_ns + 1e-9);
  b = Math.ceil((m[2] * 1e6 - D.t0_ns) / D.bucket_ns - 1e-9) - 1;
  a = Math.max(0, a);
  b = Math.min(D.buckets - 1, b);
  return a <= b ? [a, b] : null;
}
function shownThreads() {
  return st.thread >= 0 ? [st.thread] : st.group ? st.group.idx : D.threads.map(function (t, i) { return i; });
}
function drawStrip() {
  if (!D.buckets) { $('stripview').hidden = true; return; }
  $('stripview').hidden = false;
  var w = strip.clientWidth || 800, h = 44, dpr = window.devicePixelRatio || 1, sums = new Float64Array(D.buckets), max = 0;
  strip.width = Math.round(w * dpr);
  strip.height = Math.round(h * dpr);
  var c = strip.getContext('2d');
  c.setTransform(dpr, 0, 0, dpr, 0, 0);
  c.clearRect(0, 0, w, h);
  shownThreads().forEach(function (i) {
    var t = D.threads[i].times || [];
    for (var j = 0; j < t.length; j += 3) sums[t[j]] += t[j + 2];
  });
  for (var i = 0; i < sums.length; i++) max = Math.max(max, sums[i]);
  var bw = w / D.buckets;
  if (st.range) { c.fillStyle = '#fde2c0'; c.fillRect(st.range[0] * bw, 0, (st.range[1] - st.range[0] + 1) * bw, h); }
  for (i = 0; i < sums.length; i++) {
    if (!sums[i]) continue;
    var bh = Math.max(1, sums[i] / max * (h - 4)), inside = !st.range || (i >= st.range[0] && i <= st.range[1]);
    c.fillStyle = inside ? '#e8590c' : '#c9ced6';
    c.fillRect(i * bw, h - bh, Math.max(1, bw - 0.5), bh);
  }
  var whole = rangeMs([0, D.buckets - 1]), r = st.range ? rangeMs(st.range) : whole;
  $('rangeinfo').textContent = st.range
    ? 'Showing ' + fmtS(r[0] * 1e6) + ' – ' + fmtS(r[1] * 1e6) + ' of the recording (' + fmtS(whole[0] * 1e6) + ' – ' + fmtS(whole[1] * 1e6) + ')'
    : 'Samples over time: drag across the strip to show only a time range (' + fmtS(whole[0] * 1e6) + ' – ' + fmtS(whole[1] * 1e6) + ')';
  $('rangeclear').hidden = !st.range;
}
function bucketAt(ev) {
  var r = strip.getBoundingClientRect();
  return Math.max(0, Math.min(D.buckets - 1, Math.floor((ev.clientX - r.left) / Math.max(1, r.width) * D.buckets)));
}
strip.addEventListener('mousedown', function (ev) { dragFrom = bucketAt(ev); st.range = [dragFrom, dragFrom]; drawStrip(); ev.preventDefault(); });
window.addEventListener('mousemove', function (ev) {
  if (dragFrom === null) return;
  var b = bucketAt(ev);
  st.range = [Math.min(dragFrom, b), Math.max(dragFrom, b)];
  drawStrip();
});
window.addEventListener('mouseup', function () {
  if (dragFrom === null) return;
  dragFrom = null;
  if (st.range && st.range[0] === 0 && st.range[1] === D.buckets - 1) st.range = null;
  rebuild();
});
$('rangeclear').onclick = function () { st.range = null; rebuild(); };
function rebuild() { st.tree = buildTree(); st.zoom = st.tree; st.hover = null; render(); }
function update() {
  var q = $('search').value;
  if (q !== st.query) setQuery(q);
  render();
}

/* ---- tooltip ---- */
function hideTip() { tip.style.display = 'none'; }
function showTip(n, ev) {
  var z = st.zoom, lines = [];
  tip.textContent = '';
  tip.appendChild(el('div', nameOf(n), 'name'));
  function line(k, v) { var d = el('div'); d.appendChild(el('span', k + ' ', 'k')); d.appendChild(document.createTextNode(v)); tip.appendChild(d); }
  var of = ' of ' + st.tree.label + (z.parent && n.depth >= z.depth ? ', ' + pct(n.n, z.n) + ' of the zoomed frame' : '') + ')';
  if (weighs()) {     /* the view's unit: bytes, objects, time waited */
    line(D.unit === 'nanoseconds' ? 'time waited' : D.unit, fmtVal(n.n) + '  (' + pct(n.n, rootTotal) + of);
    line('self', fmtVal(n.self) + '  (' + pct(n.self, rootTotal) + ')');
  } else {
    line('samples', n.n + '  (' + pct(n.n, rootTotal) + of);
    line('self', n.self + '  (' + pct(n.self, rootTotal) + ')');
    line(viewName + ' time', '\u2248 ' + fmtMs(D.samples ? n.n / D.samples * D.total_ns : 0) + '  (its share of the ' + fmtS(D.total_ns) + ')');
  }
  line('', n === z ? 'click: zoom out' : 'click: zoom in');
  tip.style.display = 'block';
  var x = ev.clientX + 14, y = ev.clientY + 16, r = tip.getBoundingClientRect();
  if (x + r.width > window.innerWidth - 4) x = Math.max(4, ev.clientX - r.width - 10);
  if (y + r.height > window.innerHeight - 4) y = Math.max(4, ev.clientY - r.height - 10);
  tip.style.left = x + 'px';
  tip.style.top = y + 'px';
}
canvas.addEventListener('mousemove', function (ev) {
  var n = hit(ev);
  if (n !== st.hover) { st.hover = n; draw(); }
  if (n) showTip(n, ev); else hideTip();
});
canvas.addEventListener('mouseleave', function () { hideTip(); if (st.hover) { st.hover = null; draw(); } });
canvas.addEventListener('click', function (ev) {
  var n = hit(ev);
  if (n) zoomTo(n === st.zoom ? n.parent : n);
});

/* ---- controls, keyboard, URL fragment (#search=RE&thread=NAME|TID&zoom=NAME&icicle=1&bythread=1&range=MS-MS) ---- */
function readHash() {
  var h = {};
  location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
    var i = kv.indexOf('=');
    if (i > 0) { try { h[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1)); } catch (e) { h[kv.slice(0, i)] = kv.slice(i + 1); } }
  });
  return h;
}
function saveHash() {
  var parts = [];
  if (D !== ALL[0]) parts.push('view=' + encodeURIComponent(D.view));
  if (st.query) parts.push('search=' + encodeURIComponent(st.query));
  if (st.thread >= 0 || st.group) parts.push('thread=' + encodeURIComponent(st.group ? st.group.v : D.threads[st.thread].name));
  if (st.icicle) parts.push('icicle=1');
  if (st.byThread) parts.push('bythread=1');
  if (st.zoom.parent) parts.push('zoom=' + encodeURIComponent(nameOf(st.zoom)));
  if (st.range) parts.push('range=' + rangeMs(st.range).join('-'));
  var h = parts.length ? '#' + parts.join('&') : '';
  if (h !== location.hash && !(h === '' && location.hash === '#')) {
    try { history.replaceState(null, '', h || location.pathname + location.search); } catch (e) { /* file:// in some browsers */ }
  }
}
function findThreads(v) {
  /* the rule of --thread (docs/sampling.md): label, managed name, kernel name (bare or in parentheses), OS tid, managed id */
  for (var i = 0, m = []; i < D.threads.length; i++) {
    var t = D.threads[i];
    if (t.name === v || (t.mname && t.mname === v) || (t.kname && (t.kname === v || '(' + t.kname + ')' === v)) ||
        String(t.tid) === v || t.id === v) m.push(i);
  }
  return m;
}
function findZoom(v) {     /* the widest frame named v, else the widest whose name contains it */
  var best = null, lv = v.toLowerCase(), exact = false;
  (function rec(n) {
    var name = nameOf(n), ex = name === v;
    if ((ex || name.toLowerCase().indexOf(lv) >= 0) && (ex && !exact || ex === exact && (!best || n.n > best.n))) { best = n; exact = ex; }
    n.kids.forEach(rec);
  })(st.tree);
  return best;
}
function applyHash() {
  var h = readHash(), v = ALL.filter(function (x) { return x.view === h.view; })[0];
  useView(v || ALL[0]);
  $('search').value = h.search || '';
  setQuery(h.search || '');
  var m = h.thread ? findThreads(h.thread) : [];
  st.thread = m.length === 1 ? m[0] : -1;
  st.group = m.length > 1 ? { v: h.thread, idx: m } : null;
  $('thread').value = String(st.thread);
  st.icicle = $('icicle').checked = h.icicle === '1';
  st.byThread = $('bythread').checked = h.bythread === '1';
  st.range = rangeOf(h.range);
  st.tree = buildTree();
  st.zoom = (h.zoom && findZoom(h.zoom)) || st.tree;
  st.hover = null;
  render();
  if (h.thread && !m.length) $('status').textContent = 'thread ' + JSON.stringify(h.thread) + ' not found; ' + $('status').textContent;
}

/* The header and the thread picker of the view D. */
function header() {
  var s = $('summary');
  s.textContent = '';
  s.appendChild(el('b', (D.view === 'cpu' || D.view === 'wall' ? viewName : D.view) + ' view'));
  if (weighs()) {
    s.appendChild(document.createTextNode(' (' + D.view_counts + ', in ' + D.unit + ') \u00b7 '));
    s.appendChild(el('b', plural(D.samples, 'sample')));
    s.appendChild(document.createTextNode(' of ' + D.total_samples + ' recorded \u00b7 ' + D.totals[0] + ' \u00b7 ' +
      plural(D.threads.length, 'thread')));
    $('process').textContent = D.totals.slice(1).join(' ');
    $('rate').textContent = $('overhead').textContent = '';
    $('rate').className = 'meta';
    return;
  }
  s.appendChild(document.createTextNode(' (' + (D.view === 'wall' ? 'all samples, running or waiting' :
    D.engine === 'signal' ? 'a sample after every period of a thread\'s CPU time' +
      (D.clock === 'perf' ? ' (perf events)' : D.clock === 'percpu' ? ' (per-CPU perf events)' : '') +
      ', native and managed frames' :
    'samples of threads that were on a CPU') + ') \u00b7 '));
  s.appendChild(el('b', plural(D.samples, 'sample')));
  s.appendChild(document.createTextNode(' of ' + D.total_samples + ' recorded \u00b7 ' +
    (D.view === 'wall' ? fmtS(D.total_ns) + ' of thread time (samples \u00d7 period), ' : '') +
    fmtS(D.cpu_ns) + ' of CPU time in ' + fmtS(D.duration_ns) + ' \u00b7 ' + plural(D.threads.length, 'thread')));
  $('process').textContent = D.process_cpu ? D.process_cpu.charAt(0).toUpperCase() + D.process_cpu.slice(1) : '';
  $('rate').textContent = (D.ticks ? 'Rate: ' + D.rate_hz.toFixed(1) + ' ' + (D.rate_unit || 'ticks/s') + ' achieved of ' + (1e9 / D.period_ns).toFixed(1) +
    ' asked (every ' + fmtMs(D.period_ns) + ')' : 'Rate: every ' + fmtMs(D.period_ns) + ' asked') +
    (D.rate_low ? ' \u2014 warning: below ' + (D.engine === 'signal' ? '80' : '90') + '% of the rate asked' : '') +
    (D.sampler ? ' \u00b7 sampler: ' + D.sampler : '');
  $('rate').className = D.rate_low ? 'meta warn' : 'meta';
  $('overhead').textContent = D.ticks && D.engine === 'signal' ? 'Sampler overhead (signal sampler): no thread ' +
    'stopped but for its own sample; handlers and collector ' + fmtMs(D.sampler_cpu_ns) + ' of CPU in all' +
    (D.failed ? ', ' + plural(D.failed, 'sample') + ' lost' : '') + (D.truncated ? ', ' + plural(D.truncated, 'stack') +
    ' cut short' : '') :
    D.ticks ? 'Sampler overhead: ' + D.ticks + ' ticks, runtime suspended ' +
    fmtMs(D.suspend_ns / D.ticks) + ' on average (longest ' + fmtMs(D.max_suspend_ns) + '), sampler CPU ' +
    fmtMs(D.sampler_cpu_ns) + ' in all' + (D.failed ? ', ' + plural(D.failed, 'stack') + ' could not be taken' : '') : '';
}
function fillThreads() {
  var sel = $('thread');
  sel.textContent = '';
  sel.appendChild(new Option('all threads \u2014 ' + (weighs() ? fmtVal(D.count_total) : plural(D.samples, 'sample')), '-1'));
  order.forEach(function (i) {
    var t = D.threads[i];
    sel.appendChild(new Option(t.name + ' \u2014 ' + (weighs() ? fmtVal(t.weight) + ' (' + pct(t.weight, D.count_total) + ')' :
      plural(t.samples, 'sample') + ' (' + pct(t.samples, D.samples) + ')'), String(i)));
  });
}
/* Shows view v (one of ALL): its data, header and threads; the thread picked stays picked if the view has it. */
function useView(v) {
  var name = st.thread >= 0 ? D.threads[st.thread].name : null;
  D = v;
  st.range = null;          /* (each view has its own buckets) */
  F = D.frames;
  widthCache = {};
  threadOrder();
  header();
  fillThreads();
  st.thread = -1;
  if (name) D.threads.forEach(function (t, i) { if (t.name === name) st.thread = i; });
  $('thread').value = String(st.thread);
  $('view').value = String(ALL.indexOf(D));
  document.title = D.title + ' - clrprobe flame graph' + (ALL.length > 1 ? ' (' + D.view + ')' : '');
}

(function init() {
  $('title').textContent = D.title;
  var vs = $('view');
  ALL.forEach(function (v, i) { vs.appendChild(new Option(v.view + ' \u2014 ' + what(v), String(i))); });
  $('viewpick').hidden = ALL.length < 2;
  vs.onchange = function () { useView(ALL[+vs.value]); st.group = null; rebuild(); };
  useView(D);
  var sel = $('thread');
  sel.onchange = function () { st.thread = +sel.value; st.group = null; rebuild(); };
  $('search').addEventListener('input', update);
  $('icicle').onchange = function () { st.icicle = this.checked; render(); showRoots(); };
  $('bythread').onchange = function () { st.byThread = this.checked; if (st.thread < 0) rebuild(); else render(); };
  $('reset').onclick = function () { zoomTo(null); };
  document.addEventListener('keydown', function (ev) {
    var inInput = ev.target.tagName === 'INPUT' || ev.target.tagName === 'SELECT';
    if (ev.key === '/' && !inInput) { ev.preventDefault(); $('search').focus(); $('search').select(); }
    else if (ev.key === 'Escape') { if (inInput) ev.target.blur(); zoomTo(null); }
  });
  window.addEventListener('hashchange', applyHash);
  var pending = 0;
  /* (the window's size may settle after the page is read: the graph is fitted again when it does) */
  window.addEventListener('resize', function () {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(function () { draw(); showRoots(); });
  });
  window.addEventListener('load', showRoots);
  /* a heap snapshot and no samples: the heap view leads, without an empty flame graph */
  if (D.heap && !ALL.some(function (v) { return v.samples; })) {
    ['stripview', 'crumbs', 'graph'].forEach(function (id) { $(id).hidden = true; });
    document.querySelector('.controls').hidden = true;
    $('top').closest('section').hidden = true;
    document.querySelector('header').insertAdjacentElement('afterend', $('heapview'));
    document.querySelector('h1 .kind').textContent = '\u2014 heap';
    $('status').textContent = 'view heap: a heap snapshot and no samples';
    return;
  }
  applyHash();
  showRoots();
})();
})();
