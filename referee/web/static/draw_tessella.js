/* Tessella: the diamond of octagons and squares, both sides' pieces, the
   move just played (a capture marked) and captures so far. */
"use strict";
(function (R) {
  var S = 52, M = 22;
  R.geometry = {cell: S, margin: M};  /* for the mouse input of the human's page (play_*.js) */
  function octagon(cx, cy, r) {
    var pts = [];
    for (var i = 0; i < 8; i++) {
      var a = Math.PI / 8 + i * Math.PI / 4;
      pts.push((cx + r * Math.cos(a)).toFixed(1) + "," + (cy + r * Math.sin(a)).toFixed(1));
    }
    return pts.join(" ");
  }
  R.draw = function (scene, data) {
    var n = 9, W = n * S + 2 * M;
    var svg = R.root(W, W, "Tessella board");
    var g = R.svg("g", {transform: "translate(" + M + "," + M + ")"}, svg);
    for (var i = 0; i < n; i++) {
      R.text(-9, i * S + S / 2 + 4, i, {"font-size": 11, fill: "#999", "text-anchor": "middle"}, g);
      R.text(i * S + S / 2, -7, i, {"font-size": 11, fill: "#999", "text-anchor": "middle"}, g);
    }
    scene.cells.forEach(function (cell) {
      var r = cell[0], c = cell[1], cx = c * S + S / 2, cy = r * S + S / 2;
      if (cell[2] === "O") {
        R.svg("polygon", {points: octagon(cx, cy, S * 0.54), fill: "#e9e2d0", stroke: "#b9ad8f", "stroke-width": 1.5,
                          "data-kind": "cell", "data-shape": "O", "data-r": r, "data-c": c}, g);
      } else {
        R.svg("rect", {x: cx - S * 0.22, y: cy - S * 0.22, width: S * 0.44, height: S * 0.44, fill: "#cfd8dc", stroke: "#90a4ae",
                       "stroke-width": 1.5, transform: "rotate(45 " + cx + " " + cy + ")",
                       "data-kind": "cell", "data-shape": "S", "data-r": r, "data-c": c}, g);
      }
    });
    scene.pieces.forEach(function (p) {
      var cx = p[1] * S + S / 2, cy = p[0] * S + S / 2;
      R.svg("circle", {cx: cx, cy: cy, r: S * 0.27, fill: R.color(p[2]), stroke: "#222", "stroke-width": 2,
                       "data-kind": "piece", "data-player": p[2], "data-r": p[0], "data-c": p[1]}, g);
    });
    if (scene.move) {
      var m = scene.move;
      R.arrow(m[1] * S + S / 2, m[0] * S + S / 2, m[3] * S + S / 2, m[2] * S + S / 2,
              {"data-kind": "last-move", "data-capture": scene.captured ? "1" : null}, g);
      if (scene.captured) {
        R.svg("circle", {cx: m[3] * S + S / 2, cy: m[2] * S + S / 2, r: S * 0.4, fill: "none", stroke: "#000",
                         "stroke-width": 3, "stroke-dasharray": "4 3", "data-kind": "capture", "data-r": m[2], "data-c": m[3]}, g);
      }
    }
    var info = R.html("div");
    var t = R.html("table", null, null, info);
    [1, 2].forEach(function (p) {
      var tr = R.html("tr", null, null, t);
      R.playerLabel(data, p, R.html("td", null, null, tr));
      var pieces = scene.pieces.filter(function (x) { return x[2] === p; }).length;
      R.html("td", null, pieces + " pieces", tr);
      R.html("td", {"data-kind": "captures", "data-player": p}, scene.captures[p - 1] + " captured", tr);
    });
    R.html("p", {"class": "muted"}, "Octagons step in 8 directions, squares in 4. Four captures win.", info);
    if (scene.captured) R.html("p", null, "This move captured a piece (dashed ring).", info);
    return {board: svg, info: info};
  };
})(window.Referee);
