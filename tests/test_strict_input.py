"""Worked examples of the hostile review's findings on board and decision
files (issue 9): every one is refused with one precise line, or, for the
Windows editors' BOM and CRLF, read as its author meant."""
from __future__ import annotations

import pytest

from conftest import BOARDS, referee
from referee.core import numbers, settings
from referee.core.errors import InputError
from referee.core.game import DecisionError, Setup
from referee.core.textgrid import MAX_FILE_CHARS
from referee.core.registry import available_games, get_game
from referee.games.quoridor.codec import parse_premoves

HUGE = "9" * 5000
STRANGE_NUMBERS = ["+1", "0_0", "\u0661", "\uff11", "1\u0660", "\u00b2", "0x1", "1e3", "--1"]
"""Sign, separator, Arabic-Indic one, fullwidth one, Arabic-Indic zero after
an ASCII digit, superscript two, hex, exponent, double minus."""

BOARD_FILES = {
    "cantris": BOARDS / "cantris" / "8x4-1.txt",
    "blackhole": BOARDS / "blackhole" / "standard.txt",
    "tessella": BOARDS / "tessella" / "standard.txt",
    "quoridor": BOARDS / "quoridor" / "standard-2p.txt",
    "tsuro": BOARDS / "tsuro" / "center.txt",
}
"""One valid board per game, with a number to spoil in it (see NUMBER_SPOTS)."""

NUMBER_SPOTS = {
    # game: (text to replace in the board, a template with {n} for the number, its line)
    "cantris": ("3 2 3 1", "3 {n} 3 1", 1),
    "quoridor": ("ply: 0", "ply: {n}", 3),
    "tsuro": ("27/0", "{n}/0", 5),
}


def board_text(game: str) -> str:
    return BOARD_FILES[game].read_text(encoding="utf-8")


def parse(game: str, text: str):
    """The board, as a comparable value (Quoridor's state compares by identity
    of its caches, its JSON by value)."""
    g = get_game(game)
    board = g.parse_board(text, "b.txt", g.variants[0])
    return board.to_json() if hasattr(board, "to_json") else board


def first_state(game: str):
    g = get_game(game)
    players = 2 if 2 in g.player_counts else g.player_counts[0]
    return g.initial_state(Setup(g.variants[0], players, 1, None, dict(g.settings)))


def test_every_game_has_a_board_here():
    assert sorted(BOARD_FILES) == available_games()


# ----------------------------------------------------------------- numbers
@pytest.mark.parametrize("word", STRANGE_NUMBERS + ["", "-", "1.0", " 1", "1 "])
def test_number_reader_takes_ascii_digits_only(word):
    with pytest.raises(numbers.NumberError, match="is not an integer"):
        numbers.integer(word, signed=True)


@pytest.mark.parametrize("word, hint", [
    ("+1", "without '+'"), ("0_0", "no '_'"), ("\u0661", "ASCII digits"),
    ("\uff11\uff12", "ASCII digits"),
    ("-3", "cannot be negative"),
])
def test_number_reader_says_how_to_write_it(word, hint):
    with pytest.raises(numbers.NumberError) as caught:
        numbers.integer(word)
    assert hint in caught.value.hint


def test_huge_numbers_are_refused_without_converting_them():
    with pytest.raises(numbers.NumberError, match=r"too long for a number \(at most 18 digits\)") \
            as caught:
        numbers.integer(HUGE)
    assert "5000 characters" in str(caught.value) and len(str(caught.value)) < 120
    assert numbers.integer("9" * numbers.MAX_DIGITS) == 10 ** numbers.MAX_DIGITS - 1
    with pytest.raises(numbers.NumberError, match="too long"):
        numbers.integer("0" * (numbers.MAX_DIGITS + 1))


def test_ranges_refuse_negative_zero_and_name_the_value():
    assert numbers.parse_int("007", 0, 8, "row") == 7
    with pytest.raises(numbers.OutOfRange, match="row 9 is outside 0..8"):
        numbers.parse_int("9", 0, 8, "row")
    with pytest.raises(numbers.OutOfRange, match="row -0 is outside 0..8"):
        numbers.parse_int("-0", 0, 8, "row")
    assert numbers.parse_int("-4", -5, 5) == -4


@pytest.mark.parametrize("text", ["1e999", "nan", "inf", "-inf", "Infinity", "+1", "0_0", "1.", ".5",
                                  "\u0661", "1,5", "0x10"])
def test_decimals_are_plain(text):
    with pytest.raises(numbers.NumberError):
        numbers.decimal(text, signed=True)


def test_decimals_read_what_a_person_writes():
    assert numbers.decimal("30") == 30.0 and numbers.decimal("2.5") == 2.5
    assert numbers.decimal("-1.5", signed=True) == -1.5


# ----------------------------------------------------------------- boards
@pytest.mark.parametrize("game", sorted(NUMBER_SPOTS))
@pytest.mark.parametrize("number", [pytest.param(HUGE, id="5000-digits"), *STRANGE_NUMBERS])
def test_board_numbers_are_plain_ascii_and_bounded(game, number):
    old, template, line = NUMBER_SPOTS[game]
    text = board_text(game)
    assert old in text
    with pytest.raises(InputError) as caught:
        parse(game, text.replace(old, template.format(n=number), 1))
    message = str(caught.value)
    assert message.startswith(f"b.txt:{line}:") and "\n" not in message
    assert len(message) < 200


def test_a_5000_digit_number_is_one_line_in_the_quoridor_and_tsuro_codecs():
    with pytest.raises(InputError, match=r"^b.txt:3: 'ply': '9999.*too long for a number"):
        parse("quoridor", board_text("quoridor").replace("ply: 0", f"ply: {HUGE}"))
    with pytest.raises(InputError, match=r"^b.txt:5:\d+: tile of cell '9999.*too long for a number"):
        parse("tsuro", board_text("tsuro").replace("27/0", f"{HUGE}/0"))
    with pytest.raises(InputError, match=r"^b.txt:5:\d+: rotation of cell '27/9999.*too long"):
        parse("tsuro", board_text("tsuro").replace("27/0", f"27/{HUGE}"))
    with pytest.raises(InputError, match=r"^b.txt:4: 'walls left' for player 1: '9999.*too long"):
        parse("quoridor", board_text("quoridor").replace("1=10", f"1={HUGE}"))


@pytest.mark.parametrize("ply, message", [
    ("-1", "b.txt:3: ply -1 is outside 0..1000000"),
    ("1000001", "b.txt:3: ply 1000001 is outside 0..1000000"),
    ("+5", "b.txt:3: 'ply': '+5' is not an integer (write it without '+')"),
    ("5 6", "b.txt:3: 'ply': '5 6' is not an integer"),
])
def test_quoridor_ply_is_bounded(ply, message):
    with pytest.raises(InputError) as caught:
        parse("quoridor", board_text("quoridor").replace("ply: 0", f"ply: {ply}"))
    assert str(caught.value) == message


def test_quoridor_refuses_digit_lines_after_the_drawing():
    text = board_text("quoridor")
    lines = text.count("\n")
    with pytest.raises(InputError) as caught:
        parse("quoridor", text + "12345\n")
    assert str(caught.value) == (f"b.txt:{lines + 1}:1: text after the drawing: only '#' comments "
                                 "and the column labels may follow it")
    with pytest.raises(InputError, match=f"b.txt:{lines + 1}: column labels belong"):
        parse("quoridor", text + "     0   1   2   3   4   5   6   7   8\n")
    # The labels themselves stay optional, above and below.
    bare = "\n".join(line for line in text.splitlines() if line.split() != list("012345678"))
    assert len(bare.splitlines()) == len(text.splitlines()) - 2
    assert parse("quoridor", bare) == parse("quoridor", text)


def test_quoridor_refuses_unknown_headers_and_doubled_walls():
    text = board_text("quoridor")
    with pytest.raises(InputError, match="b.txt:1: unknown header 'colour'"):
        parse("quoridor", "colour: red\n" + text)
    with pytest.raises(InputError, match="b.txt:4: 'walls left' gives player 1 twice"):
        parse("quoridor", text.replace("1=10 2=10", "1=10 1=9 2=10"))


def test_a_10_mb_line_of_digits_is_refused_early_with_one_line(tmp_path):
    text = "1" * 10_000_000
    for game in available_games():
        with pytest.raises(InputError) as caught:
            parse(game, text)
        assert str(caught.value) == (f"b.txt: the file has 10000000 characters; the referee reads "
                                     f"files of at most {MAX_FILE_CHARS}")
    path = tmp_path / "big.txt"
    path.write_text(text + "\n")
    proc = referee("validate", "quoridor", path)
    assert proc.returncode == 2
    # refused after 4 bytes a character, unread: one limit, as for a file read whole
    assert proc.stderr == (f"referee: error: {path}: the file has more than {MAX_FILE_CHARS} characters; "
                           f"the referee reads files of at most {MAX_FILE_CHARS}\n")
    path.write_text("1" * (MAX_FILE_CHARS + 1))
    proc = referee("validate", "quoridor", path)
    assert proc.returncode == 2
    assert proc.stderr == (f"referee: error: {path}: the file has {MAX_FILE_CHARS + 1} characters; "
                           f"the referee reads files of at most {MAX_FILE_CHARS}\n")


@pytest.mark.parametrize("game", sorted(BOARD_FILES))
def test_bom_and_crlf_read_as_the_author_meant(game):
    text = board_text(game)
    expected = parse(game, text)
    assert parse(game, "\ufeff" + text) == expected
    assert parse(game, text.replace("\n", "\r\n")) == expected
    assert parse(game, "\ufeff" + text.replace("\n", "\r\n")) == expected


@pytest.mark.parametrize("game", sorted(NUMBER_SPOTS))
def test_with_a_bom_errors_still_name_the_editors_line(game):
    old, template, line = NUMBER_SPOTS[game]
    spoilt = board_text(game).replace(old, template.format(n="x"), 1)
    with pytest.raises(InputError) as plain:
        parse(game, spoilt)
    with pytest.raises(InputError) as bom:
        parse(game, "\ufeff" + spoilt.replace("\n", "\r\n"))
    assert str(bom.value) == str(plain.value)
    assert str(bom.value).startswith(f"b.txt:{line}:")


def test_quoridor_with_a_bom_names_the_right_line():
    # Before: the BOM hid the "players" header, and the error named line 5.
    text = "\ufeff" + board_text("quoridor").replace("to move: 1", "to move: 3")
    with pytest.raises(InputError) as caught:
        parse("quoridor", text)
    assert str(caught.value) == "b.txt:2: player 3 is to move but has no pawn on the board"


@pytest.mark.parametrize("char, name", [
    ("\x00", "NUL character"), ("\r", "carriage return not followed by a line feed"),
    ("\ufeff", "byte-order mark"), ("\x0c", "control character U+000C"),
])
@pytest.mark.parametrize("game", sorted(BOARD_FILES))
def test_control_characters_are_refused_where_they_stand(game, char, name):
    lines = board_text(game).split("\n")
    lines[2] = lines[2][:1] + char + lines[2][1:]
    with pytest.raises(InputError) as caught:
        parse(game, "\n".join(lines))
    assert str(caught.value).startswith(f"b.txt:3:2: unexpected {name}")


def test_unicode_spaces_do_not_separate_words():
    with pytest.raises(InputError, match="b.txt:1:3: '2\\\\u20033' is not an integer"):
        parse("cantris", board_text("cantris").replace("3 2 3 1", "3 2\u20033 1", 1))


def test_premoves_file_reads_bom_and_crlf_and_names_lines():
    assert len(parse_premoves("\ufeffM 8 4 7 4\r\nM 0 4 1 4\r\n", "p")) == 2
    with pytest.raises(InputError,
                       match=r"^p:2: pre-move 'M 0 4 1 \+4': '\+4' is not an integer \(write it without '\+'\)$"):
        parse_premoves("\ufeffM 8 4 7 4\r\nM 0 4 1 +4\r\n", "p")


def test_validate_reads_a_notepad_file_and_names_bad_bytes(tmp_path):
    path = tmp_path / "b.txt"
    path.write_bytes(b"\xef\xbb\xbf" + board_text("quoridor").replace("\n", "\r\n").encode())
    proc = referee("validate", "quoridor", path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"{path}: ok\n", "")
    path.write_bytes(b"2 4 3 1\n4 1 \xff 3\n")
    proc = referee("validate", "cantris", path)
    assert (proc.returncode, proc.stderr) == (
        2, f"referee: error: {path}:2:5: not UTF-8 text (byte 0xff); save the file as UTF-8\n")
    path.write_bytes("2 4 3 1\n".encode("utf-16"))
    proc = referee("validate", "cantris", path)
    assert proc.stderr == (f"referee: error: {path}:1:1: the file is UTF-16 (Notepad's 'Unicode'); "
                           "save it as UTF-8\n")


# ----------------------------------------------------------------- decisions
DECISIONS = {
    # game: (a decision with {n} for one of its numbers)
    "cantris": "3 {n}",
    "blackhole": "0 {n} D",
    "tessella": "3 1 {n} 1",
    "quoridor": "M 8 4 {n} 4",
    "tsuro": "S {n}",
}


@pytest.mark.parametrize("game", sorted(DECISIONS))
@pytest.mark.parametrize("number", [pytest.param(HUGE, id="5000-digits"), *STRANGE_NUMBERS])
def test_decision_numbers_are_plain_ascii_and_bounded(game, number):
    state = first_state(game)
    with pytest.raises(DecisionError) as caught:
        get_game(game).parse_decision(state, DECISIONS[game].format(n=number))
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 400


@pytest.mark.parametrize("game", sorted(DECISIONS))
def test_decisions_written_by_notepad_parse(game):
    g, state = get_game(game), first_state(game)
    text = DECISIONS[game].format(n="1")
    assert g.parse_decision(state, "\ufeff" + text + "\r\n") == g.parse_decision(state, text)


@pytest.mark.parametrize("game", sorted(DECISIONS))
def test_an_absurdly_long_decision_is_refused_in_one_line(game):
    with pytest.raises(DecisionError) as caught:
        get_game(game).parse_decision(first_state(game), DECISIONS[game].format(n="1") + " " * 60000)
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 400


def test_decision_messages_say_what_was_expected():
    quoridor = get_game("quoridor")
    state = first_state("quoridor")
    with pytest.raises(DecisionError) as caught:
        quoridor.parse_decision(state, "M 8 4 +7 4")
    assert str(caught.value) == "'+7' is not an integer (write it without '+')"
    with pytest.raises(DecisionError, match=r"^r1 -1 is outside 0..99$"):
        quoridor.parse_decision(state, "M -1 4 7 4")
    # Two digits are still read, so the rules can say the square is off the board.
    assert state.illegal_reason(quoridor.parse_decision(state, "M 8 4 10 4")) == (
        "(10,4) is off the board (rows and columns 0..8)")
    with pytest.raises(DecisionError, match="'\u0661' is not an integer \\(only the ASCII digits 0-9\\)"):
        get_game("tsuro").parse_decision(first_state("tsuro"), "S \u0661")
    with pytest.raises(DecisionError, match="column -1 is off the board"):
        get_game("blackhole").parse_decision(first_state("blackhole"), "0 -1 D")


def test_unicode_spaces_do_not_separate_decision_words():
    with pytest.raises(DecisionError):
        get_game("cantris").parse_decision(first_state("cantris"), "3\u00a02")
    with pytest.raises(DecisionError):
        get_game("quoridor").parse_decision(first_state("quoridor"), "M\u30008 4 7 4")


@pytest.mark.parametrize("game", sorted(DECISIONS))
def test_a_decision_with_a_note_under_it_says_the_file_has_two_lines(game):
    """Cantris said '7 0\\nI think this is best' was "expected two integers
    'r c', got 7 word(s)": the count hid the second line.  Every game says one
    line is expected, and how many the file has; a decision whose words are
    on several lines still reads where line ends separate words."""
    g, state = get_game(game), first_state(game)
    text = DECISIONS[game].format(n="1")
    noted = text + "\nI think this is best"
    with pytest.raises(DecisionError) as caught:
        g.parse_decision(state, noted + "\n")
    message = str(caught.value)
    assert message.startswith("expected one line ") and message.endswith(f"; got 2 lines: {numbers.quote(noted)}"), message
    if game != "quoridor":  # its decision is one line (docs/games/quoridor.md)
        assert g.parse_decision(state, text.replace(" ", "\n")) == g.parse_decision(state, text)
    if game == "cantris":
        with pytest.raises(DecisionError, match=r"^expected two integers 'r c'; got 3 words: '7 0 1'$"):
            g.parse_decision(state, "7 0 1\n")


# ----------------------------------------------------------------- settings
@pytest.mark.parametrize("value", ["0_0", "+1", "1e999", "nan", "inf", "\u0661", "\uff11", "1.5", "",
                                   True, 1.5, float("nan"),
                                   pytest.param(10 ** 5000, id="5000-digit-int")])
def test_integer_settings_are_strict(value):
    with pytest.raises(InputError, match="^setting ply_cap: expected an integer, got "):
        settings.coerce("ply_cap", value, 200)


@pytest.mark.parametrize("value", ["0_0", "+1", "1e999", "nan", "inf", "-inf", "\u0661", "\uff11", True,
                                   float("inf"), float("nan"), [1],
                                   pytest.param(10 ** 5000, id="5000-digit-int")])
def test_limits_are_strict(value):
    with pytest.raises(InputError, match="^limit soft_time: expected a number, got ") as caught:
        settings.resolve_limits(get_game("cantris"), {"soft_time": value})
    assert len(str(caught.value)) < 160


@pytest.mark.parametrize("like", [True, "", 200, 1.5])
def test_a_5000_digit_yaml_int_is_refused_for_any_setting(like):
    with pytest.raises(InputError, match=r"^setting x: expected .*, got an integer of 16610 bits"):
        settings.coerce("x", 10 ** 5000, like)


def test_limits_are_bounded_and_whole_where_counted():
    game = get_game("cantris")
    assert settings.resolve_limits(game, {"soft_time": "2.5"}).hard_time == 5.0
    assert settings.resolve_limits(game, {"open_files": "64"}).open_files == 64
    with pytest.raises(InputError, match="^limit open_files: expected an integer, got '2.5'"):
        settings.resolve_limits(game, {"open_files": "2.5"})
    with pytest.raises(InputError, match="^limit memory_mb: 1e\\+07 is above the largest accepted"):
        settings.resolve_limits(game, {"memory_mb": 10 ** 7})


def test_yaml_numbers_are_read_as_strictly_as_the_command_line():
    data = settings.load_yaml("a: 0_0\nb: +1\nc: .inf\nd: 0x1F\ne: 1:30\nf: 30\ng: 2.5\nh: -3\n"
                              f"i: {HUGE}\nj: yes\n")
    assert data == {"a": "0_0", "b": "+1", "c": ".inf", "d": "0x1F", "e": "1:30", "f": 30, "g": 2.5,
                    "h": -3, "i": HUGE, "j": True}
    with pytest.raises(InputError, match="^limit soft_time: expected a number, got '0_0'"):
        settings.resolve_limits(get_game("cantris"), {"soft_time": data["a"]})


@pytest.mark.parametrize("args, message", [
    (("--seed", "+1"), "--seed: expected an integer of 0 or more, got '+1' (write it without '+')"),
    (("--seed", "\u0661"), "--seed: expected an integer of 0 or more, got '\u0661' (only the ASCII digits 0-9)"),
    (("--time-limit", "1_0"), "limit soft_time: expected a number, got '1_0' (no '_' between digits)"),
    (("--time-limit", "1e3"), "limit soft_time: expected a number, got '1e3' (no exponent: write the digits out)"),
])
def test_seed_and_time_limit_flags_are_strict(tmp_path, args, message):
    proc = referee("play", "cantris", "--player", "builtin:random", "--player", "builtin:random", *args,
                   cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (2, f"referee: error: {message}\n")


def test_config_file_with_strange_numbers_is_one_line(tmp_path):
    config = tmp_path / "m.yaml"
    config.write_text("players: [builtin:random, builtin:random]\nseed: +1\n")
    proc = referee("play", "cantris", "--config", config, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == f"referee: error: {config}: seed: expected an integer of 0 or more, got '+1' " \
                          "(write it without '+')\n"
    config.write_text(f"players: [builtin:random, builtin:random]\nlimits:\n  soft_time: {HUGE}\n")
    proc = referee("play", "cantris", "--config", config, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.startswith(
        f"referee: error: {config}:2: limits: limit soft_time: expected a number, got '9999") \
        and proc.stderr.count("\n") == 1
