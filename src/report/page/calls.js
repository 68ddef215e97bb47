/* calls.js - the html report's timeline of traced calls (page.html).
 * Embedded into clrprobe when it is built (html_page_files.S); html_page.c
 * writes it in place of the line @calls.js@, without this comment. */
/* The traced calls (D.calls, html.c; --trace-calls): a lane per thread, each call a bar from its start for its
 * duration (a nested call lower in the lane), coloured by method, hatched red when an exception left it.
 * Writes what it drew into #callview's data-calls and data-lanes (for tests). */
(function () {
'use strict';
var D = JSON.parse(document.getElementById('profile-data').textContent), C = D.calls;
var view = document.getElementById('callview'), svg = document.getElementById('callsvg'), NS = svg.namespaceURI;
var COLORS = ['#60a5fa', '#34d399', '#fbbf24', '#a78bfa', '#f472b6', '#22d3ee', '#a3e635', '#fb923c'];
if (!C || !C.calls.length) { view.setAttribute('data-calls', '0'); return; }
function fmtT(ns) { return ns >= 1e9 ? (ns / 1e9).toFixed(2) + ' s' : ns >= 1e6 ? (ns / 1e6).toFixed(2) + ' ms' : ns >= 1e3 ? (ns / 1e3).toFixed(1) + ' us' : ns + ' ns'; }
function node(tag, attrs, parent) {
  var e = document.createElementNS(NS, tag);
  for (var k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}
var end = C.wall_ns, depth = 1;
C.calls.forEach(function (c) { end = Math.max(end, c[0] + c[1]); depth = Math.max(depth, Math.min(c[4] + 1, 4)); });
var W = 1000, L = 64, R = 10, T = 6, B = 20, ROW = 6, LANE = depth * ROW + 6, H = T + B + LANE * C.tids.length;
function x(t) { return L + (W - L - R) * (end ? t / end : 0); }
svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
svg.style.height = H + 'px';
C.tids.forEach(function (tid, i) {
  node('text', { x: L - 6, y: T + i * LANE + LANE / 2 + 4, 'text-anchor': 'end', 'font-size': 11, fill: '#656d76' }, svg).textContent = 'tid ' + tid;
  node('line', { x1: L, x2: W - R, y1: T + (i + 1) * LANE, y2: T + (i + 1) * LANE, stroke: '#e5e7eb' }, svg);
});
[0, 0.25, 0.5, 0.75, 1].forEach(function (f) {
  node('text', { x: x(f * end), y: H - 6, 'text-anchor': f === 0 ? 'start' : f === 1 ? 'end' : 'middle', 'font-size': 11, fill: '#656d76' },
    svg).textContent = fmtT(f * end);
});
var drawn = 0;
C.calls.forEach(function (c) {
  var x0 = x(c[0]), x1 = Math.max(x0 + 1, x(c[0] + c[1])), lvl = Math.min(c[4], depth - 1);
  var r = node('rect', { x: x0.toFixed(1), y: T + c[3] * LANE + 3 + lvl * ROW, width: (x1 - x0).toFixed(1), height: ROW - 1,
    fill: c[5] ? '#dc2626' : COLORS[c[2] % COLORS.length], 'class': 'call' }, svg);
  node('title', {}, r).textContent = C.names[c[2]] + ': ' + fmtT(c[1]) + ' at ' + fmtT(c[0]) + (c[5] ? ', left by an exception' : '');
  drawn++;
});
node('rect', { x: L, y: T, width: W - L - R, height: H - T - B, fill: 'none', stroke: '#d8dee4' }, svg);
function plural(n, w) { return n + ' ' + w + (n === 1 ? '' : 's'); }
document.getElementById('calltitle').textContent = '\u2014 ' + plural(drawn, 'call') + ' of ' + plural(C.names.length, 'method') +
  ' on ' + plural(C.tids.length, 'thread') + (C.logged > drawn ? ' (the first ' + drawn + ' of the ' + C.logged + ' logged)' : '');
var legend = document.getElementById('calllegend');
C.names.forEach(function (n, k) {
  var s = document.createElement('span'), sw = document.createElement('i');
  sw.style.background = COLORS[k % COLORS.length];
  s.appendChild(sw);
  s.appendChild(document.createTextNode(n));
  legend.appendChild(s);
});
var s = document.createElement('span'), sw = document.createElement('i');
sw.style.background = '#dc2626';
s.appendChild(sw);
s.appendChild(document.createTextNode('left by an exception'));
legend.appendChild(s);
view.hidden = false;
view.setAttribute('data-calls', String(drawn));
view.setAttribute('data-lanes', String(C.tids.length));
})();
