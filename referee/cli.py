"""The ``referee`` command.  Scripts and graders depend on this contract
(DESIGN.md): options are only ever added.  Bad usage or bad input exits 2 with
one line naming the file, line and problem; a finished match exits 0 whatever
its result."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click
import yaml

from referee import __version__
from referee.core.errors import InputError
from referee.core.settings import load_yaml, parse_assignment, seed_value


def fail(error: Exception) -> None:
    click.echo(f"referee: error: {error}", err=True)
    sys.exit(2)


class Group(click.Group):
    """Turns InputError from any command into the one-line exit-2 message."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except InputError as exc:
            fail(exc)
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


PLAY_KEYS = {"players", "player", "board", "variant", "seed", "out", "policy", "time_limit",
             "settings", "limits", "names", "quiet", "sandbox"}


def load_config(path: Path) -> dict[str, Any]:
    """A match config (YAML); every key is checked, a typo is an error."""
    try:
        data = load_yaml(path.read_text(encoding="utf-8")) or {}
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", str(path)) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InputError(f"not valid YAML: {getattr(exc, 'problem', exc)}", str(path),
                         mark.line + 1 if mark else None) from None
    except ValueError as exc:  # PyYAML's int() of a number past Python's 4300-digit limit
        raise InputError(f"not valid YAML: {str(exc).split(':')[0]}", str(path)) from None
    if not isinstance(data, dict):
        raise InputError("expected a mapping of options", str(path))
    for key in data:
        if key not in PLAY_KEYS and key != "game":
            raise InputError(f"unknown key {key!r}; known: {', '.join(sorted(PLAY_KEYS))}", str(path))
    for key in ("settings", "limits"):
        if not isinstance(data.get(key, {}), dict):
            raise InputError(f"{key!r} must be a mapping of KEY: VALUE", str(path))
    players = data.get("players", data.get("player"))
    if players is not None and not (isinstance(players, list) and all(isinstance(p, str) for p in players)):
        raise InputError("'players' must be a list of player commands", str(path))
    return data


@main.command()
@click.argument("game")
@click.option("--player", "players", multiple=True, metavar="CMD",
              help="A player, in seat order: builtin:NAME, human, or a command line.")
@click.option("--board", type=click.Path(path_type=Path), help="Board / start-position file.")
@click.option("--variant", help="Game variant.")
@click.option("--seed", metavar="N", help="Match seed (default: random, recorded in match.yaml).")
@click.option("--out", type=click.Path(path_type=Path), help="Match folder (default step_logs/<game>-<date>-<seed>/).")
@click.option("--quiet", is_flag=True, default=None, help="Print only the result.")
@click.option("--time-limit", metavar="SECONDS",
              help="Soft time limit per step in seconds (hard limit: twice it).")
@click.option("--policy", type=click.Choice(["forfeit", "eject", "random"]), help="What a fault costs.")
@click.option("--set", "assignments", multiple=True, metavar="KEY=VALUE", help="A game setting or limit.")
@click.option("--config", type=click.Path(path_type=Path), help="YAML file with any of these options.")
@click.option("--replace", is_flag=True, help="Overwrite --out if it exists.")
@click.option("--color/--no-color", default=None, help="Colour the boards (default: on a terminal).")
@click.option("--sandbox", type=click.Choice(["auto", "bwrap", "none"]), default=None,
              help="Run players in a bubblewrap sandbox (auto: where it starts; default).")
@click.option("--games", type=int,
              help="Play a paired series of N games (seats swapped; see docs/series.md).")
@click.option("--boards", "board_sets", multiple=True, metavar="DIR",
              help="Series boards, drawn in turn: a folder, a file or a pattern (repeatable).")
@click.option("--sprt", metavar="SPEC",
              help="Stop the series when the SPRT decides: elo0=0,elo1=10,alpha=0.05,beta=0.05.")
@click.option("--cluster", metavar="ADDRESS", help="Play the series on a Dask cluster (tcp://HOST:PORT).")
@click.option("--jobs", type=click.IntRange(min=1), help="Series games played at once (default: cores).")
@click.option("--resume", is_flag=True, help="Finish an interrupted series in --out (same options).")
def play(game: str, players: tuple[str, ...], board: Path | None, variant: str | None,
         seed: str | None, out: Path | None, quiet: bool | None, time_limit: str | None,
         policy: str | None, assignments: tuple[str, ...], config: Path | None, replace: bool,
         color: bool | None, sandbox: str | None, games: int | None = None,
         board_sets: tuple[str, ...] = (), sprt: str | None = None, cluster: str | None = None,
         jobs: int | None = None, resume: bool = False) -> None:
    """Play one match of GAME and write its folder (or a series with --games)."""
    from referee.console import ConsoleObserver, format_result
    from referee.core import preflight
    from referee.core.match import Match, MatchSpec, Observer, prepare

    conf = load_config(config) if config else {}
    base = config.resolve().parent if config else Path.cwd()
    if conf.get("game") not in (None, game):
        raise InputError(f"config is for game {conf['game']!r}, not {game!r}", str(config))
    settings = dict(conf.get("settings") or {})
    limits = dict(conf.get("limits") or {})
    for text in assignments:
        key, value = parse_assignment(text)
        settings[key] = value
    if time_limit is not None:
        settings["soft_time"] = time_limit
    elif conf.get("time_limit") is not None:
        settings.setdefault("soft_time", conf["time_limit"])

    def conf_path(key: str) -> Path | None:
        return (base / conf[key]) if conf.get(key) is not None else None

    player_list = list(players) or list(conf.get("players") or conf.get("player") or [])
    if not player_list:
        raise InputError("no players: give --player CMD once per seat")
    quiet = bool(conf.get("quiet", False)) if quiet is None else quiet
    if games is not None or board_sets or sprt or cluster or jobs or resume:
        from referee.tournament.series import play_series

        play_series(game, player_list, games, board or conf_path("board"), board_sets, sprt,
                    cluster, jobs, variant=variant or conf.get("variant"),
                    seed=seed_value(seed, name="--seed") if seed is not None
                    else seed_value(conf.get("seed"), str(config)), out=out or conf_path("out"),
                    policy=policy or conf.get("policy"), settings=settings, limits=limits,
                    names=conf.get("names"), replace=replace, base=base,
                    sandbox=sandbox or str(conf.get("sandbox") or "auto"), resume=resume)
        return
    if color is None:
        color = sys.stdout.isatty()
    from referee.resources import resolve_board

    spec = MatchSpec(game=game, players=player_list,
                     board=resolve_board(game, board or conf_path("board")),
                     variant=variant or conf.get("variant"),
                     seed=seed_value(seed, name="--seed") if seed is not None
                     else seed_value(conf.get("seed"), str(config)),
                     out=out or conf_path("out"), policy=policy or conf.get("policy"),
                     settings=settings, limits=limits, names=conf.get("names"),
                     quiet=quiet, color=color, replace=replace, base_dir=base,
                     sandbox=sandbox or str(conf.get("sandbox") or "auto"))
    prepared = prepare(spec)
    preflight.check_match(prepared)  # a command that cannot start fails here, not every step
    if quiet:
        result = Match(prepared, Observer()).run()
        click.echo(format_result(result, prepared.names))
    else:
        Match(prepared, ConsoleObserver(boards=True, color=color)).run()


@main.command()
@click.argument("game")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--variant", help="Game variant the file is for.")
def validate(game: str, file: Path, variant: str | None) -> None:
    """Check a board / start-position FILE for GAME."""
    from referee.core.textgrid import read_board_file
    from referee.games import get_game
    from referee.resources import resolve_board

    g = get_game(game)
    variant = variant or g.variants[0]
    file = resolve_board(g.name, file) or file
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
            click.echo(f"{match_dir}: {head}: {report.message}", err=True)
            sys.exit(1)
        click.echo(f"{match_dir}: {report.message}")
        return
    game_replay = replay_mod.load(match_dir)
    if html:
        replay_mod.write_html(game_replay, html)
        click.echo(f"wrote {html}")
        return
    if step is not None:
        click.echo(replay_mod.show(game_replay, step, color))
        return
    replay_mod.interactive(game_replay, color)


@main.command("new-player")
@click.argument("game")
@click.argument("directory", type=click.Path(path_type=Path))
@click.option("--lang", type=click.Choice(["python", "cpp"]), default="python", show_default=True)
def new_player(game: str, directory: Path, lang: str) -> None:
    """Write a ready-to-run player template for GAME into DIRECTORY."""
    from referee.templates import write_template

    for line in write_template(game, directory, lang):
        click.echo(line)


def _register_optional_commands() -> None:
    """Commands that live with the feature they belong to."""
    import importlib
    import importlib.util

    for module, attr in (("referee.tournament.command", "tournament_command"),
                         ("referee.checks", "check_command")):
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            found = False
        if found:
            main.add_command(getattr(importlib.import_module(module), attr))


_register_optional_commands()

if __name__ == "__main__":
    main()
