/* gc_timeline.js - the html report's GC timeline (page.html).  Embedded into
 * clrprobe when it is built (html_page_files.S); html_page.c writes it in
 * place of the line @gc_timeline.js@, without this comment. */
/* The GC timeline (D.gc, html.c): the heap's size per generation over time, stacked, as the GCs saw it
 * (before and after each), with each GC's pause marked, drawn into <svg id="gcsvg">.  Writes what it drew
 * into #gcview's data-gcs, data-pauses, data-bands and data-areas (for tests). */
(function () {
'use strict';
var D = JSON.parse(document.getElementById('profile-data').textContent), G = D.gc;
var view = document.getElementById('gcview'), svg = document.getElementById('gcsvg'), NS = svg.namespaceURI;
var NAMES = ['gen0', 'gen1', 'gen2', 'LOH', 'POH'], COLORS = ['#7dd3fc', '#6ee7b7', '#fcd34d', '#c4b5fd', '#f9a8d4'];
if (!G || !G.gcs.length) { view.setAttribute('data-gcs', '0'); return; }
function fmtB(b) {
  return b >= 1073741824 ? (b / 1073741824).toFixed(2) + ' GiB' : b >= 1048576 ? (b / 1048576).toFixed(1) + ' MiB' :
    b >= 1024 ? (b / 1024).toFixed(0) + ' KiB' : b + ' B';
}
function fmtT(ns) { return ns >= 1e9 ? (ns / 1e9).toFixed(2) + ' s' : ns >= 1e6 ? (ns / 1e6).toFixed(2) + ' ms' : (ns / 1e3).toFixed(1) + ' us'; }
function node(tag, attrs, parent) {
  var e = document.createElementNS(NS, tag);
  for (var k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}
function known(v) { return v.some(function (x) { return x > 0; }); }
/* the readings: [t, sizes] before and after each GC that had them */
var pts = [], paused = 0, induced = 0, end = G.wall_ns;
G.gcs.forEach(function (g) {
  var before = g.slice(6, 11), after = g.slice(11, 16);
  if (known(before)) pts.push([g[0], before]);
  if (g[1] && known(after)) pts.push([g[1], after]);
  paused += g[5];
  if (g[3] === 1) induced++;
  end = Math.max(end, g[1] || g[0], g[4] + g[5]);
});
var W = 1000, H = 200, L = 64, R = 10, T = 10, B = 24, peak = 1024;
pts.forEach(function (p) { peak = Math.max(peak, p[1].reduce(function (a, b) { return a + b; }, 0)); });
var step = Math.pow(2, Math.ceil(Math.log2(peak / 4)));       /* gridlines at powers of two: 4 or fewer */
var top = Math.ceil(peak / step) * step;
function x(t) { return L + (W - L - R) * (end ? t / end : 0); }
function y(b) { return T + (H - T - B) * (1 - b / top); }
svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
for (var v = 0; v <= top && pts.length; v += step) {
  node('line', { x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: '#e5e7eb' }, svg);
  node('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end', 'font-size': 11, fill: '#656d76' }, svg).textContent = fmtB(v);
}
[0, 0.25, 0.5, 0.75, 1].forEach(function (f) {
  node('text', { x: x(f * end), y: H - 6, 'text-anchor': f === 0 ? 'start' : f === 1 ? 'end' : 'middle', 'font-size': 11, fill: '#656d76' },
    svg).textContent = fmtT(f * end);
});
/* the generations stacked, gen0 at the bottom: each an area between the sum below it and the sum with it */
var areas = 0;
for (var k = 0; k < 5 && pts.length; k++) {
  var upper = [], lower = [];
  pts.forEach(function (p) {
    var below = 0;
    for (var j = 0; j < k; j++) below += p[1][j];
    upper.push(x(p[0]).toFixed(1) + ',' + y(below + p[1][k]).toFixed(1));
    lower.unshift(x(p[0]).toFixed(1) + ',' + y(below).toFixed(1));
  });
  if (!pts.some(function (p) { return p[1][k] > 0; })) continue;
  var area = node('polygon', { points: upper.concat(lower).join(' '), fill: COLORS[k], 'fill-opacity': 0.85, stroke: 'none' }, svg);
  node('title', {}, area).textContent = NAMES[k];
  areas++;
}
/* the pauses: a mark along the top and a tint over the whole height from the suspension's start, at least 1.5
 * units wide; pauses that start within the mark before them widen it instead (thousands of GCs stay a few
 * hundred elements) */
var pauses = 0, last = null;
G.gcs.forEach(function (g) {
  if (!g[5]) return;
  var gens = [], mask = g[2], x0 = x(g[4]), x1 = Math.max(x0 + 1.5, x(g[4] + g[5]));
  for (var b = 0; b < 5; b++) if (mask & (1 << b)) gens.push(NAMES[b]);
  var what = 'GC of ' + gens.join(', ') + (g[3] === 1 ? ' (induced)' : '') + ' at ' + fmtT(g[0]) + ': paused ' + fmtT(g[5]) +
    (G.from_suspensions ? '' : ' (start to end: suspensions were not collected)');
  pauses++;
  if (last && x0 <= last.x1) {
    last.x1 = Math.max(last.x1, x1);
    last.r.setAttribute('width', (last.x1 - last.x0).toFixed(1));
    last.tint.setAttribute('width', (last.x1 - last.x0).toFixed(1));
    last.n++;
    last.t.textContent = last.first + ' (and ' + (last.n - 1) + ' more GCs here, ' + fmtT(last.ns += g[5]) + ' paused in all)';
    return;
  }
  var color = g[3] === 1 ? '#b91c1c' : '#ea580c';
  var tint = node('rect', { x: x0.toFixed(1), y: T, width: (x1 - x0).toFixed(1), height: H - T - B, fill: color, 'fill-opacity': 0.2 }, svg);
  var r = node('rect', { x: x0.toFixed(1), y: T, width: (x1 - x0).toFixed(1), height: 10, fill: color, 'class': 'pause' }, svg);
  last = { r: r, tint: tint, t: node('title', {}, r), x0: x0, x1: x1, n: 1, first: what, ns: g[5] };
  last.t.textContent = what;
});
view.setAttribute('data-bands', String(svg.querySelectorAll('rect.pause').length));
node('rect', { x: L, y: T, width: W - L - R, height: H - T - B, fill: 'none', stroke: '#d8dee4' }, svg);
document.getElementById('gctitle').textContent = '\u2014 ' + G.gcs.length + ' GCs (' + induced + ' induced), paused ' + fmtT(paused) +
  ' (' + (end ? (100 * paused / end).toFixed(2) : '0.00') + '% of ' + fmtT(end) + ')' + (pts.length ? '' : '; no generation sizes in this trace');
var legend = document.getElementById('gclegend');
NAMES.forEach(function (n, k) {
  var s = document.createElement('span'), sw = document.createElement('i');
  sw.style.background = COLORS[k];
  s.appendChild(sw);
  s.appendChild(document.createTextNode(n));
  legend.appendChild(s);
});
var s = document.createElement('span'), sw = document.createElement('i');
sw.style.background = '#b91c1c';
s.appendChild(sw);
s.appendChild(document.createTextNode('a GC\u2019s pause (darker: induced); hover for details'));
legend.appendChild(s);
view.hidden = false;
view.setAttribute('data-gcs', String(G.gcs.length));
view.setAttribute('data-pauses', String(pauses));
view.setAttribute('data-areas', String(areas));
})();
