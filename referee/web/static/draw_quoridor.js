/* Quoridor: 9x9 squares, walls on the grid lines (the one just placed
   outlined), pawns, each seat's goal side as a coloured bar, walls left. */
"use strict";
(function (R) {
  var S = 46, M = 26;  /* square size, margin holding the goal bars and coordinates */
  R.geometry = {cell: S, margin: M};  /* for the mouse input of the human's page (play_*.js) */
  var SIDE = {"row 0": "top", "row 8": "bottom", "column 8": "right", "column 0": "left"};

  R.draw = function (scene, data) {
    var n = scene.size, W = n * S + 2 * M;
    var svg = R.root(W, W, "Quoridor board");
    var g = R.svg("g", {transform: "translate(" + M + "," + M + ")"}, svg);
    scene.seats.forEach(function (p) {
      var side = SIDE[scene.goals[p]], col = R.color(p), t = 7, attrs;
      if (side === "top") attrs = {x: 0, y: -M + 4, width: n * S, height: t};
      else if (side === "bottom") attrs = {x: 0, y: n * S + M - 4 - t, width: n * S, height: t};
      else if (side === "left") attrs = {x: -M + 4, y: 0, width: t, height: n * S};
      else attrs = {x: n * S + M - 4 - t, y: 0, width: t, height: n * S};
      attrs.fill = col; attrs.rx = 3; attrs["data-kind"] = "goal"; attrs["data-player"] = p; attrs["data-side"] = side;
      R.svg("rect", attrs, g);
    });
    for (var r = 0; r < n; r++) {
      for (var c = 0; c < n; c++) {
        R.svg("rect", {x: c * S + 3, y: r * S + 3, width: S - 6, height: S - 6, rx: 4, fill: "#f1e3c8", stroke: "#d8c4a0"}, g);
      }
      R.text(-M + 15, r * S + S / 2 + 4, r, {"font-size": 10, fill: "#999", "text-anchor": "middle"}, g);
      R.text(r * S + S / 2, n * S + 13, r, {"font-size": 10, fill: "#999", "text-anchor": "middle"}, g);
    }
    if (scene.last_move) {
      var m = scene.last_move;
      R.arrow(m[1] * S + S / 2, m[0] * S + S / 2, m[3] * S + S / 2, m[2] * S + S / 2, {"data-kind": "last-move"}, g);
    }
    scene.walls.forEach(function (w) {
      var last = scene.last_wall && scene.last_wall.join() === w.join();
      R.svg("line", {x1: w[1] * S, y1: w[0] * S, x2: w[3] * S, y2: w[2] * S, stroke: last ? "#000" : "#5d3a1a",
                     "stroke-width": 7, "stroke-linecap": "round", "data-kind": "wall",
                     "data-r1": w[0], "data-c1": w[1], "data-r2": w[2], "data-c2": w[3], "data-last": last ? "1" : null}, g);
      if (last) R.svg("line", {x1: w[1] * S, y1: w[0] * S, x2: w[3] * S, y2: w[2] * S, stroke: "#ffeb3b", "stroke-width": 2.5,
                               "stroke-linecap": "round", "stroke-dasharray": "5 4"}, g);
    });
    scene.pawns.forEach(function (p) {
      var cx = p[2] * S + S / 2, cy = p[1] * S + S / 2;
      R.svg("circle", {cx: cx, cy: cy, r: S * 0.34, fill: R.color(p[0]), stroke: "#222", "stroke-width": 2,
                       "data-kind": "pawn", "data-player": p[0], "data-r": p[1], "data-c": p[2]}, g);
      R.text(cx, cy + 5, p[0], {"text-anchor": "middle", "font-size": 15, "font-weight": 700, fill: "#fff"}, g);
    });
    var info = R.html("div");
    var t = R.html("table", null, null, info);
    var head = R.html("tr", null, null, t);
    ["player", "goal", "walls left"].forEach(function (h) { R.html("th", null, h, head); });
    scene.seats.forEach(function (p) {
      var tr = R.html("tr", null, null, t);
      R.playerLabel(data, p, R.html("td", null, null, tr));
      R.html("td", null, scene.goals[p], tr);
      R.html("td", {"data-kind": "walls-left", "data-player": p, "data-count": scene.walls_left[p]}, scene.walls_left[p], tr);
      if (scene.out.indexOf(p) >= 0) R.html("td", {"class": "muted", "data-kind": "ejected"}, "ejected", tr);
    });
    R.html("p", {"class": "muted"}, scene.walls.length + " wall(s) on the board", info);
    return {board: svg, info: info};
  };
})(window.Referee);
