"""The replay page of one match: header (game, players, seed, board, result),
the board drawn in SVG for every step, the move list with verdict badges, the
selected step's events, message and output, and navigation (slider, buttons,
keys, ``#step=K`` links).

Every frame's state comes from ``referee.replay.frames`` (recomputed from the
start position and the logged decisions), never from the snapshots, so what a
TA sees is what the rules say happened."""
from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from referee.console import plural
from referee.core import files
from referee.replay import frames

from . import assets
from .scenes import scene_module, script_text

RECORD_KEYS = ("step", "player", "kind", "decision", "applied", "verdict", "message", "fault",
               "events", "scores", "wall_ms", "cpu_ms", "peak_kb", "exit", "auto",
               "bank_ms", "grace_ms", "start_ms", "repaired", "stdout", "stderr", "notes")
"""The log keys the page shows; others (added later to the log) are ignored."""

DECISION_CAP = 300
OUTPUT_CAP = 400


def _cap(text: Any, limit: int) -> Any:
    if isinstance(text, str) and len(text) > limit:
        return "…" + text[-limit:]
    return text


def player_rows(match: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for i, p in enumerate(match.get("players") or [], 1):
        command = p.get("command")
        if isinstance(command, list):
            command = shlex.join(str(part) for part in command)
        rows.append({"id": int(p.get("id", i)), "name": str(p.get("name", f"player {i}")),
                     "command": str(command or "")})
    return rows


def board_label(match: dict[str, Any]) -> str:
    board = match.get("board") or {}
    if isinstance(board, dict):
        label = str(board.get("source") or board.get("file") or "<default>")
        if board.get("sha256"):
            label += f" (sha256 {str(board['sha256'])[:12]}…)"
        return label
    return str(board)


class Worded:
    """Text with names in it, kept as ``[text, name, text, ...]`` (names at
    odd places) so that the pages can isolate each name: a name may hold a
    right-to-left override (see assets.isolated).  ``text`` is the plain
    words."""

    def __init__(self) -> None:
        self.parts = [""]

    def add(self, text: str) -> "Worded":
        self.parts[-1] += text
        return self

    def name(self, name: str) -> "Worded":
        self.parts += [name, ""]
        return self

    def seat(self, seat: int, names: dict[int, str]) -> "Worded":
        """'p2 alice' (names alone can repeat: two builtin:random players)."""
        return self.add(f"p{seat} ").name(names[seat]) if seat in names else self.add(f"player {seat}")

    @property
    def text(self) -> str:
        return "".join(self.parts)


def result_summary(result: dict[str, Any] | None, names: dict[int, str]) -> dict[str, Any] | None:
    """The banner: who won (or that it was a draw/tie), why, and the scores."""
    if not result:
        return None
    winner = result.get("winner")
    scores = result.get("scores") or {}
    ranking = [[int(p) for p in group] for group in result.get("ranking") or []]
    headline = Worded()
    if winner is not None:
        headline.seat(int(winner), names).add(" wins")
    elif ranking and len(ranking[0]) > 1:
        headline.add("tie: ")
        for i, p in enumerate(ranking[0]):
            headline.add(", " if i else "").seat(p, names)
    else:
        headline.add("draw")
    return {
        "winner": None if winner is None else int(winner),
        "headline": headline.text,
        "headline_parts": headline.parts,  # its names apart, for the pages to isolate
        "reason": str(result.get("reason", "")),
        "steps": result.get("steps"),
        # "after 1 step": worded as the console words it, for both pages
        "length": None if result.get("steps") is None else f"after {plural(int(result['steps']), 'step')}",
        "ranking": ranking,
        "scores": {str(k): v for k, v in scores.items()},
    }


def frame_record(record: dict[str, Any]) -> dict[str, Any]:
    out = {key: record[key] for key in RECORD_KEYS if key in record}
    out["decision"] = _cap(out.get("decision"), DECISION_CAP)
    for key in ("stdout", "stderr"):
        if key in out:
            out[key] = _cap(out[key], OUTPUT_CAP)
    return out


def page_data_head(replay) -> dict[str, Any]:
    """What a page needs besides the frames: the game, its players, how it
    is drawn (and its drawing's extras), the match's facts."""
    module = scene_module(replay.game.name)
    match = replay.match
    data: dict[str, Any] = {
        "game": replay.game.name,
        "title": replay.game.title,
        "players": player_rows(match),
        "drawing": "svg" if module is not None else "text",
        "match_id": replay.root.name,
        "seed": match.get("seed"),
        "variant": match.get("variant") or "",
        "board": board_label(match),
        "limits": match.get("limits") or {},
    }
    extras = getattr(module, "page_extras", None)
    if extras is not None:
        data["extras"] = extras()
    return data


def page_data(replay) -> dict[str, Any]:
    """Everything the page's script needs, as plain JSON-able data."""
    all_frames = frames(replay)
    module = scene_module(replay.game.name)
    data = page_data_head(replay)
    names = {p["id"]: p["name"] for p in data["players"]}
    out_frames = []
    prev = None
    for record, state in all_frames:
        if module is not None:
            scene = module.scene(prev, record, state)
        else:
            scene = {"text": replay.game.render(state, None, False)}
        out_frames.append({"record": None if record is None else frame_record(record),
                           "scene": scene})
        prev = state
    data.update(result=result_summary(replay.result, names), frames=out_frames,
                logged_steps=len(replay.records))
    return data


def render(replay) -> str:
    data = page_data(replay)
    match = replay.match
    module = scene_module(replay.game.name) if data["drawing"] == "svg" else None
    script = script_text(module) if module is not None else ""
    context = {
        "title": f"{replay.game.title} replay: {replay.root.name}",
        "game_title": replay.game.title,
        "match_id": replay.root.name,
        "variant": match.get("variant") or "",
        "seed": match.get("seed"),
        "board": board_label(match),
        "policy": match.get("policy") or "",
        "players": data["players"],
        "result": data["result"],
        "steps": len(data["frames"]) - 1,
        "logged_steps": data["logged_steps"],
        "referee_version": match.get("referee") or "",
        "css": assets.static("replay.css"),
        "common_js": assets.static("svg.js"),
        "game_js": assets.script(script),
        "replay_js": assets.static("replay.js"),
        "data_json": assets.json_for_script(data),
    }
    return assets.environment().get_template("replay.html.j2").render(**context)


def write(replay, path: Path) -> None:
    files.write_text(Path(path), render(replay))
