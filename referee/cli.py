"""The ``referee`` command.  Scripts and graders depend on this contract
(DESIGN.md): options are only ever added.  Bad usage or bad input exits 2 with
one line naming the file, line and problem; a finished match exits 0 whatever
its result."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click
import yaml

from referee import __version__
from referee.core.errors import InputError, not_utf8
from referee.core.numbers import shown_value
from referee.core.settings import LIMIT_KEYS, env_names, key_line, load_yaml, parse_assignment, seed_value
from referee.core.visible import visible
from referee.core.limits_given import ALIAS, from_flags, one_limit


def fail(error: Exception) -> None:
    click.echo(f"referee: error: {error}", err=True)
    sys.exit(2)


def usage_error(error: click.ClickException) -> None:
    """Click's own errors (an unknown option, a bad value, a missing
    argument) as the one line every other error is, at click's exit status
    (2 for usage): its Usage/Try/Error block was three lines, and its
    message names the option already."""
    message = " ".join(error.format_message().split()).rstrip(".")
    message = message[:1].lower() + message[1:] if message[1:2].islower() else message
    ctx = getattr(error, "ctx", None)
    hint = f" (see '{ctx.command_path} --help')" if isinstance(error, click.UsageError) and ctx else ""
    click.echo(f"referee: error: {message}{hint}", err=True)
    sys.exit(error.exit_code)


class NonEmpty(click.ParamType):
    """A text or path option's type that refuses an empty value: ``--variant
    ''`` silently meant the default variant, ``--out ''`` the current folder
    (Path('') is '.'), ``--cluster ''`` no cluster.  Everything else is the
    wrapped type's, so --help reads as it did."""

    def __init__(self, inner: click.ParamType) -> None:
        self.inner = inner
        self.name = inner.name

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def get_metavar(self, *args: Any, **kwargs: Any) -> str | None:
        return self.inner.get_metavar(*args, **kwargs)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():
            self.fail("an empty value", param, ctx)
        return self.inner.convert(value, param, ctx)


def refuse_empty(command: click.Command) -> click.Command:
    """Every text and path parameter of ``command`` refuses an empty value
    (once; a flag's, a number's and a choice's types say what they take)."""
    for param in command.params:
        if isinstance(param.type, (click.types.StringParamType, click.Path)):
            param.type = NonEmpty(param.type)
    return command


NO_ARGS_IS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())
"""A bare ``referee`` (the help): an error since click 8.2, whose help it
prints as it did; click 8.1 (``click>=8.1``) prints it without one."""


class Group(click.Group):
    """Turns InputError from any command into the one-line exit-2 message,
    click's usage errors into one line too, and imports the commands of
    LAZY_COMMANDS when they are asked for."""

    def make_context(self, info_name: str | None, args: list[str],
                     parent: click.Context | None = None, **extra: Any) -> click.Context:
        try:  # the group's own arguments: an unknown option or command
            return super().make_context(info_name, args, parent, **extra)
        except NO_ARGS_IS_HELP:
            raise  # a bare `referee` prints the help, as it did
        except click.ClickException as exc:
            usage_error(exc)
            raise  # not reached

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in LAZY_COMMANDS and name not in self.commands:
            import importlib

            module, attr = LAZY_COMMANDS[name]
            self.add_command(refuse_empty(getattr(importlib.import_module(module), attr)), name)
        return super().get_command(ctx, name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            if os.environ.get("REFEREE_RUNNER"):  # before any command reads it: see runner_choice
                from referee.core.runner import runner_choice
                runner_choice()
            return super().invoke(ctx)
        except InputError as exc:
            fail(exc)
        except NO_ARGS_IS_HELP:
            raise
        except click.ClickException as exc:  # a command's options and arguments
            usage_error(exc)
        except KeyboardInterrupt:  # one a command did not catch (a second Ctrl-C while it stopped)
            click.echo("referee: interrupted", err=True)  # click's was 'Aborted!', exit 1
            sys.exit(130)
        except Exception as exc:
            from referee.core.match import MatchFolderError, RefereeError

            if isinstance(exc, MatchFolderError):
                click.echo(f"referee: error: {exc}", err=True)
                sys.exit(4)
            if not isinstance(exc, RefereeError):
                raise
            click.echo(f"referee: {exc}", err=True)
            sys.exit(3)


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="referee")
def main() -> None:
    """A file-protocol referee for AI board-game assignments."""


PLAY_KEYS = {
    "game": "the game (instead of the GAME argument)",
    "players": "list of player commands, in seat order (--player, once per seat)",
    "player": "same as players",
    "names": "list of display names, one per seat, no two the same (default: the commands)",
    "board": "board / start-position file, relative to the config file, or a shipped board's name (--board)",
    "variant": "game variant (--variant)",
    "seed": "match seed (--seed)",
    "out": "match folder, relative to the config file (--out)",
    "replace": "true: overwrite an existing match folder (--replace)",
    "policy": "forfeit, eject or random (--policy)",
    "time_limit": "soft time limit per step in seconds (--time-limit)",
    "set": "list of KEY=VALUE game settings or limits (--set)",
    "settings": "mapping of game settings or limits, KEY: VALUE",
    "limits": "mapping of limits (soft_time, hard_time, cpu_time, memory_mb, ...)",
    "quiet": "true: print only the result (--quiet)",
    "color": "true/false: colour the boards (--color/--no-color)",
    "show_output": "true: print each step's stdout/stderr (--show-output)",
    "no_browser": "true: a browser seat prints its page's URL instead of opening a browser (--no-browser)",
    "sandbox": "auto, bwrap or none: run players in a bubblewrap sandbox (--sandbox)",
    "pass_env": "list of the referee's environment variables players get too (--pass-env)",
    "games": "play a paired series of N games (--games)",
    "boards": "list of board folders, files or patterns a series draws from in turn (--boards)",
    "sprt": "stop the series when the SPRT decides: elo0=0,elo1=10,alpha=0.05,beta=0.05 (--sprt)",
    "cluster": "play the series on a Dask cluster, tcp://HOST:PORT (--cluster)",
    "jobs": "series games played at once (--jobs)",
}
"""Every key a ``--config`` file may hold, with what it means (docs/config.md
repeats this table; a test keeps the two in step)."""


def config_key(key: Any) -> str:
    """Option names as written on the command line work too (time-limit)."""
    return str(key).replace("-", "_")


def load_config(path: Path) -> dict[str, Any]:
    """A match config (YAML); every key is checked, a typo is an error that
    lists the known keys."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", str(path)) from None
    except UnicodeDecodeError as exc:
        raise not_utf8(path, exc) from None
    try:
        raw = load_yaml(text) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InputError(f"not valid YAML: {getattr(exc, 'problem', exc)}", str(path),
                         mark.line + 1 if mark else None) from None
    except ValueError as exc:  # PyYAML's int() of a number past Python's 4300-digit limit
        raise InputError(f"not valid YAML: {str(exc).split(':')[0]}", str(path)) from None
    if not isinstance(raw, dict):
        raise InputError("expected a mapping of options (KEY: VALUE lines)", str(path))
    data = {config_key(k): v for k, v in raw.items()}
    for key, original in zip(data, raw):
        if key not in PLAY_KEYS:
            raise InputError(f"unknown key {original!r}; known keys: {', '.join(sorted(PLAY_KEYS))}",
                             str(path), key_line(text, str(original)))
    for key in ("settings", "limits"):
        if not isinstance(data.get(key, {}), dict):
            raise InputError(f"{key!r} must be a mapping of KEY: VALUE", str(path), key_line(text, key))
    assignments = data.get("set")
    if isinstance(assignments, dict):
        data["set"] = [f"{k}={v}" for k, v in assignments.items()]
    elif assignments is not None and not (isinstance(assignments, list)
                                          and all(isinstance(a, str) for a in assignments)):
        raise InputError("'set' must be a list of KEY=VALUE strings", str(path), key_line(text, "set"))
    for key in ("players", "player", "names"):
        value = data.get(key)
        if value is not None and not (isinstance(value, list) and all(isinstance(p, str) for p in value)):
            raise InputError(f"{key!r} must be a list of strings", str(path), key_line(text, key))
    names = data.get("names") or []
    twice = next((name for i, name in enumerate(names) if name in names[:i]), None)
    if twice is not None:  # a series' summary had two rows of that name (a tournament's refuses it too)
        raise InputError(f"names: {shown_value(twice)} is given twice; each seat needs a name of its own",
                         str(path), key_line(text, "names"))
    if "pass_env" in data:
        data["pass_env"] = env_names(data["pass_env"], str(path), key_line(text, "pass_env"))
    if data.get("game") is not None and not isinstance(data["game"], str):
        raise InputError("'game' must be a game name", str(path), key_line(text, "game"))
    for key, value in data.items():
        problem = _config_value_problem(key, value)
        if problem:
            raise InputError(f"{key!r} {problem}, got {value!r}"[:200], str(path), key_line(text, key))
    _config_limits_once(data, path, text)
    return data


def _config_limits_once(data: dict[str, Any], path: Path, text: str) -> None:
    """Each limit the config gives, wherever it gives it (``settings:``,
    ``set:``, ``limits:`` as a tournament or grading config's; the soft time
    limit as ``time_limit:`` and ``limits.time_limit`` too), the same in each
    or one line at the later one's line; ``limits.time_limit`` becomes
    ``limits.soft_time``."""
    limits, settings = data.get("limits") or {}, data.get("settings") or {}
    if not isinstance(limits, dict) or not isinstance(settings, dict):
        return  # (their own checks say so)
    assigned = []
    for assignment in data.get("set") or []:
        key, sep, value = str(assignment).partition("=")
        if sep:
            assigned.append((key.strip(), value.strip()))

    def line(how: str) -> int | None:
        if "." not in how:
            return key_line(text, how.partition(":")[0])
        from referee.tournament.config import _line_of

        return _line_of(yaml.compose(text), tuple(how.split(".")))

    for limit in LIMIT_KEYS:  # any other limit given twice: the same rule
        given = [(f"settings.{limit}", settings[limit])] if limit in settings else []
        given += [(f"set: {limit}=", value) for key, value in assigned if key == limit]
        names = (limit, ALIAS) if limit == "soft_time" else (limit,)
        given += [(f"limits.{key}", limits[key]) for key in names if key in limits]
        if limit == "soft_time" and data.get(ALIAS) is not None:
            given.append((ALIAS, data[ALIAS]))
        value = one_limit(limit, given, str(path), line)
        if limit == "soft_time" and ALIAS in limits:
            data["limits"] = {**{k: v for k, v in limits.items() if k != ALIAS}, "soft_time": value}


CONFIG_TEXT = ("board", "out", "variant", "sprt", "cluster")
CONFIG_FLAGS = ("replace", "quiet", "color", "show_output", "no_browser")
POLICY_CHOICES = ("forfeit", "eject", "random")  # core.match.POLICIES (not imported here: the CLI's start-up)
SANDBOX_CHOICES = ("auto", "bwrap", "none")  # tournament.config.SANDBOXES
CONFIG_CHOICES = {"policy": POLICY_CHOICES, "sandbox": SANDBOX_CHOICES}


def _config_value_problem(key: str, value: Any) -> str | None:
    """What is wrong with a config value's type, or None.  Checked here, at
    its line, because the command computed with it as given: ``replace:
    "no"`` was true (an overwritten folder), ``games: 2.5`` two pairs, a
    ``board: 5`` or ``jobs: -1`` a traceback."""
    if value is None:
        return None
    if key in CONFIG_TEXT and not (isinstance(value, str) and value.strip()):
        return "must be a non-empty string"
    if key in CONFIG_FLAGS and not isinstance(value, bool):
        return "must be true or false"
    if key in CONFIG_CHOICES and value not in CONFIG_CHOICES[key]:
        return f"must be one of {', '.join(CONFIG_CHOICES[key])}"
    if key in ("games", "jobs") and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        return "must be a whole number of 1 or more"
    if key == "boards" and not (isinstance(value, list) and value
                                and all(isinstance(b, str) and b.strip() for b in value)):
        return "must be a list of board files, folders or patterns"
    if key == "time_limit" and (isinstance(value, bool) or not isinstance(value, (int, float, str))):
        return "must be a number of seconds"
    return None


def _config_boards(conf: dict[str, Any], config: Path | None, game: str, base: Path) -> tuple[str, ...]:
    """A play config's ``boards:``, each item's files: relative to the
    config's folder, else the shipped boards it names (``[6x3-1]``,
    ``[boards/tsuro/]``), as a tournament config finds them."""
    if not conf.get("boards"):
        return ()
    from referee.tournament.config import _expand_boards

    found: list[str] = []
    for item in conf["boards"]:
        files = _expand_boards(base, item, game)
        if not files:
            raise InputError(f"boards: {item!r} names no board file", str(config),
                             key_line(config.read_text(encoding="utf-8-sig"), "boards") if config else None)
        found.extend(str(p) for p in files)
    return tuple(found)


def _check_config_values(conf: dict[str, Any], config: Path, game_name: str) -> None:
    """The config's game settings, limits, time limit and variant checked
    against the game, each error at its key's line (checked later, they
    were one line that did not say it came from the config)."""
    from referee.core import settings as settings_mod
    from referee.core.registry import get_game

    game = get_game(game_name)
    text = config.read_text(encoding="utf-8-sig")
    def settings(values: dict[str, Any]) -> None:  # a limit may be given among settings too
        settings_mod.resolve_limits(game, settings_mod.split(values, game)[1])

    def limits(values: dict[str, Any]) -> None:
        unknown = [key for key in values if key not in settings_mod.LIMIT_KEYS]
        if unknown:  # was a TypeError from Limits(), a traceback
            raise InputError(f"unknown limit {str(unknown[0])!r}; the limits are: "
                             f"{', '.join(settings_mod.LIMIT_KEYS)}")
        settings_mod.resolve_limits(game, values)

    checks = [("settings", lambda: settings(conf.get("settings") or {})),
              ("set", lambda: settings(dict(map(parse_assignment, conf.get("set") or [])))),
              ("limits", lambda: limits(conf.get("limits") or {})),
              ("time_limit", lambda: settings_mod.resolve_limits(game, {"soft_time": conf["time_limit"]}))]
    for key, check in checks:
        if conf.get(key) is None:
            continue
        try:
            check()
        except InputError as exc:
            raise InputError(f"{key}: {exc.message}", str(config), key_line(text, key)) from None
    variant = conf.get("variant")
    if variant is not None and variant not in game.variants:
        raise InputError(f"variant: unknown variant {variant!r} for {game.name}; choose one of: "
                         f"{', '.join(game.variants)}", str(config), key_line(text, "variant"))


@main.command()
@click.argument("game", required=False)
@click.option("--player", "players", multiple=True, metavar="CMD",
              help="A player, in seat order: builtin:NAME, a command line, or a person: human "
                   "(in the browser where one can open, else in this terminal; it says which), "
                   "human:terminal or human:web.")
@click.option("--board", type=click.Path(path_type=Path), help="Board / start-position file.")
@click.option("--variant", help="Game variant.")
@click.option("--seed", metavar="N", help="Match seed (default: random, recorded in match.yaml).")
@click.option("--out", type=click.Path(path_type=Path), help="Match folder (default step_logs/<game>-<date>-<seed>/).")
@click.option("--quiet", is_flag=True, default=None, help="Print only the result.")
@click.option("--time-limit", metavar="SECONDS",
              help="Soft time limit per step in seconds (hard limit: twice it).")
@click.option("--policy", type=click.Choice(POLICY_CHOICES), help="What a fault costs.")
@click.option("--set", "assignments", multiple=True, metavar="KEY=VALUE", help="A game setting or limit.")
@click.option("--config", type=click.Path(path_type=Path), help="YAML file with any of these options (referee docs config).")
@click.option("--replace", is_flag=True, default=None, help="Overwrite --out if it exists.")
@click.option("--color/--no-color", default=None, help="Colour the boards (default: on a terminal).")
@click.option("--show-output", is_flag=True, default=None, help="Print each step's stdout/stderr.")
@click.option("--sandbox", type=click.Choice(SANDBOX_CHOICES), default=None,
              help="Run players in a bubblewrap sandbox (auto: where it starts; default).")
@click.option("--pass-env", "pass_env", multiple=True, metavar="NAME",
              help="An environment variable of yours that players get too (repeatable).")
@click.option("--games", type=int,
              help="Play a paired series of N games (seats swapped; referee docs series).")
@click.option("--boards", "board_sets", multiple=True, metavar="DIR",
              help="Series boards, drawn in turn: a folder, a file or a pattern (repeatable).")
@click.option("--sprt", metavar="SPEC",
              help="Stop the series when the SPRT decides: elo0=0,elo1=10,alpha=0.05,beta=0.05.")
@click.option("--cluster", metavar="ADDRESS", help="Play the series on a Dask cluster (tcp://HOST:PORT).")
@click.option("--jobs", type=click.IntRange(min=1), help="Series games played at once (default: cores).")
@click.option("--resume", is_flag=True, help="Finish an interrupted series in --out (same options).")
@click.option("--no-browser", is_flag=True,
              help="A browser seat (human:web, or human where it picks the browser): print the "
                   "page's URL instead of opening a browser.")
def play(game: str | None, players: tuple[str, ...], board: Path | None, variant: str | None,
         seed: str | None, out: Path | None, quiet: bool | None, time_limit: str | None,
         policy: str | None, assignments: tuple[str, ...], config: Path | None, replace: bool | None,
         color: bool | None, show_output: bool | None, sandbox: str | None,
         pass_env: tuple[str, ...] = (), games: int | None = None, board_sets: tuple[str, ...] = (),
         sprt: str | None = None, cluster: str | None = None, jobs: int | None = None,
         resume: bool = False, no_browser: bool = False) -> None:
    """Play one match of GAME and write its folder, or a paired series with --games
    (GAME may come from --config)."""
    from referee.console import ConsoleObserver, format_result
    from referee.core import preflight
    from referee.core.match import Match, MatchSpec, Observer, prepare
    from referee.core.registry import canonical_name, get_game

    conf = load_config(config) if config else {}
    base = config.resolve().parent if config else Path.cwd()
    if game is None:
        game = conf.get("game")
        if game is None:
            raise InputError("no game: give GAME (e.g. 'referee play cantris ...') or 'game:' in --config")
    asked = game
    game = get_game(game).name  # an unknown game is the first thing to say; then its own spelling
    if conf.get("game") is not None and canonical_name(conf["game"]) != game:
        raise InputError(f"config is for game {conf['game']!r}, not {asked!r}", str(config))
    if config:
        _check_config_values(conf, config, game)
    settings = dict(conf.get("settings") or {})
    limits = dict(conf.get("limits") or {})
    for text in conf.get("set") or []:
        key, value = parse_assignment(text)
        settings[key] = value
    if conf.get("time_limit") is not None:  # the same as any other the config gives (load_config)
        settings.setdefault("soft_time", conf["time_limit"])
    flags = [parse_assignment(text) for text in assignments]
    for key, value in flags:  # a flag overrides the config, its limits: too
        settings[key] = value
        limits.pop(key, None)
    flag_time = from_flags(flags, time_limit)
    if flag_time is not None:
        settings["soft_time"] = flag_time
        limits.pop("soft_time", None)
    from referee.resources import shipped_settings

    settings = shipped_settings(game, settings, base)

    def conf_path(key: str) -> Path | None:
        return (base / conf[key]) if conf.get(key) is not None else None

    def conf_flag(value: bool | None, key: str) -> bool:
        return bool(conf.get(key, False)) if value is None else value

    passed_env = env_names(list(pass_env)) if pass_env else conf.get("pass_env", [])
    player_list = list(players) or list(conf.get("players") or conf.get("player") or [])
    if not player_list:
        raise InputError("no players: give --player CMD once per seat")
    names = conf.get("names")
    if config and names is not None and len(names) != len(player_list):  # a series' was an IndexError
        raise InputError(f"names: {len(names)} given for {len(player_list)} players, one per seat",
                         str(config), key_line(config.read_text(encoding="utf-8-sig"), "names"))
    quiet = conf_flag(quiet, "quiet")
    games = games if games is not None else conf.get("games")
    board_sets = board_sets or _config_boards(conf, config, game, base)
    sprt, cluster, jobs = sprt or conf.get("sprt"), cluster or conf.get("cluster"), jobs or conf.get("jobs")
    from referee.resources import existing_board

    def chosen_board() -> Path | None:
        """--board as given, or the config's relative to its folder (a
        shipped board's name where no file there has it)."""
        if board is not None:
            return existing_board(game, board)
        return existing_board(game, Path(conf["board"]), base) if conf.get("board") is not None else None

    if games is not None or board_sets or sprt or cluster or jobs or resume:
        from referee.tournament.series import play_series

        play_series(game, player_list, games, chosen_board(), board_sets, sprt,
                    cluster, jobs, variant=variant or conf.get("variant"),
                    seed=seed_value(seed, name="--seed") if seed is not None
                    else seed_value(conf.get("seed"), str(config)), out=out or conf_path("out"),
                    policy=policy or conf.get("policy"), settings=settings, limits=limits,
                    names=conf.get("names"), replace=conf_flag(replace, "replace"), base=base,
                    sandbox=sandbox or str(conf.get("sandbox") or "auto"), resume=resume,
                    pass_env=passed_env)
        return
    if color is None:
        color = conf.get("color")
        color = sys.stdout.isatty() if color is None else bool(color)
    spec = MatchSpec(game=game, players=player_list,
                     board=chosen_board(),
                     variant=variant or conf.get("variant"),
                     seed=seed_value(seed, name="--seed") if seed is not None
                     else seed_value(conf.get("seed"), str(config)),
                     out=out or conf_path("out"), policy=policy or conf.get("policy"),
                     settings=settings, limits=limits, names=conf.get("names"),
                     quiet=quiet, color=color, replace=conf_flag(replace, "replace"), base_dir=base,
                     sandbox=sandbox or str(conf.get("sandbox") or "auto"),
                     pass_env=passed_env,
                     browser=not (no_browser or bool(conf.get("no_browser", False))))
    prepared = prepare(spec)
    preflight.check_match(prepared)  # a command that cannot start fails here, not every step
    show_output = conf_flag(show_output, "show_output")
    if quiet:
        observer = ConsoleObserver(boards=False, show_output=True) if show_output else Observer()
    else:
        observer = ConsoleObserver(boards=True, color=color, show_output=show_output)
    try:
        result = Match(prepared, observer).run()
    except KeyboardInterrupt:  # Ctrl-C while a program ran (at a human's prompt it resigns)
        if isinstance(observer, ConsoleObserver):
            observer.close()
        click.echo(f"\nreferee: interrupted; the log so far is in {prepared.out} "
                   "(unfinished: no result)", err=True)
        sys.exit(130)
    finally:
        if isinstance(observer, ConsoleObserver):
            observer.close()  # a step's status line, erased: the match ends in its middle
    if quiet and not show_output:
        click.echo(format_result(result, prepared.names))


@main.command()
@click.argument("game")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--variant", help="Game variant the file is for.")
def validate(game: str, file: Path, variant: str | None) -> None:
    """Check a board / start-position FILE for GAME."""
    from referee.core.textgrid import read_board_file
    from referee.core.registry import get_game
    from referee.resources import existing_board

    g = get_game(game)
    variant = variant or g.variants[0]
    file = existing_board(g.name, file) or file
    board = g.parse_board(read_board_file(file), str(file), variant)
    for warning in g.board_warnings(board):
        click.echo(f"{file}: warning: {warning}")
    click.echo(f"{file}: ok")


@main.command()
@click.argument("match_dir", type=click.Path(path_type=Path))
@click.option("--step", type=int, help="Show this step and stop.")
@click.option("--verify", is_flag=True, help="Recompute every state and check every hash.")
@click.option("--html", type=click.Path(path_type=Path), help="Write a self-contained HTML replay.")
@click.option("--color/--no-color", default=None)
def replay(match_dir: Path, step: int | None, verify: bool, html: Path | None, color: bool | None) -> None:
    """Step through a finished match (n/p/j K/q), or verify its log."""
    from referee import replay as replay_mod

    if color is None:
        color = sys.stdout.isatty()
    if verify:
        from referee.verify import verify_folder

        report = verify_folder(match_dir)
        if not report.ok:
            head = "UNFINISHED" if report.unfinished else "verification FAILED"
            click.echo(f"{match_dir}: {head}: {visible(report.message, lines=False)}", err=True)
            sys.exit(1)
        click.echo(f"{match_dir}: {report.message}")
        return
    if html:  # before the log is read: a path that cannot be written is said first, in one line
        from referee.core.outputs import output_file

        output_file(html, "--html")
    game_replay = replay_mod.load(match_dir)
    if html:
        try:
            replay_mod.write_html(game_replay, html)
        except OSError as exc:
            raise InputError(f"--html {html}: cannot write it: {exc.strerror or exc}") from None
        from referee.core.files import _a_device

        click.echo(f"wrote {html}", err=_a_device(Path(html)))  # (--html /dev/stdout: the page alone there)
        return
    if step is not None:
        click.echo(replay_mod.show(game_replay, step, color))
        return
    replay_mod.interactive(game_replay, color)


@main.command()
@click.argument("match_dir", type=click.Path(path_type=Path))
@click.option("--step", type=int, required=True, help="The step to run again.")
@click.option("--player", "command", metavar="CMD",
              help="Run this command instead of the seat's own (e.g. your fixed program).")
@click.option("--scratch", type=click.Path(path_type=Path),
              help="Folder to rebuild the seat's files in (default: a new temporary folder).")
@click.option("--color/--no-color", default=None)
def rerun(match_dir: Path, step: int, command: str | None, scratch: Path | None,
          color: bool | None) -> None:
    """Run one seat's step of a match again, in a copy of its folder as it was."""
    from referee import rerun as rerun_mod

    result = rerun_mod.rerun(match_dir, step, command, scratch)
    click.echo(rerun_mod.report(result, sys.stdout.isatty() if color is None else color))


@main.command("new-player")
@click.argument("game")
@click.argument("directory", type=click.Path(path_type=Path))
@click.option("--lang", type=click.Choice(["python", "cpp"]), default="python", show_default=True)
def new_player(game: str, directory: Path, lang: str) -> None:
    """Write a ready-to-run player template for GAME into DIRECTORY."""
    from referee.templates import write_template

    for line in write_template(game, directory, lang):
        click.echo(line)


@main.command()
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("--no-browser", is_flag=True, help="Print the page's URL instead of opening a browser.")
def watch(folder: Path, no_browser: bool) -> None:
    """A live page of a running match or tournament FOLDER (Ctrl-C stops)."""
    from referee.web.server import require

    require()
    from referee.web.watch import Watch

    Watch(folder).serve(open_browser=not no_browser)


@main.command()
def games() -> None:
    """The installed games (the five shipped and any plugin), with their
    player counts, variants and the package each comes from; a game that
    cannot be used is listed with why (exit status 1)."""
    from referee.core import registry

    broken = 0
    for name, group in registry.entries().items():
        if len(group) > 1:
            broken += 1
            click.echo(f"{name}: unusable: {registry.clash(group)}")
            continue
        try:
            game = registry.get_game(name)
        except InputError as exc:
            broken += 1
            click.echo(f"{name}: unusable: {exc}")
            continue
        counts = ", ".join(str(n) for n in game.player_counts)
        variants = ", ".join(game.variants)
        click.echo(f"{name}: {counts} players; variants {variants}; {group[0].origin()}")
    if broken:
        sys.exit(1)


@main.command()
@click.argument("page", required=False)
def docs(page: str | None) -> None:
    """Where this install's documentation is, or print one PAGE of it
    (e.g. 'referee docs protocol', 'referee docs cantris')."""
    from referee.resources import docs_dir

    folder = docs_dir()
    pages = sorted(p.relative_to(folder).with_suffix("").as_posix() for p in folder.rglob("*.md"))
    if page is None:
        click.echo(f"documentation: {folder}")
        click.echo("pages: " + ", ".join(pages))
        click.echo("print one with: referee docs PAGE")
        return
    name = page.removesuffix(".md").removeprefix("docs/")
    matches = [p for p in pages if p == name or p.rsplit("/", 1)[-1] == name]
    if not matches:
        raise InputError(f"no documentation page {page!r}; pages: {', '.join(pages)}")
    click.echo((folder / f"{matches[0]}.md").read_text(encoding="utf-8"), nl=False)


# Commands that live with the feature they belong to, imported only when
# used (or listed by --help): every other command, and every referee a
# tournament starts, would otherwise pay for importing them all.
for _command in main.commands.values():
    refuse_empty(_command)

LAZY_COMMANDS = {
    "tournament": ("referee.tournament.command", "tournament_command"),
    "check": ("referee.checks", "check_command"),
    "check-game": ("referee.conformance.command", "check_game_command"),
    "new-game": ("referee.scaffold.command", "new_game_command"),
    # grading (docs/grading.md)
    "check-bot": ("referee.grading.command", "check_bot_command"),
    "grade": ("referee.grading.command", "grade_command"),
    "autograder": ("referee.grading.command", "autograder_command"),
}


if __name__ == "__main__":
    main()
