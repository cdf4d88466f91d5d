/* Connect Four: the blue grid, its pieces in the players' colours, a ring
   round the piece just dropped and a line through a winning row. */
"use strict";
(function (R) {
  var S = 56, M = 18;
  R.draw = function (scene, data) {
    var rows = scene.grid.length, cols = scene.grid[0].length;
    var svg = R.root(cols * S + 2 * M, rows * S + 2 * M + 14, "Connect Four board");
    var g = R.svg("g", {transform: "translate(" + M + "," + (M + 14) + ")"}, svg);
    R.svg("rect", {x: 0, y: 0, width: cols * S, height: rows * S, rx: 10, fill: "#1f4fa8"}, g);
    for (var c = 0; c < cols; c++) {
      R.text(c * S + S / 2, -6, c, {"font-size": 12, fill: "#666", "text-anchor": "middle"}, g);
    }
    scene.grid.forEach(function (row, r) {
      row.forEach(function (v, c) {
        R.svg("circle", {cx: c * S + S / 2, cy: r * S + S / 2, r: S * 0.4,
                         fill: v ? R.color(v) : "#fff", stroke: "#123", "stroke-width": 1,
                         "data-kind": v ? "piece" : "hole", "data-player": v || null,
                         "data-r": r, "data-c": c}, g);
      });
    });
    if (scene.last) {
      R.svg("circle", {cx: scene.last[1] * S + S / 2, cy: scene.last[0] * S + S / 2, r: S * 0.46,
                       fill: "none", stroke: "#ffd400", "stroke-width": 4, "data-kind": "last-move"}, g);
    }
    if (scene.line.length) {
      var a = scene.line[0], b = scene.line[scene.line.length - 1];
      R.svg("line", {x1: a[1] * S + S / 2, y1: a[0] * S + S / 2, x2: b[1] * S + S / 2, y2: b[0] * S + S / 2,
                     stroke: "#fff", "stroke-width": 6, "stroke-linecap": "round", "data-kind": "line"}, g);
    }
    var info = R.html("div");
    [1, 2].forEach(function (p) { R.html("div", null, null, info).appendChild(R.playerLabel(data, p)); });
    R.html("p", {"class": "muted"}, "Drop a piece in a column; " + scene.connect + " in a row wins.", info);
    return {board: svg, info: info};
  };
})(window.Referee);
