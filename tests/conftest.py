"""Shared helpers: run the CLI as a user would, build player programs, read
what a match left behind, and generate game states for property tests."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml
from hypothesis import strategies as st

import launcher

# pytest keeps the assertion-rewritten test modules in __pycache__ only when
# bytecode may be written; where PYTHONDONTWRITEBYTECODE is set (many CI and
# Docker images set it) every xdist worker would rewrite all of them again at
# each run (~6 s of CPU a worker).  The tests' own cache, nothing the product
# runs: the referee's bytecode is the Makefile's `bytecode` target.
sys.dont_write_bytecode = False

# The tests run as in an activated venv (README: ``source .venv/bin/activate``),
# where a student's ``python3 player.py`` is the venv's Python: otherwise
# ``python3`` is whatever comes first on PATH, on this machine pyenv's shim, a
# bash script that costs ~0.2 s of CPU at every step of such a player.
VENV_BIN = str(Path(sys.executable).parent)
if os.environ.get("PATH", "").split(os.pathsep)[0] != VENV_BIN:
    os.environ["PATH"] = os.pathsep.join([VENV_BIN, *[p for p in os.environ.get("PATH", "").split(os.pathsep)
                                                      if p and p != VENV_BIN]])

ROOT = Path(__file__).resolve().parents[1]
BOARDS = ROOT / "boards"
PYTHON_SDK = ROOT / "players" / "sdk" / "python"

needs_gpp = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")


# The quick tier (`make check`, under a minute on 2 cores): the rules, property
# and unit tests, and end-to-end cases that each run the installed command a few
# times.  Every other module is marked `slow` and runs only in `make test`; a
# new module starts there and joins this list once it is quick (`--durations`).
QUICK_MODULES = {
    "test_blackhole_props.py", "test_blackhole_rules.py", "test_cantris_props.py",
    "test_cantris_rules.py", "test_launcher.py", "test_new_user_messages.py", "test_playthroughs.py",
    "test_player_startup.py", "test_quoridor_clusters.py", "test_quoridor_paths.py", "test_quoridor_props.py",
    "test_quoridor_rules.py", "test_ratings.py", "test_registry.py", "test_resources.py",
    "test_strict_input.py", "test_swiss.py", "test_tessella_props.py",
    "test_tessella_rules.py", "test_tournament_config.py", "test_tournament_formats.py",
    "test_tournament_runner.py", "test_tsuro_props.py", "test_tsuro_rules.py",
}


def pytest_collection_modifyitems(config, items) -> None:
    """Everything outside the quick modules is `slow`."""
    for item in items:
        if item.path.name not in QUICK_MODULES:
            item.add_marker(pytest.mark.slow)


def pytest_ignore_collect(collection_path, config):
    """`make check` (``-m "not slow"``) does not even import the other
    modules: collecting the whole suite costs each worker seconds of CPU."""
    if config.getoption("markexpr", "").strip() == "not slow" and collection_path.suffix == ".py" \
            and collection_path.name.startswith("test_") and collection_path.name not in QUICK_MODULES:
        return True
    return None


# A test module that defines a fixture built once per module (a wheel and its
# venv, a Dask cluster, matches several tests only read).
MODULE_FIXTURE = re.compile(r"@pytest\.fixture\(\s*scope\s*=\s*[\"'](?:module|session)[\"']")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """How pytest-xdist (``make test``: ``-n 4``) shares out the tests: one
    at a time to whichever worker is free, except that all the tests of a
    module with a module-scoped fixture go to one worker together (so the
    fixture is still built once), largest such modules first.  xdist's own
    ``--dist loadgroup`` cannot do this under pytest 9.2 (it renames node ids
    to group them, which pytest no longer allows)."""
    if config.getvalue("dist") not in ("load", "loadgroup"):
        return None  # --dist loadfile, each, ... as asked
    from xdist.scheduler import LoadScopeScheduling

    tests = Path(__file__).resolve().parent
    shared = {path.relative_to(config.rootpath).as_posix() for path in tests.glob("test_*.py")
              if MODULE_FIXTURE.search(path.read_text(encoding="utf-8"))}

    class SharedFixtureScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return module if module in shared else nodeid

    config.option.loadscopereorder = True
    return SharedFixtureScheduling(config, log)


def _close_shared_browser() -> None:
    shared = sys.modules.get("browser")
    if shared is not None and hasattr(shared, "close_shared_browser"):
        shared.close_shared_browser()


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem) -> None:
    """The browser tests/browser.py shares lives for one module: Playwright's
    sync API runs one instance per thread, and test_web_play and
    test_web_watch start their own."""
    if nextitem is None or nextitem.path != item.path:
        _close_shared_browser()


def pytest_sessionfinish(session, exitstatus) -> None:
    _close_shared_browser()
    launcher.stop()  # reaped here, its commands' CPU counts in the run's


def interruptible() -> None:
    """``preexec_fn`` for a referee a test will interrupt (SIGINT): a shell
    that started the test run in the background ignores SIGINT, and its
    children inherit that; the referee must get it as a user's Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def referee(*args: str, cwd: Path | None = None, timeout: float = 300,
            input: str | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run `referee ARGS` as the installed console script would, through
    tests/launcher.py (no start-up per command; ``REFEREE_TEST_LAUNCHER=0``
    makes it the real process).  Tests of the process itself run it with
    subprocess."""
    return launcher.run(args, cwd=cwd, timeout=timeout, input=input, env=env)


def made_once(tmp_path_factory, name: str, make) -> Path:
    """The folder ``name`` of this test run, filled by ``make(folder)`` once
    and shared by every xdist worker: a file lock in the run's temp folder
    lets the first make it and the others wait for it (after a failed make,
    the next asker tries again from an empty folder, and fails the same way).
    Only for what the tests read and never change."""
    import fcntl

    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # the run's, not all runs'
    folder = shared / name
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / ".made").exists():
            shutil.rmtree(folder, ignore_errors=True)  # what a failed make left: each try starts clean
            folder.mkdir()
            make(folder)
            (folder / ".made").write_text("")
    return folder


def referee_wheel(tmp_path_factory) -> Path:
    """The referee's wheel, built from this checkout once per test run (the
    autograder's ``build_wheel``: from a copy, as ``referee autograder``
    does) and shared by every xdist worker (each build is ~3 s of CPU;
    test_nonroot and both autograder modules install it).  test_wheel builds
    its own from a copy with build products planted in it."""
    from referee.grading.autograder import build_wheel

    folder = made_once(tmp_path_factory, "referee-wheel", lambda folder: build_wheel(folder / "dist"))
    return sorted((folder / "dist").glob("referee-*.whl"))[-1]


CRASHER = "import sys\nprint('bye <i>now</i>')\nsys.exit(5)\n"


def double_elimination_of_four(tmp_path_factory) -> Path:
    """A double elimination of four (greedy, two randoms, one that always
    crashes) on a small Cantris board, played once per test run by the CLI
    with ``--jobs 2``: test_report_html reads its report and replays,
    test_tournament_e2e compares a killed and resumed run of the same
    class.yaml with it (each run is ~4 s of CPU).  The folder holds
    class.yaml, crash.py, out/ and stdout.txt (the CLI's standard output)."""
    def play(root: Path) -> None:
        (root / "crash.py").write_text(CRASHER)
        config = {"game": "cantris", "boards": str(BOARDS / "cantris" / "6x3-1.txt"),
                  "format": "double_elimination", "seed": 7, "out": "out",
                  "limits": {"soft_time": 10},  # far above any step here: load must not change a result
                  "entrants": [{"name": "ann", "command": "builtin:greedy"},
                               {"name": "bob", "command": "builtin:random"},
                               {"name": "cy", "command": f"{sys.executable} {root / 'crash.py'}"},
                               {"name": "dee", "command": "builtin:random"}]}
        (root / "class.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
        proc = referee("tournament", root / "class.yaml", "--jobs", "2", timeout=600)
        assert proc.returncode == 0, proc.stderr
        (root / "stdout.txt").write_text(proc.stdout)

    return made_once(tmp_path_factory, "double-elimination-of-four", play)


def pip_install_into(python: Path | str, *args: object, env: dict[str, str] | None = None,
                     timeout: float = 600) -> subprocess.CompletedProcess:
    """``pip install ARGS`` into the venv of ``python`` with this test run's
    pip (``--python``: the venvs the tests make have none of their own, and
    ensurepip alone costs ~7 s of CPU), then the bytecode pip would write,
    except numpy's: compiling numpy is ~4 s of CPU per venv, and only a
    tournament's ratings import it (~0.6 s without its bytecode)."""
    pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check", "--python", str(python),
           "install", "--no-compile", "--no-warn-script-location", *map(str, args)]
    done = subprocess.run(pip, capture_output=True, text=True, timeout=timeout, env=env)
    if done.returncode == 0:
        done = subprocess.run([str(python), "-c", "import compileall, re, sysconfig; compileall.compile_dir("
                               "sysconfig.get_paths()['purelib'], quiet=1, rx=re.compile(r'[/\\\\]numpy[/\\\\]'))"],
                              capture_output=True, text=True, timeout=timeout, env=env)
    return done


# A Cantris player (spawned each step) that removes the lowest, leftmost tile:
# every decision legal, nothing else done.  Tests add to it or edit its exit.
FIRST_CELL = """
import sys
board = [line.split() for line in open("Board.txt")]
for r in range(len(board) - 1, -1, -1):
    for c, v in enumerate(board[r]):
        if v != "0":
            open("decision.txt", "w").write(f"{r} {c}\\n")
            sys.exit(0)
"""


# The same through the Python SDK's run(), so that it can also be kept alive
# (``persistent:``).
SDK_FIRST_CELL = f"""
import sys
sys.path.insert(0, {str(PYTHON_SDK)!r})
from referee_sdk import read_board, run, save_decision

def play_games(step):
    board = read_board()
    for r in range(len(board) - 1, -1, -1):
        for c, v in enumerate(board[r]):
            if v:
                save_decision(r, c)
                return

run(play_games)
"""


def write_player(folder: Path, name: str, body: str) -> str:
    """Write the Python player program ``folder/name.py``; returns the command line to run it."""
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return f"{sys.executable} {path}"


@pytest.fixture
def make_player(tmp_path):
    """Write a Python player program; returns the command line to run it."""
    return lambda name, body: write_player(tmp_path, name, body)


def play_match(game: str, out: Path, *players: str, seed: int, board: Path | None = None,
               extra=()) -> dict:
    """`referee play GAME` between ``players`` into ``out``, quiet; it must
    exit 0.  Returns result.yaml."""
    proc = referee("play", game, *[a for p in players for a in ("--player", p)],
                   *(("--board", board) if board else ()), "--seed", seed, "--out", out,
                   "--quiet", *extra)
    assert proc.returncode == 0, proc.stderr
    return yaml.safe_load((out / "result.yaml").read_text())


def read_log(out: Path) -> list[dict]:
    """The records of a match folder's log.jsonl, one per step."""
    return [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]


def verify(out: Path):
    """What ``referee replay OUT --verify`` decides (its Report: ``ok``,
    ``unfinished``, ``message``), computed in this process: the command
    only adds a start-up (~0.4 s of CPU against ~0.03 s for the check
    itself), and test_cli and test_integrity run the command itself."""
    from referee.verify import verify_folder

    return verify_folder(out)


def assert_verifies(out: Path) -> None:
    """``referee replay OUT --verify`` would say the folder verifies (see verify)."""
    report = verify(out)
    assert report.ok, report.message


def assert_clean_and_verified(out: Path, result: dict) -> list[dict]:
    """Every step of the match in ``out`` was OK and its replay verifies; returns the log."""
    records = read_log(out)
    assert result["steps"] == len(records) > 0
    assert {r["verdict"] for r in records} == {"OK"}, [r.get("message") for r in records]
    assert_verifies(out)
    return records


def student_copy(tmp_path: Path, source: Path) -> str:
    """The program ``source`` in a folder of its own with the SDK beside it, as
    a student has it; returns the command line to run it."""
    folder = tmp_path / source.stem
    shutil.copytree(PYTHON_SDK / "referee_sdk", folder / "referee_sdk",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(source, folder / source.name)
    return f"{sys.executable} {folder / source.name}"


def new_player(game: str, folder: Path, lang: str = "python") -> str:
    """`referee new-player GAME FOLDER` (``--lang`` unless Python, the default),
    which must succeed; returns the command line running the new program,
    compiled with all warnings as errors for C++."""
    lang_option = () if lang == "python" else ("--lang", lang)
    assert referee("new-player", game, folder, *lang_option).returncode == 0
    if lang == "python":
        return f"{sys.executable} {folder / 'player.py'}"
    binary = folder / "player"
    subprocess.run(["g++", "-std=c++14", "-O2", "-Wall", "-Wextra", "-Werror", "-o", binary,
                    folder / "player.cpp"], check=True)
    return str(binary)


def cantris_cpp_bot(tmp_path_factory) -> Path:
    """`referee new-player cantris --lang cpp`, built with the Linux command
    its README gives (plus -Werror), once per test run (conftest.made_once):
    test_cli plays it, test_teaching runs it by hand.  The same source and
    flags for both; a build is ~2.5 s of CPU.  The folder, with the binary
    ``player`` in it."""
    def build(root: Path) -> None:
        assert referee("new-player", "cantris", root / "bot", "--lang", "cpp").returncode == 0
        lines = (root / "bot" / "README.md").read_text().splitlines()
        command = lines[lines.index("Linux:") + 2].strip()  # the README's commands run inside the folder
        assert command.startswith("g++ ")
        done = subprocess.run(command + " -Werror", shell=True, cwd=root / "bot", capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr

    return made_once(tmp_path_factory, "cantris-cpp-bot", build) / "bot"


def random_play(starts: st.SearchStrategy, max_plies: int) -> st.SearchStrategy:
    """Game states reached by up to ``max_plies`` legal decisions, each drawn
    at random, from a state drawn from ``starts``."""

    @st.composite
    def played(draw):
        state = draw(starts)
        for _ in range(draw(st.integers(0, max_plies))):
            if state.is_terminal():
                break
            legal = state.legal_decisions()
            state, _ = state.apply(state.current_player(),
                                   legal[draw(st.integers(0, len(legal) - 1))])
        return state

    return played()


def assert_pass_exactly_when_stuck(state, pass_decision) -> None:
    """The pass is legal, and the referee takes it (auto_decision), exactly when
    it is the only legal decision; a finished game has neither."""
    if state.is_terminal():
        assert state.legal_decisions() == [] and state.auto_decision() is None
    elif state.auto_decision() == pass_decision:
        assert state.legal_decisions() == [pass_decision]
    else:
        assert pass_decision not in state.legal_decisions() and state.auto_decision() is None
