/* Quoridor on the human's page: your pawn and your goal marked; click a
   highlighted square to move, or point at a grid line between squares to
   see a wall there and click to place it. */
"use strict";
(function (R) {
  var SIDE = {"row 0": "top", "row 8": "bottom", "column 8": "right", "column 0": "left"};
  R.play = function (ctx) {
    var S = R.geometry.cell, layer = R.layer(ctx.svg), n = ctx.scene.size, T = 7;
    var me = ctx.scene.pawns.filter(function (p) { return p[0] === ctx.you; })[0];
    if (me) {
      R.svg("circle", {cx: me[2] * S + S / 2, cy: me[1] * S + S / 2, r: S * 0.45, "class": "own-pawn",
                       "data-kind": "own-pawn", "data-r": me[1], "data-c": me[2]}, layer);
      R.text(me[2] * S + S / 2, me[1] * S + S * 0.95, "you", {"text-anchor": "middle", "font-size": 10, "font-weight": 700, "class": "own-label"}, layer);
    }
    var goal = SIDE[ctx.scene.goals[ctx.you]];
    if (goal) {
      var gx = goal === "left" ? -4 : goal === "right" ? n * S + 4 : n * S / 2;
      var gy = goal === "top" ? -10 : goal === "bottom" ? n * S + 20 : n * S / 2;
      R.text(gx, gy, "your goal", {"text-anchor": "middle", "font-size": 11, "font-weight": 700, "class": "goal-label",
                                   "data-kind": "own-goal", "data-side": goal}, layer);
    }
    var walls = [];
    ctx.turn.legal.forEach(function (d) {
      var w = R.words(d);
      if (w[0] === "M") {
        var r = +w[3], c = +w[4];
        var t = R.svg("rect", {x: c * S + 3, y: r * S + 3, width: S - 6, height: S - 6, rx: 4, "class": "target",
                               "data-kind": "target", "data-r": r, "data-c": c, "data-decision": d}, layer);
        R.svg("title", null, t).textContent = d;
        t.addEventListener("click", function () { ctx.submit(d); });
      } else if (w[0] === "W") walls.push(w);
    });
    walls.forEach(function (w) {
      var r1 = +w[1], c1 = +w[2], r2 = +w[3], c2 = +w[4], d = w.join(" "), slot;
      if (r1 === r2) {  /* horizontal: the part of the grid line around its middle */
        var cx = (c1 + c2) / 2;
        slot = {x: (cx - 0.5) * S, y: r1 * S - T, width: S, height: 2 * T};
      } else {
        var cy = (r1 + r2) / 2;
        slot = {x: c1 * S - T, y: (cy - 0.5) * S, width: 2 * T, height: S};
      }
      slot["class"] = "wall-slot"; slot["data-kind"] = "wall-slot"; slot["data-decision"] = d;
      var el = R.svg("rect", slot, layer), preview = null;
      el.addEventListener("mouseenter", function () {
        preview = R.svg("line", {x1: c1 * S, y1: r1 * S, x2: c2 * S, y2: r2 * S, "class": "wall-preview",
                                 "data-kind": "wall-preview", "data-decision": d}, layer);
        ctx.controls.setAttribute("data-preview", d);
      });
      el.addEventListener("mouseleave", function () { if (preview) preview.remove(); preview = null; });
      el.addEventListener("click", function () { ctx.submit(d); });
    });
  };
  R.playHint = function (turn) {
    return "Click a highlighted square to move your pawn, or point at a line between squares to preview a wall and click to place it.";
  };
})(window.Referee);
