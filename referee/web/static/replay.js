/* The replay page: move list, navigation (slider, buttons, keys, #step=K)
   and the selected step's details.  The board itself is drawn by the game's
   Referee.draw(scene, data, frame) -> {board: Element, info: Element|null}. */
"use strict";
(function () {
  var R = window.Referee;
  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var frames = data.frames, last = frames.length - 1, current = -1, timer = null;
  var $ = function (id) { return document.getElementById(id); };
  var FAULTS = R.FAULTS, badge = R.badge, ms = R.ms, decisionText = R.decisionText;

  /* ---- move list */
  function buildMoveList() {
    var body = $("moves-body");
    frames.forEach(function (f, i) {
      var tr = R.html("tr", {"data-step": i, tabindex: "-1"}, null, body);
      var rec = f.record;
      R.html("td", {"class": "num"}, i, tr);
      if (!rec) {
        var td = R.html("td", {colspan: "4"}, "start position", tr);
        td.className = "muted";
      } else {
        var who = R.html("td", null, null, tr);
        R.html("span", {"class": "swatch", style: "background:" + R.color(rec.player)}, null, who);
        R.html("span", null, "p" + rec.player, who);
        var dec = R.html("td", {"class": "dec"}, decisionText(rec), tr);
        if (rec.auto) dec.title = "played by the referee";
        var v = R.html("td", null, null, tr);
        badge(rec.verdict, v);
        if (rec.fault) R.html("span", {"class": "fault-policy"}, rec.fault, v);
        R.html("td", {"class": "num time", title: "wall / CPU milliseconds" +
                      (rec.bank_ms !== undefined ? "; time bank left " + ms(rec.bank_ms) + " ms" : "")},
               ms(rec.wall_ms) + " / " + ms(rec.cpu_ms), tr);
        if (FAULTS[rec.verdict]) tr.className = "fault-row";
        else if (rec.verdict === "LATE") tr.className = "late-row";
      }
      tr.addEventListener("click", function () { stop(); go(i); });
    });
  }

  /* ---- the selected step */
  function showDetails(i) {
    var rec = frames[i].record, box = $("details");
    box.textContent = "";
    if (!rec) {
      R.html("p", {"class": "muted"}, "Start position, before any decision.", box);
      return;
    }
    var head = R.html("p", {"class": "detail-head"}, null, box);
    R.html("strong", null, "Step " + rec.step + " ", head);
    R.playerLabel(data, rec.player, head);
    if (rec.kind && rec.kind !== "play") R.html("span", {"class": "muted"}, " (" + rec.kind + ")", head);
    head.appendChild(document.createTextNode(" "));
    badge(rec.verdict, head);
    var dl = R.html("dl", {"class": "facts"}, null, box);
    function fact(k, v) { if (v === undefined || v === null || v === "") return; R.html("dt", null, k, dl); R.html("dd", null, v, dl); }
    fact("decision file", rec.decision === null || rec.decision === undefined ? "(none)" : JSON.stringify(rec.decision));
    fact("applied", rec.applied === null ? "(nothing)" : rec.applied);
    if (rec.auto) fact("auto", "played by the referee");
    fact("fault policy", rec.fault);
    fact("wall / CPU", ms(rec.wall_ms) + " ms / " + ms(rec.cpu_ms) + " ms");
    if (rec.bank_ms !== undefined) fact("time bank left", ms(rec.bank_ms) + " ms");
    if (rec.grace_ms) fact("grace used", ms(rec.grace_ms) + " ms (charged: the bank is empty)");
    if (rec.start_ms !== undefined) fact("started before the match", ms(rec.start_ms) +
                                         " ms until idle (not charged, wall or CPU)");
    if (rec.repaired && rec.repaired.length) fact("repaired before the step", rec.repaired.join("; "));
    if (rec.notes && rec.notes.length) fact("notes", rec.notes.join("; "));
    if (rec.peak_kb) fact("peak memory", rec.peak_kb + " KiB");
    if (rec.exit !== undefined && rec.exit !== null) fact("exit status", rec.exit);
    if (rec.message) {
      var m = R.html("p", {"class": FAULTS[rec.verdict] ? "message fault" : "message", id: "verdict-message"}, rec.message, box);
      m.setAttribute("data-verdict", rec.verdict);
    }
    var events = rec.events || [];
    R.html("h3", null, "Events", box);
    if (!events.length) R.html("p", {"class": "muted"}, "none", box);
    else {
      var ul = R.html("ul", {"class": "events"}, null, box);
      events.forEach(function (e) {
        var parts = [];
        for (var k in e) { if (k !== "type") parts.push(k + "=" + JSON.stringify(e[k])); }
        var li = R.html("li", null, null, ul);
        R.html("code", {"class": "etype"}, e.type, li);
        li.appendChild(document.createTextNode(" " + parts.join(" ")));
      });
    }
    ["stdout", "stderr"].forEach(function (k) {
      if (!rec[k]) return;
      R.html("h3", null, "p" + rec.player + " " + k + " (last lines of this step)", box);
      R.html("pre", {"class": "output " + k, "data-stream": k}, rec[k], box);
    });
  }

  function go(i, force) {
    i = Math.max(0, Math.min(last, i | 0));
    if (i === current && !force) return;
    current = i;
    var f = frames[i];
    var stage = $("board"), info = $("board-info");
    stage.textContent = ""; info.textContent = "";
    if (data.drawing === "svg" && R.draw) {
      var drawn = R.draw(f.scene, data, f);
      stage.appendChild(drawn.board);
      if (drawn.info) info.appendChild(drawn.info);
    } else {
      R.html("pre", {"class": "text-board"}, f.scene.text, stage);
    }
    stage.setAttribute("data-step", i);
    $("slider").value = i;
    $("step-label").textContent = "step " + i + " / " + last;
    var rows = document.querySelectorAll("#moves-body tr");
    rows.forEach(function (r) { r.classList.remove("selected"); });
    var row = rows[i];
    if (row) {
      row.classList.add("selected");
      var list = $("moves-scroll"), top = row.offsetTop, h = list.clientHeight;
      if (top < list.scrollTop || top > list.scrollTop + h - row.offsetHeight) list.scrollTop = top - h / 2;
    }
    showDetails(i);
    var want = "#step=" + i;
    if (location.hash !== want) history.replaceState(null, "", want);
    document.body.setAttribute("data-current-step", i);
  }

  function stepFromHash() {
    var m = /step=(\d+)/.exec(location.hash);
    return m ? parseInt(m[1], 10) : 0;
  }
  function stop() { if (timer) { clearInterval(timer); timer = null; } $("play").textContent = "▶ play"; }
  function play() {
    if (timer) { stop(); return; }
    if (current >= last) go(0);
    $("play").textContent = "❚❚ pause";
    timer = setInterval(function () { if (current >= last) stop(); else go(current + 1); }, 700);
  }

  R.redraw = function () { go(current, true); };  /* a drawing's own controls (e.g. Tsuro's viewer) */
  buildMoveList();
  var slider = $("slider");
  slider.max = last;
  slider.addEventListener("input", function () { stop(); go(+slider.value); });
  $("first").addEventListener("click", function () { stop(); go(0); });
  $("prev").addEventListener("click", function () { stop(); go(current - 1); });
  $("next").addEventListener("click", function () { stop(); go(current + 1); });
  $("last").addEventListener("click", function () { stop(); go(last); });
  $("play").addEventListener("click", play);
  document.addEventListener("keydown", function (e) {
    if (e.target && (e.target.id === "slider" || e.target.tagName === "SELECT")) return;  /* they move themselves */
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    var k = e.key;
    if (k === "ArrowRight" || k === "ArrowDown") { stop(); go(current + 1); }
    else if (k === "ArrowLeft" || k === "ArrowUp") { stop(); go(current - 1); }
    else if (k === "Home") { stop(); go(0); }
    else if (k === "End") { stop(); go(last); }
    else if (k === " " && e.target === document.body) { play(); }
    else return;
    e.preventDefault();
  });
  window.addEventListener("hashchange", function () { stop(); go(stepFromHash()); });
  go(stepFromHash());
  document.body.setAttribute("data-ready", "1");
})();
