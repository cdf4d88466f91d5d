"""The referee itself failing or being stopped: the log up to that point is
kept, and no player process is left behind."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
import yaml

from conftest import BOARDS, SDK_FIRST_CELL, interruptible
from referee.core import seats
from referee.core.log import line_hash
from referee.core.match import Match, MatchSpec, Observer, RefereeError, prepare
from referee.games.cantris.rules import CantrisState


def test_a_bug_in_game_code_keeps_the_log_and_says_where(tmp_path, monkeypatch):
    out = tmp_path / "m"
    prepared = prepare(MatchSpec("cantris", ["builtin:greedy", "builtin:greedy"], out=out, seed=1))
    real_apply = CantrisState.apply
    calls = []

    def failing_apply(self, player, decision):
        calls.append(decision)
        if len(calls) == 3:
            raise ZeroDivisionError("boom")
        return real_apply(self, player, decision)

    monkeypatch.setattr(CantrisState, "apply", failing_apply)
    with pytest.raises(RefereeError, match=r"internal error at step 3 .*log up to step 2 is kept"):
        Match(prepared, Observer()).run()
    assert len((out / "log.jsonl").read_text().splitlines()) == 2
    result = yaml.safe_load((out / "result.yaml").read_text())
    assert result["reason"].startswith("referee error at step 3") and result["winner"] is None
    assert "ZeroDivisionError" in (out / "referee-error.txt").read_text()


@pytest.mark.skipif(not seats.available(), reason="kept-alive players need a seat host")
def test_a_bug_in_game_code_keeps_the_snapshots_of_the_logged_steps_with_kept_alive_players(tmp_path, monkeypatch):
    # A kept-alive player's step leaves the writes of the step before it
    # undone when it answers first (core.later: they wait one more step).  A
    # match that stops on an error still writes them on its way out: every
    # logged step has its snapshot, in the match folder and in each seat.
    program = tmp_path / "first_cell.py"
    program.write_text(SDK_FIRST_CELL)
    out = tmp_path / "m"
    player = f"persistent:{sys.executable} {program}"
    prepared = prepare(MatchSpec("cantris", [player, player], out=out, seed=1,
                                 board=BOARDS / "cantris" / "10x5-1.txt"))
    real_apply = CantrisState.apply
    calls = []

    def failing_apply(self, player, decision):
        calls.append(decision)
        if len(calls) == 7:
            raise ZeroDivisionError("boom")
        return real_apply(self, player, decision)

    monkeypatch.setattr(CantrisState, "apply", failing_apply)
    with pytest.raises(RefereeError, match=r"internal error at step 7 .*log up to step 6 is kept"):
        Match(prepared, Observer()).run()
    lines = (out / "log.jsonl").read_bytes().splitlines()
    records = [json.loads(line) for line in lines]
    assert [r["verdict"] for r in records] == ["OK"] * 6, records
    # (each step's line is also one of those writes: the result names the last one logged)
    assert yaml.safe_load((out / "result.yaml").read_text())["last_hash"] == line_hash(lines[-1])
    assert {f"step_{k}.txt" for k in range(7)} <= {p.name for p in (out / "step_logs").iterdir()}
    for seat in ("p1", "p2"):
        written = {p.name for p in (out / "players" / seat / "step_logs").iterdir() if p.stat().st_size}
        assert {f"step_{k}.txt" for k in range(6)} <= written, (seat, sorted(written))


@pytest.mark.skipif(sys.platform != "linux", reason="Linux process semantics")
def test_interrupting_the_referee_kills_the_running_player(tmp_path):
    player = tmp_path / "sleeper.py"
    player.write_text("import os, time\nopen('pid', 'w').write(str(os.getpid()))\ntime.sleep(300)\n")
    referee = os.path.join(os.path.dirname(sys.executable), "referee")
    proc = subprocess.Popen([referee, "play", "cantris", "--player", f"{sys.executable} {player}",
                             "--player", "builtin:random", "--out", str(tmp_path / "m"), "--quiet",
                             "--time-limit", "100", "--sandbox", "none"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=interruptible)
    pid_file = tmp_path / "m" / "players" / "p1" / "pid"
    for _ in range(400):
        if pid_file.exists() and pid_file.read_text():
            break
        time.sleep(0.05)
    sleeper = int(pid_file.read_text())
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=30)
    assert proc.returncode != 0
    deadline = time.monotonic() + 60  # ends at once when it is gone; generous for a busy machine
    while _running(sleeper) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(sleeper)
    match = yaml.safe_load((tmp_path / "m" / "match.yaml").read_text())
    assert match["game"] == "cantris"  # written before the first step
    assert (tmp_path / "m" / "log.jsonl").read_text() == ""


def _running(pid: int) -> bool:
    """Alive and not a zombie waiting for a slow init to reap it."""
    try:
        with open(f"/proc/{pid}/status") as f:
            return "\nState:\tZ" not in f.read()
    except FileNotFoundError:
        return False


@pytest.mark.skipif(sys.platform != "linux", reason="Linux process semantics")
def test_a_player_dies_with_a_killed_referee(tmp_path):
    """SIGKILL cannot be caught: the player is armed to die with its parent."""
    script = (
        "import os, sys\nfrom pathlib import Path\n"
        "from referee.core.runner import Limits, run_process\n"
        f"d = Path({str(tmp_path)!r})\n"
        "run_process([sys.executable, '-c', \"import os, time; open('pid', 'w').write(str(os.getpid()));"
        " time.sleep(300)\"], d, os.environ, Limits(hard_time=200), d / 'o', d / 'e')\n")
    parent = subprocess.Popen([sys.executable, "-c", script])
    pid_file = tmp_path / "pid"
    for _ in range(400):
        if pid_file.exists() and pid_file.read_text():
            break
        time.sleep(0.05)
    player = int(pid_file.read_text())
    assert _running(player)
    parent.kill()
    parent.wait()
    for _ in range(1200):  # up to 60 s on a busy machine; ends as soon as it is gone
        if not _running(player):
            break
        time.sleep(0.05)
    assert not _running(player)
