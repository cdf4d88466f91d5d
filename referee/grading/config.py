"""The grading config (YAML, strict), checked whole before anything runs.

Every problem is one line naming the file, the line and the key, e.g.
``grading.yaml:12: opponents[1].full_at: must be above zero_at (0.5)``, the
way tournament configs report theirs (the same reader).  Relative paths
(boards, staff programs) are relative to the config file's folder, so the
folder can be zipped into an autograder as it is.  docs/grading.md lists
every key.
"""
from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.core import preflight, settings as settings_mod
from referee.core.errors import InputError
from referee.core.humans import is_human
from referee.core.match import POLICIES, MatchSpec, prepare
from referee.core.players import make_agent
from referee.core.registry import get_game
from referee.core.runner import Limits
from referee.tournament.config import SANDBOXES, _expand_boards, _Reader, config_limits, open_config
from referee.tournament.series import player_names

from .check_bot import table_size
from .submission import check_manifest, inside

KEYS = ("game", "variant", "boards", "games_per_board", "limits", "settings", "policy", "seed",
        "sandbox", "compliance", "opponents", "submission", "visibility", "leaderboard")
OPPONENT_KEYS = ("player", "name", "points", "full_at", "zero_at", "visibility", "rating")
DEFAULT_RATING = 1500.0
"""The Elo anchor of a reference bot the config gives no ``rating:``."""
COMPLIANCE_KEYS = ("points", "visibility", "name")
VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
"""Gradescope's visibility values; the other platforms show or hide."""


@dataclass(frozen=True)
class Opponent:
    name: str
    player: str           # the --player value (paths relative to the config)
    points: float
    full_at: float        # score fraction (win 1, draw 1/2) for full points
    zero_at: float        # none at or below; linear between
    visibility: str
    rating: float = DEFAULT_RATING  # its fixed Elo: the anchor of the submission's rating

    def points_for(self, fraction: float) -> float:
        """Partial credit: none at or below zero_at, all at or above full_at,
        a straight line between (rounded to hundredths)."""
        if fraction >= self.full_at:
            return self.points
        if fraction <= self.zero_at:
            return 0.0
        return round(self.points * (fraction - self.zero_at) / (self.full_at - self.zero_at), 2)


@dataclass(frozen=True)
class GradingConfig:
    path: Path
    game: str
    variant: str | None
    boards: tuple[Path | None, ...]
    games_per_board: int
    limits: dict[str, Any]
    settings: dict[str, Any]
    policy: str | None
    seed: int
    sandbox: str
    compliance_points: float
    compliance_visibility: str
    compliance_name: str
    opponents: tuple[Opponent, ...]
    submission: dict[str, Any] = field(default_factory=dict)
    visibility: str = "visible"
    leaderboard: bool = False

    @property
    def base_dir(self) -> Path:
        return self.path.parent

    @property
    def total_points(self) -> float:
        return self.compliance_points + sum(o.points for o in self.opponents)

    @property
    def games_per_opponent(self) -> int:
        return self.games_per_board * len(self.boards) * table_size(self.game)


def load(path: Path) -> GradingConfig:
    path = Path(path)
    r, base, game, variant = open_config(path, "grading", KEYS)
    games = r.get("games_per_board", int, 2)
    if not 1 <= games <= settings_mod.MAX_GAMES:
        raise r.fail(("games_per_board",), f"must be 1 to {settings_mod.MAX_GAMES}, got {games}")
    settings, limits = _play_settings(r, game)
    visibility = r.choice("visibility", VISIBILITIES, "visible") or "visible"
    compliance = r.get("compliance", dict, {})
    for key in compliance:
        if key not in COMPLIANCE_KEYS:
            raise r.fail(("compliance", str(key)), f"unknown key; the keys are: {', '.join(COMPLIANCE_KEYS)}")
    submission = r.get("submission", dict, {})
    try:
        submission = check_manifest(submission, "submission")
    except InputError as exc:
        raise r.fail(("submission",), exc.message) from None
    leaderboard = r.get("leaderboard", bool, False)
    config = GradingConfig(
        path=path.resolve(), game=game.name, variant=variant, boards=_boards(r, base, game.name),
        games_per_board=games, limits=limits, settings=settings,
        policy=r.choice("policy", POLICIES, None), seed=r.seed(0),
        sandbox=r.choice("sandbox", SANDBOXES, "auto") or "auto",
        compliance_points=_points(r, ("compliance", "points"), compliance.get("points", 0)),
        compliance_visibility=_visibility(r, ("compliance", "visibility"),
                                          compliance.get("visibility", visibility)),
        compliance_name=str(compliance.get("name") or "Compliance (referee check-bot)"),
        opponents=_opponents(r, game, base, visibility), submission=submission,
        visibility=visibility, leaderboard=leaderboard)
    _check_boards(r, config)
    return config


def _play_settings(r: _Reader, game) -> tuple[dict[str, Any], dict[str, Any]]:
    """``limits:`` takes any play limit or ``--set`` key (``time_limit`` is
    the soft time limit, as in ``play``: config_limits); ``settings:`` game
    settings."""
    limits = config_limits(r)
    settings = dict(r.get("settings", dict, {}))
    for where, values in (("limits", limits), ("settings", settings)):
        for key, value in values.items():
            try:
                settings_mod.split({key: value}, game)
            except InputError as exc:
                raise r.fail((where, str(key)), exc.message) from None
    game_settings, limit_values = settings_mod.split({**settings, **limits}, game)
    try:
        settings_mod.resolve_limits(game, limit_values)
    except InputError as exc:
        raise r.fail(("limits",), exc.message) from None
    return game_settings, limit_values


def _boards(r: _Reader, base: Path, game: str) -> tuple[Path | None, ...]:
    value = r.get("boards", (str, list))
    if value is None:
        return (None,)
    if value == []:  # no board to play: grading crashed on the compliance check's first board
        raise r.fail(("boards",), "must be a list of board files, folders or patterns (or default), got []")
    items = [value] if isinstance(value, str) else value
    boards: list[Path | None] = []
    for i, item in enumerate(items):
        where = ("boards",) if isinstance(value, str) else ("boards", i)
        if item == "default":
            boards.append(None)
            continue
        if not isinstance(item, str):
            raise r.fail(where, f"expected a file, folder, pattern or default, got {item!r}")
        found = _expand_boards(base, item, game)  # a shipped board by name, as in a tournament config
        if not found:
            raise r.fail(where, f"{item!r} names no board file")
        boards.extend(p.resolve() for p in found)
    return tuple(boards)


def _points(r: _Reader, where: tuple[str | int, ...], value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise r.fail(where, f"expected a number of points (0 or more), got {value!r}")
    return float(value)


def _fraction(r: _Reader, where: tuple[str | int, ...], value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise r.fail(where, f"expected a score fraction from 0 to 1 (win 1, draw 0.5), got {value!r}")
    return float(value)


def _visibility(r: _Reader, where: tuple[str | int, ...], value: Any) -> str:
    if value not in VISIBILITIES:
        raise r.fail(where, f"{value!r} is not one of: {', '.join(VISIBILITIES)}")
    return str(value)


def _opponents(r: _Reader, game, base: Path, visibility: str) -> tuple[Opponent, ...]:
    items = r.get("opponents", list, required=True)
    if not items:
        raise r.fail(("opponents",), "name at least one opponent (e.g. - player: builtin:random)")
    commands = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise r.fail(("opponents", i), "expected a mapping with player:, points:, full_at:, zero_at:")
        for key in item:
            if key not in OPPONENT_KEYS:
                raise r.fail(("opponents", i, str(key)), f"unknown key; the keys are: {', '.join(OPPONENT_KEYS)}")
        player = item.get("player")
        if not isinstance(player, str) or not player.strip():
            raise r.fail(("opponents", i, "player"), "missing: builtin:NAME or a command line")
        commands.append(player.strip())
    names = player_names(commands)
    opponents: list[Opponent] = []
    for i, (item, command) in enumerate(zip(items, commands)):
        name = str(item.get("name") or names[i])
        if any(o.name == name for o in opponents):
            raise r.fail(("opponents", i, "name"), f"{name!r} is already an opponent's name")
        if is_human(command):
            raise r.fail(("opponents", i, "player"), "a human cannot be a grading opponent")
        try:
            agent = make_agent(command, game, Limits(), base)
        except InputError as exc:
            raise r.fail(("opponents", i, "player"), exc.message) from None
        argv = getattr(agent, "argv", None)
        problem = preflight.command_problem(list(argv), base) if argv else None
        if problem:
            raise r.fail(("opponents", i, "player"), problem)
        full = _fraction(r, ("opponents", i, "full_at"), item.get("full_at", 1.0))
        zero = _fraction(r, ("opponents", i, "zero_at"), item.get("zero_at", 0.0))
        if not full > zero:
            raise r.fail(("opponents", i, "full_at"), f"must be above zero_at ({zero:g})")
        rating = item.get("rating", DEFAULT_RATING)
        if isinstance(rating, bool) or not isinstance(rating, (int, float)) or not -10000 <= rating <= 10000:
            raise r.fail(("opponents", i, "rating"), f"expected an Elo rating (a number), got {rating!r}")
        opponents.append(Opponent(
            name, command, _points(r, ("opponents", i, "points"), item.get("points", 0)), full, zero,
            _visibility(r, ("opponents", i, "visibility"), item.get("visibility", visibility)),
            float(rating)))
    return tuple(opponents)


def _check_boards(r: _Reader, config: GradingConfig) -> None:
    """Prepare a match on every board as it will be played: a bad board,
    setting or limit fails here, not in the middle of grading a class."""
    size = table_size(config.game)
    for i, board in enumerate(config.boards):
        where: tuple[str | int, ...] = ("boards",) if len(config.boards) == 1 else ("boards", i)
        spec = MatchSpec(game=config.game, players=["builtin:random"] * size, board=board,
                         variant=config.variant, seed=0, out=config.base_dir / ".check-only",
                         policy=config.policy, settings=config.settings, limits=config.limits,
                         base_dir=config.base_dir, sandbox="none")
        try:
            prepare(spec)
        except InputError as exc:
            raise r.fail(where if board is not None else ("game",), str(exc)) from None


def staff_paths(config: GradingConfig) -> list[tuple[str, Path]]:
    """The files and folders the staff programs' command lines name, as
    ``(opponent name, path)``: what an autograder package must carry and
    what a class run's cache key must cover.  Found from the command each
    opponent really runs (make_agent), so every player form the config
    accepts counts alike: ``python3 staff/bot.py``, ``./staff/bot``,
    ``persistent:...``, a game's own kinds (``module:staff/team``) and
    their stacks (``persistent:module:...``).  The referee's own files
    (built-in players, the Python that runs them) are left out: the wheel
    carries them."""
    game = get_game(config.game)
    from referee import resources

    own = [Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix,
                                       Path(__file__).resolve().parents[1], resources.players_dir(),
                                       *([game.home] if game.home else []))]
    found: list[tuple[str, Path]] = []
    for opponent in config.opponents:
        agent = make_agent(opponent.player, game, Limits(), config.base_dir)
        for index, word in enumerate(getattr(agent, "argv", None) or []):
            for part in sorted({word, *re.split(r"[:=,]", word)}):
                if not part or ("/" not in part and os.sep not in part and "." not in part):
                    continue  # a program found on PATH (python3), an option
                path = Path(part) if os.path.isabs(part) else config.base_dir / part
                if not path.exists() or any(inside(path, root) for root in own):
                    continue
                if index == 0 and not inside(path, config.base_dir):
                    continue  # an interpreter named by its path: the grader's own
                found.append((opponent.name, path))
    return found
