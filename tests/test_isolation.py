"""Seat isolation's parts that need no hostile player: the clean
environment and ``pass_env``, the view's allowlist, and what ``match.yaml``
says about how the whole-seat limits were enforced.  The attacks themselves
are in the rogues' gallery (test_rogues.py, test_nonroot.py)."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
import yaml

from conftest import BOARDS, FIRST_CELL, play_match, referee
from referee.core import cgroups, sandbox as sandbox_mod

ENV_PRINTER = '''
import json, os, sys
print(json.dumps(dict(os.environ)), file=sys.stderr)
''' + FIRST_CELL


def test_a_player_gets_a_clean_environment_and_only_what_is_passed():
    environ = {"PATH": "/usr/bin", "LANG": "C.UTF-8", "LC_ALL": "C", "GITHUB_TOKEN": "secret",
               "SSH_AUTH_SOCK": "/run/user/0/agent", "JAVA_HOME": "/opt/jdk", "HOME": "/root"}
    seat = Path("/m/players/p1")
    env = sandbox_mod.player_environment(environ, seat, sandboxed=True, pass_env=["JAVA_HOME", "ABSENT"])
    assert env == {"PATH": "/usr/bin", "LANG": "C.UTF-8", "LC_ALL": "C", "HOME": str(seat),
                   "TMPDIR": "/tmp", "JAVA_HOME": "/opt/jdk"}
    bare = sandbox_mod.player_environment({"TMPDIR": "/scratch"}, seat, sandboxed=False)
    assert bare["TMPDIR"] == "/scratch" and bare["PATH"]  # a PATH even when the referee had none


@pytest.mark.parametrize("mode", ["auto", "none"])
def test_pass_env_from_a_config_reaches_the_player_and_nothing_else_does(tmp_path, mode, monkeypatch):
    program = tmp_path / "env.py"
    program.write_text(ENV_PRINTER)
    config = tmp_path / "match.yaml"
    config.write_text(f"game: cantris\nplayers: ['{sys.executable} {program}', builtin:greedy]\n"
                      f"pass_env: [COURSE_DATA]\nsandbox: {mode}\n")
    monkeypatch.setenv("COURSE_DATA", "/srv/course")
    monkeypatch.setenv("TA_TOKEN", "do-not-leak")
    out = tmp_path / "m"
    proc = referee("play", "--config", config, "--board", BOARDS / "cantris" / "6x3-1.txt",
                   "--seed", "1", "--out", out, "--quiet")
    assert proc.returncode == 0, proc.stderr
    seen = json.loads((out / "players" / "p1" / "stderr.txt").read_text().splitlines()[0])
    assert seen["COURSE_DATA"] == "/srv/course" and "TA_TOKEN" not in seen
    assert seen["HOME"].endswith(os.path.join("players", "p1"))  # its seat folder
    assert set(seen) <= {"PATH", "LANG", "LANGUAGE", "HOME", "TMPDIR", "COURSE_DATA", "PWD", "SHLVL",
                         "_", *(k for k in seen if k.startswith(("LC_", "REFEREE_", "PYENV", "_PYENV")))}


@pytest.mark.parametrize("value, wrong", [("[1, 2]", "expected a list of variable names"),
                                          ("['A-B']", "is not an environment variable name")])
def test_a_bad_pass_env_names_the_file_and_line(tmp_path, value, wrong):
    config = tmp_path / "match.yaml"
    config.write_text(f"game: cantris\nplayers: [builtin:greedy, builtin:random]\npass_env: {value}\n")
    proc = referee("play", "--config", config)
    assert proc.returncode == 2 and f"{config}:3" in proc.stderr and wrong in proc.stderr, proc.stderr


def test_match_yaml_says_how_whole_seat_limits_were_enforced(tmp_path):
    out = tmp_path / "m"
    play_match("cantris", out, "builtin:greedy", "builtin:random", seed=1,
               board=BOARDS / "cantris" / "6x3-1.txt")
    enforced = yaml.safe_load((out / "match.yaml").read_text())["limits_enforced"]
    assert set(enforced) == {"cpu_time", "memory_mb", "processes"}
    if cgroups.available():
        assert all("cgroup v" in how for how in enforced.values())
    else:
        assert "measured by the seat host" in enforced["processes"]


def test_the_view_shows_an_interpreter_installation_and_not_the_home_around_it(tmp_path):
    """A venv's python leads to its base installation wherever it lives (a
    pyenv under /root): both are shown, /root itself is not."""
    venv = tmp_path / "venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "python3").symlink_to(Path(sys.executable).resolve())
    script = tmp_path / "bot" / "bot.py"
    script.parent.mkdir()
    script.write_text("")
    shown = sandbox_mod.exposed_paths([], [str(venv / "python3"), str(script), f"-cp={tmp_path}/bot:/usr/x"])
    assert tmp_path / "venv" in shown and script.parent in shown
    real = Path(sys.executable).resolve()
    if not any(str(real).startswith(p) for p in sandbox_mod.RUNTIME):
        assert any(p in real.parents for p in shown)
    assert Path.home() not in shown and Path("/") not in shown


def test_a_fork_server_finds_the_groups_once_for_its_workers(monkeypatch):
    """cgroups.warm (the fork server's, before it forks a game's worker)
    finds the hierarchy and sweeps stale groups; a worker forked after it
    finds both done, unless its series turned control groups off."""
    looks: list[int] = []
    own = cgroups._own_groups
    monkeypatch.setattr(cgroups, "_own_groups", lambda *a: looks.append(1) or own(*a))
    monkeypatch.setattr(cgroups, "_SWEPT", [])
    cgroups._hierarchy.cache_clear()
    monkeypatch.delenv("REFEREE_CGROUPS", raising=False)
    try:
        cgroups.warm()
        v1 = cgroups.find_hierarchy(own(), cgroups.ROOT, None) is not None
        assert bool(cgroups._SWEPT) == v1
        seen = len(looks)
        pid = os.fork()
        if pid == 0:  # the worker: under v1 it looks at nothing again
            found = cgroups.hierarchy() is not None
            os._exit(0 if not v1 or found and len(looks) == seen else 1)
        assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
        monkeypatch.setenv("REFEREE_CGROUPS", "off")
        assert cgroups.hierarchy() is None
    finally:
        cgroups._hierarchy.cache_clear()


@pytest.mark.skipif(not cgroups.available(), reason="no control groups here")
def test_groups_left_by_a_referee_that_is_gone_are_emptied_and_removed():
    """A referee killed with SIGKILL cannot remove its seats' groups (nor
    kill what a player left in them): the next referee does."""
    import subprocess

    where = cgroups.hierarchy()
    parent = next(iter(where.parents.values()))
    sleeper = subprocess.Popen(["sleep", "1000"])
    # Another test's referee (another xdist worker) may sweep the new group
    # while it is still empty, as it should: then make another one.  Once
    # the sleeper is in it, a sweep by anyone leaves what is asserted below.
    for _ in range(100):
        dead = subprocess.Popen(["true"])
        dead.wait()  # a pid that is no one's now
        stale = parent / f"{cgroups.PREFIX}{dead.pid}-1"
        try:
            stale.mkdir()
            (stale / "cgroup.procs").write_text(str(sleeper.pid))
            break
        except FileNotFoundError:
            continue
    else:
        sleeper.kill()
        pytest.fail("every stale group planted was swept before the sleeper was in it")
    cgroups._SWEPT.clear()
    group = cgroups.SeatGroup.create(64, 8, sandboxed=False)
    try:
        assert not stale.exists()
        assert sleeper.wait(timeout=10) == -9
    finally:
        if group is not None:
            group.remove()
        if sleeper.poll() is None:
            sleeper.kill()
