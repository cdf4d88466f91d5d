"""Who decides a step: a player program (any command), a built-in player, or a
human at the keyboard.  The match loop sees them all as an :class:`Agent`."""
from __future__ import annotations

import os
import shlex
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Hashable, Protocol, Sequence, TextIO

from . import files, humans
from .errors import InputError
from .game import DecisionError, Game, GameState
from . import cgroups, seats, warmseats
from .later import Meanwhile
from .runner import Limits, RunResult, run_process
from .interpreter import PYTHON
from .sandbox import Sandbox, player_environment
from .seatfiles import DECISION as DECISION_FILE, SeatFolder
from .seats import SeatHost

PERSISTENT = "persistent:"
DECISION_CAP = 64 * 1024  # a longer decision file is MALFORMED, and never read whole
FILE_CLOCK_SLACK = 0.01  # a file's time runs on the kernel's coarse clock: up to a tick behind time.time()


def builtin_names(game: Game | str) -> list[str]:
    """The built-in players of ``game`` (a Game, or its name)."""
    if isinstance(game, str):
        from .registry import get_game

        game = get_game(game)
    folder = game.files("players")
    skip = {"template.py", "__init__.py"}
    return sorted(p.stem for p in folder.glob("*.py") if p.name not in skip and not p.name.startswith("_"))


@dataclass
class Reply:
    """What an agent produced for one step."""

    text: str | None  # the decision file's text; None when there was none
    run: RunResult
    problem: str | None = None  # why the decision file could not be used at all
    resigned: bool = False  # a human typed quit/resign or pressed Ctrl-C: the game ends
    human: bool = False  # a person decided: thinking time is never LATE (a time bank still runs)
    misnamed: str | None = None  # no decision.txt, but a file named like it (Decision.txt, decision.txt.txt)
    elsewhere: str | None = None  # no decision.txt, but one written in this step beside the program
    program_dirs: tuple[str, ...] = ()  # no decision.txt: the folders of the program's files, for hints


class Agent(Protocol):
    name: str

    def decide(self, workdir: Path, step: int, player: int, state: GameState) -> Reply: ...


class ProcessAgent:
    """A player program, run once per step.

    On Linux it runs through its seat's host (:mod:`referee.core.seats`),
    inside the sandbox when the match has one; elsewhere, or with
    ``REFEREE_RUNNER`` set to ``direct`` or ``portable``, straight from the
    referee with :func:`run_process`."""

    def __init__(self, name: str, argv: list[str], game: str, limits: Limits,
                 persistent: bool = False, for_speed: bool = False) -> None:
        self.name = name
        self.argv = argv
        self.game = game
        self.limits = limits
        self.persistent = persistent  # kept alive between steps (needs a seat host)
        # Kept alive only to save start-ups (a built-in): started afresh every
        # step where there is no seat host, it decides the same, unwarned.
        self.for_speed = for_speed
        self.seat: SeatFolder | None = None
        self.host: SeatHost | None = None
        # The player's environment (sandbox.player_environment), made once at
        # attach: decoding os.environ anew cost a fifth of a step's own work.
        self.environ: dict[str, str] = {}
        # Called once the step is handed over (the request sent to the seat
        # host): work of the referee's that can overlap the player's run.
        self.meanwhile: Meanwhile | None = None

    def attach(self, seat: SeatFolder, sandbox: Sandbox, hidden: list[Path],
               pass_env: Sequence[str] = (), warm: seats.WarmSeat | None = None) -> None:
        """Give the agent its seat (called by the match before its first step;
        :func:`start_seats` then starts its host) and its clean environment
        (``pass_env``: the referee's variables a config lets through).
        ``warm``: its seat host is a warm seat's (see :mod:`.warmseats`), and
        ``seat`` that seat's slot."""
        self.seat = seat
        sandboxed = sandbox.on and seats.available()
        self.environ = player_environment(os.environ, seat.path.absolute(), sandboxed, pass_env)
        if seats.available():
            self.host = SeatHost(seat.path, sandbox, hidden, self.environ, warm)

    def warm_seat(self, sandbox: Sandbox, hidden: list[Path], pass_env: Sequence[str], limits: Limits,
                  games: Path, home: Path) -> seats.WarmSeat | None:
        """A warm seat for this player in a series' game (see
        :mod:`.warmseats`), its host taken from the fork server if one of its
        key is kept, else to be started in a new slot under ``games``; None
        where seats are not kept (no fork server, no sandbox)."""
        # Without a sandbox only where a control group holds the seat: its
        # group, killed whole, is what ends whatever a player left should its
        # kept host die (it is no child of this worker, which could sweep it).
        if not (warmseats.enabled() and seats.available() and (sandbox.on or cgroups.available())):
            return None
        environ = player_environment(os.environ, Path("/"), sandbox.on, pass_env)
        key = seats.warm_key(sandbox, self.argv, hidden, environ, limits)
        lease = warmseats.take(key)
        if not sandbox.on:  # the host works in each game's own seat folder
            log = Path(lease.log) if lease is not None and lease.log else warmseats.new_log(games)
            return seats.WarmSeat(key, lease, None, home, log)
        slot = Path(lease.slot) if lease is not None else warmseats.new_slot(games)
        return seats.WarmSeat(key, lease, slot, home, slot.parent / f".host-{slot.name}.log")

    def _env(self, player: int, step: int | None) -> dict[str, str]:
        env = dict(self.environ)
        env.update(REFEREE_PLAYER=str(player), REFEREE_GAME=self.game,
                   REFEREE_PERSISTENT="1" if self.persistent and self.host is not None else "0")
        if step is not None:  # a player started before the match gets its step on stdin only
            env["REFEREE_STEP"] = str(step)
        return env

    def decide(self, workdir: Path, step: int, player: int, state: GameState) -> Reply:
        if not self.environ:  # not attached to a seat (rerun): no sandbox, no pass_env
            self.environ = player_environment(os.environ, workdir.absolute(), False)
        env = self._env(player, step)  # the SDKs' run() loops when REFEREE_PERSISTENT says 1
        began = time.time()
        out, err = workdir / "stdout.txt", workdir / "stderr.txt"
        if self.host is not None and self.persistent:
            run = self.host.run(self.argv, env, self.limits, out, err, persistent_step=step,
                                meanwhile=self.meanwhile)
        elif self.host is not None:
            run = self.host.run([*self.argv, str(step), str(player)], env, self.limits, out, err,
                                meanwhile=self.meanwhile)
        else:
            if self.meanwhile is not None:
                self.meanwhile(None)
            run = run_process([*self.argv, str(step), str(player)], workdir, env, self.limits, out, err)
        if self.seat is not None:
            reply = _seat_reply(self.seat, run, began)
        else:
            seat = SeatFolder(workdir.parents[1], player)
            try:
                reply = _seat_reply(seat, run, began)
            finally:
                seat.close()
        if reply.text is None:
            reply.program_dirs = tuple(dict.fromkeys(os.path.dirname(w) for w in self.argv if os.path.isabs(w)))
            if reply.misnamed is None:
                reply.elsewhere = decision_elsewhere(reply.program_dirs, began)
        return reply

    def restart(self) -> None:
        """A kept-alive player ends now and starts again at its next step,
        as after any fault its seat host saw (a DISK_LIMIT is found by the
        referee, after the host said the step was fine): the files it holds
        open would keep the disk space its emptied folder gave back.  Its
        host goes with it (a new one starts at the next step)."""
        if self.persistent and self.host is not None:
            self.host.close()

    def close(self) -> None:
        if self.host is not None and not self.host.reset:  # a reset warm host waits for land_seats
            self.host.close()


def start_seats(agents: Sequence[tuple[ProcessAgent, Limits]]) -> None:
    """Start the seat hosts of ``agents`` (attached, each with its first
    step's limits) all at once, then their persistent players (see
    :func:`seats.prestart`), so that no one's start-up is paid inside the
    match, nor one after the other.  A failure shows (and is retried) at the
    seat's first step."""
    hosted = [(agent, limits) for agent, limits in agents if agent.host is not None]
    for agent, limits in hosted:
        agent.host.expect(limits)
    seats.start_hosts([(agent.host, agent.argv) for agent, _ in hosted])
    asks = []
    for agent, limits in hosted:
        if agent.persistent and agent.seat is not None:
            request = agent.host.prestart_request(
                agent.argv, agent._env(agent.seat.player, None), limits,
                agent.seat.path / "stdout.txt", agent.seat.path / "stderr.txt")
            if request is not None:
                asks.append((agent.host, request, limits.hard_time))
    seats.prestart(asks)


def close_agents(agents: Sequence[Agent]) -> None:
    """Close every agent; seat hosts all at once (see :func:`seats.close_hosts`);
    warm seats' hosts are reset instead, each kept or ended by
    :func:`land_seats` once the match has let go of their seat folders."""
    hosts = [a.host for a in agents if isinstance(a, ProcessAgent) and a.host is not None]
    seats.retire_hosts([host for host in hosts if host.warm is not None])
    seats.close_hosts([host for host in hosts if host.warm is None])
    for agent in agents:
        close = getattr(agent, "close", None)
        if close is not None:
            close()


def land_seats(agents: Sequence[Agent]) -> None:
    """The end of warm seats (see :func:`seats.keep_host`): each slot's files
    into its game's seat folder, its host kept for the next game or ended."""
    for agent in agents:
        host = agent.host if isinstance(agent, ProcessAgent) else None
        if host is not None and host.warm is not None:
            try:
                seats.keep_host(host)
            except Exception:
                host.close()
                raise


def _seat_reply(seat: SeatFolder, run: RunResult, began: float) -> Reply:
    """The step's Reply from the seat's decision file; when there is none,
    with the file the program may have meant, written in this step (only
    then is the folder listed)."""
    reply = reply_from(*seat.read_decision(DECISION_CAP), run)
    if reply.text is None:
        reply.misnamed = decision_lookalike(seat.names(since=began - FILE_CLOCK_SLACK))
    return reply


def decision_elsewhere(program_dirs: Sequence[str], since: float) -> str | None:
    """A decision.txt written since ``since`` beside the program (in
    ``program_dirs``, the folders of its binary or script, or in the
    referee's own folder): one written by a path relative to the program's
    file, or after a change of folder, where no sandbox stopped it (macOS,
    Windows, ``--sandbox none``)."""
    for folder in dict.fromkeys([*program_dirs, os.getcwd()]):
        path = os.path.join(folder, DECISION_FILE)
        try:
            info = os.stat(path)
        except OSError:
            continue
        if info.st_mtime >= since - FILE_CLOCK_SLACK:
            return path
    return None


def decision_lookalike(names: Sequence[str]) -> str | None:
    """The name among ``names`` a program most likely meant as decision.txt:
    the same name in another case (``Decision.txt``), then one with its
    extension added to or changed (``decision.txt.txt``, where Windows hid the
    first ``.txt``; ``decision``; ``decision.text``).  None if there is none."""
    near = [name for name in names if name.lower() != DECISION_FILE
            and (name.lower() == "decision" or name.lower().startswith(("decision.", "decision ")))]
    same = [name for name in names if name.lower() == DECISION_FILE and name != DECISION_FILE]
    found = sorted(same) or sorted(near)
    return found[0] if found else None


def reply_from(data: bytes | None, problem: str | None, run: RunResult) -> Reply:
    """A Reply from the decision file's bytes (see SeatFolder.read_decision)."""
    if data is None:
        return Reply(None, run)
    if problem:
        return Reply("", run, problem)
    if len(data) > DECISION_CAP:
        return Reply(data[:200].decode("utf-8", "replace"), run,
                     f"{DECISION_FILE} is over {DECISION_CAP // 1024} KiB")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):  # a UTF-16 byte-order mark
        shown = data[:160].decode("utf-16", "replace").strip()
        return Reply("", run, f"{DECISION_FILE} is UTF-16 ({shown[:60]!r}; PowerShell's > and Out-File, "
                              "Notepad's 'Unicode' write it): write it as UTF-8 or plain ASCII")
    return Reply(data.decode("utf-8", "replace"), run)


def human_reply(workdir: Path, player: int, text: str, started: float) -> Reply:
    """A person's accepted decision, handed over as any player's is: written
    to the seat's ``decision.txt`` by the referee (a person is not sandboxed;
    the folder is the seat's own) and read back through the same
    :meth:`SeatFolder.read_decision`, so the log, the verdict and verify see
    a human's step exactly as a program's."""
    files.write_text(workdir / DECISION_FILE, text.strip() + "\n")
    run = RunResult(exit_code=0, wall_s=time.monotonic() - started)
    seat = SeatFolder(workdir.parents[1], player)
    try:
        reply = reply_from(*seat.read_decision(DECISION_CAP), run)
    finally:
        seat.close()
    reply.human = True
    return reply


def human_resigns(started: float) -> Reply:
    return Reply(None, RunResult(exit_code=0, wall_s=time.monotonic() - started), resigned=True,
                 human=True)


def key_codes(text: str) -> str | None:
    """Why a typed line is not a move, when it holds terminal key codes (an
    arrow key read without line editing sends ESC [ A) or other control
    characters; None for an ordinary line."""
    if "\x1b" in text:
        return ("that line holds a terminal key code (an arrow or other editing key?): "
                "type the move as text")
    bad = sorted({c for c in text if ord(c) < 32 and c not in "\t\r\n"})
    if bad:
        return "that line holds control characters " + " ".join(f"^{chr(ord(c) + 64)}" for c in bad)
    return None


def line_editing() -> None:
    """Arrow keys, Home/End and history at the prompt (GNU readline where
    Python has it, and only on a terminal), so an arrow key edits the line
    instead of being typed into it."""
    if sys.stdin is not None and sys.stdin.isatty():
        try:
            import readline  # noqa: F401  (importing it is what turns line editing on)
        except ImportError:  # Windows' console edits lines itself
            pass


class HumanAgent:
    """A person at the terminal: the board as that seat sees it (other hands
    hidden), the legal moves, a validated prompt that asks again until the
    move is legal.  ``quit``/``resign``, Ctrl-C and end of input (Ctrl-D)
    resign: the match ends with a result instead of a traceback."""

    name = "human"
    human = True  # a person: the console draws for this seat's eyes
    RESIGN_WORDS = ("quit", "resign", "exit")

    def __init__(self, game: Game, read: Callable[[str], str] = input, out: TextIO | None = None,
                 color: bool = False, choice: humans.Choice | None = None) -> None:
        self.game = game
        self.read = read
        self.out = out or sys.stdout
        self.color = color
        self.choice = choice
        if read is input:
            line_editing()

    def match_started(self, out: Path, player: int) -> None:
        """Say why ``human`` plays here rather than in the browser (where
        the input is a terminal: piped moves keep today's output)."""
        note = self.choice.note(player) if self.choice else None
        if note:
            print(note, file=self.out, flush=True)

    def decide(self, workdir: Path, step: int, player: int, state: GameState) -> Reply:
        started = time.monotonic()
        print(self.game.render(state, player, self.color), file=self.out)
        legal = list(state.legal_decisions())
        self._show_moves(legal)
        for line in wrap_words("  ", "(? lists every move; quit or resign ends the game)".split(),
                               shutil.get_terminal_size().columns - 1):
            print(line, file=self.out)
        while True:
            try:
                text = self.read(f"step {step}, player {player} ({state.step_kind()})> ")
            except (EOFError, KeyboardInterrupt):
                print(file=self.out)
                text = "resign"
            word = text.strip().lower()
            if word in self.RESIGN_WORDS:
                return human_resigns(started)
            if word in ("?", "help", "moves"):
                self._show_moves(legal, everything=True)
                continue
            error = key_codes(text) or check_decision(self.game, state, text)
            if error is None:
                return human_reply(workdir, player, text, started)
            print(f"  not accepted: {error}  (type ? for the legal moves)", file=self.out)

    def _show_moves(self, legal: list[Hashable], everything: bool = False) -> None:
        shown = [str(d) for d in (legal if everything or len(legal) <= 24 else legal[:24])]
        words = [f"{d}," for d in shown[:-1]] + shown[-1:]
        if len(shown) < len(legal):
            words.append(f" ... and {len(legal) - len(shown)} more (?)")
        # One column short of the terminal: a line of exactly its width wraps on some.
        width = shutil.get_terminal_size().columns - 1
        for line in wrap_words(f"legal ({len(legal)}): ", words, width):
            print(line, file=self.out)
        if self.game.decision_help:
            for line in wrap_words("format: ", self.game.decision_help.split(), width):
                print(line, file=self.out)


def wrap_words(prefix: str, words: Sequence[str], width: int) -> list[str]:
    """``prefix`` and ``words`` in lines of at most ``width`` characters,
    broken only between words, continued under the first word (or at the
    margin, for a word too long for that; one longer than a line has a line
    of its own): left to the terminal, a list of moves wrapped inside a move
    ("5 1" as "5" and "1")."""
    indent = " " * (len(prefix) if len(prefix) <= width // 2 else 2)
    lines, line, empty = [], prefix, True
    for word in words:
        piece = word.strip() if empty else " " + word
        if not empty and len(line) + len(piece) > width:
            lines.append(line)
            piece = word.strip()
            line = indent if len(indent) + len(piece) <= width else ""
        line += piece
        empty = False
    lines.append(line)
    return lines


def check_decision(game: Game, state: GameState, text: str) -> str | None:
    """None if ``text`` parses to a legal decision, else why not."""
    try:
        decision = game.parse_decision(state, text)
    except (DecisionError, ValueError) as exc:
        return str(exc)
    return state.illegal_reason(decision)


def _absolutize(words: list[str], base: Path) -> list[str]:
    """Make words that name files relative to ``base`` absolute: the player
    runs in its own folder, where ``my.py`` would not be found.  Paths that
    name files come out plain (see :func:`_plain`)."""
    out = []
    for word in words:
        candidate = Path(word) if os.path.isabs(word) else base / word
        if (os.path.isabs(word) or "/" in word or "\\" in word or "." in word) and candidate.exists():
            out.append(_plain(candidate))
        else:
            out.append(word)
    return out


def _plain(path: Path) -> str:
    """``path`` absolute, without ``.`` or ``..``, its links kept: a venv's
    ``bin/python`` stays the venv's (resolved, it is the base interpreter,
    without the venv's packages), and no ``..`` walks through a folder the
    sandbox does not show (``tests/bench/../../.venv/bin/python``).  Where
    dropping a ``..`` would name another file (it followed a link), the
    path is resolved instead."""
    plain = os.path.abspath(path)
    try:
        if plain == str(path) or os.path.samefile(plain, path):
            return plain
    except OSError:
        pass
    return str(path.resolve())


BUILTIN_OPTIONS = {"strong": {"budget": float, "nodes": int}}
"""Options a built-in player takes as ``builtin:NAME?key=value&...``: the
strong players' search budget in seconds and in nodes (docs/strong-players.md)."""


def builtin_options(name: str, query: str) -> list[str]:
    """``budget=0.2&nodes=500`` as the argv words ``--budget=0.2 --nodes=500``
    (passed before ``<step> <player>``), checked here so a typo is an input error."""
    if not query:
        return []
    known = BUILTIN_OPTIONS.get(name, {})
    words = []
    for item in query.split("&"):
        key, eq, value = item.partition("=")
        if key not in known:
            allowed = ", ".join(known) or "none"
            raise InputError(f"builtin:{name}: unknown option {key!r} (options: {allowed})")
        try:
            number = known[key](value) if eq else None
        except ValueError:
            number = None
        if number is None or not number > 0:
            raise InputError(f"builtin:{name}: option {key} needs a positive "
                             f"{'integer' if known[key] is int else 'number'}, got {value!r}")
        words.append(f"--{key}={number}")
    return words


def game_package_option(game: Game) -> list[str]:
    """``-X referee_game=<the game's package folder>`` for a plugin game's
    built-in players.  The sandbox shows a player the folders its command
    line names (sandbox.exposed_paths); a plugin installed editable lives
    outside the referee's environment, and its players import it.  Python
    keeps an unknown ``-X`` option in ``sys._xoptions`` and otherwise
    ignores it."""
    if game.home is None:
        return []
    return ["-X", f"referee_game={Path(game.home).resolve()}"]


def make_agent(spec: str, game: Game, limits: Limits, base_dir: Path, color: bool = False,
               browser: bool = True) -> Agent:
    """Turn a ``--player`` value into an agent.

    ``builtin:NAME`` runs the game's ``players/NAME.py`` with this Python;
    ``human:terminal`` asks at the terminal, ``human:web`` in a browser page
    (opened unless ``browser`` is False), ``human`` in whichever of the two
    :func:`humans.choose_here` picks; a game may define its own kinds (e.g.
    ``module:...``); anything else is a command line."""
    spec = spec.strip()
    if not spec:
        raise InputError("empty --player value")
    if spec.startswith(PERSISTENT):
        inner = make_agent(spec[len(PERSISTENT):], game, limits, base_dir, color)
        if not isinstance(inner, ProcessAgent):
            raise InputError(f"{spec!r}: only a program can be persistent")
        return ProcessAgent(spec, inner.argv, game.name, limits, persistent=True)
    if spec.lower().startswith("human:") and not humans.is_human(spec):
        raise InputError(f"{spec!r}: a person plays as {', '.join(humans.HUMAN_SPECS)}")
    if humans.is_human(spec):
        choice = humans.choose_here(spec)
        if choice.web:
            from referee.web.seat import WebHumanAgent  # Starlette and uvicorn: the web extra

            return WebHumanAgent(game, open_browser=browser, choice=choice)
        return HumanAgent(game, color=color, choice=choice)
    if spec.startswith("builtin:"):
        name, _, query = spec.split(":", 1)[1].partition("?")
        script = game.files("players") / f"{name}.py"
        if not script.is_file() or name not in builtin_names(game):
            choices = ", ".join(builtin_names(game)) or "none"
            raise InputError(f"no built-in player {name!r} for {game.name}; choose one of: {choices}")
        # -P: the script's folder is not put on sys.path, so players/<game>/random.py
        # cannot shadow the standard library's random.  -B: it reads the
        # referee's bytecode but never writes it: under the player's file-size
        # limit a .pyc cut short would break every later import of that module.
        # Persistent where a seat host runs it (Linux): started once per match,
        # a built-in costs ~2 ms a step instead of a Python start-up and the
        # rules' imports (~50-90 ms); its decisions depend only on the files
        # and state.json (seeded chance), so they are the same either way.
        return ProcessAgent(spec, [PYTHON, "-P", "-B", *game_package_option(game), str(script),
                                   *builtin_options(name, query)], game.name, limits, persistent=True,
                            for_speed=True)
    custom = game.player_command(spec, str(base_dir))
    if custom is not None:
        return ProcessAgent(spec, custom, game.name, limits, persistent=game.player_persistent(spec))
    try:
        words = shlex.split(spec, posix=os.name == "posix")
    except ValueError as exc:
        raise InputError(f"cannot parse player command {spec!r}: {exc}") from None
    return ProcessAgent(spec, _absolutize(words, base_dir), game.name, limits)
