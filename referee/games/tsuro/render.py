"""Terminal drawing: each cell a box with its paths written as port pairs,
markers as player digits on the port they stand on, and (in colour) every
marker's trail coloured in its player's colour."""
from __future__ import annotations

from . import board as geo
from .codec import marker_words
from .rules import TsuroState
from .tiles import TILES

WIDTH, HEIGHT = 10, 4     # one cell, borders shared with its neighbours
MARGIN = 1                # room for markers still on their start position
COLORS = (31, 32, 33, 34, 35, 36, 91, 94)
# (row, col) of each port inside a cell box whose top-left corner is (0, 0)
PORT_AT = ((0, 3), (0, 7), (1, WIDTH), (3, WIDTH), (HEIGHT, 7), (HEIGHT, 3), (3, 0), (1, 0))
OUTSIDE = ((-1, 0), (0, 1), (1, 0), (0, -1))


def _paint(text: str, player: int | None, color: bool) -> str:
    if not color or player is None:
        return text
    return f"\x1b[{COLORS[(player - 1) % len(COLORS)]}m{text}\x1b[0m"


def _trails(state: TsuroState) -> dict[tuple[int, int, int, int], int]:
    """Segment -> player whose marker crossed it (walked back from its marker)."""
    owner = {}
    for p, facing in enumerate(state.markers, start=1):
        if facing is not None:
            for segment in geo.follow(state.cells, geo.across(facing))[0]:
                owner[segment] = p
    return owner


def render(state: TsuroState, viewer: int | None = None, color: bool = False) -> str:
    rows, cols = HEIGHT * geo.SIZE + 1 + 2 * MARGIN, WIDTH * geo.SIZE + 1 + 2 * MARGIN
    canvas = [[" "] * cols for _ in range(rows)]
    trails = _trails(state) if color else {}

    def put(r: int, c: int, text: str, player: int | None = None) -> None:
        for k, ch in enumerate(text):
            canvas[r + MARGIN][c + MARGIN + k] = _paint(ch, player, color)

    for r in range(geo.SIZE + 1):
        for c in range(geo.SIZE * WIDTH + 1):
            put(r * HEIGHT, c, "+" if c % WIDTH == 0 else "-")
    for c in range(geo.SIZE + 1):
        for r in range(geo.SIZE * HEIGHT + 1):
            if r % HEIGHT:
                put(r, c * WIDTH, "|")
    for r in range(geo.SIZE):
        for c in range(geo.SIZE):
            cell = state.cells[geo.index(r, c)]
            if cell is None:
                continue
            tile, rotation = cell
            top, left = r * HEIGHT, c * WIDTH
            put(top + 1, left + 2, f"#{tile}/{rotation}")
            pairs = TILES[tile].pairs(rotation)
            for k, (a, b) in enumerate(pairs):
                put(top + 2 + k // 2, left + 2 + 4 * (k % 2), f"{a}-{b}", trails.get((r, c, a, b)))
    for p, facing in enumerate(state.markers, start=1):
        if facing is None or state.out[p - 1] is not None:
            continue
        row, col, port = geo.across(facing)
        if not geo.on_board(row, col):      # on its start: draw it just outside
            row, col, port = facing
            dr, dc = OUTSIDE[port // 2]
        else:
            dr = dc = 0
        pr, pc = PORT_AT[port]
        put(row * HEIGHT + pr + dr, col * WIDTH + pc + dc, str(p % 10), p)
    lines = ["".join(line).rstrip() for line in canvas]
    for p in range(1, state.players + 1):
        out = state.out[p - 1]
        hand = state.hands[p - 1]
        shown = " ".join(map(str, hand)) if viewer in (None, p) else f"{len(hand)} hidden"
        status = f"OUT ({out[1]})" if out else marker_words(state.markers[p - 1])
        mark = ">" if p == state.current else " "
        lines.append(_paint(f"{mark}P{p}: {status:<22} hand: {shown or '-'}", p, color))
    dragon = f"player {state.dragon}" if state.dragon is not None else "nobody"
    lines.append(f" pile: {len(state.pile)} tile(s)   dragon: {dragon}")
    return "\n".join(lines) + "\n"
