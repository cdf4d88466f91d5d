"""Hostile kept-alive players against the lent path (referee/core/direct.py).

As in test_direct_steps.py, each player is played twice, its steps lent to
the worker (REFEREE_DIRECT_STEPS unset) and through its host (``off``),
and the logs are compared; here the players are written whole (their own
request loop where the SDK's would hide the trick)."""
from __future__ import annotations

import os
import select
import sys
import time
import types

import pytest

from conftest import BOARDS, PYTHON_SDK, read_log, referee
from referee.core import cgroups, direct, seats
from referee.core.match import MatchSpec, run_match

pytestmark = pytest.mark.skipif(not (seats.available() and cgroups.available()),
                                reason="steps are lent where a seat host and a control group hold the seat")

HEAD = f"""
import os, signal, sys, threading, time
sys.path.insert(0, {str(PYTHON_SDK)!r})
from referee_sdk import read_board, save_decision

def decide():
    board = read_board()
    for r in range(len(board) - 1, -1, -1):
        for c, v in enumerate(board[r]):
            if v:
                save_decision(r, c)
                return

def spin(seconds):
    t = time.monotonic()
    while time.monotonic() - t < seconds:
        pass

CALLS = 0
"""

# A well-behaved opponent: its own loop, as the rogues have.
WELL = HEAD + """
for line in sys.stdin:
    decide()
    os.write(1, b"done\\n")
"""
KEPT = ("step", "player", "verdict", "decision", "exit", "orphans_killed", "notes", "stdout")


def _play(tmp_path, monkeypatch, name: str, program: str, mode: str, limits: dict | None = None,
          sandbox: str = "auto") -> list[dict]:
    """Play ``program`` (player 1) against WELL, lent (``mode`` on) or not
    (off): the log's records, timings left out."""
    monkeypatch.setenv(direct.ENV, mode)
    rogue, well = tmp_path / f"{name}.py", tmp_path / "well.py"
    rogue.write_text(HEAD + program)
    well.write_text(WELL)
    out = tmp_path / f"{name}-{sandbox}-{mode}"
    run_match(MatchSpec("cantris", [f"persistent:python3 {rogue}", f"persistent:python3 {well}"],
                        board=BOARDS / "cantris" / "10x5-1.txt", seed=5, out=out, sandbox=sandbox,
                        limits=limits or {}, policy="random"))
    return [{key: r.get(key) for key in KEPT} for r in read_log(out)]


def _rogue(records: list[dict]) -> list[dict]:
    return [r for r in records if r["player"] == 1]


def test_a_done_printed_after_the_first_one_is_not_the_next_steps_answer(tmp_path, monkeypatch):
    # Its third call prints ``done``, then (busy, not asleep, so that its
    # freeze waits for it) a second one before it reads its stdin again.
    # The second is that step's output; the next step waits for its own
    # ``done`` (it takes 50 ms to decide, longer than a freeze waits): lent,
    # it was taken for the next step's answer, before the decision was
    # written (NO_DECISION where the host said OK).
    program = """
for line in sys.stdin:
    CALLS += 1
    if CALLS >= 4:
        spin(0.05)
    decide()
    os.write(1, b"done\\n")
    if CALLS == 3:
        spin(0.002)
        os.write(1, b"done\\n")
"""
    lent = _play(tmp_path, monkeypatch, "late-done", program, "on")
    hosted = _play(tmp_path, monkeypatch, "late-done", program, "off")
    assert lent == hosted, (lent, hosted)
    assert {r["verdict"] for r in _rogue(lent)} == {"OK"}, lent


class _SlowPoll:
    """select.poll whose every poll first sleeps: the worker as a loaded
    machine may run it, woken only after its player has both answered and
    ended."""

    def __init__(self) -> None:
        self.poll_ = select.poll()

    def register(self, *args) -> None:
        self.poll_.register(*args)

    def poll(self, timeout=None):
        time.sleep(0.3)
        return self.poll_.poll(timeout)


def test_a_done_before_a_death_is_an_answer_when_both_are_seen_at_once(tmp_path, monkeypatch):
    # Its third step prints ``done`` and exits at once.  Its host reads what
    # it printed before it looks for a death: an answer (OK), and its death
    # the next step's.  The worker, woken by both at once, took the death
    # first and handed the step back with the ``done`` drained: the host
    # then judged the exit (OK), and the next step started a new player.
    monkeypatch.setattr(direct, "select", types.SimpleNamespace(poll=_SlowPoll, POLLIN=select.POLLIN))
    program = """
for line in sys.stdin:
    CALLS += 1
    if CALLS == 3:
        spin(0.05)  # (after the worker's first look for its answer)
    decide()
    os.write(1, b"done\\n")
    if CALLS == 3:
        os._exit(0)
"""
    lent = _play(tmp_path, monkeypatch, "done-then-exit", program, "on")
    hosted = _play(tmp_path, monkeypatch, "done-then-exit", program, "off")
    assert lent == hosted, (lent, hosted)
    third, fourth = _rogue(lent)[2:4]
    assert third["verdict"] == "OK" and fourth["verdict"] == "NO_DECISION", (third, fourth)


@pytest.mark.parametrize("mode", ["on", "off"])
def test_an_output_file_replaced_by_a_fifo_hangs_nothing(tmp_path, mode):
    # Its second call replaces its stdout.txt by a fifo that nobody reads;
    # its third prints 300 KB.  The output file is put back as a regular
    # file (as for a link): the step is judged as any.  Written into the
    # fifo, that output hung the worker for ever (lent) or the host until
    # the referee gave up on it ("the seat host stopped answering").
    program = """
for line in sys.stdin:
    CALLS += 1
    if CALLS == 2:
        os.unlink("stdout.txt")
        os.mkfifo("stdout.txt")
    if CALLS == 3:
        os.write(1, b"x" * 300000 + b"\\n")
    decide()
    os.write(1, b"done\\n")
"""
    rogue, well = tmp_path / "fifo.py", tmp_path / "well.py"
    rogue.write_text(HEAD + program)
    well.write_text(WELL)
    out = tmp_path / "match"
    proc = referee("play", "cantris", "--player", f"persistent:{sys.executable} {rogue}",
                   "--player", f"persistent:{sys.executable} {well}",
                   "--board", str(BOARDS / "cantris" / "10x5-1.txt"), "--seed", "5", "--out", str(out),
                   "--policy", "random", "--time-limit", "3", "--quiet",
                   timeout=120, env={**os.environ, direct.ENV: mode})
    assert proc.returncode == 0, proc.stderr
    records = _rogue(read_log(out))
    assert [r["verdict"] for r in records] == ["OK"] * len(records), records
    assert "x" * 100 in records[2]["stdout"], records[2]
    assert (out / "players" / "p1" / "stdout.txt").is_file()


# A child of the player's step that wakes it (SIGCONT) after its freeze:
# for 0.25 s, again and again; or each time it shows stopped, three times.
WAKERS = {
    "again and again": """
            until = time.monotonic() + 0.25
            while time.monotonic() < until:
                os.kill(os.getppid(), signal.SIGCONT)""",
    "once it shows stopped": """
            for _ in range(3):
                while open(f"/proc/{os.getppid()}/stat").read().rsplit(")", 1)[1].split()[0] != "T":
                    pass
                os.kill(os.getppid(), signal.SIGCONT)""",
}


@pytest.mark.parametrize("mode", ["on", "off"])
@pytest.mark.parametrize("waker", sorted(WAKERS))
def test_a_player_woken_after_its_freeze_by_a_process_of_its_step_is_stopped_again(
        tmp_path, monkeypatch, mode, waker):
    # Its fourth call starts a thread that counts (every 10 ms) and a child
    # that wakes it (see WAKERS), which a thread of it reaps.  The sweep at
    # its step's end killed the child but left the player running (lent or
    # not, as the races fell): its thread counted
    # through the opponent's two steps (0.5 s each), thinking on the
    # opponent's time (~100 counts).  Stopped again once the child is gone,
    # it counts only while its step lasts (the freeze's wait, ~0.1 s).
    program = """
TICKS = [0]
def count():
    while True:
        TICKS[0] += 1
        time.sleep(0.01)
for line in sys.stdin:
    CALLS += 1
    if CALLS == 5:
        print("counted", TICKS[0] - MARK, flush=True)
    if CALLS == 4:
        threading.Thread(target=count, daemon=True).start()
        child = os.fork()
        if child == 0:WAKER
            os._exit(0)
        threading.Thread(target=os.waitpid, args=(child, 0), daemon=True).start()
    decide()
    MARK = TICKS[0]
    os.write(1, b"done\\n")
""".replace("WAKER", WAKERS[waker])
    monkeypatch.setattr(sys.modules[__name__], "WELL", WELL.replace("    decide()", "    time.sleep(0.5)\n    decide()"))
    records = _rogue(_play(tmp_path, monkeypatch, "woken", program, mode))
    assert [r["verdict"] for r in records] == ["OK"] * len(records), records
    fifth = records[4]
    assert fifth["stdout"].startswith("counted "), fifth
    assert int(fifth["stdout"].split()[1]) < 50, fifth


@pytest.mark.parametrize("mode", ["on", "off"])
@pytest.mark.parametrize("glued, verdict", [(True, "TIMEOUT"), (False, "OK")])
def test_a_done_at_the_end_of_a_flood_line_is_that_lines_end_however_it_is_read(
        tmp_path, monkeypatch, mode, glued, verdict):
    # 5 MB with no newline, then ``done``: one line, not an answer.  Its host
    # wrote a flood out once past 64 KB and forgot that a line was cut there,
    # so the ``done`` counted when a read happened to start with it: OK or
    # TIMEOUT, as the reads fell, lent or not.  On a line of its own, it counts.
    end = "b''" if glued else "b'\\n'"
    program = """
for line in sys.stdin:
    CALLS += 1
    decide()
    if CALLS == 2 and not os.path.exists("flooded"):  # (once: a new player counts its calls anew)
        open("flooded", "w").close()
        os.write(1, b"x" * (5 << 20) + END)
    os.write(1, b"done\\n")
""".replace("END", end)
    # Glued, its step waits for the hard limit (2 s).  On a line of its own,
    # the ``done`` must come in time however long the flood takes to pass
    # (~80 pipe-fuls, a wake-up of its reader each: on a busy machine, past
    # 1 s, LATE, or 2 s, TIMEOUT): limits far away.
    limits = {"soft_time": 1, "hard_time": 2} if glued else {"soft_time": 30, "hard_time": 60}
    records = _rogue(_play(tmp_path, monkeypatch, f"flood-{glued}", program, mode, limits=limits))
    assert records[1]["verdict"] == verdict, records[1]
    assert {r["verdict"] for r in records[:1] + records[2:]} <= {"OK", "LATE"}, records
