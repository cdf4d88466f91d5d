"""Tsuro for 2 to 8 players: hidden hands, a shuffled pile, the dragon tile
(shared/rules/tsuro.md).  Tile set: tiles.py; geometry and one placement:
board.py; turns, pile and dragon: rules.py; files: codec.py; drawing:
render.py."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from referee.core.game import Game, Setup

from . import board as geo
from . import codec
from .board import Cells
from .decisions import HELP, Decision, parse_decision
from .render import render
from .rules import HAND, VARIANTS, TsuroState
from .tiles import TILES


class Tsuro(Game):
    name = "tsuro"
    title = "Tsuro"
    variants = VARIANTS
    player_counts = tuple(range(2, 9))
    decision_help = HELP

    def default_policy(self, players: int) -> str:
        """A faulty player leaves and the others play on, even with two."""
        return "eject"

    def parse_board(self, text: str, source: str, variant: str) -> Cells:
        return codec.parse_board(text, source)

    def board_warnings(self, board: Cells) -> list[str]:
        placed = sum(cell is not None for cell in board)
        warnings = []
        if len(TILES) - placed < HAND * max(self.player_counts):
            warnings.append(f"{placed} tiles on the board leave {len(TILES) - placed} to deal: "
                            f"fewer than {HAND} each for {max(self.player_counts)} players")
        blocked = sum(geo.cell_at(board, *geo.perimeter(s)[:2]) is not None for s in range(geo.PERIMETER))
        if blocked:
            warnings.append(f"{blocked} of the {geo.PERIMETER} start positions face a tile and cannot be chosen")
        return warnings

    def initial_state(self, setup: Setup) -> TsuroState:
        cells = setup.board if setup.board is not None else geo.EMPTY
        return TsuroState.initial(setup.variant, setup.players, setup.seed, cells)

    def parse_decision(self, state: TsuroState, text: str) -> Decision:
        return parse_decision(text)

    def board_text(self, state: TsuroState, viewer: int | None) -> str:
        return codec.board_text(state, viewer)

    def view_json(self, state: TsuroState, viewer: int | None) -> dict[str, Any]:
        return codec.view_json(state, viewer)

    def render(self, state: TsuroState, viewer: int | None = None, color: bool = False) -> str:
        return render(state, viewer, color)

    def resample(self, state: TsuroState, viewer: int, rng: Any) -> TsuroState:
        """The other hands and the pile dealt anew from the tiles ``viewer``
        cannot place: its own hand, the board and every count stay."""
        others = [p for p in range(state.players) if p != viewer - 1]
        unseen = [t for p in others for t in state.hands[p]] + list(state.pile)
        rng.shuffle(unseen)
        hands = list(state.hands)
        for p in others:
            hands[p], unseen = tuple(unseen[:len(hands[p])]), unseen[len(hands[p]):]
        return replace(state, hands=tuple(hands), pile=tuple(unseen))


GAME = Tsuro()
