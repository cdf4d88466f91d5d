"""Config errors name the file, the line and the key, before anything runs."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee import resources
from referee.cli import main
from referee.core.errors import InputError
from referee.tournament.config import load_config

GOOD = """\
game: cantris
format: double_elimination
seeding: random
seed: 4
limits: {soft_time: 5}
entrants:
  - name: ann
    command: builtin:random
  - name: bob
    command: builtin:greedy
  - name: cy
    command: python3 bots/cy.py
"""


def write(tmp_path, text):
    path = tmp_path / "class.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def error(tmp_path, text) -> str:
    with pytest.raises(InputError) as caught:
        load_config(write(tmp_path, text))
    return str(caught.value)


def test_a_good_config(tmp_path):
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "cy.py").write_text("")
    config = load_config(write(tmp_path, GOOD))
    assert config.names == ["ann", "bob", "cy"] and config.boards == (None,)
    assert config.out == tmp_path / "class-results" and config.table_size == 2
    assert sorted(config.seeded()) == [0, 1, 2]
    assert config.seeded() == load_config(write(tmp_path, GOOD)).seeded()


def test_time_limit_is_the_soft_limit_as_in_play_and_grading_configs(tmp_path):
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "cy.py").write_text("")
    config = load_config(write(tmp_path, GOOD.replace("soft_time: 5", "time_limit: 5")))
    assert config.limits == {"soft_time": 5}
    assert load_config(write(tmp_path, GOOD.replace("soft_time: 5", "soft_time: 5, time_limit: 5"))
                       ).limits == {"soft_time": 5}  # the same value twice (tests/test_soft_time.py)


@pytest.mark.parametrize("change,expected", [
    (("game: cantris", "game: chess"), "class.yaml:1: game: unknown game 'chess'"),
    (("format: double_elimination", "format: league"), "class.yaml:2: format: 'league' is not one of"),
    (("seeding: random", "seeding: [1]"), "class.yaml:3: seeding: expected a string"),
    (("seed: 4", "seed: four"), "class.yaml:4: seed: expected an integer, got 'four'"),
    (("seed: 4", "seed: -1"), "class.yaml:4: seed: expected an integer of 0 or more, got -1"),
    (("soft_time: 5", "soft_tme: 5"), "class.yaml:5: limits.soft_tme: unknown limit"),
    (("soft_time: 5", "soft_time: -1"), "class.yaml:5: limits: limit soft_time: must be positive"),
    (("command: builtin:greedy", "command: builtin:genius"),
     "class.yaml:10: entrants[1].command: no built-in player 'genius' for cantris"),
    (("    command: builtin:greedy\n", ""), "class.yaml:9: entrants[1].command: missing"),
    (("name: cy", "name: ann"), "class.yaml:11: entrants[2].name: 'ann' is already an entrant's name"),
    (("command: builtin:random", "command: human"), "entrants[0].command: a human cannot play"),
    (("seed: 4", "sed: 4"), "class.yaml:4: sed: unknown key"),
    (("seed: 4", "rounds: 2"), "class.yaml:4: rounds: a positive number of rounds, for round_robin or swiss only"),
    # YAML keeps the last of a key given twice: this was a Tsuro tournament
    (("seed: 4", "seed: 4\ngame: tsuro"), "class.yaml:5:1: not valid YAML: key 'game' is given twice "
                                          "(first on line 1)"),
    # a typo of a count: the schedule was built for hours before the first game
    (("format: double_elimination", "format: round_robin\nrounds: 99999999999"),
     "class.yaml:3: rounds: at most 100000 rounds, got 99999999999"),
    (("seed: 4", "players: 3"), "class.yaml:4: players: cantris is played by 2 players, not 3"),
    (("seed: 4", "settings: {depth: 3}"), "class.yaml:4: settings.depth: unknown setting 'depth'"),
    # the results folder is the config file itself, or the config's own folder
    (("seed: 4", "out: class.yaml"), "class.yaml:4: out: the results folder "),
    (("seed: 4", "out: class.yaml/x"), "class.yaml, which is a file, not a folder"),
    (("seed: 4", "out: ''"), "class.yaml:4: out: expected a folder's name, got an empty one"),
])
def test_errors_name_line_and_key(tmp_path, change, expected):
    assert expected in error(tmp_path, GOOD.replace(*change))


def test_fewer_than_two_entrants(tmp_path):
    text = GOOD.split("  - name: bob")[0]
    assert "entrants: at least 2 entrants are needed, got 1" in error(tmp_path, text)


def test_board_suite_errors(tmp_path):
    (tmp_path / "empty").mkdir()
    assert "boards: 'empty' names no board file" in error(tmp_path, GOOD + "boards: empty\n")
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "a.txt").write_text("1 2 3\n2 3 1\n3 1 2\n")
    (tmp_path / "suite" / "b.txt").write_text("1 2 3\n2 x 1\n3 1 2\n")
    message = error(tmp_path, GOOD + "boards: [suite/a.txt, suite/b.txt]\n")
    assert message.startswith(f"{tmp_path / 'class.yaml'}:13: boards[1]: ")
    assert "b.txt:2:3:" in message


def test_shipped_boards_are_found_by_name_where_the_configs_folder_has_none(tmp_path):
    """As ``--board`` finds them from any folder (the README): a name joined
    to the config's folder first was 'names no board file'."""
    text = """\
    game: tsuro
    entrants: [{name: a, command: 'builtin:random'}, {name: b, command: 'builtin:random'}]
    boards: [center, empty.txt, boards/tsuro/center.txt]
    """
    shipped = resources.boards_dir() / "tsuro"
    assert load_config(write(tmp_path, text)).boards == (shipped / "center.txt", shipped / "empty.txt",
                                                         shipped / "center.txt")
    suite = text.replace("[center, empty.txt, boards/tsuro/center.txt]", "boards/tsuro/")
    assert load_config(write(tmp_path, suite)).boards == (shipped / "center.txt", shipped / "empty.txt")
    (tmp_path / "center").write_text("mine")  # a file beside the config wins
    assert "boards[0]: " in error(tmp_path, text)


def test_a_shipped_premoves_file_is_found_by_name_as_a_board_is(tmp_path):
    text = """\
    game: quoridor
    entrants: [{name: a, command: 'builtin:random'}, {name: b, command: 'builtin:random'}]
    settings: {premoves_file: boards/quoridor/opening.premoves}
    """
    shipped = resources.boards_dir() / "quoridor" / "opening.premoves"
    assert load_config(write(tmp_path, text)).settings == {"premoves_file": str(shipped)}


@pytest.mark.parametrize("boards,expected", [
    ("[]", "boards: expected a board file, folder or pattern, or a list of them, got []"),
    ("''", "boards: expected a board file, folder or pattern, or a list of them, got ''"),
    ("['']", "boards[0]: expected a file, folder or pattern, got ''"),  # was every file beside the config
])
def test_an_empty_board_suite_is_refused_at_its_line(tmp_path, boards, expected):
    message = error(tmp_path, GOOD + f"boards: {boards}\n")
    assert message.startswith(f"{tmp_path / 'class.yaml'}:13: {expected}")


def test_an_empty_board_suite_leaves_nothing_behind(tmp_path):
    # It was the planner's KeyError, a traceback, after tournament.json was
    # written: the next run was told to add --resume.
    path = write(tmp_path, GOOD.replace("    command: python3 bots/cy.py\n", "    command: builtin:random\n")
                 + "boards: []\n")
    for _ in range(2):
        result = CliRunner().invoke(main, ["tournament", str(path)])
        assert result.exit_code == 2
        assert result.output.strip().splitlines() == [
            f"referee: error: {path}:13: boards: expected a board file, folder or pattern, or a list of them, "
            "got []; leave boards: out for the game's default board"]
        assert not (tmp_path / "class-results").exists()


def test_elimination_needs_two_player_tables(tmp_path):
    text = """\
    game: tsuro
    players: 4
    format: single_elimination
    entrants: [{name: a, command: 'python3 x.py'}, {name: b, command: 'python3 x.py'},
               {name: c, command: 'python3 x.py'}, {name: d, command: 'python3 x.py'}]
    """
    assert "class.yaml:3: format: single_elimination needs two-player games" in error(tmp_path, text)


def test_bad_yaml_is_located(tmp_path):
    assert "class.yaml:2:7: not valid YAML" in error(tmp_path, "game: cantris\nseed: : 3\n")


def test_a_byte_that_is_not_utf8_is_located(tmp_path):
    path = tmp_path / "class.yaml"
    path.write_bytes(b"\xef\xbb\xbfgame: cantris\nseed: 4\xff\n")
    with pytest.raises(InputError) as caught:
        load_config(path)
    assert str(caught.value) == f"{path}:2:8: not UTF-8 text (byte 0xff); save it as UTF-8"


def test_cli_exits_2_with_one_line(tmp_path):
    path = write(tmp_path, GOOD.replace("seed: 4", "seed: four"))
    result = CliRunner().invoke(main, ["tournament", str(path)])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "seed: expected an integer" in lines[0]
    assert not (tmp_path / "class-results").exists()  # nothing ran


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc, where no folder can be made")
def test_a_results_folder_that_cannot_be_made_is_one_line(tmp_path):
    path = write(tmp_path, GOOD.replace("    command: python3 bots/cy.py\n", "    command: builtin:random\n")
                 + "out: /proc/referee-nope\n")
    result = CliRunner().invoke(main, ["tournament", str(path)])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "referee: error: cannot write the results folder /proc/referee-nope: No such file or directory"]


def test_the_documented_example_is_a_valid_config(tmp_path):
    doc = (Path(__file__).resolve().parents[1] / "docs" / "tournaments.md").read_text()
    example = doc.split("```yaml\n", 1)[1].split("```", 1)[0]
    (tmp_path / "boards").symlink_to(Path(__file__).resolve().parents[1] / "boards")
    config = load_config(write(tmp_path, example))
    assert config.format == "double_elimination" and len(config.entrants) == 4
    assert len(config.boards) > 1 and config.out == tmp_path / "results" / "week3"


def test_the_programs_recorded_for_resume_are_the_entrants_files_only(tmp_path):
    """A module player's folder (a package) crashed the record with a
    traceback (IsADirectoryError) and left the lock behind; its command's
    first word, the referee's own Python, was recorded as the entrant's
    program, so a rebuilt venv refused every resume."""
    team = tmp_path / "team"
    team.mkdir()
    (team / "__init__.py").write_text("def init(l, p, n, h): return {}\n")
    (tmp_path / "solo.py").write_text("def init(l, p, n, h): return {}\n")
    text = """\
    game: quoridor
    entrants: [{name: a, command: 'module:team'}, {name: b, command: 'module:solo.py'}]
    """
    programs = load_config(write(tmp_path, text)).programs()
    assert programs["a"] == {} and list(programs["b"]) == [str(tmp_path / "solo.py")], programs
