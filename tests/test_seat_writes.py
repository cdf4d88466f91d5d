"""How the referee writes a seat's folder cheaply without giving up what it
promises: every view written before the player runs and never through a link,
snapshots that appear exactly when the protocol says (a snapshot created
ahead of time for the next step is never seen early), the writes left to do
after a step finished before anyone reads them, and a seat host that takes
the step's limits on itself so that a player it starts by posix_spawn
inherits them (a new host when they change)."""
from __future__ import annotations

import marshal
import contextlib
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import BOARDS, PYTHON_SDK, play_match, read_log
from referee.core import seats, trees
from referee.core.later import Later
from referee.core.runner import Limits
from referee.core.sandbox import resolve
from referee.core.seatfiles import SeatFolder, Spares, rewrite_at
from referee.core.seats import SeatHost

# Checks, at each of its steps, that step_logs holds exactly step_0 .. step_<step - 1>,
# none of them empty, and that no decision is left from before; answers garbage if not.
LISTER = f"""
import os, sys
sys.path.insert(0, {str(PYTHON_SDK)!r})
from referee_sdk import read_board, run, save_decision

def play_games(step):
    names = sorted(os.listdir("step_logs"), key=lambda n: int(n[5:-4]))
    want = [f"step_{{k}}.txt" for k in range(step)]
    empty = [n for n in names if os.path.getsize(os.path.join("step_logs", n)) == 0]
    if names != want or empty or os.path.exists("decision.txt"):
        open("decision.txt", "w").write(f"saw {{names}} empty {{empty}}")
        return
    board = read_board()
    for r in range(len(board) - 1, -1, -1):
        for c, v in enumerate(board[r]):
            if v:
                save_decision(r, c)
                return

run(play_games)
"""


@pytest.mark.parametrize("mode", ["spawned", "persistent"])
def test_a_player_sees_exactly_the_snapshots_before_its_step(tmp_path, make_player, mode):
    if mode == "persistent" and not seats.available():
        pytest.skip("persistent players need a seat host")
    program = make_player("lister", LISTER)
    command = f"persistent:{program}" if mode == "persistent" else program
    out = tmp_path / "m"
    play_match("cantris", out, command, command, seed=3, board=BOARDS / "cantris" / "8x4-1.txt")
    log = read_log(out)
    assert len(log) > 4
    assert {r["verdict"] for r in log} == {"OK"}, [r.get("message") for r in log if r["verdict"] != "OK"]


def test_every_seat_ends_with_every_snapshot_as_it_may_see_it(tmp_path):
    """The snapshots of a step go to every seat (the next player's own step
    writes its copy); at the end each seat holds the whole game, in its own
    view, and no file is left empty."""
    out = tmp_path / "m"
    play_match("tsuro", out, "builtin:random", "builtin:random", "builtin:random", seed=5)
    steps = len(read_log(out))
    for seat in (1, 2, 3):
        folder = out / "players" / f"p{seat}" / "step_logs"
        names = sorted(os.listdir(folder), key=lambda n: int(n[5:-4]))
        assert names == [f"step_{k}.txt" for k in range(steps + 1)]
        assert all((folder / n).stat().st_size > 0 for n in names)
    # a seat's snapshot hides the other hands: not the same text as the full one
    full = (out / "step_logs" / "step_1.txt").read_text()
    assert (out / "players" / "p1" / "step_logs" / "step_1.txt").read_text() != full


def test_a_view_is_rewritten_in_place_but_never_through_a_hard_link(tmp_path):
    folder = tmp_path / "seat"
    folder.mkdir()
    secret = folder / "secret.txt"
    secret.write_text("keep me\n")
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        repairs: list[str] = []
        rewrite_at(fd, "Board.txt", b"first\n", repairs, "Board.txt")
        inode = (folder / "Board.txt").stat().st_ino
        rewrite_at(fd, "Board.txt", b"2nd\n", repairs, "Board.txt")
        assert (folder / "Board.txt").read_text() == "2nd\n"
        assert (folder / "Board.txt").stat().st_ino == inode  # in place: no new file
        (folder / "Board.txt").unlink()
        os.link(secret, folder / "Board.txt")
        rewrite_at(fd, "Board.txt", b"third\n", repairs, "Board.txt")
        assert (folder / "Board.txt").read_text() == "third\n"
        assert secret.read_text() == "keep me\n"  # the linked file is left alone
        (folder / "Board.txt").unlink()
        os.symlink(secret, folder / "Board.txt")
        rewrite_at(fd, "Board.txt", b"fourth\n", repairs, "Board.txt")
        assert not (folder / "Board.txt").is_symlink()
        assert secret.read_text() == "keep me\n"
        assert repairs == ["Board.txt was a hard link to another file", "Board.txt was a symbolic link"]
    finally:
        os.close(fd)


def test_a_snapshot_created_ahead_is_filled_and_one_someone_replaced_is_repaired(tmp_path):
    (tmp_path / "players").mkdir()
    seat = SeatFolder(tmp_path, 1)
    try:
        logs = tmp_path / "players" / "p1" / "step_logs"
        seat.add_snapshots(lambda k: f"board {k}\n", 1)  # makes the folders too
        seat.reserve_snapshot(1)
        assert (logs / "step_1.txt").read_text() == ""
        seat.write_views({"Board.txt": "b\n"}, snapshot_text=lambda k: f"board {k}\n", upto=2)
        assert (logs / "step_1.txt").read_text() == "board 1\n"
        assert seat.take_repairs() == []
        seat.reserve_snapshot(2)
        (logs / "step_2.txt").unlink()
        os.symlink(tmp_path / "elsewhere", logs / "step_2.txt")
        seat.write_views({"Board.txt": "b\n"}, snapshot_text=lambda k: f"board {k}\n", upto=3)
        assert (logs / "step_2.txt").read_text() == "board 2\n"
        assert not (tmp_path / "elsewhere").exists()
        assert seat.take_repairs() == ["step_logs/step_2.txt was a symbolic link"]
    finally:
        seat.close()


def _snapshot_stats(monkeypatch) -> list[str]:
    """The names of old snapshots looked at by os.stat from here on."""
    from referee.core import seatfiles

    looked: list[str] = []
    real = os.stat

    def counting(path, *args, **kwargs):
        if isinstance(path, str) and path.startswith("step_") and path.endswith(".txt"):
            looked.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(seatfiles.os, "stat", counting)
    return looked


SNAPSHOT = (lambda k: f"board {k}\n")


@contextlib.contextmanager
def _watched_seat(tmp_path, monkeypatch, watch: str, steps: int):
    """Seat 1's folder without a sandbox (``watch``: on; off, no inotify;
    "no watches left" for its files), its views written for ``steps``
    steps: (the seat, its step_logs/), closed at the end."""
    from referee.core import inotify

    if watch == "off":
        monkeypatch.setattr(inotify.Watch, "open", classmethod(lambda cls: None))
    elif watch == "no watches left":
        real_add = inotify.Watch.add
        monkeypatch.setattr(inotify.Watch, "add", lambda self, path, mask: None if "step_" in path
                            else real_add(self, path, mask))
    (tmp_path / "players").mkdir()
    seat = SeatFolder(tmp_path, 1)
    try:
        for upto in range(1, steps + 1):
            seat.write_views({"Board.txt": "b\n"}, snapshot_text=SNAPSHOT, upto=upto)
        yield seat, tmp_path / "players" / "p1" / "step_logs"
    finally:
        seat.close()


@pytest.mark.parametrize("watch", ["on", "no watches left", "off"])
def test_without_a_sandbox_a_seat_looks_only_at_the_snapshots_someone_touched(tmp_path, monkeypatch, watch):
    # Each of a seat's steps stat-ed every old snapshot, and its disk use walked
    # them all: O(steps) a step, a third of the referee's CPU a step by step
    # 300.  A watch (core/inotify.py) names what was touched; where there is
    # none, or no watch is left for a file, every snapshot is checked, as before.
    text = SNAPSHOT
    with _watched_seat(tmp_path, monkeypatch, watch, 39) as (seat, logs):
        quiet = seat.usage(None)
        walked = trees.tree_usage(seat.path)
        assert (quiet.bytes, quiet.entries) == (walked.bytes, walked.entries)  # as a walk of it all says
        looked = _snapshot_stats(monkeypatch)
        seat.write_views({"Board.txt": "b\n"}, snapshot_text=text, upto=40)
        assert seat.usage(None).bytes == quiet.bytes + 4096  # one more snapshot
        if watch == "on":
            assert len(looked) <= 2, looked  # the new one only: nothing else was touched
        else:
            assert len(looked) >= 39, looked
        elsewhere = tmp_path / "x"
        os.link(logs / "step_3.txt", elsewhere)  # a name outside step_logs/
        with open(elsewhere, "r+b") as f:
            f.write(b"B")
        (logs / "step_7.txt").write_text("board 77\n")
        (logs / "big").write_bytes(b"0" * (1 << 20))
        assert seat.usage(None).bytes >= quiet.bytes + (1 << 20)
        seat.write_views({"Board.txt": "b\n"}, snapshot_text=text, upto=41)
        assert sorted(seat.take_repairs()) == ["step_logs/step_3.txt was changed",
                                               "step_logs/step_7.txt was changed"]
        assert [(logs / f"step_{k}.txt").read_text() for k in (3, 7)] == ["board 3\n", "board 7\n"]
        (logs / "big").unlink()
        (logs / "step_9.txt").unlink()
        seat.write_views({"Board.txt": "b\n"}, snapshot_text=text, upto=41)
        assert seat.take_repairs() == ["step_logs/step_9.txt was changed"]
        assert seat.usage(None).bytes == quiet.bytes + 2 * 4096


@pytest.mark.parametrize("watch", ["on", "off"])
def test_without_a_sandbox_a_snapshot_written_through_a_mapping_is_written_again(tmp_path, watch, monkeypatch):
    # A write through a shared mapping (mmap) raises no inotify event: a
    # snapshot someone opened is checked at the seat's next step, and one
    # still held open for writing (a kept-alive player's mapping, to write
    # through later) is replaced.  One only read is let be.
    import mmap

    text = SNAPSHOT
    with _watched_seat(tmp_path, monkeypatch, watch, 5) as (seat, logs):
        with open(logs / "step_2.txt", "r+b") as f, mmap.mmap(f.fileno(), 0) as m:
            m[0] = ord("X")
        seat.write_views({"Board.txt": "b\n"}, snapshot_text=text, upto=6)
        assert seat.take_repairs() == ["step_logs/step_2.txt was changed"]
        assert (logs / "step_2.txt").read_text() == "board 2\n"
        if watch == "on":  # (without a watch, seen only where its time changed: not on tmpfs)
            with open(logs / "step_1.txt", "r+b") as f, mmap.mmap(f.fileno(), 0) as m:
                m[0] ^= 1  # (read first: on tmpfs, a write through the page then changes no time)
            seat.write_views({"Board.txt": "b\n"}, snapshot_text=text, upto=6)
            assert seat.take_repairs() == ["step_logs/step_1.txt was changed"]
            assert (logs / "step_1.txt").read_text() == "board 1\n"
        with open(logs / "step_3.txt", "r+b") as f, mmap.mmap(f.fileno(), 0) as m:
            seat.write_views({"Board.txt": "b\n"}, snapshot_text=text, upto=6)
            m[0] = ord("X")
            if watch == "on":  # (without a watch, its change is seen at the next step)
                assert seat.take_repairs() == ["step_logs/step_3.txt was held open for writing"]
        seat.write_views({"Board.txt": "b\n"}, snapshot_text=text, upto=6)
        assert seat.take_repairs() == ([] if watch == "on" else ["step_logs/step_3.txt was changed"])
        looked = _snapshot_stats(monkeypatch)
        assert (logs / "step_4.txt").read_text() == "board 4\n"  # a player reading its last snapshot
        seat.write_views({"Board.txt": "b\n"}, snapshot_text=text, upto=6)
        seat.write_views({"Board.txt": "b\n"}, snapshot_text=text, upto=6)
        assert seat.take_repairs() == []
        if watch == "on":
            assert looked == ["step_4.txt"], looked  # once: no one holds it open any more
        assert [(logs / f"step_{k}.txt").read_text() for k in range(6)] == [text(k) for k in range(6)]


def test_what_step_logs_held_before_its_watch_is_counted(tmp_path):
    # A watch sees changes from its making on: a big file there before it (a
    # player that replaced step_logs/ in its step, or one started ahead) was
    # left out of the seat's disk use from then on.
    (tmp_path / "players" / "p1" / "step_logs").mkdir(parents=True)
    (tmp_path / "players" / "p1" / "step_logs" / "big").write_bytes(b"0" * (1 << 20))
    seat = SeatFolder(tmp_path, 1)
    logs = tmp_path / "players" / "p1" / "step_logs"
    try:
        for upto in range(1, 6):
            seat.write_views({"Board.txt": "b\n"}, snapshot_text=SNAPSHOT, upto=upto)
        assert seat.usage(None).bytes == trees.tree_usage(seat.path).bytes
        os.rename(logs, logs.with_name("old"))  # (the player, in its step)
        logs.mkdir()
        (logs / "big").write_bytes(b"0" * (1 << 20))
        assert seat.usage(None).bytes == trees.tree_usage(seat.path).bytes
        seat.write_views({"Board.txt": "b\n"}, snapshot_text=SNAPSHOT, upto=6)  # a new watch
        assert seat.usage(None).bytes == trees.tree_usage(seat.path).bytes
        (logs / "big").unlink()
        assert seat.usage(None).bytes == trees.tree_usage(seat.path).bytes
    finally:
        seat.close()


def test_a_process_holds_at_most_its_share_of_the_users_watches(tmp_path, monkeypatch):
    # One watch a snapshot: a tournament's games could use up the user's
    # (8192 before Linux 5.11), which its editor needs too.  Past its share a
    # seat's snapshots are all checked, as without a watch.
    from referee.core import inotify

    def watches() -> int:
        found = 0
        for fd in os.listdir("/proc/self/fd"):
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/self/fd/{fd}") == "anon_inode:inotify":
                    found += sum(line.startswith("inotify wd:")
                                 for line in open(f"/proc/self/fdinfo/{fd}").read().splitlines())
        return found

    (tmp_path / "players").mkdir()
    seat = SeatFolder(tmp_path, 1)
    logs = tmp_path / "players" / "p1" / "step_logs"
    try:
        seat.write_views({"Board.txt": "b\n"}, snapshot_text=SNAPSHOT, upto=1)
        instance = inotify._instance()
        monkeypatch.setattr(instance, "left", 5)
        before = watches()
        for upto in range(2, 21):
            seat.write_views({"Board.txt": "b\n"}, snapshot_text=SNAPSHOT, upto=upto)
        assert watches() - before <= 5
        (logs / "step_12.txt").write_text("forged\n")
        seat.write_views({"Board.txt": "b\n"}, snapshot_text=SNAPSHOT, upto=21)
        assert seat.take_repairs() == ["step_logs/step_12.txt was changed"]
    finally:
        seat.close()


def test_every_seat_of_a_process_shares_one_inotify_instance(tmp_path):
    # A user has 128 instances in all by default; a tournament of eight-seat
    # games without a sandbox took one a seat, and an editor or file manager
    # of the TA's found none left.
    def instances() -> int:
        found = 0
        for fd in os.listdir("/proc/self/fd"):
            with contextlib.suppress(OSError):
                found += os.readlink(f"/proc/self/fd/{fd}") == "anon_inode:inotify"
        return found

    before = instances()
    (tmp_path / "players").mkdir()
    seats = [SeatFolder(tmp_path, pid) for pid in range(1, 151)]
    try:
        for seat in seats:
            seat.write_views({"Board.txt": "b\n"}, snapshot_text=lambda k: f"board {k}\n", upto=2)
        assert instances() - before <= 1
        victim = tmp_path / "players" / "p150" / "step_logs" / "step_1.txt"
        victim.write_text("forged\n")
        seats[-1].write_views({"Board.txt": "b\n"}, snapshot_text=lambda k: f"board {k}\n", upto=3)
        assert seats[-1].take_repairs() == ["step_logs/step_1.txt was changed"]
        assert all(not seat.take_repairs() for seat in seats[:-1])
    finally:
        for seat in seats:
            seat.close()


def test_where_the_file_system_has_no_leases_an_opened_snapshot_is_judged_by_its_bytes(tmp_path, monkeypatch):
    # (NFS, say: F_SETLEASE fails with EINVAL.)  A snapshot a player only
    # read is let be, not "repaired" at each of its steps; one changed is.
    import errno
    import fcntl
    import mmap

    real = fcntl.fcntl

    def no_leases(fd, cmd, *args):
        if cmd == fcntl.F_SETLEASE:
            raise OSError(errno.EINVAL, "Invalid argument")
        return real(fd, cmd, *args)

    monkeypatch.setattr(fcntl, "fcntl", no_leases)
    text = SNAPSHOT
    with _watched_seat(tmp_path, monkeypatch, "on", 5) as (seat, logs):
        seat.take_repairs()
        assert (logs / "step_4.txt").read_text() == "board 4\n"
        seat.write_views({"Board.txt": "b\n"}, snapshot_text=text, upto=6)
        assert seat.take_repairs() == []
        with open(logs / "step_1.txt", "r+b") as f, mmap.mmap(f.fileno(), 0) as m:
            m[0] ^= 1
        seat.write_views({"Board.txt": "b\n"}, snapshot_text=text, upto=6)
        assert seat.take_repairs() == ["step_logs/step_1.txt was changed"]


def test_a_view_kept_open_between_steps_is_written_through_only_while_it_is_the_same_file(tmp_path):
    """write_views keeps each view's fd for the seat's next step; whatever a
    player did to the name meanwhile (a hard link, a symbolic link, a new
    file, a removal) makes it write the file afresh, never through the fd."""
    (tmp_path / "players").mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("keep me\n")
    seat = SeatFolder(tmp_path, 1)
    board = tmp_path / "players" / "p1" / "Board.txt"
    try:
        seat.write_views({"Board.txt": "a longer first board\n"})
        inode = board.stat().st_ino
        seat.write_views({"Board.txt": "short\n"})
        assert board.read_text() == "short\n" and board.stat().st_ino == inode
        board.unlink()
        os.link(secret, board)
        seat.write_views({"Board.txt": "3\n"})
        assert board.read_text() == "3\n" and secret.read_text() == "keep me\n"
        board.unlink()
        board.symlink_to(secret)
        seat.write_views({"Board.txt": "4\n"})
        assert not board.is_symlink() and board.read_text() == "4\n" and secret.read_text() == "keep me\n"
        moved = board.with_name("mine.txt")
        os.rename(board, moved)  # the kept fd's file lives on under another name
        board.write_text("planted\n")
        seat.write_views({"Board.txt": "5\n"})
        assert board.read_text() == "5\n" and moved.read_text() == "4\n"
        board.unlink()
        seat.write_views({"Board.txt": "6\n"})
        assert board.read_text() == "6\n" and moved.read_text() == "4\n"
        assert seat.take_repairs() == ["Board.txt was a hard link to another file", "Board.txt was a symbolic link"]
    finally:
        seat.close()


def test_a_seat_folder_moved_away_is_found_again(tmp_path):
    (tmp_path / "players").mkdir()
    seat = SeatFolder(tmp_path, 1)
    try:
        seat.write_views({"Board.txt": "one\n"})
        seat.may_have_changed()  # its player runs, and:
        os.rename(tmp_path / "players" / "p1", tmp_path / "players" / "p1-gone")
        os.symlink("p1-gone", tmp_path / "players" / "p1")
        seat.write_views({"Board.txt": "two\n"})
        assert (tmp_path / "players" / "p1-gone" / "Board.txt").read_text() == "one\n"
        assert not (tmp_path / "players" / "p1").is_symlink()
        assert (tmp_path / "players" / "p1" / "Board.txt").read_text() == "two\n"
        assert seat.take_repairs() == ["players/p1/ was a symbolic link"]
    finally:
        seat.close()


def test_a_match_snapshot_never_writes_through_a_link_planted_at_its_temporary_name(tmp_path):
    # Without a sandbox a player can reach the match folder; the snapshot's
    # temporary file is made anew, whatever is there (before, open() followed it).
    from referee.core.log import MatchFolder

    match = MatchFolder(tmp_path / "m")
    folder = match.root / "step_logs"
    folder.mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("mine\n")
    (folder / ".step_3.txt.tmp").symlink_to(victim)
    try:
        match.write_snapshot(3, "1 2\n3 4\n")
        match.write_snapshot(3, "5 6\n")  # replaced
    finally:
        match.close()
    assert victim.read_text() == "mine\n"
    assert (folder / "step_3.txt").read_bytes() == b"5 6\n"
    assert sorted(p.name for p in folder.iterdir()) == ["step_3.txt"]


# ----- the writes left for later
def test_later_runs_a_seats_jobs_before_its_folder_is_touched_and_raises_their_errors():
    done: list[str] = []
    later = Later(threaded=True)
    try:
        later.submit(1, lambda: done.append("seat 1"))
        later.submit(None, lambda: done.append("match"))
        assert done == []  # nothing starts before go()
        later.wait(1)  # waiting for a seat starts what is queued
        assert "seat 1" in done

        def full() -> None:
            raise OSError(28, "No space left on device")

        later.submit(2, full)
        later.go()
        later.wait(1)  # another seat's error waits for that seat
        with pytest.raises(OSError, match="No space"):
            later.wait(2)
        later.wait()
    finally:
        later.close()
    inline: list[int] = []
    later = Later(threaded=False)
    later.submit(1, lambda: inline.append(1))
    assert inline == [1]  # without a thread a job runs at once


def test_later_in_line_runs_after_what_was_handed_over_and_keeps_a_full_disks_jobs_for_wait():
    done: list[str] = []
    later = Later(threaded=True)
    try:
        later.submit(1, lambda: done.append("handed"))
        later.go()
        later.submit(2, lambda: done.append("in line"))
        later.in_line()  # (a kept-alive player's step: nothing to overlap)
        assert done == ["handed", "in line"]
        disk = {"full": True}

        def write(name: str) -> None:
            if disk["full"]:
                raise OSError(28, "No space left on device")
            done.append(name)

        later.submit(1, lambda: write("first"))
        later.submit(2, lambda: write("second"))
        later.in_line()  # stopped on the full disk: nothing raised yet (the match charges a seat first)
        assert done[2:] == []
        disk["full"] = False
        later.wait(2)  # then run again, in line, in their order
        assert done[2:] == ["first", "second"]
        later.wait()
    finally:
        later.close()


def test_later_until_does_the_jobs_while_no_answer_came_and_leaves_the_rest_one_step():
    # A kept-alive player's step: the jobs are done on the calling thread, one
    # at a time, each only while ready() says that no answer came; what is
    # left is done at the next step's start (stale), not later.
    import threading

    done: list[tuple[str, int]] = []
    later = Later(threaded=True)
    answers = iter([False, False, True])
    try:
        for name in ("a", "b", "c", "d"):
            later.submit(1, lambda name=name: done.append((name, threading.get_ident())))
        later.until(lambda: next(answers))  # the answer came after two jobs
        assert done == [("a", threading.get_ident()), ("b", threading.get_ident())]
        later.submit(2, lambda: done.append(("e", 0)))  # the step's own jobs, for the next one
        later.stale()  # the next step's start: what the last one left, not the new job
        assert [name for name, _ in done] == ["a", "b", "c", "d"]
        later.until(lambda: True)  # answered at once: the new job waits one step
        assert len(done) == 4
        later.stale()
        assert [name for name, _ in done] == ["a", "b", "c", "d", "e"]
        later.wait()
        # Waiting for a seat does its queued jobs in line, and only those.
        later.submit(1, lambda: done.append(("f", 0)))
        later.submit(2, lambda: done.append(("g", 0)))
        later.wait(2)
        assert [name for name, _ in done[5:]] == ["g"]
        later.wait()
        assert [name for name, _ in done[5:]] == ["g", "f"]
    finally:
        later.close()


def test_later_until_keeps_errors_for_wait_and_hands_slow_jobs_to_the_thread(monkeypatch):
    import types

    from referee.core import later as later_mod

    done: list[str] = []
    later = Later(threaded=True)
    try:
        def broken() -> None:
            raise ValueError("a bug in a write")

        later.submit(1, broken)
        later.submit(2, lambda: done.append("after"))
        later.until(lambda: False)  # the player's step goes on: nothing raised here
        with pytest.raises(ValueError, match="a bug"):
            later.wait()
        assert done == []  # (the first error stops a batch, as on the thread)

        disk = {"full": True}

        def write() -> None:
            if disk["full"]:
                raise OSError(28, "No space left on device")
            done.append("written")

        later.submit(1, write)
        later.until(lambda: False)
        disk["full"] = False
        later.wait(1)  # a full disk's job is run again, in line
        assert done == ["written"]

        # Jobs that took long, three in a row (a slow disk; one alone may be a
        # preemption), send the rest, and every later step's, to the thread,
        # whose file operations release the GIL.
        monkeypatch.setattr(later_mod, "SLOW_S", -1.0)
        import threading
        threads: list[int] = []
        for _ in range(4):
            later.submit(1, lambda: threads.append(threading.get_ident()))
        later.until(lambda: False)
        later.wait()
        here = threading.get_ident()
        assert threads[:3] == [here] * 3 and threads[3] != here, threads
        later.submit(1, lambda: threads.append(threading.get_ident()))
        later.until(lambda: False)
        later.wait()
        assert threads[4] != here
        fresh = Later(threaded=True)  # a quick job between two slow ones starts the count again
        try:
            times = iter([0.0, 1.0, 1.0, 2.0, 2.0, 2.0, 3.0, 4.0, 4.0, 5.0])  # slow, slow, quick, slow, slow
            monkeypatch.setattr(later_mod, "SLOW_S", 0.5)
            # (later.py's own clock, not the process's: another thread may read that)
            monkeypatch.setattr(later_mod, "time", types.SimpleNamespace(monotonic=lambda: next(times)))
            ran: list[int] = []
            for _ in range(5):
                fresh.submit(1, lambda: ran.append(threading.get_ident()))
            fresh.until(lambda: False)
            monkeypatch.undo()
            assert ran == [here] * 5, ran
        finally:
            fresh.close()
    finally:
        later.close()


def test_a_full_disk_in_a_later_write_ends_the_match_with_one_line(tmp_path, monkeypatch):
    """An error in a write done on the worker thread (the match's snapshot)
    surfaces as the match folder's error, with the log kept."""
    from referee.core import log as log_mod
    from referee.core.match import MatchFolderError, MatchSpec, run_match

    calls = {"n": 0}
    real = log_mod.MatchFolder.write_snapshot

    def failing(self, step, text):
        calls["n"] += 1
        if step == 3:
            raise OSError(28, "No space left on device", str(self.root / "step_logs" / "step_3.txt"))
        real(self, step, text)

    monkeypatch.setattr(log_mod.MatchFolder, "write_snapshot", failing)
    with pytest.raises(MatchFolderError, match="No space left on device"):
        run_match(MatchSpec("cantris", ["builtin:random", "builtin:random"],
                            board=BOARDS / "cantris" / "8x4-1.txt", seed=2, out=tmp_path / "m"))
    assert len(read_log(tmp_path / "m")) >= 3


# ----- the seat host's limits
LIMITS_PLAYER = """
import re
text = open("/proc/self/limits").read()
mem = re.search(r"Max address space\\s+(\\S+)\\s+(\\S+)", text).groups()
files = re.search(r"Max open files\\s+(\\S+)\\s+(\\S+)", text).groups()
open("decision.txt", "w").write(" ".join(mem + files))
"""


def _seat_host(tmp_path: Path, sandbox) -> tuple[Path, SeatHost]:
    """A match's seat folder p1 (with its step_logs) and a host for it, not started."""
    seat_dir = tmp_path / "players" / "p1"
    (seat_dir / "step_logs").mkdir(parents=True)
    return seat_dir, SeatHost(seat_dir, sandbox)


@pytest.mark.skipif(not seats.available(), reason="needs a seat host")
@pytest.mark.parametrize("box", ["none", "bwrap"])
def test_a_spawned_player_gets_the_steps_limits_and_new_ones_get_a_new_host(tmp_path, box):
    sandbox = resolve(box if box == "none" else "auto")
    if box == "bwrap" and not sandbox.on:
        pytest.skip("bwrap cannot start here")
    seat_dir, host = _seat_host(tmp_path, sandbox)
    program = tmp_path / "limits.py"
    program.write_text(LIMITS_PLAYER)
    argv = [sys.executable, "-S", str(program)]
    try:
        assert host.start(argv) is None
        seen = []
        # the third raises the limits (a new host); the fourth is below what a
        # host can live under, so its player is forked and sets them itself
        for memory, files in ((900, 200), (900, 200), (1200, 100), (64, 30)):
            limits = Limits(soft_time=20, hard_time=30, memory_mb=memory, open_files=files)
            run = host.run(argv, dict(os.environ), limits, seat_dir / "out.txt", seat_dir / "err.txt")
            assert run.exit_code == 0, (run, (seat_dir / "err.txt").read_text())
            seen.append((seat_dir / "decision.txt").read_text().split())
            (seat_dir / "decision.txt").unlink()
        mb = 1024 * 1024
        assert seen == [[str(900 * mb)] * 2 + ["200"] * 2, [str(900 * mb)] * 2 + ["200"] * 2,
                        [str(1200 * mb)] * 2 + ["100"] * 2, [str(64 * mb)] * 2 + ["30"] * 2]
        assert host.starts == 3
    finally:
        host.close()


ENV_PLAYER = """
import os, sys
print("step", os.environ.get("REFEREE_STEP"), "extra", os.environ.get("EXTRA"))
open("decision.txt", "w").write("0 0")
if os.environ.get("REFEREE_STEP") == "2":
    os.remove("out.txt")  # the output file of later steps must come back
if os.environ.get("REFEREE_STEP") == "3":
    os.remove("out.txt"); os.symlink("secret.txt", "out.txt")
"""


@pytest.mark.skipif(not seats.available(), reason="needs a seat host")
def test_a_host_is_told_only_what_changed_in_the_environment_and_keeps_output_files_honest(tmp_path):
    """The host gets the whole environment once, then only the changes (an
    unset variable too); it keeps the output files open between steps, but a
    file the player removed or replaced by a link is made again."""
    seat_dir, host = _seat_host(tmp_path, resolve("none"))
    (seat_dir / "secret.txt").write_text("keep me\n")
    program = tmp_path / "env.py"
    program.write_text(ENV_PLAYER)
    argv = [sys.executable, "-S", str(program)]
    sent = []
    real_ask = host._ask
    host._ask = lambda request, *rest: (sent.append(request), real_ask(request, *rest))[1]
    try:
        assert host.start(argv) is None
        tails = []
        for step, extra in ((1, "a"), (2, "a"), (3, None), (4, "b")):
            env = dict(os.environ, REFEREE_STEP=str(step))
            env.pop("EXTRA", None)
            if extra:
                env["EXTRA"] = extra
            run = host.run(argv, env, Limits(soft_time=20, hard_time=30), seat_dir / "out.txt", seat_dir / "err.txt")
            assert run.exit_code == 0, (run, (seat_dir / "err.txt").read_text())
            tails.append(run.stdout_tail)
        assert tails == ["step 1 extra a\n", "step 2 extra a\n", "step 3 extra None\n", "step 4 extra b\n"]
        requests = [seats._reply(line.rstrip(b"\n")) for line in sent]  # (the ping is not sent by _ask)
        assert len(requests) == 4
        assert requests[0]["env"]["EXTRA"] == "a"
        assert [r.get("env_changes") for r in requests[1:]] == [
            {"REFEREE_STEP": "2"}, {"REFEREE_STEP": "3", "EXTRA": None}, {"REFEREE_STEP": "4", "EXTRA": "b"}]
        assert "env" not in requests[1]
        # removed at step 2, a link at step 3: step 4's output is in a new regular file
        assert not (seat_dir / "out.txt").is_symlink()
        assert (seat_dir / "out.txt").read_text() == "step 4 extra b\n"
        assert (seat_dir / "secret.txt").read_text() == "keep me\n"
    finally:
        host.close()


def test_the_host_channel_reads_its_own_lines_and_refuses_anything_else(tmp_path):
    """A host line is a dict in marshal form, as hex: one the referee wrote
    reads back whole; JSON, non-hex, a non-dict or a cut line is not a reply
    (the host counts as not answering); a request the host cannot read gets a
    host_error, and the host goes on answering."""
    assert seats._reply(seats.message({"pong": True, "tail": "é\n"}).rstrip(b"\n")) == {"pong": True, "tail": "é\n"}
    for line in (b'{"pong": true}', b"zz", marshal.dumps([1]).hex().encode(),
                 seats.message({"pong": True})[:-7], b"", "é".encode()):
        assert seats._reply(line) is None, line
    _, host = _seat_host(tmp_path, resolve("none"))
    try:
        assert host.start([sys.executable]) is None
        assert "host_error" in host._ask(b'{"ping": 1}\n', time.monotonic() + 10)
        assert host._ask(seats.message({"ping": 1}), time.monotonic() + 10) == {"pong": True}
    finally:
        host.close()


def test_spare_files_stand_in_for_creations_and_a_tampered_one_is_not_used(tmp_path):
    players = tmp_path / "players"
    (players / "p1" / "step_logs").mkdir(parents=True)
    secret = tmp_path / "secret.txt"
    secret.write_text("keep me\n")
    spares = Spares(players)
    logs = os.open(players / "p1" / "step_logs", os.O_RDONLY | os.O_DIRECTORY)
    try:
        spares.make(2)
        made = sorted(n for n in os.listdir(players) if n.startswith(".spare-"))
        assert len(made) == 2
        repairs: list[str] = []
        spares.create_at(logs, "step_0.txt", b"zero\n", repairs, "step_logs/step_0.txt")
        assert (players / "p1" / "step_logs" / "step_0.txt").read_text() == "zero\n"
        assert len([n for n in os.listdir(players) if n.startswith(".spare-")]) == 1  # one was used
        # a spare someone replaced by a hard link to another file is never written through
        left = next(n for n in os.listdir(players) if n.startswith(".spare-"))
        os.unlink(players / left)
        os.link(secret, players / left)
        spares.create_at(logs, "step_1.txt", b"one\n", repairs, "step_logs/step_1.txt")
        assert (players / "p1" / "step_logs" / "step_1.txt").read_text() == "one\n"
        assert secret.read_text() == "keep me\n"
        # an existing target is not silently replaced: the slow way reports it
        spares.make(1)
        os.symlink(secret, players / "p1" / "step_logs" / "step_2.txt")
        spares.create_at(logs, "step_2.txt", b"two\n", repairs, "step_logs/step_2.txt")
        assert not (players / "p1" / "step_logs" / "step_2.txt").is_symlink()
        assert secret.read_text() == "keep me\n"
        spares.close()
        assert not [n for n in os.listdir(players) if n.startswith(".spare-") and n != left]
    finally:
        os.close(logs)


def test_a_match_leaves_no_spare_file_behind(tmp_path):
    out = tmp_path / "m"
    play_match("cantris", out, "builtin:random", "builtin:random", seed=1,
               board=BOARDS / "cantris" / "10x5-1.txt")
    assert not [n for n in os.listdir(out / "players") if n.startswith(".spare")]
    assert len(os.listdir(out / "players" / "p1" / "step_logs")) == len(read_log(out)) + 1


def test_a_stale_compiled_seat_host_is_compiled_again(tmp_path, monkeypatch):
    """Seat hosts run with -B and never write their own bytecode: a stale
    __pycache__ entry (seathost.py changed since it was written) would make
    every host start compile itself anew, as a missing one would."""
    import importlib.util
    import py_compile

    script = tmp_path / "seathost.py"
    script.write_text("X = 1\n")
    cached = importlib.util.cache_from_source(str(script))
    py_compile.compile(str(script), cfile=cached, doraise=True)
    assert seats._fresh(cached, script)
    script.write_text("X = 22\n")  # another size: stale whatever the clock's granularity
    assert not seats._fresh(cached, script)
    monkeypatch.setattr(seats, "HOST_SCRIPT", script)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    seats._compile_host.__wrapped__()
    assert seats._fresh(cached, script)
    assert marshal.loads(Path(cached).read_bytes()[16:]).co_consts[0] == 22


def test_a_seat_host_told_it_is_pid_1_when_it_is_not_refuses_to_run():
    """A host's sweeps as pid 1 are kill(-1): started by hand with --pid1
    outside a pid namespace of its own, it would kill every process its user
    may signal.  It refuses instead.  (Run in a pid namespace where it is not
    pid 1, so that a host that did not refuse would only kill in there.)"""
    sandbox = resolve("auto")
    if not sandbox.on:
        pytest.skip("no bubblewrap here")
    import subprocess

    argv = [sandbox.binary, "--unshare-pid", "--dev-bind", "/", "/", "--", *seats.host_argv(True)]
    done = subprocess.run(argv, input=seats.message({"ping": 1}), capture_output=True, timeout=60)
    assert done.returncode == 2, done
    assert b"--pid1 outside a pid namespace of its own" in done.stderr
    assert not done.stdout  # it never answered


def test_a_seat_folder_written_by_path_where_folders_cannot_be_held(tmp_path):
    # Windows (tests/windows_os plays whole matches so): what is in a view's
    # place is replaced, never written through; an odd decision file is named.
    from referee.core.seatfiles import PathSeatFolder

    (tmp_path / "players").mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("keep me\n")
    seat = PathSeatFolder(tmp_path, 1)
    folder = tmp_path / "players" / "p1"
    seat.write_views({"Board.txt": "b1\n", "state.json": "{}"}, snapshot_text=SNAPSHOT, upto=2)
    assert [(folder / n).read_text() for n in ("Board.txt", "step_logs/step_0.txt", "step_logs/step_1.txt")] \
        == ["b1\n", "board 0\n", "board 1\n"]
    (folder / "Board.txt").unlink()
    os.symlink(secret, folder / "Board.txt")
    (folder / "step_logs" / "step_1.txt").write_text("forged\n")
    (folder / "decision.txt").write_text("0 0")
    seat.write_views({"Board.txt": "b2\n", "state.json": "{}"}, snapshot_text=SNAPSHOT, upto=3)
    assert secret.read_text() == "keep me\n" and (folder / "Board.txt").read_text() == "b2\n"
    assert seat.take_repairs() == ["Board.txt was a symbolic link", "step_logs/step_1.txt was changed"]
    assert (folder / "step_logs" / "step_1.txt").read_text() == "board 1\n"
    assert not (folder / "decision.txt").exists() and seat.read_decision(100) == (None, None)
    os.symlink(secret, folder / "decision.txt")
    assert seat.read_decision(100) == (b"", "decision.txt is a symbolic link; write a regular file")
    os.unlink(folder / "decision.txt")
    os.mkdir(folder / "decision.txt")
    assert seat.read_decision(100) == (b"", "decision.txt is a directory, not a regular file")
    seat.forget_decision()
    (folder / "decision.txt").write_text("1 2")
    assert seat.read_decision(100) == (b"1 2", None)
    assert "decision.txt" in seat.names()
    (folder / "big").write_bytes(b"0" * (1 << 20))
    assert seat.usage(None).bytes >= 1 << 20
    seat.clear()
    assert sorted(p.name for p in folder.iterdir()) == []


def test_the_held_folders_are_checked_once_after_each_time_a_player_may_have_run(tmp_path, monkeypatch):
    """Between two runs of players only the referee touches a seat's
    folder: the way to it is checked at the first use after a player may
    have run, not at every use (the views, the decision removed, the
    snapshots added and the one reserved were ~10 stats a step)."""
    (tmp_path / "players").mkdir()
    seat = SeatFolder(tmp_path, 1, check_snapshots=False)
    looked: list[str] = []
    real_stat = os.stat

    def counting(path, *args, **kwargs):
        if path in ("players", "p1", "step_logs"):
            looked.append(path)
        return real_stat(path, *args, **kwargs)

    try:
        seat.write_views({"Board.txt": "one\n"}, snapshot_text=lambda k: f"{k}\n", upto=1)
        monkeypatch.setattr(os, "stat", counting)
        seat.add_snapshots(lambda k: f"{k}\n", 2)
        seat.reserve_snapshot(2)
        seat.forget_decision()
        assert looked == []
        seat.may_have_changed()
        seat.forget_decision()
        seat.add_snapshots(lambda k: f"{k}\n", 3)
        assert looked == ["players", "p1", "step_logs"]
    finally:
        seat.close()


def test_a_results_file_named_dev_null_is_written_not_replaced(tmp_path):
    """``grade --out /dev/null`` (or ``replay --html /dev/null``), run as
    root, renamed a regular file onto /dev/null: every program on the
    machine then wrote into a file.  A device is written; a link elsewhere
    is still replaced, never followed."""
    from referee.core import files

    device = Path("/dev/null")  # (an ordinary user cannot replace it: the old code failed, harmlessly)
    if os.geteuid() == 0:  # root could: a device of the test's own, the same as /dev/null
        device = tmp_path / "null"
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        try:
            device.write_text("x")
        except OSError:
            pytest.skip("devices cannot be opened on this file system (nodev)")
    before = os.stat(device)
    files.write_text(device, "a grade\n")
    after = os.lstat(device)
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev and after.st_ino == before.st_ino
    target = tmp_path / "elsewhere.txt"
    target.write_text("kept")
    link = tmp_path / "result.yaml"
    link.symlink_to(target)
    files.write_text(link, "written")
    assert not link.is_symlink() and link.read_text() == "written" and target.read_text() == "kept"


def test_dev_stdout_redirected_to_a_file_is_written_through_not_replaced(tmp_path):
    """``replay --html /dev/stdout > page.html``: stdout is then a regular
    file, so /dev/stdout looked like one and, as root, was renamed over (the
    machine's /dev/stdout link replaced).  Anything under /dev or /proc is
    written in place.  (Asked of the writer's own test, in a process whose
    stdout is a file: the old code said False, without touching /dev.)"""
    out = tmp_path / "page.html"
    with open(out, "w") as stdout:
        done = subprocess.run([sys.executable, "-c",
                               "import sys; from pathlib import Path; from referee.core.files import _a_device; "
                               "print(_a_device(Path('/dev/stdout')), _a_device(Path('/proc/self/fd/1')), "
                               "_a_device(Path(sys.argv[1])), _a_device(Path('/dev/shm/x')), file=sys.stderr)",
                               str(tmp_path / "plain.txt")],
                              stdout=stdout, stderr=subprocess.PIPE, text=True,
                              cwd=Path(__file__).resolve().parents[1])
    assert done.stderr.split() == ["True", "True", "False", "False"], done.stderr
