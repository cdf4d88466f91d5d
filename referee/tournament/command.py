"""``referee tournament CONFIG.yaml [--resume] [--jobs N] [--cluster ADDRESS]``.

Exit 0 when the tournament is complete, 2 for a bad config (one line naming
the file, line and key) or another run in its results folder (:mod:`.lock`),
1 when the referee itself failed on a game, 130 when interrupted; the last two
leave a state that ``--resume`` finishes.
"""
from __future__ import annotations

import sys
from pathlib import Path

import click

from referee.core.preflight import check_entrants
from referee.core.runner import usable_cores
from referee.core.visible import visible


@click.command("tournament")
@click.argument("config_file", metavar="CONFIG.yaml", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--resume", is_flag=True,
              help="Finish an interrupted tournament; finished games are not replayed.")
@click.option("--jobs", type=click.IntRange(min=1), help="Games played at once (default: number of cores).")
@click.option("--cluster", metavar="ADDRESS",
              help="Play the games on a Dask cluster, e.g. tcp://10.0.0.5:8786 (default jobs: its threads).")
def tournament_command(config_file: Path, resume: bool, jobs: int | None, cluster: str | None) -> None:
    """Play a tournament described by CONFIG.yaml (see docs/tournaments.md)."""
    # Imported here, not at the top: numpy and jinja2 (ratings, the report)
    # would otherwise cost every `referee` command ~0.3 s of CPU at start-up.
    from .config import load_config
    from .runner import Tournament
    from .standings import text_table

    config = load_config(config_file)
    check_entrants(config)  # every entrant's command can start, before the first game
    play = None
    if cluster:
        from .cluster import DaskPlay

        play = DaskPlay(cluster)
    try:
        summary = Tournament(config).run(jobs or (play.slots() if play else usable_cores()), resume, play)
    except KeyboardInterrupt:  # a second Ctrl-C while the first one's games stopped (was 'Aborted!',
        # exit 1): --resume cuts a torn journal line and plays again what it lacks
        click.echo("referee: interrupted; run again with --resume to finish", err=True)
        sys.exit(130)
    finally:
        if play is not None:
            play.close()
    if summary.bracket:
        click.echo(summary.bracket)
    click.echo(text_table(summary.standings), nl=False)
    click.echo(f"\n{summary.games} games; standings: {config.out / 'standings.md'} "
               f"(also standings.csv, games.csv)")
    if summary.failure:
        click.echo(f"referee: error: {visible(summary.failure, lines=False)}; fix it, then run again with --resume", err=True)
        sys.exit(1)
    if summary.interrupted:
        click.echo("referee: interrupted; run again with --resume to finish", err=True)
        sys.exit(130)
