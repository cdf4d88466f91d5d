#!/usr/bin/env python3
"""Built-in Tsuro player ``strong``: a one-turn expectimax over the tiles it
may draw (docs/strong-players.md).

It sees only what state.json shows (its own hand, the board, the markers);
the tiles it does not hold and that are not on the board are the unknown
ones, equally likely to be drawn or held by a rival.  Each legal placement
is scored in stages, best-looking first, as long as the budget lasts:
1. what it does now: survive, and how many rivals it sends off the board
   (the last one standing wins);
2. the next turn: the chance that it will still have a placement that keeps
   it alive, with the two tiles it keeps and, if those cannot, a tile drawn
   from the unknown ones (the expectation over the draw);
3. the danger from rivals: if a rival may place on the cell its marker faces,
   the share of unknown tiles and rotations that would carry it off the board
   or into a collision there;
plus room: the empty cells it may place on next turn, and a little distance
from the edge.  Ties go to a seeded random choice.

Options (argv words before ``<step> <player>``): ``--budget=S`` seconds
(default 1, never more than half the soft limit), ``--nodes=N`` (tile
placements simulated) for a reproducible choice."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "sdk", "python"))
from referee_sdk import player_rng, read_state, run, save_decision  # noqa: E402

from referee.games.tsuro import GAME  # noqa: E402
from referee.games.tsuro import board as geo  # noqa: E402
from referee.games.tsuro.codec import position_from_view  # noqa: E402
from referee.games.tsuro.decisions import Skip, Start  # noqa: E402
from referee.games.tsuro.tiles import ROTATIONS, TILES  # noqa: E402
from referee.search import Budget, OutOfBudget as OutOfBudgetError, parse_options  # noqa: E402

WIN = 100_000
DEATH = -WIN
KNOCK_OUT = 400      # per rival sent out by this placement
SAFE_NEXT = 600      # times the chance of a safe placement next turn
CHOICE = 8           # per safe placement with the tiles kept (room to manoeuvre)
DANGER = 500         # times the chance a rival can kill it on the cell it faces
EDGE = 15            # per cell between the cell it faces and the edge
ROOM = 30            # per empty cell it may place on next turn (seed rules: up to 8)


def edge_room(point) -> int:
    row, col = point[0], point[1]
    return min(row, col, geo.SIZE - 1 - row, geo.SIZE - 1 - col)


class Evaluator:
    """Scores placements for ``me`` from the view's facts only."""

    def __init__(self, variant, cells, markers, me, hand, unknown, budget) -> None:
        self.variant, self.cells, self.markers = variant, cells, markers
        self.me, self.hand, self.unknown, self.budget = me, tuple(hand), tuple(unknown), budget

    def place(self, cells, markers, tile, rotation, row, col):
        self.budget.tick()
        return geo.place(cells, markers, tile, rotation, row, col)

    def safe_count(self, cells, markers, tile) -> int:
        """Placements of ``tile`` (any rotation, any target cell) that keep me on."""
        targets = geo.target_cells(self.variant, cells, markers[self.me])
        count = 0
        for rotation in range(ROTATIONS):
            for row, col in targets:
                if self.me not in self.place(cells, markers, tile, rotation, row, col).eliminated:
                    count += 1
        return count

    def next_turn(self, cells, markers, kept) -> tuple[float, int]:
        """(chance of a safe placement next turn, safe placements with the kept tiles)."""
        choices = sum(self.safe_count(cells, markers, tile) for tile in kept)
        if choices:
            return 1.0, choices
        pool = [t for t in self.unknown]
        if not pool:
            return 0.0, 0
        safe = sum(1 for tile in pool if self.safe_count(cells, markers, tile))
        return safe / len(pool), 0

    def danger(self, cells, markers) -> float:
        """The chance a rival who may place on the cell I face can kill me there."""
        row, col = markers[self.me][:2]
        if not geo.on_board(row, col) or geo.cell_at(cells, row, col) is not None:
            return 0.0
        threatened = any((row, col) in geo.target_cells(self.variant, cells, facing)
                         for p, facing in markers.items() if p != self.me)
        if not threatened or not self.unknown:
            return 0.0
        deadly = total = 0
        for tile in self.unknown:
            for rotation in range(ROTATIONS):
                total += 1
                deadly += self.me in self.place(cells, markers, tile, rotation, row, col).eliminated
        return deadly / total

    def now(self, result) -> float:
        """Stage 1: what the placement does at once."""
        knocked = len(set(result.eliminated) - {self.me})
        if self.me in result.eliminated:
            survivors = set(self.markers) - set(result.eliminated)
            return DEATH + KNOCK_OUT * knocked + (WIN // 2 if not survivors else 0)
        if knocked and len(set(self.markers) - set(result.eliminated)) == 1:
            return WIN
        return KNOCK_OUT * knocked + EDGE * edge_room(result.markers[self.me])

    def later(self, result, kept) -> float:
        """Stages 2 and 3: the next turn and the rivals in between."""
        markers = {p: m for p, m in result.markers.items() if p not in result.eliminated}
        chance, choices = self.next_turn(result.cells, markers, kept)
        value = SAFE_NEXT * chance + CHOICE * min(choices, 12)
        value += ROOM * len(geo.target_cells(self.variant, result.cells, markers[self.me]))
        return value - DANGER * self.danger(result.cells, markers)


def best_start(cells, markers, rng) -> Start:
    """The free start farthest round the edge from the markers already placed,
    ties broken at random (seeded)."""
    placed = [s for s in map(geo.start_position, markers.values()) if s is not None]

    def room(s: int) -> int:
        return min((min((s - t) % geo.PERIMETER, (t - s) % geo.PERIMETER) for t in placed),
                   default=geo.PERIMETER)

    free = geo.free_starts(cells, markers.values())
    most = max(room(s) for s in free)
    best = [s for s in free if room(s) == most]
    return Start(rng.choice(best) if rng is not None else best[0])


def choose_view(view: dict, budget: Budget, rng=None):
    """The decision from a state.json view (only what the player may see)."""
    me = int(view["you"])
    cells, markers = position_from_view(view)
    if view["step_kind"] == "setup":
        return best_start(cells, markers, rng)
    hand = tuple(view["hand"])
    variant = view["variant"]
    legal = geo.placements(variant, cells, markers, me, hand)
    if not legal:
        return Skip()
    on_board = {cell[0] for cell in cells if cell is not None}
    unknown = [t.id for t in TILES if t.id not in on_board and t.id not in hand]
    judge = Evaluator(variant, cells, markers, me, hand, unknown, budget)
    scored = []
    for place in legal:
        result = geo.place(cells, markers, hand[place.index], place.rotation, place.row, place.col)
        scored.append([judge.now(result), place, result])
    if rng is not None:
        rng.shuffle(scored)
    scored.sort(key=lambda item: -item[0])  # stable: the shuffle breaks ties
    best_value, best = None, scored[0][1]
    for item in scored:
        value, place, result = item
        if judge.me in result.eliminated or value >= WIN:
            total = value
        else:
            kept = hand[:place.index] + hand[place.index + 1:]
            try:
                total = value + judge.later(result, kept)
            except OutOfBudgetError:
                break
        if best_value is None or total > best_value:
            best_value, best = total, place
    return best


def view_of(state, player: int) -> dict:
    """What state.json shows ``player`` (for in-process use: tests, benchmarks)."""
    view = dict(GAME.view_json(state, player))
    view.update(step_kind=state.step_kind(), you=player)
    return view


def choose(state, budget: Budget, rng=None):
    """The decision for the player to move, from its own view of ``state``."""
    return choose_view(view_of(state, state.current_player()), budget, rng)


def play_games(step: int, player: int) -> None:
    options = parse_options(sys.argv[1:])
    view = read_state()
    budget = Budget.for_step(options, view.get("limits"))
    if view.get("legal"):
        save_decision(view["legal"][0])  # something on file from the first moment
    save_decision(choose_view(view, budget, player_rng(view)))
    budget.report()


if __name__ == "__main__":
    run(play_games)
