/* Tsuro: placed tiles with their four paths, the tile just placed, each
   marker and the trail it travelled this step, eliminated players, and every
   hand (the replay is the referee's view, hidden hands included). */
"use strict";
(function (R) {
  var S = 76, M = 26;
  R.geometry = {cell: S, margin: M};  /* for the mouse input of the human's page (play_*.js) */
  var NORMAL = [[0, 1], [-1, 0], [0, -1], [1, 0]];  /* into the cell, per side */

  function port(r, c, p, size) {
    var x = c * size, y = r * size, a = size / 3, b = 2 * size / 3;
    return [[x + a, y], [x + b, y], [x + size, y + a], [x + size, y + b],
            [x + b, y + size], [x + a, y + size], [x, y + b], [x, y + a]][p];
  }
  function pathD(r, c, p, q, size) {
    var A = port(r, c, p, size), B = port(r, c, q, size), k = size * 0.42;
    var na = NORMAL[p >> 1], nb = NORMAL[q >> 1];
    return "M" + A[0].toFixed(1) + " " + A[1].toFixed(1) + " C" + (A[0] + na[0] * k).toFixed(1) + " " + (A[1] + na[1] * k).toFixed(1) +
           " " + (B[0] + nb[0] * k).toFixed(1) + " " + (B[1] + nb[1] * k).toFixed(1) + " " + B[0].toFixed(1) + " " + B[1].toFixed(1);
  }
  function tile(parent, r, c, id, rot, size, tiles, attrs) {
    var g = R.svg("g", attrs, parent);
    R.svg("rect", {x: c * size + 1, y: r * size + 1, width: size - 2, height: size - 2, rx: size / 14, fill: "#f7efd9", stroke: "#c9b78f"}, g);
    tiles[id][rot].forEach(function (pq) {
      R.svg("path", {d: pathD(r, c, pq[0], pq[1], size), fill: "none", stroke: "#fff", "stroke-width": size / 11}, g);
      R.svg("path", {d: pathD(r, c, pq[0], pq[1], size), fill: "none", stroke: "#7a6a4f", "stroke-width": size / 28}, g);
    });
    return g;
  }
  function statusOf(scene, p) {
    var o = scene.out[p - 1];
    return o ? "out (" + o[2] + ", ply " + o[1] + ")" : "in";
  }

  /* Shared with the human's page (play_tsuro.js): the same tile and port geometry. */
  R.tsuro = {port: port, pathD: pathD, tile: tile, normal: NORMAL};

  R.draw = function (scene, data) {
    var tiles = data.extras.tiles, n = scene.size, W = n * S + 2 * M;
    var svg = R.root(W, W, "Tsuro board");
    var g = R.svg("g", {transform: "translate(" + M + "," + M + ")"}, svg);
    R.svg("rect", {x: -2, y: -2, width: n * S + 4, height: n * S + 4, fill: "#5d4a32", rx: 6}, g);
    for (var r = 0; r < n; r++) {
      for (var c = 0; c < n; c++) R.svg("rect", {x: c * S + 1, y: r * S + 1, width: S - 2, height: S - 2, fill: "#8a7352"}, g);
      R.text(-M + 9, r * S + S / 2 + 4, r, {"font-size": 11, fill: "#999", "text-anchor": "middle"}, g);
      R.text(r * S + S / 2, -M + 14, r, {"font-size": 11, fill: "#999", "text-anchor": "middle"}, g);
    }
    scene.cells.forEach(function (t) {
      tile(g, t[0], t[1], t[2], t[3], S, tiles, {"data-kind": "tile", "data-r": t[0], "data-c": t[1], "data-tile": t[2], "data-rot": t[3]});
    });
    if (scene.placed) {
      R.svg("rect", {x: scene.placed[1] * S + 2, y: scene.placed[0] * S + 2, width: S - 4, height: S - 4, fill: "none",
                     stroke: "#000", "stroke-width": 3, "stroke-dasharray": "7 4", "data-kind": "placed",
                     "data-r": scene.placed[0], "data-c": scene.placed[1]}, g);
    }
    Object.keys(scene.trails).forEach(function (p) {
      scene.trails[p].forEach(function (seg) {
        R.svg("path", {d: pathD(seg[0], seg[1], seg[2], seg[3], S), fill: "none", stroke: R.color(+p), "stroke-width": 6,
                       "stroke-linecap": "round", opacity: 0.85, "data-kind": "trail", "data-player": p,
                       "data-r": seg[0], "data-c": seg[1]}, g);
      });
    });
    scene.markers.forEach(function (m) {
      var p = m[0], pt = port(m[1], m[2], m[3], S), out = scene.out[p - 1];
      var mk = R.svg("g", {"data-kind": "marker", "data-player": p, "data-r": m[1], "data-c": m[2], "data-port": m[3],
                           "data-out": out ? out[2] : null}, g);
      R.svg("circle", {cx: pt[0], cy: pt[1], r: 10, fill: out ? "#fff" : R.color(p), stroke: out ? R.color(p) : "#111", "stroke-width": out ? 3 : 2}, mk);
      if (out) {
        R.svg("path", {d: "M" + (pt[0] - 6) + " " + (pt[1] - 6) + "L" + (pt[0] + 6) + " " + (pt[1] + 6) + "M" + (pt[0] + 6) + " " + (pt[1] - 6) +
                       "L" + (pt[0] - 6) + " " + (pt[1] + 6), stroke: R.color(p), "stroke-width": 3}, mk);
      } else {
        R.text(pt[0], pt[1] + 4, p, {"text-anchor": "middle", "font-size": 11, "font-weight": 700, fill: "#fff"}, mk);
      }
    });
    var info = R.html("div");
    var t = R.html("table", {"class": "hands"}, null, info);
    var head = R.html("tr", null, null, t);
    ["player", "hand"].forEach(function (h) { R.html("th", null, h, head); });
    for (var p = 1; p <= scene.players; p++) {
      var tr = R.html("tr", {"data-player": p, "class": scene.current === p ? "to-move" : null}, null, t);
      var who = R.html("td", null, null, tr);
      R.playerLabel(data, p, who);
      if (scene.current === p) R.html("span", {"class": "muted"}, " (to move)", who);
      R.html("div", {"data-kind": "status", "data-player": p, "class": "status muted"}, statusOf(scene, p) + (scene.dragon === p ? ", holds the dragon" : ""), who);
      var hand = R.html("div", {"class": "hand"}, null, R.html("td", null, null, tr));
      if (R.tsuroViewer && R.tsuroViewer !== p) {
        R.html("span", {"class": "muted", "data-kind": "hidden-hand", "data-player": p},
               scene.hands[p - 1].length + " hidden tile(s)", hand);
        continue;
      }
      scene.hands[p - 1].forEach(function (id) {
        var mini = R.svg("svg", {viewBox: "0 0 38 46", width: 38, height: 46, "class": "mini-tile", role: "img",
                                 "aria-label": "tile " + id});
        mini.setAttribute("data-kind", "hand-tile"); mini.setAttribute("data-player", p); mini.setAttribute("data-tile", id);
        tile(mini, 0, 0, id, 0, 38, tiles, {});
        R.text(19, 45, "#" + id, {"text-anchor": "middle", "font-size": 8, fill: "#555"}, mini);
        hand.appendChild(mini);
      });
    }
    R.html("p", {"class": "muted", "data-kind": "pile"}, "pile: " + scene.pile + " tile(s)" +
           (scene.dragon ? "; dragon: p" + scene.dragon : ""), info);
    var pick = R.html("label", {"class": "viewer"}, "hands seen by ", info);
    var select = R.html("select", {id: "tsuro-viewer"}, null, pick);
    R.html("option", {value: "0"}, "everyone (spectator)", select);
    for (var v = 1; v <= scene.players; v++) R.html("option", {value: String(v)}, "p" + v + " only", select);
    select.value = String(R.tsuroViewer || 0);
    select.addEventListener("change", function () { R.tsuroViewer = +select.value; R.redraw(); });
    R.html("p", {"class": "muted"}, "Hand tiles are shown as dealt (rotation 0). A player's own files show only its own hand.", info);
    return {board: svg, info: info};
  };
})(window.Referee);
