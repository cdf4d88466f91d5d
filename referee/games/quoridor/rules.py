"""Quoridor rules: decisions, positions, legal moves, apply, eject, end.

Everything here follows /shared/rules/quoridor.md.  A position is an
immutable value; the expensive queries (shortest paths, the legal walls) are
computed on first use and cached on the instance, which is invisible from the
outside because nothing else about the instance ever changes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Union

from referee.core.game import Event, GameState, Outcome

from .clusters import EMPTY, Clusters, add_wall, loop_closing
from .geometry import (
    ALL_WALLS, CONFLICTS, DELTA, DIRECTIONS, NEAR, OPEN_EMPTY, PERPENDICULAR, SIZE, STEPS,
    WALLS, _byte_tables, bits_of, coords, on_board, square, wall_id,
)
from .paths import (  # noqa: F401 (cutters, shortest_path: re-exported for players and graders)
    GOAL, cutters, expand, goal_distance, reaches, route, shortest_path,
)

START = {1: (8, 4), 2: (0, 4), 3: (4, 0), 4: (4, 8)}
GOAL_NAME = {1: "row 0", 2: "row 8", 3: "column 8", 4: "column 0"}
COLOR = {1: "red", 2: "blue", 3: "green", 4: "yellow"}
WALLS_PER_PLAYER = {1: 20, 2: 10, 4: 5}
DEFAULT_PLY_CAP = 4 * SIZE * SIZE


# ----------------------------------------------------------------- decisions
@dataclass(frozen=True)
class Move:
    """A pawn move from (r1, c1) to (r2, c2) (a step, a jump or a diagonal)."""

    r1: int
    c1: int
    r2: int
    c2: int

    def __str__(self) -> str:
        return f"M {self.r1} {self.c1} {self.r2} {self.c2}"


@dataclass(frozen=True)
class Wall:
    """A wall given by its two grid endpoints, stored in reading order."""

    r1: int
    c1: int
    r2: int
    c2: int

    @staticmethod
    def of(r1: int, c1: int, r2: int, c2: int) -> "Wall":
        """A wall from endpoints in either order (students write both)."""
        if (r2, c2) < (r1, c1):
            r1, c1, r2, c2 = r2, c2, r1, c1
        return Wall(r1, c1, r2, c2)

    @property
    def slot(self) -> int | None:
        """The wall's id in :mod:`geometry`, or None if it is not a legal shape."""
        return wall_id(self.r1, self.c1, self.r2, self.c2)

    def __str__(self) -> str:
        return f"W {self.r1} {self.c1} {self.r2} {self.c2}"


@dataclass(frozen=True)
class Pass:
    """Skip the turn; legal only when nothing else is."""

    def __str__(self) -> str:
        return "PASS"


PASS = Pass()
Decision = Union[Move, Wall, Pass]

WALL_DECISIONS = [Wall(w.r1, w.c1, w.r2, w.c2) for w in WALLS]
_WALL_BYTES = _byte_tables(WALL_DECISIONS)


def wall_decisions(mask: int) -> list[Wall]:
    """The Wall decisions of a bitset of slots, lowest slot first (a byte at a time)."""
    found: list[Wall] = []
    if mask:
        for table, byte in zip(_WALL_BYTES, mask.to_bytes(len(_WALL_BYTES), "little")):
            if byte:
                found += table[byte]
    return found


_MOVES: dict[int, Move] = {}
_DELTAS = tuple(DELTA[d] for d in DIRECTIONS)
_SIDES = tuple(PERPENDICULAR[d] for d in DIRECTIONS)


def move_decision(src: int, dst: int) -> Move:
    """The (shared) Move object for a step between two square indices."""
    key = src * 128 + dst
    found = _MOVES.get(key)
    if found is None:
        found = _MOVES[key] = Move(*coords(src), *coords(dst))
    return found


def _step_moves() -> list[list[tuple[Move, ...]]]:
    table = []
    for sq, row in enumerate(STEPS):
        moves = {t: move_decision(sq, t) for t in row[15]}  # row[15]: every direction open
        table.append([tuple(map(moves.__getitem__, targets)) for targets in row])
    return table


STEP_MOVES = _step_moves()
""":data:`geometry.STEPS` as Move decisions, ready to list."""


def open_directions(opens: tuple[int, int, int, int], sq: int) -> int:
    """Bit d set when the step from ``sq`` in direction d is open (STEPS' index)."""
    return ((opens[0] >> sq & 1) | (opens[1] >> sq & 1) << 1
            | (opens[2] >> sq & 1) << 2 | (opens[3] >> sq & 1) << 3)


# --------------------------------------------------------------- flood fills
def unreachable_squares(state: "QuoridorState") -> list[tuple[int, int]]:
    """Squares no pawn on the board can reach (closed pockets)."""
    seen = 0
    for sq in state.pawns:
        if sq is not None:
            seen |= 1 << sq
    while (grown := expand(seen, state.opens)) != seen:
        seen = grown
    return [coords(sq) for sq in range(SIZE * SIZE) if not seen >> sq & 1]


def with_wall(opens: tuple[int, int, int, int], slot: int) -> tuple[int, int, int, int]:
    blocks = WALLS[slot].blocks
    return (opens[0] & ~blocks[0], opens[1] & ~blocks[1], opens[2] & ~blocks[2], opens[3] & ~blocks[3])


def seats(players: int) -> tuple[int, ...]:
    return (1, 2, 3, 4)[:players]


# ------------------------------------------------------------------ position
@dataclass(frozen=True, eq=False, init=False)
class QuoridorState(GameState):
    """One position.  ``pawns[i]`` is player i+1's square index, None once
    ejected; ``walls`` is the bitset of placed wall slots, ``opens`` the
    open-step masks it leaves, ``blocked`` the slots it rules out and
    ``clusters`` its connected pieces (:mod:`clusters`): all four are kept up
    to date by :meth:`apply` a wall at a time, as recomputing them from
    ``walls`` would cost more than the legal moves themselves."""

    players: int
    pawns: tuple[int | None, ...]
    walls_left: tuple[int, ...]
    turn: int | None
    walls: int = 0
    opens: tuple[int, int, int, int] = OPEN_EMPTY
    blocked: int = 0
    clusters: Clusters = field(default=EMPTY, repr=False)
    """The placed walls and the border in connected pieces: which walls would close a loop."""
    ply: int = 0
    ply_cap: int = DEFAULT_PLY_CAP
    winner: int | None = None
    reason: str = ""
    moves: tuple[tuple[int, str], ...] = ()
    """Every applied decision as ``(player, text)``; ejections as
    ``(player, "EJECT")``.  History only: not part of the hashed state."""
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    """Answers computed on first use: "legal", "walls", "loops", "cutters"
    (their methods say what), and per player p its route (:meth:`path` and
    the walls cutting it) under p, one handed down by :meth:`apply` under -p,
    its distance alone under ("distance", p)."""

    def __init__(self, players: int, pawns: tuple[int | None, ...], walls_left: tuple[int, ...],
                 turn: int | None, walls: int = 0, opens: tuple[int, int, int, int] = OPEN_EMPTY,
                 blocked: int = 0, clusters: Clusters = EMPTY, ply: int = 0,
                 ply_cap: int = DEFAULT_PLY_CAP, winner: int | None = None, reason: str = "",
                 moves: tuple[tuple[int, str], ...] = ()) -> None:
        """The fields as declared above.  Written out because a frozen
        dataclass's own ``__init__`` sets each field through
        ``object.__setattr__``, which made building a state (every apply,
        every search node) cost as much as listing its pawn moves."""
        self.__dict__.update(
            players=players, pawns=pawns, walls_left=walls_left, turn=turn, walls=walls,
            opens=opens, blocked=blocked, clusters=clusters, ply=ply, ply_cap=ply_cap,
            winner=winner, reason=reason, moves=moves, _cache={})

    # ---- construction
    @staticmethod
    def start(players: int, ply_cap: int = DEFAULT_PLY_CAP) -> "QuoridorState":
        ids = seats(players)
        return QuoridorState(
            players=players,
            pawns=tuple(square(*START[p]) for p in ids),
            walls_left=tuple(WALLS_PER_PLAYER[players] for _ in ids),
            turn=1,
            ply_cap=ply_cap,
        )

    @staticmethod
    def arrange(players: int, pawns: dict[int, tuple[int, int]], walls: Iterable[Wall],
                walls_left: dict[int, int], turn: int, ply: int = 0,
                ply_cap: int = DEFAULT_PLY_CAP) -> "QuoridorState":
        """A position from its parts (board files, tests).  Players missing
        from ``pawns`` count as ejected, from the start: where that leaves
        one player of several, the game is over before its first move and
        that player wins, as after the last ejection (:meth:`eject`);
        otherwise the missing seats' turns are skipped and they rank last.
        Validity is the caller's business (see :func:`arrangement_problem`)."""
        bits, blocked, opens, clusters = 0, 0, OPEN_EMPTY, EMPTY
        for wall in walls:
            slot = wall.slot
            bits |= 1 << slot
            blocked |= CONFLICTS[slot]
            opens = with_wall(opens, slot)
            clusters = add_wall(clusters, slot)
        ids = seats(players)
        winner, reason = None, ""
        present = [p for p in ids if p in pawns]
        if players > 1 and len(present) == 1:
            winner, turn = present[0], None
            missing = ", ".join(str(p) for p in ids if p not in pawns)
            reason = (f"player {winner} is the last active player (no pawn of player"
                      f"{'s' if len(ids) > 2 else ''} {missing} on the board)")
        return QuoridorState(
            players=players,
            pawns=tuple(square(*pawns[p]) if p in pawns else None for p in ids),
            walls_left=tuple(walls_left.get(p, 0) for p in ids),
            turn=turn, walls=bits, opens=opens, blocked=blocked, clusters=clusters, ply=ply,
            ply_cap=ply_cap, winner=winner, reason=reason,
        )

    # ---- simple queries
    def current_player(self) -> int | None:
        return self.turn

    def is_terminal(self) -> bool:
        return self.turn is None

    def in_game(self) -> tuple[int, ...]:
        """The players on the board: a forfeit's win goes to those, never to
        a seat that started without a pawn (the core knows only of the seats
        it ejected itself)."""
        return self.active()

    def active(self) -> tuple[int, ...]:
        if None not in self.pawns:  # nobody ejected: nearly always, and asked at every node
            return seats(self.players)
        return tuple(p for p in seats(self.players) if self.pawns[p - 1] is not None)

    def pawn(self, player: int) -> tuple[int, int] | None:
        sq = self.pawns[player - 1]
        return None if sq is None else coords(sq)

    def wall_list(self) -> list[Wall]:
        return [WALL_DECISIONS[slot] for slot in bits_of(self.walls)]

    def path(self, player: int) -> list[int] | None:
        """A shortest path (square indices) for ``player`` to its goal, pawns
        ignored: the one :func:`shortest_path` finds."""
        return self._route(player)[0]

    def path_cutters(self, player: int) -> int:
        """Bitset of the wall slots cutting :meth:`path` (0 without a path)."""
        return self._route(player)[1]

    def _route(self, player: int) -> tuple[list[int] | None, int]:
        found = self._cache.get(player)
        if found is None:
            found = self._cache[player] = route(player, self.pawns[player - 1], self.opens)
        return found

    def distance(self, player: int) -> int | None:
        """The length of :meth:`path` (None without one): from a path already
        known, else counted without finding the path (a search's leaves)."""
        cache = self._cache
        known = cache.get(player) or cache.get(-player)
        if known is not None:
            return None if known[0] is None else len(known[0]) - 1
        key = ("distance", player)
        if key not in cache:
            cache[key] = goal_distance(player, self.pawns[player - 1], self.opens)
        return cache[key]

    def _some_route(self, player: int) -> tuple[list[int] | None, int]:
        """A shortest path and a superset of the walls cutting it: the one
        :meth:`path` gives if known, else one handed down by :meth:`apply`
        (which may differ from it, never in length), else :meth:`path`'s."""
        cache = self._cache
        return cache.get(player) or cache.get(-player) or self._route(player)

    def _hand_down(self, child: "QuoridorState", mover: int, to: int | None, slot: int | None) -> None:
        """Give ``child`` the shortest paths of this position that are still
        shortest there: a wall only lengthens the paths it cuts, a pawn move
        leaves the others' paths alone, and a pawn moving onto its own path
        keeps the rest of it (a move covers as many steps as it skips).  Why:
        a search evaluates a child right after listing the parent's moves,
        which found the paths; this saves the child most of its searches."""
        cache = self._cache
        if child.turn is None:
            return
        for p in child.active():
            known = cache.get(p) or cache.get(-p)
            if known is None or known[0] is None:
                continue
            path, cut = known
            if slot is not None:
                if cut >> slot & 1:
                    continue
            elif p == mover and to is not None:
                if to not in path:
                    continue
                path = path[path.index(to):]
            child._cache[-p] = (path, cut)

    def _occupied(self, except_player: int) -> int:
        bits = 0
        for p, sq in enumerate(self.pawns, 1):
            if sq is not None and p != except_player:
                bits |= 1 << sq
        return bits

    # ---- legal moves
    def pawn_targets(self, player: int) -> list[int]:
        """Squares ``player``'s pawn may move to (steps, jumps, diagonals)."""
        here = self.pawns[player - 1]
        if here is None:
            return []
        occupied = self._occupied(player)
        opens = self.opens
        if not occupied & NEAR[here]:  # no pawn to jump: the open steps
            return list(STEPS[here][open_directions(opens, here)])
        targets = []
        for d in DIRECTIONS:
            if not opens[d] >> here & 1:
                continue
            delta = _DELTAS[d]
            near = here + delta
            if not occupied >> near & 1:
                targets.append(near)
            elif opens[d] >> near & 1 and not occupied >> (near + delta) & 1:
                targets.append(near + delta)
            else:
                for side in _SIDES[d]:
                    if opens[side] >> near & 1 and not occupied >> (near + _DELTAS[side]) & 1:
                        targets.append(near + _DELTAS[side])
        targets.sort()
        return targets

    def _cutter_masks(self) -> list[tuple[int, int]]:
        """(player, walls cutting one of its shortest paths, or more) per
        active player: a wall outside that mask leaves the path, so the
        player, unharmed."""
        if "cutters" not in self._cache:
            self._cache["cutters"] = [(p, self._some_route(p)[1]) for p in self.active()]
        return self._cache["cutters"]

    def _loops(self) -> int:
        """The wall slots that would close a loop of walls (see :mod:`clusters`)."""
        if "loops" not in self._cache:
            self._cache["loops"] = loop_closing(self.clusters)
        return self._cache["loops"]

    def _wall_blocks_someone(self, slot: int) -> int | None:
        """The first active player ``slot`` would cut off from its goal, if any."""
        if not self._loops() >> slot & 1:
            return None
        return self._victim(slot)

    def _victim(self, slot: int) -> int | None:
        """The first active player cut off by a loop-closing wall ``slot``: only
        a player whose current shortest path the wall cuts can be, so only
        those are flood-filled."""
        opens = None
        for p, cut in self._cutter_masks():
            if cut >> slot & 1:
                opens = opens or with_wall(self.opens, slot)
                if not reaches(self.pawns[p - 1], GOAL[p], opens):
                    return p
        return None

    def legal_walls(self, among: int = ALL_WALLS) -> int:
        """Bitset of the wall slots the player to move may use now, of those
        in ``among``: a search that only tries a few walls asks for those,
        and the path checks of the others are never made."""
        found = self._cache.get("walls")
        if found is not None:
            return found & among
        legal = 0
        if self.turn is not None and self.walls_left[self.turn - 1] > 0:
            legal = ALL_WALLS & ~self.blocked & among
            # only a wall closing a loop can cut a region off, and only one
            # crossing someone's shortest path can cut that player off: two
            # bitset filters, then a flood fill for the few walls left
            candidates = legal & self._loops()
            if candidates:
                risky = 0
                for _, cut in self._cutter_masks():
                    risky |= cut
                for slot in bits_of(candidates & risky):
                    if self._victim(slot) is not None:
                        legal &= ~(1 << slot)
        if among == ALL_WALLS:
            self._cache["walls"] = legal
        return legal

    def legal_decisions(self) -> list[Decision]:
        if "legal" in self._cache:
            return self._cache["legal"]
        decisions: list[Decision] = []
        if self.turn is not None:
            here = self.pawns[self.turn - 1]
            if self._occupied(self.turn) & NEAR[here]:
                decisions = [move_decision(here, t) for t in self.pawn_targets(self.turn)]
            else:  # pawn_targets' common case, without a Move lookup per target
                decisions = list(STEP_MOVES[here][open_directions(self.opens, here)])
            decisions += wall_decisions(self.legal_walls())
            if not decisions:
                decisions = [PASS]
        self._cache["legal"] = decisions
        return decisions

    def auto_decision(self) -> Decision | None:
        """A forced pass is taken for the player: there is nothing to decide."""
        legal = self.legal_decisions()
        return PASS if legal == [PASS] else None

    def illegal_reason(self, decision: Any) -> str | None:
        if self.turn is None:
            return "the game is over"
        if isinstance(decision, Move):
            return self._move_problem(decision)
        if isinstance(decision, Wall):
            return self._wall_problem(decision)
        if isinstance(decision, Pass):
            if self.legal_decisions() == [PASS]:
                return None
            return "PASS is only allowed when no pawn move and no wall is legal"
        return f"not a Quoridor decision: {decision!r}"

    def _move_problem(self, move: Move) -> str | None:
        here = self.pawn(self.turn)
        if (move.r1, move.c1) != here:
            counted = (move.r1 - 1, move.c1 - 1) == here  # counted from 1
            return (f"your pawn is on ({here[0]},{here[1]}), not ({move.r1},{move.c1})"
                    + (": rows and columns count from 0" if counted else ""))
        if not on_board(move.r2, move.c2):
            return f"({move.r2},{move.c2}) is off the board (rows and columns 0..{SIZE - 1})"
        targets = self.pawn_targets(self.turn)
        if square(move.r2, move.c2) in targets:
            return None
        options = ", ".join(str(move_decision(square(*here), t)) for t in targets) or "none"
        return f"the pawn cannot move from ({move.r1},{move.c1}) to ({move.r2},{move.c2}); pawn moves: {options}"

    def _wall_problem(self, wall: Wall) -> str | None:
        slot = wall.slot
        if slot is None:
            return wall_shape_problem(wall)
        if self.walls_left[self.turn - 1] <= 0:
            return "you have no walls left"
        if self.blocked >> slot & 1:
            for other in bits_of(self.walls & CONFLICTS[slot]):
                placed = WALL_DECISIONS[other]
                if placed == wall:
                    return f"{wall} is already on the board"
                how = "overlaps" if WALLS[other].horizontal == WALLS[slot].horizontal else "crosses"
                return f"{wall} {how} {placed}"
        victim = self._wall_blocks_someone(slot)
        if victim is not None:
            return f"{wall} would leave player {victim} no path to {GOAL_NAME[victim]}"
        return None

    # ---- transitions
    def _next_turn(self, after: int, pawns: tuple[int | None, ...]) -> int | None:
        if None not in pawns:  # nobody ejected: the next seat (asked at every apply)
            return after % self.players + 1
        order = seats(self.players)
        i = order.index(after)
        for k in range(1, len(order) + 1):
            p = order[(i + k) % len(order)]
            if pawns[p - 1] is not None:
                return p
        return None

    def apply(self, player: int, decision: Decision) -> tuple["QuoridorState", list[Event]]:
        if player != self.turn:
            raise ValueError(f"player {player} moved but it is player {self.turn}'s turn")
        pawns, walls_left = self.pawns, self.walls_left
        walls, opens, blocked, clusters = self.walls, self.opens, self.blocked, self.clusters
        winner, reason = None, ""
        if isinstance(decision, Move):
            src, dst = square(decision.r1, decision.c1), square(decision.r2, decision.c2)
            pawns = pawns[:player - 1] + (dst,) + pawns[player:]
            jumped = abs(decision.r2 - decision.r1) + abs(decision.c2 - decision.c1) > 1
            events: list[Event] = [{"type": "move", "player": player, "from": list(coords(src)),
                                    "to": list(coords(dst)), "jump": jumped}]
            if GOAL[player] >> dst & 1:
                winner, reason = player, f"player {player} reached {GOAL_NAME[player]}"
                events.append({"type": "win", "player": player, "reason": reason})
        elif isinstance(decision, Wall):
            slot = decision.slot
            walls |= 1 << slot
            blocked |= CONFLICTS[slot]
            opens = with_wall(opens, slot)
            clusters = add_wall(clusters, slot)
            walls_left = walls_left[:player - 1] + (walls_left[player - 1] - 1,) + walls_left[player:]
            events = [{"type": "wall", "player": player, "wall": [decision.r1, decision.c1, decision.r2, decision.c2],
                       "walls_left": walls_left[player - 1]}]
        else:
            events = [{"type": "pass", "player": player}]
        ply = self.ply + 1
        turn = None if winner else self._next_turn(player, pawns)
        if turn is not None and ply >= self.ply_cap:
            turn, reason = None, f"ply cap {self.ply_cap} reached"
            events.append({"type": "draw", "reason": reason})
        state = QuoridorState(
            players=self.players, pawns=pawns, walls_left=walls_left, turn=turn, walls=walls,
            opens=opens, blocked=blocked, clusters=clusters, ply=ply, ply_cap=self.ply_cap, winner=winner,
            reason=reason, moves=self.moves + ((player, str(decision)),),
        )
        if isinstance(decision, Move):
            self._hand_down(state, player, dst, None)
        else:
            self._hand_down(state, player, None, slot if isinstance(decision, Wall) else None)
        return state, events

    def eject(self, player: int) -> tuple["QuoridorState", list[Event]]:
        """The pawn leaves the board, its walls stay; the last active player wins."""
        if self.pawns[player - 1] is None:
            raise ValueError(f"player {player} is not on the board")
        pawns = self.pawns[:player - 1] + (None,) + self.pawns[player:]
        events: list[Event] = [{"type": "eject", "player": player}]
        remaining = [p for p in seats(self.players) if pawns[p - 1] is not None]
        winner, reason, turn = None, "", self.turn
        if self.players > 1 and len(remaining) == 1:
            winner, turn = remaining[0], None
            reason = f"player {winner} is the last active player"
            events.append({"type": "win", "player": winner, "reason": reason})
        elif not remaining:
            turn, reason = None, "no active player left"
        elif turn == player:
            turn = self._next_turn(player, pawns)
        state = QuoridorState(
            players=self.players, pawns=pawns, walls_left=self.walls_left, turn=turn,
            walls=self.walls, opens=self.opens, blocked=self.blocked, clusters=self.clusters, ply=self.ply,
            ply_cap=self.ply_cap, winner=winner, reason=reason,
            moves=self.moves + ((player, "EJECT"),),
        )
        self._hand_down(state, player, None, None)
        return state, events

    # ---- end
    def outcome(self) -> Outcome:
        """Winner first; then the players still on the board, tied; then
        the ejected players, tied.  A draw ties everyone still on the board."""
        active = self.active()
        ejected = tuple(p for p in seats(self.players) if p not in active)
        if self.winner is not None:
            groups = [(self.winner,), tuple(p for p in active if p != self.winner), ejected]
        else:
            groups = [active, ejected]
        ranking = tuple(g for g in groups if g)
        return Outcome(winner=self.winner, ranking=ranking, scores=None, reason=self.reason)

    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "pawns": {str(p): (None if self.pawn(p) is None else list(self.pawn(p))) for p in seats(self.players)},
            "walls": [[w.r1, w.c1, w.r2, w.c2] for w in self.wall_list()],
            "walls_left": {str(p): self.walls_left[p - 1] for p in seats(self.players)},
            "active": list(self.active()),
            "to_move": self.turn,
            "ply": self.ply,
            "ply_cap": self.ply_cap,
            "winner": self.winner,
        }


def wall_shape_problem(wall: Wall) -> str:
    """Why endpoints do not describe a wall slot (only called when they don't)."""
    dr, dc = wall.r2 - wall.r1, wall.c2 - wall.c1
    if not ((dr == 0 and dc == 2) or (dr == 2 and dc == 0)):
        return f"{wall} is not a wall: endpoints must be 2 apart in one direction"
    if dr == 0 and wall.r1 in (0, SIZE):
        return f"{wall} lies on the board's border (grid row {wall.r1})"
    if dc == 0 and wall.c1 in (0, SIZE):
        return f"{wall} lies on the board's border (grid column {wall.c1})"
    return f"{wall} is off the board: grid lines run 0..{SIZE}"


def arrangement_problem(state: QuoridorState) -> str | None:
    """Why a position built with :meth:`QuoridorState.arrange` cannot start a game."""
    for p in state.active():
        if GOAL[p] >> state.pawns[p - 1] & 1:
            return f"player {p} already stands on its goal ({GOAL_NAME[p]})"
        if state.path(p) is None:
            return f"player {p} has no path to {GOAL_NAME[p]}"
    return None

