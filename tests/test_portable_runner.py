"""The portable runner (psutil), run directly, then a subset of the
end-to-end suite re-run with ``REFEREE_RUNNER=portable``, so the code that
Windows and macOS students depend on runs in CI on Linux too."""
from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

import test_cantris_e2e as cantris_e2e
import test_match_robustness as robustness
import test_quoridor_e2e as quoridor_e2e
import test_tsuro_e2e as tsuro_e2e
from referee.core import portable, runner
from referee.core.runner import Limits, RunResult
from referee.core.verdicts import Verdict, process_fault

pytestmark = pytest.mark.portable
POSIX = os.name == "posix"


@pytest.fixture(autouse=True)
def portable_runner(monkeypatch):
    """Every test here, and every referee it starts, uses the portable runner."""
    monkeypatch.setenv("REFEREE_RUNNER", "portable")


def run(tmp_path: Path, body: str, **limits) -> RunResult:
    script = tmp_path / "player.py"
    script.write_text(textwrap.dedent(body))
    return portable.run_process([sys.executable, str(script)], tmp_path, dict(os.environ),
                                Limits(**limits), tmp_path / "stdout.txt", tmp_path / "stderr.txt")


def gone(pid: int) -> bool:
    """Dead, or a zombie only its (new) parent can still reap."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def wait_gone(pids: list[int]) -> list[int]:
    """The pids still running after a grace for the OS to reap them (up to
    30 s on a busy machine; it ends as soon as they are gone)."""
    for _ in range(600):
        left = [pid for pid in pids if not gone(pid)]
        if not left:
            return []
        time.sleep(0.05)
    return left


def test_a_clean_exit_is_measured(tmp_path):
    result = run(tmp_path, """
        import sys
        total = sum(i * i for i in range(2_000_000))
        print("sum", total); print("to stderr", file=sys.stderr)
    """)
    assert result.exit_code == 0 and result.signal is None and not result.timed_out
    assert result.cpu_s > 0 and result.peak_kb > 1000 and result.wall_s > 0
    assert result.stdout_tail.startswith("sum ") and result.stderr_tail == "to stderr\n"
    assert process_fault(result, Limits()) is None


def test_a_crash_keeps_its_exit_status_and_stderr(tmp_path):
    result = run(tmp_path, "raise SystemExit('boom')")
    assert result.exit_code == 1 and "boom" in result.stderr_tail and result.failed


@pytest.mark.skipif(not POSIX, reason="signals are POSIX")
def test_a_signal_is_reported(tmp_path):
    result = run(tmp_path, "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")
    assert result.signal == signal.SIGSEGV and result.exit_code is None


def test_a_command_that_cannot_start(tmp_path):
    result = portable.run_process([str(tmp_path / "nope")], tmp_path, dict(os.environ), Limits(),
                                  tmp_path / "o", tmp_path / "e")
    assert result.start_error and "nope" in result.start_error
    assert process_fault(result, Limits())[0] is Verdict.CRASH


def test_a_sleeper_is_killed_at_the_hard_limit_with_its_children(tmp_path):
    result = run(tmp_path, """
        import os, subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
        open("pids", "w").write(f"{os.getpid()} {child.pid}")
        time.sleep(300)
    """, soft_time=0.5, hard_time=1.5)
    assert result.timed_out and result.wall_s >= 1.5
    assert process_fault(result, Limits(hard_time=1.5))[0] is Verdict.TIMEOUT
    assert wait_gone([int(p) for p in (tmp_path / "pids").read_text().split()]) == []


def test_grandchildren_that_escaped_the_tree_are_swept(tmp_path):
    """The player starts a middle process that starts a detached sleeper and
    exits at once, and the player exits at once too: the sleeper is an orphan
    far from the player's tree, maybe before the first sample; the run's
    marker in its environment finds it."""
    detach = ("start_new_session=True" if POSIX else
              "creationflags=subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP")
    result = run(tmp_path, f"""
        import subprocess, sys
        middle = (
            "import subprocess, sys\\n"
            "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'], {detach})\\n"
            "open('sleeper', 'w').write(str(p.pid))\\n")
        subprocess.run([sys.executable, "-c", middle], check=True)
    """)
    assert result.exit_code == 0
    sleeper = int((tmp_path / "sleeper").read_text())
    assert result.orphans_killed >= 1
    assert wait_gone([sleeper]) == []


# The referee in a process of its own (it becomes a child subreaper), whose
# first look after starting the player comes only once the player has ended
# and its helper has seen its new parent: a busy machine's order of events.
LATE_REFEREE = """
import os, sys, time
from pathlib import Path
from referee.core import lifeline, portable
from referee.core.runner import Limits

folder = Path(sys.argv[1])

def state(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"

def late(proc, adopt=lifeline.adopt):
    deadline = time.monotonic() + 60
    while not (state(proc.pid) == "Z" and (folder / "parent").exists()) and time.monotonic() < deadline:
        time.sleep(0.01)
    adopt(proc)

lifeline.adopt = late
result = portable.run_process([sys.executable, str(folder / "player.py")], folder, dict(os.environ),
                              Limits(hard_time=60), folder / "o", folder / "e")
helper = int((folder / "helper").read_text())
print(os.getpid(), (folder / "parent").read_text(), state(helper), result.orphans_killed)
"""

# It starts a helper in a session of its own and exits at once; the helper
# notes the parent it is given once the player is gone, and sleeps.
QUICK_LEAVER = """
import os, subprocess, sys
helper = ("import os, sys, time\\n"
          "while os.getppid() == int(sys.argv[1]):\\n"
          "    time.sleep(0.001)\\n"
          "open('parent.tmp', 'w').write(str(os.getppid()))\\n"
          "os.rename('parent.tmp', 'parent')\\n"
          "time.sleep(300)\\n")
child = subprocess.Popen([sys.executable, "-c", helper, str(os.getpid())], start_new_session=True)
open("helper", "w").write(str(child.pid))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a child subreaper is Linux's")
def test_a_quick_players_orphans_are_the_referees_to_reap_however_late_it_looks(tmp_path):
    """The referee is a child subreaper before it starts the player: it
    became one just after, so a player that left a helper and ended before
    the referee next ran (a busy machine) left it to init, and the helper,
    killed, stayed a zombie until init reaped it (here, not before the seat's
    next step, whose check of its helpers found it there: 3 of 150 runs of
    test_portable_cantris_e2e_a_child_that_outlives... under load)."""
    (tmp_path / "player.py").write_text(QUICK_LEAVER)
    done = subprocess.run([sys.executable, "-c", LATE_REFEREE, str(tmp_path)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    referee_pid, parent, helper_state, killed = done.stdout.split()
    assert parent == referee_pid, done.stdout  # re-parented to the referee, not to init
    assert helper_state == "gone" and killed == "1", done.stdout  # killed and reaped at once


@pytest.mark.skipif(not POSIX, reason="os.fork")
def test_a_fork_loop_is_out_run(tmp_path):
    result = run(tmp_path, """
        import os, time
        with open("pids", "a") as f:
            for _ in range(10):
                pid = os.fork()
                if pid == 0:  # half of them leave the session; all fork on and on
                    os.setsid() if os.getpid() % 2 else None
                    while True:
                        if os.fork() == 0:
                            time.sleep(300)
                            os._exit(0)
                        time.sleep(0.05)
                f.write(f"{pid}\\n")
                f.flush()
        time.sleep(0.3)
    """, hard_time=60)
    pids = [int(p) for p in (tmp_path / "pids").read_text().split()]
    assert result.exit_code == 0 and len(pids) == 10
    assert result.orphans_killed >= 10
    assert wait_gone(pids) == []
    marked = [p for p in psutil.process_iter() if not gone(p.pid) and _marked(p, tmp_path)]
    assert marked == []


def _marked(proc: psutil.Process, folder: Path) -> bool:
    """One of this test's processes: run by the portable runner (its marker)
    in this test's folder.  Other tests' players may run meanwhile (xdist)."""
    try:
        return portable.MARKER in proc.environ() and Path(proc.cwd()) == folder
    except psutil.Error:
        return False


def test_a_memory_hog_is_killed_at_the_sampled_limit(tmp_path):
    result = run(tmp_path, """
        import time
        hog = b"x" * (400 * 1024 * 1024)  # written, so resident
        time.sleep(30)
    """, memory_mb=100, hard_time=20)
    assert not result.timed_out and result.failed
    assert result.peak_kb >= 100 * 1024
    assert any("memory limit" in note for note in result.notes)
    assert process_fault(result, Limits(memory_mb=100))[0] is Verdict.MEMORY_LIMIT


def test_memory_limit_verdict_through_the_cli(tmp_path, make_player):
    hog = make_player("hog", "import time\nhog = b'x' * (400 * 1024 * 1024)\ntime.sleep(60)\n")
    out = tmp_path / "m"
    result = cantris_e2e.play(out, "builtin:greedy", hog,
                              extra=("--set", "hard_time=60", "--set", "memory_mb=100"))
    last = cantris_e2e.read_log(out)[-1]
    assert last["verdict"] == "MEMORY_LIMIT" and last["peak_kb"] >= 100 * 1024, last
    assert result["winner"] == 1


def test_a_cpu_hog_is_killed_at_the_sampled_cpu_limit(tmp_path):
    result = run(tmp_path, "while True: pass", cpu_time=1, hard_time=60)
    assert not result.timed_out and result.cpu_s >= 1
    assert any("CPU limit" in note for note in result.notes)
    if POSIX:
        assert process_fault(result, Limits(cpu_time=1, hard_time=60))[0] is Verdict.CPU_LIMIT


def test_a_cpu_hog_in_a_child_counts_too(tmp_path):
    result = run(tmp_path, """
        import subprocess, sys
        subprocess.run([sys.executable, "-c", "while True: pass"])
    """, cpu_time=1, hard_time=60)
    assert not result.timed_out and result.cpu_s >= 1
    assert any("CPU limit" in note for note in result.notes)


def test_output_is_capped(tmp_path):
    result = run(tmp_path, "print('x' * 200_000)", output_kb=8)
    text = (tmp_path / "stdout.txt").read_text()
    assert result.exit_code == 0 and "more bytes of output dropped" in text
    assert len(text) < 8 * 1024 + 100


@pytest.mark.skipif(not POSIX, reason="rlimits are POSIX")
def test_file_size_limit_applies_on_posix(tmp_path):
    result = run(tmp_path, "open('big', 'wb').write(b'x' * (3 * 1024 * 1024))", file_size_mb=1)
    assert result.failed and (tmp_path / "big").stat().st_size <= 1024 * 1024
    assert portable.unsupported_limits(Limits()) == []


def test_runner_dispatches_to_it_when_asked(tmp_path):
    script = tmp_path / "marker.py"
    script.write_text("import os; print(os.environ.get('REFEREE_RUN_ID', 'none'))")
    result = runner.run_process([sys.executable, str(script)], tmp_path, dict(os.environ), Limits(),
                                tmp_path / "o", tmp_path / "e")
    assert result.exit_code == 0 and result.stdout_tail.strip() not in ("", "none")


# The end-to-end scenarios that exercise the runner, re-run here with the
# portable runner forced (the autouse fixture above reaches every referee
# these tests start through the environment).  Each is wrapped, so a mark
# added here never changes the original test.
PORTABLE_E2E = [
    (cantris_e2e.test_misbehaving_player_gets_its_verdict_and_a_complete_log, False),
    (cantris_e2e.test_late_move_still_counts, False),
    (cantris_e2e.test_a_child_that_outlives_its_player_is_killed_before_the_next_step, True),
    (cantris_e2e.test_crash_after_writing_a_valid_decision_counts_the_move, False),
    (cantris_e2e.test_output_is_captured_and_capped, False),
    (cantris_e2e.test_same_seed_and_players_give_the_same_log, False),
    (cantris_e2e.test_fork_hog_is_cleaned_up_after_its_step, True),
    (quoridor_e2e.test_a_module_player_plays_through_the_adapter, False),
    (robustness.test_interrupting_the_referee_kills_the_running_player, True),
]


def _portable_copy(test, posix_only: bool):
    @functools.wraps(test)  # keeps the signature (fixtures) and the parametrize marks
    def copy(*args, **kwargs):
        if kwargs.get("verdict") == "MEMORY_LIMIT":
            pytest.skip("sampling needs the hog to touch its memory, slower than the 1.5 s hard "
                        "limit there: test_memory_limit_verdict_through_the_cli instead")
        if kwargs.get("verdict") == "CPU_LIMIT" and not POSIX:
            pytest.skip("verdicts.py tells CPU_LIMIT by a POSIX signal (SIGXCPU/SIGKILL)")
        return test(*args, **kwargs)

    if posix_only:
        copy = pytest.mark.skipif(not POSIX, reason="the scenario uses POSIX processes")(copy)
    return copy


def test_portable_tsuro_e2e_three_players_one_is_ejected_and_the_game_goes_on(tmp_path, make_player):
    """test_tsuro_e2e's ejection with 3 seats, not 8: more than two seats, one
    ejected and the others playing on, is what the runner sees of it (each
    step is one process whatever the seats).  The portable runner starts
    each built-in afresh at every step: the 8 seats' 42 steps were ~7 s of
    CPU; seed 7's 3 seats eject player 2 at step 5 and play 2 more."""
    tsuro_e2e.ejection(tmp_path, make_player, seats=3, seed=7)


for _test, _posix_only in PORTABLE_E2E:
    _name = f"test_portable_{_test.__module__.removeprefix('test_')}_{_test.__name__[5:]}"
    globals()[_name] = _portable_copy(_test, _posix_only)
del _test, _posix_only, _name


def test_the_match_names_only_the_limits_the_runner_in_use_cannot_enforce(monkeypatch):
    """The portable runner samples CPU and memory, so a match run by it names
    only what it lacks: nothing on macOS, the file limits on Windows; the
    Linux runner lacks nothing."""
    limits = Limits(memory_mb=256, file_size_mb=8, open_files=64)
    monkeypatch.setattr(runner, "LINUX", False)  # a Mac: run_process hands over to portable
    monkeypatch.setattr(portable, "POSIX", True)
    assert runner.unsupported_limits(limits) == []
    monkeypatch.setattr(portable, "POSIX", False)  # Windows
    assert runner.unsupported_limits(limits) == ["file_size_mb", "open_files"]
    monkeypatch.setattr(runner, "LINUX", True)
    monkeypatch.delenv("REFEREE_RUNNER", raising=False)
    assert runner.unsupported_limits(limits) == []


# ----- Windows' os, on Linux (tests/windows_os): the referee's own files
WINDOWS_OS = Path(__file__).resolve().parent / "windows_os"


def test_matches_and_a_series_play_where_os_is_windows(tmp_path):
    # seatfiles held folders open and reached files through them (dir_fd,
    # O_NOFOLLOW, O_DIRECTORY): on Windows the referee stopped at its import.
    import subprocess

    from conftest import ROOT

    env = dict(os.environ, PYTHONPATH=f"{WINDOWS_OS}{os.pathsep}{ROOT}", REFEREE_RUNNER="portable")

    def referee(*args):  # (a process of its own: Windows' os is made as Python starts)
        return subprocess.run([sys.executable, "-m", "referee", *map(str, args)], env=env, capture_output=True,
                              text=True, timeout=300)

    probe = subprocess.run([sys.executable, "-c", "import os; print(hasattr(os, 'O_NOFOLLOW'))"], env=env,
                           capture_output=True, text=True)
    assert probe.stdout.strip() == "False", probe  # (this is Windows' os)
    program = tmp_path / "first_cell.py"
    program.write_text(textwrap.dedent("""
        rows = [line.split() for line in open("Board.txt")]
        r, c = next((r, c) for r, row in enumerate(rows) for c, v in enumerate(row) if v != "0")
        open("decision.txt", "w").write(f"{r} {c}")
    """))
    for game in ("cantris", "tsuro", "quoridor"):
        done = referee("play", game, "--player", "builtin:greedy", "--player", "builtin:random",
                       "--sandbox", "none", "--quiet", "--out", tmp_path / game)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        checked = referee("replay", tmp_path / game, "--verify")
        assert checked.returncode == 0, checked.stdout + checked.stderr
    series = referee("play", "cantris", "--player", f"{sys.executable} {program}", "--player", "builtin:greedy",
                     "--sandbox", "none", "--games", "2", "--out", tmp_path / "series")
    assert series.returncode == 0 and "Traceback" not in series.stderr, series.stderr
    logs = sorted((tmp_path / "series" / "games").glob("*/log.jsonl"))
    assert len(logs) == 2
    assert all(json.loads(line)["verdict"] == "OK" for log in logs for line in log.read_text().splitlines())
