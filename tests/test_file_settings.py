"""Settings that name files (Quoridor's pre-moves file) are copied into the
match folder, so the match replays and verifies from anywhere."""
from __future__ import annotations

import shutil

import yaml

from conftest import referee


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
