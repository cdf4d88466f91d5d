"""``time_limit`` is another name for ``soft_time``: every reader (play's
flags and --config, check-bot's flags, tournament and grading configs) takes
both only with the same value, and refuses two values in the same words, at
the file and line of the one given later in the file (referee/core/limits_given.py)."""
from __future__ import annotations

import pytest
import yaml

from conftest import BOARDS, referee
from grading_kit import CONFIG, write_config
from referee.core.errors import InputError
from referee.grading import config as grading_config
from referee.tournament.config import load_config as load_tournament

BOARD = BOARDS / "cantris" / "6x3-1.txt"
TWO = "are two soft time limits (time_limit is another name for soft_time): give one of them"
TOURNAMENT = """\
game: cantris
limits:
  soft_time: 5
  LIMIT
entrants:
  - {name: ann, command: builtin:random}
  - {name: bob, command: builtin:greedy}
"""


def test_a_tournament_config_takes_both_only_with_one_value(tmp_path):
    path = tmp_path / "class.yaml"
    path.write_text(TOURNAMENT.replace("LIMIT", "time_limit: 5.0"))
    assert load_tournament(path).limits == {"soft_time": 5.0}
    path.write_text(TOURNAMENT.replace("LIMIT", "time_limit: 4"))
    with pytest.raises(InputError) as caught:
        load_tournament(path)
    assert str(caught.value) == f"{path}:4: limits.soft_time: 5 and limits.time_limit: 4 {TWO}"
    path.write_text(TOURNAMENT.replace("LIMIT", "hard_time: 20").replace("entrants:", "settings: {soft_time: 6}\nentrants:"))
    with pytest.raises(InputError) as caught:  # the limits: one won, silently
        load_tournament(path)
    assert str(caught.value) == f"{path}:5: settings.soft_time: 6 and limits.soft_time: 5 {TWO}"


def test_a_grading_config_takes_both_only_with_one_value(tmp_path):
    same = write_config(tmp_path, CONFIG.replace("time_limit: 10,", "time_limit: 10, soft_time: 10,"))
    assert grading_config.load(same).limits["soft_time"] == 10
    path = write_config(tmp_path, CONFIG.replace("time_limit: 10,", "time_limit: 10, soft_time: 3,"))
    with pytest.raises(InputError) as caught:  # time_limit won, silently
        grading_config.load(path)
    assert str(caught.value) == f"{path}:7: limits.soft_time: 3 and limits.time_limit: 10 {TWO}"
    proc = referee("grade", path, "--submission", tmp_path)
    assert proc.returncode == 2 and proc.stderr == f"referee: error: {caught.value}\n"


def play(tmp_path, config: str, *flags: str):
    (tmp_path / "c.yaml").write_text(f"game: cantris\nplayers: [builtin:random, builtin:random]\n{config}")
    return referee("play", "--config", "c.yaml", "--board", BOARD, "--seed", "1", "--out", "m",
                   "--replace", "--quiet", *flags, cwd=tmp_path)


def soft_time_played(tmp_path, proc) -> float:
    assert proc.returncode == 0, proc.stderr
    return yaml.safe_load((tmp_path / "m" / "match.yaml").read_text())["limits"]["soft_time"]


@pytest.mark.parametrize("config, line, message", [
    ("time_limit: 3\nlimits: {soft_time: 5}\n", 4, "limits.soft_time: 5 and time_limit: 3"),  # soft_time won
    ("limits:\n  time_limit: 3\n  soft_time: 5\n", 5, "limits.soft_time: 5 and limits.time_limit: 3"),
    ("set: [soft_time=4]\ntime_limit: 3\n", 4, "set: soft_time=4 and time_limit: 3"),
])
def test_a_play_config_takes_both_only_with_one_value(tmp_path, config, line, message):
    proc = play(tmp_path, config)
    assert proc.returncode == 2 and proc.stderr == f"referee: error: c.yaml:{line}: {message} {TWO}\n"


def test_a_play_config_with_both_alike_plays_and_takes_limits_time_limit(tmp_path):
    assert soft_time_played(tmp_path, play(tmp_path, "time_limit: 3\nlimits: {soft_time: 3.0}\n")) == 3
    # limits.time_limit, as a tournament's or grading config's: was a traceback
    assert soft_time_played(tmp_path, play(tmp_path, "limits: {time_limit: 4}\n")) == 4
    proc = play(tmp_path, "limits: {soft_tme: 4}\n")
    assert proc.returncode == 2 and proc.stderr.startswith(
        "referee: error: c.yaml:3: limits: unknown limit 'soft_tme'; the limits are: soft_time, ")


def test_flags_take_both_only_with_one_value_and_win_over_the_config(tmp_path):
    proc = play(tmp_path, "", "--time-limit", "2", "--set", "soft_time=3")  # --time-limit won, silently
    assert proc.returncode == 2 and proc.stderr == f"referee: error: --set soft_time=3 and --time-limit 2 {TWO}\n"
    assert soft_time_played(tmp_path, play(tmp_path, "", "--time-limit", "2", "--set", "soft_time=2.0")) == 2
    # a flag overrides the file, also its limits: (they won over --time-limit and --set)
    assert soft_time_played(tmp_path, play(tmp_path, "limits: {soft_time: 5}\n", "--time-limit", "2")) == 2
    proc = play(tmp_path, "limits: {memory_mb: 900}\n", "--set", "memory_mb=800")
    assert proc.returncode == 0 and "memory_mb: 800" in (tmp_path / "m" / "match.yaml").read_text()
    proc = referee("check-bot", "cantris", "--player", "builtin:random", "--time-limit", "2",
                   "--set", "soft_time=3", "--out", tmp_path / "check", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr == f"referee: error: --set soft_time=3 and --time-limit 2 {TWO}\n"


def test_any_limit_given_twice_in_a_config_takes_one_value_or_is_one_line(tmp_path):
    # The same class as soft_time: settings: and limits: both naming memory_mb
    # let limits: win silently in a tournament, grading and play config.
    both = "  memory_mb: 512\n"
    path = tmp_path / "class.yaml"
    path.write_text(TOURNAMENT.replace("  LIMIT\n", both).replace("entrants:", "settings: {memory_mb: 512.0}\nentrants:"))
    assert load_tournament(path).limits["memory_mb"] == 512
    path.write_text(TOURNAMENT.replace("  LIMIT\n", both).replace("entrants:", "settings: {memory_mb: 256}\nentrants:"))
    with pytest.raises(InputError) as caught:
        load_tournament(path)
    assert str(caught.value) == (f"{path}:5: settings.memory_mb: 256 and limits.memory_mb: 512 are two values "
                                 "of the limit memory_mb: give one of them")
    proc = play(tmp_path, "settings: {hard_time: 9}\nlimits: {hard_time: 8}\n")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == ("referee: error: c.yaml:4: settings.hard_time: 9 and limits.hard_time: 8 are two "
                           "values of the limit hard_time: give one of them\n")
    assert play(tmp_path, "set: [hard_time=60]\nlimits: {hard_time: 60.0}\n").returncode == 0


def test_two_soft_time_limits_are_named_at_the_line_given_later_in_the_file(tmp_path):
    proc = play(tmp_path, "time_limit: 2\nlimits: {soft_time: 3}\n")
    assert proc.returncode == 2 and proc.stderr.startswith("referee: error: c.yaml:4: "), proc.stderr
