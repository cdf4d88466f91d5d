"""``referee rerun DIR --step K``: the student's debugging loop.

A player misbehaved at step K of a finished match.  Rather than replaying the
whole match, rebuild the folder that seat saw before step K (Board.txt,
state.json, step_logs/) in a scratch folder, run the command there once, and
judge what it wrote exactly as the match loop would.  The student can then
edit the program and rerun the same step until the verdict is right, or open
the scratch folder and run the program under a debugger.

The files come from :mod:`referee.core.views`, the same pure functions the
match loop writes them with, fed with states recomputed from the log (never
with the snapshots, which could have been edited)."""
from __future__ import annotations

import dataclasses
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Hashable, Mapping, Sequence

from referee import replay as replay_mod
from referee.core import files, views
from referee.core.clock import SeatClock
from referee.core.errors import InputError
from referee.core.game import Game, GameState
from referee.core.humans import is_human
from referee.core.match import Match, clock_view
from referee.core.players import Agent, ProcessAgent, Reply, make_agent
from referee.core.rng import recorded_chance
from referee.core.runner import Limits
from referee.core.sandbox import NONE, player_environment
from referee.core.verdicts import Verdict
from referee.core.visible import visible


@dataclass(frozen=True)
class SeatView:
    """Seat ``player``'s files before ``step``, and the state they show."""

    step: int
    player: int
    state: GameState
    files: Mapping[str, str]  # path relative to the seat folder -> text
    limits: Limits  # this step's limits (the hard limit shrinks with a time bank)


@dataclass
class Rerun:
    game: Game
    names: Sequence[str]
    view: SeatView
    folder: Path
    command: list[str]
    reply: Reply
    verdict: Verdict
    message: str | None
    decision: Hashable | None
    logged: Mapping[str, Any]  # the step's record in the match's log


def match_limits(match: Mapping[str, Any]) -> Limits:
    """The limits the match ran under (match.yaml keeps them whole)."""
    known = {f.name for f in dataclasses.fields(Limits)}
    return Limits(**{k: v for k, v in (match.get("limits") or {}).items() if k in known})


def match_facts(game_replay: replay_mod.GameReplay) -> views.MatchFacts:
    match = game_replay.match
    names = [str(p.get("name", f"player {i}")) for i, p in enumerate(match["players"], start=1)]
    variant = match.get("variant") or game_replay.game.variants[0]
    return views.MatchFacts(game_replay.game, variant, recorded_chance(match), names, match_limits(match))


def seat_view(game_replay: replay_mod.GameReplay, step: int) -> SeatView:
    """The files of the seat that moved at ``step``, as it saw them then.

    History and statuses are rebuilt the way the match loop builds them: an
    applied decision joins the history, an ejection marks its seat."""
    records = game_replay.records
    if not records:
        raise InputError("the log has no steps", str(game_replay.root / "log.jsonl"))
    if not 1 <= step <= len(records):
        raise InputError(f"step {step} is out of range: this match has steps 1..{len(records)}")
    states: list[GameState] = [game_replay.initial]
    try:
        for record, state in game_replay.states():
            if record["step"] >= step:
                break
            states.append(state)
    except replay_mod.ReplayError as exc:
        raise InputError(f"cannot rebuild step {step}: {exc}", str(game_replay.root / "log.jsonl")) from None
    record = records[step - 1]
    player = int(record["player"])
    facts = match_facts(game_replay)
    status = {pid: "active" for pid in range(1, len(facts.names) + 1)}
    history: list[dict[str, Any]] = []
    for earlier in records[:step - 1]:
        if earlier.get("applied") is not None:
            history.append({"step": earlier["step"], "player": earlier["player"],
                            "decision": earlier["applied"]})
        if earlier.get("fault") == "eject":
            status[earlier["player"]] = "ejected"
    state = states[step - 1]
    clock = seat_clock(facts.limits, [r for r in records[:step - 1] if r["player"] == player])
    texts = {f"step_logs/step_{k}.txt": views.snapshot_view(facts, states[k], player)
             for k in range(step)}
    texts["Board.txt"] = views.board_view(facts, state, player)
    texts["state.json"] = views.state_view(facts, state, step, player, status, history,
                                           clock_view(clock))
    return SeatView(step, player, state, texts, clock.step_limits())


def seat_clock(limits: Limits, earlier: Sequence[Mapping[str, Any]]) -> SeatClock:
    """The seat's time bank before its step, from the bank its last step left
    (``bank_ms`` in the log; automatic steps are not charged)."""
    clock = SeatClock(limits)
    charged = [r for r in earlier if not r.get("auto") and r.get("bank_ms") is not None]
    if clock.on and charged:
        clock.moved = True
        clock.left = float(charged[-1]["bank_ms"]) / 1000
    return clock


def write_view(view: SeatView, folder: Path) -> None:
    (folder / "step_logs").mkdir(parents=True, exist_ok=True)
    for name, text in view.files.items():
        files.write_plain(folder / name, text)


def scratch_folder(given: Path | None, step: int, player: int) -> Path:
    """The seat folder to run in, ``players/p<id>/`` as in a match folder (the
    decision is read the way the match reads it) under ``given`` (created;
    must be new or empty) or under a new temporary folder, kept so the
    student can look inside."""
    if given is None:
        root = Path(tempfile.mkdtemp(prefix=f"referee-rerun-step{step}-p{player}-"))
    else:
        root = Path(given)
        if root.exists() and (not root.is_dir() or any(root.iterdir())):
            raise InputError("the scratch folder must be new or empty", str(root))
    seat = root / "players" / f"p{player}"
    seat.mkdir(parents=True, exist_ok=True)
    return seat


def seat_agent(game_replay: replay_mod.GameReplay, player: int, command: str | None,
               limits: Limits) -> ProcessAgent:
    """``--player CMD`` if given, else the seat's command from match.yaml (a
    persistent player is started for this one step: the SDK serves both)."""
    game = game_replay.game
    if command is not None:
        if is_human(command):
            raise InputError(f"--player {command.strip()}: a person cannot be rerun; "
                             "give a program to run in its place with --player CMD")
        agent: Agent = make_agent(command, game, limits, Path.cwd())
    else:
        argv = game_replay.match["players"][player - 1].get("command")
        if is_human(argv):
            raise InputError(f"player {player} was a person ({argv}), who cannot be rerun; "
                             "give a program to run in its place with --player CMD")
        if not (isinstance(argv, list) and argv):
            raise InputError(f"seat {player} was played by {argv!r}, not a program: "
                             "give the command to run with --player CMD")
        agent = ProcessAgent(f"seat {player}", [str(a) for a in argv], game.name, limits)
    if not isinstance(agent, ProcessAgent):
        raise InputError(f"--player {command!r} is not a program to run")
    return agent


def judge(game: Game, limits: Limits, reply: Reply, state: GameState
          ) -> tuple[Verdict, str | None, Hashable | None]:
    """The match loop's own judgement (``Match._judge``), borrowed rather
    than copied so a rerun can never judge differently from the match (the
    rerun tests check the verdicts agree)."""
    referee = Match.__new__(Match)
    # (A rerun runs the program without the sandbox: no word on what it hides.)
    referee.p = SimpleNamespace(limits=limits, sandbox=NONE)  # type: ignore[assignment]
    referee.game = game
    return referee._judge(reply, state, limits)


def rerun(match_dir: Path, step: int, command: str | None = None, scratch: Path | None = None) -> Rerun:
    game_replay = replay_mod.load(match_dir)
    view = seat_view(game_replay, step)
    record = game_replay.records[step - 1]
    if record.get("auto"):
        raise InputError(f"step {step} was played by the referee for player {view.player} "
                         f"({record.get('applied')}): no program ran")
    agent = seat_agent(game_replay, view.player, command, view.limits)
    folder = scratch_folder(scratch, step, view.player)
    write_view(view, folder)
    # Its clean environment (as decide() would make it), telling it that it
    # runs one step of a finished match and whether that seat was kept alive
    # (a player that rebuilds its memory, as Quoridor's module players do,
    # can then rebuild what the kept-alive one had).
    agent.environ = player_environment(os.environ, folder.absolute(), False)
    kept = agent.persistent or bool(game_replay.match["players"][view.player - 1].get("persistent"))
    agent.environ["REFEREE_RERUN"] = "persistent" if kept else "spawned"
    reply = agent.decide(folder, step, view.player, view.state)
    verdict, message, decision = judge(game_replay.game, agent.limits, reply, view.state)
    names = match_facts(game_replay).names
    return Rerun(game_replay.game, names, view, folder, [*agent.argv, str(step), str(view.player)], reply, verdict,
                 message, decision, record)


def _block(title: str, text: str) -> list[str]:
    """A program's output under a title, each line after ``| `` and shown
    through :func:`visible` (no escape sequence, no forged verdict line)."""
    text = text.rstrip()
    if not text:
        return [f"--- {title}: (empty) ---"]
    return [f"--- {title} ---", *(f"| {visible(ln, lines=False)}" for ln in text.splitlines())]


def report(result: Rerun, color: bool = False) -> str:
    """What the student reads: the position, the program's output, its
    decision and the verdict, next to what happened in the match."""
    view, run = result.view, result.reply.run
    lines = [f"step {view.step}, player {view.player} ({result.names[view.player - 1]}), "
             f"rebuilt in {result.folder}",
             result.game.render(view.state, view.player, color).rstrip(),
             f"$ {' '.join(result.command)}"]
    lines += _block("stdout", (result.folder / "stdout.txt").read_text("utf-8", "replace"))
    lines += _block("stderr", (result.folder / "stderr.txt").read_text("utf-8", "replace"))
    text = result.reply.text
    lines.append("decision.txt: " + ("(none)" if text is None else visible(repr(text.strip()[:200]), lines=False)))
    timing = f"{run.wall_s * 1000:.0f} ms wall, {run.cpu_s * 1000:.0f} ms cpu"
    lines.append(f"verdict: {result.verdict.value} ({timing})")
    if result.message:
        lines.append(f"    {visible(result.message, lines=False)}")
    logged = result.logged
    then = (logged.get("decision") or "").strip() or "(none)"
    lines.append(f"in the match: decision {visible(repr(then), lines=False)}, "
                 f"verdict {visible(str(logged.get('verdict')), lines=False)}")
    return "\n".join(lines)
