"""The wheel is the product students install: built here, installed into a
fresh venv outside the checkout, and used from a folder that is not the
checkout, it must have every built-in player, template, SDK and board.

One wheel and one venv for the module (building and installing is most of the
cost); every game is played with built-ins, and with a fresh template that
was copied elsewhere alone, as a student hands it in."""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, pip_install_into
from referee.grading.autograder import checkout_ignore

pytestmark = pytest.mark.wheel

WINDOWS = os.name == "nt"
def SOURCE_IGNORE(folder: str, names: list[str]) -> set[str]:
    """What the autograder's own copy of the checkout leaves out (hidden
    entries such as the rogues' socket folder, build products, tests, ...),
    and the C++ bundle folder."""
    return checkout_ignore(folder, names) | {name for name in names if name == "_bundled"}


@dataclass
class Installed:
    wheel: Path
    bin: Path  # the venv's scripts folder
    work: Path  # a folder outside the checkout, where commands run

    @property
    def python(self) -> str:
        return str(self.bin / ("python.exe" if WINDOWS else "python"))

    def referee(self, *args: object, cwd: Path | None = None) -> subprocess.CompletedProcess:
        exe = self.bin / ("referee.exe" if WINDOWS else "referee")
        return subprocess.run([str(exe), *map(str, args)], cwd=cwd or self.work, env=clean_env(),
                              capture_output=True, text=True, timeout=300)


def clean_env() -> dict[str, str]:
    """No hint of the checkout: no override of the players folder, no
    PYTHONPATH, not the test venv on PATH."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "REFEREE_PLAYERS_DIR", "REFEREE_BOARDS_DIR", "VIRTUAL_ENV")}
    test_venv = os.path.dirname(sys.executable)  # first on PATH (conftest)
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p != test_venv)
    return env


def run(*argv: object, cwd: Path | None = None) -> None:
    proc = subprocess.run(list(map(str, argv)), cwd=cwd, capture_output=True, text=True,
                          timeout=600, env=clean_env())
    assert proc.returncode == 0, f"{argv}: {proc.stdout[-2000:]}{proc.stderr[-2000:]}"


def pip_install(python: Path, *args: object, env: dict[str, str] | None = None) -> None:
    """``pip install ARGS`` into the venv of ``python`` (conftest.pip_install_into)."""
    proc = pip_install_into(python, *args, env=env or clean_env())
    assert proc.returncode == 0, f"{args}: {proc.stdout[-2000:]}{proc.stderr[-2000:]}"


BUILD_TOOLS = ("setuptools", "_distutils_hack", "pkg_resources", "wheel", "packaging")


def build_tools_shown(folder: Path) -> dict[str, str] | None:
    """clean_env() with PYTHONPATH showing the test venv's setuptools and
    wheel (links in ``folder``; nothing else of the test venv), so a venv
    without them can build with ``--no-build-isolation``; None if the test
    venv lacks them.  (An isolated build first installs setuptools into a
    scratch environment: ~5 s of CPU for pebbles' editable install.)"""
    if not (importlib.util.find_spec("setuptools") and importlib.util.find_spec("wheel")):
        return None
    site = Path(importlib.util.find_spec("setuptools").origin).parents[1]  # .../site-packages
    folder.mkdir(parents=True, exist_ok=True)
    for name in BUILD_TOOLS:  # the packages and their metadata (setuptools finds its own plugins there)
        for entry in [site / name, *site.glob(f"{name}-*.dist-info")]:
            if entry.exists():
                (folder / entry.name).symlink_to(entry)
    return {**clean_env(), "PYTHONPATH": str(folder)}


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    shutil.copytree(ROOT, source, ignore=SOURCE_IGNORE)
    # Build products a student's checkout may hold must not be shipped.
    (source / "players" / "cantris" / "a.out").write_bytes(b"\x7fELF")
    (source / "players" / "cantris" / "__pycache__").mkdir()
    (source / "players" / "cantris" / "__pycache__" / "greedy.cpython-311.pyc").write_bytes(b"")
    isolation = []
    if importlib.util.find_spec("wheel") and importlib.util.find_spec("setuptools"):
        isolation = ["--no-build-isolation"]  # the test venv has the build tools: no download
    dist = base / "dist"
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "-q", "-w", dist, source)
    wheel = next(dist.glob("referee-*.whl"))
    # A venv without a pip of its own, filled by this test run's pip.
    venv = base / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv)
    bin_dir = venv / ("Scripts" if WINDOWS else "bin")
    pip_install(bin_dir / ("python.exe" if WINDOWS else "python"), wheel)
    work = base / "work"
    work.mkdir()
    return Installed(wheel, bin_dir, work)


def test_wheel_carries_players_sdks_templates_boards_and_docs_but_no_build_products(installed):
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    for expected in ("referee/_bundled/players/cantris/greedy.py",
                     "referee/_bundled/players/tsuro/template.py",
                     "referee/_bundled/players/quoridor/template.cpp",
                     "referee/_bundled/players/sdk/python/referee_sdk/__init__.py",
                     "referee/_bundled/players/sdk/cpp/referee_sdk.hpp",
                     "referee/_bundled/boards/cantris/10x5-1.txt",
                     "referee/_bundled/docs/games/tsuro.md"):
        assert expected in names
    assert not [n for n in names if "__pycache__" in n or n.endswith((".pyc", "a.out", ".o"))]


def test_installed_referee_runs_from_the_venv_not_the_checkout(installed):
    proc = subprocess.run([installed.python, "-c", "import referee.resources as r; "
                           "print(r.players_dir()); print(r.boards_dir())"],
                          cwd=installed.work, env=clean_env(), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    venv = installed.bin.parent.resolve()
    for line in proc.stdout.splitlines():
        assert Path(line).resolve().is_relative_to(venv) and "_bundled" in line, line


SEATINGS = [
    ("cantris", 2), ("tessella", 2), ("quoridor", 2), ("quoridor", 4), ("blackhole", 2),
    ("tsuro", 2), ("tsuro", 5),
]
# The games that have a ply cap end at 16 plies (still a finished match
# with a result, every seat moving several times): what is tested is that
# the wheel's players and templates play, not how long (whole games of each:
# test_<game>_e2e, from the checkout).
PLY_CAPS = {("quoridor", 2): 16, ("quoridor", 4): 16, ("blackhole", 2): 16, ("tessella", 2): 16}


@pytest.mark.parametrize("game,seats", SEATINGS, ids=[f"{g}-{n}p" for g, n in SEATINGS])
def test_every_game_plays_with_built_ins(installed, game, seats):
    players = [("builtin:greedy", "builtin:random")[i % 2] for i in range(seats)]
    out = installed.work / f"{game}-{seats}"
    cap = PLY_CAPS.get((game, seats))
    proc = installed.referee("play", game, *[a for p in players for a in ("--player", p)],
                             "--seed", 3, "--out", out, "--quiet",
                             *(("--set", f"ply_cap={cap}") if cap else ()))
    assert proc.returncode == 0, proc.stderr
    result = yaml.safe_load((out / "result.yaml").read_text())
    assert result["steps"] > 0 and len(result["players"]) == seats
    verdicts = {v for counts in result["verdicts"].values() for v, n in counts.items() if n}
    assert verdicts == {"OK"}, result["verdicts"]
    assert installed.referee("replay", out, "--verify").returncode == 0


@pytest.mark.parametrize("game", ["cantris", "tessella", "quoridor", "blackhole", "tsuro"])
def test_fresh_template_copied_elsewhere_alone_plays(installed, game):
    made = installed.work / "made" / game
    proc = installed.referee("new-player", game, made)
    assert proc.returncode == 0, proc.stderr
    readme = (made / "README.md").read_text()
    assert "py player.py" in readme and "python3 player.py" in readme
    # What a student zips and hands in: the folder alone, somewhere else.
    handed_in = installed.work / "handed-in" / game
    shutil.copytree(made, handed_in)
    shutil.rmtree(made)
    cap = PLY_CAPS.get((game, 2))
    proc = installed.referee("play", game, "--player", f"{installed.python} player.py",
                             "--player", "builtin:greedy", "--seed", 5, "--out", "m", "--quiet",
                             *(("--set", f"ply_cap={cap}") if cap else ()), cwd=handed_in)
    assert proc.returncode == 0, proc.stderr
    result = yaml.safe_load((handed_in / "m" / "result.yaml").read_text())
    mine = result["verdicts"][1]
    assert mine.get("OK", 0) == sum(mine.values()) > 0, mine


def test_shipped_boards_are_found_by_their_readme_names(installed):
    proc = installed.referee("validate", "cantris", "boards/cantris/10x5-1.txt")
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr
    out = installed.work / "named-board"
    proc = installed.referee("play", "cantris", "--player", "builtin:greedy", "--player",
                             "builtin:random", "--board", "6x3-1", "--out", out, "--quiet")
    assert proc.returncode == 0, proc.stderr
    match = yaml.safe_load((out / "match.yaml").read_text())
    assert match["board"]["source"].endswith(os.path.join("cantris", "6x3-1.txt"))
    missing = installed.referee("validate", "cantris", "no-such-board")
    assert missing.returncode == 2 and "no-such-board" in missing.stderr


# ----- a game from another package (examples/connect4), next to the wheel ------------
EXAMPLE = ROOT / "examples" / "connect4"


@pytest.fixture(scope="module")
def connect4(installed, tmp_path_factory) -> Installed:
    """The example plugin built as a wheel of its own and installed into the
    wheel's venv, as a course would install its game."""
    isolation = ["--no-build-isolation"] if importlib.util.find_spec("setuptools") else []
    dist = tmp_path_factory.mktemp("connect4-dist")
    source = dist / "source"
    shutil.copytree(EXAMPLE, source, ignore=SOURCE_IGNORE)
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "-q", "-w", dist, source)
    pip_install(Path(installed.python), "--no-deps", next(dist.glob("*.whl")))
    return installed


def test_a_plugin_game_plays_verifies_and_replays_from_its_wheel(connect4):
    out = connect4.work / "c4"
    proc = connect4.referee("play", "connect4", "--player", "builtin:greedy", "--player",
                            "builtin:random", "--seed", 1, "--out", out, "--quiet")
    assert proc.returncode == 0, proc.stderr
    result = yaml.safe_load((out / "result.yaml").read_text())
    assert result["winner"] == 1 and result["verdicts"][1]["OK"] > 0
    verified = connect4.referee("replay", out, "--verify")
    assert verified.returncode == 0 and "verified" in verified.stdout
    page = connect4.work / "c4.html"
    assert connect4.referee("replay", out, "--html", page).returncode == 0
    assert "Connect Four board" in page.read_text()  # the plugin's own draw.js
    assert connect4.referee("validate", "connect4", "opening").returncode == 0
    made = connect4.referee("new-player", "connect4", connect4.work / "c4-player")
    assert made.returncode == 0, made.stderr


def test_a_plugin_game_runs_a_tournament_from_its_wheel(connect4):
    config = connect4.work / "c4-cup.yaml"
    config.write_text(yaml.safe_dump({
        "game": "connect4", "format": "round_robin", "seed": 5, "out": "c4-cup",
        "entrants": [{"name": "greedy", "command": "builtin:greedy"},
                     {"name": "random", "command": "builtin:random"}]}))
    proc = connect4.referee("tournament", config)
    assert proc.returncode == 0, proc.stderr
    standings = (connect4.work / "c4-cup" / "standings.csv").read_text()
    assert "greedy" in standings and "random" in standings
    assert connect4.referee("check-game", "connect4", "--playouts", "3").returncode == 0


def test_new_game_installs_with_pip_install_e_and_plays(installed):
    assert installed.referee("new-game", "pebbles").returncode == 0
    shown = build_tools_shown(installed.work / "build-tools")
    isolation = ["--no-build-isolation"] if shown else []  # the same editable install, no scratch venv
    pip_install(Path(installed.python), "--no-deps", *isolation, "-e", installed.work / "pebbles", env=shown)
    out = installed.work / "pebbles-match"
    # in the sandbox: it shows the built-in players their game's package, outside the venv
    proc = installed.referee("play", "pebbles", "--player", "builtin:greedy", "--player",
                             "builtin:random", "--seed", 2, "--out", out, "--quiet")
    assert proc.returncode == 0, proc.stderr
    result = yaml.safe_load((out / "result.yaml").read_text())
    assert result["steps"] == 12 and {v for c in result["verdicts"].values() for v, n in c.items() if n} == {"OK"}


def test_the_autograder_installed_from_a_wheel_asks_for_that_wheel_by_its_path(installed):
    """No checkout to build the referee's wheel from: the hint said to fetch
    one with `pip download referee`, a name on a registry that nothing says
    holds this project (there it may be another's).  pip recorded the file
    the venv was installed from; the hint names it."""
    course = installed.work / "autograder-course"
    course.mkdir()
    (course / "grading.yaml").write_text(
        "game: cantris\ncompliance: {points: 10}\nopponents:\n  - {player: 'builtin:greedy', points: 30}\n")
    proc = installed.referee("autograder", "gradescope", course / "grading.yaml", "-o", course / "a.zip")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr == (f"referee: error: this referee was installed from a wheel, not a checkout: pass "
                           f"that wheel with --wheel FILE ({installed.wheel}, which it was installed from)\n")


def test_docs_are_found_and_human_without_the_web_extra_plays_at_the_terminal(installed):
    """The wheel alone (no `web` extra): `referee docs` points into the venv,
    and `human` typed at a terminal on a desktop plays there, saying why."""
    listing = installed.referee("docs")
    assert listing.returncode == 0, listing.stderr
    where = Path(listing.stdout.splitlines()[0].split(": ", 1)[1])
    assert where.resolve().is_relative_to(installed.bin.parent.resolve()) and (where / "browser.md").is_file()
    assert installed.referee("docs", "browser").stdout.startswith("# Playing in the browser")
    if WINDOWS:
        return
    from terminal import Terminal

    term = Terminal(["play", "cantris", "--player", "human", "--player", "builtin:random", "--seed", "1",
                     "--out", str(installed.work / "human"), "--no-color"],
                    {**clean_env(), "DISPLAY": ":99"}, installed.work,
                    exe=installed.bin / "referee")
    term.read_until(r"step 1, player 1 \(play\)> ")
    term.type("resign")
    assert term.finish() == 0
    assert term.text.startswith("player 1 (human) plays here in the terminal: the web extra is not "
                                "installed (pip install 'referee[web]'); --player human:web plays in the browser\n")
