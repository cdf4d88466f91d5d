"""The conformance kit: what every game must do for the referee to judge it,
checked over many seeded random playouts (``referee check-game NAME``, and
:mod:`referee.conformance.testing` for a game's own pytest suite).

Why a kit: the referee trusts a game's rules for everything it records,
replays and verifies; a game that mutates a state in ``apply``, prints a
decision it cannot parse back, or lets a hidden hand into another player's
view breaks verification or fairness far from the cause.  PettingZoo's
``api_test`` and OpenSpiel's game tests do the same for their frameworks.

Each check returns failures, one line each, that name the game function at
fault and a way to reproduce it (the playout seed, the player count and the
step; or the fuzzed input).  ``playout(game, seed, players)`` rebuilds any
playout: the same seed gives the same decisions.

The checks:

- ``determinism``: the same seed and decisions give the same state hashes;
- ``apply_pure``: ``apply`` never changes the state it is given;
- ``decision_text``: every legal decision survives its text form
  (``str(decision)``, what the log records) and ``parse_decision``;
- ``illegal``: malformed texts raise the game's ``DecisionError`` with a
  message, and decisions legal elsewhere but not here get a reason from
  ``illegal_reason``; nothing else is raised;
- ``codec_fuzz``: ``parse_board`` raises only ``InputError`` and
  ``parse_decision`` only ``DecisionError`` on fuzzed text (hypothesis when
  installed, the ``kit`` extra; else a seeded mutator);
- ``outcome``: turns, legal moves and outcomes are well formed;
- ``views``: every view (Board.txt, snapshots, state.json) can be written,
  a game with hidden information (``Game.resample``) shows a player the
  same view of every state it cannot tell apart, and a game whose views are
  shared (``Game.shared_views``) shows every player the full state's;
- ``match``: a match played through the real match loop verifies
  (``referee replay --verify``) and its HTML replay is written;
- ``scene``: the replay scene (if the game declares one) draws every state
  as JSON data and names a script that exists.
"""
from __future__ import annotations

import functools
import json
import random
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Hashable, Iterable

from referee.core import registry
from referee.core import settings as settings_mod
from referee.core.errors import InputError
from referee.core.files import canonical_json
from referee.core.game import DecisionError, Game, GameState, Setup
from referee.core.log import state_hash

MAX_STEPS = 3000
"""A playout longer than this counts as a game that never ends."""
SAMPLE = 40
"""Decisions checked per state by the costlier checks (all of them in the
first playouts)."""


@dataclass
class Playout:
    """One seeded random game: its setup and every (state, player, decision)."""

    seed: int
    setup: Setup
    states: list[GameState] = field(default_factory=list)
    steps: list[tuple[int, Hashable]] = field(default_factory=list)
    problem: str | None = None

    def where(self, step: int | None = None) -> str:
        at = "" if step is None else f", step {step}"
        return f"(playout seed {self.seed}, {self.setup.players} players{at})"


def default_setup(game: Game, seed: int, players: int, variant: str | None = None) -> Setup:
    variant = variant or game.variants[0]
    text = game.default_board_text(variant, players)
    board = game.parse_board(text, "<default board>", variant) if text is not None else None
    return Setup(variant=variant, players=players, seed=seed, board=board,
                 settings=settings_mod.split({}, game)[0])


def playout(game: Game, seed: int, players: int, variant: str | None = None) -> Playout:
    """A random game from the default board: at each step the decision the
    referee would take itself (``auto_decision``), else a uniformly random
    legal one drawn from ``seed``."""
    setup = default_setup(game, seed, players, variant)
    rng = random.Random(f"kit:{game.name}:{seed}:{players}")
    run = Playout(seed, setup)
    state = game.initial_state(setup)
    run.states.append(state)
    while not state.is_terminal():
        if len(run.steps) >= MAX_STEPS:
            run.problem = f"is_terminal: still False after {MAX_STEPS} steps {run.where()}"
            break
        player = state.current_player()
        decision = state.auto_decision()
        if decision is None:
            legal = list(state.legal_decisions())
            if not legal:
                run.problem = (f"legal_decisions: empty for player {player} in a state that is not "
                               f"terminal {run.where(len(run.steps) + 1)}")
                break
            decision = rng.choice(legal)
        try:
            state, _ = state.apply(player, decision)
        except Exception as exc:  # noqa: BLE001
            run.problem = (f"apply: raised {type(exc).__name__} ({exc}) on legal decision "
                           f"{decision!s} {run.where(len(run.steps) + 1)}")
            break
        run.steps.append((player, decision))
        run.states.append(state)
    return run


def sampled(run: Playout, n: int, states: int = 25, last: bool = True) -> list[int]:
    """The step indices of ``run`` (the ``n``-th playout) a costly check
    looks at: all of the first playout's, a seeded sample of the others'."""
    steps = list(range(len(run.states) if last else len(run.states) - 1))
    if n == 0 or len(steps) <= states:
        return steps
    return sorted(random.Random(f"sample:{run.seed}:{n}").sample(steps, states))


def player_counts(game: Game) -> list[int]:
    """The player counts the kit plays: the fewest, two, and the most."""
    counts = sorted(set(game.player_counts))
    return sorted({counts[0], counts[-1], *([2] if 2 in counts else [])})


# ----- the checks -----------------------------------------------------------
Check = Callable[[Game, list[Playout]], list[str]]


def check_determinism(game: Game, runs: list[Playout]) -> list[str]:
    failures = []
    for run in runs[:8]:
        again = game.initial_state(run.setup)
        if state_hash(game, again) != state_hash(game, run.states[0]):
            failures.append(f"initial_state: two calls with one setup differ {run.where(0)}")
            continue
        for k, (player, decision) in enumerate(run.steps, 1):
            again, _ = again.apply(player, decision)
            if state_hash(game, again) != state_hash(game, run.states[k]):
                failures.append(f"apply: the same decisions from the same setup reach another state "
                                f"(to_json differs) {run.where(k)}")
                break
    return failures


def check_apply_pure(game: Game, runs: list[Playout]) -> list[str]:
    failures = []
    for n, run in enumerate(runs):
        rng = random.Random(run.seed)
        for k in sampled(run, n, last=False):
            state = run.states[k]
            before = canonical_json(state.to_json())
            player = state.current_player()
            legal = list(state.legal_decisions())
            for decision in legal if n == 0 else rng.sample(legal, min(len(legal), 3)):
                state.apply(player, decision)
                if canonical_json(state.to_json()) != before:
                    return [f"apply: changed the state it was given (decision {decision!s}) "
                            f"{run.where(k + 1)}"]
    return failures


def check_decision_text(game: Game, runs: list[Playout]) -> list[str]:
    for n, run in enumerate(runs):
        rng = random.Random(run.seed)
        for k in sampled(run, n, last=False):
            state = run.states[k]
            legal = list(state.legal_decisions())
            for decision in legal if n == 0 or len(legal) <= SAMPLE else rng.sample(legal, SAMPLE):
                text = str(decision)
                where = run.where(k + 1)
                try:
                    parsed = game.parse_decision(state, text)
                except Exception as exc:  # noqa: BLE001 - the report says what was raised
                    return [f"parse_decision: raised {type(exc).__name__} ({exc}) on {text!r}, the "
                            f"text of a legal decision {where}"]
                if parsed != decision:
                    return [f"parse_decision: {text!r} (str of a legal decision) parsed to "
                            f"{parsed!r}, not {decision!r} {where}"]
                reason = state.illegal_reason(parsed)
                if reason is not None:
                    return [f"illegal_reason: says {reason!r} of a decision legal_decisions lists "
                            f"({text!r}) {where}"]
    return []


MALFORMED = ["", "\n", "?", "xyzzy", "-", "1.5", "9" * 40, "0 " * 200, "\x00", "pass pass pass",
             "é", "[1, 2]", "None"]


def check_illegal(game: Game, runs: list[Playout]) -> list[str]:
    """Malformed text raises DecisionError with a message; decisions seen
    elsewhere and illegal here get a reason; never another exception."""
    seen: list[Hashable] = []
    for run in runs:
        seen.extend(d for _, d in run.steps)
    for n, run in enumerate(runs[:6]):
        rng = random.Random(run.seed)
        for k in sampled(run, n, states=10, last=False):
            state = run.states[k]
            where = run.where(k + 1)
            legal = set(state.legal_decisions())
            for text in MALFORMED:
                try:
                    parsed = game.parse_decision(state, text)
                except DecisionError as exc:
                    if not str(exc).strip():
                        return [f"parse_decision: DecisionError without a message for {text!r} {where}"]
                    continue
                except Exception as exc:  # noqa: BLE001
                    return [f"parse_decision: raised {type(exc).__name__} ({exc}), not DecisionError, "
                            f"on {text!r} {where}"]
                problem = _reason_problem(state, parsed, legal, text, where)
                if problem:
                    return [problem]
            for decision in rng.sample(seen, min(len(seen), 12)):
                if decision in legal:
                    continue
                problem = _reason_problem(state, decision, legal, str(decision), where)
                if problem:
                    return [problem]
    return []


def _reason_problem(state: GameState, decision: Any, legal: set, text: str, where: str) -> str | None:
    try:
        reason = state.illegal_reason(decision)
    except Exception as exc:  # noqa: BLE001
        return f"illegal_reason: raised {type(exc).__name__} ({exc}) for {text!r} {where}"
    if decision in legal:
        return None
    if not (isinstance(reason, str) and reason.strip()):
        return f"illegal_reason: no reason for {text!r}, which legal_decisions does not list {where}"
    return None


def check_codec_fuzz(game: Game, runs: list[Playout]) -> list[str]:
    """Fuzzed board and decision texts raise only the game's own errors
    (more examples when more playouts are asked for)."""
    examples = max(50, min(400, 8 * len(runs)))
    variant = game.variants[0]
    players = player_counts(game)[0]
    board = game.default_board_text(variant, players) or ""
    state = runs[0].states[min(1, len(runs[0].states) - 1)] if runs else None
    decision = str(runs[0].steps[0][1]) if runs and runs[0].steps else "1"

    def board_case(text: str) -> str | None:
        try:
            game.parse_board(text, "<fuzz>", variant)
        except InputError:
            return None
        except Exception as exc:  # noqa: BLE001
            return f"parse_board: raised {type(exc).__name__} ({exc}), not InputError, on {text[:200]!r}"
        return None

    def decision_case(text: str) -> str | None:
        if state is None or state.is_terminal():
            return None
        try:
            game.parse_decision(state, text)
        except DecisionError:
            return None
        except Exception as exc:  # noqa: BLE001
            return (f"parse_decision: raised {type(exc).__name__} ({exc}), not DecisionError, on "
                    f"{text[:200]!r}")
        return None

    return _fuzz(board_case, board, examples) + _fuzz(decision_case, decision, examples)


def _fuzz(case: Callable[[str], str | None], sample: str, examples: int) -> list[str]:
    """Run ``case`` over texts derived from ``sample``: hypothesis's
    generated, shrunk texts when it is installed, else seeded mutations."""
    try:
        from hypothesis import HealthCheck, given, settings, strategies as st
    except ImportError:
        rng = random.Random(f"fuzz:{sample}")
        for _ in range(examples):
            problem = case(_mutate(sample, rng))
            if problem:
                return [problem]
        return []
    found: list[str] = []

    @settings(max_examples=examples, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(st.one_of(st.text(max_size=300), st.randoms(use_true_random=False).map(
        lambda r: _mutate(sample, r))))
    def run(text: str) -> None:
        problem = case(text)
        if problem:
            found[:] = [problem]
            raise AssertionError(problem)

    try:
        run()
    except AssertionError:
        pass
    return found


def _mutate(text: str, rng: random.Random) -> str:
    """A few random edits of ``text``: characters deleted, repeated, swapped
    for digits, signs, separators or odd characters; lines dropped or doubled."""
    chars = list(text)
    pool = "0123456789-+ \t\n#.xX\r\x00é" + text[:50]
    for _ in range(rng.randint(1, 6)):
        op = rng.randrange(5)
        i = rng.randrange(len(chars) + 1)
        if op == 0 and chars:
            del chars[min(i, len(chars) - 1)]
        elif op == 1:
            chars.insert(i, rng.choice(pool))
        elif op == 2 and chars:
            chars[min(i, len(chars) - 1)] = rng.choice(pool)
        elif op == 3:
            lines = "".join(chars).split("\n")
            j = rng.randrange(len(lines))
            lines.insert(j, lines[j]) if rng.random() < 0.5 else lines.pop(j)
            chars = list("\n".join(lines))
        else:
            chars = chars[:i]
    return "".join(chars)


def check_outcome(game: Game, runs: list[Playout]) -> list[str]:
    failures = [run.problem for run in runs if run.problem]
    for run in runs:
        n = run.setup.players
        for k, state in enumerate(run.states):
            where = run.where(k)
            try:
                json.dumps(state.to_json())
            except (TypeError, ValueError) as exc:
                return failures + [f"to_json: not JSON data ({exc}) {where}"]
            if state.is_terminal():
                if state.current_player() is not None:
                    return failures + [f"current_player: {state.current_player()} in a terminal state {where}"]
            elif state.current_player() not in range(1, n + 1):
                return failures + [f"current_player: {state.current_player()!r} is not a player 1..{n} {where}"]
        final = run.states[-1]
        if not final.is_terminal():
            continue
        problem = _outcome_problem(final.outcome(), n)
        if problem:
            return failures + [f"outcome: {problem} {run.where(len(run.steps))}"]
    return failures


def _outcome_problem(outcome: Any, n: int) -> str | None:
    ranked = [p for group in outcome.ranking for p in group]
    if sorted(ranked) != list(range(1, n + 1)):
        return f"ranking {outcome.ranking} does not list players 1..{n} once each"
    if any(not group for group in outcome.ranking):
        return f"ranking {outcome.ranking} has an empty group"
    if outcome.winner is not None and tuple(outcome.ranking[0]) != (outcome.winner,):
        return f"winner {outcome.winner} is not alone at the top of ranking {outcome.ranking}"
    if outcome.scores is not None and not set(outcome.scores) <= set(range(1, n + 1)):
        return f"scores {dict(outcome.scores)} name players outside 1..{n}"
    if not (isinstance(outcome.reason, str) and outcome.reason.strip()):
        return "no reason"
    try:
        json.dumps(outcome.to_json())
    except (TypeError, ValueError) as exc:
        return f"not JSON data ({exc})"
    return None


def views_of(game: Game, state: GameState, viewer: int) -> tuple[str, str, str]:
    return (game.board_text(state, viewer), game.snapshot_text(state, viewer),
            canonical_json(game.view_json(state, viewer)))


RESERVED = ("game", "step", "step_kind", "you", "seed", "players", "scores", "limits", "history")
"""Keys the referee writes into every state.json itself: a game's own value
under one of them would never reach the player (referee/core/views.py)."""


def check_views(game: Game, runs: list[Playout]) -> list[str]:
    if runs:
        state = runs[0].states[0]
        clash = sorted(set(game.view_json(state, 1)) & set(RESERVED))
        if clash:
            return [f"view_json: key(s) {', '.join(clash)} are written by the referee into every "
                    f"state.json, so the game's values never reach the player; rename them "
                    f"{runs[0].where(0)}"]
    for n, run in enumerate(runs):
        rng = random.Random(f"resample:{run.seed}")
        for k in sampled(run, n, states=15):
            state = run.states[k]
            where = run.where(k)
            for viewer in [None, *range(1, run.setup.players + 1)]:
                try:
                    seen = views_of(game, state, viewer) if viewer else None
                    if viewer is None:
                        game.board_text(state, None), json.dumps(game.view_json(state, None))
                        continue
                    if game.shared_views and seen[:2] != (game.board_text(state, None),
                                                          game.snapshot_text(state, None)):
                        return [f"board_text/snapshot_text: the game says its views are shared "
                                f"(shared_views), but player {viewer}'s differs from the full "
                                f"state's {where}"]
                    other = game.resample(state, viewer, rng)
                except Exception as exc:  # noqa: BLE001
                    return [f"board_text/snapshot_text/view_json/resample: raised {type(exc).__name__} "
                            f"({exc}) for viewer {viewer} {where}"]
                if other is None:
                    continue
                if views_of(game, other, viewer) != seen:
                    return [f"view_json/board_text/snapshot_text: player {viewer} sees information "
                            f"hidden from it (its view changes when resample redraws what it cannot "
                            f"know) {where}"]
    return []


def check_match(game: Game, runs: list[Playout]) -> list[str]:
    """The shortest playout played again through the real match loop
    (in-process players that make its decisions), verified as ``referee
    replay --verify`` does, and its HTML replay written."""
    from referee.core.match import Match, MatchSpec, Observer, prepare
    from referee.core.players import human_reply
    from referee.replay import load, write_html
    from referee.verify import verify_folder

    fewest = min(run.setup.players for run in runs)
    run = min((r for r in runs if r.setup.players == fewest and not r.problem),
              key=lambda r: len(r.steps), default=None)
    if run is None:
        return []

    class Replaying:
        """Makes the playout's decisions (by state, so auto decisions the
        referee takes itself are skipped); random legal ones after that."""

        name = "kit:playout"

        def __init__(self) -> None:
            self.by_state = {state_hash(game, s): d for s, (_, d) in zip(run.states, run.steps)}
            self.rng = random.Random(run.seed)

        def decide(self, workdir: Path, step: int, player: int, state: GameState):
            decision = self.by_state.get(state_hash(game, state))
            if decision is None:
                decision = self.rng.choice(list(state.legal_decisions()))
            return human_reply(workdir, player, str(decision), time.monotonic())

    where = f"(the match loop replaying {run.where()})"
    with tempfile.TemporaryDirectory(prefix="referee-kit-") as tmp:
        out = Path(tmp) / "match"
        spec = MatchSpec(game=game.name, players=["human:terminal"] * fewest, seed=run.seed, out=out,
                         sandbox="none", base_dir=Path(tmp))
        prepared = prepare(spec)
        prepared.agents = [Replaying() for _ in range(fewest)]
        try:
            Match(prepared, Observer()).run()
        except Exception as exc:  # noqa: BLE001
            return [f"the match loop: {type(exc).__name__} ({exc}) {where}"]
        report = verify_folder(out)
        if not report.ok:
            return [f"verify: {report.message} {where}"]
        try:
            write_html(load(out), Path(tmp) / "replay.html")
        except Exception as exc:  # noqa: BLE001
            return [f"the HTML replay: {type(exc).__name__} ({exc}) {where}"]
    return []


def check_scene(game: Game, runs: list[Playout]) -> list[str]:
    from referee.web.scenes import scene_module

    module = scene_module(game.name)
    if module is None:
        return []
    script = getattr(module, "SCRIPT", None)
    if script and not Path(script).is_file():
        return [f"scene: SCRIPT names {script}, which does not exist"]
    for run in runs[:6]:
        prev = None
        for k, state in enumerate(run.states):
            record = None
            if k:
                player, decision = run.steps[k - 1]
                _, events = prev.apply(player, decision)
                record = {"step": k, "player": player, "decision": str(decision),
                          "applied": str(decision), "verdict": "OK", "events": events}
            try:
                frame = module.scene(prev, record, state)
                json.dumps(frame)
            except Exception as exc:  # noqa: BLE001
                return [f"scene: {type(exc).__name__} ({exc}) drawing {run.where(k)}"]
            if not isinstance(frame, dict):
                return [f"scene: returned {type(frame).__name__}, not a dict {run.where(k)}"]
            prev = state
    return []


CHECKS: dict[str, Check] = {
    "determinism": check_determinism,
    "apply_pure": check_apply_pure,
    "decision_text": check_decision_text,
    "illegal": check_illegal,
    "codec_fuzz": check_codec_fuzz,
    "outcome": check_outcome,
    "views": check_views,
    "match": check_match,
    "scene": check_scene,
}


@dataclass
class Result:
    check: str
    failures: list[str]
    seconds: float


def playouts(game: Game, count: int, first_seed: int = 0) -> list[Playout]:
    """``count`` playouts for each player count the kit plays."""
    return [playout(game, seed, players) for players in player_counts(game)
            for seed in range(first_seed, first_seed + count)]


@functools.lru_cache(maxsize=8)
def _cached_playouts(name: str, count: int, first_seed: int) -> list[Playout]:
    """States are values, so one game's playouts serve every check (pytest
    runs each check as its own test)."""
    return playouts(registry.get_game(name), count, first_seed)


def run_checks(name: str, count: int = 20, first_seed: int = 0,
               only: Iterable[str] | None = None) -> Iterable[Result]:
    """Every check (or ``only`` these) of game ``name``, as each finishes."""
    game = registry.get_game(name)
    started = time.monotonic()
    try:
        runs = _cached_playouts(name, count, first_seed)
    except Exception as exc:  # noqa: BLE001 - initial_state or the default board
        yield Result("playouts", [f"initial_state/default_board_text/parse_board: raised "
                                  f"{type(exc).__name__} ({exc}) setting up a playout"], 0.0)
        return
    spent = time.monotonic() - started
    for check in only or CHECKS:
        started = time.monotonic()
        try:
            failures = CHECKS[check](game, runs)
        except Exception as exc:  # noqa: BLE001 - a game function the check did not expect to fail
            failures = [f"{check}: a game function raised {type(exc).__name__} ({exc})"]
        yield Result(check, failures, time.monotonic() - started + spent)
        spent = 0.0
