"""``referee check``: graders for assignment parts that are not whole games
(e.g. Quoridor Part 1's get_neighbors / get_shortest_path).  A game package
offers them as ``CHECKS``, a list of click commands, in the module its
``referee.games`` entry point names; they are found only when ``referee
check`` runs, and a game that fails to load costs only its own checks."""
from __future__ import annotations

import click

from referee.core import registry
from referee.core.errors import InputError


def _discover() -> dict[str, click.Command]:
    found = {}
    for name in registry.available_games():
        try:
            module = registry.game_module(name)
        except InputError:
            continue  # said when the game itself is asked for
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
