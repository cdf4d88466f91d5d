"""The cgroup v2 path of referee/core/cgroups.py against a fake cgroupfs: a
plain folder tree with the files the kernel would show.

The machines the suite runs on are cgroup v1 (v2 mounted but empty), so v2
cannot run live there.  These tests check what the v2 path writes (the
controllers it hands down, memory.max, memory.swap.max, pids.max, its own
move into a leaf, cgroup.kill) and how it reads what the kernel reports
(cpu.stat, memory.events, pids.events, cgroup.procs).  What they cannot
check is the kernel's side: that the limits hold, that a write to
cgroup.procs moves a process, v2's rule that only a group without processes
hands out controllers (docs/protocol.md says what was verified live)."""
from __future__ import annotations

import errno
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from referee.core import cgroups

KERNEL_FILES = {"cgroup.procs": "", "cgroup.kill": "", "cgroup.controllers": "cpu memory pids",
                "cgroup.subtree_control": "", "memory.max": "max", "memory.swap.max": "max",
                "pids.max": "max", "cpu.stat": "usage_usec 0\n", "memory.events": "oom_kill 0\n",
                "pids.events": "max 0\n"}


class FakeKernelGroup(cgroups.SeatGroup):
    """A seat group whose folders are made and removed as the kernel would:
    with their files in them."""

    @staticmethod
    def _make_folder(folder: Path) -> None:
        folder.mkdir()
        for name, text in KERNEL_FILES.items():
            (folder / name).write_text(text)

    @staticmethod
    def _remove_folder(folder: Path) -> None:
        shutil.rmtree(folder)


@pytest.fixture
def cgroupfs(tmp_path) -> Path:
    """A unified hierarchy's root with this process's group ``/user/me``
    in it, whose controllers memory and pids may be handed down."""
    root = tmp_path / "cgroup2"
    me = root / "user" / "me"
    me.mkdir(parents=True)
    for folder in (root, root / "user", me):
        for name in ("cgroup.controllers", "cgroup.subtree_control", "cgroup.procs"):
            (folder / name).write_text(KERNEL_FILES["cgroup.controllers"] if name == "cgroup.controllers" else "")
    return root


OWN = {"": "/user/me"}


def test_it_finds_the_unified_hierarchy_and_this_processs_group(cgroupfs):
    assert cgroups._own_groups("0::/user/me\n") == OWN
    assert cgroups._own_groups("12:pids:/a\n11:memory,cpuacct:/b\n") == {"pids": "/a", "memory": "/b",
                                                                        "cpuacct": "/b"}
    mountinfo = (f"24 30 0:21 / /proc rw - proc proc rw\n"
                 f"30 23 0:26 / {cgroupfs} rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n")
    assert cgroups._cgroup2_root(mountinfo) == cgroupfs
    (cgroupfs / "cgroup.controllers").write_text("")  # mounted, no controllers: v1 has them all
    assert cgroups._cgroup2_root(mountinfo) is None


def test_a_parent_that_may_hand_down_memory_and_pids_is_used_as_it_is(cgroupfs, tmp_path):
    where = cgroups.find_hierarchy(OWN, tmp_path / "no-v1", cgroupfs)
    assert where == cgroups.Hierarchy(2, {"unified": cgroupfs / "user" / "me"})
    assert (cgroupfs / "user" / "me" / "cgroup.subtree_control").read_text() == "+memory +pids"


def test_a_parent_with_processes_delegates_from_a_folder_the_referee_moves_out_of(cgroupfs, tmp_path,
                                                                                   monkeypatch):
    """v2 lets only a group without processes hand controllers to children:
    where the parent refuses, the referee makes referee-<pid>, moves itself
    into a leaf of it, and hands memory and pids to the leaf's siblings."""
    me = cgroupfs / "user" / "me"
    write = Path.write_text

    def kernel_write(path: Path, text: str, *args, **kwargs):
        if path == me / "cgroup.subtree_control":  # the group has processes: EBUSY
            raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), str(path))
        return write(path, text, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", kernel_write)
    where = cgroups.find_hierarchy(OWN, tmp_path / "no-v1", cgroupfs)
    base = me / f"referee-{os.getpid()}"
    assert where == cgroups.Hierarchy(2, {"unified": base})
    assert (base / "referee" / "cgroup.procs").read_text() == str(os.getpid())
    assert (base / "cgroup.subtree_control").read_text() == "+memory +pids"


def test_no_v2_group_without_the_memory_and_pids_controllers(cgroupfs, tmp_path):
    (cgroupfs / "user" / "me" / "cgroup.controllers").write_text("cpu io")
    assert cgroups.find_hierarchy(OWN, tmp_path / "no-v1", cgroupfs) is None
    assert cgroups.find_hierarchy({}, tmp_path / "no-v1", cgroupfs) is None  # not in a v2 group


@pytest.mark.parametrize("sandboxed, pids", [(True, "66"), (False, "65")])
def test_a_seat_group_writes_its_limits(cgroupfs, sandboxed, pids):
    where = cgroups.Hierarchy(2, {"unified": cgroupfs / "user" / "me"})
    group = FakeKernelGroup.create(512, 64, sandboxed, where=where)
    assert group is not None
    folder = group.folders["unified"]
    assert folder.parent == cgroupfs / "user" / "me" and folder.name.startswith(f"referee-seat-{os.getpid()}-")
    assert (folder / "memory.max").read_text() == str((512 + cgroups.HOST_MARGIN_MB) << 20)
    assert (folder / "memory.swap.max").read_text() == "0"
    assert (folder / "pids.max").read_text() == pids  # the host (and bwrap) aside
    group.join()  # between fork and exec: "0" (the writer) into cgroup.procs, opened beforehand
    assert (folder / "cgroup.procs").read_text() == "0"
    (folder / "cgroup.procs").write_text("")  # the kernel lists pids, not what was written
    group.remove()
    assert not folder.exists()


def test_without_limits_a_seat_group_leaves_the_kernels_defaults(cgroupfs):
    group = FakeKernelGroup.create(None, None, True, where=cgroups.Hierarchy(2, {"unified": cgroupfs}))
    folder = group.folders["unified"]
    assert [(folder / name).read_text() for name in ("memory.max", "memory.swap.max", "pids.max")] == ["max"] * 3
    group.remove()


def test_a_seat_group_reads_cpu_oom_kills_and_refused_forks(cgroupfs):
    group = FakeKernelGroup.create(512, 64, True, where=cgroups.Hierarchy(2, {"unified": cgroupfs}))
    folder = group.folders["unified"]
    assert group.read() == cgroups.Reading(0.0, 0, 0)
    (folder / "cpu.stat").write_text("usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n")
    (folder / "memory.events").write_text("low 0\nhigh 0\nmax 7\noom 2\noom_kill 2\noom_group_kill 0\n")
    (folder / "pids.events").write_text("max 5\n")
    assert group.read() == cgroups.Reading(2.5, 2, 5)
    group.remove()


def test_kill_all_uses_cgroup_kill_and_waits_until_the_group_is_empty(cgroupfs):
    group = FakeKernelGroup.create(512, 64, True, where=cgroups.Hierarchy(2, {"unified": cgroupfs}))
    folder = group.folders["unified"]
    sleeper = subprocess.Popen(["sleep", "300"])
    (folder / "cgroup.procs").write_text(f"{sleeper.pid}\n")

    def kernel() -> None:  # a process leaves cgroup.procs once it is gone
        sleeper.wait()
        (folder / "cgroup.procs").write_text("")

    thread = threading.Thread(target=kernel)
    thread.start()
    started = time.monotonic()
    try:
        group.kill_all()
    finally:
        sleeper.kill()
        thread.join()
    assert sleeper.returncode == -9 and time.monotonic() - started < 4
    assert (folder / "cgroup.kill").read_text() == "1"
    group.remove()
    assert not folder.exists()


def test_match_yaml_names_cgroup_v2(monkeypatch, cgroupfs):
    monkeypatch.setattr(cgroups, "hierarchy", lambda: cgroups.Hierarchy(2, {"unified": cgroupfs}))
    enforced = cgroups.enforcement(True)
    assert all("cgroup v2" in how for how in enforced.values()), enforced


def test_a_seat_host_joins_its_group_through_a_shell_that_becomes_it(cgroupfs, tmp_path):
    """A seat host is started by a shell that writes itself ("0": the writer)
    into each of its group's cgroup.procs and then execs the host, the same
    process (the referee's Python would fork itself whole to run a
    preexec_fn); a join that fails ends it before the command runs."""
    import subprocess

    group = FakeKernelGroup.create(512, 64, False, where=cgroups.Hierarchy(2, {"unified": cgroupfs}))
    folder = group.folders["unified"]
    ran = tmp_path / "ran"
    argv = group.joining(["/bin/sh", "-c", 'echo "$$ $1" > "$0"', str(ran), "it ran"])
    assert argv is not None
    shell = subprocess.Popen(argv)
    assert shell.wait() == 0
    assert (folder / "cgroup.procs").read_text() == "0\n"
    pid, said = ran.read_text().split(" ", 1)
    assert (int(pid), said) == (shell.pid, "it ran\n")  # exec'd: the process that joined
    (folder / "cgroup.procs").unlink()  # cannot be written: nothing of the command runs
    (folder / "cgroup.procs").mkdir()
    ran.unlink()
    done = subprocess.run(argv, capture_output=True)
    assert done.returncode == 125 and b"cgroup.procs" in done.stderr and not ran.exists()
    (folder / "cgroup.procs").rmdir()
    group.remove()
