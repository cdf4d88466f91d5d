"""Warm seats (referee.core.warmseats): a series keeps each entrant's sandboxed
seat host for its next games, and nothing a game's player leaves reaches the
next game's player, who is a new process in an empty seat folder.

Real series of real, hostile player programs; whether a host was kept is
read from inside (the sandbox's pid namespace and its pid 1's start time:
two hosts that start in the same clock tick are alive together, so their
namespaces differ), so these tests do not depend on timing."""
from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path

import pytest
import yaml

from referee.core import cgroups, sandbox, warmseats

from conftest import referee

ROOT = Path(__file__).resolve().parents[1]
BOARD = ROOT / "boards" / "cantris" / "6x3-1.txt"
SDK = ROOT / "players" / "sdk" / "python"

needs_bwrap = pytest.mark.skipif(not sandbox.resolve("auto").on, reason="bwrap cannot start here")

# A kept-alive player that, when it starts, reports what it finds of earlier
# games (it is a new process in a fresh seat: it should find nothing), and
# at each step leaves all it can behind: files in its seat, home, /tmp and
# /dev/shm (a folder it made unreadable too), a detached process, its cwd,
# umask and rlimits changed, its host (pid 1 of the sandbox) sent SIGSTOP and
# SIGKILL, keys in its user, user-session and persistent keyrings (the kernel
# keeps those per user and user namespace: a reset empties them).  With
# "dropped" it also leaves a System V shared memory segment
# and an extended attribute on its seat folder, which its host and the
# referee find: that host is not kept.
HOSTILE = f"""
import ctypes, json, os, resource, signal, sys, time
sys.path.insert(0, {str(SDK)!r})
from referee_sdk import run, save_decision

HOME = os.environ["HOME"]
MODE = sys.argv[1]
LIBC = ctypes.CDLL(None, use_errno=True)
KEYCTL = {{"x86_64": 250, "aarch64": 219}}.get(os.uname().machine)
KEYRINGS = {{"user": -4, "user-session": -5}}


def keyrings():
    found = dict(KEYRINGS)
    if KEYCTL:
        persistent = LIBC.syscall(KEYCTL, 22, -1, -2)  # KEYCTL_GET_PERSISTENT, linked into our process keyring
        if persistent > 0:
            found["persistent"] = persistent
    return found


def report():
    left = []
    for name in os.listdir(HOME):
        if name.startswith("leftover"):
            left.append("seat: " + name)
    for folder in ("/tmp", "/dev/shm"):  # the sandbox's own tmpfs, not what is mounted in it (a venv, a seat)
        device = os.lstat(folder).st_dev
        for path, dirs, files in os.walk(folder):
            dirs[:] = [d for d in dirs if os.lstat(f"{{path}}/{{d}}").st_dev == device]
            left += [f"{{path}}/{{name}}" for name in dirs + files if name.startswith("leftover")]
    others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid())]
    if others:
        left.append("processes " + " ".join(others))
    for kind in ("shm", "sem", "msg"):
        with open(f"/proc/sysvipc/{{kind}}") as f:
            if len(f.read().splitlines()) > 1:
                left.append("sysv " + kind)
    if os.listxattr(HOME):
        left.append("xattrs on the seat folder")
    for name, keyring in keyrings().items() if KEYCTL else ():
        if LIBC.syscall(KEYCTL, 10, keyring, b"user", b"leftover-key", 0) > 0:  # KEYCTL_SEARCH
            left.append("a key in the " + name + " keyring")
    mask = os.umask(0o022)
    os.umask(mask)
    with open("/proc/1/stat") as f:  # the host: its pid namespace and start time (a clock tick)
        host = os.readlink("/proc/self/ns/pid") + " " + f.read().rsplit(")", 1)[1].split()[19]
    facts = {{"umask": mask, "cwd": os.getcwd(), "home": HOME,
              "nofile": resource.getrlimit(resource.RLIMIT_NOFILE),
              "core": resource.getrlimit(resource.RLIMIT_CORE),
              "modes": [oct(os.stat(p).st_mode) for p in ("/tmp", "/dev/shm", HOME)]}}
    print("REPORT " + json.dumps({{"left": left, "facts": facts, "host": host}}), file=sys.stderr, flush=True)


def mess():
    for path in (HOME + "/leftover-seat", "/tmp/leftover-tmp", "/dev/shm/leftover-shm", os.path.expanduser("~/leftover-home")):
        with open(path, "w") as f:
            f.write("left behind")
    try:
        os.makedirs("/tmp/leftoverdir/deeper")
        open("/tmp/leftoverdir/deeper/file", "w").close()
        os.chmod("/tmp/leftoverdir/deeper", 0)
        os.chmod("/tmp/leftoverdir", 0)
    except OSError:
        pass  # made at an earlier step
    os.chmod("/tmp", 0o700)
    os.umask(0o777)
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if os.fork() == 0:  # a detached process
        os.setsid()
        if os.fork() == 0:
            os.chdir("/tmp")
            time.sleep(1000)
        os._exit(0)
    os.wait()
    for keyring in keyrings().values() if KEYCTL else ():
        LIBC.syscall(248, b"user", b"leftover-key", b"left", 4, keyring) if KEYCTL == 250 else \
            LIBC.syscall(217, b"user", b"leftover-key", b"left", 4, keyring)  # add_key
        LIBC.syscall(KEYCTL, 5, keyring, 0x3F000000)  # KEYCTL_SETPERM: its owner may no longer clear it
    for sig in (signal.SIGSTOP, signal.SIGKILL):
        try:
            os.kill(1, sig)
        except OSError:
            pass
    if MODE == "dropped":
        libc = ctypes.CDLL(None, use_errno=True)
        libc.shmget(0, 4096, 0o1000 | 0o600)  # IPC_PRIVATE, IPC_CREAT
        try:
            os.setxattr(HOME, "user.leftover", b"1")
        except OSError:
            pass
    os.chdir("/tmp")


def play(step):
    os.chdir(HOME)
    board = [line.split() for line in open("Board.txt")]
    for r in range(len(board) - 1, -1, -1):
        for c, v in enumerate(board[r]):
            if v != "0":
                save_decision(r, c)
                mess()
                return


report()
run(play)
"""


def series(tmp_path: Path, out: str, *players: str, games: int = 6, env: dict | None = None) -> Path:
    args = ["play", "cantris", "--board", str(BOARD), "--games", str(games), "--jobs", "1",
            "--seed", "3", "--sandbox", "bwrap", "--out", str(tmp_path / out)]
    for player in players:
        args += ["--player", player]
    proc = referee(*args, env=env)
    assert proc.returncode == 0, proc.stderr
    games_folder = tmp_path / out / "games"
    assert not (games_folder / ".seats").exists()  # every slot is gone with its host
    return games_folder


def reports(game: Path) -> dict[str, dict]:
    """{entrant: its player's report} of one game (its match.yaml names the seats)."""
    names = [p["command"][-1] for p in yaml.safe_load((game / "match.yaml").read_text())["players"]]
    found = {}
    for seat, name in enumerate(names, start=1):
        lines = [line for line in (game / "players" / f"p{seat}" / "stderr.txt").read_text().splitlines()
                 if line.startswith("REPORT ")]
        assert len(lines) == 1, (game, seat, lines)  # one player process for the whole game
        found[name] = json.loads(lines[0][len("REPORT "):])
    return found


@needs_bwrap
def test_a_hostile_players_leftovers_never_reach_its_next_game_on_a_kept_host(tmp_path):
    program = tmp_path / "hostile.py"
    program.write_text(HOSTILE)
    games = series(tmp_path, "out", f"persistent:{os.sys.executable} {program} kept",
                   f"persistent:{os.sys.executable} {program} dropped")
    folders = sorted(p for p in games.iterdir() if p.is_dir() and not p.name.startswith("."))
    assert len(folders) == 6
    hosts: dict[str, list[str]] = {"kept": [], "dropped": []}
    facts = []
    for game in folders:
        for name, report in reports(game).items():
            assert report["left"] == [], (game.name, name, report["left"])
            hosts[name].append(report["host"])
            facts.append({**report["facts"], "home": None, "cwd": report["facts"]["cwd"] == report["facts"]["home"]})
        log = [json.loads(line) for line in (game / "log.jsonl").read_text().splitlines()]
        assert {entry["verdict"] for entry in log} == {"OK"}, game
        # Its files are in the game's own seat folders, as a fresh host's would be.
        for seat in (1, 2):
            kept = sorted(os.listdir(game / "players" / f"p{seat}"))
            assert {"leftover-seat", "leftover-home", "Board.txt", "stdout.txt", "stderr.txt", "step_logs"} <= set(kept)
        verified = referee("replay", str(game), "--verify")
        assert verified.returncode == 0, verified.stdout + verified.stderr
    # Every player found the same process state as the first game's, on fresh hosts.
    assert all(f == facts[0] for f in facts) and facts[0]["cwd"], facts
    assert len(set(hosts["kept"])) < len(hosts["kept"])  # its host was kept for later games
    # The one that left what a reset finds (System V IPC, an attribute on its
    # seat folder) had a fresh host every game.
    assert len(set(hosts["dropped"])) == len(hosts["dropped"])


TRIVIAL = f"""
import sys
sys.path.insert(0, {str(SDK)!r})
from referee_sdk import run, save_decision

def play(step):
    board = [line.split() for line in open("Board.txt")]
    for r in range(len(board) - 1, -1, -1):
        for c, v in enumerate(board[r]):
            if v != "0":
                save_decision(r, c)
                print("played", r, c)
                return

run(play)
"""
TIMINGS = ("wall_ms", "cpu_ms", "peak_kb", "start_ms", "bank_ms", "grace_ms", "prev")


def folder_contents(game: Path) -> dict[str, object]:
    """Every file of a game folder: the log without timings (and the hash
    chain over them), result.yaml without the last hash, the rest as bytes."""
    found: dict[str, object] = {}
    for path in sorted(game.rglob("*")):
        if path.is_dir():
            continue
        name = str(path.relative_to(game))
        if name == "log.jsonl":
            found[name] = [{k: v for k, v in json.loads(line).items() if k not in TIMINGS}
                           for line in path.read_text().splitlines()]
        elif name == "result.yaml":
            found[name] = {k: v for k, v in yaml.safe_load(path.read_text()).items() if k != "last_hash"}
        else:
            found[name] = path.read_bytes()
    return found


@needs_bwrap
@pytest.mark.parametrize("kind", ["persistent", "spawned"])
def test_a_series_on_warm_seats_writes_what_fresh_seats_write(tmp_path, kind):
    program = tmp_path / "trivial.py"
    program.write_text(TRIVIAL if kind == "persistent" else
                       TRIVIAL.replace("run(play)", "import os; play(int(os.environ['REFEREE_STEP']))"))
    player = f"{'persistent:' if kind == 'persistent' else ''}{os.sys.executable} {program}"
    warm = series(tmp_path, "warm", player, player, games=4)
    fresh = series(tmp_path, "fresh", player, player, games=4, env={**os.environ, "REFEREE_WARM_SEATS": "off"})
    names = sorted(p.name for p in warm.iterdir() if not p.name.startswith("."))
    assert names == sorted(p.name for p in fresh.iterdir() if not p.name.startswith("."))
    for name in names:
        assert folder_contents(warm / name) == folder_contents(fresh / name), name


# A kept-alive player whose start-up burns 0.3 s of CPU in seat 2 only; the
# seats are swapped game after game, so a kept host starts it quickly in one
# game and slowly in the next, and the other way round.
SLOW_IN_SEAT_2 = TRIVIAL.replace("run(play)", """import os, time
if os.environ["REFEREE_PLAYER"] == "2":
    end = time.process_time() + 0.3
    while time.process_time() < end:
        pass
run(play)""")


@needs_bwrap
def test_a_kept_host_waits_for_a_start_up_slower_than_those_it_has_seen(tmp_path):
    # A kept host begins to look at a starting player late, at a fraction of
    # the quickest start-up it has seen (seathost.prestart): a slower one is
    # still waited for until it is idle, and never charged to its first step.
    program = tmp_path / "slow.py"
    program.write_text(SLOW_IN_SEAT_2)
    player = f"persistent:{os.sys.executable} {program}"
    games = series(tmp_path, "out", player, player, games=4)
    folders = sorted(p for p in games.iterdir() if p.is_dir() and not p.name.startswith("."))
    assert len(folders) == 4
    for game in folders:
        log = [json.loads(line) for line in (game / "log.jsonl").read_text().splitlines()]
        assert {entry["verdict"] for entry in log} == {"OK"}, game
        first = {seat: next(r for r in log if r["player"] == seat) for seat in (1, 2)}
        assert first[2]["start_ms"] >= 280 and first[2]["cpu_ms"] < 280, (game.name, first[2])
        assert first[1]["cpu_ms"] < 280, (game.name, first[1])


def _kept_cat(tmp_path: Path, n: int) -> tuple[subprocess.Popen, warmseats.Lease]:
    """A stand-in seat host (``cat``: it ends when its input does) as a worker hands it over."""
    proc = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    slot = warmseats.new_slot(tmp_path)
    lease = warmseats.Lease(proc.pid, os.dup(proc.stdin.fileno()), os.dup(proc.stdout.fileno()),
                            os.pidfd_open(proc.pid), str(slot))
    proc.stdin.close()
    proc.stdout.close()
    return proc, lease


def test_the_fork_server_keeps_a_bounded_number_of_live_hosts(tmp_path, monkeypatch):
    keeper = warmseats.Keeper(subreaper=False)  # (not this test process)
    server, worker = warmseats.Keeper.channel()
    monkeypatch.setattr(warmseats, "_channel", [worker])
    hosts = []
    try:
        for n in range(warmseats.MAX_KEPT + 1):
            proc, lease = _kept_cat(tmp_path, n)
            hosts.append((proc, lease.slot))
            assert warmseats.give("k", lease)
            assert keeper.handle(server)
        # The one given back first is ended (its input closed), its slot removed.
        assert hosts[0][0].wait(timeout=30) == 0
        assert not Path(hosts[0][1]).exists()
        assert all(proc.poll() is None for proc, _ in hosts[1:])
        # A kept host that ended meanwhile is never handed out.
        hosts[-1][0].kill()
        hosts[-1][0].wait()

        def take(key):
            worker.sendall(b"take " + key.encode())
            assert keeper.handle(server)
            data, fds, _, _ = socket.recv_fds(worker, warmseats.MESSAGE, 3)
            for fd in fds:
                os.close(fd)
            return None if data == b"none" else json.loads(data)["pid"]

        assert take("k") == hosts[-2][0].pid
        assert take("other") is None
    finally:
        keeper.close()
        for proc, _ in hosts:
            proc.kill()
            proc.wait()


# Without a sandbox (where a control group holds each seat): a kept-alive
# player that reports its host (its parent) and any process of its seat it
# did not start, and leaves a detached process, a changed umask, rlimits and
# cwd at each step; "dropped" also kills its host at its first step.
HOSTILE_NONE = f"""
import json, os, resource, signal, sys, time
sys.path.insert(0, {str(SDK)!r})
from referee_sdk import run, save_decision

HOME = os.environ["HOME"]
MODE = sys.argv[1]
HOST = os.getppid()


def tree(pid):
    found = []
    for task in os.listdir(f"/proc/{{pid}}/task"):
        with open(f"/proc/{{pid}}/task/{{task}}/children") as f:
            for child in map(int, f.read().split()):
                found += [child, *tree(child)]
    return found


with open(f"/proc/{{HOST}}/stat") as f:
    host = str(HOST) + " " + f.read().rsplit(")", 1)[1].split()[19]
mask = os.umask(0o022)
os.umask(mask)
left = [pid for pid in tree(HOST) if pid != os.getpid()]
facts = {{"umask": mask, "cwd": os.getcwd() == HOME, "nofile": resource.getrlimit(resource.RLIMIT_NOFILE),
          "core": resource.getrlimit(resource.RLIMIT_CORE)}}
print("REPORT " + json.dumps({{"left": left, "facts": facts, "host": host}}), file=sys.stderr, flush=True)


def play(step):
    os.chdir(HOME)
    board = [line.split() for line in open("Board.txt")]
    for r in range(len(board) - 1, -1, -1):
        for c, v in enumerate(board[r]):
            if v != "0":
                save_decision(r, c)
                os.umask(0o777)
                resource.setrlimit(resource.RLIMIT_NOFILE, (64, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
                resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
                if os.fork() == 0:
                    os.setsid()
                    if os.fork() == 0:
                        time.sleep(1000)
                    os._exit(0)
                os.wait()
                os.chdir("/")
                if MODE == "dropped":
                    os.kill(HOST, signal.SIGKILL)
                return


run(play)
"""


@pytest.mark.skipif(not cgroups.available(), reason="no control groups here: seats without a sandbox are not kept")
def test_without_a_sandbox_a_kept_host_starts_each_game_clean(tmp_path):
    program = tmp_path / "hostile.py"
    program.write_text(HOSTILE_NONE)
    args = ["play", "cantris", "--board", str(BOARD), "--games", "6", "--jobs", "1", "--seed", "3",
            "--sandbox", "none", "--out", str(tmp_path / "out"),
            "--player", f"persistent:{os.sys.executable} {program} kept",
            "--player", f"persistent:{os.sys.executable} {program} dropped"]
    proc = referee(*args)
    assert proc.returncode == 0, proc.stderr
    games = tmp_path / "out" / "games"
    assert not (games / ".seats").exists()
    hosts: dict[str, list[str]] = {"kept": [], "dropped": []}
    facts = []
    for game in sorted(p for p in games.iterdir() if not p.name.startswith(".")):
        names = [p["command"][-1] for p in yaml.safe_load((game / "match.yaml").read_text())["players"]]
        for seat, name in enumerate(names, start=1):
            lines = [line for line in (game / "players" / f"p{seat}" / "stderr.txt").read_text().splitlines()
                     if line.startswith("REPORT ")]
            assert lines, (game, seat)
            report = json.loads(lines[0][len("REPORT "):])  # the game's first player process
            assert report["left"] == [], (game.name, name, report)
            hosts[name].append(report["host"])
            facts.append(report["facts"])
        log = [json.loads(line) for line in (game / "log.jsonl").read_text().splitlines()]
        assert all(entry["verdict"] == "OK" for entry in log if entry["player"] == names.index("kept") + 1)
    assert all(f == facts[0] for f in facts) and facts[0]["cwd"], facts
    assert len(set(hosts["kept"])) < len(hosts["kept"])  # kept for later games
    assert len(set(hosts["dropped"])) == len(hosts["dropped"])  # its host was killed: a fresh one each game
