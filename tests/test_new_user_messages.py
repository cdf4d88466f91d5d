"""What a new user hits first, said plainly: a move printed instead of
written, a decision written by a program that was then killed, processes left
running, a decision of two lines, a board name that is not shipped, a player
run by hand without its files, the docs of a wheel install."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from conftest import read_log, referee
from terminal import Terminal


def play(tmp_path, player: str, *extra: str) -> tuple[subprocess.CompletedProcess, list[dict]]:
    out = tmp_path / "m"
    proc = referee("play", "cantris", "--player", player, "--player", "builtin:random",
                   "--seed", 1, "--out", out, "--no-color", *extra)
    assert proc.returncode == 0, proc.stderr
    return proc, read_log(out)


def test_a_move_printed_to_stdout_is_named_with_where_it_should_go(tmp_path, make_player):
    proc, log = play(tmp_path, make_player("printer", "print('hello')\nprint('0 0')\n"))
    assert log[0]["verdict"] == "NO_DECISION"
    assert "it printed '0 0' to stdout: write the decision to decision.txt" in log[0]["message"]
    assert "it printed '0 0' to stdout" in proc.stdout


def test_a_decision_file_of_another_name_is_named_with_the_fix(tmp_path, make_player):
    """Decision.txt (a case slip) and decision.txt.txt (Windows hid the first
    .txt): NO_DECISION says which file the folder has and what to call it,
    and a program that crashes after writing one says so too."""
    _, log = play(tmp_path, make_player("cased", "open('Decision.txt', 'w').write('0 0')\n"))
    assert log[0]["verdict"] == "NO_DECISION"
    assert log[0]["message"].endswith("without writing decision.txt; the folder has Decision.txt: "
                                      "file names are case-sensitive, name it decision.txt"), log[0]
    (tmp_path / "m").rename(tmp_path / "m1")
    proc, log = play(tmp_path, make_player("doubled", "open('decision.txt.txt', 'w').write('0 0')\n"
                                                      "raise SystemExit(3)\n"))
    assert log[0]["verdict"] == "CRASH"
    assert "; the folder has decision.txt.txt: the file must be named exactly decision.txt" in proc.stdout
    rerun = referee("rerun", tmp_path / "m1", "--step", 1)
    assert "the folder has Decision.txt: file names are case-sensitive" in rerun.stdout, rerun.stdout
    # Only a file of this step: one left by an earlier step (a random policy
    # plays on) is not named at a step that wrote none.
    (tmp_path / "m").rename(tmp_path / "m2")
    player = make_player("once", """
        import sys, time
        if sys.argv[1] == "1":
            open("Decision.txt", "w").write("0 0")
            time.sleep(0.2)  # its step 3 begins well after this file's time
        """)
    _, log = play(tmp_path, player, "--policy", "random")
    assert "the folder has Decision.txt" in log[0]["message"]
    assert log[2]["message"] == "step 3, player 1: NO_DECISION: the program exited without writing decision.txt"


def test_a_view_opened_by_a_wrong_name_or_path_is_named_with_the_fix(tmp_path, make_player):
    """board.txt (the case), players/p1/Board.txt (the path from the match
    folder), decision.txt written elsewhere: the CRASH says what to open."""
    cases = [("open('board.txt').read()", "; the file is Board.txt: file names are case-sensitive"),
             ("open('players/p1/Board.txt').read()",
              "; the program runs in its own seat folder (Board.txt, state.json and decision.txt are "
              "there): open 'Board.txt' by its name alone, not 'players/p1/Board.txt'"),
             ("open('/no-such-folder/decision.txt', 'w').write('0 0')",
              "open 'decision.txt' by its name alone, not '/no-such-folder/decision.txt'")]
    for i, (code, hint) in enumerate(cases):
        _, log = play(tmp_path, make_player(f"p{i}", code + "\n"))
        assert log[0]["verdict"] == "CRASH" and log[0]["message"].endswith(hint), log[0]["message"]
        (tmp_path / "m").rename(tmp_path / f"m{i}")


def test_a_decision_written_beside_the_program_or_a_change_of_folder_is_named(tmp_path, make_player):
    """Unsandboxed (macOS, Windows, --sandbox none) a decision.txt written
    by a path relative to the program's file lands beside it: NO_DECISION
    says where it went.  A program that changed folder and then found no
    Board.txt is asked whether it did."""
    beside = make_player("beside", """
        import os
        open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "decision.txt"), "w").write("0 0")
        """)
    _, log = play(tmp_path, beside, "--sandbox", "none")
    assert log[0]["verdict"] == "NO_DECISION"
    assert log[0]["message"].endswith(f"; it wrote {tmp_path / 'decision.txt'} instead: the program starts in "
                                      "its own seat folder, write decision.txt there (by its name alone)")
    (tmp_path / "m").rename(tmp_path / "m1")
    (tmp_path / "decision.txt").unlink()
    moved = make_player("moved", """
        import os
        os.chdir(os.path.dirname(os.path.abspath(__file__)))
        open("Board.txt").read()
        """)
    _, log = play(tmp_path, moved, "--sandbox", "none")
    assert log[0]["verdict"] == "CRASH"
    assert log[0]["message"].endswith("; Board.txt is in the folder the program starts in (its seat folder): "
                                      "did it change folder (os.chdir, cd)?"), log[0]["message"]


def test_a_program_that_reads_stdin_is_told_its_input_is_files(tmp_path, make_player):
    _, log = play(tmp_path, make_player("reads", "r, c = input().split()\n"))
    assert log[0]["verdict"] == "CRASH"
    assert log[0]["message"].endswith(
        "(stderr: EOFError: EOF when reading a line at reads.py:1); the program read its standard input, which "
        "is closed: its input is the files in its folder (Board.txt, state.json), its output decision.txt")


def test_a_node_crash_is_named_by_its_error_and_file_not_by_nodes_version():
    """Node ends a crash with 'Node.js v20.20.2': the one line quoted that."""
    from types import SimpleNamespace
    from referee.core.match import _tail

    stderr = ("node:fs:573\n  return binding.open(\n                 ^\n\n"
              "Error: ENOENT: no such file or directory, open 'board.txt'\n"
              "    at Object.openSync (node:fs:573:18)\n"
              "    at Object.<anonymous> (/home/ann/bot/main.js:1:15)\n"
              "    at Module._compile (node:internal/modules/cjs/loader:1521:14)\n"
              "    at node:internal/main/run_main_module:28:49 {\n  errno: -2,\n  code: 'ENOENT'\n}\n\n"
              "Node.js v20.20.2\n")
    assert _tail(SimpleNamespace(run=SimpleNamespace(stderr_tail=stderr))) == (
        " (stderr: Error: ENOENT: no such file or directory, open 'board.txt' at main.js:1)")


def test_a_file_of_the_players_own_sought_in_the_seat_folder_is_found_beside_the_program(tmp_path, make_player):
    """weights.txt beside player.py, opened by its bare name: the program
    runs in its seat folder, and the message says how to reach its own."""
    (tmp_path / "weights.txt").write_text("1\n")
    _, log = play(tmp_path, make_player("weighs", "open('weights.txt').read()\n"))
    assert log[0]["verdict"] == "CRASH"
    assert log[0]["message"].endswith(
        "; weights.txt is beside the program, but the program runs in its seat folder: open it by the "
        "program's folder (Python: os.path.join(os.path.dirname(__file__), 'weights.txt'))"), log[0]["message"]


def test_path_hints_read_node_and_java_errors_too():
    from types import SimpleNamespace
    from referee.core.match import _path_hint

    def hint(stderr):
        return _path_hint(SimpleNamespace(run=SimpleNamespace(stderr_tail=stderr), program_dirs=()))

    assert hint("Error: ENOENT: no such file or directory, open 'STATE.JSON'\n    at Object.openSync\n"
                "Node.js v20.2.0\n") == "; the file is state.json: file names are case-sensitive"
    assert "open 'Board.txt' by its name alone, not '../Board.txt'" in hint(
        "Exception in thread \"main\" java.io.FileNotFoundException: ../Board.txt (No such file or directory)\n")
    assert hint("FileNotFoundError: [Errno 2] No such file or directory: 'weights.bin'") == ""
    assert hint("FileNotFoundError: [Errno 2] No such file or directory: './Board.txt'") == (
        "; Board.txt is in the folder the program starts in (its seat folder): did it change folder "
        "(os.chdir, cd)?")


def test_read_ckbd_of_the_step_itself_is_told_to_read_the_step_before(tmp_path):
    """The template's read_ckbd(step - 1) written read_ckbd(step): the SDK's
    one line, whole in the step's message, says which snapshot to read (it
    used to tell a program run by the referee to run itself with rerun)."""
    referee("new-player", "cantris", tmp_path / "bot")
    player = tmp_path / "bot" / "player.py"
    player.write_text(player.read_text().replace("read_ckbd(step - 1)", "read_ckbd(step)"))
    _, log = play(tmp_path, f"python3 {player}")
    assert log[0]["verdict"] == "CRASH"
    assert log[0]["message"].endswith(
        "(stderr: step_logs/step_1.txt: no such file: step_logs/ has the boards of the steps played so "
        "far; at step s, the board before your move is read_ckbd(s - 1))"), log[0]["message"]
    assert "rerun" not in log[0]["stderr"]


def test_a_utf16_decision_is_named_as_such(tmp_path, make_player):
    """PowerShell's `echo "0 0" > decision.txt` writes UTF-16: MALFORMED says
    so, and what was in it, instead of a garbled 'expected one line, got 2'."""
    proc, log = play(tmp_path, make_player("utf16", "open('decision.txt', 'w', encoding='utf-16').write('0 0\\r\\n')\n"))
    assert log[0]["verdict"] == "MALFORMED"
    assert log[0]["message"] == ("step 1, player 1: MALFORMED: decision.txt is UTF-16 ('0 0'; PowerShell's > "
                                 "and Out-File, Notepad's 'Unicode' write it): write it as UTF-8 or plain ASCII")
    assert "\x00" not in proc.stdout and "^@" not in proc.stdout


def test_a_match_folder_that_is_not_there_names_the_newest_ones_beside_it(tmp_path):
    """`replay step_logs/<match>` taken literally, or a typo, said 'not a
    match folder' of a folder that does not exist; a file of one was the same."""
    play(tmp_path, "builtin:greedy")
    proc = referee("replay", "step_logs/<match>", cwd=tmp_path.parent)
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("referee: error: step_logs/<match>: no such match folder"), proc.stderr
    proc = referee("rerun", tmp_path / "mm", "--step", 1)
    assert proc.stderr.strip() == (f"referee: error: {tmp_path / 'mm'}: no such match folder "
                                   f"(the newest in {tmp_path}: m)"), proc.stderr
    proc = referee("replay", tmp_path / "m" / "log.jsonl")
    assert proc.stderr.strip() == (f"referee: error: {tmp_path / 'm' / 'log.jsonl'}: a file, not a match "
                                   f"folder; give the folder that holds it ({tmp_path / 'm'})"), proc.stderr


def test_a_long_step_shows_a_status_line_on_a_terminal_until_it_is_judged(tmp_path, make_player):
    """An endless loop was a silent terminal for the whole hard limit (a
    minute in Cantris).  Here the player waits for a file the test writes
    once the status line shows: no timing is assumed."""
    player = make_player("waits", """
        import os, time
        go = os.path.join(os.path.dirname(os.path.abspath(__file__)), "go")
        while not os.path.exists(go):
            time.sleep(0.02)
        open("decision.txt", "w").write("0 0")
        """)
    term = Terminal(["play", "cantris", "--player", player, "--player", "builtin:random", "--seed", "1",
                     "--out", str(tmp_path / "m"), "--no-color", "--sandbox", "none"],
                    {**os.environ, "COLUMNS": "200"}, tmp_path)  # the line is cut to the terminal's width
    term.read_until(r"\r  step 1, player 1 \(.*\) running: \d+ s \(LATE past 30 s, killed at 60 s\)")
    (tmp_path / "go").write_text("")
    assert term.finish() == 0
    assert re.search(r"killed at 60 s\) *\r +\rstep   1  player 1 \(.*\)  0 0  OK", term.text), term.text[-2000:]


def test_the_status_line_is_erased_and_never_shown_again_once_closed():
    """A match stopped in a step (Ctrl-C, an error) closes the console
    observer: its status line is erased and its thread writes no more."""
    import threading
    from referee.console import Thinking

    shown = threading.Event()

    class Out:
        def __init__(self):
            self.text = ""

        def write(self, text):
            self.text += text
            if "running" in text:
                shown.set()

        def flush(self):
            pass

    out = Out()
    thinking = Thinking(out)
    thinking.AFTER = 0.0
    thinking.arm("step 1, player 1 (bot) running", "LATE past 1 s, killed at 2 s")
    assert shown.wait(60)
    thinking.disarm()
    thinking.disarm()  # idempotent: the match's end and the CLI's both close it
    assert out.text.endswith("killed at 2 s)\r" + " " * len("  step 1, player 1 (bot) running: 0 s (LATE past 1 s, "
                                                          "killed at 2 s)") + "\r"), repr(out.text)
    written = out.text
    thinking._wake.acquire()  # the thread, if it woke meanwhile, has done its round
    thinking._wake.release()
    assert out.text == written


def test_the_new_player_readme_ends_its_command_block_before_the_zip_lines(tmp_path):
    """The check-bot command ran into ' From the folder above this one:' (no
    blank line, a stray space): a Markdown viewer showed a broken block."""
    for lang in ("python", "cpp"):
        referee("new-player", "cantris", tmp_path / lang, "--lang", lang)
        text = (tmp_path / lang / "README.md").read_text()
        assert "    referee check-bot cantris --player .\n\nThen zip it, from the folder above this one:\n" in text
        assert not [line for line in text.splitlines() if line.startswith(" ") and not line.startswith("    ")]


def test_an_empty_decision_says_so_and_a_crash_after_it_too(tmp_path, make_player):
    """'': expected two integers 'r c', got 0 word(s)' said less than this."""
    _, log = play(tmp_path, make_player("blank", "open('decision.txt', 'w').write('\\n')\n"))
    assert log[0]["verdict"] == "MALFORMED"
    assert log[0]["message"] == ("step 1, player 1: MALFORMED: decision.txt is empty (expected one line 'r c': "
                                 "the row (0 = top) and column of a non-empty cell)")
    (tmp_path / "m").rename(tmp_path / "m1")
    _, log = play(tmp_path, make_player("opened", "f = open('decision.txt', 'w')\n1 / 0\n"))
    assert log[0]["verdict"] == "MALFORMED"
    assert log[0]["message"].endswith("non-empty cell); then the program failed: exit status 1 "
                                      "(stderr: ZeroDivisionError: division by zero at opened.py:2)"), log[0]["message"]


def test_a_python_crash_names_the_players_own_file_and_line_in_its_one_line(tmp_path, make_player):
    """The one line (log, check-bot, grades) named the error but not where:
    now the last frame of the player's own code (not the SDK's), or the file
    of a SyntaxError."""
    _, log = play(tmp_path, make_player("typo", "x = 1\ndef f(:\n    pass\n"))
    assert "(stderr: SyntaxError: invalid syntax at typo.py:2)" in log[0]["message"], log[0]["message"]
    (tmp_path / "m").rename(tmp_path / "m1")
    referee("new-player", "cantris", tmp_path / "bot")
    player = tmp_path / "bot" / "player.py"
    text = player.read_text().replace("read_ckbd(step - 1)", "read_ckbd('one')")
    player.write_text(text)
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "read_ckbd('one')" in ln)
    _, log = play(tmp_path, f"python3 {player}")
    assert log[0]["verdict"] == "CRASH"
    assert log[0]["message"].endswith(f"'one' at player.py:{line})"), log[0]["message"]


def test_the_new_player_readme_says_the_program_runs_in_another_folder(tmp_path):
    for lang, how in (("python", "os.path.dirname(__file__)"), ("cpp", "the folder of `argv[0]`")):
        referee("new-player", "cantris", tmp_path / lang, "--lang", lang)
        text = " ".join((tmp_path / lang / "README.md").read_text().split())
        assert "That folder is not this one: open a file of your own (weights, tables) by this" in text
        assert how in text


def test_decision_lookalikes():
    from referee.core.players import decision_lookalike

    assert decision_lookalike(["Board.txt", "DECISION.TXT", "decision.txt.txt"]) == "DECISION.TXT"
    assert decision_lookalike(["decision.text", "state.json"]) == "decision.text"
    assert decision_lookalike(["decision"]) == "decision"
    assert decision_lookalike(["Board.txt", "decisions.txt.bak", "my_decision.txt", "stdout.txt"]) is None


def test_a_decision_written_before_a_timeout_is_said_not_to_count(tmp_path, make_player):
    player = make_player("stays", "open('decision.txt', 'w').write('0 0')\nwhile True:\n    pass\n")
    # A 3 s hard limit (twice the soft one): even on a busy machine it has
    # written its decision long before it is killed.
    proc, log = play(tmp_path, player, "--time-limit", "1.5")
    assert log[0]["verdict"] == "TIMEOUT"
    assert "it had written decision.txt, but a program must exit" in log[0]["message"]
    assert "a killed program's decision does not count" in proc.stdout


def test_a_persistent_done_left_in_the_buffer_is_told_to_flush(tmp_path, make_player):
    """print('done') to a pipe stays in Python's buffer: the step times out
    with its decision written, and the message said only 'print done'."""
    player = make_player("unflushed", """
        import sys
        for line in sys.stdin:
            open("decision.txt", "w").write("0 0")
            print("done")
        """)
    proc, log = play(tmp_path, "persistent:" + player, "--time-limit", "1.5")
    assert log[0]["verdict"] == "TIMEOUT"
    assert "a persistent one: print done and flush its output, e.g. print('done', flush=True)" in log[0]["message"]


def test_processes_left_running_are_said_to_be_killed(tmp_path, make_player):
    player = make_player("leaves", """
        import subprocess, sys
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        open('decision.txt', 'w').write('0 0')
        """)
    proc, log = play(tmp_path, player)
    assert log[0]["verdict"] == "OK" and log[0].get("orphans_killed") == 1, log[0]
    assert "1 process it left running was killed at the end of the step" in proc.stdout


def test_a_two_line_decision_keeps_the_step_on_one_line(tmp_path, make_player):
    proc, log = play(tmp_path, make_player("two", "open('decision.txt', 'w').write('0 0\\n1 1\\n')\n"))
    assert log[0]["verdict"] == "MALFORMED"
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("step   1"))
    assert "0 0 (+1 more line)  MALFORMED" in line, proc.stdout


def test_an_unknown_board_name_lists_the_shipped_boards(tmp_path):
    proc = referee("play", "cantris", "--board", "10x5-9", "--player", "builtin:random",
                   "--player", "builtin:random", "--out", tmp_path / "m")
    assert proc.returncode == 2
    assert re.search(r"10x5-9: no such file, nor a shipped board .*10x5-1, 10x5-2", proc.stderr)
    assert "Traceback" not in proc.stderr


def test_a_player_run_by_hand_without_its_files_is_told_about_rerun(tmp_path):
    referee("new-player", "cantris", tmp_path / "p")
    proc = subprocess.run([sys.executable, "player.py", "1", "1"], cwd=tmp_path / "p",
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert "no such file" in proc.stderr and "referee rerun MATCH_DIR --step K" in proc.stderr


def test_docs_prints_where_the_docs_are_and_a_page(tmp_path):
    listing = referee("docs")
    assert listing.returncode == 0 and "documentation: " in listing.stdout
    assert "games/cantris" in listing.stdout and "protocol" in listing.stdout
    page = referee("docs", "cantris")
    assert page.returncode == 0 and page.stdout.startswith("# Cantris")
    missing = referee("docs", "nope")
    assert missing.returncode == 2 and "no documentation page 'nope'" in missing.stderr


def test_what_the_runner_noted_is_on_the_step_line():
    # e.g. forks a control group refused: the program saw fork() fail and
    # crashed, and the step line says why (the log keeps the note too).
    from referee.console import format_step

    record = {"step": 3, "player": 1, "decision": None, "verdict": "CRASH", "wall_ms": 5.0,
              "notes": ["12 process(es) refused: the seat's limit is 64", "odd\x1b[2Jbytes"]}
    text = format_step(record, ["p1", "p2"])
    assert "\n    note: 12 process(es) refused: the seat's limit is 64" in text
    assert "\x1b" not in text


def test_a_step_line_shows_its_time_however_short():
    # A person's piped ``resign`` is read in well under 0.05 ms on a quiet
    # machine and in more on a busy one: the line must have the same shape
    # either way (a time of 0 is a time), and an automatic step none.
    from referee.console import format_step

    base = {"step": 3, "player": 1, "decision": "resign", "verdict": "OK", "resigned": True}
    quick = format_step({**base, "wall_ms": 0.0}, ["human", "p2"])
    slow = format_step({**base, "wall_ms": 0.4}, ["human", "p2"])
    assert quick.endswith("RESIGNED  0 ms") and slow.endswith("RESIGNED  0 ms")
    auto = format_step({"step": 4, "player": 2, "decision": None, "verdict": "OK", "auto": True,
                        "applied": "pass", "wall_ms": 0}, ["human", "p2"])
    assert auto.endswith("OK (automatic)")


def test_a_module_kept_beside_the_program_but_not_in_its_folder_is_explained_in_the_sandbox(tmp_path):
    """Shared code in a sibling folder imports without the referee and
    without its sandbox, and fails in it (the sandbox shows the program's
    own folder): the crash says why and what to do."""
    from grading_kit import SANDBOX_OK

    if not SANDBOX_OK:
        pytest.skip("the bubblewrap sandbox cannot start here")
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "helper.py").write_text("MOVE = None\n")
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "main.py").write_text(
        "import os, sys\n"
        "sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'shared'))\n"
        "import helper\n")
    player = f"{sys.executable} {tmp_path / 'bot' / 'main.py'}"
    _, log = play(tmp_path, player, "--sandbox", "bwrap")
    assert log[0]["verdict"] == "CRASH"
    assert log[0]["message"].endswith(
        "(stderr: ModuleNotFoundError: No module named 'helper' at main.py:3); if 'helper' is in a folder of "
        "yours, the sandbox does not show it: it shows the program's own folder and every folder named on its "
        "command line, not others (nor packages installed with pip install --user): keep the module beside "
        "the program, or name its folder on the command line (docs/protocol.md, \"The sandbox (Linux)\")"), \
        log[0]["message"]
    _, log = play(tmp_path, player, "--sandbox", "none", "--replace")  # it imports: no such hint
    assert "ModuleNotFoundError" not in (log[0].get("message") or "")
