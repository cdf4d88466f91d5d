"""`make bench`'s series floors (tests/bench/bare_driver.py) are only a fair
baseline if the bare driver makes a player do what the referee makes it do:
at every step a player that records what its folder holds sees the same
files, byte for byte, under the referee and under the bare driver, and finds
no old decision.txt (so it creates a new one, as under the referee).  Only
the referee's captures of the player's output (stdout.txt, stderr.txt) are
left out: the bare driver does not capture output."""
from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import textwrap
from pathlib import Path

from conftest import FIRST_CELL
from referee.core.match import MatchSpec, run_match

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("bare_driver", ROOT / "tests" / "bench" / "bare_driver.py")
bare_driver = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bare_driver)

CAPTURES = {"stdout.txt", "stderr.txt"}


def record_folder(records: Path, step: str) -> str:
    """Python code that writes every file of the current folder (but the
    output captures) with its bytes' hash to ``records/<step>.json``
    (``step``: an expression)."""
    return f"""
import hashlib, json, os
seen = {{}}
for folder, _, names in os.walk("."):
    for name in names:
        path = os.path.relpath(os.path.join(folder, name))
        if path not in {sorted(CAPTURES)!r}:
            seen[path] = hashlib.sha256(open(path, "rb").read()).hexdigest()
with open(os.path.join({str(records)!r}, f"{{{step}}}.json"), "w") as f:
    json.dump(seen, f, sort_keys=True)
"""


def recorder(records: Path) -> str:
    """A first-cell player that first records its folder (record_folder)."""
    return "import sys\n" + record_folder(records, "sys.argv[-2]") + FIRST_CELL


def test_the_bare_driver_gives_a_player_what_the_referee_gives_it(tmp_path):
    under_referee, under_driver = tmp_path / "referee", tmp_path / "driver"
    under_referee.mkdir()
    under_driver.mkdir()
    (tmp_path / "a.py").write_text(recorder(under_referee))
    (tmp_path / "b.py").write_text(recorder(under_driver))
    player = f"{sys.executable} -S {tmp_path / 'a.py'}"
    result = run_match(MatchSpec("cantris", [player, player], board=ROOT / "boards" / "cantris" / "10x5-1.txt",
                                 seed=7, sandbox="none", out=tmp_path / "match"))
    assert all(v["OK"] == sum(v.values()) for v in result.verdicts.values()), result.verdicts
    turns = bare_driver.protocol_steps(result.out)
    (tmp_path / "seats").mkdir()
    cpu: list[float] = []
    bare_driver.spawned_steps(tmp_path / "seats", turns, [sys.executable, "-S", str(tmp_path / "b.py")], cpu)
    assert len(cpu) == len(turns) == result.steps > 2
    for step in range(1, result.steps + 1):
        seen = json.loads((under_referee / f"{step}.json").read_text())
        assert "decision.txt" not in seen and "Board.txt" in seen and "state.json" in seen
        assert f"step_logs/step_{step - 1}.txt" in seen
        assert json.loads((under_driver / f"{step}.json").read_text()) == seen, step


def test_a_seat_folder_is_written_in_place_and_loses_its_old_decision(tmp_path):
    seat = bare_driver.SeatFolder(tmp_path)
    try:
        seat.prepare({"Board.txt": "long board\n", "step_logs/step_0.txt": "first"})
        board = (tmp_path / "Board.txt").stat().st_ino
        (tmp_path / "decision.txt").write_text("0 0\n")
        (tmp_path / "step_logs" / "step_0.txt").write_text("changed by the player")
        seat.prepare({"Board.txt": "short\n", "step_logs/step_0.txt": "first", "step_logs/step_1.txt": "second"})
    finally:
        seat.close()
    assert not (tmp_path / "decision.txt").exists()
    assert (tmp_path / "Board.txt").read_text() == "short\n" and (tmp_path / "Board.txt").stat().st_ino == board
    # a snapshot is written once (the referee's sandbox mounts them read-only; the
    # bench's players never change one)
    assert (tmp_path / "step_logs" / "step_0.txt").read_text() == "changed by the player"
    assert (tmp_path / "step_logs" / "step_1.txt").read_text() == "second"


def _bench_module(name: str):
    """A module of tests/bench (run there as scripts, importing each other by name)."""
    folder = str(ROOT / "tests" / "bench")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return importlib.import_module(name)


def test_the_lean_reference_plays_the_referees_game_and_shows_the_player_the_same_files(tmp_path):
    """The bench's reference row (lean_engine) is only a reference if it does
    a step's work: the same decisions applied to the same states, and the
    same files shown to the player before each step as the referee shows a
    persistent player."""
    lean_engine = _bench_module("lean_engine")
    records = tmp_path / "records"  # the same program on both sides: state.json names it
    records.mkdir()
    program = tmp_path / "player.py"
    program.write_text(persistent_recorder(records))
    board = ROOT / "boards" / "cantris" / "10x5-1.txt"
    player = f"persistent:{sys.executable} -S {program}"
    result = run_match(MatchSpec("cantris", [player, player], board=board, seed=1, sandbox="none",
                                 out=tmp_path / "match"))
    assert all(v["OK"] == sum(v.values()) for v in result.verdicts.values()), result.verdicts
    seen_by = {"referee": records.rename(tmp_path / "referee"), "lean": tmp_path / "lean"}
    records.mkdir()
    (tmp_path / "seats").mkdir()
    wall, steps = lean_engine.lean_match(tmp_path / "seats", board, 1, [sys.executable, "-S", str(program)], "l-")
    records.rename(seen_by["lean"])
    assert 0 < steps < wall

    def moves(log: Path) -> list[tuple]:
        return [(r["step"], r["player"], r["applied"], r["hash"])
                for r in map(json.loads, log.read_text().splitlines())]

    assert moves(tmp_path / "seats" / "l-log.jsonl") == moves(result.out / "log.jsonl")
    assert len(list(seen_by["lean"].iterdir())) == result.steps > 2
    for step in range(1, result.steps + 1):
        seen = json.loads((seen_by["referee"] / f"{step}.json").read_text())
        assert "decision.txt" not in seen and f"step_logs/step_{step - 1}.txt" in seen
        assert json.loads((seen_by["lean"] / f"{step}.json").read_text()) == seen, step


def persistent_recorder(records: Path) -> str:
    """A persistent SDK player that records its folder before each step's
    move (record_folder), then removes the first tile in reading order."""
    body = textwrap.indent(record_folder(records, "step"), "    ")
    return f"""
import sys
sys.path.insert(0, {str(ROOT / "players" / "sdk" / "python")!r})
from referee_sdk import run, save_decision

def play_games(step):
{body}
    board = [line.split() for line in open("Board.txt")]
    for r in range(len(board)):
        for c, v in enumerate(board[r]):
            if v != "0":
                save_decision(r, c)
                return

run(play_games)
"""
