"""``referee watch DIR``: a live page of a match or a tournament (or series)
while the referee writes it.

A match folder (it has ``match.yaml``) is shown as the replay page that
follows new steps; any other folder as the list of the match folders under
it, each with its players, steps so far and result as games finish, linked to
its own live page, and the tournament's report and replay pages once they are
written.  While no match folder is found, the page and the terminal say so
(``watch`` may start before the match it is to show).  Read-only: the server
only reads DIR (the same local server and token as ``--player human:web``)."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import yaml

from referee.core.errors import InputError

from . import server
from .live import LiveFolder
from .replay_page import Worded
from .seat import page_html

DEPTH = 3  # how deep under DIR match folders are looked for (tournament: games/<key>/)


def match_folders(root: Path) -> list[Path]:
    """The match folders under ``root`` (``root`` itself if it is one)."""
    if (root / "match.yaml").is_file():
        return [root]
    found: list[Path] = []
    level = [root]
    for _ in range(DEPTH):
        nxt = []
        for folder in level:
            try:
                children = sorted(p for p in folder.iterdir() if p.is_dir() and not p.is_symlink())
            except OSError:
                continue
            for child in children:
                if (child / "match.yaml").is_file():
                    found.append(child)
                elif child.name not in ("players", "step_logs"):
                    nxt.append(child)
        level = nxt
    return found


def _steps(folder: Path) -> int:
    try:
        with open(folder / "log.jsonl", "rb") as f:
            return sum(1 for line in f if line.endswith(b"\n"))
    except OSError:
        return 0


def _yaml(path: Path) -> dict[str, Any] | None:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) else None


def nothing_yet(root: Path) -> str:
    """What the index says, and ``watch`` prints at its start, while no match
    folder is found under ``root``: the page waits for one (``watch`` may
    start before ``play --out DIR``), but a student who named the wrong
    folder must be told, not shown an empty table."""
    return (f"no match, series or tournament found in {root} yet; the page shows one once it starts "
            f"there (a match folder holds match.yaml; a tournament's or series' folder, its games/)")


def game_row(root: Path, folder: Path) -> dict[str, Any]:
    """One line of the index: what a TA wants to see of a game at a glance."""
    match = _yaml(folder / "match.yaml") or {}
    result = _yaml(folder / "result.yaml")
    names = [str(p.get("name", f"player {i}")) for i, p in enumerate(match.get("players") or [], 1)
             if isinstance(p, dict)]
    row: dict[str, Any] = {"folder": folder.relative_to(root).as_posix() if folder != root else ".",
                           "game": match.get("game"), "players": names, "steps": _steps(folder),
                           "finished": result is not None, "replay": (folder / "replay.html").is_file()}
    if result is not None:
        winner = result.get("winner")
        worded = (Worded().add(f"p{winner} ").name(names[winner - 1]).add(" wins")
                  if isinstance(winner, int) and 0 < winner <= len(names) else Worded().add("draw / no single winner"))
        row["result"], row["result_parts"] = worded.text, worded.parts  # the parts: the name apart, isolated
        row["reason"] = str(result.get("reason", ""))
    return row


class Watch:
    """The server of one ``referee watch``."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        if not self.root.is_dir():
            raise InputError("no such folder" if not self.root.exists() else "is a file, not a folder"
                             if self.root.is_file() else "is not a folder", str(root))
        self.lives: dict[str, LiveFolder] = {}
        from starlette.routing import Route

        self.server = server.LocalServer([
            Route("/", self._page), Route("/api/live", self._live), Route("/api/games", self._games),
            Route("/file/{path:path}", self._file),
        ])

    def _folder(self, relative: str) -> Path | None:
        path = server.within(self.root, relative or ".")
        return path if path is not None and (path / "match.yaml").is_file() else None

    async def _page(self, request):
        from starlette.responses import HTMLResponse

        wanted = request.query_params.get("match")
        folder = self._folder(wanted) if wanted else (self.root if (self.root / "match.yaml").is_file() else None)
        if folder is not None:
            live = self._live_for(folder)
            live.poll()
            if live.replay is None:
                return HTMLResponse(f"cannot show {folder}: {live.problem or 'not readable yet'}", status_code=404)
            return HTMLResponse(page_html(live.replay.game.name, "watch", None))
        return HTMLResponse(server.page("watch_index.html.j2", folder=str(self.root),
                                        index_js=_INDEX_JS))

    def _live_for(self, folder: Path) -> LiveFolder:
        key = str(folder)
        if key not in self.lives:
            self.lives[key] = LiveFolder(folder)
        return self.lives[key]

    async def _live(self, request):
        from starlette.responses import JSONResponse

        wanted = request.query_params.get("match")
        folder = self._folder(wanted) if wanted else self.root
        if folder is None or not (folder / "match.yaml").is_file():
            return JSONResponse({"head": None, "first": 0, "frames": [], "result": None,
                                 "problem": "no match folder here yet", "started": False, "mode": "watch"})
        try:
            first = max(0, int(request.query_params.get("since", "0")))
        except ValueError:
            first = 0
        data = self._live_for(folder).since(first)
        data["mode"] = "watch"
        return JSONResponse(data)

    async def _games(self, request):
        from starlette.responses import JSONResponse

        rows = [game_row(self.root, f) for f in match_folders(self.root)]
        return JSONResponse({"games": rows, "report": (self.root / "report.html").is_file(),
                             "finished": sum(r["finished"] for r in rows),
                             "note": None if rows else nothing_yet(self.root)})

    async def _file(self, request):
        from starlette.responses import FileResponse, PlainTextResponse

        path = server.within(self.root, request.path_params["path"])
        if path is None or not path.is_file() or path.suffix not in (".html", ".txt", ".csv", ".md", ".yaml"):
            return PlainTextResponse("not found", status_code=404)
        return FileResponse(path)

    def serve(self, open_browser: bool) -> None:
        """Serve until Ctrl-C."""
        self.server.announce(f"watching {self.root} at", open_browser)
        if not match_folders(self.root):
            print(nothing_yet(self.root), flush=True)
        try:
            while True:
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            self.server.close()


_INDEX_JS = r"""
"use strict";
(function () {
  var R = window.Referee, params = new URLSearchParams(location.search), token = params.get("token") || "";
  var body = document.getElementById("games-body");
  function link(href, text, parent) {
    var a = R.html("a", {href: href}, text, parent);
    return a;
  }
  function draw(data) {
    if (data.games.length === 1 && data.games[0].folder === ".") {  /* DIR became a match folder: follow it */
      location.replace("/?token=" + encodeURIComponent(token) + "&match=.");
      return;
    }
    body.textContent = "";
    data.games.forEach(function (g) {
      var tr = R.html("tr", {"data-folder": g.folder, "data-finished": g.finished ? "1" : "0"}, null, body);
      link("/?token=" + encodeURIComponent(token) + "&match=" + encodeURIComponent(g.folder), g.folder, R.html("td", null, null, tr));
      R.html("td", null, g.game || "", tr);
      var players = [""];  /* each name in a <bdi> (Referee.withNames) */
      g.players.forEach(function (n, i) { players.push(n, i < g.players.length - 1 ? " vs " : ""); });
      R.withNames(players, R.html("td", null, null, tr));
      R.html("td", {"class": "num"}, g.steps, tr);
      var result = R.html("td", {"class": g.finished ? "" : "muted"}, g.finished ? null : "playing…", tr);
      if (g.finished) {
        var said = g.result_parts.slice();
        said[said.length - 1] += ": " + g.reason;
        R.withNames(said, result);
      }
      var rep = R.html("td", null, null, tr);
      if (g.replay) link("/file/" + g.folder + "/replay.html?token=" + encodeURIComponent(token), "replay", rep);
    });
    var rep = document.getElementById("report");
    rep.textContent = data.note ? data.note.charAt(0).toUpperCase() + data.note.slice(1) + "."
                                : data.games.length + " game(s), " + data.finished + " finished. ";
    if (data.report) link("/file/report.html?token=" + encodeURIComponent(token), "tournament report", rep);
    document.body.setAttribute("data-games", data.games.length);
    document.body.setAttribute("data-finished-games", data.finished);
  }
  function poll() {
    fetch("/api/games?token=" + encodeURIComponent(token)).then(function (r) { return r.json(); })
      .then(draw).catch(function () {}).then(function () { setTimeout(poll, 1000); });
  }
  poll();
})();
"""
