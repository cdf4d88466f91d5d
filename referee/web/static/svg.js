/* Small helpers shared by the replay page and every game's drawing:
   building SVG and HTML elements, player colours. */
"use strict";
var Referee = window.Referee || {};
window.Referee = Referee;

Referee.SVGNS = "http://www.w3.org/2000/svg";
/* Player 1..8; 1-4 match Quoridor's red, blue, green, yellow. */
Referee.COLORS = ["#d62728", "#1f77b4", "#2ca02c", "#e0b000", "#9467bd", "#ff7f0e", "#17becf", "#8c564b"];
Referee.color = function (player) { return Referee.COLORS[(player - 1) % Referee.COLORS.length]; };

/* svg("rect", {x: 1, ...}, parent) -> the new element, appended to parent if given */
Referee.svg = function (tag, attrs, parent) {
  var el = document.createElementNS(Referee.SVGNS, tag);
  for (var k in attrs || {}) { if (attrs[k] !== null && attrs[k] !== undefined) el.setAttribute(k, attrs[k]); }
  if (parent) parent.appendChild(el);
  return el;
};
Referee.text = function (x, y, str, attrs, parent) {
  var t = Referee.svg("text", Object.assign({x: x, y: y}, attrs || {}), parent);
  t.textContent = str;
  return t;
};
/* html("div", {class: "x"}, "text", parent) */
Referee.html = function (tag, attrs, content, parent) {
  var el = document.createElement(tag);
  for (var k in attrs || {}) { if (attrs[k] !== null && attrs[k] !== undefined) el.setAttribute(k, attrs[k]); }
  if (content !== undefined && content !== null) el.textContent = String(content);
  if (parent) parent.appendChild(el);
  return el;
};
Referee.root = function (width, height, label) {
  return Referee.svg("svg", {viewBox: "0 0 " + width + " " + height, width: width, height: height,
                             role: "img", "aria-label": label, "class": "board-svg"});
};
/* An arrow from (x1,y1) to (x2,y2): the move just played. */
Referee.arrow = function (x1, y1, x2, y2, attrs, parent) {
  var g = Referee.svg("g", Object.assign({"class": "last-move"}, attrs || {}), parent);
  Referee.svg("line", {x1: x1, y1: y1, x2: x2, y2: y2, "class": "arrow-line"}, g);
  var a = Math.atan2(y2 - y1, x2 - x1), h = 10;
  var p = [[x2, y2], [x2 - h * Math.cos(a - 0.45), y2 - h * Math.sin(a - 0.45)],
           [x2 - h * Math.cos(a + 0.45), y2 - h * Math.sin(a + 0.45)]];
  Referee.svg("polygon", {points: p.map(function (q) { return q.join(","); }).join(" "), "class": "arrow-head"}, g);
  return g;
};
Referee.playerName = function (data, id) {
  for (var i = 0; i < data.players.length; i++) { if (data.players[i].id === id) return data.players[i].name; }
  return "player " + id;
};
/* A colour swatch + "p1 name" label, as an HTML element.  Every name on a
   page is in a <bdi>: a name holding a right-to-left override (U+202E) must
   not turn the text after it around. */
Referee.playerLabel = function (data, id, parent) {
  var span = Referee.html("span", {"class": "who"}, null, parent);
  Referee.html("span", {"class": "swatch", style: "background:" + Referee.color(id)}, null, span);
  Referee.withNames(["p" + id + " ", Referee.playerName(data, id), ""], Referee.html("span", null, null, span));
  return span;
};
/* Text with names in it, [text, name, text, ...] (the pages' *_parts), into parent. */
Referee.withNames = function (parts, parent) {
  parts.forEach(function (part, i) {
    if (i % 2) Referee.html("bdi", null, part, parent);
    else if (part) parent.appendChild(document.createTextNode(part));
  });
  return parent;
};
/* Verdict badges, times and decision text: the replay's move list and the live pages'. */
Referee.FAULTS = {MALFORMED: 1, NO_DECISION: 1, ILLEGAL: 1, TIMEOUT: 1, CPU_LIMIT: 1, MEMORY_LIMIT: 1, DISK_LIMIT: 1, CRASH: 1, RESIGNED: 1};
Referee.badgeClass = function (verdict) {
  if (verdict === "OK") return "badge ok";
  if (verdict === "LATE") return "badge late";
  if (Referee.FAULTS[verdict]) return "badge fault";
  return "badge other";
};
Referee.badge = function (verdict, parent) {
  return Referee.html("span", {"class": Referee.badgeClass(verdict), "data-verdict": verdict}, verdict, parent);
};
Referee.ms = function (v) { return v === undefined || v === null ? "" : (Math.round(v) + ""); };
/* What a step decided, for a one-line list: the applied move, else the raw text's first line. */
Referee.decisionText = function (rec) {
  if (rec.applied !== undefined && rec.applied !== null && rec.verdict === "OK") return rec.applied;
  var raw = rec.decision;
  if (raw === null || raw === undefined) return rec.applied || "(none)";
  raw = String(raw).trim();
  return raw === "" ? "(empty)" : raw;
};
