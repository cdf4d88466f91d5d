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
