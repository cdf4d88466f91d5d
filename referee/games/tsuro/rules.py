"""Tsuro rules (shared/rules/tsuro.md): setup, turns, the pile and the
dragon, elimination, the end.  ``TsuroState`` is an immutable value; chance
comes only from ``derived_rng(seed, "pile")`` for the first shuffle and
``derived_rng(seed, "reshuffle", k)`` for the k-th reshuffle, so the state
carries its seed and reshuffle counter and replay reproduces it.

Turn order is clockwise = player id order.  Players hold at most HAND tiles.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

from referee.core.game import Event, GameState, Outcome
from referee.core.rng import derived_rng

from . import board as geo
from .board import Cells, Point
from .decisions import Decision, Place, Skip, Start
from .tiles import ROTATIONS, TILES

HAND = 3
VARIANTS = ("seed", "classic")


def shuffled(tiles: tuple[int, ...], rng) -> tuple[int, ...]:
    order = list(tiles)
    rng.shuffle(order)
    return tuple(order)


@dataclass(frozen=True)
class TsuroState(GameState):
    variant: str
    seed: int
    cells: Cells
    markers: tuple[Point | None, ...]
    """Facing point per player; None before its start is chosen or once ejected.
    An eliminated player's marker stays where it went out."""
    hands: tuple[tuple[int, ...], ...]
    pile: tuple[int, ...]                # the next draw first
    dragon: int | None
    out: tuple[tuple[int, str] | None, ...]
    """Per player: None while in the game, else (ply it went out, reason:
    "edge", "collision" or "ejected")."""
    current: int | None
    ply: int = 0
    reshuffles: int = 0

    # ----- construction
    @classmethod
    def initial(cls, variant: str, players: int, seed: int, cells: Cells = geo.EMPTY) -> "TsuroState":
        on_board = {cell[0] for cell in cells if cell is not None}
        pile = shuffled(tuple(t.id for t in TILES if t.id not in on_board), derived_rng(seed, "pile"))
        hands = [[] for _ in range(players)]
        for k in range(min(len(pile), HAND * players)):
            hands[k % players].append(pile[k])
        return cls(variant, seed, cells, (None,) * players, tuple(map(tuple, hands)),
                   pile[HAND * players:], None, (None,) * players, 1)

    # ----- who and what
    @property
    def players(self) -> int:
        return len(self.hands)

    def in_game(self) -> list[int]:
        return self.alive()

    def alive(self) -> list[int]:
        return [p for p in range(1, self.players + 1) if self.out[p - 1] is None]

    def active_markers(self) -> dict[int, Point]:
        """Facing point of every player still in the game that has a marker."""
        return {p: self.markers[p - 1] for p in self.alive() if self.markers[p - 1] is not None}

    def current_player(self) -> int | None:
        return self.current

    def step_kind(self) -> str:
        if self.current is not None and self.markers[self.current - 1] is None:
            return "setup"
        return "play"

    def free_starts(self) -> list[int]:
        return geo.free_starts(self.cells, self.markers)

    def placements_for(self, player: int) -> list[Place]:
        return geo.placements(self.variant, self.cells, self.active_markers(), player,
                              self.hands[player - 1])

    def legal_decisions(self) -> list[Decision]:
        if self.current is None:
            return []
        if self.step_kind() == "setup":
            return [Start(s) for s in self.free_starts()]
        return list(self.placements_for(self.current)) or [Skip()]

    def auto_decision(self) -> Decision | None:
        """A player that cannot place skips without being run."""
        if self.current is not None and self.step_kind() == "play" and not self.placements_for(self.current):
            return Skip()
        return None

    def illegal_reason(self, decision: Any) -> str | None:
        if self.current is None:
            return "the game is over"
        kind = self.step_kind()
        if kind == "setup":
            if not isinstance(decision, Start):
                return "this is a setup step: choose a start position with 'S p'"
            return self._start_problem(decision.position)
        if isinstance(decision, Start):
            return "your marker is already on the board: place a tile with 'T i rot r c'"
        legal = self.placements_for(self.current)
        if isinstance(decision, Skip):
            return "you can place a tile, so you cannot skip" if legal else None
        if not isinstance(decision, Place):
            return "not a Tsuro decision"
        if decision in legal:
            return None
        return self._place_problem(decision)

    def _start_problem(self, position: int) -> str | None:
        if not 0 <= position < geo.PERIMETER:
            return f"start position {position} is outside 0..{geo.PERIMETER - 1}"
        point = geo.perimeter(position)
        if point in self.markers:
            owner = self.markers.index(point) + 1
            return f"start position {position} is taken by player {owner}"
        if geo.cell_at(self.cells, *point[:2]) is not None:
            return f"start position {position} faces cell {point[:2]}, which already holds a tile"
        return None

    def _place_problem(self, p: Place) -> str:
        hand = self.hands[self.current - 1]
        if not 0 <= p.index < len(hand):
            return (f"hand index {p.index} but your hand holds {len(hand)} tile(s)"
                    + (f" (indices 0..{len(hand) - 1})" if hand else ""))
        if not 0 <= p.rotation < ROTATIONS:
            return f"rotation {p.rotation} is outside 0..3"
        if not geo.on_board(p.row, p.col):
            edge = geo.SIZE in (p.row, p.col)  # a 1-based count's last row or column
            return (f"cell ({p.row}, {p.col}) is off the {geo.SIZE}x{geo.SIZE} board (rows and columns "
                    f"0..{geo.SIZE - 1}{': they count from 0' if edge else ''})")
        if geo.cell_at(self.cells, p.row, p.col) is not None:
            return f"cell ({p.row}, {p.col}) already holds a tile"
        facing = self.markers[self.current - 1]
        targets = geo.target_cells(self.variant, self.cells, facing)
        if (p.row, p.col) not in targets:
            if self.variant == "classic":
                return f"cell ({p.row}, {p.col}) is not the cell in front of your marker {facing[:2]}"
            start = geo.start_position(facing)
            if start is not None:  # it stands off the board: speak of the edge, not of cell (-1, c)
                cells = ", ".join(f"({r}, {c})" for r, c in targets)
                return (f"cell ({p.row}, {p.col}) is not next to your start position {start} "
                        f"on the edge; from there you may place on: {cells}")
            return (f"cell ({p.row}, {p.col}) is not one of the 8 cells around the cell "
                    f"{geo.stand_cell(facing)} your marker stands on")
        return "this placement eliminates you while another placement does not (classic rules)"

    # ----- applying decisions
    def apply(self, player: int, decision: Decision) -> tuple["TsuroState", list[Event]]:
        reason = None if player == self.current else f"it is player {self.current}'s turn"
        reason = reason or self.illegal_reason(decision)
        if reason:
            raise ValueError(reason)
        state = replace(self, ply=self.ply + 1)
        if isinstance(decision, Start):
            markers = list(self.markers)
            markers[player - 1] = geo.perimeter(decision.position)
            events: list[Event] = [{"type": "start", "player": player, "position": decision.position}]
            return replace(state, markers=tuple(markers))._next_turn(player, events)
        if isinstance(decision, Skip):
            return state._next_turn(player, [{"type": "skip", "player": player}])
        return state._place(player, decision)

    def _place(self, player: int, p: Place) -> tuple["TsuroState", list[Event]]:
        hand = list(self.hands[player - 1])
        tile = hand.pop(p.index)
        hands = list(self.hands)
        hands[player - 1] = tuple(hand)
        result = geo.place(self.cells, self.active_markers(), tile, p.rotation, p.row, p.col)
        markers = list(self.markers)
        for who, facing in result.markers.items():
            markers[who - 1] = facing
        events: list[Event] = [{"type": "place", "player": player, "tile": tile,
                                "rotation": p.rotation, "cell": [p.row, p.col]}]
        events += [{"type": "move", "player": who, "length": len(trail),
                    "to": marker_json(markers[who - 1])} for who, trail in sorted(result.trails.items())]
        state = replace(self, cells=result.cells, markers=tuple(markers), hands=tuple(hands))
        state, out_events = state._remove(dict(result.eliminated))
        return state._next_turn(player, events + out_events)

    def eject(self, player: int) -> tuple["TsuroState", list[Event]]:
        """A faulty player leaves: hand back to the pile, marker removed."""
        markers = list(self.markers)
        markers[player - 1] = None
        state = replace(self, markers=tuple(markers), ply=self.ply + 1)
        state, events = state._remove({player: "ejected"})
        if player == self.current or len(state.alive()) <= 1:
            return state._next_turn(player, events)
        return state, events

    def _remove(self, leaving: Mapping[int, str]) -> tuple["TsuroState", list[Event]]:
        """Players go out: hands back into the pile, reshuffled; then the
        dragon holder (or the next player after it) is dealt first."""
        if not leaving:
            return self, []
        events: list[Event] = [{"type": "eliminated", "player": p, "reason": r} for p, r in sorted(leaving.items())]
        out, hands = list(self.out), list(self.hands)
        returned: list[int] = []
        for p in sorted(leaving):
            out[p - 1] = (self.ply, leaving[p])
            returned += hands[p - 1]
            hands[p - 1] = ()
        state = replace(self, out=tuple(out), hands=tuple(hands))
        if returned:
            rng = derived_rng(self.seed, "reshuffle", self.reshuffles)
            state = replace(state, pile=shuffled(self.pile + tuple(returned), rng),
                            reshuffles=self.reshuffles + 1)
            events.append({"type": "reshuffle", "returned": len(returned), "pile": len(state.pile)})
        if state.dragon is not None and (returned or state.dragon in leaving):
            state, deal_events = state._deal_from_dragon()
            events += deal_events
        return state, events

    def _clockwise_from(self, player: int) -> list[int]:
        """Players still in, clockwise, starting at ``player`` (or the first
        one after it if ``player`` is out)."""
        alive = self.alive()
        return [p for p in alive if p >= player] + [p for p in alive if p < player]

    def _deal_from_dragon(self) -> tuple["TsuroState", list[Event]]:
        """Tiles came back while someone held the dragon: one tile at a time,
        from the holder clockwise, to everyone short of a full hand, until the
        pile is empty or all hands are full.  The dragon is handed back; if
        someone is still short with the pile empty, the next one in the deal
        order takes it."""
        order = self._clockwise_from(self.dragon)
        hands, pile = [list(h) for h in self.hands], list(self.pile)
        drawn = dict.fromkeys(order, 0)
        turn = 0
        while pile and any(len(hands[p - 1]) < HAND for p in order):
            p = order[turn % len(order)]
            if len(hands[p - 1]) < HAND:
                hands[p - 1].append(pile.pop(0))
                drawn[p] += 1
            turn += 1
        next_in_deal = [order[(turn + k) % len(order)] for k in range(len(order))]
        short = [p for p in next_in_deal if len(hands[p - 1]) < HAND]
        dragon = short[0] if short and not pile else None
        events: list[Event] = [{"type": "deal", "player": p, "tiles": n} for p, n in drawn.items() if n]
        events.append({"type": "dragon", "from": self.dragon, "to": dragon})
        return replace(self, hands=tuple(map(tuple, hands)), pile=tuple(pile), dragon=dragon), events

    def _next_turn(self, player: int, events: list[Event]) -> tuple["TsuroState", list[Event]]:
        """Pass the turn clockwise (setup first, in id order), refill the
        next player's hand, and stop when the game is over."""
        alive = self.alive()
        if len(alive) <= 1:
            return replace(self, current=None), events + [self._end_event()]
        waiting = [p for p in alive if self.markers[p - 1] is None]
        if waiting:
            return replace(self, current=waiting[0]), events
        # Setup went in id order, so after the last start the turn wraps to
        # the first player still in, as it does every round.
        nxt = self._clockwise_from(player + 1)[0]
        state, refill_events = replace(self, current=nxt)._refill(nxt)
        events = events + refill_events
        if not state.pile and not any(state.placements_for(p) for p in alive):
            return replace(state, current=None), events + [state._end_event()]
        return state, events

    def _refill(self, player: int) -> tuple["TsuroState", list[Event]]:
        """Start of a turn: draw up to HAND tiles; a player still short with
        the pile empty takes the dragon if nobody holds it."""
        hand = self.hands[player - 1]
        need = HAND - len(hand)
        if need <= 0:
            return self, []
        hands = list(self.hands)
        hands[player - 1] = hand + self.pile[:need]
        state = replace(self, hands=tuple(hands), pile=self.pile[need:])
        drawn = len(hands[player - 1]) - len(hand)
        events: list[Event] = [{"type": "draw", "player": player, "tiles": drawn}] if drawn else []
        if len(hands[player - 1]) < HAND and not state.pile and state.dragon is None:
            state = replace(state, dragon=player)
            events.append({"type": "dragon", "from": None, "to": player})
        return state, events

    def _end_event(self) -> Event:
        return {"type": "game_over", "reason": self.outcome().reason}

    # ----- the end
    def is_terminal(self) -> bool:
        return self.current is None

    def outcome(self) -> Outcome:
        alive = self.alive()
        gone = sorted({out[0] for out in self.out if out is not None}, reverse=True)
        groups = [tuple(p for p in range(1, self.players + 1)
                        if self.out[p - 1] is not None and self.out[p - 1][0] == ply) for ply in gone]
        if alive:
            ranking = (tuple(alive), *groups)
            if len(alive) == 1:
                reason = f"player {alive[0]} is the last one on the board"
            else:
                reason = "no tile can be placed by anyone: the survivors tie"
        else:
            ranking = tuple(groups)
            reason = "every remaining player went out in the same turn: they tie"
        winner = ranking[0][0] if ranking and len(ranking[0]) == 1 else None
        return Outcome(winner, ranking, None, reason)

    def to_json(self) -> dict[str, Any]:
        return {
            "variant": self.variant, "seed": self.seed,
            "cells": [list(c) if c else None for c in self.cells],
            "markers": [list(m) if m else None for m in self.markers],
            "hands": [list(h) for h in self.hands], "pile": list(self.pile),
            "dragon": self.dragon, "out": [list(o) if o else None for o in self.out],
            "current": self.current, "ply": self.ply, "reshuffles": self.reshuffles,
        }


def marker_json(facing: Point | None) -> dict[str, Any] | None:
    """A marker for people: its start position, or the cell it last crossed
    and the port of that cell it stands on."""
    if facing is None:
        return None
    start = geo.start_position(facing)
    if start is not None:
        return {"start": start}
    row, col, port = geo.across(facing)
    return {"cell": [row, col], "port": port}
