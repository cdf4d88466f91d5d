"""What a person sees while a match runs: the board after every step, the
verdicts, the result.  Kept apart from the match loop, which only reports to
an observer.

A student reads this output to learn what went wrong, so a fault shows the
evidence next to the verdict: the end of the program's stderr (the traceback
with its file and line) and where the whole output is kept."""
from __future__ import annotations

import shutil
import sys
import threading
import time
from pathlib import Path
from typing import Any, TextIO

from referee.core.game import GameState
from referee.core.match import MatchResult, Observer, Prepared
from referee.core.runner import Limits
from referee.core.players import HumanAgent
from referee.core.visible import visible

STDERR_LINES = 8  # lines of a faulty step's stderr shown under its verdict
PROCESS_FAULTS = ("CRASH", "TIMEOUT", "CPU_LIMIT", "MEMORY_LIMIT", "DISK_LIMIT", "NO_DECISION")


def plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def format_event(event: dict[str, Any]) -> str:
    details = ", ".join(f"{k}={v}" for k, v in event.items() if k != "type")
    return visible(f"{event.get('type', '?')}" + (f" ({details})" if details else ""), lines=False)


def seat_output(folder: Path | str, player: int, stream: str = "stderr") -> Path:
    """Where a seat's full stdout/stderr is kept in the match folder."""
    return Path(folder) / "players" / f"p{player}" / f"{stream}.txt"


def stderr_lines(record: dict[str, Any], count: int = STDERR_LINES) -> list[str]:
    """The last ``count`` non-empty lines of a step's stderr (from its log record)."""
    lines = [ln.rstrip() for ln in (record.get("stderr") or "").splitlines() if ln.strip()]
    return [visible(ln, lines=False) for ln in lines[-count:]]


def one_line(text: str, width: int = 60) -> str:
    """A decision as it fits the step line: its first line (cut at ``width``),
    '(+N lines)' for the rest, control characters shown as ^X, so a decision
    of several lines or with a stray ESC cannot break the console's layout."""
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    if not lines:
        return ""
    first = "".join(f"^{chr((ord(c) + 64) % 128)}" if ord(c) < 32 or ord(c) == 127 else c
                    for c in lines[0].strip())
    first = first if len(first) <= width else first[:width - 1] + "…"
    return first + (f" (+{len(lines) - 1} more line{'s' if len(lines) > 2 else ''})" if len(lines) > 1 else "")


def format_step(record: dict[str, Any], names: list[str], folder: Path | str | None = None) -> str:
    """One step for the console.  The verdict line shows what the player itself
    decided; a move the referee played instead (``--policy random``) gets its
    own line below, so the two are never confused.  With ``folder`` a faulty
    step also shows the end of its stderr and the path of the full file.
    Whatever the player wrote is shown through :func:`visible`: an escape
    sequence or a line break in it cannot move the cursor or forge a line."""
    player = record["player"]
    substitute = record.get("fault") == "random"
    own = one_line(record.get("decision") or "")
    if substitute:
        decision = own or "-"
    else:
        decision = record.get("applied") or own or "-"
    verdict = "RESIGNED" if record.get("resigned") else record["verdict"]
    parts = [f"step {record['step']:>3}", f"player {player} ({visible(names[player - 1], lines=False)})",
             visible(decision, lines=False), visible(str(verdict), lines=False)]
    if record.get("auto"):
        parts[-1] += " (automatic)"
    if record.get("wall_ms") is not None and not record.get("auto"):  # 0 ms too: a quick step is not a missing time
        parts.append(f"{record['wall_ms']:.0f} ms")
    line = "  ".join(parts)
    if record.get("message"):
        line += f"\n    {visible(record['message'], lines=False)}"
        if record.get("fault") and not substitute and not record.get("resigned"):
            line += f"  -> {record['fault']}"
    if substitute:
        line += f"\n    -> played instead (random policy): {visible(str(record.get('applied')), lines=False)}"
    if folder is not None and record["verdict"] not in ("OK", "LATE") and not record.get("resigned"):
        tail = stderr_lines(record)
        if tail:
            line += "\n    stderr (last lines):\n" + "\n".join(f"      | {ln}" for ln in tail)
        if tail or record["verdict"] in PROCESS_FAULTS:
            line += f"\n    full output: {seat_output(folder, player)}"
    left = record.get("orphans_killed")
    if left:
        line += (f"\n    {left} process{'es' if left > 1 else ''} it left running "
                 f"{'were' if left > 1 else 'was'} killed at the end of the step (nothing "
                 "a player starts outlives its step)")
    for note in record.get("notes") or ():
        line += f"\n    note: {visible(str(note), lines=False)}"
    events = [format_event(e) for e in record.get("events") or []]
    if events:
        line += "\n    " + "; ".join(events)
    return line


def format_result(result: MatchResult, names: list[str]) -> str:
    outcome = result.outcome
    if outcome.winner is not None:
        head = f"player {outcome.winner} ({visible(names[outcome.winner - 1], lines=False)}) wins"
    else:
        head = "draw" if len(outcome.ranking) <= 1 else "no single winner"
    lines = [f"result: {head}: {visible(outcome.reason, lines=False)} after {plural(result.steps, 'step')}"]
    for pid, counts in result.verdicts.items():
        faults = {k: v for k, v in counts.items() if v and k != "OK"}
        if faults:
            lines.append(f"  player {pid}: " + ", ".join(f"{k} {v}" for k, v in faults.items()))
    lines.append(f"match folder: {result.out}")
    return "\n".join(lines)


def human_view(match: Prepared) -> int | None:
    """Whose eyes the console draws for: with one human at the keyboard,
    that seat (other hands stay hidden); with several, nobody's hand; with
    none, everything (a spectator or a TA)."""
    humans = [i for i, agent in enumerate(match.agents, start=1) if getattr(agent, "human", False)]
    if not humans:
        return None
    return humans[0] if len(humans) == 1 else 0


class Thinking:
    """On a terminal, a status line while a program's step runs long, from
    :attr:`AFTER` seconds on, updated every second and erased when the step
    is judged: ``step 1, player 1 (python3 bot.py) running: 7 s (LATE past
    30 s, killed at 60 s)``.  A program that loops for ever was a silent
    terminal for the whole hard limit (a minute in Cantris).  One thread,
    started at the first step that needs it; nothing at all off a terminal."""

    AFTER = 2.0

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self._wake = threading.Condition()
        self._armed: tuple[float, str, str] | None = None  # (when the step began, what, its limits)
        self._shown = 0  # the width of the status line on the terminal (0: none)
        self._thread: threading.Thread | None = None

    def arm(self, what: str, limits: str) -> None:
        with self._wake:
            self._armed = (time.monotonic(), what, limits)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="referee-thinking", daemon=True)
                self._thread.start()
            self._wake.notify()

    def disarm(self) -> None:
        with self._wake:
            self._armed = None
            if self._shown:  # spaces, not an escape sequence: every console erases so
                self._write("\r" + " " * self._shown + "\r")
                self._shown = 0

    def _write(self, text: str) -> None:
        try:
            self.out.write(text)
            self.out.flush()
        except (OSError, ValueError):  # the terminal went away: nothing to tell
            pass

    def _run(self) -> None:
        with self._wake:
            while True:
                if self._armed is None:
                    self._wake.wait()
                    continue
                began, what, limits = self._armed
                elapsed = time.monotonic() - began
                if elapsed >= self.AFTER:  # one row, or \r would not get back to its start
                    line = f"  {what}: {elapsed:.0f} s ({limits})"[:shutil.get_terminal_size().columns - 1]
                    self._write("\r" + line.ljust(self._shown))
                    self._shown = max(self._shown, len(line))
                self._wake.wait(max(self.AFTER - elapsed, 1.0 - elapsed % 1.0, 0.05))


class ConsoleObserver(Observer):
    """Prints progress; ``boards`` draws the board after every step;
    ``show_output`` prints what each step's program wrote to stdout/stderr."""

    def __init__(self, boards: bool = True, color: bool = False, out: TextIO | None = None,
                 show_output: bool = False) -> None:
        self.boards = boards
        self.color = color
        self.out = out or sys.stdout
        self.show_output = show_output
        self._read: dict[tuple[int, str], int] = {}  # bytes of each seat's output already shown
        isatty = getattr(self.out, "isatty", None)
        self._thinking = Thinking(self.out) if isatty is not None and isatty() else None

    def deciding(self, match: Prepared, step: int, player: int, limits: Limits) -> None:
        if self._thinking is not None:
            name = visible(one_line(match.names[player - 1], 30), lines=False)
            self._thinking.arm(f"step {step}, player {player} ({name}) running",
                               f"LATE past {limits.soft_time:g} s, killed at {limits.hard_time:g} s")

    def start(self, match: Prepared, state: GameState) -> None:
        seats = ", ".join(f"player {i} = {visible(n, lines=False)}" for i, n in enumerate(match.names, start=1))
        print(f"{match.game.title}: {seats} (seed {match.seed}, board {match.board_source}, "
              f"sandbox {match.sandbox.kind})", file=self.out)
        self._board(match, state)

    def step(self, match: Prepared, record: dict[str, Any], state: GameState) -> None:
        if self._thinking is not None:
            self._thinking.disarm()
        if self.show_output:  # the whole output is shown: no need for its tail again
            self._print_output(match, record["player"])
            record = {k: v for k, v in record.items() if k != "stderr"}
        print(format_step(record, match.names, match.out), file=self.out)
        self._board(match, state)
        self.out.flush()

    def finish(self, match: Prepared, result: MatchResult) -> None:
        print(format_result(result, match.names), file=self.out)

    def close(self) -> None:
        """The match is over, or stopped in a step (Ctrl-C, an error): no
        status line is left on the terminal, nor shown again."""
        if self._thinking is not None:
            self._thinking.disarm()

    def _board(self, match: Prepared, state: GameState) -> None:
        """Draw the board, unless a human moves next: its prompt draws it
        (once per prompt, not twice)."""
        if not self.boards:
            return
        nxt = None if state.is_terminal() else state.current_player()
        if nxt is not None and isinstance(match.agents[nxt - 1], HumanAgent):
            return
        print(match.game.render(state, human_view(match), self.color), file=self.out)

    def _print_output(self, match: Prepared, player: int) -> None:
        """What the step appended to the seat's stdout.txt / stderr.txt."""
        for stream in ("stdout", "stderr"):
            path = seat_output(match.out, player, stream)
            start = self._read.get((player, stream), 0)
            try:
                with open(path, "rb") as f:
                    f.seek(start)
                    data = f.read()
            except OSError:
                continue
            self._read[(player, stream)] = start + len(data)
            text = data.decode("utf-8", "replace").rstrip()
            if text:
                print(f"  [player {player} {stream}]", file=self.out)
                print("\n".join(f"  | {visible(ln, lines=False)}" for ln in text.splitlines()), file=self.out)
