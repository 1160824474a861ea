// SPDX-License-Identifier: BSD-2-Clause
"use strict";
var W, XP, FH, CW, shown = [], views = {}, view = 'flame', term = null, slots = [];
function $(id) { return document.getElementById(id); }
function init() {
  var svg = document.documentElement;
  W = +svg.getAttribute('width'); XP = +svg.getAttribute('data-xpad');
  FH = +svg.getAttribute('data-frameh'); CW = +svg.getAttribute('data-charw');
  ['flame', 'callers'].forEach(function (v) {
    var box = $(v); if (!box) return;
    var gs = box.getElementsByTagName('g'), list = [];
    for (var i = 0; i < gs.length; i++) {
      var g = gs[i], r = g.getElementsByTagName('rect')[0];
      var t = g.getElementsByTagName('title')[0].textContent;
      var f = { g: g, r: r, ox: +r.getAttribute('x'), ow: +r.getAttribute('width'),
                y: +r.getAttribute('y'), fill: r.getAttribute('fill'), title: t,
                name: t.substring(0, t.lastIndexOf(' (')),
                text: g.getElementsByTagName('text')[0] || null };
      list.push(f);
      g.addEventListener('click', zoom.bind(null, f));
      g.addEventListener('mouseover', function (f) { $('details').textContent = f.title; }.bind(null, f));
      g.addEventListener('mouseout', function () { $('details').textContent = ' '; });
    }
    views[v] = { box: box, frames: list, reversed: v == 'callers' };
  });
  shown = views.flame.frames;
  if ($('strip')) {
    var gs = $('strip').getElementsByTagName('g');
    for (var i = 0; i < gs.length; i++) {
      var t = gs[i].getElementsByTagName('title')[0].textContent;
      slots.push(gs[i]);
      gs[i].addEventListener('mouseover', function (t) { $('details').textContent = t; }.bind(null, t));
      gs[i].addEventListener('mouseout', function () { $('details').textContent = ' '; });
    }
  }
  $('unzoom').addEventListener('click', unzoom);
  $('search').addEventListener('click', ask);
  if ($('flip')) $('flip').addEventListener('click', function () { show(view == 'flame' ? 'callers' : 'flame'); });
  document.addEventListener('keydown', function (e) {
    if ((e.ctrlKey || e.metaKey) && e.key == 'f') { e.preventDefault(); ask(); }
    else if (e.key == 'Escape') search(null);
  });
  fragment();
}
function fragment() {
  var parts = location.hash.substring(1).split('&');
  for (var i = 0; i < parts.length; i++) {
    var eq = parts[i].indexOf('='), k = eq < 0 ? parts[i] : parts[i].substring(0, eq);
    var v = eq < 0 ? '' : decodeURIComponent(parts[i].substring(eq + 1));
    if (k == 'callers' && views.callers) show('callers');
    else if (k == 'search') search(v);
    else if (k == 'slot' && slots[+v - 1]) slots[+v - 1].dispatchEvent(new MouseEvent('mouseover'));
    else if (k == 'click') {
      var best = null;
      shown.forEach(function (f) { if (f.name == v && (!best || f.ow > best.ow)) best = f; });
      if (best) best.g.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    }
  }
}
function show(v) {
  unzoom();
  views[view].box.setAttribute('display', 'none');
  view = v; shown = views[v].frames;
  views[v].box.removeAttribute('display');
  $('flip').textContent = v == 'flame' ? 'Callers' : 'Callees';
  search(term);
}
function label(f, x, w) {
  var n = Math.floor((w - 6) / CW);
  if (n < 3) { if (f.text) f.text.textContent = ''; return; }
  if (!f.text) {
    f.text = document.createElementNS('http://www.w3.org/2000/svg', 'text');
    f.text.setAttribute('y', f.y + FH - 4.5); f.g.appendChild(f.text);
  }
  f.text.setAttribute('x', (x + 3).toFixed(2));
  f.text.textContent = f.name.length <= n ? f.name : f.name.substring(0, n - 2) + '..';
}
function place(f, x, w, faded) {
  f.g.removeAttribute('display');
  if (faded) f.g.setAttribute('opacity', '0.6'); else f.g.removeAttribute('opacity');
  f.r.setAttribute('x', x.toFixed(2)); f.r.setAttribute('width', w.toFixed(2));
  label(f, x, w);
}
function zoom(z) {
  var tol = 0.02, scale = (W - 2 * XP) / z.ow, rev = views[view].reversed;
  shown.forEach(function (f) {
    var below = rev ? f.y < z.y : f.y > z.y;
    if (below) {
      if (f.ox <= z.ox + tol && f.ox + f.ow >= z.ox + z.ow - tol) place(f, XP, W - 2 * XP, true);
      else f.g.setAttribute('display', 'none');
    } else if (f.ox >= z.ox - tol && f.ox + f.ow <= z.ox + z.ow + tol) {
      place(f, XP + (f.ox - z.ox) * scale, f.ow * scale, false);
    } else f.g.setAttribute('display', 'none');
  });
  $('unzoom').removeAttribute('display');
}
function unzoom() {
  shown.forEach(function (f) { place(f, f.ox, f.ow, false); });
  $('unzoom').setAttribute('display', 'none');
}
function search(t) {
  var re = null;
  if (t) { try { re = new RegExp(t); } catch (e) { $('matched').textContent = 'not a regular expression: ' + t; return; } }
  var spans = [];
  shown.forEach(function (f) {
    if (re && re.test(f.name)) { f.r.setAttribute('fill', 'rgb(230,0,230)'); spans.push([f.ox, f.ox + f.ow]); }
    else f.r.setAttribute('fill', f.fill);
  });
  term = re ? t : null;
  $('search').textContent = re ? 'Reset Search' : 'Search';
  if (!re) { $('matched').textContent = ''; return; }
  spans.sort(function (a, b) { return a[0] - b[0]; });
  var sum = 0, end = -1;
  spans.forEach(function (s) {
    if (s[0] >= end) { sum += s[1] - s[0]; end = s[1]; }
    else if (s[1] > end) { sum += s[1] - end; end = s[1]; }
  });
  $('matched').textContent = 'Matched: ' + (100 * sum / (W - 2 * XP)).toFixed(2) + '%';
}
function ask() {
  if (term) { search(null); return; }
  var t = prompt('Search for (a regular expression)', '');
  if (t) search(t);
}
