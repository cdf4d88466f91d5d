"""Time controls: a match bank per seat with a Fischer increment, a first-step
allowance and a grace margin that is charged and logged, never forgiven
silently.  Timing on a shared machine varies, so the end-to-end tests check
the bookkeeping (each step's bank follows from the logged wall times), and a
bank runs out where the player never answers, not where sleeps happen to add
up: a busy machine must not change which step times out."""
from __future__ import annotations

import json

import pytest

from conftest import BOARDS, FIRST_CELL, assert_verifies, play_match, read_log, referee
from referee.core.clock import SeatClock
from referee.core.runner import Limits

# Says its time left, sleeps {sleep} s (for ever from step {hang_at} on), then
# plays as conftest.FIRST_CELL.
SLEEPER = """
import json, time
state = json.load(open("state.json"))
print("time_left", state["time_left"], flush=True)
time.sleep({sleep} if state["step"] < {hang_at} else 1000)
"""


def sleeper(sleep: float, hang_at: int) -> str:
    return SLEEPER.format(sleep=sleep, hang_at=hang_at) + FIRST_CELL


def test_the_bank_shrinks_by_each_step_and_grows_by_the_increment():
    clock = SeatClock(Limits(time_bank=2.0, increment=0.5, first_step_extra=1.0, grace=0.1))
    assert clock.allowed() == 3.0  # the first step gets its allowance
    assert clock.step_limits().hard_time == pytest.approx(3.1)
    assert clock.charge(1.0).left == pytest.approx(2.5)  # 3 - 1 + 0.5
    assert clock.allowed() == pytest.approx(2.5)  # no allowance after the first step
    charge = clock.charge(2.55)  # 0.05 over, within the grace: charged and logged
    assert not charge.ran_out and charge.grace_used == pytest.approx(0.05) and charge.left == 0.5
    charge = clock.charge(0.7)  # 0.2 over 0.5: past the grace
    assert charge.ran_out and charge.left == 0.0


def test_no_bank_no_bookkeeping():
    clock = SeatClock(Limits())
    assert clock.allowed() is None and clock.charge(5.0) is None
    assert clock.step_limits() == Limits()


def test_the_hard_limit_still_caps_a_big_bank():
    clock = SeatClock(Limits(hard_time=3.0, soft_time=1.0, time_bank=100.0))
    assert clock.step_limits().hard_time == 3.0 and clock.step_limits().soft_time == 1.0


def test_a_seat_that_spends_its_bank_times_out_and_the_log_adds_up(tmp_path, make_player):
    # Its first two steps spend some of the 6 s bank (0.2 s each, more on a
    # busy machine), its third never ends: the bank, not luck, stops it there.
    # (The opponent has a bank too: 6 s leave its two quick steps seconds.)
    slow = make_player("slow", sleeper(0.2, 5))
    out = tmp_path / "m"
    result = play_match("cantris", out, slow, "builtin:random", seed=3,
                        board=BOARDS / "cantris" / "8x4-1.txt",
                        extra=("--set", "time_bank=6.0", "--set", "grace=0.05"))
    mine = [r for r in read_log(out) if r["player"] == 1]
    assert [r["step"] for r in mine] == [1, 3, 5], [r.get("message") for r in mine]
    assert mine[-1]["verdict"] == "TIMEOUT" and "time bank ran out" in mine[-1]["message"]
    assert result["winner"] == 2 and "forfeited (TIMEOUT)" in result["reason"]
    bank = 6.0
    for record in mine:
        told = float(record["stdout"].split()[1])
        assert told == pytest.approx(bank, abs=0.002)  # state.json said what was left
        if record["verdict"] != "TIMEOUT":
            bank = max(0.0, bank - record["wall_ms"] / 1000)
            assert record["bank_ms"] == pytest.approx(bank * 1000, abs=0.2)
    assert mine[-1]["bank_ms"] == 0.0
    assert mine[-1]["wall_ms"] >= bank * 1000  # it had the whole bank left before it was stopped
    assert_verifies(out)


def test_an_increment_keeps_a_steady_player_going(tmp_path, make_player):
    steady = make_player("steady", sleeper(0.05, 1000))
    out = tmp_path / "m"
    play_match("cantris", out, steady, "builtin:random", seed=3,
               board=BOARDS / "cantris" / "6x3-1.txt",
               extra=("--set", "time_bank=3", "--set", "increment=3", "--set", "first_step_extra=1"))
    mine = [r for r in read_log(out) if r["player"] == 1]
    assert len(mine) >= 2 and {r["verdict"] for r in mine} <= {"OK", "LATE"}
    assert float(mine[0]["stdout"].split()[1]) == 4.0  # bank + first-step allowance
    for before, after in zip(mine, mine[1:]):
        told = float(after["stdout"].split()[1])
        assert told == pytest.approx(before["bank_ms"] / 1000, abs=0.002)


@pytest.mark.parametrize("setting, ok", [("increment=0", True), ("grace=0", True),
                                          ("time_bank=off", True), ("time_bank=-1", False),
                                          ("increment=-0.5", False)])
def test_time_control_settings_are_checked(tmp_path, setting, ok):
    proc = referee("play", "cantris", "--player", "builtin:random", "--player", "builtin:random",
                   "--out", tmp_path / "m", "--quiet", "--seed", "1", "--set", setting,
                   "--board", BOARDS / "cantris" / "6x3-1.txt")
    assert (proc.returncode == 0) == ok, proc.stderr
    if not ok:
        assert proc.stderr.startswith("referee: error: limit ") and "must be positive" in proc.stderr
    else:
        limits = json.loads((tmp_path / "m" / "players" / "p1" / "state.json").read_text())["limits"]
        key = setting.split("=")[0]
        assert key in limits


def test_verify_recomputes_the_bank_from_the_wall_times(tmp_path, make_player):
    import shutil

    out = tmp_path / "m"
    play_match("cantris", out, make_player("s", sleeper(0.01, 1000)), "builtin:random",
               seed=3, board=BOARDS / "cantris" / "6x3-1.txt", extra=("--set", "time_bank=30"))
    assert_verifies(out)
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    lines = (copy / "log.jsonl").read_text().splitlines()
    record = json.loads(lines[0])
    record["bank_ms"] += 5000  # a more generous bank than the wall times give
    lines[0] = json.dumps(record, separators=(",", ":"))
    (copy / "log.jsonl").write_text("\n".join(lines) + "\n")
    proc = referee("replay", copy, "--verify")
    assert proc.returncode == 1 and "step 1: the log's time bank" in proc.stderr, proc.stderr
