"""What a person sees while a match runs: the board after every step, the
verdicts, the result.  Kept apart from the match loop, which only reports to
an observer."""
from __future__ import annotations

import sys
from typing import Any, TextIO

from referee.core.game import GameState
from referee.core.match import MatchResult, Observer, Prepared


def format_event(event: dict[str, Any]) -> str:
    details = ", ".join(f"{k}={v}" for k, v in event.items() if k != "type")
    return f"{event.get('type', '?')}" + (f" ({details})" if details else "")


def format_step(record: dict[str, Any], names: list[str]) -> str:
    player = record["player"]
    decision = record.get("applied") or (record.get("decision") or "").strip() or "-"
    parts = [f"step {record['step']:>3}", f"player {player} ({names[player - 1]})",
             f"{decision}", record["verdict"]]
    if record.get("auto"):
        parts[-1] += " (automatic)"
    if record.get("wall_ms"):
        parts.append(f"{record['wall_ms']:.0f} ms")
    line = "  ".join(parts)
    if record.get("message"):
        line += f"\n    {record['message']}"
        if record.get("fault"):
            line += f"  -> {record['fault']}"
    events = [format_event(e) for e in record.get("events") or []]
    if events:
        line += "\n    " + "; ".join(events)
    return line


def format_result(result: MatchResult, names: list[str]) -> str:
    outcome = result.outcome
    if outcome.winner is not None:
        head = f"player {outcome.winner} ({names[outcome.winner - 1]}) wins"
    else:
        head = "draw" if len(outcome.ranking) <= 1 else "no single winner"
    lines = [f"result: {head}: {outcome.reason} after {result.steps} steps"]
    for pid, counts in result.verdicts.items():
        faults = {k: v for k, v in counts.items() if v and k != "OK"}
        if faults:
            lines.append(f"  player {pid}: " + ", ".join(f"{k} {v}" for k, v in faults.items()))
    lines.append(f"match folder: {result.out}")
    return "\n".join(lines)


class ConsoleObserver(Observer):
    """Prints progress; ``boards`` draws the board after every step."""

    def __init__(self, boards: bool = True, color: bool = False, out: TextIO | None = None) -> None:
        self.boards = boards
        self.color = color
        self.out = out or sys.stdout

    def start(self, match: Prepared, state: GameState) -> None:
        seats = ", ".join(f"player {i} = {n}" for i, n in enumerate(match.names, start=1))
        print(f"{match.game.title}: {seats} (seed {match.seed}, board {match.board_source})", file=self.out)
        if self.boards:
            print(match.game.render(state, None, self.color), file=self.out)

    def step(self, match: Prepared, record: dict[str, Any], state: GameState) -> None:
        print(format_step(record, match.names), file=self.out)
        if self.boards:
            print(match.game.render(state, None, self.color), file=self.out)
        self.out.flush()

    def finish(self, match: Prepared, result: MatchResult) -> None:
        print(format_result(result, match.names), file=self.out)
