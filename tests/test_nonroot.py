"""The sandbox and the seat folder's defences as an ordinary user, the way
students and most TAs run the referee: the referee installed (not editable)
into a fresh venv of the system's Python, run as ``nobody``.  As root,
permissions never get in the way, so this is where a player that removes its
own folder's permissions, or unprivileged user namespaces, are really tried."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import ROOT
from test_rogues import MODES, ROGUES, check_rogue, run_rogue

SYSTEM_PYTHON = "/usr/bin/python3"
pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None or not os.path.exists(SYSTEM_PYTHON),
    reason="needs root (to switch to nobody), setpriv and the system's python3")
AS_NOBODY = ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")
CHOSEN = ["removes_own_permissions", "forges_other_board", "board_links_to_log",
          "stdout_links_to_log", "setsid_chain_of_150", "fifo_decision", "forges_host_reply",
          # seat isolation: no privilege, an allowlisted view, a clean environment, and the
          # fallbacks where an ordinary user has no control groups (descendants' CPU counted
          # by the host, strays swept by the referee as a subreaper)
          "has_no_capabilities", "unmounts_and_remounts",
          "reads_the_referees_environment", "fills_tmp", "orphan_workers_ignore_sigxcpu",
          "kills_its_host_after_starting_a_daemon"]


@pytest.fixture(scope="module")
def world():
    """A folder everyone may use, with the referee installed in a venv of the
    system's Python (a normal, non-editable install from this checkout)."""
    probe = subprocess.run([*AS_NOBODY, SYSTEM_PYTHON, "-c", "pass"], capture_output=True, text=True)
    if probe.returncode != 0:  # e.g. a root folder (/) only root may enter
        pytest.skip(f"nobody cannot run {SYSTEM_PYTHON} here: {probe.stderr.strip()[-200:]}")
    base = Path(tempfile.mkdtemp(prefix="referee-nonroot-", dir="/tmp"))
    os.chmod(base, 0o755)
    venv = base / "venv"
    subprocess.run([SYSTEM_PYTHON, "-m", "venv", str(venv)], check=True, capture_output=True)
    install = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(ROOT)],
                             capture_output=True, text=True, timeout=600)
    if install.returncode != 0:
        shutil.rmtree(base, ignore_errors=True)
        pytest.skip(f"cannot install into a system-Python venv: {install.stderr.strip()[-200:]}")
    subprocess.run(["chmod", "-R", "a+rX", str(base)], check=True)
    yield base, venv
    shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", CHOSEN)
def test_rogue_as_an_ordinary_user(world, name, mode):
    base, venv = world
    work = Path(tempfile.mkdtemp(dir=base))
    os.chmod(work, 0o777)
    rogue = ROGUES[name]
    if mode not in rogue.modes:
        pytest.skip("an attack on the machine itself: tried inside the sandbox only")
    proc, out, survivors = run_rogue(work, name, mode, rogue, python=str(venv / "bin" / "python"),
                                     prefix=AS_NOBODY, env_extra={"HOME": str(work)})
    check_rogue(rogue, mode, proc, out, survivors)
    assert out.stat().st_uid == 65534  # it really ran as nobody
