"""Replaying a match folder: recompute every state from the start position and
the logged decisions, so what is shown (or verified) never depends on trusting
the snapshots."""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from referee.core import settings as settings_mod
from referee.core.errors import InputError
from referee.core.game import Game, GameState, Setup
from referee.core.log import read_log, read_match_yaml, read_result_yaml
from referee.core.registry import get_game
from referee.core.numbers import shown_value
from referee.core.rng import recorded_chance
from referee.core.settings import key_line
from referee.core.visible import visible


class ReplayError(Exception):
    """The log cannot be replayed from a given step on."""


@dataclass
class GameReplay:
    root: Path
    game: Game
    match: dict[str, Any]
    records: list[dict[str, Any]]
    result: dict[str, Any] | None
    initial: GameState

    def states(self) -> Iterator[tuple[dict[str, Any], GameState]]:
        """(record, state after it) for every step; ReplayError naming the
        step where the log stops making sense."""
        state = self.initial
        for record in self.records:
            state = advance(self.game, state, record)
            yield record, state


MATCH_FILES = ("match.yaml", "log.jsonl", "result.yaml", "board.txt")


def _match_folders_beside(root: Path, shown: int = 3) -> str:
    """The newest match folders where ``root`` was looked for (a typo, or
    the README's ``step_logs/<match>`` taken literally), for the message."""
    try:
        found = [p for p in root.parent.iterdir() if (p / "match.yaml").is_file()]
        found.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return ""
    if not found:
        return ""
    more = f" and {len(found) - shown} more" if len(found) > shown else ""
    names = ", ".join(visible(p.name, lines=False) for p in found[:shown])
    return f" (the newest in {root.parent}: {names}{more})"


def load(root: Path) -> GameReplay:
    root = Path(root)
    if not root.is_dir():
        if root.is_file():
            where = f"; give the folder that holds it ({root.parent})" if root.name in MATCH_FILES else ""
            raise InputError(f"a file, not a match folder{where}", str(root))
        raise InputError(f"no such match folder{_match_folders_beside(root)}", str(root))
    match = read_match_yaml(root)
    source = str(root / "match.yaml")
    for key in ("game", "players", "seed"):
        if key not in match:
            raise InputError(f"missing key {key!r}", source)
    try:
        game = get_game(match["game"])
    except InputError as exc:  # a game not installed here, or a forged name
        raise InputError(f"game: {exc.message}", source) from None
    variant = match.get("variant") or game.variants[0]
    if variant not in game.variants:
        raise InputError(f"variant: unknown variant {shown_value(variant)} for {game.name}; known: "
                         f"{', '.join(game.variants)}", source, _line(root, "variant"))
    if len(match["players"]) not in game.player_counts:
        raise InputError(f"players: {len(match['players'])} seats, but {game.name} is played by "
                         f"{', '.join(map(str, game.player_counts))}", source, _line(root, "players"))
    board = None
    board_info = match.get("board") or {}
    if board_info.get("file"):
        path = root / board_info["file"]
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror}", str(path)) from None
        board = game.parse_board(text, str(path), variant)
    settings = match_settings(root, game, match.get("settings") or {})
    for key in game.file_settings:  # copies kept in the match folder
        if settings.get(key):
            settings[key] = str(root / settings[key])
    setup = Setup(variant=variant, players=len(match["players"]), seed=recorded_chance(match),
                  board=board, settings=settings)
    try:
        initial = game.initial_state(setup)
    except InputError as exc:
        if exc.source is not None:  # a pre-moves file's own line
            raise
        named = re.match(r"setting (\w+):", exc.message)
        raise InputError(exc.message, source, _line(root, "settings", named and named.group(1))) from None
    return GameReplay(root, game, match, list(read_log(root)), read_result_yaml(root), initial)


def match_settings(root: Path, game: Game, given: dict[str, Any]) -> dict[str, Any]:
    """match.yaml's settings held to the rules of ``--set``: the game reads
    them as typed and checked, and a hand-edited ``ply_cap: lots`` reached
    its ``int()`` as a traceback (before the hash chain could say that the
    file was changed)."""
    source = str(root / "match.yaml")
    for key in given:
        if key not in game.settings:
            known = ", ".join(game.settings) or "none"
            raise InputError(f"settings: unknown setting {shown_value(key)} for {game.name} "
                             f"(its settings: {known})", source, _line(root, "settings", key))
    try:
        return settings_mod.split(given, game)[0]
    except InputError as exc:
        named = re.match(r"setting (\w+):", exc.message)
        raise InputError(exc.message, source, _line(root, "settings", named and named.group(1))) from None


def _line(root: Path, key: str, inner: Any = None) -> int | None:
    """The line of match.yaml's top-level ``key`` or, given ``inner``, of
    that key in its block (where a flow mapping keeps it, its own line)."""
    try:
        lines = (root / "match.yaml").read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    top = key_line("\n".join(lines), key)
    if top is None or inner is None:
        return top
    for number in range(top, len(lines)):
        line = lines[number]
        if line[:1] not in (" ", "\t", "-"):
            break
        if line.strip().startswith(f"{inner}:"):
            return number + 1
    return top


def advance(game: Game, state: GameState, record: dict[str, Any]) -> GameState:
    step, player = record["step"], record["player"]
    if state.is_terminal():
        raise ReplayError(f"step {step}: the game was already over")
    if state.current_player() != player:
        raise ReplayError(f"step {step}: the log says player {player} moved, "
                          f"but it was player {state.current_player()}'s turn")
    applied = record.get("applied")
    if applied is not None:
        try:
            decision = game.parse_decision(state, applied)
        except Exception as exc:
            raise ReplayError(f"step {step}: logged decision {applied!r} does not parse: {exc}") from None
        reason = state.illegal_reason(decision)
        if reason:
            raise ReplayError(f"step {step}: logged decision {applied!r} is illegal: {reason}")
        return state.apply(player, decision)[0]
    fault = record.get("fault")
    if fault == "eject":
        return state.eject(player)[0]
    if fault == "forfeit":
        return state
    raise ReplayError(f"step {step}: record has neither an applied decision nor a fault")


def verify(replay: GameReplay) -> str | None:
    """None if the whole folder verifies (see :mod:`referee.verify`), else
    what went wrong first, with its step."""
    from referee.verify import verify_folder

    report = verify_folder(replay.root)
    return None if report.ok else report.message


def frames(replay: GameReplay) -> list[tuple[dict[str, Any] | None, GameState]]:
    """Step 0 (no record) then every step, as far as the log replays."""
    out: list[tuple[dict[str, Any] | None, GameState]] = [(None, replay.initial)]
    try:
        out.extend(replay.states())
    except ReplayError as exc:
        print(f"referee: warning: replay stops early: {exc}", file=sys.stderr)
    return out


def describe(record: dict[str, Any] | None, total: int) -> str:
    if record is None:
        return f"step 0/{total}: start position"
    from referee.console import format_step

    names = [f"p{i}" for i in range(1, record["player"] + 1)]
    line = format_step(record, names).replace(f" (p{record['player']})", "", 1)
    timing = f"    wall {record.get('wall_ms', 0)} ms, cpu {record.get('cpu_ms', 0)} ms, " \
             f"peak {record.get('peak_kb', 0)} KiB"
    if record.get("bank_ms") is not None:  # a time-bank match: what the seat has left
        timing += f", bank left {record['bank_ms'] / 1000:.3f} s"
        if record.get("grace_ms"):
            timing += f" (grace used {record['grace_ms']} ms)"
    if record.get("start_ms") is not None:  # a persistent player started before the match
        timing += f", started before the match in {record['start_ms']} ms"
    return f"{line}\n{timing}  [{record['step']}/{total}]"


def show(replay: GameReplay, step: int, color: bool = False) -> str:
    all_frames = frames(replay)
    if not 0 <= step < len(all_frames):
        raise InputError(f"step {step} is out of range: this match has steps 0..{len(all_frames) - 1}")
    record, state = all_frames[step]
    return describe(record, len(all_frames) - 1) + "\n" + replay.game.render(state, None, color)


def interactive(replay: GameReplay, color: bool = False) -> None:
    """n/Enter next, p previous, j K (or K) jump, q quit.  Without a terminal,
    print every step in order."""
    all_frames = frames(replay)
    last = len(all_frames) - 1
    if not sys.stdin.isatty():
        for record, state in all_frames:
            print(describe(record, last))
            print(replay.game.render(state, None, color))
        _print_result(replay)
        return
    i, shown = 0, None
    while True:
        if shown != i:  # after a refused command the message stays on screen, not the board again
            record, state = all_frames[i]
            print(describe(record, last))
            print(replay.game.render(state, None, color))
            if i == last:
                _print_result(replay)
            shown = i
        try:
            command = input("[n]ext [p]rev [j K] jump [q]uit > ").strip().lower()
        except (EOFError, KeyboardInterrupt):
            print()
            return
        if command in ("q", "quit"):
            return
        if command in ("", "n", "next"):
            i = min(i + 1, last)
        elif command in ("p", "prev"):
            i = max(i - 1, 0)
        else:
            i, problem = jump(command, i, last)
            if problem:
                print(f"  {problem}")


def jump(command: str, current: int, last: int) -> tuple[int, str | None]:
    """``j K`` or ``K``: (the step to show, None), or (where we are, why not)."""
    target = command[1:].strip() if command.startswith("j") else command
    if not target.isdigit():
        return current, f"unknown command {command!r}: n, p, j K (0..{last}) or q"
    if int(target) > last:
        return current, f"step {int(target)} is out of range: this match has steps 0..{last}"
    return int(target), None


def _print_result(replay: GameReplay) -> None:
    if replay.result:
        r = replay.result
        print(f"result: winner {r.get('winner')}, {r.get('reason')}")


def write_html(replay: GameReplay, path: Path) -> None:
    """One self-contained page (referee/web/replay_page.py): the boards in SVG,
    the move list with verdicts, each step's output, slider, keys, #step=K."""
    from referee.web import replay_page

    replay_page.write(replay, Path(path))
