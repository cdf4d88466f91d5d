/* Mouse input on the human's page: what the play_<game>.js modules share.
   A module sets Referee.play(ctx), called each time the board is drawn at
   the human's turn, with ctx = {svg, scene, turn: {step, kind, legal,
   previews}, data, you, controls (an element for buttons), submit(text)}.
   Everything it adds to the board goes in one layer on top (class
   input-layer), in the board's own coordinates (Referee.geometry). */
"use strict";
(function (R) {
  R.layer = function (svg) {
    var G = R.geometry;
    return R.svg("g", {transform: "translate(" + G.margin + "," + G.margin + ")", "class": "input-layer"}, svg);
  };
  R.words = function (text) { return text.trim().split(/\s+/); };
  R.clear = function (parent, selector) {
    parent.querySelectorAll(selector).forEach(function (el) { el.remove(); });
  };
  R.button = function (label, attrs, parent, onclick) {
    var b = R.html("button", Object.assign({type: "button"}, attrs || {}), label, parent);
    b.addEventListener("click", onclick);
    return b;
  };

  /* Tessella and Black Hole: legal decisions 'r1 c1 r2 c2'.  Click one of
     your pieces that can move (ringed), then one of its destinations. */
  R.pieceThenDestination = function (ctx) {
    var S = R.geometry.cell, layer = R.layer(ctx.svg), moves = {};
    ctx.turn.legal.forEach(function (d) {
      var w = R.words(d);
      if (w.length !== 4) return;
      var key = w[0] + " " + w[1];
      (moves[key] = moves[key] || []).push([+w[2], +w[3], d]);
    });
    var chosen = null;
    function targets(key) {
      R.clear(layer, "[data-kind=target]");
      layer.querySelectorAll("[data-kind=movable]").forEach(function (el) {
        el.classList.toggle("selected", el.getAttribute("data-from") === key);
      });
      if (!key) return;
      moves[key].forEach(function (m) {
        var t = R.svg("circle", {cx: m[1] * S + S / 2, cy: m[0] * S + S / 2, r: S * 0.2, "class": "target",
                                 "data-kind": "target", "data-r": m[0], "data-c": m[1], "data-decision": m[2]}, layer);
        R.svg("title", null, t).textContent = m[2];
        t.addEventListener("click", function (e) { e.stopPropagation(); ctx.submit(m[2]); });
      });
    }
    Object.keys(moves).forEach(function (key) {
      var w = key.split(" "), r = +w[0], c = +w[1];
      var ring = R.svg("circle", {cx: c * S + S / 2, cy: r * S + S / 2, r: S * 0.36, "class": "movable",
                                  "data-kind": "movable", "data-from": key, "data-r": r, "data-c": c}, layer);
      ring.addEventListener("click", function (e) {
        e.stopPropagation();
        chosen = chosen === key ? null : key;
        targets(chosen);
      });
    });
  };
  R.pieceHint = "Click one of your ringed pieces, then one of its highlighted destinations.";
})(window.Referee);
