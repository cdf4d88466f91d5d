"""Real tournaments of built-in players: every game a real match in its own
process; killed and resumed."""
from __future__ import annotations

import contextlib
import csv
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from conftest import double_elimination_of_four, referee

ROOT = Path(__file__).resolve().parents[1]
BOARD = ROOT / "boards" / "cantris" / "6x3-1.txt"


def write_config(folder: Path, fmt: str, entrants: list[tuple[str, str]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    config = {"game": "cantris", "boards": str(BOARD), "format": fmt, "seed": 11, "out": "out",
              "limits": {"soft_time": 10},
              "entrants": [{"name": n, "command": c} for n, c in entrants]}
    path = folder / "class.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def tournament(config: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "referee", "tournament", str(config), *args]


def journal_keys(out: Path) -> list[str]:
    path = out / "journal.jsonl"
    if not path.exists():
        return []
    return [yaml.safe_load(line)["key"] for line in path.read_text().splitlines() if line.endswith("}")]


def running_in_group(pgid: int) -> list[int]:
    """Processes of group ``pgid`` that still run.  Zombies do not count: an
    orphan is reaped by init, which in some containers takes its time."""
    if sys.platform != "linux":
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return []
        return [pgid]
    running = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        state, group = fields[0], int(fields[2])
        if group == pgid and state != "Z":
            running.append(int(entry))
    return running


def test_round_robin_of_builtin_players(tmp_path):
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "broken.py").write_text("import sys\nsys.exit(3)\n")
    config = write_config(tmp_path, "round_robin", [
        ("rand", "builtin:random"), ("greedy", "builtin:greedy"), ("broken", "python3 bots/broken.py")])
    run = referee("tournament", config, "--jobs", "2", timeout=120)
    assert run.returncode == 0, run.stderr
    out = tmp_path / "out"
    games = list(csv.DictReader((out / "games.csv").open()))
    assert len(games) == 3 * 2
    for game in games:
        result = yaml.safe_load((out / game["folder"] / "result.yaml").read_text())
        assert result["game"] == "cantris"
        assert (out / game["folder"] / "log.jsonl").exists()
    rows = {r["name"]: r for r in csv.DictReader((out / "standings.csv").open())}
    broken = rows["broken"]
    assert broken["games"] == "4" and broken["losses"] == "4" and broken["CRASH"] == "4"
    assert broken["place"] == "3"  # it forfeits every game
    assert int(rows["rand"]["wins"]) + int(rows["greedy"]["wins"]) + int(rows["rand"]["draws"]) >= 4
    assert "broken" in run.stdout and "CRASH" in run.stdout  # the printed table
    assert "6/6 games" in run.stderr and "ETA" in run.stderr  # progress, plain lines off a TTY
    md = (out / "standings.md").read_text()
    assert md.count("](games/rr") == 6


def _tree(folder: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None
            for p in sorted(folder.rglob("*"))}


def test_a_resume_while_the_tournament_runs_is_refused_in_one_line_and_deletes_nothing(tmp_path):
    # It removed the game folders the running tournament was writing, both
    # runs failed (MatchFolderError) and both wrote partial standings.  The
    # running tournament is stood in for by its lock, held here.
    fcntl = pytest.importorskip("fcntl")
    config = write_config(tmp_path, "round_robin", [("rand", "builtin:random"), ("greedy", "builtin:greedy")])
    assert referee("tournament", config, "--jobs", "1").returncode == 0
    out = tmp_path / "out"
    journal = out / "journal.jsonl"
    journal.write_text(journal.read_text().splitlines(keepends=True)[0])  # half-finished: one game to play
    with open(out / ".referee-lock", "w") as running:
        fcntl.flock(running, fcntl.LOCK_EX)
        running.write("4242\n")
        running.flush()
        before = _tree(out)
        for args in (["--resume"], []):
            refused = referee("tournament", config, "--jobs", "1", *args)
            assert refused.returncode == 2
            assert refused.stderr.splitlines() == [
                f"referee: error: another referee is running this tournament in {out} (pid 4242); "
                "wait for it to end, or stop it"]
            assert refused.stdout == "" and _tree(out) == before
    resumed = referee("tournament", config, "--jobs", "1", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert len(journal_keys(out)) == 2


def test_killed_tournament_resumes_to_the_same_standings(tmp_path_factory, tmp_path):
    """The same class.yaml as the run test_report_html reads (played once
    per test run), killed after three games and resumed."""
    whole = double_elimination_of_four(tmp_path_factory)
    (tmp_path / "killed").mkdir()
    killed = tmp_path / "killed" / "class.yaml"
    shutil.copyfile(whole / "class.yaml", killed)
    out = tmp_path / "killed" / "out"
    proc = subprocess.Popen(tournament(killed, "--jobs", "2"), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while len(journal_keys(out)) < 3 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)  # the tournament only: its game workers notice and stop
    proc.wait()
    while time.monotonic() < deadline:
        if not running_in_group(proc.pid):
            break
        time.sleep(0.05)
    else:
        pytest.fail("game workers outlived the killed tournament")
    before = journal_keys(out)
    assert 3 <= len(before) < len(journal_keys(whole / "out"))
    stamps = {k: (out / "games" / k / "result.yaml").stat().st_mtime_ns for k in before}

    resumed = referee("tournament", killed, "--resume", "--jobs", "2")
    assert resumed.returncode == 0, resumed.stderr
    after = journal_keys(out)
    assert after[:len(before)] == before and len(after) == len(set(after))
    assert {k: (out / "games" / k / "result.yaml").stat().st_mtime_ns for k in before} == stamps
    for name in ("standings.csv", "bracket.txt", "games.csv"):
        assert (out / name).read_text() == (whole / "out" / name).read_text(), name
    assert resumed.stdout == (whole / "stdout.txt").read_text().replace(str(whole), str(tmp_path / "killed"))


def test_ctrl_c_twice_is_one_line_exit_130_and_the_tournament_resumes(tmp_path):
    """Ctrl-C to the whole group (as a terminal sends it), and again while
    the first one's games stop: the second was click's 'Aborted!', exit 1."""
    from conftest import FIRST_CELL, write_player

    slow = write_player(tmp_path, "slow", "import time\ntime.sleep(0.2)\n" + FIRST_CELL)
    config = write_config(tmp_path, "round_robin", [("a", slow), ("b", "builtin:greedy"), ("c", slow),
                                                    ("d", "builtin:random")])
    out = tmp_path / "out"
    proc = subprocess.Popen(tournament(config, "--jobs", "2"), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while not journal_keys(out) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    time.sleep(0.02)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    lines = [line for line in err.splitlines() if "games  elapsed" not in line and line.strip()]
    assert lines == ["referee: interrupted; run again with --resume to finish"], err[-2000:]
    resumed = referee("tournament", config, "--resume", "--jobs", "2")
    assert resumed.returncode == 0, resumed.stderr
    keys = journal_keys(out)
    assert len(keys) == len(set(keys)) == 12


@pytest.mark.parametrize("kind", ["tournament", "series"])
def test_ctrl_c_leaves_no_workers_output_files_behind(tmp_path, kind):
    """Ctrl-C to the whole group while games are in play: each game's worker
    output (games/.KEY.stderr.txt, its KeyboardInterrupt's traceback, or
    nothing) is no news, and was left in the folder for --resume to remove.
    The players answer their first step and then sleep far past any wait
    here: two games are in play, for certain, when the signal comes."""
    from conftest import FIRST_CELL, interruptible, write_player

    sleepy = write_player(tmp_path, "sleepy", "import sys, time\nif int(sys.argv[1]) > 2:\n"
                                              "    time.sleep(600)\n" + FIRST_CELL)
    if kind == "tournament":
        config = write_config(tmp_path, "round_robin", [("a", sleepy), ("b", sleepy), ("c", sleepy)])
        config.write_text(config.read_text().replace("soft_time: 10", "soft_time: 300"))
        argv, out = tournament(config, "--jobs", "2"), tmp_path / "out"
    else:
        out = tmp_path / "series"
        argv = [sys.executable, "-m", "referee", "play", "cantris", "--player", sleepy, "--player", sleepy,
                "--board", str(BOARD), "--games", "4", "--jobs", "2", "--time-limit", "300", "--seed", "1",
                "--out", str(out)]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=interruptible)

    def stepped() -> list[Path]:  # games past their first step, stuck in their third
        found = []
        for log in (out / "games").glob("*/log.jsonl"):
            with contextlib.suppress(OSError):  # (a game set up ahead and called off goes)
                if log.stat().st_size:
                    found.append(log)
        return found

    deadline = time.monotonic() + 120
    while len(stepped()) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert len(stepped()) >= 2 and proc.poll() is None, proc.communicate(timeout=60)[1][-2000:]
    assert list((out / "games").glob(".*.stderr.txt"))  # the games' worker output, while they play
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-2000:]
    assert err.splitlines()[-1].startswith("referee: interrupted; run "), err[-2000:]
    assert not [p.name for p in out.rglob("*.stderr.txt")], err[-2000:]
