"""Fuzzing every codec: board files through the real ``referee validate``,
decision files through each game's ``parse_decision``, pre-moves and
settings.  Whatever the bytes, the answer is a value or one line naming the
file (and line, column where there is one): never a traceback.

Inputs are random bytes and mutations of the valid files in boards/<game>/
(characters and lines flipped, inserted, deleted; huge numbers; a BOM, CRLF,
NUL, non-ASCII digits).  Hypothesis runs derandomized with modest example
counts, so CI sees the same cases every time and each test takes seconds.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import BOARDS, referee
from referee.cli import main
from referee.core import settings as settings_mod
from referee.core.errors import InputError
from referee.core.game import DecisionError, Setup
from referee.core.registry import available_games, get_game
from referee.games.quoridor.codec import parse_premoves

FUZZ = settings(max_examples=80, derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

NOT_BOARDS = {"README.md", "opening.premoves"}
BOARD_FILES = {game: sorted(p for p in (BOARDS / game).iterdir() if p.name not in NOT_BOARDS)
               for game in available_games()}

NASTY = ["\x00", "\r", "\r\n", "\ufeff", "\u0661", "\u0660", "\uff11", "\u00b2", "\u00a0", "\u2028",
         "\x0c", "\x85", "+", "-", "_", "#", " ", "\t", "\n", ".", "/", "|", "=", ":", "e", "x",
         "0", "1", "9", "10", "-1", "+1", "0_0", "9" * 19, "9" * 5000, "\u00e9", "nan", "inf"]
"""Characters and words that lenient readers mistake for numbers, spaces or
line ends (or that break ``int()``)."""

_nasty_word = st.sampled_from(NASTY)
nasty_text = st.one_of(_nasty_word, _nasty_word, _nasty_word, st.text(max_size=4),
                       st.integers(19, 6000).map(lambda n: "9" * n))
"""Mostly the known troublemakers, sometimes anything."""


@st.composite
def mutated(draw, text: str) -> str:
    """``text`` after a few random edits of characters and lines; half of
    them replace a number (where lenient readers break) with a nasty word."""
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["renumber", "renumber", "flip", "insert", "delete", "drop_line",
                                     "copy_line", "swap_lines", "bom", "crlf"]))
        lines = text.split("\n")
        at = draw(st.integers(0, max(len(text) - 1, 0)))
        row = draw(st.integers(0, len(lines) - 1))
        numbers = [m.span() for m in re.finditer("[0-9]+", text)]
        if kind == "renumber" and not numbers:
            kind = "flip"
        if kind == "renumber":
            start, end = draw(st.sampled_from(numbers))
            text = text[:start] + draw(nasty_text) + text[end:]
        elif kind == "flip":
            text = text[:at] + draw(nasty_text) + text[at + 1:]
        elif kind == "insert":
            text = text[:at] + draw(nasty_text) + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 8)):]
        elif kind == "drop_line":
            text = "\n".join(lines[:row] + lines[row + 1:])
        elif kind == "copy_line":
            text = "\n".join(lines[:row + 1] + lines[row:])
        elif kind == "swap_lines":
            other = draw(st.integers(0, len(lines) - 1))
            lines[row], lines[other] = lines[other], lines[row]
            text = "\n".join(lines)
        elif kind == "bom":
            text = "\ufeff" + text
        else:
            text = text.replace("\n", "\r\n")
    return text


ONE_LINE_ERROR = "referee: error: {file}(:[0-9]+(:[0-9]+)?)?: [^\n]+\n"


def check_validate(workdir: Path, game: str, data: bytes) -> None:
    """``referee validate`` on ``data``: exit 0 and "ok", or exit 2 and one
    line naming the file.  CliRunner calls the real command in this process,
    so a traceback shows up as ``result.exception``."""
    path = workdir / f"{game}.txt"
    path.write_bytes(data)
    result = CliRunner().invoke(main, ["validate", game, str(path)])
    if result.exit_code == 0:
        assert result.stdout.endswith(f"{path}: ok\n") and result.stderr == ""
        return
    assert result.exit_code == 2, result.exception
    assert re.fullmatch(ONE_LINE_ERROR.format(file=re.escape(str(path))), result.stderr), result.stderr


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


# ----------------------------------------------------------------- (a) boards through the CLI
@pytest.mark.parametrize("game", available_games())
@FUZZ
@given(data=st.data())
def test_mutated_board_files_validate_or_fail_in_one_line(workdir, game, data):
    original = data.draw(st.sampled_from(BOARD_FILES[game])).read_text(encoding="utf-8")
    text = data.draw(mutated(original))
    check_validate(workdir, game, text.encode("utf-8"))


@pytest.mark.parametrize("game", available_games())
@FUZZ
@given(data=st.data())
def test_random_bytes_validate_or_fail_in_one_line(workdir, game, data):
    original = data.draw(st.sampled_from(BOARD_FILES[game])).read_bytes()
    cut = data.draw(st.integers(0, len(original)))
    noise = data.draw(st.binary(max_size=64))
    spliced = original[:cut] + noise + original[cut:]
    check_validate(workdir, game, data.draw(st.sampled_from([noise, spliced])))


HOSTILE_FILES = [
    pytest.param(b"\x00" * 500, id="nul"), pytest.param(b"\xff\xfe1\x002\x00", id="utf16"),
    pytest.param(b"9" * 5000 + b"\n", id="5000-digits"), pytest.param(bytes(range(256)), id="all-bytes"),
]


@pytest.mark.parametrize("game", available_games())
@pytest.mark.parametrize("data", HOSTILE_FILES)
def test_hostile_files_fail_in_one_line(workdir, game, data):
    path = workdir / f"{game}.txt"
    path.write_bytes(data)
    result = CliRunner().invoke(main, ["validate", game, str(path)])
    assert result.exit_code == 2, result.exception
    assert re.fullmatch(ONE_LINE_ERROR.format(file=re.escape(str(path))), result.stderr), result.stderr


@pytest.mark.parametrize("game", available_games())
def test_hostile_files_through_the_installed_command(tmp_path, game):
    """The same in a process of its own (its stderr's encoding, its exit
    code), once per game: all 256 byte values."""
    path = tmp_path / "b.txt"
    path.write_bytes(bytes(range(256)))
    proc = referee("validate", game, path)
    assert proc.returncode == 2
    assert re.fullmatch(ONE_LINE_ERROR.format(file=re.escape(str(path))), proc.stderr), proc.stderr


@pytest.mark.parametrize("game", available_games())
def test_every_number_of_a_board_replaced_by_every_nasty_word(game):
    """Not random: each number in the game's first board file, in turn,
    replaced by each word of NASTY (where a random edit may miss the one
    spot a lenient reader breaks on)."""
    g = get_game(game)
    path = BOARD_FILES[game][0]
    text = path.read_text(encoding="utf-8")
    spots = [m.span() for m in re.finditer("[0-9]+", text)]
    assert spots
    for start, end in spots:
        for word in NASTY:
            try:
                g.parse_board(text[:start] + word + text[end:], str(path), g.variants[0])
            except InputError as exc:
                assert re.fullmatch(f"{re.escape(str(path))}(:[0-9]+(:[0-9]+)?)?: [^\n]+", str(exc)), exc


# ----------------------------------------------------------------- (b) decisions
def states() -> dict[str, object]:
    """A state per game to parse decisions against (Tsuro: a play step too)."""
    found = {}
    for name in available_games():
        game = get_game(name)
        players = 2 if 2 in game.player_counts else game.player_counts[0]
        found[name] = game.initial_state(Setup(game.variants[0], players, 1, None, dict(game.settings)))
    return found


STATES = states()
LEGAL_DECISIONS = {name: [str(d) for d in list(state.legal_decisions())[:40]]
                   for name, state in STATES.items()}
SAMPLE_DECISIONS = {name: legal + ["pass", "PASS", "S 3", "T 0 1 2 3", "M 8 4 7 4", "W 1 0 1 2"]
                    for name, legal in LEGAL_DECISIONS.items()}


def check_decision(name: str, text: str) -> None:
    """parse_decision raises DecisionError (one line) or returns a decision
    whose own text parses back to it."""
    game, state = get_game(name), STATES[name]
    try:
        decision = game.parse_decision(state, text)
    except DecisionError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 1000
        return
    assert game.parse_decision(state, str(decision)) == decision


@pytest.mark.parametrize("game", available_games())
@FUZZ
@given(text=st.text(max_size=40))
def test_arbitrary_decision_text_parses_or_is_a_decision_error(game, text):
    check_decision(game, text)


@pytest.mark.parametrize("game", available_games())
@FUZZ
@given(data=st.data())
def test_mutated_decisions_parse_or_are_decision_errors(game, data):
    original = data.draw(st.sampled_from(SAMPLE_DECISIONS[game]))
    check_decision(game, data.draw(mutated(original)))


@pytest.mark.parametrize("game", available_games())
@FUZZ
@given(data=st.data())
def test_valid_decisions_survive_bom_crlf_and_spacing(game, data):
    original = data.draw(st.sampled_from(LEGAL_DECISIONS[game]))
    g, state = get_game(game), STATES[game]
    decorated = (data.draw(st.sampled_from(["", "\ufeff"])) + data.draw(st.sampled_from(["", " ", "\t"]))
                 + original.replace(" ", data.draw(st.sampled_from([" ", "  ", "\t"])))
                 + data.draw(st.sampled_from(["", "\n", "\r\n", " \r\n\r\n"])))
    assert g.parse_decision(state, decorated) == g.parse_decision(state, original)


# ----------------------------------------------------------------- (c) BOM and CRLF keep files valid
def comparable(board):
    return board.to_json() if hasattr(board, "to_json") else board


ALL_BOARD_FILES = [p for files in BOARD_FILES.values() for p in files]


@pytest.mark.parametrize("path", ALL_BOARD_FILES, ids=lambda p: p.name)
@settings(FUZZ, max_examples=20)  # per board file (21 of them): a BOM or one CR is in nearly every example
@given(bom=st.booleans(), endings=st.lists(st.booleans(), min_size=60, max_size=60))
def test_valid_files_still_parse_with_a_bom_and_crlf(path, bom, endings):
    game = get_game(path.parent.name)
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    windows = "\n".join(line + ("\r" if crlf and i < len(lines) - 1 else "")
                        for i, (line, crlf) in enumerate(zip(lines, endings + [False] * len(lines))))
    windows = ("\ufeff" if bom else "") + windows
    expected = comparable(game.parse_board(text, str(path), game.variants[0]))
    assert comparable(game.parse_board(windows, str(path), game.variants[0])) == expected


# ----------------------------------------------------------------- pre-moves and settings
PREMOVES = (BOARDS / "quoridor" / "opening.premoves").read_text(encoding="utf-8")


@FUZZ
@given(data=st.data())
def test_mutated_premoves_parse_or_name_the_line(data):
    text = data.draw(mutated(PREMOVES))
    try:
        parse_premoves(text, "p")
    except InputError as exc:
        assert re.fullmatch(r"p(:[0-9]+(:[0-9]+)?)?: [^\n]+", str(exc)), str(exc)


@FUZZ
@given(value=st.one_of(st.text(max_size=30), nasty_text, st.integers(), st.floats(), st.booleans(),
                       st.integers(4000, 5000).map(lambda n: 10 ** n), st.none()))
def test_settings_and_limits_take_a_number_or_say_why(value):
    for like in (200, 1.5, True, "text"):
        try:
            coerced = settings_mod.coerce("x", value, like)
        except InputError as exc:
            assert "\n" not in str(exc)
        else:
            assert type(coerced) is type(like)
    try:
        settings_mod.resolve_limits(get_game("cantris"), {"cpu_time": value})
    except InputError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 200


def test_every_game_has_board_files_to_mutate():
    assert all(BOARD_FILES[game] for game in available_games())
