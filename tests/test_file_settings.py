"""Settings that name files (Quoridor's pre-moves file) are copied into the
match folder, so the match replays and verifies from anywhere."""
from __future__ import annotations

import shutil

import pytest
import yaml

from conftest import ROOT, referee


def test_premoves_file_is_kept_with_the_match(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "opening.txt").write_text("M 8 4 7 4\nM 0 4 1 4\n")
    proc = referee("play", "quoridor", "--player", "builtin:greedy", "--player", "builtin:random",
                   "--set", "premoves_file=opening.txt", "--set", "ply_cap=12",  # a short game will do
                   "--seed", "2", "--out", "m", "--quiet", cwd=work)
    assert proc.returncode == 0, proc.stderr
    match = yaml.safe_load((work / "m" / "match.yaml").read_text())
    kept = match["settings"]["premoves_file"]
    assert kept == "inputs/premoves_file-opening.txt"
    assert (work / "m" / kept).read_text() == "M 8 4 7 4\nM 0 4 1 4\n"
    # Moved elsewhere, without the original file, it still verifies.
    shutil.move(str(work / "m"), str(tmp_path / "elsewhere"))
    (work / "opening.txt").unlink()
    proc = referee("replay", tmp_path / "elsewhere", "--verify", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


def test_missing_premoves_file_is_a_usage_error(tmp_path):
    proc = referee("play", "quoridor", "--player", "builtin:greedy", "--player", "builtin:random",
                   "--set", "premoves_file=nope.txt", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"referee: error: {tmp_path / 'nope.txt'}: setting premoves_file: no such file"


def test_a_premoves_file_is_read_as_a_board_file_is(tmp_path):
    """Its bad byte named by line and column, in the board files' words (it
    was the codec's 'utf-8' codec can't decode byte 0xf3 in position 10),
    and its size bounded as theirs is."""
    (tmp_path / "junk.txt").write_bytes(b"M 8 4 7 4\n\xf3\x00junk\n")
    (tmp_path / "big.txt").write_text("# a comment\n" * 100_000)
    play = ("play", "quoridor", "--player", "builtin:random", "--player", "builtin:random")
    proc = referee(*play, "--set", "premoves_file=junk.txt", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr == f"referee: error: {(tmp_path / 'junk.txt').resolve()}:2:1: not UTF-8 " \
                                                  "text (byte 0xf3); save the file as UTF-8\n", proc.stderr
    proc = referee(*play, "--set", "premoves_file=big.txt", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr == f"referee: error: {(tmp_path / 'big.txt').resolve()}: the file has more " \
                                                  "than 65536 characters; the referee reads files of at most 65536\n"


@pytest.mark.parametrize("given", ["boards/quoridor/opening.premoves", "opening.premoves"])
def test_a_shipped_premoves_file_is_found_from_any_folder_as_a_board_is(tmp_path, given):
    """The rules page's example (docs/games/quoridor.md) outside the checkout:
    it was '/tmp/boards/quoridor/opening.premoves: setting premoves_file: no
    such file'.  A file that exists where it is given still wins."""
    shipped = (ROOT / "boards" / "quoridor" / "opening.premoves").read_text()
    proc = referee("play", "quoridor", "--player", "builtin:greedy", "--set", f"premoves_file={given}",
                   "--player", "builtin:random", "--set", "ply_cap=12", "--seed", "2", "--out", "m",
                   "--quiet", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    kept = yaml.safe_load((tmp_path / "m" / "match.yaml").read_text())["settings"]["premoves_file"]
    assert (tmp_path / "m" / kept).read_text() == shipped
    mine = tmp_path / given
    mine.parent.mkdir(parents=True, exist_ok=True)
    mine.write_text("M 8 4 7 4\n")
    config = tmp_path / "c.yaml"  # a config's, beside it
    config.write_text(f"game: quoridor\nplayers: [builtin:greedy, builtin:random]\nout: c\nquiet: true\n"
                      f"settings: {{premoves_file: {given}, ply_cap: 12}}\n")
    for command in (("play", "quoridor", "--player", "builtin:greedy", "--set", f"premoves_file={given}",
                     "--player", "builtin:random", "--set", "ply_cap=12", "--out", "m2", "--quiet"),
                    ("play", "--config", config)):
        proc = referee(*command, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        out = tmp_path / ("m2" if command[1] == "quoridor" else "c")
        kept = yaml.safe_load((out / "match.yaml").read_text())["settings"]["premoves_file"]
        assert (out / kept).read_text() == "M 8 4 7 4\n"
