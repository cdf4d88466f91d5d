/* Black Hole Escape: the 5x5 grid, the hole, ships, the slide just played
   and the ships saved so far. */
"use strict";
(function (R) {
  var S = 70, M = 20;
  R.geometry = {cell: S, margin: M};  /* for the mouse input of the human's page (play_*.js) */
  R.draw = function (scene, data) {
    var n = scene.grid.length, W = n * S + 2 * M;
    var svg = R.root(W, W, "Black Hole Escape board");
    var defs = R.svg("defs", null, svg);
    var grad = R.svg("radialGradient", {id: "bh-hole"}, defs);
    R.svg("stop", {offset: "0%", "stop-color": "#000"}, grad);
    R.svg("stop", {offset: "60%", "stop-color": "#2a0a40"}, grad);
    R.svg("stop", {offset: "100%", "stop-color": "#7b3fa0"}, grad);
    var g = R.svg("g", {transform: "translate(" + M + "," + M + ")"}, svg);
    for (var r = 0; r < n; r++) {
      R.text(-8, r * S + S / 2 + 4, r, {"font-size": 11, fill: "#999", "text-anchor": "middle"}, g);
      R.text(r * S + S / 2, -6, r, {"font-size": 11, fill: "#999", "text-anchor": "middle"}, g);
      for (var c = 0; c < n; c++) {
        R.svg("rect", {x: c * S + 2, y: r * S + 2, width: S - 4, height: S - 4, rx: 6, fill: "#eef1f7", stroke: "#ccd"}, g);
      }
    }
    var h = scene.hole;
    R.svg("circle", {cx: h[1] * S + S / 2, cy: h[0] * S + S / 2, r: S * 0.42, fill: "url(#bh-hole)",
                     "data-kind": "hole", "data-r": h[0], "data-c": h[1]}, g);
    scene.grid.forEach(function (row, r) {
      row.forEach(function (v, c) {
        if (v !== 1 && v !== 2) return;
        var cx = c * S + S / 2, cy = r * S + S / 2, k = S * 0.3;
        var pts = v === 1 ? [[cx, cy - k], [cx + k, cy + k * 0.8], [cx - k, cy + k * 0.8]]
                          : [[cx, cy + k], [cx + k, cy - k * 0.8], [cx - k, cy - k * 0.8]];
        R.svg("polygon", {points: pts.map(function (p) { return p.join(","); }).join(" "), fill: R.color(v), stroke: "#222",
                          "stroke-width": 2, "stroke-linejoin": "round", "data-kind": "ship", "data-player": v, "data-r": r, "data-c": c}, g);
      });
    });
    if (scene.move) {
      var m = scene.move;
      R.arrow(m[1] * S + S / 2, m[0] * S + S / 2, m[3] * S + S / 2, m[2] * S + S / 2,
              {"data-kind": "last-move", "data-saved": scene.saved_now ? "1" : null}, g);
    }
    var info = R.html("div");
    var t = R.html("table", null, null, info);
    [1, 2].forEach(function (p) {
      var tr = R.html("tr", null, null, t);
      R.playerLabel(data, p, R.html("td", null, null, tr));
      R.html("td", {"data-kind": "saved", "data-player": p}, scene.saved[p - 1] + " saved", tr);
    });
    R.html("p", {"class": "muted"}, "▲ player 1, ▼ player 2; a ship that stops on the hole is saved. First to 2 wins.", info);
    if (scene.saved_now) R.html("p", null, "This move saved a ship.", info);
    return {board: svg, info: info};
  };
})(window.Referee);
