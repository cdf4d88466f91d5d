/* Tsuro on the human's page.  Setup: click a free start position on the
   edge.  Play: pick a tile from your hand, turn it, click a highlighted
   cell: the tile is shown there with the path your marker (and any other)
   would travel; Place plays it. */
"use strict";
(function (R) {
  R.play = function (ctx) {
    var S = R.geometry.cell, layer = R.layer(ctx.svg), T = R.tsuro, tiles = ctx.data.extras.tiles;
    if (ctx.turn.kind === "setup") return starts(ctx, S, layer, T);
    var hand = ctx.scene.hands[ctx.you - 1] || [], moves = {};
    ctx.turn.legal.forEach(function (d) {
      var w = R.words(d);
      if (w[0] !== "T") return;
      var key = w[1] + " " + w[2];  /* index, rotation */
      (moves[key] = moves[key] || []).push([+w[3], +w[4], d]);
    });
    var pick = {index: null, rot: 0, cell: null};
    var bar = R.html("div", {"class": "tsuro-hand", "data-kind": "hand"}, null, ctx.controls);
    hand.forEach(function (id, i) {
      var b = R.button("", {"class": "hand-choice", "data-kind": "hand-choice", "data-index": i, "data-tile": id,
                            title: "tile #" + id + " (hand index " + i + ")"}, bar, function () { pick.index = i; pick.cell = null; update(); });
      b.appendChild(mini(id, 0));
    });
    var rotate = R.button("⟳ rotate", {id: "rotate", "class": "rotate"}, ctx.controls, function () {
      pick.rot = (pick.rot + 1) % 4; update();
    });
    var place = R.button("Place", {id: "place", "class": "place", disabled: "disabled"}, ctx.controls, function () {
      if (pick.decision) ctx.submit(pick.decision);
    });
    var note = R.html("span", {id: "preview-note", "class": "muted"}, "", ctx.controls);

    function mini(id, rot) {
      var svg = R.svg("svg", {viewBox: "0 0 40 40", width: 40, height: 40, "class": "mini-tile"});
      T.tile(svg, 0, 0, id, rot, 40, tiles, {});
      return svg;
    }
    function update() {
      R.clear(layer, ".tsuro-live");
      bar.querySelectorAll("button").forEach(function (b) {
        var i = +b.getAttribute("data-index");
        b.classList.toggle("selected", i === pick.index);
        b.textContent = "";
        b.appendChild(mini(hand[i], i === pick.index ? pick.rot : 0));
      });
      pick.decision = null;
      place.disabled = true;
      note.textContent = pick.index === null ? "pick a tile from your hand" : "rotation " + pick.rot + ": click a highlighted cell";
      if (pick.index === null) return;
      var options = moves[pick.index + " " + pick.rot] || [];
      if (!options.length) note.textContent = "no legal cell at rotation " + pick.rot + ": rotate";
      options.forEach(function (m) {
        var t = R.svg("rect", {x: m[1] * S + 3, y: m[0] * S + 3, width: S - 6, height: S - 6, rx: 6,
                               "class": "target tsuro-live", "data-kind": "target", "data-r": m[0], "data-c": m[1],
                               "data-decision": m[2]}, layer);
        t.addEventListener("click", function () { pick.cell = [m[0], m[1]]; update(); });
      });
      var chosen = pick.cell && options.filter(function (m) { return m[0] === pick.cell[0] && m[1] === pick.cell[1]; })[0];
      if (!chosen) { pick.cell = null; return; }
      pick.decision = chosen[2];
      T.tile(layer, chosen[0], chosen[1], hand[pick.index], pick.rot, S, tiles,
             {"class": "tsuro-live preview-tile", "data-kind": "preview-tile", "data-decision": chosen[2], "pointer-events": "none"});
      var what = (ctx.turn.previews || {})[chosen[2]] || {trails: {}, out: {}};
      Object.keys(what.trails).forEach(function (p) {
        what.trails[p].forEach(function (seg) {
          R.svg("path", {d: T.pathD(seg[0], seg[1], seg[2], seg[3], S), fill: "none", stroke: R.color(+p), "stroke-width": 6,
                         "stroke-linecap": "round", opacity: 0.9, "class": "tsuro-live", "data-kind": "preview-trail",
                         "data-player": p, "pointer-events": "none"}, layer);
        });
      });
      var mine = what.out[String(ctx.you)];
      note.textContent = chosen[2] + (mine ? ": your marker would go OUT (" + mine + ")" : ": your marker follows the coloured path") +
        (Object.keys(what.out).filter(function (p) { return +p !== ctx.you; }).length ? "; it would knock out p" +
          Object.keys(what.out).filter(function (p) { return +p !== ctx.you; }).join(", p") : "");
      note.setAttribute("data-out", mine ? "1" : "0");
      place.disabled = false;
      place.setAttribute("data-decision", chosen[2]);
    }
    update();
  };

  function starts(ctx, S, layer, T) {
    ctx.turn.legal.forEach(function (d) {
      var w = R.words(d);
      if (w[0] !== "S") return;
      var pos = +w[1], side = Math.floor(pos / 12), k = pos % 12, step = k >> 1, half = k & 1, n = 6;
      var r = [0, step, n - 1, n - 1 - step][side], c = [step, n - 1, n - 1 - step, 0][side];
      var pt = T.port(r, c, 2 * side + half, S), out = T.normal[side];
      var dot = R.svg("circle", {cx: pt[0] - out[0] * 13, cy: pt[1] - out[1] * 13, r: 8, "class": "target start",
                                 "data-kind": "start", "data-pos": pos, "data-decision": d}, layer);
      R.svg("title", null, dot).textContent = d;
      dot.addEventListener("click", function () { ctx.submit(d); });
    });
  }
  R.playHint = function (turn) {
    return turn.kind === "setup" ? "Click a free start position on the edge of the board." :
      "Pick a tile from your hand, rotate it, click a highlighted cell to see where your marker would go, then Place.";
  };
})(window.Referee);
