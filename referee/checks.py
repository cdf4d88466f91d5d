"""``referee check``: graders for assignment parts that are not whole games
(e.g. Quoridor Part 1's get_neighbors / get_shortest_path).  A game package
offers them as ``CHECKS``, a list of click commands; they are found by
looking, only when ``referee check`` runs."""
from __future__ import annotations

import importlib

import click

from referee.games import available_games


def _discover() -> dict[str, click.Command]:
    found = {}
    for name in available_games():
        module = importlib.import_module(f"referee.games.{name}")
        for command in getattr(module, "CHECKS", []):
            found[command.name] = command
    return found


class _Checks(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_discover())

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        return _discover().get(name)


@click.group("check", cls=_Checks)
def check_command() -> None:
    """Grade a student file against an assignment part."""
