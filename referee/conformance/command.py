"""``referee check-game NAME``: the conformance kit from the command line."""
from __future__ import annotations

import sys

import click

from . import CHECKS, run_checks


@click.command("check-game")
@click.argument("game")
@click.option("--playouts", type=click.IntRange(min=1), default=20, show_default=True,
              help="Seeded random playouts per player count.")
@click.option("--seed", "first_seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="The first playout seed (seeds SEED, SEED+1, ...).")
@click.option("--check", "only", multiple=True, type=click.Choice(list(CHECKS)),
              help="Run only this check (repeatable).")
def check_game_command(game: str, playouts: int, first_seed: int, only: tuple[str, ...]) -> None:
    """Check that GAME follows the referee's game contract (docs/writing-a-game.md):
    determinism, pure apply, decision text, errors, codecs under fuzzing,
    outcomes, hidden information, a verified match and the replay scene.
    Exits 1 if any check fails."""
    from referee.core.registry import canonical_name

    game = canonical_name(game)  # as the registry reads it: any case
    failed = 0
    for result in run_checks(game, playouts, first_seed, only or None):
        mark = "ok  " if not result.failures else "FAIL"
        click.echo(f"{mark} {result.check:<14} {result.seconds:6.2f} s")
        for line in result.failures:
            click.echo(f"     {game}: {line}")
        failed += bool(result.failures)
    if failed:
        click.echo(f"{game}: {failed} check(s) failed", err=True)
        sys.exit(1)
    click.echo(f"{game}: every check passed")
