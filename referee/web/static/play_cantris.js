/* Cantris on the human's page: click the tile to remove (on 10x5 a turn is
   two removals, each its own step: the page asks twice). */
"use strict";
(function (R) {
  R.play = function (ctx) {
    var S = R.geometry.cell, layer = R.layer(ctx.svg);
    ctx.turn.legal.forEach(function (d) {
      var w = R.words(d), r = +w[0], c = +w[1];
      var pick = R.svg("rect", {x: c * S + 1.5, y: r * S + 1.5, width: S - 3, height: S - 3, rx: S / 8, "class": "pick",
                                "data-kind": "pick", "data-r": r, "data-c": c, "data-decision": d}, layer);
      R.svg("title", null, pick).textContent = "remove " + d;
      pick.addEventListener("click", function () { ctx.submit(d); });
    });
  };
  R.playHint = function () { return "Click the tile to remove."; };
})(window.Referee);
