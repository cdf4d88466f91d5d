"""Golden playthroughs of the built-in games (tests/playthroughs/, as
OpenSpiel keeps them): a change in any game's behaviour (legal moves, their
order, events, scores, the state) fails here and shows as a diff in review.
After a deliberate change: ``python -m referee.conformance.playthrough
tests/playthroughs`` and commit the diff."""
from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from referee.conformance.playthrough import header_of, playthrough_text
from referee.core.registry import available_games

FOLDER = Path(__file__).resolve().parent / "playthroughs"
FILES = sorted(FOLDER.glob("*.txt"))
REGENERATE = "python -m referee.conformance.playthrough tests/playthroughs"


def test_every_built_in_game_has_playthroughs():
    assert {str(header_of(p)["game"]) for p in FILES} == set(available_games())


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_the_game_still_plays_its_playthrough(path):
    h = header_of(path)
    expected = path.read_text(encoding="utf-8")
    actual = playthrough_text(str(h["game"]), int(h["players"]), int(h["seed"]), int(h["steps"]))
    if actual != expected:
        diff = "".join(list(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                                 str(path.name), "now"))[:40])
        pytest.fail(f"{path.name}: the game now plays differently. If that is intended, run "
                    f"`{REGENERATE}` and commit the diff.\n{diff}", pytrace=False)
