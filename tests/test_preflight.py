"""Pre-flight through the CLI: a player command that cannot start is one
clear error naming the seat and the command (exit 2) before step 1 of
``play`` and before the first game of ``tournament``, never a match of
CRASH verdicts."""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
import yaml

from conftest import BOARDS, ROOT, referee

POSIX = os.name == "posix"
posix_only = pytest.mark.skipif(not POSIX, reason="execute permission and #! are POSIX")
GOOD = "builtin:random"


def play(tmp_path: Path, *players: str, game: str = "cantris"):
    return referee("play", game, *[a for p in players for a in ("--player", p)], "--out", "m",
                   "--quiet", "--seed", 1, cwd=tmp_path)


def refused(proc, *words: str) -> str:
    """The run failed with exit 2 and one line holding every word; returns it."""
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def no_step_ran(tmp_path: Path) -> bool:
    return not (tmp_path / "m" / "log.jsonl").exists()


def test_a_mistyped_binary_path_is_refused_before_step_one(tmp_path):
    line = refused(play(tmp_path, GOOD, "./a.out"), "player 2", "'./a.out'", "no such file")
    assert line.startswith("referee: error: ")
    assert no_step_ran(tmp_path)


def test_a_binary_not_built_yet_says_how_to_build_it(tmp_path):
    (tmp_path / "player.cpp").write_text("int main() {}\n")
    refused(play(tmp_path, "./player", GOOD), "player 1", "player.cpp is there", "g++ ")


def test_a_binary_in_a_subfolder_not_built_yet_gets_a_build_command_that_works_here(tmp_path):
    """The build command was the folder's own (-o player player.cpp), which
    fails where the student typed ./mybot/player."""
    (tmp_path / "mybot").mkdir()
    (tmp_path / "mybot" / "player.cpp").write_text("int main() {}\n")
    here = "." + os.sep
    line = refused(play(tmp_path, f"{here}mybot{os.sep}player", GOOD), "player 1")
    mybot = os.path.join("mybot", "player")
    assert line.endswith(f"(but player.cpp is there: compile it first: g++ -std=c++14 -O2 -o {mybot} {mybot}.cpp)")


def test_a_player_folder_given_as_the_command_says_how_to_run_the_player_in_it(tmp_path):
    """check-bot and grade take the folder new-player made; play takes a
    command: the refusal names the command for the program in the folder."""
    referee("new-player", "cantris", tmp_path / "mybot")
    line = refused(play(tmp_path, "mybot", GOOD), "player 1", "mybot is a folder, not a program")
    assert line.endswith(f'; to run the player in it: --player "python3 mybot{os.sep}player.py" '
                         "(check-bot and grade take the folder)")
    referee("new-player", "cantris", tmp_path / "cbot", "--lang", "cpp")
    line = refused(play(tmp_path, GOOD, "cbot"), "player 2", "cbot is a folder, not a program")
    assert "; compile the player.cpp in it first (g++ -std=c++14 -O2 -o " in line
    line = refused(play(tmp_path, "python3 mybot", GOOD), "player 1")
    assert line.endswith(f"python3 cannot run mybot: it is a folder, not a script; to run the player in "
                         f'it: --player "python3 mybot{os.sep}player.py" (check-bot and grade take the folder)')
    assert no_step_ran(tmp_path)


@posix_only
def test_the_slips_of_a_windows_or_debian_habit_are_named(tmp_path):
    """`py` (Windows' launcher) or `python` where only python3 is; a script
    named in another case; a Windows path, whose \\ the shell-like split ate."""
    from referee.core.preflight import command_problem

    assert command_problem(["py", "bot.py"], tmp_path) == (
        "command 'py' not found (not a file, not on PATH); this system has python3: write 'python3'")
    (tmp_path / "mybot").mkdir()
    (tmp_path / "mybot" / "player.py").write_text("")
    refused(play(tmp_path, "python3 mybot/Player.py", GOOD), "player 1",
            "python3 cannot find mybot/Player.py: no such file (the folder has player.py: file names are "
            "case-sensitive)")
    line = refused(play(tmp_path, "python3 mybot\\player.py", GOOD), "player 1")
    assert line.endswith("(on Linux and macOS a \\ in a command escapes the next character: write paths with /)")


@posix_only
def test_a_program_older_than_its_source_plays_with_a_warning(tmp_path):
    """player.cpp edited after ./player was built (a build that failed
    unnoticed): the old program plays, and the student is told why the
    edit changed nothing."""
    (tmp_path / "player.cpp").write_text("int main() {}\n")
    program = tmp_path / "player"
    program.write_text("#!/bin/sh\necho '0 0' > decision.txt\n")
    program.chmod(0o755)
    os.utime(program, (1_000_000_000, 1_000_000_000))
    proc = play(tmp_path, "./player", GOOD)
    assert proc.returncode == 0, proc.stderr
    assert ("referee: warning: player 1 ('./player'): ./player is older than player.cpp beside it: the last "
            "edit is not built (did the build fail?); the old program plays") in proc.stderr
    os.utime(program)  # built now
    shutil.rmtree(tmp_path / "m")
    again = play(tmp_path, "./player", GOOD)
    assert again.returncode == 0 and "older than" not in again.stderr, again.stderr


def test_cpp_source_given_as_the_command_says_compile_first(tmp_path):
    (tmp_path / "bot.cpp").write_text("int main() {}\n")
    line = refused(play(tmp_path, GOOD, "bot.cpp"), "player 2", "source code", "compile it first")
    here = "." + os.sep
    assert f"g++ -std=c++14 -O2 -o {here}bot {here}bot.cpp" in line
    assert f"--player '{here}bot'" in line
    assert no_step_ran(tmp_path)


def test_a_missing_script_after_an_interpreter_is_refused(tmp_path):
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "player.py").write_text("print('hi')\n")
    refused(play(tmp_path, f"{sys.executable} bot/playr.py", GOOD), "player 1", "bot/playr.py",
            "no such file")
    assert no_step_ran(tmp_path)


@posix_only
def test_python_s_first_word_is_its_script_whatever_it_looks_like(tmp_path):
    """A word without / or .py after python3 was let through (it "did not
    look like a path"), and the student lost by CRASH at step 1: Python
    looks nothing up on PATH, so its first word that is no option is always
    the script.  An unquoted space split a path into words; -I is a flag,
    not an option with a value that hid the script."""
    from referee.core.preflight import command_problem

    (tmp_path / "my bots" / "alice").mkdir(parents=True)
    (tmp_path / "my bots" / "alice" / "player.py").write_text("print('hi')\n")
    refused(play(tmp_path, "python3 my bots/alice/player.py", GOOD), "player 1",
            "python3 cannot find my: no such file ('my bots/alice/player.py' is there: a path with a space "
            "must be quoted inside the command: --player \"python3 'my bots/alice/player.py'\")")
    refused(play(tmp_path, GOOD, "python3 plyer"), "player 2", "python3 cannot find plyer: no such file")
    assert no_step_ran(tmp_path)
    assert command_problem(["python3", "my", "bot/x.py"], tmp_path) == (
        "python3 cannot find my: no such file (if 'my bot/x.py' is one path with a space, quote it "
        "inside the command: --player \"python3 'my bot/x.py'\")")
    assert command_problem(["python3", "-I", "gone.py"], tmp_path) == "python3 cannot find gone.py: no such file"
    assert command_problem(["python3", "-uW", "ignore", "gone"], tmp_path) == "python3 cannot find gone: no such file"
    assert command_problem(["python3", "-Wignore", "-X", "dev", "gone"], tmp_path) == (
        "python3 cannot find gone: no such file")
    for runs_no_file in (["-m", "bot"], ["-uc", "print()"], ["-"], ["--version"]):
        assert command_problem(["python3", *runs_no_file], tmp_path) is None
    # A file here named without / or a dot reaches the player's own folder as typed.
    (tmp_path / "plyer").write_text("print('hi')\n")
    assert command_problem(["python3", "plyer"], tmp_path) == (
        "python3 plyer: the player runs in a folder of its own, where plyer is not found; write "
        "'python3 ./plyer' to name the one here")
    assert command_problem(["python3", str(tmp_path / "plyer")], tmp_path) is None  # ./plyer, made absolute
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__main__.py").write_text("print('hi')\n")
    assert command_problem(["python3", str(tmp_path / "app")], tmp_path) is None  # a folder Python runs


def test_an_unknown_command_is_refused(tmp_path):
    refused(play(tmp_path, GOOD, "no-such-program-xyz --fast"), "player 2",
            "'no-such-program-xyz' not found")


@posix_only
def test_a_file_here_without_dot_slash_says_to_write_it(tmp_path):
    bot = tmp_path / "mybot"
    bot.write_text("#!/bin/sh\nexit 0\n")
    bot.chmod(0o755)
    refused(play(tmp_path, "mybot", GOOD), "player 1", "not a command on PATH", "./mybot")


@posix_only
def test_a_script_without_execute_permission_gets_its_interpreter_line(tmp_path):
    (tmp_path / "bot.py").write_text("print('hi')\n")
    refused(play(tmp_path, "./bot.py", GOOD), "player 1", "is not executable",
            '--player "python3 ')
    (tmp_path / "bot.bin").write_text("data\n")
    refused(play(tmp_path, GOOD, "./bot.bin"), "player 2", "chmod +x")


@posix_only
def test_a_script_with_a_broken_shebang_is_refused(tmp_path):
    crlf = tmp_path / "crlf.py"
    crlf.write_bytes(b"#!/usr/bin/env python3\r\nprint('hi')\r\n")
    crlf.chmod(0o755)
    refused(play(tmp_path, "./crlf.py", GOOD), "player 1", "Windows line endings")
    gone = tmp_path / "gone.py"
    gone.write_text("#!/no/such/python\nprint('hi')\n")
    gone.chmod(0o755)
    refused(play(tmp_path, GOOD, "./gone.py"), "player 2", "/no/such/python", "does not exist")


def test_a_folder_is_not_a_program(tmp_path):
    (tmp_path / "bot").mkdir()
    refused(play(tmp_path, GOOD, f".{os.sep}bot"), "player 2", "is a folder")


def test_working_commands_of_every_kind_pass(tmp_path):
    """A script by its interpreter, an executable script, a built-in and
    Quoridor's module: all of them start; the match is played."""
    bot = tmp_path / "first.py"
    bot.write_text("import sys\nb=[l.split() for l in open('Board.txt')]\n"
                   "r,c=next((r,c) for r in range(len(b)) for c,v in enumerate(b[r]) if v!='0')\n"
                   "open('decision.txt','w').write(f'{r} {c}\\n')\n")
    proc = play(tmp_path, f"{sys.executable} first.py", "builtin:greedy")
    assert proc.returncode == 0, proc.stderr
    assert yaml.safe_load((tmp_path / "m" / "result.yaml").read_text())["verdicts"][1]["OK"] > 0
    module = ROOT / "tests" / "seed_players" / "quoridor_module" / "player.py"
    proc = referee("play", "quoridor", "--player", f"module:{module}", "--player", GOOD,
                   "--out", "q", "--quiet", "--seed", 1, "--set", "ply_cap=6", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


def test_a_tournament_with_a_broken_entrant_stops_before_the_first_game(tmp_path):
    config = tmp_path / "class.yaml"
    config.write_text(yaml.safe_dump({
        "game": "cantris", "boards": str(BOARDS / "cantris" / "6x3-1.txt"), "out": "out",
        "entrants": [{"name": "alice", "command": GOOD},
                     {"name": "bob", "command": f"{sys.executable} bots/bob.py"}]}))
    proc = referee("tournament", str(config), cwd=tmp_path)
    refused(proc, "class.yaml", "entrant 'bob'", "bots/bob.py", "no such file")
    assert not (tmp_path / "out" / "games").exists()


# ----- a protocol file named in the wrong case or folder, in the program's sources -------

CPP_SOURCE = """\
#include <fstream>
// a comment that says "board.txt" is not code
int main() {
    std::ifstream in("board.txt");      // reads nothing on Linux: the file is Board.txt
    std::ofstream out("Decision.txt");  // and the same file: one warning
    out << "0 0\\n";
}
"""


@posix_only
def test_a_cpp_program_that_opens_board_txt_in_the_wrong_case_plays_with_a_warning(tmp_path):
    """ifstream("board.txt") raises nothing: the program reads an empty board
    and plays garbage.  The pre-flight reads the .cpp beside the binary."""
    (tmp_path / "player.cpp").write_text(CPP_SOURCE)
    program = tmp_path / "player"  # what g++ built from it (a stand-in: preflight reads the source)
    program.write_text("#!/bin/sh\necho '0 0' > decision.txt\n")
    program.chmod(0o755)
    proc = play(tmp_path, "./player", GOOD)
    assert proc.returncode == 0, proc.stderr  # a warning: the match plays
    warnings = [ln for ln in proc.stderr.splitlines() if ln.startswith("referee: warning:")]
    assert warnings == ["referee: warning: player 1 ('./player'): player.cpp:4: \"board.txt\" should be "
                        "\"Board.txt\": file names are case-sensitive: that file is not there (a C++ "
                        "program reads nothing from it, without an error)"], proc.stderr
    assert (tmp_path / "m" / "result.yaml").exists()


def test_a_python_program_that_looks_elsewhere_for_its_files_is_warned_before_step_one(tmp_path):
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "player.py").write_text(
        "import sys\n\nBOARD = '../Board.txt'  # the folder it was written in\n"
        "open('decision.txt', 'w').write('0 0\\n')\n")
    (tmp_path / "bot" / "helper.py").write_text("SNAPSHOT = f'Step_logs/step_{1}.txt'\n")
    (tmp_path / "bot" / "fine.py").write_text("open('Board.txt'); open(f'step_logs/step_{3}.txt')\n")
    (tmp_path / "bot" / "writer.py").write_text("open('Decision.txt', 'w').write('0 0')\n")
    proc = play(tmp_path, f"{sys.executable} bot/player.py", GOOD)
    assert proc.returncode == 0, proc.stderr
    label = f"referee: warning: player 1 ('{sys.executable} bot/player.py'): "
    warnings = [ln for ln in proc.stderr.splitlines() if ln.startswith("referee: warning:")]
    assert warnings == [  # the program's own source first, then the others by name
        f"{label}{os.path.join('bot', 'player.py')}:3: \"../Board.txt\" should be \"Board.txt\": the program "
        "runs in its seat folder, which holds Board.txt, state.json, step_logs/ and its decision.txt: "
        "open them by these names alone",
        f"{label}{os.path.join('bot', 'helper.py')}:1: \"Step_logs/step_{{1}}.txt\" should be "
        "\"step_logs/step_{1}.txt\": file names are case-sensitive: that file is not there (Python's open "
        "raises FileNotFoundError, a CRASH)",
        # said of a file written, in Python: it was "a C++ or Java program reads nothing from it"
        f"{label}{os.path.join('bot', 'writer.py')}:1: \"Decision.txt\" should be \"decision.txt\": file "
        "names are case-sensitive: the referee reads decision.txt, and what the program writes under "
        "another name is never read (NO_DECISION)"], proc.stderr


def test_the_scan_is_quiet_on_good_sources_and_never_fails_on_odd_files(tmp_path):
    from referee.core import preflight

    for lang in ("python", "cpp"):  # new-player's templates and the SDK beside them name every file right
        assert referee("new-player", "cantris", tmp_path / lang, "--lang", lang).returncode == 0
    assert preflight.source_warnings(["python3", "python/player.py"], tmp_path) == []
    assert preflight.source_warnings([str(tmp_path / "cpp" / "player.cpp")], tmp_path) == []
    odd = tmp_path / "odd"
    odd.mkdir()
    (odd / "bin.cpp").write_bytes(b"\x00\xff\"board.txt\"")  # binary: not a source after all
    (odd / "latin.c").write_bytes(b"char *b = \"\xe9\"; char *s = \"State.json\";  /* \xe9 */\n")
    (odd / "huge.py").write_text("x = 1\n" * 100_000 + "open('board.txt')\n")  # past what is read
    (odd / "gone.rs").symlink_to(odd / "nowhere")
    (odd / "dir.java").mkdir()
    os.mkfifo(odd / "pipe.go")  # opening it would block for ever
    (odd / "a.out").write_text("")
    assert preflight.source_warnings(["./a.out"], odd) == [
        "latin.c:1: \"State.json\" should be \"state.json\": file names are case-sensitive: that file is "
        "not there (a C program reads nothing from it, without an error)"]
    assert preflight.source_warnings(["builtin-less", "-x", "", "\0"], tmp_path / "missing") == []


def test_the_protocol_names_the_scan_knows_are_the_ones_the_referee_uses():
    from referee.core import players, preflight

    assert set(preflight.PROTOCOL_FILES) == {"Board.txt", "state.json", players.DECISION_FILE}
