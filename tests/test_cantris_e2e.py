"""End to end: real player processes through `referee play`, including
misbehaving ones, each of which must get its verdict and a complete log."""
from __future__ import annotations

import contextlib
import json
import os
import textwrap
from pathlib import Path

import pytest

from conftest import BOARDS, FIRST_CELL, assert_verifies, play_match, read_log, referee


def play(out: Path, *players: str, board: str = "8x4-handout", extra=()) -> dict:
    return play_match("cantris", out, *players, seed=7, board=BOARDS / "cantris" / f"{board}.txt",
                      extra=extra)


@pytest.mark.parametrize("board", ["6x3-1", "8x4-1", "10x5-1"])
def test_full_match_of_each_size_verifies(tmp_path, board):
    out = tmp_path / "m"
    result = play(out, "builtin:greedy", "builtin:random", board=board)
    records = read_log(out)
    assert result["steps"] == len(records) > 2
    assert all(r["verdict"] == "OK" for r in records)
    assert result["reason"].startswith("a column is empty")
    assert_verifies(out)
    # every step has its snapshot, and the player folders their files
    assert sorted(p.name for p in (out / "step_logs").iterdir()) == sorted(
        f"step_{k}.txt" for k in range(len(records) + 1))
    seat = out / "players" / "p1"
    assert (seat / "Board.txt").exists() and (seat / "state.json").exists()
    state = json.loads((seat / "state.json").read_text())
    assert state["game"] == "cantris" and state["you"] == 1
    if board.startswith("10x5"):
        assert [r["player"] for r in records[:4]] == [1, 1, 2, 2]
        assert state["removals_per_turn"] == 2


def test_player_sees_snapshots_of_every_earlier_step(tmp_path, make_player):
    checker = make_player("checker", FIRST_CELL.replace(
        "import sys", "import sys, os\nstep = int(sys.argv[-2])\n"
        "missing = [k for k in range(step) if not os.path.exists(f'step_logs/step_{k}.txt')]\n"
        "assert not missing and not os.path.exists(f'step_logs/step_{step}.txt'), missing\n"
        "assert os.environ['REFEREE_STEP'] == str(step) and os.environ['REFEREE_GAME'] == 'cantris'\n"
        "assert not os.path.exists('decision.txt')"))
    out = tmp_path / "m"
    play(out, checker, "builtin:greedy")
    assert all(r["verdict"] == "OK" for r in read_log(out))


MISBEHAVIOURS = {
    "TIMEOUT": "import time; time.sleep(60)",
    "CRASH": "raise RuntimeError('boom')",
    "MALFORMED": "open('decision.txt', 'w').write('left, then up')",
    "ILLEGAL": "open('decision.txt', 'w').write('0 9')",
    "NO_DECISION": "print('thinking... done')",
    "CPU_LIMIT": "while True: pass",
    "MEMORY_LIMIT": "x = bytearray(2 * 1024 ** 3)",
}


@pytest.mark.parametrize("verdict", sorted(MISBEHAVIOURS))
def test_misbehaving_player_gets_its_verdict_and_a_complete_log(tmp_path, make_player, verdict):
    bad = make_player("bad", MISBEHAVIOURS[verdict])
    out = tmp_path / "m"
    # Roomy wall limits: on a loaded machine the greedy seat's quick step may
    # take a second, and a busy loop may get less than a second of CPU in
    # several seconds.  Only the sleeper needs a short one, to end the test.
    wall = "4" if verdict == "TIMEOUT" else "30"
    result = play(out, "builtin:greedy", bad,
                  extra=("--time-limit", wall, "--set", f"hard_time={wall}", "--set", "cpu_time=1"))
    records = read_log(out)
    assert [r["verdict"] for r in records] == ["OK", verdict]
    last = records[-1]
    assert last["fault"] == "forfeit" and last["message"].startswith(f"step 2, player 2: {verdict}")
    assert result["winner"] == 1 and result["verdicts"][2][verdict] == 1
    assert f"forfeited ({verdict})" in result["reason"]
    assert_verifies(out)


def test_random_policy_replaces_a_faulty_move_and_the_game_goes_on(tmp_path, make_player):
    bad = make_player("bad", MISBEHAVIOURS["ILLEGAL"])
    out = tmp_path / "m"
    result = play(out, "builtin:greedy", bad, extra=("--policy", "random"))
    records = read_log(out)
    faults = [r for r in records if r["player"] == 2]
    assert faults and all(r["verdict"] == "ILLEGAL" and r["fault"] == "random" for r in faults)
    assert all(r["applied"] for r in faults)
    assert result["reason"].startswith("a column is empty")
    assert result["verdicts"][2]["ILLEGAL"] == len(faults)
    assert_verifies(out)


def test_eject_policy_falls_back_to_forfeit_for_cantris(tmp_path, make_player):
    bad = make_player("bad", MISBEHAVIOURS["CRASH"])
    out = tmp_path / "m"
    result = play(out, bad, "builtin:greedy", extra=("--policy", "eject"))
    assert result["winner"] == 2 and read_log(out)[0]["fault"] == "forfeit"


def test_late_move_still_counts(tmp_path, make_player):
    slow = make_player("slow", "import time; time.sleep(0.5)\n" + FIRST_CELL)
    out = tmp_path / "m"
    result = play(out, slow, "builtin:greedy", extra=("--time-limit", "0.2", "--set", "hard_time=30"))
    records = read_log(out)
    assert {r["verdict"] for r in records if r["player"] == 1} == {"LATE"}
    assert all(r["applied"] for r in records)
    assert result["verdicts"][1]["LATE"] > 0
    assert "forfeit" not in result["reason"]


def test_a_child_that_outlives_its_player_is_killed_before_the_next_step(tmp_path, make_player):
    # Each step, the player checks that the helpers it left last step are
    # gone (else it writes garbage), then leaves two more: one in its process
    # group and one that escaped with setsid.
    leaver = make_player("leaver", textwrap.dedent("""
        import os, subprocess, sys, time
        def alive(pid):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return False
            return True
        pids = [int(p) for p in open("pids").read().split()] if os.path.exists("pids") else []
        survivors = [p for p in pids if alive(p)]
        pids = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"]).pid,
                subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"],
                                 start_new_session=True).pid]
        open("pids", "w").write(" ".join(map(str, pids)))
        if survivors:
            open("decision.txt", "w").write("survivors " + str(survivors))
            sys.exit(0)
    """) + FIRST_CELL)
    out = tmp_path / "m"
    # Without the sandbox: the pids it writes must be the referee's pids (the
    # sandbox's case is in test_rogues.py).
    play(out, leaver, "builtin:greedy", extra=("--sandbox", "none"))
    records = read_log(out)
    mine = [r for r in records if r["player"] == 1]
    assert len(mine) >= 2 and all(r["verdict"] == "OK" for r in mine), records
    assert all(r.get("orphans_killed", 0) >= 1 for r in mine)
    for pid in map(int, (out / "players" / "p1" / "pids").read_text().split()):
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_crash_after_writing_a_valid_decision_counts_the_move(tmp_path, make_player):
    player = make_player("exit1", FIRST_CELL.replace("sys.exit(0)", "sys.exit(1)"))
    out = tmp_path / "m"
    result = play(out, player, "builtin:greedy")
    mine = [r for r in read_log(out) if r["player"] == 1]
    assert all(r["verdict"] == "OK" and r["exit"] == 1 for r in mine)
    assert "forfeit" not in result["reason"]


def test_output_is_captured_and_capped(tmp_path, make_player):
    chatty = make_player("chatty", "print('x' * 500000)\n" + FIRST_CELL)
    out = tmp_path / "m"
    play(out, chatty, "builtin:greedy", extra=("--set", "output_kb=8"))
    stdout = (out / "players" / "p1" / "stdout.txt").read_text()
    steps = sum(1 for r in read_log(out) if r["player"] == 1)
    assert stdout.count("more bytes of output dropped") == steps
    assert len(stdout) < steps * (8 * 1024 + 100)


def test_same_seed_and_players_give_the_same_log(tmp_path):
    # Timings aside: the measured fields, and the hash chain that covers them.
    timing = ("wall_ms", "cpu_ms", "peak_kb", "start_ms", "prev", "last_hash")

    def strip(records):
        return [{k: v for k, v in r.items() if k not in timing} for r in records]

    def result(folder):
        lines = (folder / "result.yaml").read_text().splitlines(keepends=True)
        return "".join(line for line in lines if not line.startswith("last_hash:"))

    a, b = tmp_path / "a", tmp_path / "b"
    play(a, "builtin:random", "builtin:random")
    play(b, "builtin:random", "builtin:random")
    assert strip(read_log(a)) == strip(read_log(b))
    assert result(a) == result(b) and "last_hash:" in (a / "result.yaml").read_text()


@pytest.mark.parametrize("text, message", [
    ("1 2 3\n1 0 3\n1 2 3\n", "Board.txt:2:3: empty cell"),
    ("1 2 3 4\n1 2 3\n1 2 3 4\n", "Board.txt:2: row has 3 numbers but line 1 has 4"),
    ("1 2 3\n1 z 3\n1 2 3\n", "Board.txt:2:3: 'z' is not an integer"),
    ("1 2\n1 2\n1 2\n", "Board.txt: board is 3x2"),
    ("1 2 3\n4 5 10\n1 2 3\n", "Board.txt:2:5: tile number 10 is outside 1..9"),
])
def test_bad_board_files_exit_2_with_one_line(tmp_path, text, message):
    board = tmp_path / "Board.txt"
    board.write_text(text)
    for args in (("play", "cantris", "--player", "builtin:random", "--player", "builtin:random",
                  "--board", "Board.txt", "--out", "m"), ("validate", "cantris", "Board.txt")):
        proc = referee(*args, cwd=tmp_path)
        assert proc.returncode == 2
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0] == f"referee: error: {message}" or message in lines[0], lines
        assert "Traceback" not in proc.stderr
    assert not (tmp_path / "m").exists()


def test_fork_hog_is_cleaned_up_after_its_step(tmp_path, make_player):
    # Its children are found by its program's path on their command line (a
    # fork's is its parent's), not by the pids it sees: in the sandbox those
    # are its pid namespace's, and out here the same numbers are other
    # processes' or none (the kernel threads of a many-core machine hold
    # hundreds of low pids: os.kill(pid, 0) found them alive).
    hog = make_player("hog", textwrap.dedent("""
        import os, time
        for _ in range(40):
            if os.fork() == 0:
                if os.getpid() % 2:
                    os.setsid()
                time.sleep(300)
                os._exit(0)
    """) + FIRST_CELL)
    out = tmp_path / "m"
    play(out, hog, "builtin:greedy")
    mine = [r for r in read_log(out) if r["player"] == 1]
    assert all(r["verdict"] == "OK" and r.get("orphans_killed") == 40 for r in mine), mine
    program = hog.split()[-1].encode()
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):
            if program in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0"):
                left.append(pid)
    assert not left, f"{len(left)} of its children outlived the match"


@pytest.mark.parametrize("body, message", [
    ("import os; os.mkdir('decision.txt')", "decision.txt is a directory"),
    ("open('decision.txt', 'w').write('1 ' * 100000)", "decision.txt is over 64 KiB"),
    ("open('decision.txt', 'wb').write(bytes(range(256)))", "expected one line 'r c'; got 2 lines"),
])
def test_garbage_decision_files_are_malformed(tmp_path, make_player, body, message):
    bad = make_player("bad", body)
    out = tmp_path / "m"
    play(out, bad, "builtin:greedy")
    record = read_log(out)[0]
    assert record["verdict"] == "MALFORMED" and message in record["message"]
    assert len(record["decision"]) <= 1024  # the longest decision a codec accepts is logged whole
