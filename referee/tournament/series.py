"""A paired series: ``referee play GAME --player A --player B --games N``.

"Is my new version better?" is answered the way chess-engine testers answer
it: many games in pairs (same board and seed, seats swapped), a score, an Elo
difference with its 95% interval counted over pairs (pentanomial), and
optionally a sequential test (SPRT) that stops as soon as it decides.  With
more seats (Tsuro, 4-player Quoridor) a "pair" is a rotation: every player
takes every seat once on the same board, and the summary adds each player's
average rank and a Plackett-Luce rating.

A series is a small tournament with a fixed schedule, so it reuses the
tournament's machinery: the same worker process per game, journal, progress
bar, game records and standings; only the planner (which games, when to
stop) and the report are its own.
"""
from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence, TextIO

from referee.core import files, settings as settings_mod, trees
from referee.core.errors import InputError
from referee.core.humans import is_human
from referee.core.log import read_log
from referee.core.match import default_out, prepare
from referee.core.rng import derived_rng
from referee.core.runner import usable_cores
from referee.core.visible import visible

from .config import Entrant, TournamentConfig, match_spec, saved_chance
from .journal import GameJob, GameRecord
from .lock import LOCK_FILE, OutputLock
from .planner import Plan
from .ratings import (SprtSpec, describe_elo, elo_interval, pair_shape, parse_sprt, pentanomial,
                      same_games, sprt_decision, sprt_llr)
from .report import games_csv
from .runner import STATE_FILE, Summary, Tournament
from .standings import FAULTS, Standing, compute_standings


@dataclass(frozen=True)
class SeriesConfig(TournamentConfig):
    """A tournament config whose schedule is ``games`` games in rotations."""

    games: int = 2
    sprt: SprtSpec | None = None

    KIND = "series"
    FOLDER = "series folder"
    ELSEWHERE = "give another --out folder"
    ENTRANT = "player"
    OPTIONS = {"game": "GAME", "variant": "--variant", "players": "--player", "entrants": "--player",
               "boards": "--board/--boards", "limits": "--time-limit/--set", "settings": "--set",
               "policy": "--policy", "seed": "--seed", "games": "--games", "sprt": "--sprt"}
    """The option that sets each key of the fingerprint: a series has no
    config file of its own, so a refused --resume names what to give again."""

    def fingerprint(self) -> dict[str, Any]:
        data = super().fingerprint()
        data.update(games=self.games, sprt=None if self.sprt is None else self.sprt.text())
        return data

    def changed_text(self, changed: list[str]) -> str:
        options = list(dict.fromkeys(self.OPTIONS.get(key, key) for key in changed))
        return (f"the options changed since this series started ({', '.join(options)}); "
                f"run it with the ones it started with, or {self.ELSEWHERE}")


def player_names(commands: Sequence[str]) -> list[str]:
    """Short, unique names: ``builtin:greedy`` -> ``greedy``; a repeated
    command gets ``#2``, ``#3``."""
    names: list[str] = []
    for command in commands:
        base = command.split(":", 1)[1] if command.startswith("builtin:") else command
        base = base if len(base) <= 32 else "..." + base[-29:]
        name, n = base, 1
        while name in names:
            n += 1
            name = f"{base}#{n}"
        names.append(name)
    return names


def make_config(game: str, players: Sequence[str], boards: Sequence[Path | None], games: int,
                seed: int, out: Path, base_dir: Path, variant: str | None = None,
                policy: str | None = None, settings: dict[str, Any] | None = None,
                limits: dict[str, Any] | None = None, sprt: SprtSpec | None = None,
                names: Sequence[str] | None = None, sandbox: str = "auto",
                pass_env: Sequence[str] = (), key: str | None = None) -> SeriesConfig:
    """Check everything before any game runs: every board is prepared as a
    match would be (InputError, one line, on the first problem)."""
    if games < 1:
        raise InputError(f"--games must be at least 1, got {games}")
    if games > settings_mod.MAX_GAMES:
        raise InputError(f"--games must be at most {settings_mod.MAX_GAMES}, got {games}")
    if sprt is not None and len(players) != 2:
        raise InputError("--sprt needs a two-player series (it tests A against B)")
    names = list(names) if names else player_names(players)
    config = SeriesConfig(
        path=Path(base_dir).resolve() / "series", game=game, variant=variant,
        table_size=len(players), boards=tuple(boards) or (None,),
        entrants=tuple(Entrant(n, c) for n, c in zip(names, players)), format="series",
        seeding="config", rounds=None, limits=dict(limits or {}), policy=policy,
        settings=dict(settings or {}), seed=seed, out=Path(out), sandbox=sandbox, games=games,
        sprt=sprt, pass_env=tuple(pass_env), key=key)
    for board in config.boards:
        prepare(match_spec(config, tuple(range(len(players))), board, 0, config.out / ".check-only"))
    return config


# ----- which games, and when to stop ---------------------------------------------

@dataclass(frozen=True)
class SprtState:
    llr: float
    decision: str | None  # "H0", "H1" or None
    pairs: int            # complete pairs the test has seen
    same: bool = False    # its pairs (two or more) were all the same game: no decision


class SeriesPlanner:
    """Rotation ``i`` plays board ``(i - 1) mod boards`` with its own seed,
    every seat order once.  Pure: the same records give the same plan, so
    ``--jobs`` and a cluster change nothing but speed.  The SPRT looks at
    complete rotations in order only, so where it stops does not depend on
    which game happened to finish first; games still running when it decides
    are played out and kept in the folder but not counted."""

    def __init__(self, config: SeriesConfig) -> None:
        self.config = config
        size = config.table_size
        self.rotations = math.ceil(config.games / size)
        width = max(4, len(str(self.rotations)))
        entrants = tuple(range(size))
        self.by_rotation: list[tuple[GameJob, ...]] = []
        for i in range(1, self.rotations + 1):
            board = (i - 1) % len(config.boards)
            seed = derived_rng(config.seed, "series", i).randrange(2 ** 31)
            self.by_rotation.append(tuple(
                GameJob(f"p{i:0{width}d}-b{board + 1}-s{r + 1}", f"p{i:0{width}d}",
                        entrants[r:] + entrants[:r], board, seed)
                for r in range(size)))
        self._trace: list[SprtState] = []  # the SPRT after pair 1, 2, ...
        self._counts = [0] * 5
        self._first: tuple | None = None  # the first pair's games (ratings.pair_shape)

    def complete(self, records: dict[str, GameRecord]) -> list[list[GameRecord]]:
        """The leading rotations whose games are all recorded."""
        done = []
        for jobs in self.by_rotation:
            if any(j.key not in records for j in jobs):
                break
            done.append([records[j.key] for j in jobs])
        return done

    def sprt(self, rotations: list[list[GameRecord]]) -> SprtState | None:
        """The test after each complete pair in order, up to its decision.
        Complete pairs never change, so the states already computed are kept
        (the planner asks after every game; a long series would otherwise
        redo every earlier step each time).

        While every pair so far (two or more) was the same game, the test
        decides nothing, and the series plays on: the Elo line calls such a
        series "not measurable" (two deterministic players on one board),
        and the LLR of N copies of one pair, its variance fishtest's
        regularisation alone, accepted H0 after 5 pairs all the same."""
        spec = self.config.sprt
        if spec is None:
            return None
        trace = self._trace
        while len(trace) < len(rotations) and not (trace and trace[-1].decision):
            pair = rotations[len(trace)]
            self._counts[int(round(2 * sum(r.points(0) for r in pair)))] += 1
            llr = sprt_llr(self._counts, spec)
            shape = pair_shape(pair)
            if self._first is None:
                self._first = shape
            same = bool(trace) and (trace[-1].same or len(trace) == 1) and shape == self._first
            trace.append(SprtState(llr, None if same else sprt_decision(llr, spec), len(trace) + 1, same))
        if trace and trace[-1].decision:
            return trace[-1]
        if not rotations:
            return SprtState(0.0, None, 0)
        return trace[len(rotations) - 1]

    def counted(self, records: dict[str, GameRecord]) -> tuple[list[list[GameRecord]], SprtState | None]:
        """The rotations the summary counts (up to the SPRT's decision)."""
        rotations = self.complete(records)
        state = self.sprt(rotations)
        if state is not None and state.decision:
            rotations = rotations[:state.pairs]
        return rotations, state

    def plan(self, records: dict[str, GameRecord]) -> Plan:
        rotations, state = self.counted(records)
        if (state is not None and state.decision) or len(rotations) == self.rotations:
            return Plan([], {}, True, len(records))
        pending = [j for jobs in self.by_rotation for j in jobs if j.key not in records]
        return Plan(pending, {}, False, len(records) + len(pending))


# ----- the summary -----------------------------------------------------------------

@dataclass
class SeriesSummary(Summary):
    text: str = ""
    sprt: SprtState | None = None
    elo: Any = None                 # EloEstimate of player 1 over player 2 (two players)
    pair_counts: list[int] = field(default_factory=list)  # pentanomial counts for player 1
    uncounted: int = 0
    average_rank: dict[int, float] = field(default_factory=dict)
    same_games: bool = False  # every pair replayed the same games (see ratings.same_games)
    first_faults: dict[int, str] = field(default_factory=dict)  # entrant: its first fault's game and message


class Series(Tournament):
    """Plays a series with the tournament runner (workers, journal, progress)."""

    def __init__(self, config: SeriesConfig) -> None:
        self.config = config
        self.seeded = tuple(range(config.table_size))
        self.planner = SeriesPlanner(config)

    def report(self, records: dict[str, GameRecord], failure: str | None = None,
               interrupted: bool = False) -> SeriesSummary:
        config = self.config
        rotations, state = self.planner.counted(records)
        counted = [r for rotation in rotations for r in rotation]
        rows = compute_standings(counted, config.names, self.seeded, rated=config.table_size > 2)
        plan = self.planner.plan(records)
        summary = SeriesSummary(plan, rows, None, len(counted), failure, interrupted, sprt=state,
                                uncounted=len(records) - len(counted))
        summary.average_rank = average_ranks(counted, config.table_size)
        summary.first_faults = first_faults(config.out, list(records.values()))
        if config.table_size == 2:
            summary.pair_counts = pentanomial([sum(r.points(0) for r in rotation) for rotation in rotations])
            summary.elo = elo_interval(summary.pair_counts)
            summary.same_games = same_games(rotations)
        summary.text = summary_text(config, summary, len(rotations))
        files.write_text(config.out / "summary.txt", summary.text)
        files.write_text(config.out / "games.csv",
                         games_csv(config, sorted(records.values(), key=lambda r: r.key)))
        return summary


FAULT_SHOWN = 300
"""Characters of an entrant's first fault message shown in the summary."""


def first_faults(out: Path, records: Sequence[GameRecord]) -> dict[int, str]:
    """Each entrant's first fault of the series (the first game, by key, in
    which it has one; the first such step of its log): the game and the
    log's message, so that "faults: CRASH 4" says why without a look into
    a game's folder (a bot that fails to start crashes in every game)."""
    found: dict[int, str] = {}
    for record in sorted(records, key=lambda r: r.key):
        for seat, counts in sorted(record.verdicts.items()):
            if not 1 <= seat <= len(record.seats):
                continue
            entrant = record.seats[seat - 1]
            if entrant in found or not any(counts.get(v) for v in FAULTS):
                continue
            message = _first_fault(out / record.folder, seat)
            if message is not None:
                found[entrant] = f"{Path(record.folder).name}, {message}"
    return found


def _first_fault(game: Path, seat: int) -> str | None:
    """The message of ``seat``'s first faulty step in the game's log, if any
    (none from a log that is missing or damaged: the counts are said still)."""
    try:
        for record in read_log(game):
            if record["player"] == seat and record.get("verdict") in FAULTS \
                    and isinstance(record.get("message"), str):
                return record["message"]
    except InputError:
        return None
    return None


def average_ranks(records: Sequence[GameRecord], size: int) -> dict[int, float]:
    """Each player's mean place (1 = first; tied players share the better
    place)."""
    totals = {e: 0.0 for e in range(size)}
    counts = {e: 0 for e in range(size)}
    for record in records:
        place = 1
        for group in record.ranking:
            for seat in group:
                entrant = record.seats[seat - 1]
                totals[entrant] += place
                counts[entrant] += 1
            place += len(group)
    return {e: totals[e] / counts[e] if counts[e] else math.nan for e in range(size)}


def summary_text(config: SeriesConfig, summary: SeriesSummary, rotations: int) -> str:
    """What the terminal and ``summary.txt`` show; see docs/series.md.
    Names (commands, or a config's ``names:``) and a fault's message (a
    player's stderr in it) are shown as ``play`` shows them (:func:`visible`):
    an escape sequence in one reached the terminal raw."""
    rows: list[Standing] = sorted(summary.standings, key=lambda r: r.entrant)
    name = {r.entrant: visible(r.name, lines=False) for r in rows}
    size = config.table_size
    unit = "pairs" if size == 2 else "rotations"
    names = ["default" if b is None else b.name for b in config.boards]
    boards = ", ".join(names) if len(names) <= 3 else f"{len(names)} ({names[0]} .. {names[-1]})"
    count = f"{rotations} {unit if rotations != 1 else unit[:-1]}"
    lines = [f"Series: {config.game}, {summary.games} games ({count}), seed {config.seed}, boards: {boards}"]
    header = ["player", "games", "wins", "draws", "losses", "points", "score"]
    header += ["avg rank", "rating (95%)"] if size > 2 else []
    grid = [header]
    for r in rows:
        share = f"{100 * r.points / r.games:.1f}%" if r.games else "-"
        line = [name[r.entrant], str(r.games), str(r.wins), str(r.draws), str(r.losses), f"{r.points:g}", share]
        if size > 2:
            rank = summary.average_rank.get(r.entrant, math.nan)
            line += [f"{rank:.2f}" if math.isfinite(rank) else "-",
                     f"{r.rating:+.0f} ({r.rating_low:+.0f}..{r.rating_high:+.0f})"]
        grid.append(line)
    widths = [max(len(g[c]) for g in grid) for c in range(len(header))]
    lines += ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(g, widths)))
              .rstrip() for g in grid]
    a, b = (name[rows[0].entrant], name[rows[1].entrant]) if size == 2 else ("", "")
    if summary.elo is not None and rotations:
        est, counts = summary.elo, summary.pair_counts
        elo = describe_elo(est, summary.same_games, len(config.boards) == 1, a)
        lines.append(f"Elo {a} - {b}: {elo}  over {est.samples} pairs "
                     f"(pentanomial: pairs scoring 0/0.5/1/1.5/2 for {a}: {' '.join(map(str, counts))})")
    if summary.sprt is not None:
        spec, state = config.sprt, summary.sprt
        bounds = f"bounds [{spec.lower:.2f}, {spec.upper:.2f}]"
        if state.decision == "H1":
            verdict = f"H1 accepted: {a} is stronger by about {spec.elo1:g} Elo or more"
        elif state.decision == "H0":
            verdict = f"H0 accepted: {a} is not stronger by {spec.elo1:g} Elo (about {spec.elo0:g} or less)"
        elif state.same:
            verdict = f"not measurable: all {state.pairs} pairs were the same game, no decision (see the Elo line)"
        else:
            verdict = "no decision yet (more games needed)"
        lines.append(f"SPRT {spec.text()}: {verdict}; LLR {state.llr:.2f} {bounds} "
                     f"after {state.pairs} pairs")
    for r in rows:
        seen = {v: n for v, n in r.verdicts.items() if n}
        faults = ", ".join(f"{v} {seen[v]}" for v in FAULTS if v in seen) or "none"
        first = summary.first_faults.get(r.entrant)
        if first is not None:
            first = visible(first, lines=False)
            shown = first if len(first) <= FAULT_SHOWN else first[:FAULT_SHOWN - 3] + "..."
            faults += f"; the first: {shown}"
        lines.append(f"verdicts {name[r.entrant]}: OK {seen.get('OK', 0)}; faults: {faults}")
    if summary.uncounted:
        lines.append(f"{summary.uncounted} game(s) finished after the SPRT decided or in an incomplete "
                     f"{unit[:-1]}: in the folder, not counted")
    lines.append(f"series folder: {config.out} (summary.txt, games.csv, games/<game>/)")
    return "\n".join(lines) + "\n"


def prepare_out(out: Path, replace: bool) -> None:
    """A series folder is new, or replaced as a whole with --replace (only if
    it is one: --replace never deletes anything else).  Called with the
    folder's lock held (if the folder exists): no other run is playing in the
    folder this removes, and the lock file stays (see :mod:`.lock`)."""
    files.check_folder(out)
    if out.exists() and any(p.name != LOCK_FILE for p in out.iterdir()):
        series = holds_series(out)
        if not replace:
            if series:  # most often an interrupted one: --replace alone would throw its games away
                raise InputError(f"output folder {out} already holds a series: add --resume to finish it, "
                                 "or --replace to play it again from the start (its games are deleted)")
            raise InputError(f"output folder {out} exists, is not empty and holds no series "
                             "(--replace only replaces a series folder); give another --out folder")
        if not series:
            raise InputError(f"output folder {out} is not a series folder; --replace only replaces those")
        if not all([trees.remove_tree(p) for p in sorted(out.iterdir()) if p.name != LOCK_FILE]):
            raise InputError(f"output folder {out} could not be removed whole")


def holds_series(out: Path) -> bool:
    """Whether ``out`` is a series folder: its state file says so (a
    tournament's results folder has one too, and --replace must not take it
    for a series' and delete it; nor one whose state file cannot be read)."""
    try:
        state = json.loads((out / STATE_FILE).read_text(encoding="utf-8"))
        return state["config"]["format"] == "series"
    except (OSError, ValueError, RecursionError, KeyError, TypeError):
        return False


def run_series(config: SeriesConfig, jobs: int, play=None, log: TextIO = sys.stderr,
               resume: bool = False, lock: OutputLock | None = None) -> SeriesSummary:
    return Series(config).run(jobs, resume=resume, play=play, log=log,  # type: ignore[return-value]
                              lock=lock)


def saved_seed(out: Path) -> int | None:
    """The seed an interrupted series was started with (so ``--resume``
    works without repeating a seed that was drawn at random)."""
    import json

    try:
        return int(json.loads((out / STATE_FILE).read_text(encoding="utf-8"))["config"]["seed"])
    except (OSError, ValueError, KeyError, TypeError):
        raise InputError(f"{out} holds no series to resume") from None


def play_series(game: str, players: Sequence[str], games: int | None, board: Path | None,
                board_sets: Sequence[str], sprt: str | None, cluster: str | None, jobs: int | None,
                *, variant: str | None, seed: int | None, out: Path | None, policy: str | None,
                settings: dict[str, Any], limits: dict[str, Any], names: Sequence[str] | None,
                replace: bool, base: Path, sandbox: str = "auto", resume: bool = False,
                pass_env: Sequence[str] = ()) -> None:
    """The ``play --games`` command: check, play, print the summary; exit 1
    if the referee failed on a game, 130 if interrupted."""
    import secrets

    import click

    from .config import _expand_boards

    if games is None:
        raise InputError("--boards, --sprt, --cluster, --jobs and --resume are for a series: add --games N")
    human = next((p for p in players if is_human(p)), None)
    if human is not None:
        raise InputError(f"{human.strip()}: a human cannot play a series (--games); "
                         "play one game at a time without --games, or use builtin:NAME or a command")
    try:
        spec = parse_sprt_option(sprt)
    except ValueError as exc:
        raise InputError(f"--sprt: {exc}") from None
    boards: list[Path | None] = [Path(board).resolve()] if board is not None else []
    for item in board_sets:
        found = _expand_boards(Path.cwd(), item, game)
        if not found:
            raise InputError(f"--boards {item!r} names no board file")
        boards.extend(p.resolve() for p in found)
    if resume:
        if out is None:
            raise InputError("--resume needs --out: the series folder to finish")
    key = None  # a seed given: each game's key from its seed; else a secret one, kept for --resume
    if resume:
        if seed is None:
            seed, key = saved_seed(Path(out)), saved_chance(Path(out))[1]
    elif seed is None:
        key = secrets.token_hex(16)
    seed = seed if seed is not None else secrets.randbelow(2 ** 31)
    out = Path(out) if out is not None else default_out(game, seed, base / "step_logs", "series")
    # An existing folder is locked before it is looked at, let alone
    # replaced: another run in it is refused first (a new one is locked as
    # it is made, by the run).
    lock = OutputLock(out, SeriesConfig.KIND, SeriesConfig.FOLDER)
    play = None
    try:
        try:
            lock.take(make=False)
            if not resume:
                prepare_out(out, replace)
            config = make_config(game, players, boards, games, seed, out, base, variant, policy,
                                 settings, limits, spec, names, sandbox, pass_env, key)
            if cluster:
                from .cluster import DaskPlay

                play = DaskPlay(cluster)
                jobs = jobs or play.slots()
        except InputError:
            lock.undo()  # a refused start leaves no lock file in a folder that had none
            raise
        summary = run_series(config, jobs or usable_cores(), play, resume=resume, lock=lock)
    finally:
        if play is not None:
            play.close()
        lock.release()
    click.echo(summary.text, nl=False)
    if summary.failure:
        click.echo(f"referee: error: {summary.failure}; fix it, then run the same command with --resume",
                   err=True)
        sys.exit(1)
    if summary.interrupted:
        click.echo("referee: interrupted; run the same command with --resume to finish", err=True)
        sys.exit(130)


def parse_sprt_option(text: str | None) -> SprtSpec | None:
    return None if text is None else parse_sprt(text)
