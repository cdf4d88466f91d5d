"""A kept-alive player's steps played by the worker itself (referee/core/direct.py).

Where a control group holds the seat, the seat host lends its frozen player
to the worker, which plays the ordinary steps without a request to the
host; anything else goes back to the host.  So each misbehaviour below is
played twice, with the steps lent (REFEREE_DIRECT_STEPS unset) and through
the host (``off``): the same verdicts, decisions, exits and sweeps, and,
lent, the steps before it were played by the worker."""
from __future__ import annotations

import pytest

from conftest import BOARDS, PYTHON_SDK, read_log
from referee.core import cgroups, direct, seats
from referee.core.match import MatchSpec, run_match

pytestmark = pytest.mark.skipif(not (seats.available() and cgroups.available()),
                                reason="steps are lent where a seat host and a control group hold the seat")

ROGUE = f"""
import os, signal, sys, time
sys.path.insert(0, {str(PYTHON_SDK)!r})
from referee_sdk import read_board, run, save_decision
CALLS = CHILD = 0

def play_games(step):
    global CALLS, CHILD
    CALLS += 1
    if CALLS == 3:
        MISBEHAVE
    if CALLS == 4:
        LATER
    board = read_board()
    for r in range(len(board) - 1, -1, -1):
        for c, v in enumerate(board[r]):
            if v:
                save_decision(r, c)
                if CALLS == 3:
                    AFTER
                return

run(play_games)
"""

# (name, code before its decision at its third call, code after it, limits, sandboxes)
ALIVE = "print('child', 'killed' if os.waitpid(CHILD, os.WNOHANG)[0] else 'alive', flush=True)"
CASES = [
    ("crashes", "os._exit(3)", "pass", {}, ("auto",)),
    ("sleeps past the limit", "time.sleep(30)", "pass", {"soft_time": 2, "hard_time": 3}, ("auto",)),
    ("leaves a process behind", "pass",
     "CHILD = os.fork()\n                    if CHILD == 0:\n                        os.setsid(); time.sleep(60)",
     {}, ("auto", "none")),
    ("closes its output", "os.close(1); time.sleep(30)", "pass", {"soft_time": 2, "hard_time": 3}, ("auto",)),
    ("ignores SIGXCPU", "signal.signal(signal.SIGXCPU, signal.SIG_IGN)\n        while True: pass", "pass",
     {"cpu_time": 1, "soft_time": 30, "hard_time": 30}, ("auto",)),
    ("stops itself", "os.kill(os.getpid(), signal.SIGSTOP)", "pass", {"soft_time": 2, "hard_time": 3}, ("auto",)),
    ("says done twice", "pass", "print('done', flush=True)", {}, ("auto",)),
    # (Once its decision is saved: killed before it, the player races the
    # host's death to its decision file, through the host.)
    ("kills its host", "pass", "os.kill(os.getppid(), signal.SIGKILL)", {}, ("none",)),
    ("execs itself", "os.execv(sys.executable, [sys.executable, sys.argv[0]])", "pass",
     {"soft_time": 2, "hard_time": 3}, ("auto",)),
    ("forks a child that takes its next request", "pass",
     "CHILD = os.fork()\n                    if CHILD == 0:\n                        sys.stdin.readline(); time.sleep(60)",
     {"soft_time": 2, "hard_time": 3}, ("auto",)),
]


def _play(tmp_path, monkeypatch, name: str, program: str, limits: dict, sandbox: str, mode: str):
    """Play the rogue against a well-behaved kept-alive player: (the log's
    records, timings left out; how many steps the worker played)."""
    monkeypatch.setenv(direct.ENV, mode)
    played = []
    step = direct.Borrowed.step

    def counting(self, *args, **kwargs):
        reply, more = step(self, *args, **kwargs)
        played.append(reply is not None)
        return reply, more

    monkeypatch.setattr(direct.Borrowed, "step", counting)
    out = tmp_path / f"{name.replace(' ', '-')}-{sandbox}-{mode}"
    well = tmp_path / "well.py"
    well.write_text(ROGUE.replace("MISBEHAVE", "pass").replace("AFTER", "pass").replace("LATER", "pass"))
    run_match(MatchSpec("cantris", [f"persistent:python3 {program}", f"persistent:python3 {well}"],
                        board=BOARDS / "cantris" / "10x5-1.txt", seed=5, out=out, sandbox=sandbox,
                        limits=limits, policy="random"))
    kept = ("step", "player", "verdict", "decision", "exit", "orphans_killed", "notes", "stdout")
    return [{key: r.get(key) for key in kept} for r in read_log(out)], sum(played)


@pytest.mark.parametrize("name,before,after,limits,sandbox",
                         [(n, b, a, lim, s) for n, b, a, lim, sandboxes in CASES for s in sandboxes])
def test_a_misbehaving_player_is_judged_alike_whether_its_steps_are_lent_or_not(
        tmp_path, monkeypatch, name, before, after, limits, sandbox):
    program = tmp_path / "rogue.py"
    later = ALIVE if name == "leaves a process behind" else "pass"
    program.write_text(ROGUE.replace("MISBEHAVE", before).replace("AFTER", after).replace("LATER", later))
    lent, played = _play(tmp_path, monkeypatch, name, program, limits, sandbox, "on")
    hosted, none_played = _play(tmp_path, monkeypatch, name, program, limits, sandbox, "off")
    assert none_played == 0
    rogue = [r for r in lent if r["player"] == 1]
    assert len(rogue) >= 4 and [r["verdict"] for r in rogue[:2]] == ["OK", "OK"], rogue
    third = rogue[2]
    if name == "kills its host":
        # (Only without a sandbox, where the player may signal its host.)
        # Through the host, the step is lost with it; lent, the host is not
        # needed for it, and the player's answer counts.  Either way a new
        # host and player take the seat's next step.
        assert third["verdict"] == "OK", third
        assert hosted[third["step"] - 1]["notes"] == ["the seat host stopped answering"]
        lent, hosted = [r for r in lent if r is not third], [r for r in hosted if r["step"] != third["step"]]
    assert lent == hosted, (lent, hosted)
    # The steps before the misbehaviour, and the well-behaved player's, were the worker's.
    assert played >= 4, played
    if name == "forks a child that takes its next request":  # swept as its step ended: the request is the player's
        assert third["verdict"] == "OK" and rogue[3]["verdict"] == "OK", rogue
    elif name == "leaves a process behind":  # killed as the step ended (the frozen player has not reaped it)
        assert third["verdict"] == "OK" and rogue[3]["stdout"] == "child killed\n", rogue[3]
        assert third["orphans_killed"] == 1, third  # (counted as killed, though its parent reaps it)
    elif name in ("says done twice", "kills its host"):
        assert third["verdict"] == "OK", third
    else:
        assert third["verdict"] != "OK", third
    assert rogue[3]["verdict"] == "OK", rogue[3]  # the seat plays on


def test_a_lent_player_gets_its_steps_without_a_request_to_its_host(tmp_path, monkeypatch):
    # Both players kept alive, well-behaved: after their start (the host's),
    # every step is played by the worker; none is a request to a host.
    requests: list[bytes] = []
    ask = seats.SeatHost._ask

    def recording(self, request, deadline, meanwhile=None):
        requests.append(request)
        return ask(self, request, deadline, meanwhile)

    monkeypatch.setattr(seats.SeatHost, "_ask", recording)
    well = tmp_path / "well.py"
    well.write_text(ROGUE.replace("MISBEHAVE", "pass").replace("AFTER", "pass").replace("LATER", "pass"))
    records, played = _play(tmp_path, monkeypatch, "well", well, {}, "auto", "on")
    assert played == len(records) >= 4 and {r["verdict"] for r in records} == {"OK"}
    assert requests == []  # (the hosts' start and their players' are asked of all at once, not by _ask)


def test_a_lent_steps_wall_ends_at_its_done_not_after_its_stop_and_sweep(tmp_path, monkeypatch):
    # docs/protocol.md: a kept-alive player's wall time runs from the
    # request to its ``done`` (and its way back to its stdin).  The stop and
    # the sweep after it are the referee's: one that takes a second is not
    # the player's second.
    from referee.core import seathost

    slowed: list[bool] = []
    sweep = seathost.Persistent.sweep_frozen

    def slow_once(self, *args, **kwargs):
        if not slowed:
            slowed.append(True)
            import time
            time.sleep(1.0)
        return sweep(self, *args, **kwargs)

    monkeypatch.setattr(seathost.Persistent, "sweep_frozen", slow_once)
    well = tmp_path / "well.py"
    well.write_text(ROGUE.replace("MISBEHAVE", "pass").replace("AFTER", "pass").replace("LATER", "pass"))
    monkeypatch.setenv(direct.ENV, "on")
    out = tmp_path / "slow-freeze"
    run_match(MatchSpec("cantris", [f"persistent:python3 {well}", f"persistent:python3 {well}"],
                        board=BOARDS / "cantris" / "10x5-1.txt", seed=5, out=out, sandbox="auto"))
    records = read_log(out)
    assert slowed and {r["verdict"] for r in records} == {"OK"}
    assert max(r["wall_ms"] for r in records) < 900, [r["wall_ms"] for r in records]
