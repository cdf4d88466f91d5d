"""referee.core.trees: walking and removing what a player left, whatever it
is (issue 21: a 3000-deep directory made shutil.rmtree raise RecursionError
and voided the match)."""
from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import pytest

from referee.core import trees


def _deep(top: Path, depth: int, name: str = "d") -> None:
    fd = os.open(top, os.O_RDONLY)
    for _ in range(depth):
        os.mkdir(name, dir_fd=fd)
        inner = os.open(name, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    with open(os.open("bottom", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "wb") as f:
        f.write(b"x" * 50_000)
    os.close(fd)


def _odd(folder: Path) -> socket.socket:
    folder.mkdir()
    os.mkfifo(folder / "fifo")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(folder / "sock"))
    os.symlink("loop", folder / "loop")
    os.symlink("/", folder / "root")
    os.symlink("..", folder / "up")
    (folder / "new\nline").write_text("x")
    (folder / b"bad\xff".decode("utf-8", "surrogateescape")).write_text("x")
    (folder / "locked" / "inner").mkdir(parents=True)
    (folder / "locked" / "inner" / "f").write_text("x")
    os.chmod(folder / "locked" / "inner", 0)
    os.chmod(folder / "locked", 0)
    return sock


@pytest.fixture(params=[True, False], ids=["descriptors", "paths"])
def walk_mode(request, monkeypatch):
    """Both ways of walking: by directory descriptors (POSIX) and by paths (Windows)."""
    if request.param and not trees.FD_BASED:
        pytest.skip("no directory descriptors here")
    monkeypatch.setattr(trees, "FD_BASED", request.param)


def test_a_tree_deeper_than_the_recursion_limit_is_measured_and_removed(tmp_path, walk_mode):
    top = tmp_path / "seat"
    top.mkdir()
    _deep(top, sys.getrecursionlimit() + 200)
    usage = trees.tree_usage(top)
    assert usage.complete and usage.entries > sys.getrecursionlimit()
    assert usage.largest[0].endswith("/d/bottom") and usage.largest[1] >= 50_000
    assert trees.remove_tree(top) and not top.exists()


def test_odd_files_are_removed_and_no_link_is_followed(tmp_path, walk_mode):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("the TA's")
    top = tmp_path / "seat"
    sock = _odd(top)
    os.symlink(outside, top / "elsewhere")
    try:
        usage = trees.tree_usage(top)
        if hasattr(os, "geteuid") and os.geteuid() != 0 and not trees.FD_BASED:
            # Not root, a walk by paths cannot enter the folder "locked" (mode 0),
            # and says its count is incomplete.
            assert not usage.complete and usage.entries == 9, usage
        else:
            assert usage.entries >= 10
        assert trees.remove_tree(top) and not os.path.lexists(top)
    finally:
        sock.close()
    assert (outside / "keep").read_text() == "the TA's"


def test_the_walk_stops_past_its_budget_and_counts_a_file_once(tmp_path):
    top = tmp_path / "seat"
    top.mkdir()
    (top / "big").write_bytes(b"x" * (3 << 20))
    for n in range(5):
        os.link(top / "big", top / f"link{n}")
    usage = trees.tree_usage(top)
    assert 3 << 20 <= usage.bytes < 4 << 20  # six names, one file
    for n in range(200):
        (top / f"small{n}").write_text("")
    # The walk goes in the file system's order (ext4 hashes names, tmpfs
    # lists the newest first): past 50 entries' worth, it stops early
    # whether the big file or the small ones come first.
    over = trees.tree_usage(top, budget=50 * trees.ENTRY_BYTES)
    assert over.over and over.entries < 200  # stopped early
    assert trees.tree_usage(top).bytes >= (3 << 20) + 200 * trees.ENTRY_BYTES  # empty files count


def test_what_cannot_be_removed_is_put_aside(tmp_path, monkeypatch):
    top = tmp_path / "seat"
    top.mkdir()
    (top / "a").mkdir()
    (top / "a" / "f").write_text("x")
    real_unlink = os.unlink

    def refuse(name, *args, **kwargs):
        if str(name).endswith("f"):
            raise PermissionError(1, "Operation not permitted")
        return real_unlink(name, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", refuse)
    assert trees.remove_tree(top) is False
    assert not top.exists() and [p.name.startswith(".referee-trash-") for p in tmp_path.iterdir()] == [True]
