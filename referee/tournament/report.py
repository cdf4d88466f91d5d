"""The tournament's output files, rewritten whole (atomically) when it stops:

- ``standings.csv``: one row per entrant, every verdict column;
- ``standings.md``: standings, the bracket, and every game linked to its
  match folder;
- ``bracket.txt``: the bracket (elimination formats); ``rounds.txt`` for Swiss;
- ``games.csv``: one row per game, for graders' scripts;
- ``report.html``: all of it in a browser, every game linked to its replay
  page (``<game folder>/replay.html``, written here once per game).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

from referee.core import files
from referee.core.visible import visible

from .config import TournamentConfig
from .journal import GameRecord
from .planner import Plan
from .standings import Standing, csv_rows, csv_text, markdown_table, md_fence, md_text


def board_name(config: TournamentConfig, index: int) -> str:
    board = config.boards[index]
    return "default" if board is None else board.name


def result_text(record: GameRecord, names: Sequence[str]) -> str:
    """``alice wins 12:9`` (the winner's score first, whichever seat it had),
    ``draw 10:10``, or a ranking for bigger tables; a game lost by a fault or a
    resignation says so, with the culprit's name (``bob wins: alice forfeited
    (CRASH)``)."""
    def name(seat: int) -> str:
        return names[record.seats[seat - 1]]

    seats = list(range(1, len(record.seats) + 1))
    if len(record.seats) == 2:
        if record.winner is not None:
            head = f"{name(int(record.winner))} wins"
            seats.sort(key=lambda s: s != int(record.winner))
        else:
            head = "draw"
    else:
        head = " > ".join(" = ".join(name(s) for s in group) for group in record.ranking)
        seats = [s for group in record.ranking for s in group] or seats
    scores = ""
    if record.scores is not None:
        scores = " " + ":".join(f"{record.scores.get(s, 0):g}" for s in seats)
    return head + scores + fault_note(record, names)


def fault_note(record: GameRecord, names: Sequence[str]) -> str:
    """``: alice forfeited (CRASH)`` when the reason names a seat that
    forfeited or resigned, with the seat's number turned into its name."""
    match = re.fullmatch(r"player (\d+) (forfeited \(\w+\)|resigned)", record.reason or "")
    if not match or not 1 <= int(match[1]) <= len(record.seats):
        return ""
    return f": {names[record.seats[int(match[1]) - 1]]} {match[2]}"


def bracket(config: TournamentConfig, fmt, plan: Plan) -> str | None:
    """The bracket (or Swiss rounds) as text, for the terminal, bracket.txt
    and standings.md: names shown as ``play`` shows them (:func:`visible`),
    since each of those reaches a terminal (an escape sequence in a name
    retitled it, a line break split a line of the bracket)."""
    winners = {t: d.winner for t, d in plan.decisions.items()}
    notes = {t: f"tie-break: {d.how}" for t, d in plan.decisions.items() if d.how not in ("", "points")}
    names = [visible(name, lines=False) for name in config.names]
    if config.format == "swiss":
        return fmt.bracket_text(winners, names, notes, plan.points)
    return fmt.bracket_text(winners, names, notes)


def games_csv(config: TournamentConfig, records: Sequence[GameRecord]) -> str:
    """One row per game; names as they are (see :func:`csv_rows`)."""
    size = config.table_size
    rows: list[list[object]] = [["game", "table", "board", *(f"player{s}" for s in range(1, size + 1)),
                                 "winner", "result", "reason", "steps", "folder"]]
    for r in records:
        winner = "" if r.winner is None else config.names[r.seats[int(r.winner) - 1]]
        rows.append([r.key, r.table, board_name(config, r.board),
                     *(config.names[e] for e in r.seats), winner,
                     result_text(r, config.names), r.reason, r.steps, r.folder])
    return csv_rows(rows)


def markdown(config: TournamentConfig, rows: Sequence[Standing], bracket_text: str | None,
             records: Sequence[GameRecord], plan: Plan) -> str:
    state = "finished" if plan.finished else f"unfinished: {len(records)} of about {plan.expected_games} games"
    parts = [
        f"# Tournament {md_text(config.path.stem)}\n",
        f"{config.game}, {config.format.replace('_', ' ')}, {len(config.entrants)} entrants, "
        f"{len(config.boards)} board(s), seed {config.seed}: {state}.\n",
        "## Standings\n", markdown_table(rows),
    ]
    if bracket_text:
        heading = "Rounds" if config.format == "swiss" else "Bracket"
        parts += [f"## {heading}\n", md_fence(bracket_text)]
    parts += ["## Games\n", "| game | board | players (seat order) | result | reason | steps |",
              "|---|---|---|---|---|--:|"]
    for r in records:  # every cell plain text, made Markdown by md_text (names are the config's)
        players = ", ".join(config.names[e] for e in r.seats)
        parts.append(f"| [{r.key}]({r.folder}/) | " + " | ".join(md_text(cell) for cell in (
            board_name(config, r.board), players, result_text(r, config.names), r.reason, str(r.steps))) + " |")
    return "\n".join(parts) + "\n"


def write_reports(out: Path, config: TournamentConfig, fmt, plan: Plan,
                  records: Sequence[GameRecord], rows: Sequence[Standing]) -> str | None:
    """Write every output file; returns the bracket text (None for round robin)."""
    order = {table: i for i, table in enumerate(fmt.table_ids())}
    records = sorted(records, key=lambda r: (order[r.table], r.extra, r.board, r.key))
    text = bracket(config, fmt, plan)
    files.write_text(out / "standings.csv", csv_text(rows))
    files.write_text(out / "standings.md", markdown(config, rows, text, records, plan))
    files.write_text(out / "games.csv", games_csv(config, records))
    if text:
        files.write_text(out / ("rounds.txt" if config.format == "swiss" else "bracket.txt"), text)
    from referee.web import report_page  # jinja2 and the page's assets: not for a series' games.csv

    report_page.write(out, config, fmt, plan, records, rows)
    return text
