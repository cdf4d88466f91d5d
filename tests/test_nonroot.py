"""The sandbox and the seat folder's defences as an ordinary user, the way
students and most TAs run the referee: the referee installed (not editable)
into a fresh venv of the system's Python, run as ``nobody``.  As root,
permissions never get in the way, so this is where a player that removes its
own folder's permissions, or unprivileged user namespaces, are really tried.

Some machines (CI's VMs among them) have a ``/`` of mode 0700, where nobody
cannot run anything.  There each referee runs in a private mount namespace
whose ``/`` is a 0755 tmpfs holding every top-level entry bound as it is
(bwrap as root, so no user namespace: the real ``/`` is never changed)."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import pip_install_into, referee_wheel
from referee.core import sandbox
from test_rogues import MODES, ROGUES, check_rogue, run_rogue
from test_seat_limits import HOGS, NO_GROUPS, SLEEPERS

SYSTEM_PYTHON = "/usr/bin/python3"
pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None or not os.path.exists(SYSTEM_PYTHON),
    reason="needs root (to switch to nobody), setpriv and the system's python3")
AS_NOBODY = ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")


def open_root() -> tuple[str, ...]:
    """A bwrap prefix that runs a command as root in a mount namespace whose
    ``/`` is traversable (0755) and shows every top-level entry of the real
    one; () if there is no bwrap.  Capabilities are kept (bwrap drops them as
    root unless told) so that setpriv can then become nobody."""
    binary = sandbox.bwrap_binary()
    if binary is None:
        return ()
    argv = [binary, "--die-with-parent", "--perms", "0755", "--tmpfs", "/"]
    for entry in sorted(Path("/").iterdir()):
        if entry.is_symlink():
            argv += ["--symlink", os.readlink(entry), str(entry)]
        elif entry.is_dir() or entry.is_file():
            argv += ["--dev-bind", str(entry), str(entry)]
    return (*argv, "--cap-add", "ALL", "--chdir", "/", "--")


def nobody_prefix() -> tuple[tuple[str, ...], str]:
    """How to run a command as nobody here, or () and why it cannot be done."""
    tried = []
    for prefix in (AS_NOBODY, (*open_root(), *AS_NOBODY)):
        probe = subprocess.run([*prefix, SYSTEM_PYTHON, "-c", "pass"], capture_output=True, text=True)
        if probe.returncode == 0:
            return prefix, ""
        tried.append(probe.stderr.strip()[-200:])
        if os.stat("/").st_mode & 0o001:  # / is open: the namespace would change nothing
            break
    return (), f"nobody cannot run {SYSTEM_PYTHON} here: {' / '.join(tried)}"
CHOSEN = ["removes_own_permissions", "forges_other_board", "board_links_to_log",
          "stdout_links_to_log", "setsid_chain_of_150", "fifo_decision", "forges_host_reply",
          # seat isolation: no privilege, an allowlisted view, a clean environment, and the
          # fallbacks where an ordinary user has no control groups (descendants' CPU counted
          # by the host, strays swept by the referee as a subreaper)
          "has_no_capabilities", "unmounts_and_remounts",
          "reads_the_referees_environment", "fills_tmp", "orphan_workers_ignore_sigxcpu",
          "kills_its_host_after_starting_a_daemon", "unreadable_decision", "lists_homes_and_root"]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A folder everyone may use, with the referee installed in a venv of the
    system's Python (a normal, non-editable install from this checkout)."""
    prefix, why = nobody_prefix()
    if not prefix:
        pytest.skip(why)
    base = Path(tempfile.mkdtemp(prefix="referee-nonroot-", dir="/tmp"))
    os.chmod(base, 0o755)
    venv = base / "venv"
    # The run's wheel (conftest.referee_wheel: built once, from a copy of the
    # checkout), installed with this test run's pip into a pip-less venv of
    # the system's Python: the same installed wheel, a minute less than a venv
    # with its own pip building in isolation.
    wheel = referee_wheel(tmp_path_factory)
    steps = [lambda: subprocess.run([SYSTEM_PYTHON, "-m", "venv", "--without-pip", str(venv)],
                                    capture_output=True, text=True, timeout=600),
             lambda: pip_install_into(venv / "bin" / "python", wheel)]
    for step in steps:
        done = step()
        if done.returncode != 0:
            shutil.rmtree(base, ignore_errors=True)
            pytest.skip(f"cannot install into a system-Python venv: {done.stderr.strip()[-200:]}")
    subprocess.run(["chmod", "-R", "a+rX", str(base)], check=True)
    yield base, venv, prefix
    shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", CHOSEN)
def test_rogue_as_an_ordinary_user(world, name, mode):
    base, venv, prefix = world
    work = Path(tempfile.mkdtemp(dir=base))
    os.chmod(work, 0o777)
    rogue = ROGUES[name]
    rogue.skip_unless_played_in(mode)
    proc, out, survivors = run_rogue(work, name, mode, rogue, python=str(venv / "bin" / "python"),
                                     prefix=prefix, env_extra={"HOME": str(work)})
    check_rogue(rogue, mode, proc, out, survivors)
    assert out.stat().st_uid == 65534  # it really ran as nobody


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("rogue", [HOGS, SLEEPERS], ids=["six_hogs_of_100_mib", "two_hundred_sleepers"])
def test_whole_seat_limits_as_an_ordinary_user(world, rogue, mode):
    """An ordinary user has no control groups: the seat host's measure of
    the whole seat holds (tests/test_seat_limits.py plays the same as root)."""
    base, venv, prefix = world
    work = Path(tempfile.mkdtemp(dir=base))
    os.chmod(work, 0o777)
    proc, out, survivors = run_rogue(work, "hog", mode, rogue, python=str(venv / "bin" / "python"),
                                     prefix=prefix, env_extra={"HOME": str(work), **NO_GROUPS})
    check_rogue(rogue, mode, proc, out, survivors)
    assert out.stat().st_uid == 65534


# Made as nobody, then removed by the installed referee as nobody: folders of
# mode 0 at every depth (not root, moving a folder needs its write bit), and
# a tree deeper than Python's recursion limit, walked both ways.
LOCKED_TREE = """
import os, sys
from pathlib import Path
from referee.core import trees
trees.FD_BASED = sys.argv[2] == "descriptors"
top = Path(sys.argv[1])
deep = top / "seat" / "players" / "p1"
deep.mkdir(parents=True)
fd = os.open(deep, os.O_RDONLY)
for _ in range(1100):
    os.mkdir("d", dir_fd=fd)
    inner = os.open("d", os.O_RDONLY, dir_fd=fd)
    os.close(fd)
    fd = inner
os.close(fd)
(deep / "a" / "locked" / "inner").mkdir(parents=True)
(deep / "a" / "locked" / "inner" / "f").write_text("x")
for folder in (deep / "a" / "locked" / "inner", deep / "a" / "locked", deep / "a"):
    os.chmod(folder, 0)
print(trees.remove_tree(top / "seat"), sorted(os.listdir(top)))
"""


@pytest.mark.parametrize("walk", ["descriptors", "paths"])
def test_an_ordinary_user_removes_a_players_locked_folders(world, walk):
    base, venv, prefix = world
    work = Path(tempfile.mkdtemp(dir=base))
    os.chmod(work, 0o777)
    done = subprocess.run([*prefix, str(venv / "bin" / "python"), "-c", LOCKED_TREE, str(work), walk],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "[]"], done.stdout  # gone, no .referee-trash-* left
