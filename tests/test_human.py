"""A human at the keyboard: sees only its own hand, the board once per prompt,
tile pictures; quit/resign, end of input and Ctrl-C end the game with a
result.  The match runs the real `referee` with the human's lines on stdin."""
from __future__ import annotations

import io
import re
from pathlib import Path

import yaml

from conftest import interruptible, read_log, referee
from referee.core.match import Match, MatchSpec, Observer, prepare
from referee.core.players import HumanAgent
from referee.games.tsuro.render import LEGEND

PROMPT = re.compile(r"^step (\d+), player 1 \((setup|play)\)> ", re.M)


def guesses() -> str:
    """Every placement of hand tile i at rotation 0: the prompt refuses the
    illegal ones and asks again, so some line of each round is accepted."""
    return "".join(f"T {i} 0 {r} {c}\n" for i in range(3) for r in range(6) for c in range(6))


def play_tsuro_as_human(tmp_path: Path, lines: str) -> tuple[object, Path]:
    out = tmp_path / "m"
    proc = referee("play", "tsuro", "--player", "human", "--player", "builtin:random",
                   "--seed", 5, "--out", out, "--no-color", input=lines)
    return proc, out


def test_the_human_never_sees_the_bots_hand_and_sees_its_own_as_pictures(tmp_path):
    proc, out = play_tsuro_as_human(tmp_path, "S 3\n" + guesses() * 3 + "quit\n")
    assert proc.returncode == 0, proc.stderr
    bot_moves = [r for r in read_log(out) if r["player"] == 2]
    assert len(bot_moves) >= 2
    p2_lines = [ln for ln in proc.stdout.splitlines() if re.match(r"^[ >]P2: ", ln)]
    assert p2_lines and all(ln.rstrip().endswith("hidden") for ln in p2_lines), p2_lines
    assert "your hand (player 1)" in proc.stdout and " i=0: #" in proc.stdout
    assert yaml.safe_load((out / "result.yaml").read_text())["winner"] == 2  # off the edge or quit


def test_the_board_is_drawn_once_per_prompt(tmp_path):
    proc, _ = play_tsuro_as_human(tmp_path, "S 3\n" + guesses() * 2 + "quit\n")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    prompts = list(PROMPT.finditer(text))
    assert len(prompts) >= 3
    # From each bot step line to the human's next prompt: exactly one board.
    for bot in re.finditer(r"^step +\d+  player 2 ", text, re.M):
        nxt = next((p for p in prompts if p.start() > bot.start()), None)
        if nxt is not None:
            assert text[bot.start():nxt.start()].count(LEGEND) == 1


def test_quit_resigns_with_a_result_and_the_log_verifies(tmp_path):
    out = tmp_path / "m"
    proc = referee("play", "cantris", "--player", "builtin:greedy", "--player", "human",
                   "--seed", 1, "--out", out, "--no-color", input="nonsense\nresign\n")
    assert proc.returncode == 0, proc.stderr
    assert "not accepted:" in proc.stdout
    assert "result: player 1 (builtin:greedy) wins: player 2 resigned after 2 steps" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr
    result = yaml.safe_load((out / "result.yaml").read_text())
    assert result["winner"] == 1 and result["reason"] == "player 2 resigned"
    assert result["players"][2]["status"] == "resigned"
    last = read_log(out)[-1]
    assert last["resigned"] is True and last["player"] == 2 and last["verdict"] == "RESIGNED"
    assert "step   2  player 2 (human)  -  RESIGNED" in proc.stdout
    assert referee("replay", out, "--verify").returncode == 0


def test_end_of_input_resigns_too(tmp_path):
    out = tmp_path / "m"
    proc = referee("play", "cantris", "--player", "human", "--player", "builtin:random",
                   "--seed", 1, "--out", out, "--no-color", input="")
    assert proc.returncode == 0, proc.stderr
    assert "player 1 resigned after 1 step\n" in proc.stdout


def test_ctrl_c_at_the_prompt_ends_the_match_with_a_result(tmp_path):
    def ctrl_c(prompt: str) -> str:
        raise KeyboardInterrupt

    prepared = prepare(MatchSpec(game="cantris", players=["human", "builtin:random"], seed=3,
                                 out=tmp_path / "m"))
    prepared.agents[0] = HumanAgent(prepared.game, read=ctrl_c, out=io.StringIO())
    result = Match(prepared, Observer()).run()
    assert result.outcome.winner == 2 and result.outcome.reason == "player 1 resigned"
    assert yaml.safe_load((tmp_path / "m" / "result.yaml").read_text())["winner"] == 2


def test_an_illegal_line_is_refused_and_the_next_legal_one_accepted(tmp_path):
    lines = iter(["9 9", "hello", "1 0"])
    screen = io.StringIO()
    prepared = prepare(MatchSpec(game="cantris", players=["human", "builtin:random"], seed=1,
                                 out=tmp_path / "m"))
    agent = HumanAgent(prepared.game, read=lambda prompt: next(lines), out=screen)
    state = prepared.game.initial_state(prepared.setup)
    seat = tmp_path / "m" / "players" / "p1"
    (seat / "step_logs").mkdir(parents=True)
    reply = agent.decide(seat, 1, 1, state)
    assert reply.text == "1 0\n" and not reply.resigned and reply.human
    assert (seat / "decision.txt").read_text() == "1 0\n"  # handed over as a program's is
    assert screen.getvalue().count("not accepted:") == 2


def test_the_legal_moves_wrap_between_moves_at_the_terminal_s_width(tmp_path, monkeypatch):
    """One long line that the terminal wrapped where it ran out, inside a
    move ('5 1' as '5' at the end of a line and '1' under it); the format
    line after it inside a word."""
    monkeypatch.setenv("COLUMNS", "30")
    lines = iter(["?", "resign"])
    screen = io.StringIO()
    prepared = prepare(MatchSpec(game="cantris", players=["human", "builtin:random"], seed=1,
                                 out=tmp_path / "m"))
    agent = HumanAgent(prepared.game, read=lambda prompt: next(lines), out=screen)
    state = prepared.game.initial_state(prepared.setup)
    legal = [str(d) for d in state.legal_decisions()]
    assert agent.decide(tmp_path, 1, 1, state).resigned and len(legal) > 24
    text = screen.getvalue()
    listings = re.findall(r"^legal \(\d+\): [^\0]*?(?=^format: )", text, re.M)  # up to the format line
    assert len(listings) == 2, text  # the first 24, then every move (?)
    for listing in listings:
        assert max(map(len, listing.splitlines())) < 30, listing
    first, everything = (" ".join(listing.split()[2:]) for listing in listings)
    assert first == ", ".join(legal[:24]) + f" ... and {len(legal) - 24} more (?)"
    assert everything == ", ".join(legal)
    help_lines = re.findall(r"^format: [^\0]*?(?=^  \(\? lists|^step )", text, re.M)[0].splitlines()
    assert max(map(len, help_lines)) < 30 and " ".join(" ".join(help_lines).split()) == (
        "format: " + prepared.game.decision_help)


def test_arrow_keys_and_control_characters_are_never_read_as_a_move(tmp_path):
    """Without line editing (input from a pipe) an arrow key arrives as ESC [ A."""
    out = tmp_path / "m"
    proc = referee("play", "cantris", "--player", "human", "--player", "builtin:random",
                   "--seed", 1, "--out", out, "--no-color", input="\x1b[A\n1\x040\n0 0\nquit\n")
    assert proc.returncode == 0, proc.stderr
    assert "terminal key code (an arrow or other editing key?)" in proc.stdout
    assert "control characters ^D" in proc.stdout
    first = read_log(out)[0]
    assert first["player"] == 1 and first["decision"] == "0 0\n" and first["verdict"] == "OK"


def test_a_human_is_never_late_and_a_resignation_is_resigned_everywhere(tmp_path):
    import time

    def slow(prompt: str, answers=iter(["0 0", "resign"])) -> str:
        until = time.monotonic() + 0.1  # always past the 0.05 s soft limit, whatever the load
        while time.monotonic() < until:
            pass
        return next(answers)

    out = tmp_path / "m"
    # hard_time far away: the bot's steps (LATE at most) must not end the match on a busy machine
    prepared = prepare(MatchSpec(game="cantris", players=["human", "builtin:random"], seed=1,
                                 out=out, settings={"soft_time": 0.05, "hard_time": 120}))
    prepared.agents[0] = HumanAgent(prepared.game, read=slow, out=io.StringIO())
    Match(prepared, Observer()).run()
    log = read_log(out)
    assert log[0]["verdict"] == "OK" and log[0]["wall_ms"] > 50
    assert log[-1]["verdict"] == "RESIGNED" and log[-1]["resigned"]
    result = yaml.safe_load((out / "result.yaml").read_text())
    assert result["verdicts"][1]["RESIGNED"] == 1 and result["verdicts"][1]["NO_DECISION"] == 0
    assert result["verdicts"][1]["LATE"] == 0
    assert referee("replay", out, "--verify").returncode == 0


def test_ctrl_c_while_a_program_thinks_stops_without_a_traceback(tmp_path, make_player):
    import signal
    import subprocess
    import sys
    import time

    sleeper = make_player("sleeper", "import time\nopen('started', 'w').close()\ntime.sleep(60)\n")
    exe = Path(sys.executable).with_name("referee")
    proc = subprocess.Popen([str(exe), "play", "cantris", "--player", sleeper, "--player", "human",
                             "--out", tmp_path / "m", "--no-color"], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=interruptible)
    started = tmp_path / "m" / "players" / "p1" / "started"
    deadline = time.monotonic() + 60
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "Traceback" not in err and "referee: interrupted; the log so far is in" in err


def test_a_resignation_under_a_time_bank_verifies(tmp_path):
    out = tmp_path / "m"
    proc = referee("play", "cantris", "--player", "builtin:greedy", "--player", "human",
                   "--set", "time_bank=30", "--seed", 2, "--out", out, "--no-color", input="quit\n")
    assert proc.returncode == 0, proc.stderr
    assert read_log(out)[-1]["resigned"] and "bank_ms" in read_log(out)[-1]
    verify = referee("replay", out, "--verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_the_quoridor_prompt_says_which_pawn_is_yours_and_the_tsuro_board_is_labelled(tmp_path):
    proc = referee("play", "quoridor", "--player", "builtin:random", "--player", "human",
                   "--seed", 1, "--out", tmp_path / "q", "--no-color", input="quit\n")
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"you are player 2 \(blue, shown as 2 on the board\), pawn at \d \d, goal row 8, "
                     r"10 walls left", proc.stdout)
    proc, _ = play_tsuro_as_human(tmp_path, "S 3\nquit\n")
    assert re.search(r"^ +c0 +c1 +c2 +c3 +c4 +c5$", proc.stdout, re.M)
    assert re.search(r"^ r5  \|", proc.stdout, re.M)
    # Where each hand tile would take the marker, per rotation.
    assert re.search(r"^   i=0 #\d+: +rot 0: (OUT \(\w+\)|\d \d \w+, faces -?\d -?\d) \| rot 1: ",
                     proc.stdout, re.M), proc.stdout
