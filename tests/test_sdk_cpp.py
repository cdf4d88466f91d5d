"""The C++14 student SDK (players/sdk/cpp/referee_sdk.hpp) and the Cantris C++
template, compiled once for the module and driven as real processes."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from conftest import BOARDS, ROOT, cantris_cpp_bot, referee

SDK_DIR = ROOT / "players" / "sdk" / "cpp"
GXX = shutil.which("g++")

pytestmark = pytest.mark.skipif(GXX is None, reason="g++ is not installed")

# A probe: one sub-command per SDK feature; the result goes to stdout, an
# exception becomes "error: ..." (or "JsonError@<offset>: ...") and exit 3.
PROBE_MAIN = r"""
#include "referee_sdk.hpp"

std::string describe(const referee::Board& board);  // in the second translation unit

namespace {

void print_ints(const referee::IntBoard& board) {
    for (const auto& row : board) {
        for (std::size_t c = 0; c < row.size(); ++c) std::cout << (c ? " " : "") << row[c];
        std::cout << '\n';
    }
}

// ".key" -> value["key"], "@i" -> value.at(i), "#i" -> value[i]
const referee::Json& walk(const referee::Json& value, const std::string& step) {
    if (step[0] == '.') return value[step.substr(1)];
    if (step[0] == '@') return value.at(static_cast<std::size_t>(std::stoul(step.substr(1))));
    return value[std::stoi(step.substr(1))];
}

void print_as(const referee::Json& value, const std::string& how) {
    if (how == "int") std::cout << value.as_int();
    else if (how == "int64") std::cout << value.as_int64();
    else if (how == "double") std::cout << value.as_double();
    else if (how == "string") std::cout << value.as_string();
    else if (how == "bool") std::cout << value.as_bool();
    else if (how == "size") std::cout << value.size();
    else if (how.compare(0, 4, "has:") == 0) std::cout << value.has(how.substr(4));
    else if (how == "is_null") std::cout << value.is_null();
    else std::cout << value.dump();
}

void run(int argc, char** argv) {
    const std::string command = argv[1];
    if (command == "json") {
        std::cout << referee::Json::parse(argv[2]).dump();
    } else if (command == "query") {
        const referee::Json document = referee::Json::parse(argv[2]);
        const referee::Json* value = &document;
        for (int i = 3; i < argc - 1; ++i) value = &walk(*value, argv[i]);
        print_as(*value, argv[argc - 1]);
    } else if (command == "board") {
        std::cout << describe(referee::read_board());
    } else if (command == "board-ints") {
        print_ints(referee::read_board_ints());
    } else if (command == "as-ints") {
        print_ints(referee::as_ints(referee::read_board()));
    } else if (command == "ckbd") {
        std::cout << describe(referee::read_ckbd(std::stoi(argv[2])));
    } else if (command == "ckbd-ints") {
        print_ints(referee::read_ckbd_ints(std::stoi(argv[2])));
    } else if (command == "state") {
        const referee::Json state = referee::read_state();
        std::cout << state["you"].as_int() << ' ' << state.dump();
    } else if (command == "save") {
        referee::save_decision(7, std::string("up"), 2.5, 'x', "end");
    } else if (command == "save-twice") {
        referee::save_decision(1, 2);
        referee::save_decision(3, 4);
    } else if (command == "save-none") {
        referee::save_decision();
    } else if (command == "args") {
        referee::set_args(argc - 1, argv + 1);
        const int step = referee::step();
        const int player = referee::player_id();
        std::cout << step << ' ' << player;
    }
}

}  // namespace

int main(int argc, char** argv) {
    try {
        run(argc, argv);
        return 0;
    } catch (const referee::JsonError& error) {
        std::cout << "JsonError@" << error.offset() << ": " << error.what();
    } catch (const std::exception& error) {
        std::cout << "error: " << error.what();
    }
    return 3;
}
"""

# Including the header in a second file proves it links twice (no ODR clash).
PROBE_SECOND_UNIT = r"""
#include "referee_sdk.hpp"

std::string describe(const referee::Board& board) {
    std::string out;
    for (const auto& row : board) {
        for (const auto& token : row) out += "[" + token + "]";
        out += "\n";
    }
    return out;
}
"""


@pytest.fixture(scope="module")
def binaries(tmp_path_factory) -> dict[str, Path]:
    """The probe, compiled here, and the Cantris template as new-player
    writes it (the checkout's template.cpp and SDK header, byte for byte),
    built with the command its README promises plus -Werror: one build per
    test run, shared with test_cli and test_teaching (conftest.cantris_cpp_bot)."""
    build = tmp_path_factory.mktemp("sdk_cpp_build")
    (build / "probe_main.cpp").write_text(PROBE_MAIN)
    (build / "probe_second.cpp").write_text(PROBE_SECOND_UNIT)
    strict = ["-std=c++14", "-Wall", "-Wextra", "-Werror", "-I", str(SDK_DIR)]
    probe = subprocess.Popen([GXX, *strict, "-pedantic", "-O0", "-o", str(build / "probe"),
                              str(build / "probe_main.cpp"), str(build / "probe_second.cpp")],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    player = cantris_cpp_bot(tmp_path_factory) / "player"  # while the probe compiles
    output = probe.communicate()[0]
    assert probe.returncode == 0, f"probe does not compile:\n{output}"
    return {"probe": build / "probe", "player": player}


def run_probe(binaries, *args: str, cwd: Path | None = None, env: dict | None = None):
    clean_env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    result = subprocess.run([str(binaries["probe"]), *args], cwd=cwd, capture_output=True,
                            env={**clean_env, **(env or {})}, timeout=30)
    return result.returncode, result.stdout.decode("utf-8")


# ---------------------------------------------------------------- JSON ----

VALID_DOCUMENTS = [
    "null", "true", "false", "0", "-0", "42", "-17", "3.25", "-12.5e-1", "1E3", "1e+2", "6.02e23",
    "0.1", "9007199254740993", "-9223372036854775808", "1e-400",
    '""', '"plain"', r'"\"\\\/\b\f\n\r\t"', r'"caf\u00e9 \u20AC \ud83d\ude00"', r'"a\u0000b"',
    '"raw é 😀"', "[]", "{}", " \t\n\r[ 1 , [2, [3, []]] ]\n",
    '{"game": "cantris", "you": 2, "players": [{"id": 1, "status": "ok"}, {"id": 2, "status": "ok"}],'
    ' "history": [], "limits": {"time": 30.5}, "nested": {"a": {"b": {"c": [null, true]}}}}',
]


@pytest.mark.parametrize("document", VALID_DOCUMENTS)
def test_valid_documents_round_trip(binaries, document):
    code, out = run_probe(binaries, "json", document)
    assert code == 0, out
    assert json.loads(out) == json.loads(document)


@pytest.mark.parametrize("literal, as_double", [
    ("9223372036854775808", "9.2233720368547758e+18"),  # 2**63
    ("18446744073709551619", "1.8446744073709552e+19"),  # wraps a careless uint64 to 3
    ("123456789012345678901234567890", "1.2345678901234568e+29"),
])
def test_integers_beyond_64_bits_are_doubles(binaries, literal, as_double):
    document = f'{{"n": {literal}}}'
    assert run_probe(binaries, "query", document, ".n", "dump") == (0, as_double)
    assert run_probe(binaries, "query", document, ".n", "int64") == (
        3, f"error: json: {as_double} is not a 64-bit integer")


def test_dump_keeps_exact_integers_key_order_and_escapes(binaries):
    code, out = run_probe(binaries, "json", '{"z": -9223372036854775808, "a": "\\u0001\\"", "m": 1.5}')
    assert code == 0
    assert out == '{"z":-9223372036854775808,"a":"\\u0001\\"","m":1.5}'


@pytest.mark.parametrize("document, offset, message", [
    ("", 0, "unexpected end of input"),
    ("   ", 3, "unexpected end of input"),
    ("[1,]", 3, "expected a value"),
    ("[1 2]", 3, "expected ',' or ']'"),
    ("{,}", 1, "expected a string key"),
    ('{"a":1,}', 7, "expected a string key"),
    ('{"a" 1}', 5, "expected ':'"),
    ("{1:2}", 1, "expected a string key"),
    ('{"a":1,"a":2}', 7, 'duplicate key "a"'),
    ("[1] x", 4, "after the JSON value"),
    ("01", 0, "leading zeros"),
    ("-", 1, "expected a digit"),
    ("+1", 0, "expected a value"),
    (".5", 0, "expected a value"),
    ("1.", 2, "expected a digit after '.'"),
    ("1e", 2, "expected a digit in the exponent"),
    ("1e400", 0, "out of range"),
    ("NaN", 0, "expected a value"),
    ("tru", 0, "expected 'true'"),
    ("nul", 0, "expected 'null'"),
    ('"abc', 0, "unterminated string"),
    ('"a\tb"', 2, "control character"),
    (r'"\x"', 1, "invalid escape"),
    (r'"\u12g4"', 5, "4 hex digits"),
    (r'"\ud800"', 1, "unpaired high surrogate"),
    (r'"\udc00"', 1, "unpaired low surrogate"),
    (r'"\ud800\u0041"', 1, "not followed by a low surrogate"),
    ("[" * 600 + "]" * 600, 512, "nested deeper than 512"),
])
def test_invalid_documents_raise_with_offset(binaries, document, offset, message):
    code, out = run_probe(binaries, "json", document)
    assert code == 3
    assert out.startswith(f"JsonError@{offset}: offset {offset}: "), out
    assert message in out


DOC = '{"you": 2, "seed": 12345678901, "t": 2.5, "w": 3.0, "name": "Zoë", "ok": true, "none": null,' \
      ' "players": [{"id": 1}, {"id": 2, "tags": ["a", "b"]}], "big": 3000000000}'


@pytest.mark.parametrize("path, expected", [
    ([".you", "int"], "2"),
    ([".seed", "int64"], "12345678901"),
    ([".t", "double"], "2.5"),
    ([".w", "int"], "3"),
    ([".name", "string"], "Zoë"),
    ([".ok", "bool"], "1"),
    ([".none", "is_null"], "1"),
    ([".players", "size"], "2"),
    (["size"], "9"),
    ([".players", "@1", ".tags", "#1", "string"], "b"),
    ([".players", "#0", ".id", "int"], "1"),
    (["has:seed"], "1"),
    (["has:missing"], "0"),
    ([".players", "has:id"], "0"),
    ([".players", "#1", "dump"], '{"id":2,"tags":["a","b"]}'),
])
def test_accessors(binaries, path, expected):
    assert run_probe(binaries, "query", DOC, *path) == (0, expected)


@pytest.mark.parametrize("path, message", [
    ([".missing", "int"], 'missing key "missing"'),
    ([".players", "@2", "int"], "index 2 out of range (size 2)"),
    ([".players", "#-1", "int"], "negative index -1"),
    ([".name", "int"], "expected a number, got a string"),
    ([".t", "int"], "2.5 is not a 64-bit integer"),
    ([".big", "int"], "3000000000 is out of range for an int"),
    ([".you", "string"], "expected a string, got a number"),
    ([".you", ".x", "int"], "expected an object, got a number"),
    ([".you", "size"], "size() of a number, expected an array or an object"),
    ([".players", "#0", "@0", "int"], "expected an array, got an object"),
])
def test_accessor_errors(binaries, path, message):
    code, out = run_probe(binaries, "query", DOC, *path)
    assert code == 3
    assert out == f"error: json: {message}"


# What the SDK says of a missing input file: a player run by hand, without the
# files the referee writes, is told how to run one step again.
MISSING = ("no such file here. The referee writes Board.txt, state.json and step_logs/ into the "
           "player's folder before each step; to run one step of a match again by hand, use: "
           'referee rerun MATCH_DIR --step K [--player "./a.out"]')


def test_read_state(binaries, tmp_path):
    (tmp_path / "state.json").write_text('{"game": "cantris", "you": 1}')
    assert run_probe(binaries, "state", cwd=tmp_path) == (0, '1 {"game":"cantris","you":1}')


def test_read_state_errors_name_the_file(binaries, tmp_path):
    code, out = run_probe(binaries, "state", cwd=tmp_path)
    assert (code, out) == (3, f"error: state.json: {MISSING}")
    (tmp_path / "state.json").write_text('{"you": }')
    code, out = run_probe(binaries, "state", cwd=tmp_path)
    assert (code, out) == (3, "JsonError@8: state.json: offset 8: unexpected character '}', expected a value")


# --------------------------------------------------------------- boards ----

def test_read_board_tokens_skip_blank_lines_and_accept_crlf(binaries, tmp_path):
    (tmp_path / "Board.txt").write_bytes(b"1 2  3\r\n\r\n \t\n4 x -6\r\n7\n")
    assert run_probe(binaries, "board", cwd=tmp_path) == (0, "[1][2][3]\n[4][x][-6]\n[7]\n")


def test_read_board_ints(binaries, tmp_path):
    (tmp_path / "Board.txt").write_text("1 2 3\n\n+4 0 -6\n")
    assert run_probe(binaries, "board-ints", cwd=tmp_path) == (0, "1 2 3\n4 0 -6\n")


@pytest.mark.parametrize("command, message", [
    ("board-ints", "error: Board.txt:3:4: 'x' is not an integer"),
    ("as-ints", "error: board: row 1, column 1: 'x' is not an integer"),
])
def test_bad_token_is_located_also_with_crlf_lines(binaries, tmp_path, command, message):
    (tmp_path / "Board.txt").write_bytes(b"1 2 3\r\n\r\n4  x 6\r\n")
    assert run_probe(binaries, command, cwd=tmp_path) == (3, message)


def test_int_out_of_range_is_reported(binaries, tmp_path):
    (tmp_path / "Board.txt").write_text("2147483647 -2147483648 2147483648\n")
    assert run_probe(binaries, "board-ints", cwd=tmp_path) == (
        3, "error: Board.txt:1:24: '2147483648' is out of range for an int")


def test_missing_board_names_the_file(binaries, tmp_path):
    assert run_probe(binaries, "board", cwd=tmp_path) == (
        3, f"error: Board.txt: {MISSING}")


def test_read_ckbd_reads_the_numbered_snapshot(binaries, tmp_path):
    (tmp_path / "step_logs").mkdir()
    (tmp_path / "step_logs" / "step_0.txt").write_text("1 1\n")
    (tmp_path / "step_logs" / "step_12.txt").write_text("0 5\n3 4\n")
    assert run_probe(binaries, "ckbd", "12", cwd=tmp_path) == (0, "[0][5]\n[3][4]\n")
    assert run_probe(binaries, "ckbd-ints", "12", cwd=tmp_path) == (0, "0 5\n3 4\n")
    assert run_probe(binaries, "ckbd", "3", cwd=tmp_path) == (
        3, f"error: step_logs/step_3.txt: {MISSING}")
    # In a step's folder (Board.txt is there), a snapshot not played yet is
    # the read_ckbd(step) slip, not a program run by hand.
    (tmp_path / "Board.txt").write_text("1 1\n")
    assert run_probe(binaries, "ckbd", "3", cwd=tmp_path) == (
        3, "error: step_logs/step_3.txt: no such file: step_logs/ has the boards of the steps played "
           "so far; at step s, the board before your move is read_ckbd(s - 1)")


def test_read_ckbd_ints_locates_bad_tokens_in_the_snapshot(binaries, tmp_path):
    (tmp_path / "step_logs").mkdir()
    (tmp_path / "step_logs" / "step_1.txt").write_text("1 2\n3 ?\n")
    assert run_probe(binaries, "ckbd-ints", "1", cwd=tmp_path) == (
        3, "error: step_logs/step_1.txt:2:3: '?' is not an integer")


# ------------------------------------------------------------ decisions ----

def test_save_decision_exact_bytes(binaries, tmp_path):
    assert run_probe(binaries, "save", cwd=tmp_path) == (0, "")
    assert (tmp_path / "decision.txt").read_bytes() == b"7 up 2.5 x end\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["decision.txt"]


def test_save_decision_replaces_an_earlier_decision(binaries, tmp_path):
    (tmp_path / "decision.txt").write_text("stale\n")
    assert run_probe(binaries, "save-twice", cwd=tmp_path) == (0, "")
    assert (tmp_path / "decision.txt").read_bytes() == b"3 4\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["decision.txt"]


def test_save_decision_without_parts_writes_an_empty_line(binaries, tmp_path):
    assert run_probe(binaries, "save-none", cwd=tmp_path) == (0, "")
    assert (tmp_path / "decision.txt").read_bytes() == b"\n"


def test_save_decision_reports_an_unwritable_folder(binaries, tmp_path):
    (tmp_path / "decision.txt.tmp").mkdir()  # the temporary file cannot be created
    code, out = run_probe(binaries, "save", cwd=tmp_path)
    assert code == 3
    assert out.startswith("error: decision.txt.tmp: cannot open for writing")
    assert not (tmp_path / "decision.txt").exists()


# ------------------------------------------------------ step and player ----

@pytest.mark.parametrize("args, env, expected", [
    (["7", "2"], {}, (0, "7 2")),
    (["--fast", "5", "1"], {}, (0, "5 1")),
    (["7", "2"], {"REFEREE_STEP": "9", "REFEREE_PLAYER": "9"}, (0, "7 2")),
    ([], {"REFEREE_STEP": "4", "REFEREE_PLAYER": "3"}, (0, "4 3")),
    (["8"], {"REFEREE_STEP": "4", "REFEREE_PLAYER": "3"}, (0, "4 3")),
    ([], {}, (3, "error: no step: run as '<program> <step> <player_id>' or set REFEREE_STEP")),
    ([], {"REFEREE_STEP": "4"}, (3, "error: no player id: run as '<program> <step> <player_id>' "
                                    "or set REFEREE_PLAYER")),
    (["x", "2"], {}, (3, "error: step (command line): 'x' is not an integer")),
    ([], {"REFEREE_STEP": "4", "REFEREE_PLAYER": "two"}, (3, "error: REFEREE_PLAYER: 'two' is not an integer")),
])
def test_step_and_player_id(binaries, args, env, expected):
    assert run_probe(binaries, "args", *args, env=env) == expected


# ----------------------------------------------------- cantris template ----

def run_player(binaries, folder: Path, *args: str):
    clean_env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    return subprocess.run([str(binaries["player"]), *args], cwd=folder, capture_output=True, text=True,
                          env=clean_env, timeout=30)


def player_folder(tmp_path: Path, snapshots: dict[int, str]) -> Path:
    (tmp_path / "step_logs").mkdir()
    for step, text in snapshots.items():
        (tmp_path / "step_logs" / f"step_{step}.txt").write_text(text)
    (tmp_path / "Board.txt").write_text(snapshots[max(snapshots)])
    (tmp_path / "state.json").write_text(json.dumps({"game": "cantris", "step": max(snapshots) + 1, "you": 1}))
    return tmp_path


def test_template_takes_the_first_tile_from_the_bottom_row_up(binaries, tmp_path):
    folder = player_folder(tmp_path, {0: "1 2 3\n2 3 1\n3 1 2\n"})
    result = run_player(binaries, folder, "1", "1")
    assert result.returncode == 0, result.stderr
    assert (folder / "decision.txt").read_text() == "2 0\n"


def test_template_reads_the_snapshot_before_its_step_and_skips_empty_cells(binaries, tmp_path):
    folder = player_folder(tmp_path, {0: "1 2 3\n2 3 1\n3 1 2\n",
                                      2: "0 0 0\n0 0 4\n0 0 0\n"})
    result = run_player(binaries, folder, "3", "2")
    assert result.returncode == 0, result.stderr
    assert (folder / "decision.txt").read_text() == "1 2\n"


def test_template_reports_a_missing_snapshot_and_exits_1(binaries, tmp_path):
    result = run_player(binaries, tmp_path, "1", "1")
    assert result.returncode == 1
    assert result.stderr == f"error: step_logs/step_0.txt: {MISSING}\n"
    assert not (tmp_path / "decision.txt").exists()


def test_template_reports_an_empty_board_and_exits_1(binaries, tmp_path):
    folder = player_folder(tmp_path, {0: "0 0 0\n0 0 0\n0 0 0\n"})
    result = run_player(binaries, folder, "1", "1")
    assert (result.returncode, result.stderr) == (1, "error: no tile left on the board\n")


def test_template_plays_a_whole_match_through_the_referee(binaries, tmp_path):
    """10x5: two invocations per turn, every one of them must be accepted."""
    match = tmp_path / "match"
    done = referee("play", "cantris", "--player", binaries["player"], "--player", "builtin:random",
                   "--board", BOARDS / "cantris" / "10x5-1.txt", "--seed", "3", "--out", match, "--quiet")
    assert done.returncode == 0, done.stderr
    verdicts = yaml.safe_load((match / "result.yaml").read_text())["verdicts"][1]
    assert verdicts["OK"] >= 2
    assert sum(verdicts.values()) == verdicts["OK"]
    # and the SDK reads the referee's real state.json exactly
    seat = match / "players" / "p1"
    code, out = run_probe(binaries, "state", cwd=seat)
    assert code == 0, out
    you, dumped = out.split(" ", 1)
    assert you == "1"
    assert json.loads(dumped) == json.loads((seat / "state.json").read_text())


COUNTER_CPP = r"""
#define REFEREE_MAIN
#include "referee_sdk.hpp"
#include <iostream>
#include <unistd.h>

static int calls = 0;

void play_games(int step) {
    ++calls;
    std::cout << "call " << calls << " pid " << getpid() << " step " << step << std::endl;
    referee::Board board = referee::read_board();
    for (int r = static_cast<int>(board.size()) - 1; r >= 0; --r)
        for (std::size_t c = 0; c < board[r].size(); ++c)
            if (board[r][c] != "0") { referee::save_decision(r, static_cast<int>(c)); return; }
}
"""


def test_the_cpp_sdk_main_serves_a_persistent_player_unchanged(tmp_path):
    """The same program, spawned every step and kept alive (persistent:):
    one process whose memory lasts, the same moves."""
    source = tmp_path / "counter.cpp"
    source.write_text(COUNTER_CPP)
    binary = tmp_path / "counter"
    subprocess.run([GXX, "-std=c++14", "-O2", "-Wall", "-Werror", "-I", str(SDK_DIR), "-o",
                    str(binary), str(source)], check=True)
    logs = {}
    for name, player in (("kept", f"persistent:{binary}"), ("spawned", str(binary))):
        out = tmp_path / name
        proc = referee("play", "cantris", "--player", player, "--player", "builtin:random",
                       "--board", BOARDS / "cantris" / "8x4-1.txt", "--seed", "4", "--out", out,
                       "--quiet")
        assert proc.returncode == 0, proc.stderr
        logs[name] = [json.loads(x) for x in (out / "log.jsonl").read_text().splitlines()]
    mine = [r for r in logs["kept"] if r["player"] == 1]
    calls = [r["stdout"].split() for r in mine]
    assert [int(c[1]) for c in calls] == list(range(1, len(mine) + 1))
    assert len({c[3] for c in calls}) == 1 and {r["verdict"] for r in mine} == {"OK"}
    assert all(r["stdout"].split()[1] == "1" for r in logs["spawned"] if r["player"] == 1)
    same = ("step", "player", "applied", "hash")
    assert [{k: r[k] for k in same} for r in logs["kept"]] == \
        [{k: r[k] for k in same} for r in logs["spawned"]]
