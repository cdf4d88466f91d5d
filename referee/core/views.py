"""What one seat sees before one step: the files of its private folder.

Pure functions of the match's facts, so the match loop, ``referee rerun`` (a
seat's folder rebuilt as it was at step K) and the tests all build the very
same bytes.  Writing them safely is :mod:`referee.core.seatfiles`' job."""
from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from .game import Game, GameState
from .rng import derived_rng
from .runner import Limits


@dataclass(frozen=True)
class MatchFacts:
    """The parts of a match that every view repeats."""

    game: Game
    variant: str
    seed: int
    names: Sequence[str]
    limits: Limits


@functools.lru_cache(maxsize=256)  # written into every state.json: 20 us each time otherwise
def player_seed(seed: int, player: int) -> int:
    """The per-player seed in state.json: derived, so a player cannot rebuild
    a hidden pile from it."""
    return derived_rng(seed, "player-seed", player).randrange(2**31)


_ENCODE = json.JSONEncoder(separators=(",", ":")).encode


class History:
    """The decisions applied so far, as ``state.json`` lists them.  Each
    entry's JSON is made once, as it is added: encoding the whole list again
    at every step cost O(steps), ~90 us a step by step 200."""

    def __init__(self) -> None:
        self._texts: list[str] = []

    def append(self, entry: Mapping[str, Any]) -> None:
        self._texts.append(_ENCODE(entry))

    def json(self) -> str:
        return "[" + ",".join(self._texts) + "]"


def state_view(facts: MatchFacts, state: GameState, step: int, player: int,
               status: Mapping[int, str], history: "History | Sequence[Mapping[str, Any]]",
               extra: Mapping[str, Any] | None = None) -> str:
    """The text of ``state.json``.  ``extra`` adds referee facts (time left)."""
    game = facts.game
    view: dict[str, Any] = {
        "game": game.name,
        "variant": facts.variant,
        "step": step,
        "step_kind": state.step_kind(),
        "you": player,
        "seed": player_seed(facts.seed, player),
        "players": [{"id": pid, "name": facts.names[pid - 1], "status": s}
                    for pid, s in status.items()],
        "scores": scores_json(state),
        "limits": facts.limits.to_json(),
        "history": None,  # its text is spliced in below, as json.dumps would write it
    }
    if extra:
        view.update(extra)
    for key, value in game.view_json(state, player).items():
        view.setdefault(key, value)
    listed = history.json() if isinstance(history, History) else _ENCODE(list(history))
    # Encoded in two parts around the history, each as one object (one
    # encoder call, where one a key cost ~45 us a step); the same text.
    keys = list(view)
    at = keys.index("history")
    before = _ENCODE({key: view[key] for key in keys[:at]})[1:-1]
    after = _ENCODE({key: view[key] for key in keys[at + 1:]})[1:-1]
    return "{" + before + ("," if before else "") + '"history":' + listed + ("," if after else "") + after + "}"


def board_view(facts: MatchFacts, state: GameState, player: int) -> str:
    return facts.game.board_text(state, player)


def snapshot_view(facts: MatchFacts, state: GameState, player: int) -> str:
    """``step_logs/step_<k>.txt`` as this seat may see it."""
    return facts.game.snapshot_text(state, player)


def scores_json(state: GameState) -> dict[str, float] | None:
    scores = state.scores()
    return None if scores is None else {str(k): v for k, v in scores.items()}
