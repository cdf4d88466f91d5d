"""Hidden information stays hidden (issue 21): Tsuro's hands come from a
secret match key that players never see, default seeds are random, and a
given seed still makes a match reproducible.

The attack from the issue: a player imports the (visible) referee package,
finds which seed gives the ``seed`` in its state.json (tournament seeds used
to default to ``game_seed(0, board)``) and rebuilds every hand from it."""
from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from conftest import assert_verifies, read_log, referee
from test_rogues import MODES

SPY = textwrap.dedent('''
    import json, os, random, sys
    state = json.load(open("state.json"))
    me, players = state["you"], len(state["players"])
    try:
        from referee.core import views
        from referee.core.rng import chance_seed
        from referee.games.tsuro.rules import TsuroState
        from referee.tournament.tables import game_seed
    except ImportError:
        print("no referee package in sight", file=sys.stderr)
        open("decision.txt", "w").write(state["legal"][0])
        sys.exit(0)

    def rebuilt(chance):
        """Whether ``chance`` is this match's: its state.json seed and our hand follow."""
        if views.player_seed(chance, me) != state["seed"]:
            return False
        hand = TsuroState.initial(state["variant"], players, chance).hands[me - 1]
        return state["step"] > 2 or list(hand) == state["hand"]

    # Each seed it is shown is guessed at once: its folder keeps the ones it
    # tried (the guesses are ~0.1 s of CPU a step; state.json shows the same
    # seed at every step); its first step, where the hand is checked too,
    # and any seed not seen before are always tried.
    tried = open("tried-seeds.txt").read().split() if os.path.exists("tried-seeds.txt") else []
    if state["step"] <= 2 or str(state["seed"]) not in tried:
        guesses = [game_seed(t, b) for t in range(50) for b in range(8)] + list(range(5000))
        if any(rebuilt(g) for g in guesses):
            print("REBUILT from a guessed seed", file=sys.stderr)
        with open("tried-seeds.txt", "a") as tried_file:
            tried_file.write(f"{state['seed']} ")
    try:  # without the sandbox match.yaml is in reach: the control that rebuilding works
        key = [l.split(":", 1)[1].strip() for l in open("../../match.yaml") if l.startswith("key:")][0]
        print("REBUILT from match.yaml" if rebuilt(chance_seed(key)) else "key does not fit", file=sys.stderr)
    except OSError:
        print("match.yaml out of reach", file=sys.stderr)
    open("decision.txt", "w").write(state["legal"][0])
''')


def _spy(tmp_path: Path) -> str:
    path = tmp_path / "spy.py"
    path.write_text(SPY)
    return f"{sys.executable} {path}"


def _stderr(out: Path) -> str:
    return (out / "players" / "p1" / "stderr.txt").read_text()


@pytest.mark.parametrize("mode", MODES)
def test_a_player_cannot_rebuild_the_hands_from_what_it_is_shown(tmp_path, mode):
    out = tmp_path / "match"
    proc = referee("play", "tsuro", "--player", _spy(tmp_path), "--player", "builtin:random",
                   "--out", out, "--quiet", "--sandbox", mode)
    assert proc.returncode == 0, proc.stderr
    seen = _stderr(out)
    assert "REBUILT from a guessed seed" not in seen
    if mode == "none":  # nothing is hidden without the sandbox (docs/protocol.md): the control
        assert "REBUILT from match.yaml" in seen
    else:
        assert "REBUILT" not in seen and "key does not fit" not in seen
    match = yaml.safe_load((out / "match.yaml").read_text())
    assert len(str(match["key"])) == 32
    assert_verifies(out)


def test_a_tournament_without_a_seed_draws_a_secret_one_and_resume_keeps_it(tmp_path):
    """The attack of the issue, in the tournament it was found in: a config
    with no seed.  The spy finds nothing; the secret is in tournament.json
    (outside every game folder), every game verifies, and --resume of the
    finished tournament keeps the same seed."""
    config = tmp_path / "class.yaml"
    config.write_text(yaml.safe_dump({
        "game": "tsuro", "format": "round_robin", "out": "out",
        "entrants": [{"name": "spy", "command": _spy(tmp_path)}, {"name": "rnd", "command": "builtin:random"}]}))
    run = referee("tournament", config, "--jobs", "2")
    assert run.returncode == 0, run.stderr
    out = tmp_path / "out"
    games = sorted((out / "games").iterdir())
    assert games
    for game in games:
        match = yaml.safe_load((game / "match.yaml").read_text())
        spy_seat = [p["name"] for p in match["players"]].index("spy") + 1
        assert "REBUILT from a guessed seed" not in (game / "players" / f"p{spy_seat}" / "stderr.txt").read_text()
        assert_verifies(game)
    state = yaml.safe_load((out / "tournament.json").read_text())
    assert len(state["key"]) == 32
    again = referee("tournament", config, "--resume")
    assert again.returncode == 0, again.stderr
    assert yaml.safe_load((out / "tournament.json").read_text()) == state


def test_a_given_seed_still_makes_the_match_reproducible(tmp_path):
    logs = []
    for n in (1, 2):
        out = tmp_path / f"m{n}"
        proc = referee("play", "tsuro", "--player", "builtin:random", "--player", "builtin:random",
                       "--seed", "42", "--out", out, "--quiet")
        assert proc.returncode == 0, proc.stderr
        logs.append([(r["applied"], r["hash"]) for r in read_log(out)])
        assert_verifies(out)
    assert logs[0] == logs[1]
    other = tmp_path / "m3"
    referee("play", "tsuro", "--player", "builtin:random", "--player", "builtin:random",
            "--out", other, "--quiet")
    assert [(r["applied"], r["hash"]) for r in read_log(other)] != logs[0]  # random by default


PEEK = textwrap.dedent('''
    import glob, os, sys
    here = os.path.dirname(os.path.abspath(__file__))
    seen = [p for p in glob.glob(os.path.join(here, "step_logs", "*", "match.yaml")) if os.access(p, os.R_OK)]
    print("SAW", len(seen), file=sys.stderr)
    board = [line.split() for line in open("Board.txt")]
    move = next(f"{r} {c}" for r in range(len(board) - 1, -1, -1) for c, v in enumerate(board[r]) if v != "0")
    open("decision.txt", "w").write(move + "\\n")
''')


def test_a_player_cannot_read_the_earlier_matches_kept_beside_its_program(tmp_path):
    """Run from the bot's own folder, the matches go to its ``step_logs/``,
    inside the folder the sandbox shows: the second match's player read the
    first's match.yaml (its key: with the same seed, the same key, so a
    Tsuro player could have known the pile).  The default matches' folder
    is hidden as the match's own is."""
    from referee.core import sandbox

    if not sandbox.resolve("auto").on:
        pytest.skip("bwrap cannot start here")
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "peek.py").write_text(PEEK)
    for out in ("first", "second"):
        proc = referee("play", "cantris", "--player", f"{sys.executable} peek.py", "--player", "builtin:greedy",
                       "--board", "6x3-1", "--seed", "3", "--out", bot / "step_logs" / out, "--quiet", cwd=bot)
        assert proc.returncode == 0, proc.stderr
    saw = (bot / "step_logs" / "second" / "players" / "p1" / "stderr.txt").read_text().split()
    assert saw[:2] == ["SAW", "0"], saw
