"""The contract between the referee core and a game.

The core (match loop, replay, tournament) only ever talks to a game through
these two classes, so it never needs to know a game by name.  The shape follows
OpenSpiel's Python games: a ``Game`` describes the rules and the file formats,
a ``GameState`` is one position.  Unlike OpenSpiel, states are *values*:
``apply`` returns a new state and never touches its input, which is what makes
replay, verification, logging and search safe.

Chance is explicit and reproducible: a state that needs randomness (a shuffled
pile) derives it from ``Setup.seed`` with :func:`referee.core.rng.derived_rng`
and the position it is in, never from global state, so replaying the logged
decisions reproduces every state hash.
"""
from __future__ import annotations

import abc
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Hashable, Mapping, Sequence

if TYPE_CHECKING:  # pathlib is ~10 ms of a built-in player's start-up, which never needs it
    from pathlib import Path

Event = dict[str, Any]
"""Something worth telling a human about a step (points scored, a capture...).

Events are plain JSON-serialisable dicts with at least a ``"type"`` key; they go
into log.jsonl and the replay."""


class DecisionError(ValueError):
    """A decision text could not be parsed; the message says precisely why."""


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended.

    ``ranking`` lists groups of player ids, best first; players in the same
    group tied.  ``winner`` is the single best player, or None for a draw/tie.
    """

    winner: int | None
    ranking: tuple[tuple[int, ...], ...]
    scores: Mapping[int, float] | None
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "ranking": [list(group) for group in self.ranking],
            "scores": None if self.scores is None else {str(k): v for k, v in self.scores.items()},
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Setup:
    """Everything a game needs to build its initial state.

    ``board`` is whatever the game's ``parse_board`` returned (or None for the
    game's embedded default).  ``settings`` holds the game's own settings,
    already merged with its defaults and type-checked by the core.
    """

    variant: str
    players: int
    seed: int
    board: Any = None
    settings: Mapping[str, Any] = field(default_factory=dict)


class GameState(abc.ABC):
    """One position of a game.  Immutable: every method is a pure query,
    ``apply`` and ``eject`` return a new state."""

    @abc.abstractmethod
    def current_player(self) -> int | None:
        """The player (1-based id) who decides now; None once terminal."""

    def step_kind(self) -> str:
        """Which kind of step the current player takes (e.g. "setup", "play")."""
        return "play"

    @abc.abstractmethod
    def legal_decisions(self) -> Sequence[Hashable]:
        """Every legal decision for the current player, in a fixed order."""

    def illegal_reason(self, decision: Hashable) -> str | None:
        """None if ``decision`` is legal now, else a short human reason.

        Games override this to say *why* (e.g. "wall crosses W 3 4 3 6"); the
        default only knows membership in ``legal_decisions``."""
        return None if decision in set(self.legal_decisions()) else "not a legal move here"

    def auto_decision(self) -> Hashable | None:
        """A decision the referee takes on the player's behalf without running
        it (e.g. a forced pass), or None to ask the player."""
        return None

    @abc.abstractmethod
    def apply(self, player: int, decision: Hashable) -> tuple["GameState", list[Event]]:
        """The state after ``player`` made the (legal) ``decision``."""

    def eject(self, player: int) -> tuple["GameState", list[Event]]:
        """The state after ``player`` is removed for a fault (eject policy).

        Games where the game can go on without a player override this; the
        default means "cannot eject", and the core falls back to forfeit."""
        raise NotImplementedError

    def in_game(self) -> Sequence[int] | None:
        """The players the rules still have in the game (Tsuro's markers on
        the board), or None where nobody is out before the end."""
        return None

    @abc.abstractmethod
    def is_terminal(self) -> bool:
        """True once the game is over."""

    @abc.abstractmethod
    def outcome(self) -> Outcome:
        """The result; only meaningful when ``is_terminal()``."""

    def scores(self) -> Mapping[int, float] | None:
        """Running scores by player id, for games that have points."""
        return None

    @abc.abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The full state (hidden information included) as canonical JSON data.

        The core hashes it for log verification, so it must contain everything
        that influences the future of the game and nothing that does not."""


class Game(abc.ABC):
    """A game's rules-level description and its file formats (codecs)."""

    name: ClassVar[str]
    """Short lowercase name used on the command line (``referee play NAME``)."""
    title: ClassVar[str]
    variants: ClassVar[tuple[str, ...]] = ("standard",)
    player_counts: ClassVar[tuple[int, ...]] = (2,)
    settings: ClassVar[Mapping[str, Any]] = {}
    """The game's own settings and their defaults (ply caps...).  The type of
    each default is the type accepted from ``--set KEY=VALUE``."""
    file_settings: ClassVar[tuple[str, ...]] = ()
    """Settings whose value is a file path (e.g. a pre-moves file).  The core
    resolves them against the directory the user gave them from, copies the
    file into the match folder and records that copy, so a replay anywhere
    reads the same file."""
    limits: ClassVar[Mapping[str, float]] = {}
    """Overrides of the core's default limits (e.g. ``{"soft_time": 30}``)."""
    decision_help: ClassVar[str] = ""
    """One line describing the decision file format, shown in error messages."""
    shared_views: ClassVar[bool] = False
    """Whether ``board_text`` and ``snapshot_text`` are the same for every
    viewer (no hidden information): the referee then makes each state's text
    once for all seats and the match folder, where it made one a seat (in
    a two-player Cantris game, four texts a step).  The conformance kit
    checks it."""
    home: ClassVar[str | os.PathLike | None] = None
    """The folder holding the game's own files: ``players/`` (built-in
    players as ``NAME.py``, the student templates ``template.py`` /
    ``template.cpp``), ``boards/`` and ``rules.md``.  A plugin sets it to its
    package folder (``Path(__file__).parent``); None means the referee's own
    layout (``players/<name>/``, ``boards/<name>/``, ``docs/games/<name>.md``),
    which is where the games it ships keep theirs."""

    def files(self, kind: str) -> Path:
        """The game's folder of ``kind``: ``"players"`` or ``"boards"``."""
        from pathlib import Path

        if self.home is not None:
            return Path(self.home) / kind
        from referee import resources

        return resources.resource_dir(kind) / self.name

    def rules_file(self) -> Path:
        """The page that explains the game's rules and file formats."""
        from pathlib import Path

        if self.home is not None:
            return Path(self.home) / "rules.md"
        from referee import resources

        return resources.docs_dir() / "games" / f"{self.name}.md"

    def default_policy(self, players: int) -> str:
        """The fault policy when none is configured."""
        return "forfeit" if players <= 2 else "eject"

    def default_board_text(self, variant: str, players: int) -> str | None:
        """The embedded default board/start file text, or None if the game
        needs no board file."""
        return None

    @abc.abstractmethod
    def parse_board(self, text: str, source: str, variant: str) -> Any:
        """Parse a board/start-position file.

        Raise :class:`referee.core.errors.InputError` naming ``source``, the
        line and column and the problem."""

    def board_warnings(self, board: Any) -> list[str]:
        """Non-fatal remarks on a valid board (shown by ``referee validate``)."""
        return []

    @abc.abstractmethod
    def initial_state(self, setup: Setup) -> GameState:
        """The first state of a match."""

    @abc.abstractmethod
    def parse_decision(self, state: GameState, text: str) -> Hashable:
        """Parse a decision file's text; raise DecisionError with a precise
        message.  Legality is checked separately (``illegal_reason``)."""

    # ----- views and codecs: what each player may see, and how it is written
    @abc.abstractmethod
    def board_text(self, state: GameState, viewer: int | None) -> str:
        """``Board.txt`` as ``viewer`` sees it (None: the full state)."""

    def snapshot_text(self, state: GameState, viewer: int | None) -> str:
        """``step_logs/step_<k>.txt``: the seed's checkerboard snapshot."""
        return self.board_text(state, viewer)

    def view_json(self, state: GameState, viewer: int | None) -> dict[str, Any]:
        """Game-specific part of ``state.json`` for ``viewer`` (hidden
        information removed).  The core adds game, step, you, players,
        scores, limits and history."""
        return state.to_json()

    def render(self, state: GameState, viewer: int | None = None, color: bool = False) -> str:
        """A human-readable drawing for the terminal (play, human, replay)."""
        return self.board_text(state, viewer)

    def player_command(self, spec: str, base_dir: str) -> list[str] | None:
        """Resolve a game-specific player kind (e.g. Quoridor's
        ``module:path/to/player.py``) to a command line, or None if ``spec`` is
        not one of this game's kinds.  ``base_dir`` is the directory relative
        paths in ``spec`` are resolved against."""
        return None

    def player_persistent(self, spec: str) -> bool:
        """Whether a game-specific player kind (see :meth:`player_command`) is
        kept alive for the whole match, as ``persistent:`` players are:
        Quoridor's module players, whose course engine kept one instance of
        the module per game."""
        return False

    def resample(self, state: GameState, viewer: int, rng: Any) -> GameState | None:
        """A state ``viewer`` cannot tell apart from ``state``, with what is
        hidden from it (other hands, the pile's order) drawn anew from
        ``rng`` (a ``random.Random``), or None for a game without hidden
        information.  OpenSpiel calls this ``resample_from_infostate``; the
        conformance kit uses it to check that a player's views never show
        what is hidden from it."""
        return None

    def state_from_json(self, data: dict[str, Any]) -> GameState | None:
        """Rebuild a state from ``to_json`` output, if the game supports it
        (used by tools that start from a logged position).  Optional."""
        return None
