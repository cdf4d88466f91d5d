"""Tsuro: the tile set, and worked examples written from shared/rules/tsuro.md."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from referee.core.errors import InputError
from referee.core.game import DecisionError, Setup
from referee.games.tsuro import GAME, codec
from referee.games.tsuro import board as geo
from referee.games.tsuro.decisions import Place, Skip, Start, parse_decision
from referee.games.tsuro.rules import TsuroState
from referee.games.tsuro.tiles import PORTS, ROTATIONS, TILES, matchings, rotate, tiles_text

ROOT = Path(__file__).resolve().parents[1]
U_TURNS = 0    # 0-1 2-3 4-5 6-7: every path comes back out of the side it entered
STRAIGHT = 33  # 0-5 1-4 2-7 3-6: every path goes straight across
CORNERS = 13   # 0-2 1-3 4-6 5-7


def state(markers: dict[int, int | geo.Point], hands: dict[int, list[int]], *, players: int | None = None,
          cells: dict[tuple[int, int], tuple[int, int]] | None = None, pile: tuple[int, ...] = (),
          current: int = 1, dragon: int | None = None, variant: str = "seed") -> TsuroState:
    """A play-phase position; markers as start positions or facing points."""
    n = players or len(markers)
    grid = list(geo.EMPTY)
    for (r, c), cell in (cells or {}).items():
        grid[geo.index(r, c)] = cell
    facing = [None] * n
    for p, m in markers.items():
        facing[p - 1] = geo.perimeter(m) if isinstance(m, int) else m
    return TsuroState(variant, 1, tuple(grid), tuple(facing),
                      tuple(tuple(hands.get(p, ())) for p in range(1, n + 1)), pile, dragon,
                      (None,) * n, current)


# ----- the tile set
def test_tile_set_is_every_matching_grouped_by_rotation():
    all_matchings = matchings()
    assert len(all_matchings) == 105 == len(set(all_matchings))
    assert len(TILES) == 35
    assert Counter(t.orientations for t in TILES) == {4: 20, 2: 10, 1: 5}
    orbits = [{rotate(t.matching, k) for k in range(ROTATIONS)} for t in TILES]
    assert set().union(*orbits) == set(all_matchings)
    assert sum(map(len, orbits)) == 105  # the classes do not overlap
    assert [t.id for t in TILES] == list(range(35))
    assert [t.matching for t in TILES] == sorted(t.matching for t in TILES)
    assert all(t.matching == min(orbit) for t, orbit in zip(TILES, orbits))


def test_rotation_maps_port_p_to_p_plus_2():
    for tile in TILES:
        for p in range(PORTS):
            q = tile.exit(0, p)
            assert tile.exit(1, (p + 2) % PORTS) == (q + 2) % PORTS
            assert tile.exit(3, tile.exit(3, p)) == p


def test_shipped_tile_file_matches_the_generator():
    text = (ROOT / "boards" / "tsuro" / "tiles.txt").read_text()
    assert text == tiles_text()
    rows = [line.split() for line in text.splitlines() if line and not line.startswith("#")]
    for tile, row in zip(TILES, rows, strict=True):
        assert int(row[0]) == tile.id
        pairs = [tuple(map(int, w.split("-"))) for w in row[1:5]]
        assert all(tile.exit(0, a) == b for a, b in pairs)
        assert int(row[5]) == tile.orientations


# ----- geometry
def test_perimeter_positions_go_clockwise_from_the_top_left():
    assert geo.perimeter(0) == (0, 0, 0) and geo.perimeter(11) == (0, 5, 1)
    assert geo.perimeter(12) == (0, 5, 2) and geo.perimeter(23) == (5, 5, 3)
    assert geo.perimeter(24) == (5, 5, 4) and geo.perimeter(35) == (5, 0, 5)
    assert geo.perimeter(36) == (5, 0, 6) and geo.perimeter(47) == (0, 0, 7)
    assert len({geo.perimeter(p) for p in range(48)}) == 48
    # facing ports across an edge: 0<->5, 1<->4, 2<->7, 3<->6
    assert geo.across((2, 2, 0)) == (1, 2, 5) and geo.across((2, 2, 1)) == (1, 2, 4)
    assert geo.across((2, 2, 2)) == (2, 3, 7) and geo.across((2, 2, 3)) == (2, 3, 6)


# ----- worked examples
def test_a_marker_follows_its_path_across_several_tiles():
    # Player 1 on start 0 (port 0 of (0,0)).  CORNERS at (0,0) sends it 0 -> 2,
    # into (0,1) at 7; straight to 2; into (0,2) at 7, tile 5 (4-7) turns it
    # down at 4; into (1,2) at 1, straight to 4; it faces (2,2) port 1.
    cells = {(0, 1): (STRAIGHT, 0), (0, 2): (5, 0), (1, 2): (STRAIGHT, 0)}
    s = state({1: 0, 2: 30}, {1: [CORNERS, 5, 6], 2: [7, 8, 9]}, cells=cells)
    after, events = s.apply(1, Place(0, 0, 0, 0))
    assert after.markers[0] == (2, 2, 1)
    assert codec.marker_json(after.markers[0]) == {"cell": [1, 2], "port": 4}
    assert {"type": "move", "player": 1, "length": 4, "to": {"cell": [1, 2], "port": 4}} in events
    assert after.out == (None, None)
    assert after.current == 2 and after.hands[0] == (5, 6)
