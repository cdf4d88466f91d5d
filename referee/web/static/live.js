/* The live page: a match as it is played, for a spectator (referee watch)
   or for the human at a seat (--player human:web).  It polls the local
   server for new steps, draws the newest with the replay's drawing
   (Referee.draw), lists the moves with their verdicts and, at the human's
   turn, lets the game's mouse input (Referee.play, from play_<game>.js) or
   the text box make the decision text it sends back. */
"use strict";
(function () {
  var R = window.Referee;
  var $ = function (id) { return document.getElementById(id); };
  var mode = document.body.getAttribute("data-mode"), you = +document.body.getAttribute("data-you");
  var params = new URLSearchParams(location.search), token = params.get("token") || "";
  var data = null, frames = [], result = null, turn = null, turnKey = null, turnSince = 0;
  var acked = false, busy = false, resignArmed = false, refused = 0;
  var extra = [];  /* decisions offered as buttons: a pass, or all of them when there are few */
  var FAULTS = R.FAULTS, badge = R.badge, ms = R.ms;
  function decisionText(rec) { return R.decisionText(rec).split("\n")[0]; }

  function api(path) {
    var q = new URLSearchParams(location.search);
    q.set("since", frames.length);
    if (result && !acked) q.set("ack", "result");
    return path + "?" + q.toString();
  }

  function addMoveRow(frame, i) {
    var rec = frame.record, body = $("moves-body");
    var tr = R.html("tr", {"data-step": i}, null, body);
    R.html("td", {"class": "num"}, i, tr);
    if (!rec) { R.html("td", {colspan: "4", "class": "muted"}, "start position", tr); return; }
    var who = R.html("td", null, null, tr);
    R.html("span", {"class": "swatch", style: "background:" + R.color(rec.player)}, null, who);
    R.html("span", null, "p" + rec.player + (rec.player === you ? " (you)" : ""), who);
    R.html("td", {"class": "dec"}, decisionText(rec), tr);
    badge(rec.verdict, R.html("td", null, null, tr));
    R.html("td", {"class": "num time"}, ms(rec.wall_ms) + " / " + ms(rec.cpu_ms), tr);
    if (FAULTS[rec.verdict]) tr.className = "fault-row";
    var scroll = $("moves-scroll");
    scroll.scrollTop = scroll.scrollHeight;
  }

  function showLast() {
    var box = $("details"), f = frames[frames.length - 1];
    box.textContent = "";
    if (!f || !f.record) { R.html("p", {"class": "muted"}, "Start position.", box); return; }
    var rec = f.record, head = R.html("p", {"class": "detail-head", id: "last-step"}, null, box);
    R.html("strong", null, "Step " + rec.step + " ", head);
    R.playerLabel(data, rec.player, head);
    head.appendChild(document.createTextNode(" " + decisionText(rec) + " "));
    badge(rec.verdict, head);
    if (rec.message) {
      var m = R.html("p", {"class": FAULTS[rec.verdict] ? "message fault" : "message", id: "verdict-message"}, rec.message, box);
      m.setAttribute("data-verdict", rec.verdict);
    }
    var events = (rec.events || []).map(function (e) { return e.type; });
    if (events.length) R.html("p", {"class": "muted"}, "events: " + events.join(", "), box);
  }

  function draw() {
    var f = frames[frames.length - 1], stage = $("board"), info = $("board-info");
    if (!f) return;
    stage.textContent = ""; info.textContent = "";
    if (data.drawing === "svg" && R.draw) {
      var drawn = R.draw(f.scene, data, f);
      stage.appendChild(drawn.board);
      if (drawn.info) info.appendChild(drawn.info);
    } else {
      R.html("pre", {"class": "text-board"}, f.scene.text, stage);
    }
    stage.setAttribute("data-step", frames.length - 1);
    if (turn && R.play && frames.length - 1 === turn.step - 1) {
      $("controls").textContent = "";
      R.play({svg: stage.querySelector("svg"), scene: f.scene, turn: turn, data: data, you: you,
              controls: $("controls"), submit: submit});
    }
  }

  function seatLine() {
    var line = $("seat-line");
    line.textContent = "";
    if (mode !== "play") return;
    line.appendChild(document.createTextNode("You are "));
    R.playerLabel(data, you, line);
    line.appendChild(document.createTextNode(" — the moves of the others show here as they happen."));
  }

  function showResult() {
    var box = $("result");
    box.hidden = false;
    box.className = "result " + (result.winner !== null && result.winner !== undefined ? "has-winner" : "no-winner");
    box.setAttribute("data-winner", result.winner === null || result.winner === undefined ? "" : result.winner);
    var headline = $("result-headline");
    headline.textContent = "";
    R.withNames(result.headline_parts, headline);
    if (mode === "play" && result.winner === you) headline.appendChild(document.createTextNode(" — you win!"));
    $("result-reason").textContent = result.reason + (result.length ? " " + result.length : "");
    $("status").textContent = "game over";
    document.body.setAttribute("data-finished", "1");
  }

  function bankLeft() {
    /* The seat's time bank: its last logged bank_ms, or the match's bank at the start. */
    var lim = data.limits || {}, left = null;
    frames.forEach(function (f) { if (f.record && f.record.player === you && f.record.bank_ms !== undefined) left = f.record.bank_ms / 1000; });
    if (left === null && lim.time_bank) left = +lim.time_bank;
    return left;
  }
  function tick() {
    if (!turn) return;
    var took = (Date.now() - turnSince) / 1000, bank = bankLeft(), text = "thinking " + took.toFixed(0) + " s";
    if (bank !== null) text += " — time bank " + Math.max(0, bank - took).toFixed(1) + " s left";
    $("clock").textContent = text;
  }

  function setTurn(next, refusal) {
    var key = next ? next.step + ":" + next.legal.length : null;
    var box = $("turn");
    if (box) {
      box.hidden = !next;
      var r = $("refusal");
      r.hidden = !refusal; r.textContent = refusal || "";
    }
    if (key === turnKey) return false;
    turn = next; turnKey = key; busy = false;
    if (!box) return false;
    if (turn) {
      turnSince = Date.now();
      $("turn-title").textContent = "Your move (step " + turn.step + (turn.kind !== "play" ? ", " + turn.kind : "") + ")";
      $("hint").textContent = turn.legal.length + " legal decision(s). " + (R.playHint ? R.playHint(turn) : "Type your decision below.");
      $("decision-help").textContent = "format: " + (turn.help || "the game's decision text");
      $("decision").value = "";
      $("status").textContent = "your move";
      document.body.setAttribute("data-turn", turn.step);
      extra = turn.legal.length <= 3 ? turn.legal : turn.legal.filter(function (d) { return /^(pass|PASS)$/.test(d); });
      $("controls").textContent = "";
    } else {
      $("controls").textContent = "";
      document.body.removeAttribute("data-turn");
    }
    return true;
  }
  function extraButtons() {
    if (!turn) return;
    extra.forEach(function (d) {
      var b = R.html("button", {type: "button", "class": "choice", "data-decision": d}, d, $("controls"));
      b.addEventListener("click", function () { submit(d); });
    });
  }

  /* An answer names the step it answers: the referee takes one answer per
     turn (the first; another tab's, or a resent one, is refused with 409 and
     its reason) and refuses one for a step that is no longer asked. */
  function send(body) {
    body.step = turn.step;
    return fetch("/api/decide", {method: "POST", headers: {"Content-Type": "application/json", "X-Token": token},
                                 body: JSON.stringify(body)})
      .then(function (r) { return r.json(); })
      .then(function (answer) { if (!answer.ok) $("status").textContent = answer.error; poll(); return answer; });
  }
  function submit(text) {
    if (!turn || busy) return;
    busy = true;
    $("status").textContent = "sent: " + text;
    send({decision: text})
      .then(function (answer) { if (!answer.ok) busy = false; })
      .catch(function () { busy = false; });
  }
  function resign() {
    if (!turn) return;
    if (!resignArmed) { resignArmed = true; $("resign").textContent = "Really resign? (click again)"; return; }
    send({resign: true}).catch(function () {});
  }

  function apply(answer) {
    if (answer.head) {
      data = answer.head;
      $("game-title").textContent = data.title;
      $("match-id").textContent = data.match_id;
      document.title = data.title + (mode === "play" ? ": you play" : ": live");
      if (mode === "play") R.tsuroViewer = you;  /* the others' hands stay hidden */
      seatLine();
    }
    if (!data) { $("status").textContent = answer.problem || "waiting for the match to start…"; return; }
    var grew = false;
    if (answer.first === frames.length && answer.frames.length) {
      answer.frames.forEach(function (f) { frames.push(f); addMoveRow(f, frames.length - 1); });
      grew = true;
      showLast();
    }
    if (answer.refused > refused) { refused = answer.refused; busy = false; }  /* refused: may send again */
    /* The turn is shown once the position it is played from is: the referee
       may ask before the log line of the step before is written (it writes
       it while the next player thinks), and a turn without its position
       would say "your move" with nothing to click. */
    var ready = answer.turn && frames.length - 1 === answer.turn.step - 1 ? answer.turn : null;
    var changed = mode === "play" ? setTurn(ready, answer.refusal) : false;
    if (grew || changed) { draw(); extraButtons(); }
    if (!turn && !answer.result && mode === "play" && frames.length) {
      var nxt = frames.length;
      $("status").textContent = "waiting for the other player(s)… (step " + nxt + ")";
    } else if (mode === "watch" && !answer.result) {
      $("status").textContent = "live: " + (frames.length - 1) + " step(s) so far";
    }
    if (answer.problem) $("status").textContent = answer.problem;
    if (answer.result && !result) { result = answer.result; showResult(); }
    else if (answer.result && result) acked = true;
  }

  /* Polls overlap (the loop's, and the one a sent decision starts) and may
     answer out of order: an answer older than one already applied would take
     back a turn already shown and redraw the board without its controls. */
  var polled = 0, applied = 0;
  function poll() {
    var mine = ++polled;
    return fetch(api("/api/live"), {headers: {"X-Token": token}})
      .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
      .then(function (answer) { if (mine > applied) { applied = mine; apply(answer); } })
      .catch(function (e) { $("status").textContent = result ? "game over (the referee has stopped)" : "lost the referee: " + e.message; });
  }
  function loop() {
    if (result && acked) { document.body.setAttribute("data-ready", "1"); return; }
    poll().then(function () { setTimeout(loop, turn ? 400 : 250); });
  }

  if ($("typed")) {
    $("typed").addEventListener("submit", function (e) { e.preventDefault(); var t = $("decision").value.trim(); if (t) submit(t); });
    $("resign").addEventListener("click", resign);
  }
  R.redraw = function () { draw(); extraButtons(); };
  setInterval(tick, 500);
  loop();
  document.body.setAttribute("data-ready", "1");
})();
