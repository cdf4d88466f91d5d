"""Where ``human`` plays: the browser only where it is the better choice (the
web extra, a terminal on stdin, a graphical session), the terminal
otherwise; ``human:terminal`` and ``human:web`` choose.  The rule as a unit
(facts in, choice out), then the real `referee` on a pseudo-terminal (the
`pty` module) with a faked DISPLAY, and with piped input (byte for byte the
same whatever the display); and every place that refuses a person (rerun,
series, tournament, grading, check-bot) refuses each spelling."""
from __future__ import annotations

import json
import os
import re
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import yaml

from conftest import read_log, referee
from terminal import Terminal
from referee.core.humans import HUMAN_SPECS, choose, graphical_session, is_human

LINUX_DESKTOP = {"DISPLAY": ":0"}
PROMPT = "step 1, player 1 (play)> "


@pytest.mark.parametrize("spec, extra, tty, platform, environ, web", [
    ("human", True, True, "linux", LINUX_DESKTOP, True),
    ("human", True, True, "linux", {"WAYLAND_DISPLAY": "wayland-0"}, True),
    ("human", True, True, "darwin", {}, True),
    ("human", True, True, "win32", {}, True),
    ("human", True, True, "linux", {}, False),  # SSH, CI, a container
    ("human", True, True, "linux", {"DISPLAY": ""}, False),
    ("human", True, True, "freebsd14", {}, False),
    ("human", True, False, "linux", LINUX_DESKTOP, False),  # moves piped in
    ("human", True, False, "darwin", {}, False),
    ("human", False, True, "linux", LINUX_DESKTOP, False),  # no web extra
    ("human", False, True, "darwin", {}, False),
    ("human:terminal", True, True, "linux", LINUX_DESKTOP, False),
    ("human:terminal", True, True, "darwin", {}, False),
    ("human:web", False, False, "linux", {}, True),  # asked for: its own error if the extra is missing
    (" human ", True, True, "linux", LINUX_DESKTOP, True),
])
def test_the_choice(spec, extra, tty, platform, environ, web):
    choice = choose(spec, web_extra=extra, stdin_tty=tty, platform=platform, environ=environ)
    assert choice.web is web
    assert choice.automatic is (spec.strip() == "human")


def test_what_the_console_says_about_the_choice():
    def facts(spec, **kw):
        args = dict(web_extra=True, stdin_tty=True, platform="linux", environ=LINUX_DESKTOP)
        return choose(spec, **{**args, **kw})

    before, after = facts("human").browser_words(2)
    assert before == "player 2 (human) plays in the browser at" and "human:terminal" in after
    assert facts("human:web").browser_words(1) == ("player 1 (human:web) plays in the browser at", "")
    assert facts("human", environ={}).note(2) == (
        "player 2 (human) plays here in the terminal: no graphical session (DISPLAY and "
        "WAYLAND_DISPLAY are not set); --player human:web plays in the browser")
    assert "pip install 'referee[web]'" in facts("human", web_extra=False).note(1)
    assert facts("human", stdin_tty=False).note(1) is None  # piped moves: today's output
    assert facts("human:terminal").note(1) is None  # asked for: nothing to explain
    assert facts("human").note(1) is None  # the browser seat says it with its URL


def test_graphical_session_and_spellings():
    assert graphical_session("linux", {"WAYLAND_DISPLAY": "w"}) and not graphical_session("linux", {})
    assert graphical_session("cygwin", {})
    assert all(is_human(s) for s in HUMAN_SPECS) and is_human(" human:web ")
    assert not any(is_human(s) for s in ("humans", "./human", "persistent:human", "human:tty",
                                         "builtin:human", None, ["human"]))


# ----- the real referee on a terminal

def environment(display: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    if display is not None:
        env["DISPLAY"] = display
    return env


def play_on_a_terminal(tmp_path: Path, spec: str, display: str | None, *extra: str) -> Terminal:
    return Terminal(["play", "cantris", "--player", spec, "--player", "builtin:random", "--seed", "1",
                     "--out", str(tmp_path / "m"), "--no-color", *extra], environment(display), tmp_path)


def test_human_terminal_keeps_the_terminal_on_a_desktop(tmp_path):
    term = play_on_a_terminal(tmp_path, "human:terminal", ":99")
    term.read_until(re.escape(PROMPT))
    term.type("resign")
    assert term.finish() == 0
    assert "browser" not in term.text and "plays here" not in term.text
    assert "player 1 resigned after 1 step" in term.text
    seat = yaml.safe_load((tmp_path / "m" / "match.yaml").read_text())["players"][0]
    assert seat["name"] == "human:terminal" and seat["command"] == "human"
    assert referee("replay", tmp_path / "m", "--verify").returncode == 0


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="a graphical session is always there")
def test_human_without_a_display_plays_in_the_terminal_and_says_why(tmp_path):
    term = play_on_a_terminal(tmp_path, "human", None)
    term.read_until(re.escape(PROMPT))
    term.type("resign")
    assert term.finish() == 0
    first = term.text.splitlines()[0]
    assert first == ("player 1 (human) plays here in the terminal: no graphical session (DISPLAY and "
                     "WAYLAND_DISPLAY are not set); --player human:web plays in the browser")


def test_human_on_a_desktop_plays_in_the_browser(tmp_path):
    pytest.importorskip("starlette", reason="the web extra (Starlette, uvicorn) is not installed")
    term = play_on_a_terminal(tmp_path, "human", ":99", "--no-browser")
    found = term.read_until(r"player 1 \(human\) plays in the browser at: (http://127\.0\.0\.1:\d+/)"
                            r"\?token=([\w-]+)  \(--player human:terminal plays here in the terminal\)\n")
    base, token = found.group(1), found.group(2)

    def call(path: str, body: dict | None = None) -> dict:
        request = urllib.request.Request(base + path, headers={"X-Token": token, "Content-Type": "application/json"},
                                         data=None if body is None else json.dumps(body).encode())
        with urllib.request.urlopen(request, timeout=60) as answer:
            return json.load(answer)

    deadline = time.monotonic() + 120
    while call("api/live?since=0")["turn"] is None:  # the seat's turn (player 1 moves first)
        assert time.monotonic() < deadline, term.text
        time.sleep(0.05)
    assert call("api/decide", {"decision": "0 0"})["ok"]
    while not call("api/live?since=0")["turn"] or len(read_log(tmp_path / "m")) < 2:
        assert time.monotonic() < deadline, term.text
        time.sleep(0.05)
    assert call("api/decide", {"resign": True})["ok"]
    while call("api/live?since=0&ack=result")["result"] is None:
        assert time.monotonic() < deadline, term.text
        time.sleep(0.05)
    assert term.finish() == 0
    assert PROMPT not in term.text  # nothing asked at the terminal
    seat = yaml.safe_load((tmp_path / "m" / "match.yaml").read_text())["players"][0]
    assert seat["name"] == "human" and seat["command"] == "human:web"
    log = read_log(tmp_path / "m")
    assert log[0]["decision"] == "0 0\n" and log[-1]["verdict"] == "RESIGNED"
    assert referee("replay", tmp_path / "m", "--verify").returncode == 0


# ----- piped moves, and the places that refuse a person

def test_piped_moves_keep_the_terminal_whatever_the_display(tmp_path):
    runs = []
    for i, display in enumerate((None, ":99")):
        out = tmp_path / f"m{i}"
        proc = referee("play", "cantris", "--player", "human", "--player", "builtin:random", "--seed", "1",
                       "--out", out, "--no-color", input="0 0\nresign\n", env=environment(display))
        assert proc.returncode == 0, proc.stderr
        runs.append(re.sub(r"\b\d+ ms\b", "N ms", proc.stdout.replace(str(out), "OUT")))  # timings aside
    assert runs[0] == runs[1]
    assert runs[0].startswith("Cantris: player 1 = human, player 2 = builtin:random")
    assert "browser" not in runs[0] and "plays here" not in runs[0]
    assert yaml.safe_load((tmp_path / "m1" / "match.yaml").read_text())["players"][0]["command"] == "human"

    # A person cannot be rerun: one line, whichever spelling.
    for args in ((), ("--player", "human:web")):
        proc = referee("rerun", tmp_path / "m1", "--step", 1, *args)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
        assert "a person cannot be rerun" in proc.stderr or "who cannot be rerun" in proc.stderr
        assert "--player CMD" in proc.stderr


@pytest.mark.parametrize("spec", ["human", "human:terminal", "human:web"])
def test_a_series_refuses_every_human(tmp_path, spec):
    proc = referee("play", "cantris", "--player", spec, "--player", "builtin:random", "--games", 2,
                   "--no-browser", "--out", tmp_path / "s", timeout=60)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr == (f"referee: error: {spec}: a human cannot play a series (--games); play one "
                           "game at a time without --games, or use builtin:NAME or a command\n")
    assert not (tmp_path / "s").exists()


def test_tournament_grading_and_check_bot_refuse_every_human(tmp_path):
    from grading_kit import CONFIG, write_config
    from referee.core.errors import InputError
    from referee.grading import config as grading_config
    from referee.grading.check_bot import check_bot
    from referee.tournament.config import load_config

    for spec in ("human", "human:terminal", "human:web"):
        path = tmp_path / "t.yaml"
        path.write_text(f"game: cantris\nentrants:\n  - {{name: me, command: '{spec}'}}\n"
                        "  - {name: bot, command: 'builtin:random'}\n")
        with pytest.raises(InputError, match="entrants.0..command: a human cannot play in a tournament"):
            load_config(path)
        with pytest.raises(InputError, match="opponents.1..player: a human cannot be a grading opponent"):
            grading_config.load(write_config(tmp_path, CONFIG.replace("builtin:greedy", spec)))
        report = check_bot("cantris", spec, base_dir=tmp_path, out=tmp_path / "cb")
        assert not report.checks[0].passed and f"{spec} is a person" in report.checks[0].message


def test_a_new_players_readme_says_how_to_play_against_it(tmp_path):
    from referee.templates import write_template

    write_template("tsuro", tmp_path / "bot", "python")
    readme = (tmp_path / "bot" / "README.md").read_text()
    assert "give `--player human` instead of `--player builtin:greedy`" in readme
    assert "`human:terminal` always here" in readme


def test_a_browser_that_cannot_be_opened_is_said(monkeypatch):
    pytest.importorskip("starlette", reason="the web extra (Starlette, uvicorn) is not installed")
    import io
    import webbrowser

    from referee.web.server import LocalServer

    opened: list[str] = []
    server = LocalServer([])
    try:
        for result in (True, False):
            monkeypatch.setattr(webbrowser, "open", lambda url, new=0: opened.append(url) or result)
            screen = io.StringIO()
            server.announce("player 1 (human) plays in the browser at", True, out=screen, after="  (x)")
            lines = screen.getvalue().splitlines()
            assert lines[0] == f"player 1 (human) plays in the browser at: {server.url}  (x)"
            assert lines[1:] == ([] if result else ["no browser could be opened from here: "
                                                    "open the address above in one"])
        assert opened == [server.url] * 2
    finally:
        server.close()


@pytest.mark.parametrize("spec", ["human:browser", "human:", "HUMAN:WEB", "human:tty"])
def test_a_mistyped_human_names_the_spellings(spec):
    from referee.core.errors import InputError
    from referee.core.players import make_agent
    from referee.core.registry import get_game
    from referee.core.runner import Limits

    with pytest.raises(InputError, match="a person plays as human, human:terminal, human:web"):
        make_agent(spec, get_game("cantris"), Limits(), Path.cwd())
