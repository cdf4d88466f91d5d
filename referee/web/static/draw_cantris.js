/* Cantris: numbered, coloured tiles; below, how the step went: the board
   before with the removed tile, then each cascade pass with its cells. */
"use strict";
(function (R) {
  /* No red or blue: those are player 1's and player 2's colours everywhere on the page. */
  var TILE = ["#ffffff", "#26a69a", "#ab47bc", "#9ccc65", "#ffca28", "#ec407a", "#8d6e63", "#ff7043", "#78909c", "#5c6bc0"];
  function tileColor(v) { return TILE[v % TILE.length] || "#999"; }

  function grid(board, size, marks, markKind) {
    var rows = board.length, cols = board[0].length, pad = 18;
    var svg = R.root(cols * size + pad, rows * size + pad, "Cantris board");
    var g = R.svg("g", {transform: "translate(" + pad + "," + pad + ")"}, svg);
    for (var c = 0; c < cols; c++) R.text(c * size + size / 2, -5, c, {"class": "coord", "text-anchor": "middle", "font-size": 11, fill: "#888"}, g);
    for (var r = 0; r < rows; r++) R.text(-5, r * size + size / 2 + 4, r, {"class": "coord", "text-anchor": "end", "font-size": 11, fill: "#888"}, g);
    board.forEach(function (row, r) {
      row.forEach(function (v, c) {
        var x = c * size, y = r * size;
        if (!v) { R.svg("rect", {x: x + 1, y: y + 1, width: size - 2, height: size - 2, fill: "#f4f4f4", "data-kind": "empty", "data-r": r, "data-c": c}, g); return; }
        R.svg("rect", {x: x + 1.5, y: y + 1.5, width: size - 3, height: size - 3, rx: size / 8, fill: tileColor(v),
                       stroke: "rgba(0,0,0,.35)", "data-kind": "tile", "data-r": r, "data-c": c, "data-value": v}, g);
        R.text(x + size / 2, y + size / 2 + size * 0.16, v, {"text-anchor": "middle", "font-size": size * 0.45,
               "font-weight": "700", fill: "#fff", stroke: "rgba(0,0,0,.45)", "stroke-width": size > 30 ? 1 : 0.5, "paint-order": "stroke"}, g);
      });
    });
    (marks || []).forEach(function (m) {
      var x = m[1] * size, y = m[0] * size;
      if (markKind === "removed") {
        R.svg("rect", {x: x + 1, y: y + 1, width: size - 2, height: size - 2, fill: "none", stroke: "#000", "stroke-width": 3,
                       "data-kind": "mark", "data-mark": "removed", "data-r": m[0], "data-c": m[1]}, g);
        R.svg("path", {d: "M" + (x + 5) + " " + (y + 5) + "L" + (x + size - 5) + " " + (y + size - 5) + "M" + (x + size - 5) + " " + (y + 5) + "L" + (x + 5) + " " + (y + size - 5),
                       stroke: "#000", "stroke-width": 2.5, opacity: 0.7}, g);
      } else {
        R.svg("rect", {x: x + 2, y: y + 2, width: size - 4, height: size - 4, fill: "none", stroke: "#000",
                       "stroke-width": 3, "stroke-dasharray": "4 3", "data-kind": "mark", "data-mark": "cascade", "data-r": m[0], "data-c": m[1]}, g);
      }
    });
    return svg;
  }

  R.draw = function (scene, data, frame) {
    var board = grid(scene.board, 44, [], null);
    R.geometry = {cell: 44, margin: 18};  /* for the mouse input of the human's page (play_cantris.js) */
    board.setAttribute("data-scene", "main");
    var info = R.html("div");
    var t = R.html("table", null, null, info);
    [0, 1].forEach(function (i) {
      var tr = R.html("tr", null, null, t);
      R.playerLabel(data, i + 1, R.html("td", null, null, tr));
      R.html("td", {"data-kind": "points", "data-player": i + 1}, scene.points[i] + " points", tr);
    });
    if (scene.stages.length) {
      R.html("h3", null, "How this step went", info);
      var strip = R.html("div", {"class": "stages"}, null, info);
      scene.stages.forEach(function (s, i) {
        var fig = R.html("figure", {"data-stage": i}, null, strip);
        var svg = grid(s.board, 22, s.marks, s.mark);
        svg.setAttribute("data-scene", "stage");
        svg.setAttribute("data-stage", i);
        fig.appendChild(svg);
        R.html("figcaption", null, s.label, fig);
      });
    }
    return {board: board, info: info};
  };
})(window.Referee);
