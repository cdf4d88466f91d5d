"""The test launcher (tests/launcher.py) stands in for the real `referee`
command: the same exit code, output and errors, from a fork of one warm
process that is single-threaded and caches nothing but the registry."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

import launcher
from conftest import BOARDS

pytestmark = pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="the launcher needs Linux (pidfd)")


def both(tmp_path: Path, *args: str, input: str | None = None, env: dict | None = None):
    """(launched, real): the command run each way, each in a working folder of its own."""
    results = []
    for way in ("launched", "real"):
        cwd = tmp_path / way
        cwd.mkdir()
        if way == "launched":
            results.append(launcher.run(args, cwd=cwd, input=input, env=env, timeout=120))
        else:
            results.append(subprocess.run([str(launcher.REFEREE), *map(str, args)], cwd=cwd, input=input, env=env,
                                          capture_output=True, text=True, timeout=120))
    launched, real = results
    assert launched.args == real.args
    assert (launched.returncode, untimed(launched.stdout), launched.stderr) == \
        (real.returncode, untimed(real.stdout), real.stderr)
    return launched


def untimed(text: str) -> str:
    """A match's output without the milliseconds each step took."""
    return re.sub(r"\b\d+ ms\b", "N ms", text)


@pytest.mark.parametrize("args, code", [
    (("--version",), 0),
    (("games",), 0),
    (("play", "nonesuch"), 2),  # an input error: one line on stderr
    (("frobnicate",), 2),  # click's usage error
    (("replay", "no-such-folder", "--verify"), 2),
])
def test_a_launched_command_is_the_real_one(tmp_path, args, code):
    assert both(tmp_path, *args).returncode == code


def test_a_launched_match_reads_stdin_and_writes_relative_to_its_folder(tmp_path):
    # A human seat reads its moves from stdin (a garbage line, then a move, then
    # end of input); the match folder is relative to the working folder.
    proc = both(tmp_path, "play", "cantris", "--player", "human", "--player", "builtin:greedy",
                "--board", BOARDS / "cantris" / "6x3-1.txt", "--seed", "4", "--out", "m", "--no-color",
                input="hello\n0 0\n")
    assert proc.returncode == 0 and "not accepted" in proc.stdout
    assert (tmp_path / "launched" / "m" / "log.jsonl").read_text() != ""
    launched, real = ([line for line in (tmp_path / way / "m" / "result.yaml").read_text().splitlines()
                       if not line.startswith("last_hash:")]  # the log's hash chain covers timings
                      for way in ("launched", "real"))
    assert launched == real


def test_the_command_gets_the_requests_environment_whole(tmp_path, make_player):
    token = uuid.uuid4().hex
    player = make_player("env", """
        import json, os
        from pathlib import Path
        Path(os.environ["TOKEN_FILE"]).write_text(json.dumps(sorted(os.environ)))
        print(0, 0, file=open("decision.txt", "w"))
        """)
    env = {k: v for k, v in os.environ.items() if k != "HOME"}
    env.update(TOKEN_FILE=str(tmp_path / "seen.json"), LAUNCHER_TOKEN=token)
    proc = launcher.run(["play", "cantris", "--player", player, "--player", "builtin:random",
                         "--board", BOARDS / "cantris" / "6x3-1.txt", "--seed", "1", "--quiet",
                         "--out", tmp_path / "m", "--pass-env", "TOKEN_FILE", "--pass-env", "LAUNCHER_TOKEN",
                         "--sandbox", "none"], env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    seen = (tmp_path / "seen.json").read_text()
    assert "LAUNCHER_TOKEN" in seen


def test_a_timeout_kills_the_command_and_says_so(tmp_path, make_player):
    token = uuid.uuid4().hex
    sleeper = make_player("sleeper", f"import time  # {token}\ntime.sleep(600)\n")
    start = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        launcher.run(["play", "cantris", "--player", sleeper, "--player", "builtin:random",
                      "--time-limit", "300", "--seed", "1", "--quiet", "--out", tmp_path / "m"], timeout=3)
    assert time.monotonic() - start < 60
    # The referee is gone, so its seat hosts end their players (no luck involved: wait until they are gone).
    for _ in range(600):
        if not any(token.encode() in _cmdline(pid) for pid in os.listdir("/proc") if pid.isdigit()):
            break
        time.sleep(0.1)
    else:
        pytest.fail("the sleeping player outlived its killed referee")


def _cmdline(pid: str) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes() + Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return b""


def test_the_warm_process_has_one_thread_and_caches_only_the_registry():
    assert launcher.run(["--version"]).returncode == 0
    server = launcher._get_server()
    if server is None:
        pytest.skip("the launcher is off (REFEREE_TEST_LAUNCHER=0) or could not start")
    assert os.listdir(f"/proc/{server.proc.pid}/task") == [str(server.proc.pid)]
    caches = subprocess.run([sys.executable, "-c", "import launcher; launcher._warm(); "
                             "print(*launcher.filled_caches())"], cwd=Path(launcher.__file__).parent,
                            capture_output=True, text=True, check=True).stdout.split()
    assert caches == ["referee.core.registry.entries", "referee.core.registry.get_game"]


def test_start_up_variables_get_a_warm_process_of_their_own(tmp_path):
    # ... and only those of the command: the warm process outlives it, and a
    # test may look for processes that carry what it gave its command.
    token = f"LAUNCHER_TOKEN={uuid.uuid4().hex}"
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "LAUNCHER_TOKEN": token.partition("=")[2]}
    before = launcher.cpu_seconds
    assert launcher.run(["--version"], env=env).returncode == 0
    assert launcher.cpu_seconds == before  # the first such command: a real process
    assert launcher.run(["games"], env=env).returncode == 0
    assert launcher.cpu_seconds > before  # then a warm process started with them
    server = launcher._get_server(env)
    if server is None:
        pytest.skip("the launcher is off (REFEREE_TEST_LAUNCHER=0) or could not start")
    environ = Path(f"/proc/{server.proc.pid}/environ").read_bytes().split(b"\0")
    assert f"PYTHONPATH={tmp_path}".encode() in environ and token.encode() not in environ


def test_the_off_switch_means_a_real_process(monkeypatch):
    before = launcher.cpu_seconds
    monkeypatch.setenv("REFEREE_TEST_LAUNCHER", "0")
    assert launcher.run(["--version"]).stdout.startswith("referee, version")
    assert launcher.cpu_seconds == before
