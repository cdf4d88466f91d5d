"""A game's name in any case, on the command line or in a config, is the
game as declared, and the declared name is what folders, match.yaml and the
log say afterwards (referee/core/registry.py: canonical_name)."""
from __future__ import annotations

import json

import yaml

from conftest import BOARDS, referee

BOARD = BOARDS / "cantris" / "6x3-1.txt"
PLAYERS = ("--player", "builtin:random", "--player", "builtin:greedy")


def test_play_takes_a_game_name_in_any_case(tmp_path):
    proc = referee("play", "Cantris", *PLAYERS, "--board", "6x3-1", "--seed", "3", "--quiet", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    (out,) = (tmp_path / "step_logs").iterdir()
    assert out.name.startswith("cantris-") and out.name.endswith("-3")
    assert yaml.safe_load((out / "match.yaml").read_text())["game"] == "cantris"
    assert yaml.safe_load((out / "result.yaml").read_text())["game"] == "cantris"
    proc = referee("play", "CANTRIS", *PLAYERS, "--board", BOARD, "--seed", "4", "--games", "2",
                   "--jobs", "1", cwd=tmp_path)  # a series' folder and summary too
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name[:8] for p in (tmp_path / "step_logs").iterdir()) == ["cantris-"] * 2
    assert "Series: cantris," in proc.stdout
    proc = referee("play", "Cantrs", *PLAYERS, cwd=tmp_path)  # unknown: the one line it was
    assert proc.returncode == 2 and proc.stderr.startswith(
        "referee: error: unknown game 'Cantrs'; choose one of: blackhole, cantris,")


def test_a_play_config_takes_a_game_name_in_any_case(tmp_path):
    (tmp_path / "c.yaml").write_text(f"game: CANTRIS\nboard: {BOARD}\nseed: 2\nout: m\n")
    proc = referee("play", "--config", "c.yaml", *PLAYERS, "--quiet", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert yaml.safe_load((tmp_path / "m" / "match.yaml").read_text())["game"] == "cantris"
    # the GAME argument and the config's game: one game, whatever their case
    proc = referee("play", "cantris", "--config", "c.yaml", *PLAYERS, "--quiet", "--replace", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


def test_a_tournament_config_takes_a_game_name_in_any_case(tmp_path):
    (tmp_path / "class.yaml").write_text(f"""\
game: Cantris
boards: {BOARD}
seed: 1
entrants:
  - {{name: ann, command: builtin:random}}
  - {{name: bob, command: builtin:greedy}}
""")
    proc = referee("tournament", "class.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    results = tmp_path / "class-results"
    assert json.loads((results / "tournament.json").read_text())["config"]["game"] == "cantris"
    games = sorted((results / "games").iterdir())
    assert len(games) == 2 and all(yaml.safe_load((g / "match.yaml").read_text())["game"] == "cantris"
                                   for g in games)
