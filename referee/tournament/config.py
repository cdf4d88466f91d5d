"""The tournament config file (YAML), checked completely before any game runs.

Every problem is reported as one line naming the config file, the line, the
key and what is wrong, e.g. ``class.yaml:7: entrants[2].command: missing``.
Relative paths (boards, out, entrant programs) are relative to the config
file's folder, so a TA can move the whole folder around.
"""
from __future__ import annotations

import dataclasses
import glob
import hashlib
import json
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from referee.core.errors import InputError, not_utf8
from referee.core.game import Game
from referee.core.humans import is_human
from referee.core import files, settings as settings_mod
from referee.core.match import POLICIES, MatchSpec, prepare
from referee.core.players import make_agent
from referee.core.rng import derived_key, derived_rng
from referee.core.runner import Limits
from referee.core.sandbox import _inside, _referee_paths
from referee.core.settings import env_names, load_yaml
from referee.core.registry import get_game
from referee.core.limits_given import ALIAS, one_limit
from referee.core.visible import visible
from referee.resources import shipped_board, shipped_settings

from .formats import FORMATS, swiss_max_rounds

STATE_FILE = "tournament.json"

SEEDINGS = ("config", "random")
SANDBOXES = ("auto", "bwrap", "none")
KEYS = ("game", "variant", "players", "boards", "entrants", "format", "seeding", "rounds",
        "limits", "policy", "settings", "seed", "out", "sandbox", "pass_env")


@dataclass(frozen=True)
class Entrant:
    name: str
    command: str


@dataclass(frozen=True)
class TournamentConfig:
    path: Path
    game: str
    variant: str | None
    table_size: int
    boards: tuple[Path | None, ...]
    """The board suite; ``(None,)`` means the game's embedded default board."""
    entrants: tuple[Entrant, ...]
    format: str
    seeding: str
    rounds: int | None
    limits: dict[str, Any]
    policy: str | None
    settings: dict[str, Any]
    seed: int
    out: Path
    sandbox: str = "auto"
    key: str | None = None
    """The secret its games' chances come from (each game's key is derived
    from it): random when the config gives no seed, kept in tournament.json
    for --resume; None: each game's key comes from its seed."""
    pass_env: tuple[str, ...] = ()  # the referee's environment variables players get too

    KIND = "tournament"
    FOLDER = "results folder"
    ELSEWHERE = "set another out: folder"
    ENTRANT = "entrant"
    """What the output folder holds, what it is called, where else a run
    may go and what a player in it is, in the words of the file that sets it
    up (a series says them in its command-line options)."""

    @property
    def base_dir(self) -> Path:
        return self.path.parent

    def changed_text(self, changed: list[str]) -> str:
        """Why a resume is refused: the fingerprint's keys that changed."""
        return (f"the config changed since this tournament started ({', '.join(changed)}); "
                f"restore it, or {self.ELSEWHERE}")

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.entrants]

    def seeded(self) -> tuple[int, ...]:
        """Entrant indices, best seed first: config order, or shuffled by the seed."""
        order = list(range(len(self.entrants)))
        if self.seeding == "random":
            derived_rng(self.seed, "seeding").shuffle(order)
        return tuple(order)

    def programs(self) -> dict[str, dict[str, str]]:
        """Each entrant's program files, by the SHA-256 of their content:
        the words of its command line that name an existing file (made
        absolute as the command is run: ``./bob.sh``, ``python3 ann.py``'s
        ``ann.py``, not ``python3`` on the PATH, nor the referee's own
        installation: a module player's Python).  A folder (a package) is
        not hashed.  Kept in the state file
        and compared by ``--resume``: the command line alone did not show an
        edited program, and a resumed tournament combined the games of both
        versions.  A built-in player is the referee's own, not a file here."""
        game = get_game(self.game)
        found: dict[str, dict[str, str]] = {}
        for entrant in self.entrants:
            found[entrant.name] = {}
            command = entrant.command.strip()
            if command.removeprefix("persistent:").startswith("builtin:"):
                continue
            try:
                argv = make_agent(command, game, Limits(), self.base_dir).argv
            except (InputError, AttributeError):  # (checked when the config was loaded)
                continue
            for word in argv:
                if not Path(word).is_absolute() or _inside(Path(word), _referee_paths(())):
                    continue  # (the referee's own Python, for a module player: not the entrant's)
                digest = _file_digest(word)
                if digest is not None:
                    found[entrant.name][word] = digest
        return found

    def changed_program_text(self, entrant: str, path: str) -> str:
        """Why a resume is refused: a program file changed (or is gone)."""
        return (f"{self.ENTRANT} {visible(entrant, lines=False)}'s program changed since this {self.KIND} "
                f"started ({visible(path, lines=False)}); restore it, or {self.ELSEWHERE}")

    def fingerprint(self) -> dict[str, Any]:
        """Everything that decides the games and their results: a resumed
        tournament must see the same (boards by content, so an edited board
        file is noticed)."""
        def board_id(board: Path | None) -> str | None:
            if board is None:
                return None
            return f"{board.name}:{hashlib.sha256(board.read_bytes()).hexdigest()[:16]}"

        return {
            "game": self.game, "variant": self.variant, "players": self.table_size,
            "boards": [board_id(b) for b in self.boards],
            "entrants": [[e.name, e.command] for e in self.entrants],
            "format": self.format, "seeding": self.seeding, "rounds": self.rounds,
            "limits": self.limits, "policy": self.policy, "settings": self.settings,
            "seed": self.seed,
        }


def _file_digest(path: str) -> str | None:
    """The SHA-256 of a regular file's content; None for anything else (a
    folder, nothing, a file that cannot be read)."""
    digest = hashlib.sha256()
    try:  # (non-blocking: a FIFO's open waits for a writer)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:  # (looked at before the descriptor is a file object: a folder's is refused by open())
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    return digest.hexdigest()


def _line_of(node: yaml.Node | None, path: tuple[str | int, ...]) -> int | None:
    """The 1-based line of the value at ``path`` (or of its nearest parent)."""
    line = None if node is None else node.start_mark.line + 1
    for part in path:
        if isinstance(node, yaml.MappingNode):
            match = [(k, v) for k, v in node.value if k.value == part]
            if not match:
                break
            node = match[0][1] if isinstance(match[0][1], yaml.Node) else None
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
        else:
            break
        line = node.start_mark.line + 1
    return line


class _Reader:
    """Reads keys from the parsed YAML and turns problems into InputErrors
    located at the key's line."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        try:
            self.data = load_yaml(text)  # strict: 0_0, +1, 1e3 stay text and are refused
            self.tree = yaml.compose(text)
        except ValueError as exc:  # a number PyYAML itself cannot take
            raise InputError(f"not valid YAML: {exc}", str(path)) from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            raise InputError(f"not valid YAML: {getattr(exc, 'problem', exc)}", str(path),
                             None if mark is None else mark.line + 1,
                             None if mark is None else mark.column + 1) from None
        if not isinstance(self.data, dict):
            raise InputError("expected a mapping of keys (game:, entrants:, format: ...)", str(path))

    def fail(self, path: tuple[str | int, ...], message: str) -> InputError:
        key = "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else p)
                      for i, p in enumerate(path))
        return InputError(f"{key}: {message}", str(self.path), _line_of(self.tree, path))

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = None,
            required: bool = False) -> Any:
        if key not in self.data or self.data[key] is None:
            if required:
                raise self.fail((key,), "missing")
            return default
        value = self.data[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            raise self.fail((key,), f"expected {_kind_word(names)}, got {value!r}")
        return value

    def seed(self, default: int | None) -> int | None:
        """``seed:``, a whole number of 0 or more as play's --seed and a
        match config take (settings.seed_value): -1 was taken here."""
        value = self.get("seed", int, default)
        if value is not None and value < 0:
            raise self.fail(("seed",), f"expected an integer of 0 or more, got {value}")
        return value

    def choice(self, key: str, choices: tuple[str, ...], default: str | None) -> str | None:
        value = self.get(key, str, default)
        if value is not None and value not in choices:
            raise self.fail((key,), f"{value!r} is not one of: {', '.join(choices)}")
        return value


def _kind_word(names: str) -> str:
    words = {"str": "a string", "int": "an integer", "dict": "a mapping", "list": "a list"}
    return " or ".join(words.get(n, n) for n in names.split(" or "))


def open_config(path: Path, what: str, keys: tuple[str, ...] | dict
                ) -> tuple[_Reader, Path, Game, str | None]:
    """A strict config's first reading, shared by the tournament and grading
    configs: the file read (a BOM allowed), unknown keys refused, the game and
    its variant looked up; every problem one line naming the file and line."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise InputError(f"cannot read the {what} config: {exc.strerror or exc}", str(path)) from None
    except UnicodeDecodeError as exc:
        raise not_utf8(path, exc) from None
    r = _Reader(path, text)
    unknown = [k for k in r.data if k not in keys]
    if unknown:
        raise r.fail((str(unknown[0]),), f"unknown key; the keys are: {', '.join(keys)}")
    name = r.get("game", str, required=True)
    try:
        game = get_game(name)
    except InputError as exc:
        raise r.fail(("game",), exc.message) from None
    return r, path.resolve().parent, game, r.choice("variant", tuple(game.variants), None)


def load_config(path: Path) -> TournamentConfig:
    path = Path(path)
    r, base, game, variant = open_config(path, "tournament", KEYS)
    default_size = 2 if 2 in game.player_counts else min(game.player_counts)
    size = r.get("players", int, default_size)
    if size not in game.player_counts:
        counts = ", ".join(map(str, game.player_counts))
        raise r.fail(("players",), f"{game.name} is played by {counts} players, not {size}")
    fmt = r.choice("format", FORMATS, "round_robin")
    if size > 2 and fmt != "round_robin":
        raise r.fail(("format",), f"{fmt} needs two-player games; use round_robin for "
                                  f"{size}-player tables")
    rounds = r.get("rounds", int)
    if rounds is not None and (rounds < 1 or fmt not in ("round_robin", "swiss")):
        raise r.fail(("rounds",), "a positive number of rounds, for round_robin or swiss only")
    if rounds is not None and rounds > settings_mod.MAX_GAMES:
        raise r.fail(("rounds",), f"at most {settings_mod.MAX_GAMES} rounds, got {rounds}")
    entrants = _entrants(r, game, base)
    if len(entrants) < max(2, size):
        raise r.fail(("entrants",), f"at least {max(2, size)} entrants are needed, got {len(entrants)}")
    if fmt == "swiss" and rounds is not None and rounds > swiss_max_rounds(len(entrants)):
        raise r.fail(("rounds",), f"{len(entrants)} entrants have at most "
                                  f"{swiss_max_rounds(len(entrants))} Swiss rounds without a repeated pairing")
    config = TournamentConfig(
        path=path.resolve(), game=game.name, variant=variant, table_size=size,
        boards=_boards(r, game, base), entrants=tuple(entrants), format=fmt,
        seeding=r.choice("seeding", SEEDINGS, "config"), rounds=rounds,
        limits=_limits(r, game), policy=r.choice("policy", POLICIES, None),
        settings=shipped_settings(game.name, _settings(r, game), base), seed=0,
        out=_out(r, base, path),
        sandbox=r.choice("sandbox", SANDBOXES, "auto") or "auto",
        pass_env=tuple(_pass_env(r)),
    )
    seed = r.seed(None)
    if seed is None:  # random, and secret: the one an interrupted run drew, for --resume
        seed, key = saved_chance(config.out)
        config = dataclasses.replace(config, seed=secrets.randbelow(2 ** 31) if seed is None else seed,
                                     key=key or (None if seed is not None else secrets.token_hex(16)))
    else:
        config = dataclasses.replace(config, seed=seed)
    _check_matches(r, config)
    return config


def _out(r: _Reader, base: Path, path: Path) -> Path:
    """The results folder: a folder's name (not empty: that was the config's
    own folder, filled with games), and not a file."""
    name = r.get("out", str, f"{path.stem}-results")
    if not name.strip():
        raise r.fail(("out",), "expected a folder's name, got an empty one")
    try:
        files.check_folder(base / name, "the results folder")
    except InputError as exc:
        raise r.fail(("out",), exc.message) from None
    return base / name


def saved_chance(out: Path) -> tuple[int | None, str | None]:
    """(seed, key) of the tournament or series started in ``out``, if any."""
    try:
        state = json.loads((Path(out) / STATE_FILE).read_text(encoding="utf-8"))
        seed = state["config"]["seed"]
        key = state.get("key")
        return (int(seed), str(key) if key is not None else None)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None, None


def match_spec(config: TournamentConfig, seats: tuple[int, ...], board: Path | None,
               seed: int, out: Path) -> MatchSpec:
    """The core's description of one game: ``seats`` are entrant indices in
    seat order (player 1 first)."""
    return MatchSpec(
        game=config.game, players=[config.entrants[e].command for e in seats], board=board,
        variant=config.variant, seed=seed, out=out, policy=config.policy,
        settings=config.settings, limits=config.limits,
        names=[config.entrants[e].name for e in seats], quiet=True, replace=True,
        base_dir=config.base_dir, sandbox=config.sandbox, hidden=[str(config.out.resolve())],
        key=derived_key(config.key, "game", seed) if config.key else None,
        pass_env=list(config.pass_env))


def _pass_env(r: "_Reader") -> list[str]:
    try:
        return env_names(r.get("pass_env", list, []))
    except InputError as exc:
        raise r.fail(("pass_env",), str(exc).removeprefix("pass_env: ")) from None


def _entrants(r: _Reader, game: Game, base: Path) -> list[Entrant]:
    items = r.get("entrants", list, required=True)
    entrants: list[Entrant] = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise r.fail(("entrants", i), "expected a mapping with name: and command:")
        for key in item:
            if key not in ("name", "command", "persistent"):
                raise r.fail(("entrants", i, str(key)),
                             "unknown key; an entrant has name:, command: and persistent:")
        persistent = item.get("persistent", False)
        if not isinstance(persistent, bool):
            raise r.fail(("entrants", i, "persistent"), f"expected true or false, got {persistent!r}")
        values = {}
        for key in ("name", "command"):
            value = item.get(key)
            if value is None:
                raise r.fail(("entrants", i, key), "missing")
            if not isinstance(value, (str, int)) or not str(value).strip():
                raise r.fail(("entrants", i, key), f"expected a non-empty string, got {value!r}")
            values[key] = str(value).strip()
        if any(e.name == values["name"] for e in entrants):
            raise r.fail(("entrants", i, "name"), f"{values['name']!r} is already an entrant's name")
        command = values["command"]
        if is_human(command):
            raise r.fail(("entrants", i, "command"), "a human cannot play in a tournament")
        if persistent and not command.startswith("persistent:"):
            command = f"persistent:{command}"
        try:
            make_agent(command, game, Limits(), base)
        except InputError as exc:
            raise r.fail(("entrants", i, "command"), exc.message) from None
        entrants.append(Entrant(values["name"], command))
    return entrants


def _boards(r: _Reader, game: Game, base: Path) -> tuple[Path | None, ...]:
    value = r.get("boards", (str, list))
    if value is None:
        return (None,)
    if not value:  # no board at all: the planner had no game to play (a KeyError, a traceback)
        raise r.fail(("boards",), "expected a board file, folder or pattern, or a list of them, "
                                  f"got {value!r}; leave boards: out for the game's default board")
    items = [value] if isinstance(value, str) else value
    boards: list[Path] = []
    for i, item in enumerate(items):
        where = ("boards",) if isinstance(value, str) else ("boards", i)
        if not isinstance(item, str) or not item.strip():  # '' named the config's own folder
            raise r.fail(where, f"expected a file, folder or pattern, got {item!r}")
        found = _expand_boards(base, item, game.name)
        if not found:
            raise r.fail(where, f"{item!r} names no board file")
        boards.extend(found)
    return tuple(boards)


def _expand_boards(base: Path, item: str, game: str | None = None) -> list[Path]:
    """A folder gives its files (not hidden, not Markdown), sorted by name; a
    pattern gives its matches, sorted; a file gives itself.  Relative to
    ``base``, or where nothing there matches, among ``game``'s shipped
    boards (``6x3-1``, ``boards/tsuro/``, ``boards/cantris/8x4-*.txt``), as
    ``--board`` finds them from any folder."""
    target = base / item
    if any(c in item for c in "*?["):
        found = sorted(Path(p) for p in glob.glob(str(target)) if Path(p).is_file())
        folder = None if found or game is None else shipped_board(game, Path(item).parent, folders=True)
        if folder is not None and folder.is_dir():
            found = sorted(p for p in folder.glob(Path(item).name) if p.is_file())
        return found
    if not target.exists() and game is not None:
        target = shipped_board(game, Path(item), folders=True) or target
    if target.is_dir():
        return sorted(p for p in target.iterdir()
                      if p.is_file() and not p.name.startswith(".") and p.suffix.lower() != ".md")
    return [target] if target.is_file() else []


def config_limits(r: _Reader) -> dict[str, Any]:
    """A tournament's or grading config's ``limits:`` as given, but
    ``time_limit`` read as ``soft_time``.  Two different values of one limit
    (``time_limit`` and ``soft_time``, or a limit among ``settings:`` too) are
    one line at the later one's line, in play's words (referee.core.limits_given)."""
    limits = dict(r.get("limits", dict, {}))
    settings = r.get("settings", dict, {})

    def line(how: str) -> int | None:
        return _line_of(r.tree, tuple(how.split(".")))

    for key in settings_mod.LIMIT_KEYS:  # any other limit given twice: the same rule
        places = [("settings", settings, key), ("limits", limits, key)]
        if key == "soft_time":
            places.append(("limits", limits, ALIAS))
        given = [(f"{where}.{name}", values[name]) for where, values, name in places if name in values]
        value = one_limit(key, given, str(r.path), line)
        if key == "soft_time" and ALIAS in limits:
            del limits[ALIAS]
            limits["soft_time"] = value
    return limits


def _limits(r: _Reader, game: Game) -> dict[str, Any]:
    """``limits:``, the limit keys; ``time_limit`` is the soft time limit, as
    in ``play --config`` and a grading config (a TA copies limits between them)."""
    limits = config_limits(r)
    for key in limits:
        if key not in settings_mod.LIMIT_KEYS:
            known = ", ".join(settings_mod.LIMIT_KEYS)
            raise r.fail(("limits", str(key)), f"unknown limit; the limits are: {known}")
    try:
        settings_mod.resolve_limits(game, limits)
    except InputError as exc:
        raise r.fail(("limits",), exc.message) from None
    return dict(limits)


def _settings(r: _Reader, game: Game) -> dict[str, Any]:
    settings = r.get("settings", dict, {})
    for key, value in settings.items():
        try:
            settings_mod.split({key: value}, game)
        except InputError as exc:
            raise r.fail(("settings", str(key)), exc.message) from None
    return dict(settings)


def _check_matches(r: _Reader, config: TournamentConfig) -> None:
    """Let the core check a match on every board of the suite, as it will be
    played (board, variant, settings, policy): nothing fails later."""
    for i, board in enumerate(config.boards):
        where: tuple[str | int, ...] = ("boards",) if len(config.boards) == 1 else ("boards", i)
        try:
            prepare(match_spec(config, config.seeded()[:config.table_size], board, 0,
                               config.out / ".check-only"))
        except InputError as exc:
            raise r.fail(where if board is not None else ("game",), str(exc)) from None
