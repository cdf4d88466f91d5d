"""The turn structure shared by two-player games in which the players
alternate, a player who cannot move must pass, and the first to score
``win_score`` points wins.  The game is drawn on a threefold repetition, at
the ply cap, or when neither player can move.

A game's state subclasses :class:`AlternatingState` as a frozen dataclass,
adds its board and its score tally as fields, and keeps what is really its
own: generating moves, checking one, making one, and the board part of the
position key.  The base does the passing, the turn and ply counting, the
repetition history and the end of the game, the same way for every game.
"""
from __future__ import annotations

import abc
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, ClassVar, Hashable, Sequence

from .game import Event, GameState, Outcome

PLAYERS = (1, 2)


def other(player: int) -> int:
    return 3 - player


@dataclass(frozen=True, kw_only=True)
class AlternatingState(GameState):
    to_move: int = 1
    ply: int = 0
    ply_cap: int
    # Position keys (board key and mover) since the last point, the current one
    # last.  Points are never lost, so no position from before a point can come
    # back: a point restarts the history.
    seen: tuple[str, ...] = ()

    pass_decision: ClassVar[Hashable]
    pass_refused: ClassVar[str]
    """Why a pass is illegal when the player can move."""
    win_score: ClassVar[int]
    win_reason: ClassVar[str]
    """The outcome's reason, formatted with ``player`` and ``score``."""

    def __post_init__(self) -> None:
        if not self.seen:
            object.__setattr__(self, "seen", (self._key(self.to_move),))

    # ----- what a game provides
    @property
    @abc.abstractmethod
    def tally(self) -> tuple[int, int]:
        """Points of players 1 and 2."""

    @abc.abstractmethod
    def moves_for(self, player: int) -> Sequence[Hashable]:
        """Every move of ``player`` on this board, in a fixed order (no pass)."""

    @abc.abstractmethod
    def board_key(self) -> str:
        """The board's part of the position key for the repetition rule."""

    @abc.abstractmethod
    def move_problem(self, decision: Any) -> str | None:
        """Why ``decision`` (anything but the pass) is not a legal move now, or None."""

    @abc.abstractmethod
    def after_move(self, player: int, move: Any) -> tuple[AlternatingState, list[Event]]:
        """This state with the legal ``move`` made on the board and in the tally
        (see :meth:`point_for`), and the move's events.  The turn, the ply and
        the repetition history are left to :meth:`apply`."""

    def status_line(self) -> str:
        """The last line of a terminal drawing: how it ended, or who moves."""
        if self.is_terminal():
            return f"game over: {self.outcome().reason}"
        return f"player {self.to_move} to move"

    def point_for(self, player: int) -> tuple[int, int]:
        """The tally after ``player`` scores a point."""
        return tuple(n + (p == player) for p, n in zip(PLAYERS, self.tally))

    # ----- queries
    def _key(self, to_move: int) -> str:
        return f"{self.board_key()}:{to_move}"

    @cached_property
    def _moves(self) -> Sequence[Hashable]:
        return self.moves_for(self.to_move)

    def current_player(self) -> int | None:
        return None if self.is_terminal() else self.to_move

    def legal_decisions(self) -> list[Hashable]:
        if self.is_terminal():
            return []
        return list(self._moves) or [self.pass_decision]

    def auto_decision(self) -> Hashable | None:
        return self.pass_decision if not self.is_terminal() and not self._moves else None

    def illegal_reason(self, decision: Any) -> str | None:
        if self.is_terminal():
            return "the game is over"
        if decision == self.pass_decision:
            return None if not self._moves else self.pass_refused
        return self.move_problem(decision)

    # ----- apply
    def apply(self, player: int, decision: Any) -> tuple[AlternatingState, list[Event]]:
        if player != self.current_player():
            raise ValueError(f"player {player} is not to move")
        problem = self.illegal_reason(decision)
        if problem:
            raise ValueError(f"illegal decision {decision}: {problem}")
        if decision == self.pass_decision:
            moved, events = self, [{"type": "pass", "player": player}]
        else:
            moved, events = self.after_move(player, decision)
        history = self.seen if moved.tally == self.tally else ()
        mover = other(player)
        state = replace(moved, to_move=mover, ply=self.ply + 1,
                        seen=history + (moved._key(mover),))
        if state.is_terminal():
            events.append({"type": "end", "reason": state.outcome().reason})
        return state, events

    # ----- end
    def is_terminal(self) -> bool:
        return self._end is not None

    @cached_property
    def _end(self) -> Outcome | None:
        scores = self.scores()
        for player in PLAYERS:
            if self.tally[player - 1] >= self.win_score:
                return Outcome(player, ((player,), (other(player),)), scores,
                               self.win_reason.format(player=player, score=self.win_score))
        if self.seen.count(self.seen[-1]) >= 3:
            reason = "threefold repetition"
        elif self.ply >= self.ply_cap:
            reason = f"ply cap ({self.ply_cap}) reached"
        elif not self._moves and not self.moves_for(other(self.to_move)):
            reason = "neither player can move"
        else:
            return None
        return Outcome(None, (PLAYERS,), scores, reason)

    def outcome(self) -> Outcome:
        if self._end is None:
            raise ValueError("the game is not over")
        return self._end

    def scores(self) -> dict[int, float]:
        return dict(zip(PLAYERS, self.tally))
