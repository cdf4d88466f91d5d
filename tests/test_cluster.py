"""Tournaments on a real Dask cluster on loopback: a scheduler and two
workers started with the standard ``dask scheduler`` / ``dask worker``
commands.  Standings must be byte-identical to a local run; a worker killed
mid-game costs only that game."""
from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

# Whether distributed is installed, without importing it: its import costs
# every test worker ~1 s of CPU at collection; the fixture imports it.
if importlib.util.find_spec("distributed") is None:
    pytest.skip("distributed is not installed", allow_module_level=True)
psutil = pytest.importorskip("psutil")

from conftest import referee  # noqa: E402
from test_series import outcome  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BOARD = ROOT / "boards" / "cantris" / "6x3-1.txt"
GREEDY = ROOT / "players" / "cantris" / "greedy.py"
OUTPUTS = ("standings.csv", "standings.md", "games.csv")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Dask's watching of itself, which no test here looks at: an event-loop tick
# every 20 ms in each process, the workers' profiler sampling every 10 ms and
# a system monitor twice a second cost the idle cluster (five processes with
# the nannies) ~0.18 s of CPU a second while the module runs; ~0.04 s so.
QUIET_DASK = {"DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL": "1s",
              "DASK_DISTRIBUTED__ADMIN__SYSTEM_MONITOR__INTERVAL": "5s",
              "DASK_DISTRIBUTED__ADMIN__SYSTEM_MONITOR__GIL__ENABLED": "False",
              "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False"}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """``tcp://127.0.0.1:PORT`` with two single-threaded workers; every
    process started here is stopped (by its process group) at the end."""
    from distributed import Client

    folder = tmp_path_factory.mktemp("dask")
    dask = str(Path(sys.executable).with_name("dask"))
    address = f"tcp://127.0.0.1:{free_port()}"
    common = {"cwd": folder, "start_new_session": True, "stdout": subprocess.DEVNULL,
              "stderr": subprocess.DEVNULL,  # the scheduler's scratch here, not in /tmp
              "env": dict(os.environ, DASK_TEMPORARY_DIRECTORY=str(folder), **QUIET_DASK)}
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1],
                               "--no-dashboard"], **common)]
    try:
        for n in range(2):
            procs.append(subprocess.Popen([dask, "worker", address, "--nthreads", "1", "--host", "127.0.0.1",
                                           "--no-dashboard", "--local-directory", str(folder / f"w{n}")],
                                          **common))
        with Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=30)
        yield address
    finally:
        # SIGTERM first: dask's processes then shut down their own way, and
        # multiprocessing's resource tracker unlinks the semaphores they made
        # (SIGKILL left 12 in /dev/shm each run).  SIGKILL what is left.
        for signum, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, None)):
            for proc in procs:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signum)
            for proc in procs:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(wait)


def write_config(folder: Path, entrants: list[tuple[str, str]], boards=(BOARD,)) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    config = {"game": "cantris", "boards": [str(b) for b in boards], "format": "round_robin",
              "seed": 3, "out": "out", "limits": {"soft_time": 20},
              "entrants": [{"name": n, "command": c} for n, c in entrants]}
    path = folder / "class.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


ENTRANTS = [("greedy", "builtin:greedy"), ("random", "builtin:random")]


def test_cluster_standings_equal_a_local_run_and_resume_works(tmp_path, cluster):
    local = referee("tournament", write_config(tmp_path / "local", ENTRANTS), "--jobs", "2")
    assert local.returncode == 0, local.stderr
    remote = referee("tournament", write_config(tmp_path / "remote", ENTRANTS), "--cluster", cluster)
    assert remote.returncode == 0, remote.stderr
    for name in OUTPUTS:
        assert (tmp_path / "remote" / "out" / name).read_bytes() == \
            (tmp_path / "local" / "out" / name).read_bytes(), name
    games = sorted((tmp_path / "remote" / "out" / "games").iterdir())
    assert len(games) == 2 and all((g / "result.yaml").is_file() and (g / "log.jsonl").is_file()
                                   for g in games)
    verified = referee("replay", games[0], "--verify")
    assert verified.returncode == 0, verified.stderr

    # resume: a cluster tournament stopped after one game finishes with --resume
    from referee.tournament.cluster import DaskPlay
    from referee.tournament.config import load_config
    from referee.tournament.runner import GameFailed, Tournament
    import io

    class StopAfterOne(DaskPlay):
        calls = 0

        def __call__(self, job, spec):
            StopAfterOne.calls += 1
            if StopAfterOne.calls > 1:
                raise GameFailed("stopped by the test")
            return super().__call__(job, spec)

    config = write_config(tmp_path / "resumed", ENTRANTS)
    play = StopAfterOne(cluster)
    try:
        first = Tournament(load_config(config)).run(1, False, play=play, log=io.StringIO())
    finally:
        play.close()
    assert first.failure and first.games == 1
    resumed = referee("tournament", config, "--resume", "--cluster", cluster)
    assert resumed.returncode == 0, resumed.stderr
    for name in OUTPUTS:
        assert (tmp_path / "resumed" / "out" / name).read_bytes() == \
            (tmp_path / "local" / "out" / name).read_bytes(), name


def game_processes() -> list:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        cmdline = proc.info["cmdline"] or []
        if "referee.tournament.worker" in cmdline and "referee-game-" in " ".join(cmdline):
            found.append(proc)
    return found


def test_a_worker_killed_mid_game_costs_only_that_game(tmp_path, cluster):
    slow = tmp_path / "slow.py"
    slow.write_text("import runpy, sys, time\ntime.sleep(0.4)\n"
                    f"sys.argv[0] = {str(GREEDY)!r}\nrunpy.run_path({str(GREEDY)!r}, run_name='__main__')\n")
    entrants = [("slow", f"{sys.executable} {slow}"), ("random", "builtin:random")]
    boards = (BOARD,)
    local = referee("tournament", write_config(tmp_path / "local", entrants, boards), "--jobs", "2")
    assert local.returncode == 0, local.stderr

    config = write_config(tmp_path / "remote", entrants, boards)
    exe = Path(sys.executable).with_name("referee")
    run = subprocess.Popen([str(exe), "tournament", str(config), "--cluster", cluster],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed = None
    deadline = time.monotonic() + 60
    while killed is None and time.monotonic() < deadline and run.poll() is None:
        for game in game_processes():
            try:
                worker = game.parent()  # the Dask worker process running this task
                scratch = set(re.findall(r'[^"\s]*referee-game-\w+', " ".join(game.cmdline())))
                worker.kill()
                killed = game
                break
            except psutil.NoSuchProcess:
                continue
        time.sleep(0.05)
    out, err = run.communicate(timeout=120)
    assert killed is not None, "no game was seen running on a worker"
    for folder in scratch:  # the killed worker's scratch folder, which nothing else removes
        shutil.rmtree(folder, ignore_errors=True)
    assert run.returncode == 0, err
    assert not killed.is_running() or killed.status() == psutil.STATUS_ZOMBIE
    journal = (tmp_path / "remote" / "out" / "journal.jsonl").read_text().splitlines()
    assert len(journal) == 2  # every game once: the lost one was played again, nothing else
    for name in OUTPUTS:
        assert (tmp_path / "remote" / "out" / name).read_bytes() == \
            (tmp_path / "local" / "out" / name).read_bytes(), name


def test_series_on_the_cluster_plays_the_same_games(tmp_path, cluster):
    summaries = {}
    for name, extra in (("local", ["--jobs", "2"]), ("remote", ["--cluster", cluster])):
        proc = referee("play", "cantris", "--player", "builtin:greedy", "--player", "builtin:random",
                       "--games", "2", "--seed", "6", "--board", BOARD, "--out", tmp_path / name, *extra)
        assert proc.returncode == 0, proc.stderr
        summaries[name] = (proc.stdout.split("series folder")[0],
                           (tmp_path / name / "games.csv").read_bytes(),
                           [outcome(tmp_path / name / "games" / g) for g in ("p0001-b1-s1", "p0001-b1-s2")])
    assert summaries["remote"] == summaries["local"]


def test_unreachable_cluster_is_an_input_error():
    from referee.core.errors import InputError
    from referee.tournament.cluster import DaskPlay

    address = f"tcp://127.0.0.1:{free_port()}"
    with pytest.raises(InputError, match=f"--cluster {address}: cannot reach the Dask scheduler"):
        DaskPlay(address, timeout=1)



@pytest.mark.parametrize("address, says", [
    ("foo", "missing port number"), ("tcp://:8786", "no host"), ("http://h:1", "unknown address scheme"),
    ("h:99999", "port 99999 is not between 1 and 65535"),
])
def test_a_malformed_cluster_address_is_one_line_at_once(tmp_path, address, says):
    """Dask's Client took 'foo', failed, then hung 30 s closing itself and
    printed a TimeoutError traceback after the error line."""
    from grading_kit import write_config

    (tmp_path / "t.yaml").write_text("game: cantris\nformat: round_robin\nentrants:\n"
                                     "  - {name: a, command: 'builtin:random'}\n"
                                     "  - {name: b, command: 'builtin:greedy'}\n")
    commands = [("play", "cantris", "--player", "builtin:random", "--player", "builtin:random",
                 "--games", "2"),
                ("tournament", "t.yaml"),
                ("grade", write_config(tmp_path), "--submission", "builtin:random")]
    for command in commands:
        started = time.monotonic()
        proc = referee(*command, "--cluster", address, cwd=tmp_path, timeout=60)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"referee: error: --cluster {address}: not a "
                                                       "scheduler address") and says in lines[0], lines
        assert time.monotonic() - started < 15


def test_a_task_needs_no_shared_filesystem_for_boards_or_results(tmp_path):
    """What a worker runs, called directly: the board path does not exist on
    this "worker", so the board text sent with the task is played; the match
    folder comes back as bytes and unpacks where the tournament wants it."""
    from referee.core.match import MatchSpec
    from referee.tournament.cluster import play_remote, unpack
    from referee.tournament.worker import spec_to_json

    spec = MatchSpec(game="cantris", players=["builtin:greedy", "builtin:random"],
                     board=tmp_path / "elsewhere" / "6x3-1.txt", seed=4, out=tmp_path / "nowhere" / "g",
                     names=["greedy", "random"], quiet=True, replace=True, base_dir=tmp_path)
    code, blob, tail = play_remote(spec_to_json(spec), "6x3-1.txt", BOARD.read_bytes())
    assert code == 0, tail
    assert not (tmp_path / "nowhere").exists()  # nothing written at the tournament's paths
    target = tmp_path / "tournament" / "games" / "g1"
    unpack(blob, target)
    result = yaml.safe_load((target / "result.yaml").read_text())
    assert result["steps"] > 0 and (target / "log.jsonl").is_file()
    assert (target / "board.txt").read_bytes() == BOARD.read_bytes()
    assert not [p for p in target.parent.iterdir() if p.name.startswith(".")]  # no scratch left


@pytest.mark.parametrize("member", ["../escape.txt", "game/../../escape.txt", "other/x.txt", "link"])
def test_unpack_refuses_entries_outside_the_game_folder(tmp_path, member):
    import io
    import tarfile

    from referee.tournament.cluster import unpack
    from referee.tournament.runner import GameFailed

    blob = io.BytesIO()
    with tarfile.open(fileobj=blob, mode="w:gz") as tar:
        info = tarfile.TarInfo(member)
        if member == "link":
            info.name, info.type, info.linkname = "game/link", tarfile.SYMTYPE, "/etc/passwd"
            tar.addfile(info)
        else:
            data = b"x"
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    with pytest.raises(GameFailed, match="unexpected entry"):
        unpack(blob.getvalue(), tmp_path / "games" / "g")
    assert not (tmp_path / "escape.txt").exists() and not (tmp_path / "games" / "g").exists()
