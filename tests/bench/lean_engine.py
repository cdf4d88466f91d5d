"""A reference for what a persistent step could cost: the match played by
one process with nothing between it and its players (no worker, no seat
host, no sandbox, no control group), the bench's measure of how much of a
series' time is the referee's design and how much the step's own work.

It does what every step of the referee's must do, and nothing else:
- the seat's files made from the rules at that step (``views``: Board.txt,
  state.json, the new snapshots) and written as the bare driver writes them
  (``bare_driver.SeatFolder``), the old decision removed;
- ``step <k>`` written to the frozen player, which is then woken (SIGCONT);
  ``done`` awaited;
- the player frozen again once it reads its stdin again (SIGSTOP, the stop
  waited for), its CPU read;
- decision.txt read, parsed, judged and applied by the game's rules, and a
  log line (with the new state's hash) appended to log.jsonl.

Left out, as the referee's safety rather than the step's work: the seat's
hostile-folder checks (links, changed snapshots, its disk use), the sweep of
other processes, whole-seat limits, the output files and their caps, the
time and CPU limits, restarts.  So it is a lower bound for a referee of this
protocol written in Python, not a design to copy as it stands."""
from __future__ import annotations

import itertools
import json
import os
import signal
import time
from pathlib import Path

from bare_driver import DECISION, SeatFolder  # run as a script from this folder
from bench_persistent import kept_alive
from referee.core import views
from referee.core.game import Setup
from referee.core.log import state_hash
from referee.core.registry import get_game
from referee.core.rng import chance_seed, match_key
from referee.core.seathost import READ_SYSCALL, _process_cpu_clock
from referee.core.settings import resolve_limits


def lean_match(root: Path, board: Path, seed: int, argv: list[str], tag: str) -> tuple[float, float]:
    """Wall seconds of a Cantris match on ``board`` played by two copies of
    the SDK program ``argv`` kept alive (state.json as the referee writes it
    for ``--player persistent:ARGV`` twice, ``--seed SEED``): as the bare
    driver's floor counts them (from their start: started at once, each
    frozen once it waits for its first request), and of its steps alone
    (what a series that starts its players ahead, as the referee's does,
    would pay a game)."""
    game = get_game("cantris")
    setup = Setup("standard", 2, chance_seed(match_key(seed)),  # the match's chances, as the referee's
                  game.parse_board(board.read_text(), str(board), "standard"))
    start = time.perf_counter()
    with kept_alive(root, argv, tag) as seats:
        for _, player in seats.values():
            _freeze(player.pid)
        folders = {seat: SeatFolder(folder) for seat, (folder, _) in seats.items()}
        try:
            began = time.perf_counter()
            _play(game, setup, f"persistent:{' '.join(argv)}", seats, folders, root / f"{tag}log.jsonl")
            steps = time.perf_counter() - began
        finally:
            for folder in folders.values():
                folder.close()
            for _, player in seats.values():
                os.kill(player.pid, signal.SIGCONT)  # to read the end of its stdin
    return time.perf_counter() - start, steps


def _play(game, setup: Setup, name: str, seats: dict, folders: dict[int, SeatFolder], log_path: Path) -> None:
    state = game.initial_state(setup)
    facts = views.MatchFacts(game, setup.variant, setup.seed, [name, name], resolve_limits(game, {}))
    history, status = views.History(), {1: "active", 2: "active"}
    states, given, cpu = [state], {1: 0, 2: 0}, {1: 0.0, 2: 0.0}
    step = 0
    with open(log_path, "w") as log:
        while not state.is_terminal():
            step += 1
            seat = state.current_player()
            folder, player = seats[seat]
            files = {"Board.txt": views.board_view(facts, state, seat),
                     "state.json": views.state_view(facts, state, step, seat, status, history)}
            for k in range(given[seat], step):
                files[f"step_logs/step_{k}.txt"] = views.snapshot_view(facts, states[k], seat)
            given[seat] = step
            folders[seat].prepare(files)
            began = time.monotonic()
            player.stdin.write(f"step {step}\n".encode())
            os.kill(player.pid, signal.SIGCONT)
            assert player.stdout.readline() == b"done\n"
            wall = time.monotonic() - began
            _freeze(player.pid)
            now = time.clock_gettime(_process_cpu_clock(player.pid))
            used, cpu[seat] = now - cpu[seat], now
            text = (folder / DECISION).read_text()
            decision = game.parse_decision(state, text)
            reason = state.illegal_reason(decision)
            assert reason is None, reason
            state, events = state.apply(seat, decision)
            states.append(state)
            history.append({"step": step, "player": seat, "decision": str(decision)})
            log.write(json.dumps({"step": step, "player": seat, "decision": text, "verdict": "OK",
                                  "wall_ms": round(wall * 1000, 1), "cpu_ms": round(used * 1000, 1),
                                  "applied": str(decision), "events": events,
                                  "hash": state_hash(game, state)}) + "\n")
            log.flush()


def _freeze(pid: int) -> None:
    """Stop the player once it reads its stdin again (looked for as the seat
    host's settle does: three looks with the CPU yielded, then naps of
    20 us), and wait for the stop."""
    with open(f"/proc/{pid}/syscall", "rb", buffering=0) as calls:
        for look in itertools.count():
            fields = calls.read().split()
            calls.seek(0)
            if READ_SYSCALL is None or (len(fields) > 1 and fields[0] == READ_SYSCALL
                                        and int(fields[1], 16) == 0):
                break
            if look < 3:
                os.sched_yield()
            else:
                time.sleep(0.00002)
    os.kill(pid, signal.SIGSTOP)
    os.waitpid(pid, os.WUNTRACED)
