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
    text = (ROOT / "docs" / "games" / "tsuro-tiles.txt").read_text()
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


def test_one_placement_moves_two_markers():
    # Start 0 faces port 0 of (0,0), start 47 faces port 7 of (0,0).
    s = state({1: 0, 2: 47, 3: 30}, {1: [STRAIGHT, 1, 2], 2: [3, 4, 5], 3: [6, 7, 8]})
    after, events = s.apply(1, Place(0, 0, 0, 0))
    assert after.markers[0] == (1, 0, 0)      # 0 -> 5, down
    assert after.markers[1] == (0, 1, 7)      # 7 -> 2, right
    assert [e["player"] for e in events if e["type"] == "move"] == [1, 2]
    assert after.alive() == [1, 2, 3]


def test_a_collision_eliminates_both_markers():
    # Starts 0 and 1 face ports 0 and 1 of (0,0); the U-turn 0-1 sends them
    # head on along the same path.
    s = state({1: 0, 2: 1, 3: 30}, {1: [U_TURNS, 1, 2], 2: [3, 4, 5], 3: [6, 7, 8]})
    after, events = s.apply(1, Place(0, 0, 0, 0))
    assert [e for e in events if e["type"] == "eliminated"] == [
        {"type": "eliminated", "player": 1, "reason": "collision"},
        {"type": "eliminated", "player": 2, "reason": "collision"}]
    assert after.is_terminal() and after.outcome().winner == 3
    assert after.outcome().ranking == ((3,), (1, 2))
    assert after.hands[0] == after.hands[1] == ()
    assert sorted(after.pile) == [1, 2, 3, 4, 5]   # both hands went back to the pile


def test_exiting_the_board_eliminates_and_the_other_player_wins():
    s = state({1: 0, 2: 30}, {1: [U_TURNS, 1, 2], 2: [3, 4, 5]}, pile=(9, 10))
    after, events = s.apply(1, Place(0, 2, 0, 0))
    assert {"type": "eliminated", "player": 1, "reason": "edge"} in events
    assert after.out[0] == (1, "edge")
    assert codec.marker_json(after.markers[0]) == {"cell": [0, 0], "port": 1}
    assert after.is_terminal()
    outcome = after.outcome()
    assert outcome.winner == 2 and outcome.ranking == ((2,), (1,))
    assert sorted(after.pile) == [1, 2, 9, 10]


def test_markers_on_their_start_are_not_out_but_a_marker_back_at_the_edge_is():
    s = state({1: 5, 2: 30}, {1: [STRAIGHT, 1, 2], 2: [3, 4, 5]},
              cells={(1, 2): (U_TURNS, 0)})
    # start 5 faces port 1 of (0,2); STRAIGHT takes it 1 -> 4 into (1,2) at 1,
    # the U-turn sends it 1 -> 0 and back up: into (0,2) at 4, out at 1 = the edge.
    after, events = s.apply(1, Place(0, 0, 0, 2))
    assert after.out[0] == (1, "edge")
    assert after.out[1] is None


def test_a_simultaneous_elimination_is_a_tie():
    # Starts 0 and 47 are both at (0,0); the U-turn tile sends 0 -> 1 and
    # 7 -> 6: both leave the board, on different paths, in the same turn.
    s = state({1: 0, 2: 47}, {1: [U_TURNS, 1, 2], 2: [3, 4, 5]})
    after, events = s.apply(1, Place(0, 0, 0, 0))
    assert [e["reason"] for e in events if e["type"] == "eliminated"] == ["edge", "edge"]
    outcome = after.outcome()
    assert after.is_terminal() and outcome.winner is None
    assert outcome.ranking == ((1, 2),)
    assert "same turn" in outcome.reason


def test_seed_placement_away_from_the_front_cell_moves_another_marker():
    # Player 1 on start 0 stands on the virtual cell (-1,0): it may place on
    # (0,0) or (0,1).  Player 2 on start 2 faces port 0 of (0,1).
    s = state({1: 0, 2: 2}, {1: [STRAIGHT, 1, 2], 2: [3, 4, 5]})
    assert geo.target_cells("seed", s.cells, s.markers[0]) == [(0, 0), (0, 1)]
    after, events = s.apply(1, Place(0, 0, 0, 1))
    assert after.markers[0] == s.markers[0]            # player 1 did not move
    assert after.markers[1] == (1, 1, 0)               # player 2 went straight down
    assert [e["player"] for e in events if e["type"] == "move"] == [2]
    classic = state({1: 0, 2: 2}, {1: [STRAIGHT, 1, 2], 2: [3, 4, 5]}, variant="classic")
    assert "not the cell in front" in classic.illegal_reason(Place(0, 0, 0, 1))


def test_seed_targets_are_the_eight_cells_around_the_marker():
    s = state({1: (2, 3, 6), 2: 30}, {1: [1, 2, 3], 2: [4]},
              cells={(2, 2): (STRAIGHT, 0), (1, 1): (4, 0)})
    # the marker stands on (2,2) (port 3 seen from there) facing (2,3)
    assert geo.target_cells("seed", s.cells, s.markers[0]) == [
        (1, 2), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2), (3, 3)]
    assert "8 cells around the cell (2, 2)" in s.illegal_reason(Place(0, 0, 0, 0))
    assert "already holds a tile" in s.illegal_reason(Place(0, 0, 1, 1))


def test_classic_forbids_suicide_unless_forced():
    s = state({1: 0, 2: 30}, {1: [U_TURNS, STRAIGHT], 2: [3]}, variant="classic")
    assert s.legal_decisions() == [Place(1, r, 0, 0) for r in range(4)]
    assert "eliminates you" in s.illegal_reason(Place(0, 0, 0, 0))
    forced = state({1: 0, 2: 30}, {1: [U_TURNS], 2: [3]}, variant="classic")
    assert forced.legal_decisions() == [Place(0, r, 0, 0) for r in range(4)]
    seed = state({1: 0, 2: 30}, {1: [U_TURNS, STRAIGHT], 2: [3]})
    assert seed.illegal_reason(Place(0, 0, 0, 0)) is None


def test_refill_at_the_start_of_a_turn():
    # STRAIGHT and tile 27 (4-7) keep both markers on the board.
    s = state({1: 20, 2: 30}, {1: [STRAIGHT, 2, 3], 2: [27, 5, 6]}, pile=(7, 8, 9))
    after, events = s.apply(1, Place(0, 0, *geo.perimeter(20)[:2]))
    assert after.hands[0] == (2, 3)                   # not refilled yet
    assert after.current == 2 and after.hands[1] == (27, 5, 6)
    second, events = after.apply(2, Place(0, 0, *geo.perimeter(30)[:2]))
    assert second.alive() == [1, 2]
    assert second.current == 1 and second.hands[0] == (2, 3, 7)
    assert second.pile == (8, 9)
    assert {"type": "draw", "player": 1, "tiles": 1} in events


def test_the_dragon_goes_to_the_first_player_who_cannot_draw():
    s = state({1: 20, 2: 30}, {1: [STRAIGHT, STRAIGHT, STRAIGHT], 2: [27, 27, 27]}, pile=())
    after, _ = s.apply(1, Place(0, 0, *geo.perimeter(20)[:2]))
    assert after.dragon is None                     # player 2 holds 3: no need to draw
    second, events = after.apply(2, Place(0, 0, *geo.perimeter(30)[:2]))
    assert second.dragon == 1
    assert {"type": "dragon", "from": None, "to": 1} in events
    third, _ = second.apply(1, Place(0, 0, *second.markers[0][:2]))
    assert third.dragon == 1                        # player 2 short too, but the dragon is taken


def test_the_dragon_holder_is_dealt_first_when_tiles_come_back():
    # Pile empty, player 2 holds the dragon.  Player 4 drives itself off the
    # board: its 2 other tiles come back, dealt one at a time from player 2
    # clockwise (2, then 3); player 1 is still short and takes the dragon.
    s = state({1: 20, 2: 30, 3: 40, 4: 0}, {1: [1, 2], 2: [3], 3: [4, 5], 4: [U_TURNS, 7, 8]},
              current=4, dragon=2)
    after, events = s.apply(4, Place(0, 0, 0, 0))
    assert after.out[3] == (1, "edge")
    assert [len(h) for h in after.hands] == [2, 2, 3, 0]
    assert set(after.hands[1] + after.hands[2]) == {3, 4, 5, 7, 8}
    assert after.pile == () and after.dragon == 1
    assert [e for e in events if e["type"] in ("deal", "dragon")] == [
        {"type": "deal", "player": 2, "tiles": 1}, {"type": "deal", "player": 3, "tiles": 1},
        {"type": "dragon", "from": 2, "to": 1}]
    assert after.current == 1


def test_enough_tiles_back_fill_every_hand_and_return_the_dragon():
    s = state({1: 20, 2: 30, 3: 0}, {1: [1, 2], 2: [3, 4], 3: [U_TURNS, 7, 8]}, current=3, dragon=1)
    after, events = s.apply(3, Place(0, 0, 0, 0))
    assert [len(h) for h in after.hands] == [3, 3, 0]    # one each, from the holder
    assert after.dragon is None
    # player 1 is full, so at its turn nothing is drawn and nobody takes the dragon
    assert after.current == 1 and after.dragon is None


def test_a_player_that_cannot_place_skips_and_an_exhausted_game_is_a_tie():
    s = state({1: 20, 2: 30}, {1: [], 2: [4, 5]}, current=1)
    assert s.auto_decision() == Skip() and s.legal_decisions() == [Skip()]
    after, events = s.apply(1, Skip())
    assert events[0] == {"type": "skip", "player": 1} and after.current == 2
    assert "you can place" in after.illegal_reason(Skip())
    last = state({1: 20, 2: 30}, {1: [], 2: [4]}, current=2)
    done, events = last.apply(2, Place(0, 0, *geo.perimeter(30)[:2]))
    assert done.is_terminal() and done.outcome().winner is None
    assert done.outcome().ranking == ((1, 2),)
    assert "survivors tie" in done.outcome().reason


def test_eject_returns_the_hand_and_the_game_goes_on():
    s = state({1: 20, 2: 30, 3: 40}, {1: [1, 2, 3], 2: [4, 5, 6], 3: [7, 8, 9]}, pile=(10,), current=2)
    after, events = s.eject(2)
    assert after.out[1] == (1, "ejected") and after.markers[1] is None
    assert after.hands[1] == () and sorted(after.pile) == [4, 5, 6, 10]
    assert after.reshuffles == 1 and after.current == 3 and not after.is_terminal()
    duel = state({1: 20, 2: 30}, {1: [1], 2: [2]}, current=1)
    over, _ = duel.eject(1)
    assert over.is_terminal() and over.outcome().winner == 2


# ----- setup
def test_setup_deals_three_each_from_the_seeded_pile_and_starts_are_distinct():
    s = GAME.initial_state(Setup("seed", 4, 42))
    again = GAME.initial_state(Setup("seed", 4, 42))
    other = GAME.initial_state(Setup("seed", 4, 43))
    assert s == again and s.to_json() != other.to_json()
    assert [len(h) for h in s.hands] == [3, 3, 3, 3] and len(s.pile) == 35 - 12
    assert sorted(sum(s.hands, ()) + s.pile) == list(range(35))
    assert s.step_kind() == "setup" and len(s.legal_decisions()) == 48
    s, _ = s.apply(1, Start(7))
    assert s.current == 2 and Start(7) not in s.legal_decisions()
    assert s.illegal_reason(Start(7)) == "start position 7 is taken by player 1"
    assert s.illegal_reason(Start(48)) == "start position 48 is outside 0..47"
    assert "setup step" in s.illegal_reason(Place(0, 0, 0, 0))
    for p, pos in ((2, 8), (3, 20), (4, 33)):
        s, _ = s.apply(p, Start(pos))
    assert s.current == 1 and s.step_kind() == "play"
    assert all(isinstance(d, Place) for d in s.legal_decisions())


def test_decision_text():
    assert parse_decision("S 12\n") == Start(12) and str(Start(12)) == "S 12"
    assert parse_decision("  T 2 3 4 5 ") == Place(2, 3, 4, 5) and str(Place(2, 3, 4, 5)) == "T 2 3 4 5"
    for bad, words in (("", "empty"), ("X 1", "unknown"), ("T 1 2", "takes 4"), ("S a", "integers")):
        with pytest.raises(DecisionError, match=words):
            parse_decision(bad)


def test_wrong_index_and_rotation_say_why():
    s = state({1: 0, 2: 30}, {1: [1, 2], 2: [3]})
    assert s.illegal_reason(Place(2, 0, 0, 0)) == "hand index 2 but your hand holds 2 tile(s) (indices 0..1)"
    assert s.illegal_reason(Place(0, 4, 0, 0)) == "rotation 4 is outside 0..3"
    assert s.illegal_reason(Place(0, 0, 6, 0)) == (
        "cell (6, 0) is off the 6x6 board (rows and columns 0..5: they count from 0)")
    assert s.illegal_reason(Place(0, 0, 0, 7)) == "cell (0, 7) is off the 6x6 board (rows and columns 0..5)"
    assert "setup" not in s.illegal_reason(Start(3))


# ----- files
def test_start_files_round_trip_and_errors_name_the_place():
    cells = list(geo.EMPTY)
    cells[geo.index(2, 3)] = (12, 1)
    text = codec.start_text(tuple(cells))
    assert GAME.parse_board(text, "b.txt", "seed") == tuple(cells)
    assert (ROOT / "boards" / "tsuro" / "empty.txt").exists()
    assert GAME.parse_board((ROOT / "boards" / "tsuro" / "empty.txt").read_text(), "e", "seed") == geo.EMPTY
    with pytest.raises(InputError) as err:
        GAME.parse_board(text.replace("12/1", "12/7"), "b.txt", "seed")
    assert str(err.value).startswith("b.txt:5:") and "rotation 7" in str(err.value)
    with pytest.raises(InputError, match="tile 12 is already on the board"):
        GAME.parse_board(text.replace("0       .", "0    12/0", 1), "b.txt", "seed")
    with pytest.raises(InputError, match="belong to snapshots"):
        GAME.parse_board(text + "pile 3\n", "b.txt", "seed")
    with pytest.raises(InputError, match="5 rows"):
        GAME.parse_board("\n".join(text.splitlines()[:-1]), "b.txt", "seed")


def test_pre_placed_tiles_are_not_dealt_and_block_their_start_positions():
    cells = list(geo.EMPTY)
    cells[geo.index(0, 0)] = (STRAIGHT, 0)
    s = GAME.initial_state(Setup("seed", 2, 5, tuple(cells)))
    assert STRAIGHT not in s.pile + sum(s.hands, ())
    assert "already holds a tile" in s.illegal_reason(Start(0))
    assert {0, 1, 46, 47} & {d.position for d in s.legal_decisions()} == set()
    assert GAME.board_warnings(tuple(cells)) == ["4 of the 48 start positions face a tile and cannot be chosen"]


def test_players_see_only_their_own_hand():
    s = state({1: 0, 2: 30}, {1: [11, 12, 13], 2: [21, 22, 23]}, pile=(5, 6))
    mine = codec.board_text(s, 1)
    assert "hand 1 11 12 13" in mine and "hand 2 hidden 3" in mine and "21" not in mine.split("pile")[1]
    full = codec.board_text(s, None)
    assert "hand 2 21 22 23" in full
    view = GAME.view_json(s, 2)
    assert view["hand"] == [21, 22, 23] and "hands" not in view and "pile_tiles" not in view
    assert view["hand_sizes"] == {"1": 3, "2": 3} and view["pile"] == 2
    assert GAME.view_json(s, None)["hands"] == {"1": [11, 12, 13], "2": [21, 22, 23]}
    assert view["markers"]["1"] == {"start": 0, "facing": [0, 0, 0]}
    assert "11" not in GAME.render(s, 2)


def test_render_draws_markers_on_their_ports():
    s = state({1: 0, 2: 30}, {1: [STRAIGHT, 1, 2], 2: [3, 4, 5]})
    after, _ = s.apply(1, Place(0, 0, 0, 0))
    picture = GAME.render(after, None)
    lines = picture.splitlines()
    # (0,0) is the first box of the drawing, below the column labels and right
    # of the row labels: 5 lines from its top border; port 5 is on its bottom
    # border, 3 columns in
    top = next(i for i, line in enumerate(lines) if "+-" in line)
    left = lines[top].index("+")
    assert lines[top + 4][left + 3] == "1"
    assert "#33/0" in lines[top + 2]
    # Its paths as letters next to their ports: 0-5 (a), 1-4 (b), 2-7 (c), 3-6 (d).
    assert lines[top + 1][left:left + 10] == "|c a   b c" and lines[top + 3][left:left + 10] == "|d a   b d"
    assert "\x1b[" in GAME.render(after, None, color=True)


@pytest.mark.parametrize("name", ["empty.txt", "center.txt"])
def test_shipped_start_files_are_valid(name):
    cells = GAME.parse_board((ROOT / "boards" / "tsuro" / name).read_text(), name, "seed")
    assert len(cells) == 36 and GAME.board_warnings(cells) == []


def test_a_player_who_empties_the_pile_while_still_short_takes_the_dragon():
    s = state({1: 20, 2: 30}, {1: [STRAIGHT], 2: [27, 5, 6]}, pile=(7,))
    after, _ = s.apply(1, Place(0, 0, *geo.perimeter(20)[:2]))
    assert after.hands[0] == () and after.alive() == [1, 2]
    after, events = after.apply(2, Place(0, 0, *geo.perimeter(30)[:2]))
    assert after.current == 1 and after.hands[0] == (7,) and after.pile == ()
    assert after.dragon == 1
    assert events[-2:] == [{"type": "draw", "player": 1, "tiles": 1},
                           {"type": "dragon", "from": None, "to": 1}]
