"""The conformance kit: the five built-in games pass it, and each kind of
broken game fails the check meant for it, with a line that names the game
function and the seed to reproduce it."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from referee.conformance import run_checks
from referee.conformance.testing import conformance_test
from referee.core import registry

from conftest import referee
from fake_dists import fake_dist

# Each built-in game through every check, a few playouts per player count
# (`referee check-game` plays 20).
test_blackhole = conformance_test("blackhole", playouts=3)
test_cantris = conformance_test("cantris", playouts=3)
test_quoridor = conformance_test("quoridor", playouts=3)
test_tessella = conformance_test("tessella", playouts=3)
test_tsuro = conformance_test("tsuro", playouts=3)

# A two-player take-away game (take 1 or 2 from a pile of 9, taking the last
# wins; each player also holds a secret card), with one bug switched on.
COUNTDOWN = '''\
import random
from dataclasses import dataclass
from referee.core.game import DecisionError, Game, GameState, Outcome

BUG = {bug!r}


@dataclass(frozen=True)
class State(GameState):
    pile: int
    to_move: int
    secrets: tuple
    taken: list

    def current_player(self):
        return None if self.pile == 0 else self.to_move

    def legal_decisions(self):
        return [n for n in (1, 2) if n <= self.pile]

    def apply(self, player, decision):
        if BUG == "mutates":
            self.taken.append(decision)
            taken = self.taken
        else:
            taken = self.taken + [decision]
        return State(self.pile - decision, 3 - player, self.secrets, taken), [{{"type": "take"}}]

    def is_terminal(self):
        return self.pile == 0

    def outcome(self):
        winner = 3 - self.to_move
        ranking = ((winner,), (winner,)) if BUG == "ranking" else ((winner,), (3 - winner,))
        return Outcome(winner, ranking, None, "took the last one")

    def to_json(self):
        return {{"pile": self.pile, "to_move": self.to_move, "secrets": list(self.secrets),
                "taken": list(self.taken)}}


class Countdown(Game):
    name = {name!r}
    title = "Countdown"
    shared_views = BUG == "shares"  # (it has secrets: each player sees its own)

    def parse_board(self, text, source, variant):
        return None

    def initial_state(self, setup):
        rng = random.Random() if BUG == "chance" else random.Random(setup.seed)
        return State(9, 1, (rng.randrange(10**6), rng.randrange(10**6)), [])

    def parse_decision(self, state, text):
        words = text.split()
        if BUG == "raises" and text.strip() == "xyzzy":
            raise KeyError(text)
        if BUG == "fuzz" and "\t" in text:
            raise IndexError("a tab")
        if len(words) != 1 or not words[0].isdigit() or len(words[0]) > 3:
            raise DecisionError("expected 1 or 2")
        value = int(words[0])
        return value + 1 if BUG == "text" and value == 2 else value

    def board_text(self, state, viewer):
        shown = state.secrets if BUG == "leaks" or viewer is None else [state.secrets[viewer - 1]]
        return f"{{state.pile}} {{' '.join(map(str, shown))}}\\n"

    def view_json(self, state, viewer):
        return {{"pile": state.pile, "players": 2}} if BUG == "reserved" else {{"pile": state.pile}}

    def resample(self, state, viewer, rng):
        secrets = list(state.secrets)
        secrets[2 - viewer] = rng.randrange(10**6)
        return State(state.pile, state.to_move, tuple(secrets), state.taken)


GAME = Countdown()
'''


@pytest.fixture
def countdown(tmp_path, monkeypatch):
    """Install a Countdown with ``bug`` as game ``name``."""

    def install(name: str, bug: str) -> str:
        module = f"countdown_{name}"
        root = fake_dist(tmp_path / name, f"countdown-{name}", {name: f"{module}:GAME"},
                         modules={f"{module}.py": COUNTDOWN.format(bug=bug, name=name)})
        monkeypatch.syspath_prepend(str(root))
        registry.refresh()
        return name

    yield install
    registry.refresh()


def failures(name: str) -> dict[str, list[str]]:
    return {r.check: r.failures for r in run_checks(name, 4) if r.failures}


def test_a_correct_game_passes(countdown):
    assert failures(countdown("cdok", "none")) == {}


@pytest.mark.parametrize("bug, check, words", [
    ("mutates", "apply_pure", "apply: changed the state it was given"),
    ("chance", "determinism", "initial_state: two calls with one setup differ"),
    ("text", "decision_text", "parse_decision: '2' (str of a legal decision) parsed to 3"),
    ("raises", "illegal", "parse_decision: raised KeyError"),
    ("ranking", "outcome", "outcome: ranking"),
    ("leaks", "views", "player 1 sees information hidden from it"),
    ("reserved", "views", "view_json: key(s) players are written by the referee"),
    ("shares", "views", "says its views are shared (shared_views), but player 1's differs"),
])
def test_each_broken_game_fails_its_check_and_says_how_to_reproduce(countdown, bug, check, words):
    found = failures(countdown(f"cd{bug}", bug))
    assert check in found, found
    line = found[check][0]
    assert words in line
    if check not in ("illegal",):
        assert "seed" in line
    assert "\n" not in line


def test_fuzzing_finds_a_codec_that_raises_the_wrong_error(countdown):
    found = failures(countdown("cdfuzz", "fuzz"))
    (line,) = found["codec_fuzz"]
    assert line.startswith("parse_decision: raised IndexError (a tab), not DecisionError, on ")
    assert "\\t" in line  # the input that does it


def test_check_game_command_exits_1_and_names_the_function(countdown, tmp_path):
    name = countdown("cdcli", "mutates")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / name)}
    proc = referee("check-game", name, "--playouts", "2", env=env)  # (PYTHONPATH: a real process)
    assert proc.returncode == 1
    assert "FAIL apply_pure" in proc.stdout and f"{name}: apply: changed the state" in proc.stdout
    ok = referee("check-game", "cantris", "--playouts", "2", "--check", "determinism")
    assert ok.returncode == 0 and "every check passed" in ok.stdout


def test_without_hypothesis_the_kit_fuzzes_with_its_own_mutator(countdown, monkeypatch):
    """hypothesis is the kit's optional extra: without it the codecs are
    still fuzzed (seeded mutations of a real board and decision)."""
    monkeypatch.setitem(sys.modules, "hypothesis", None)  # import hypothesis -> ImportError
    name = countdown("cdfuzz2", "fuzz")
    (result,) = run_checks(name, 4, only=["codec_fuzz"])
    assert result.failures and "raised IndexError (a tab), not DecisionError" in result.failures[0]
    (clean,) = run_checks("cantris", 2, only=["codec_fuzz"])
    assert clean.failures == []
