"""What a tournament remembers: one record per finished game, appended to
``journal.jsonl`` in the output folder.

Each record is one line written with a single ``write`` and fsync'd before the
next game is counted (the runner writes it once the games that follow are
started, so that the fsync does not hold them up), so killing the tournament at
any moment loses at most the games in progress and those that just ended; a
line torn by the kill is cut off when the journal is opened again.  Standings and bracket decisions are computed from these records
alone, so a resumed tournament reaches the same results.
"""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from referee.core.errors import InputError
from referee.core.numbers import shown_value
from referee.core.visible import visible

JOURNAL = "journal.jsonl"


@dataclass(frozen=True)
class GameJob:
    """One game to play: ``seats`` are entrant indices in seat order
    (player 1 first); ``board`` indexes the board suite."""

    key: str
    table: str
    seats: tuple[int, ...]
    board: int
    seed: int
    extra: bool = False


@dataclass(frozen=True)
class GameRecord:
    """A finished game, as the match folder's result.yaml reported it
    (player ids are seats, 1-based)."""

    key: str
    table: str
    seats: tuple[int, ...]
    board: int
    seed: int
    extra: bool
    winner: int | None
    ranking: tuple[tuple[int, ...], ...]
    scores: dict[int, float] | None
    reason: str
    verdicts: dict[int, dict[str, int]]
    steps: int
    folder: str  # relative to the tournament's output folder
    seconds: float = field(default=0.0, compare=False)

    @classmethod
    def from_result(cls, job: GameJob, result: dict[str, Any], folder: str,
                    seconds: float) -> "GameRecord":
        """``result`` has result.yaml's keys (winner, ranking, scores, reason,
        verdicts, steps); JSON and YAML both turn player ids into strings or
        ints, so ids are normalised here."""
        scores = result.get("scores")
        return cls(
            key=job.key, table=job.table, seats=tuple(job.seats), board=job.board,
            seed=job.seed, extra=job.extra, winner=result.get("winner"),
            ranking=tuple(tuple(int(p) for p in group) for group in result.get("ranking") or ()),
            scores=None if scores is None else {int(k): float(v) for k, v in scores.items()},
            reason=str(result.get("reason", "")),
            verdicts={int(k): {str(v): int(n) for v, n in counts.items()}
                      for k, counts in (result.get("verdicts") or {}).items()},
            steps=int(result.get("steps", 0)), folder=folder, seconds=seconds)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["scores"] = None if self.scores is None else {str(k): v for k, v in self.scores.items()}
        data["verdicts"] = {str(k): v for k, v in self.verdicts.items()}
        return data

    @classmethod
    def from_json(cls, data: Any) -> "GameRecord":
        """A journal line's record; ValueError saying what is wrong if it is
        not one.  The journal is a file anyone who can write the output
        folder can append to (a player without the sandbox): every key and
        type is checked here, so nothing later trips on a record of the wrong
        shape (its game is played again instead)."""
        if not isinstance(data, dict):
            raise ValueError(f"expected a JSON object, got {_shown(data)}")
        for name, check, what in _FIELDS:
            if name not in data:
                if name == "seconds":
                    continue
                raise ValueError(f"{name!r} is missing")
            if not check(data[name]):
                raise ValueError(f"{name!r} must be {what}, got {_shown(data[name])}")
        job = GameJob(data["key"], data["table"], tuple(data["seats"]), data["board"],
                      data["seed"], data["extra"])
        return cls.from_result(job, data, data["folder"], data.get("seconds", 0.0))

    # ----- per-entrant views
    def seat_of(self, entrant: int) -> int:
        return self.seats.index(entrant) + 1

    def points(self, entrant: int) -> float:
        """1 for beating everyone, 0 for losing to everyone, half a point per
        tie: win 1 / draw 0.5 / loss 0 in a two-player game, and the same
        scale whatever the number of players."""
        seat, others = self.seat_of(entrant), len(self.seats) - 1
        below = tied = 0
        for i, group in enumerate(self.ranking):
            if seat in group:
                tied = len(group) - 1
                below = sum(len(g) for g in self.ranking[i + 1:])
                break
        return (below + 0.5 * tied) / others

    def result_of(self, entrant: int) -> str:
        """"win" (the single winner), "draw" (shares the top), or "loss"."""
        seat = self.seat_of(entrant)
        if self.winner is not None:
            return "win" if int(self.winner) == seat else "loss"
        return "draw" if self.ranking and seat in self.ranking[0] else "loss"

    def score(self, entrant: int) -> float:
        """The entrant's in-game score (0 for games without scores)."""
        return 0.0 if self.scores is None else self.scores.get(self.seat_of(entrant), 0.0)

    def verdict_counts(self, entrant: int) -> dict[str, int]:
        return self.verdicts.get(self.seat_of(entrant), {})


class Journal:
    """The append-only record file of one tournament."""

    def __init__(self, folder: Path) -> None:
        self.path = Path(folder) / JOURNAL

    def load(self, warn: Callable[[str], None] | None = None) -> list[GameRecord]:
        """Every complete record; a torn last line (a kill mid-write) is cut
        off the file so the next append starts on a fresh line.  A line that
        is not a record counts for nothing, and ``warn`` is told (``file:line:
        what is wrong``): without the sandbox a player can append to this
        file, and its line must neither stop a resume nor hide the games
        recorded around it.  The line stays in the file (it is evidence).

        A game recorded twice counts once, and ``warn`` names the line that
        does not count (it did not): a copy of an earlier line is that copy;
        a different record of the game supersedes the earlier one, which is
        what the runner writes when a record was not trusted and its game
        was played again (the later one is then the game's folder's)."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return []
        end = data.rfind(b"\n") + 1
        if end < len(data):
            with open(self.path, "r+b") as f:
                f.truncate(end)
                os.fsync(f.fileno())
        records: dict[str, tuple[int, GameRecord]] = {}  # key: (its line, its record)
        problems: list[tuple[int, str]] = []  # (line, what is wrong), told in line order
        for number, line in enumerate(data[:end].split(b"\n")[:-1], 1):
            if not line.strip():
                continue
            try:
                record = GameRecord.from_json(_parsed(line))
            except ValueError as exc:
                problems.append((number, f"{exc}; the game it records, if any, is played again"))
                continue
            if record.key in records:
                first, earlier = records[record.key]
                key = visible(record.key, lines=False)
                if record == earlier:
                    problems.append((number, f"a copy of line {first} (game {key} counts once)"))
                    continue
                problems.append((first, f"game {key} is recorded again at line {number}, "
                                        "and the later record counts"))
            records[record.key] = (number, record)
        if warn is not None:
            for number, problem in sorted(problems):
                warn(str(InputError(f"not counted: {problem}", str(self.path), number)))
        return [record for _, record in records.values()]

    def append(self, record: GameRecord) -> None:
        line = (json.dumps(record.to_json(), separators=(",", ":")) + "\n").encode()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)


def _parsed(line: bytes) -> Any:
    """A journal line's JSON; ValueError, in words for a warning, if it has none."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text (byte 0x{line[exc.start]:02x} at column {exc.start + 1})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg} at column {exc.colno})") from None
    except (ValueError, RecursionError) as exc:  # an integer past Python's digit limit; deep nesting
        raise ValueError(f"not JSON that can be read ({visible(str(exc), lines=False)[:100]})") from None


def _shown(value: Any) -> str:
    return visible(shown_value(value), lines=False)


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _seat(value: Any) -> bool:
    """A player id as JSON keys it: a string of ASCII digits."""
    return isinstance(value, str) and value.isascii() and value.isdigit()


def _ints(value: Any) -> bool:
    return isinstance(value, list) and all(_int(v) for v in value)


_FIELDS: tuple[tuple[str, Callable[[Any], bool], str], ...] = (
    ("key", lambda v: isinstance(v, str), "a string"),
    ("table", lambda v: isinstance(v, str), "a string"),
    ("seats", _ints, "a list of integers"),
    ("board", _int, "an integer"),
    ("seed", _int, "an integer"),
    ("extra", lambda v: isinstance(v, bool), "true or false"),
    ("winner", lambda v: v is None or _int(v), "an integer or null"),
    ("ranking", lambda v: isinstance(v, list) and all(_ints(g) for g in v), "a list of lists of integers"),
    ("scores", lambda v: v is None or (isinstance(v, dict) and all(_seat(k) and _number(n) for k, n in v.items())),
     "null or an object of player ids and numbers"),
    ("reason", lambda v: isinstance(v, str), "a string"),
    ("verdicts", lambda v: isinstance(v, dict) and all(
        _seat(k) and isinstance(c, dict) and all(isinstance(n, str) and _int(m) for n, m in c.items())
        for k, c in v.items()), "an object of player ids and verdict counts"),
    ("steps", _int, "an integer"),
    ("folder", lambda v: isinstance(v, str), "a string"),
    ("seconds", _number, "a number"),
)
"""Each key of a journal line, the test its value must pass, and what that is in words."""
