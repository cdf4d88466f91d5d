"""The student SDK's Tsuro module reads back exactly what the referee writes,
and its path helpers agree with the rules; the C++ template compiles and
plays legal moves."""
from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import referee
from referee.core.game import Setup
from referee.games.tsuro import GAME
from referee.games.tsuro import board as geo
from referee.games.tsuro.decisions import Start
from referee.games.tsuro.tiles import TILES

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "players" / "sdk" / "python"))
from referee_sdk import tsuro as sdk  # noqa: E402


def midgame():
    """Seed 0, random moves: after 8 placements player 3 is out, 1 and 2 moved."""
    s = GAME.initial_state(Setup("seed", 3, 0))
    rng = random.Random(0)
    for p, pos in ((1, 3), (2, 17), (3, 30)):
        s, _ = s.apply(p, Start(pos))
    for _ in range(8):
        s, _ = s.apply(s.current_player(), rng.choice(s.legal_decisions()))
    assert s.out[2] == (9, "edge") and s.alive() == [1, 2]
    return s


def test_parse_board_reads_what_the_referee_writes():
    s = midgame()
    seen = sdk.parse_board(GAME.board_text(s, 2))
    view = GAME.view_json(s, 2)
    assert [[tuple(c) if c else None for c in row] for row in view["board"]] == seen["cells"]
    assert seen["hands"] == {2: list(s.hands[1])}
    assert seen["hand_sizes"] == {p: len(h) for p, h in enumerate(s.hands, start=1)}
    assert seen["pile"] == len(s.pile) and seen["dragon"] == s.dragon and seen["turn"] == s.current
    for p in (1, 2, 3):
        expected = view["markers"][str(p)]
        got = seen["markers"][p]
        if expected is None or "start" in expected:
            assert got == (expected and {"start": expected["start"]})
        else:
            assert got == {"cell": tuple(expected["cell"]), "port": expected["port"]}
    assert seen["out"] == {int(p): r for p, r in view["out"].items()}
    full = sdk.parse_board(GAME.board_text(s, None))
    assert full["hands"] == {p: list(h) for p, h in enumerate(s.hands, start=1)}


def test_path_helpers_agree_with_the_rules():
    paths = GAME.view_json(midgame(), 1)["tiles"]
    for tile in TILES:
        for rotation in range(4):
            for port in range(8):
                assert sdk.exit_port(paths[tile.id], rotation, port) == tile.exit(rotation, port)
    for point in [(0, 0, 0), (2, 3, 2), (5, 5, 4), (3, 0, 7)]:
        assert sdk.across(*point) == geo.across(point)


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_cpp_template_plays_a_whole_match(tmp_path):
    assert referee("new-player", "tsuro", tmp_path / "cpp", "--lang", "cpp").returncode == 0
    binary = tmp_path / "cpp" / "player"
    subprocess.run(["g++", "-std=c++14", "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(binary),
                    str(tmp_path / "cpp" / "player.cpp")], check=True, capture_output=True)
    out = tmp_path / "m"
    proc = referee("play", "tsuro", "--player", binary, "--player", "builtin:random",
                   "--player", binary, "--seed", "8", "--out", out, "--quiet")
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]
    mine = [r for r in records if r["player"] in (1, 3) and not r.get("auto")]
    assert mine and all(r["verdict"] == "OK" for r in mine)
