"""The game registry: games come from the ``referee.games`` entry points, the
built-in ones too; a clash or a broken plugin is one line naming the package
and costs nothing else; the core never imports ``referee.games``."""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from referee.core import registry
from referee.core.errors import InputError

from fake_dists import fake_dist

ROOT = Path(__file__).resolve().parents[1]
BUILT_IN = ["blackhole", "cantris", "quoridor", "tessella", "tsuro"]

RENAMED = '''\
from referee.games.blackhole.game import BlackHoleGame


class Renamed(BlackHoleGame):
    name = "{name}"
    title = "Black Hole, from a plugin"


GAME = Renamed()
'''


@pytest.fixture
def plugins(tmp_path, monkeypatch):
    """Put fake distributions on sys.path; the registry forgets them after."""

    def add(package: str, games: dict[str, str], modules: dict[str, str] | None = None) -> Path:
        root = fake_dist(tmp_path / package, package, games, modules=modules)
        monkeypatch.syspath_prepend(str(root))
        registry.refresh()
        return root

    yield add
    registry.refresh()


def test_built_in_games_come_from_entry_points():
    assert registry.available_games() == BUILT_IN
    for name in BUILT_IN:
        (entry,) = registry.entries()[name]
        assert entry.package == "referee" and entry.target == f"referee.games.{name}:GAME"
        assert registry.get_game(name).name == name


def test_the_core_never_imports_the_games_package():
    offenders = []
    for path in sorted((ROOT / "referee" / "core").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module"
                  and node.args and isinstance(node.args[0], ast.Constant)):
                names = [str(node.args[0].value)]
            offenders += [f"{path.name}:{node.lineno} {n}" for n in names
                          if n == "referee.games" or n.startswith("referee.games.")]
    assert offenders == []


def test_a_plugin_game_is_found_like_a_built_in_one(plugins):
    plugins("bh-plugin", {"bh2": "bh_plugin:GAME"}, {"bh_plugin.py": RENAMED.format(name="bh2")})
    assert "bh2" in registry.available_games()
    assert registry.get_game("bh2").title == "Black Hole, from a plugin"
    assert registry.entries()["bh2"][0].package == "bh-plugin"


def test_two_packages_with_one_name_make_it_unusable_and_say_who(plugins):
    plugins("one-pkg", {"twin": "one_pkg:GAME"}, {"one_pkg.py": RENAMED.format(name="twin")})
    plugins("other-pkg", {"twin": "other_pkg:GAME"}, {"other_pkg.py": RENAMED.format(name="twin")})
    assert "twin" not in registry.available_games()
    with pytest.raises(InputError) as err:
        registry.get_game("twin")
    line = str(err.value)
    assert "\n" not in line and "one-pkg" in line and "other-pkg" in line and "'twin'" in line
    assert registry.problems() == [line]
    assert registry.get_game("cantris").name == "cantris"  # the others still work


def test_a_plugin_that_cannot_import_costs_only_its_name(plugins):
    plugins("broken-game", {"broken": "broken_game:GAME"},
            {"broken_game.py": "import no_such_module_anywhere\n"})
    assert "broken" in registry.available_games()  # declared; loading says what is wrong
    with pytest.raises(InputError) as err:
        registry.get_game("broken")
    line = str(err.value)
    assert "\n" not in line
    assert "broken-game" in line and "ModuleNotFoundError" in line and "no_such_module_anywhere" in line
    assert registry.get_game("tsuro").name == "tsuro"


@pytest.mark.parametrize("source, words", [
    ("GAME = 42\n", "not a referee.core.game.Game"),
    (RENAMED.format(name="something-else"), "calls itself 'something-else'"),
    ("raise SystemExit('bye')\n", "failed to load"),
    ("def broken(:\n", "SyntaxError"),
])
def test_a_plugin_that_is_not_a_game_says_so(plugins, source, words):
    module = f"odd_game_{abs(hash(source))}"  # each case its own module: imports are cached
    plugins("odd-game", {"odd": f"{module}:GAME"}, {f"{module}.py": source})
    with pytest.raises(InputError) as err:
        registry.get_game("odd")
    assert words in str(err.value) and "odd-game" in str(err.value)


def test_an_unknown_game_lists_the_choices():
    with pytest.raises(InputError, match="unknown game 'chess'; choose one of: blackhole, cantris"):
        registry.get_game("chess")


def test_a_game_name_is_taken_in_any_case_and_read_as_declared():
    assert [registry.canonical_name(n) for n in ("Cantris", "QUORIDOR", "tsuro", "chess")] == \
        ["cantris", "quoridor", "tsuro", "chess"]
    assert registry.get_game("TsUrO") is registry.get_game("tsuro")
    assert registry.entry("BlackHole").name == "blackhole"
    assert registry.scene_target("Cantris") == registry.scene_target("cantris") is not None
    with pytest.raises(InputError, match="^unknown game 'Cantrs'; choose one of: blackhole, cantris"):
        registry.get_game("Cantrs")


def test_names_that_differ_only_in_case_are_each_exact_only(plugins):
    plugins("case-pkg", {"Twin": "case_a:GAME", "twin": "case_b:GAME"},
            {"case_a.py": RENAMED.format(name="Twin"), "case_b.py": RENAMED.format(name="twin")})
    assert registry.get_game("Twin").name == "Twin" and registry.get_game("twin").name == "twin"
    with pytest.raises(InputError, match="unknown game 'TWIN'"):  # which one: neither is guessed
        registry.get_game("TWIN")


def test_a_checkout_reads_its_own_games_from_setup_cfg(monkeypatch):
    """Metadata written before a game was declared (an old editable install)
    still finds every built-in game: the checkout's setup.cfg is the source."""
    monkeypatch.setattr(registry, "_installed_entries", lambda group: [])
    registry.refresh()
    try:
        assert registry.available_games() == BUILT_IN
    finally:
        registry.refresh()


def test_a_setup_cfg_of_another_project_is_not_ours(tmp_path):
    cfg = tmp_path / "setup.cfg"
    cfg.write_text("[metadata]\nname = other\n[options.entry_points]\nreferee.games =\n"
                   "    x = other:GAME\n", encoding="utf-8")
    assert registry._checkout_entries(cfg) is None
    cfg.write_text("[metadata]\nname = referee\n[options.entry_points]\nreferee.games =\n"
                   "    x = other:GAME\n", encoding="utf-8")
    assert [e.name for e in registry._checkout_entries(cfg)] == ["x"]
    cfg.write_text("not an ini file [", encoding="utf-8")
    assert registry._checkout_entries(cfg) is None


def test_the_command_line_names_the_broken_package_and_plays_on(tmp_path):
    root = fake_dist(tmp_path / "site", "broken-game", {"broken": "broken_game:GAME"},
                     modules={"broken_game.py": "raise ImportError('needs libfoo')\n"})
    fake_dist(root, "bh-plugin", {"bh2": "bh_plugin:GAME"},
              modules={"bh_plugin.py": RENAMED.format(name="bh2")})
    env = {**os.environ, "PYTHONPATH": str(root)}

    def run(*args):
        return subprocess.run([sys.executable, "-m", "referee", *args], capture_output=True,
                              text=True, env=env, cwd=tmp_path, timeout=120)

    bad = run("validate", "broken", str(ROOT / "boards" / "blackhole" / "standard.txt"))
    assert bad.returncode == 2
    assert bad.stderr.strip().count("\n") == 0 and "broken-game" in bad.stderr
    assert "needs libfoo" in bad.stderr and "Traceback" not in bad.stderr
    for game in ("bh2", "blackhole"):
        ok = run("validate", game, str(ROOT / "boards" / "blackhole" / "standard.txt"))
        assert ok.returncode == 0, ok.stderr
        assert ok.stdout.strip().endswith(": ok")
    # `referee games` lists every game, the broken one with why, and fails
    listed = run("games")
    assert listed.returncode == 1 and "Traceback" not in listed.stderr, listed.stderr
    lines = {line.split(":", 1)[0]: line for line in listed.stdout.splitlines()}
    assert set(lines) == {"blackhole", "bh2", "broken", "cantris", "quoridor", "tessella", "tsuro"}
    assert "unusable" in lines["broken"] and "needs libfoo" in lines["broken"]
    assert lines["bh2"].startswith("bh2: 2 players") and "bh-plugin" in lines["bh2"]
    assert "2, 3, 4, 5, 6, 7, 8 players" in lines["tsuro"]


def test_two_scenes_for_one_game_or_a_broken_scene_say_which_package(plugins, tmp_path):
    from referee.web.scenes import scene_module

    root = plugins("bh-scenes", {"bh3": "bh_scenes:GAME"}, {"bh_scenes.py": RENAMED.format(name="bh3")})
    info = next(root.glob("*.dist-info"))
    (info / "entry_points.txt").write_text("[referee.games]\nbh3 = bh_scenes:GAME\n"
                                           "[referee.scenes]\nbh3 = no_such_scene_module\n")
    registry.refresh()
    with pytest.raises(InputError, match=r"the replay scene of 'bh3' \(no_such_scene_module\) failed "
                                         r"to load: ModuleNotFoundError"):
        scene_module("bh3")
    other = fake_dist(tmp_path / "other", "other-scenes", {})
    (next(other.glob("*.dist-info")) / "entry_points.txt").write_text(
        "[referee.scenes]\nbh3 = referee.web.scenes.blackhole\n")
    sys.path.insert(0, str(other))
    registry.refresh()
    try:
        with pytest.raises(InputError) as err:
            scene_module("bh3")
        assert str(err.value).startswith("the replay scene of game 'bh3' is declared by 2 packages")
        assert "bh-scenes" in str(err.value) and "other-scenes" in str(err.value)
    finally:
        sys.path.remove(str(other))
