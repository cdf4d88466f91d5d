"""The one resolver for shipped files, in a checkout / editable install (the
installed wheel is tests/test_wheel.py's)."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ROOT, referee
from referee import resources


def test_a_checkout_uses_its_top_level_folders(monkeypatch):
    if resources.PACKAGE.parent != ROOT:
        pytest.skip("the referee under test is installed from a wheel (CI's `pip install .`)")
    monkeypatch.delenv("REFEREE_PLAYERS_DIR", raising=False)
    monkeypatch.delenv("REFEREE_BOARDS_DIR", raising=False)
    assert resources.players_dir() == ROOT / "players"
    assert resources.boards_dir() == ROOT / "boards"
    assert (resources.docs_dir() / "games" / "tsuro.md").is_file()


def test_environment_overrides_win(monkeypatch, tmp_path):
    monkeypatch.setenv("REFEREE_PLAYERS_DIR", str(tmp_path / "p"))
    monkeypatch.setenv("REFEREE_BOARDS_DIR", str(tmp_path / "b"))
    assert resources.players_dir() == tmp_path / "p"
    assert resources.boards_dir() == tmp_path / "b"


def test_shipped_boards_resolve_by_readme_path_file_name_or_stem(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    expected = resources.boards_dir() / "cantris" / "10x5-1.txt"
    for given in ("boards/cantris/10x5-1.txt", "10x5-1.txt", "10x5-1"):
        assert resources.resolve_board("cantris", Path(given)) == expected
    assert resources.resolve_board("cantris", Path("nope")) == Path("nope")
    assert resources.resolve_board("cantris", None) is None


def test_a_file_that_exists_wins_over_a_shipped_board(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "10x5-1.txt").write_text("mine")
    assert resources.resolve_board("cantris", Path("10x5-1.txt")) == Path("10x5-1.txt")


def test_validate_and_play_find_a_shipped_board_by_name(tmp_path):
    assert referee("validate", "tessella", "standard", cwd=tmp_path).returncode == 0
    proc = referee("play", "cantris", "--player", "builtin:greedy", "--player", "builtin:random",
                   "--board", "6x3-2", "--out", "m", "--quiet", "--seed", 2, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "m" / "board.txt").read_text() == (
        ROOT / "boards" / "cantris" / "6x3-2.txt").read_text()  # the same text, wherever shipped


def test_a_config_folder_names_a_board_before_the_shipped_ones(monkeypatch, tmp_path):
    """A config's board is relative to its folder, and a shipped board's name
    where that folder has no such file: joined to the folder first, the name
    was never looked for among the shipped boards."""
    monkeypatch.chdir(tmp_path)
    sub = tmp_path / "sub"
    sub.mkdir()
    shipped = resources.boards_dir() / "cantris" / "6x3-1.txt"
    for given in ("6x3-1", "6x3-1.txt", "boards/cantris/6x3-1.txt"):
        assert resources.resolve_board("cantris", Path(given), sub) == shipped
    (sub / "6x3-1.txt").write_text("mine")
    assert resources.resolve_board("cantris", Path("6x3-1.txt"), sub) == sub / "6x3-1.txt"
    assert resources.resolve_board("cantris", Path("nope"), sub) == sub / "nope"


@pytest.mark.parametrize("board", ["6x3-1", "6x3-1.txt", "boards/cantris/6x3-1.txt"])
def test_a_play_config_finds_a_shipped_board_by_name_from_any_folder(tmp_path, board):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "m.yaml").write_text(
        f"game: cantris\nplayers: [builtin:random, builtin:random]\nboard: {board}\nseed: 2\n")
    proc = referee("play", "--config", "sub/m.yaml", "--out", "m", "--quiet", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "m" / "board.txt").read_text() == (ROOT / "boards" / "cantris" / "6x3-1.txt").read_text()


def test_a_play_configs_board_suite_finds_shipped_boards_and_says_which_it_cannot(tmp_path):
    (tmp_path / "sub").mkdir()
    config = tmp_path / "sub" / "s.yaml"
    config.write_text("game: cantris\nplayers: [builtin:random, builtin:random]\ngames: 2\nseed: 2\n"
                      "boards: [6x3-1, 'boards/cantris/6x3-*.txt']\n")
    proc = referee("play", "--config", config, "--out", "s", "--quiet", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "boards: 4 (6x3-1.txt .. 6x3-3.txt)" in proc.stdout, proc.stdout
    config.write_text(config.read_text().replace("6x3-1,", "6x3-9,"))
    proc = referee("play", "--config", config, "--out", "s2", "--quiet", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr == f"referee: error: {config}:5: boards: '6x3-9' names no " \
                                                  "board file\n", proc.stderr
