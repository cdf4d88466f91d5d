"""The tournament's ``report.html``: standings (with verdict counts and
ratings when the standings carry them), a coloured cross-table of who beat
whom, the bracket for elimination formats, and every game linked to its replay
page, written beside it in the game's folder.

Pure presentation over what the tournament already computed (config, format,
plan, journal records, standings): nothing here decides a result."""
from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from referee.core import files
from referee.tournament.formats import BYE
from referee.core.visible import visible
from referee.replay import load, write_html

from . import assets

REPLAY_NAME = "replay.html"
VERDICT_ORDER = ("LATE", "MALFORMED", "NO_DECISION", "ILLEGAL", "TIMEOUT", "CPU_LIMIT",
                 "MEMORY_LIMIT", "DISK_LIMIT", "CRASH", "RESIGNED")


@dataclass
class Pairing:
    """The row entrant's results against the column entrant, over every game
    both sat at (a multi-player table counts who finished ahead of whom)."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    games: list[Any] = field(default_factory=list)

    @property
    def tone(self) -> str:
        if not self.games:
            return "none"
        if self.wins > self.losses:
            return "ahead"
        return "behind" if self.losses > self.wins else "even"


def rank_of(record, seat: int) -> int:
    for i, group in enumerate(record.ranking):
        if seat in group:
            return i
    return len(record.ranking)


def cross_table(records: Sequence[Any], entrants: int) -> list[list[Pairing]]:
    grid = [[Pairing() for _ in range(entrants)] for _ in range(entrants)]
    for record in records:
        for a_seat, a in enumerate(record.seats, 1):
            for b_seat, b in enumerate(record.seats, 1):
                if a == b:
                    continue
                cell = grid[a][b]
                ra, rb = rank_of(record, a_seat), rank_of(record, b_seat)
                cell.wins += ra < rb
                cell.losses += ra > rb
                cell.draws += ra == rb
                cell.games.append(record)
    return grid


def _number(value: Any) -> str:
    if value is None:
        return ""
    value = float(value)
    return str(int(value)) if value == int(value) else f"{value:.4g}"


def standings_rows(rows: Sequence[Any]) -> tuple[list[dict[str, Any]], list[str], bool]:
    """Rows for the template, the verdict columns worth showing (any count),
    and whether ratings are there to show."""
    faults = [v for v in VERDICT_ORDER if any(r.verdicts.get(v, 0) for r in rows)]
    rated = any(getattr(r, "rating", None) is not None for r in rows)
    out = []
    for r in rows:
        rating = getattr(r, "rating", None)
        low, high = getattr(r, "rating_low", None), getattr(r, "rating_high", None)
        out.append({
            "place": r.place, "name": r.name, "seed": r.seed, "games": r.games, "wins": r.wins,
            "draws": r.draws, "losses": r.losses, "points": _number(r.points), "score": _number(r.score),
            "verdicts": [(v, r.verdicts.get(v, 0)) for v in faults],
            "faulty": sum(r.verdicts.get(v, 0) for v in VERDICT_ORDER if v != "LATE"),
            "rating": None if rating is None else f"{rating:.0f}",
            "interval": None if low is None or high is None else f"{low:.0f} – {high:.0f}",
            "entrant": r.entrant,
        })
    return out, faults, rated


def bracket_columns(fmt, plan, names: Sequence[str], records: Sequence[Any]) -> list[dict[str, Any]] | None:
    """Sections (rounds) in bracket order, each with its matches' two sides,
    the winner and the table's games; None for formats without a bracket."""
    matches = getattr(fmt, "matches", None)
    if not matches or not hasattr(fmt, "sides"):
        return None
    done = {t: d.winner for t, d in plan.decisions.items()}
    sides = fmt.sides(done)
    seed_of = {e: i + 1 for i, e in enumerate(fmt.seeded)}
    by_table: dict[str, list[Any]] = {}
    for record in records:
        by_table.setdefault(record.table, []).append(record)

    def side(entrant: int | None) -> dict[str, Any]:
        if entrant is None:
            return {"label": "?", "kind": "unknown", "entrant": None, "seed": None}
        if entrant == BYE:
            return {"label": "bye", "kind": "bye", "entrant": None, "seed": None}
        return {"label": names[entrant], "seed": seed_of.get(entrant), "kind": "entrant", "entrant": entrant}

    columns: list[dict[str, Any]] = []
    for match in matches:
        a, b = sides[match.id]
        if a == b == BYE:
            continue
        if match.reset and match.id not in done and match.id not in by_table:
            continue
        winner = done.get(match.id)
        if BYE in (a, b) and a is not None and b is not None:
            winner = b if a == BYE else a
        if not columns or columns[-1]["section"] != match.section:
            part = "losers" if match.section.startswith("Losers") else (
                "final" if match.section.startswith("Grand") else "winners")
            columns.append({"section": match.section, "part": part, "matches": []})
        columns[-1]["matches"].append({
            "id": match.id, "sides": [side(a), side(b)], "winner": winner,
            "walkover": BYE in (a, b), "games": by_table.get(match.id, []),
        })
    return columns


def result_parts(record, names: Sequence[str]) -> list[str]:
    """The Games table's result (``alice wins 12:9``, as games.csv words it)
    as ``[text, name, text, ...]``, so the page can isolate each name: the
    text is worded with marks in place of the names, then split at them (the
    names themselves may hold anything)."""
    from referee.tournament.report import result_text  # it imports this module

    marks = [f"\ue000{i}\ue001" for i in range(len(names))]
    parts = re.split("\ue000(\\d+)\ue001", result_text(record, marks))
    return [names[int(part)] if i % 2 else part for i, part in enumerate(parts)]


def write_replays(out: Path, records: Sequence[Any]) -> dict[str, Any]:
    """The replay page of every game, written anew each time (atomically:
    whatever sits at its name, a page or link a player planted in its game
    folder included, is replaced, never trusted).  Returns what it did, for
    the report's footer and its links: only a page written here is linked;
    a game whose log cannot be replayed gets no page and a note, never a
    failed report."""
    written, failed, started = [], {}, time.perf_counter()
    for record in records:
        folder = out / record.folder
        if not folder.is_dir():
            continue
        try:
            write_html(load(folder), folder / REPLAY_NAME)
            written.append(record.key)
        except Exception as exc:  # one damaged game must not cost the whole report
            failed[record.key] = f"{type(exc).__name__}: {visible(str(exc), lines=False)}"
            print(f"referee: warning: no replay page for {visible(record.key)}: "
                  f"{visible(str(exc), lines=False)}", file=sys.stderr)
    return {"written": len(written), "pages": set(written), "failed": failed,
            "seconds": time.perf_counter() - started}


def render(config, fmt, plan, records: Sequence[Any], rows: Sequence[Any], out: Path,
           replays: dict[str, Any] | None = None) -> str:
    names = config.names
    pages = (replays or {}).get("pages", set())
    standing_rows, faults, rated = standings_rows(rows)
    order = [r.entrant for r in rows]
    grid = cross_table(records, len(names))
    from referee.tournament.report import board_name  # it imports this module

    games = [{
        "key": r.key, "table": r.table, "board": board_name(config, r.board),
        "players": [names[e] for e in r.seats], "result": result_parts(r, names),
        "reason": r.reason, "steps": r.steps, "folder": r.folder,
        "replay": f"{r.folder}/{REPLAY_NAME}" if r.key in pages else None,
        "faults": sum(n for counts in r.verdicts.values() for v, n in counts.items()
                      if v not in ("OK", "LATE")),
    } for r in records]
    links = {g["key"]: g["replay"] or f"{g['folder']}/" for g in games}
    state = "finished" if plan.finished else f"unfinished: {len(records)} of about {plan.expected_games} games"
    context = {
        "title": f"Tournament {config.path.stem}",
        "game": config.game, "format": config.format.replace("_", " "),
        "entrants": len(names), "boards": len(config.boards), "seed": config.seed, "state": state,
        "standings": standing_rows, "faults": faults, "rated": rated,
        "order": order, "names": names, "grid": grid, "links": links,
        "bracket": bracket_columns(fmt, plan, names, records),
        "games": games, "replays": replays or {"written": 0, "failed": {}, "seconds": 0.0},
        "css": assets.static("report.css"),
    }
    return assets.environment().get_template("report.html.j2").render(**context)


def write(out: Path, config, fmt, plan, records: Sequence[Any], rows: Sequence[Any]) -> None:
    replays = write_replays(out, records)
    files.write_text(out / "report.html", render(config, fmt, plan, records, rows, out, replays))
