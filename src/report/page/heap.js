/* heap.js - the html report's heap view (page.html).  Embedded into clrprobe
 * when it is built (html_page_files.S); html_page.c writes it in place of the
 * line @heap.js@, without this comment. */
/* The heap view (D.heap, html_heap.c): a sortable type table; the selected type's root path and its largest
 * instances in the dominator tree, expandable.  State in the URL fragment (heapsort=KEY, heaptype=NAME) and,
 * for tests, in #heapstatus: "types N; sorted by KEY; first TYPE; selected TYPE: COUNT instances; path ROOT
 * -> ...; instances shown K". */
(function () {
'use strict';
var D = JSON.parse(document.getElementById('profile-data').textContent), H = D.heap;
var view = document.getElementById('heapview');
if (!H) return;
var N = H.names, body = document.querySelector('#heaptypes tbody'), detail = document.getElementById('heapdetail');
var status = document.getElementById('heapstatus'), sortKey = 'retained', selected = null;
var kids = {};
H.tree.forEach(function (n, i) { (kids[n[0]] = kids[n[0]] || []).push(i); });
function fmtB(b) {
  return b >= 1073741824 ? (b / 1073741824).toFixed(2) + ' GiB' : b >= 1048576 ? (b / 1048576).toFixed(2) + ' MiB' :
    b >= 1024 ? (b / 1024).toFixed(1) + ' KiB' : b + ' B';
}
function nm(x) { return typeof x === 'number' ? N[x] : x; }
var rows = H.types.map(function (t) { return { name: N[t[0]], ix: t[0], count: t[1], shallow: t[2], retained: t[3] }; });
document.getElementById('heaptitle').textContent = '\u2014 snapshot ' + H.snapshot + ': ' + H.objects + ' objects, ' +
  fmtB(H.bytes) + ', ' + H.roots + ' roots; the runtime paused ' + (H.pause_ns / 1e6).toFixed(1) + ' ms' +
  (H.types.length < rows.length ? '' : '');
function sortRows() {
  rows.sort(function (a, b) {
    if (sortKey === 'name') return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
    return b[sortKey] - a[sortKey] || (a.name < b.name ? -1 : 1);
  });
}
function cell(tr, text, cls) { var td = document.createElement('td'); td.textContent = text; if (cls) td.className = cls; tr.appendChild(td); }
function renderTable() {
  sortRows();
  body.textContent = '';
  rows.forEach(function (r) {
    var tr = document.createElement('tr');
    cell(tr, r.name, 'fn');
    cell(tr, String(r.count));
    cell(tr, fmtB(r.shallow));
    cell(tr, fmtB(r.retained));
    if (selected === r.name) tr.className = 'sel';
    tr.addEventListener('click', function () { select(r.name); });
    body.appendChild(tr);
  });
  document.querySelectorAll('#heaptypes th').forEach(function (th) {
    th.className = (th.getAttribute('data-k') === 'name' ? 'fn' : '') + (th.getAttribute('data-k') === sortKey ? ' sorted' : '');
  });
}
function nodeLine(i, depth, ul) {
  var n = H.tree[i], li = document.createElement('li'), k = kids[i] || [], tog = document.createElement('span');
  tog.className = 'tog';
  tog.textContent = k.length ? '\u25b8 ' : '\u00a0\u00a0 ';
  li.appendChild(tog);
  li.appendChild(document.createTextNode(fmtB(n[2]) + '  ' + nm(n[1]) + '  (own ' + fmtB(n[3]) + ', ' + n[4] + ')'));
  li.style.paddingLeft = (depth * 14) + 'px';
  ul.appendChild(li);
  var open = null;
  tog.addEventListener('click', function () {
    if (open) { open.remove(); open = null; tog.textContent = '\u25b8 '; return; }
    open = document.createElement('ul');
    k.slice().sort(function (a, b) { return H.tree[b][2] - H.tree[a][2]; }).slice(0, 50)
      .forEach(function (c) { nodeLine(c, depth + 1, open); });
    li.after(open);
    tog.textContent = '\u25be ';
  });
}
function select(name) {
  selected = name;
  renderTable();
  detail.textContent = '';
  var r = rows.filter(function (x) { return x.name === name; })[0], h = document.createElement('h3');
  h.textContent = name;
  detail.appendChild(h);
  var p = H.paths.filter(function (x) { return N[x[0]] === name; })[0], pre = document.createElement('pre');
  pre.className = 'path';
  pre.textContent = p ? 'Why it is alive (' + p[3] + ' of ' + p[4] + ' instances by this shortest path from a GC root):\n  ' +
    p[1] + '\n' + p[2].map(function (x) { return '  -> ' + nm(x); }).join('\n') :
    'No root path kept for this type (the page keeps them for the types that retain the most; clrprobe report --why TYPE)';
  detail.appendChild(pre);
  var mine = [];
  H.tree.forEach(function (n, i) { if (N[n[1]] === name) mine.push(i); });
  mine.sort(function (a, b) { return H.tree[b][2] - H.tree[a][2]; });
  var t = document.createElement('div');
  t.className = 'meta';
  t.textContent = mine.length ? 'Its largest instances in the dominator tree (what each retains):' :
    'None of its instances is among the objects that retain the most.';
  detail.appendChild(t);
  var ul = document.createElement('ul');
  ul.className = 'domtree';
  mine.slice(0, 30).forEach(function (i) { nodeLine(i, 0, ul); });
  detail.appendChild(ul);
  writeStatus(r, p, Math.min(mine.length, 30));
  var frag = 'heapsort=' + sortKey + '&heaptype=' + encodeURIComponent(name);
  if (decodeURIComponent(location.hash.slice(1)) !== decodeURIComponent(frag)) history.replaceState(null, '', '#' + frag);
}
function writeStatus(r, p, shown) {
  status.textContent = 'types ' + rows.length + '; sorted by ' + sortKey + '; first ' + rows[0].name +
    (r ? '; selected ' + r.name + ': ' + r.count + ' instances, retained ' + r.retained : '') +
    (p ? '; path ' + p[1] + ' -> ' + p[2].map(nm).join(' -> ') : '') + (r ? '; instances shown ' + shown : '');
}
document.querySelectorAll('#heaptypes th').forEach(function (th) {
  th.addEventListener('click', function () { sortKey = th.getAttribute('data-k'); renderTable(); if (selected) select(selected); else writeStatus(); });
});
var q = {};
(window.clrprobeHash || location.hash).slice(1).split('&').forEach(function (kv) { var i = kv.indexOf('='); if (i > 0) q[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1)); });
if (['name', 'count', 'shallow', 'retained'].indexOf(q.heapsort) >= 0) sortKey = q.heapsort;
view.hidden = false;
renderTable();
if (q.heaptype && rows.some(function (x) { return x.name === q.heaptype; })) select(q.heaptype); else writeStatus();
})();
