"""``referee new-game``: see :mod:`referee.scaffold`."""
from __future__ import annotations

from pathlib import Path

import click

from . import write_game


@click.command("new-game")
@click.argument("name")
@click.option("--players", type=int, default=2, show_default=True, help="Players per game (2-8).")
@click.option("--dir", "directory", type=click.Path(path_type=Path),
              help="Folder to write the package into (default: ./NAME).")
def new_game_command(name: str, players: int, directory: Path | None) -> None:
    """Write a new game NAME as a package of its own (rules, codecs, board,
    replay scene, players, template, rules page, tests) that plays at once
    after `pip install -e` (docs/writing-a-game.md)."""
    for line in write_game(name, directory, players):
        click.echo(line)
