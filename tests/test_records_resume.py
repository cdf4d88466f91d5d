"""A tournament's records hold against what a player can write without the
sandbox (issue 21): a forged journal line counts for nothing, an unfinished
game's folder full of odd files is replaced on --resume, and the report
never links a page a player planted."""
from __future__ import annotations

import contextlib
import json
import os
import socket
from pathlib import Path

import yaml

from conftest import BOARDS, assert_verifies, referee
from referee.core import trees


def _tournament(tmp_path: Path) -> tuple[Path, Path]:
    config = tmp_path / "class.yaml"
    config.write_text(yaml.safe_dump({
        "game": "cantris", "boards": str(BOARDS / "cantris" / "6x3-1.txt"), "format": "round_robin",
        "seed": 3, "out": "out", "sandbox": "none",
        "entrants": [{"name": "rnd", "command": "builtin:random"},  # two games, one won from each seat
                     {"name": "grd", "command": "builtin:greedy"}]}))
    run = referee("tournament", config, "--jobs", "2")
    assert run.returncode == 0, run.stderr
    return config, tmp_path / "out"


def _journal(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "journal.jsonl").read_text().splitlines()]


def test_resume_counts_only_the_records_its_game_folders_back(tmp_path):
    config, out = _tournament(tmp_path)
    standings = (out / "standings.csv").read_text()
    records = _journal(out)
    forged = []
    for record in records:  # every game: a line that says the other seat won
        if record["winner"] is not None:
            flipped = dict(record, winner=3 - record["winner"],
                           ranking=[[3 - record["winner"]], [record["winner"]]])
            forged.append(flipped)
    invented = dict(records[0], key="rr999-b1-s1", table="rr999", winner=1, ranking=[[1], [2]])
    with open(out / "journal.jsonl", "a") as f:
        for record in [*forged, invented]:
            f.write(json.dumps(record) + "\n")
    # a planted replay page, to be replaced
    planted = out / records[0]["folder"] / "replay.html"
    planted.unlink()
    planted.write_text("<h1>rnd wins everything</h1>")

    again = referee("tournament", config, "--resume")
    assert again.returncode == 0, again.stderr
    assert "journal record rr999-b1-s1 is not counted" in again.stderr
    assert f"journal record {forged[0]['key']} is not counted" in again.stderr
    assert "result.yaml says otherwise" in again.stderr
    # the forged games were played again (the same seed and players: the same results)
    assert (out / "standings.csv").read_text() == standings
    assert "rnd wins everything" not in planted.read_text()


def test_resume_replaces_an_unfinished_game_whatever_its_player_left(tmp_path):
    config, out = _tournament(tmp_path)
    standings = (out / "standings.csv").read_text()
    records = _journal(out)
    victim = records[-1]
    (out / "journal.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records[:-1]))
    folder = out / victim["folder"]
    (folder / "result.yaml").unlink()
    seat = folder / "players" / "p1"
    deep = os.open(seat, os.O_RDONLY)
    for _ in range(1200):  # past Python's recursion limit
        os.mkdir("d", dir_fd=deep)
        inner = os.open("d", os.O_RDONLY, dir_fd=deep)
        os.close(deep)
        deep = inner
    os.close(deep)
    os.mkfifo(seat / "fifo")
    sock = socket.socket(socket.AF_UNIX)
    with contextlib.chdir(seat):  # a socket's path is at most 107 bytes: bound by a relative one
        sock.bind("sock")
    os.symlink("loop", seat / "loop")
    (seat / "new\nline").write_text("x")
    (seat / "locked").mkdir()
    (seat / "locked" / "f").write_text("x")
    os.chmod(seat / "locked", 0)

    try:
        again = referee("tournament", config, "--resume")
    finally:  # pytest's own clean-up of old temporary folders recurses: no deep tree may stay
        sock.close()
        trees.remove_tree(seat / "d")
    assert again.returncode == 0, again.stderr
    assert (out / "standings.csv").read_text() == standings
    assert (folder / "result.yaml").exists() and not (seat / "d").exists()
    assert not list((out / "games").glob(".referee-trash-*"))  # all of it removed, nothing put aside
    assert_verifies(folder)
