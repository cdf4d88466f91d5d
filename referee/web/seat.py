"""``--player human:web``: a person plays a seat in the browser.

The referee serves a page on 127.0.0.1 (see :mod:`.server`) that draws the
match as the replay does, from the match folder as it is written (so the
opponent's moves show as they happen), for this seat's eyes only.  At the
seat's turn the page gets the legal decisions (and, where the game gives
them, what each would do) and sends back the decision text the mouse or the
keyboard made; it is checked like the terminal human's (refused with the
reason, asked again), then written to the seat's ``decision.txt`` and judged
like any player's (:func:`referee.core.players.human_reply`), so the log and
verify do not know how it was typed."""
from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Any

from referee.core import humans
from referee.core.game import Game, GameState
from referee.core.players import Reply, check_decision, human_reply, human_resigns, key_codes

from . import assets, server
from .live import LiveFolder
from .scenes import scene_module, script_text

RESULT_WAIT = 30.0  # seconds the page is kept up after the match, until it has shown the result


class WebHumanAgent:
    """One browser seat.  The server starts with the match
    (:meth:`match_started`) and stops when the page has shown the result."""

    name = "human:web"
    human = True

    def __init__(self, game: Game, open_browser: bool = True, choice: humans.Choice | None = None) -> None:
        server.require()
        self.game = game
        self.open_browser = open_browser
        self.choice = choice or humans.Choice(web=True)  # human:web, or human where it chose the browser
        self.server: server.LocalServer | None = None
        self.live: LiveFolder | None = None
        self.player: int | None = None
        self.turn: dict[str, Any] | None = None  # the pending request, while it is our move
        # The page's answer to the turn: at most one at a time, taken by
        # _decide (the server's thread) and judged by decide (the match's).
        # See _take for why one, and why nothing outlives its turn.
        self.ready = threading.Condition()
        self.answer: tuple[str, str] | None = None  # taken, not yet judged
        self.judging = False  # an answer was taken and is not refused yet: others are turned away
        self.refusal: str | None = None
        self.refused = 0  # decisions refused so far: the page may send again after each
        self.result_seen = False

    # ----- the match's side
    def match_started(self, out: Path, player: int) -> None:
        """Serve the page (called by the match once its folder exists)."""
        from starlette.routing import Route

        self.player = player
        self.live = LiveFolder(out, viewer=player)
        self.server = server.LocalServer([
            Route("/", self._page), Route("/api/live", self._live),
            Route("/api/decide", self._decide, methods=["POST"]),
        ])
        what, after = self.choice.browser_words(player)
        self.server.announce(what, self.open_browser, after=after)

    def decide(self, workdir: Path, step: int, player: int, state: GameState) -> Reply:
        started = time.monotonic()
        legal = [str(d) for d in state.legal_decisions()]
        module = scene_module(self.game.name)
        previews = getattr(module, "previews", None)
        turn = {"step": step, "player": player, "kind": state.step_kind(), "legal": legal,
                "help": self.game.decision_help,
                "previews": previews(state, player) if previews else None}
        with self.ready:  # a turn starts with nothing taken (see _take)
            self.answer, self.judging, self.refusal = None, False, None
            self.turn = turn
        try:
            while True:
                with self.ready:
                    if self.answer is None:
                        self.ready.wait(timeout=0.5)  # a timeout keeps Ctrl-C working
                    if self.answer is None:
                        continue
                    (kind, text), self.answer = self.answer, None
                if kind == "resign":
                    return human_resigns(started)
                error = key_codes(text) or check_decision(self.game, state, text)
                if error is None:
                    return human_reply(workdir, player, text, started)
                with self.ready:  # refused: the page may send another
                    self.refusal = f"{text.strip()[:80]!r} not accepted: {error}"
                    self.refused += 1
                    self.judging = False
        except KeyboardInterrupt:
            return human_resigns(started)
        finally:
            with self.ready:  # and ends with nothing taken: no answer is played at another turn
                self.turn, self.answer, self.judging = None, None, False

    def close(self) -> None:
        """Keep serving until the page has shown the result (at most
        RESULT_WAIT seconds), then stop."""
        if self.server is None:
            return
        try:
            deadline = time.monotonic() + RESULT_WAIT
            if not self.result_seen:
                print("waiting for the browser page to show the result (Ctrl-C to stop)",
                      file=sys.stderr, flush=True)
            while not self.result_seen and time.monotonic() < deadline:
                time.sleep(0.1)
        except KeyboardInterrupt:
            pass
        finally:
            self.server.close()
            self.server = None

    # ----- the page's side (run on the server's thread)
    async def _page(self, request):
        from starlette.responses import HTMLResponse

        return HTMLResponse(page_html(self.game.name, "play", self.player))

    async def _live(self, request):
        from starlette.responses import JSONResponse

        try:
            first = max(0, int(request.query_params.get("since", "0")))
        except ValueError:
            first = 0
        data = self.live.since(first)
        turn = self.turn
        data.update(mode="play", you=self.player, turn=turn, refusal=self.refusal if turn else None,
                    refused=self.refused)
        if data["result"] is not None and request.query_params.get("ack") == "result":
            self.result_seen = True
        return JSONResponse(data)

    async def _decide(self, request):
        from starlette.responses import JSONResponse

        try:
            body = await request.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            return JSONResponse({"ok": False, "error": "expected JSON {\"decision\": TEXT}"}, status_code=400)
        step = body.get("step")
        if step is not None and (isinstance(step, bool) or not isinstance(step, int)):
            return JSONResponse({"ok": False, "error": "step must be the number of the step answered"},
                                status_code=400)
        if body.get("resign") is True:  # not any truthy value: {"resign": "no"} is no resignation
            answer = ("resign", "")
        else:
            text = body.get("decision")
            error = decision_error(text, "decision" in body)
            if error:
                return JSONResponse({"ok": False, "error": error}, status_code=400)
            answer = ("decision", text[:1000])
        error = self._take(answer, step)
        if error:
            return JSONResponse({"ok": False, "error": error}, status_code=409)
        return JSONResponse({"ok": True})

    def _take(self, answer: tuple[str, str], step: int | None) -> str | None:
        """Hand ``answer`` to the turn being asked, or say why not.

        One answer per turn: two tabs, or a request the browser sent again,
        could each send one in the same turn, and both were queued; the first
        was played and the second kept, to be played at the seat's next turn
        without the page offering it (a resignation too).  Now the first is
        taken and any other is refused until it is judged (and, if refused,
        the page sends again); what the turn did not use is dropped when it
        ends.  ``step``, when the request names it (the page does), must be
        the step asked: an answer to a turn that is over is refused too."""
        with self.ready:
            turn = self.turn
            if turn is None:
                return "it is not your move"
            if step is not None and step != turn["step"]:
                return f"step {step} is not the step being asked (step {turn['step']})"
            if self.judging:
                return f"an answer to step {turn['step']} was already sent; only the first counts"
            self.answer, self.judging = answer, True
            self.ready.notify()
        return None


JSON_KINDS = {bool: "true or false", int: "a number", float: "a number", list: "a list",
              dict: "an object", type(None): "null"}


def decision_error(text: Any, given: bool) -> str | None:
    """Why the ``decision`` of a request to /api/decide cannot be judged, or
    None: a number or a list was called "empty decision", which it is not."""
    if not given:
        return "expected JSON {\"decision\": TEXT} or {\"resign\": true}"
    if not isinstance(text, str):
        return f"the decision must be text (a JSON string), not {JSON_KINDS.get(type(text), 'that')}"
    if not text.strip():
        return "empty decision"
    return None


def page_html(game: str, mode: str, you: int | None) -> str:
    """The live page for ``game``: ``play`` (a seat's) or ``watch``."""
    module = scene_module(game)
    draw = script_text(module) if module is not None else ""
    play = script_text(module, "PLAY_SCRIPT") if module is not None and mode == "play" else ""
    return server.page(
        "live.html.j2", mode=mode, you=you or 0, game_js=assets.script(draw),
        play_js=assets.static("play_common.js") + assets.script(play) if play else "",
        live_js=assets.static("live.js"))
