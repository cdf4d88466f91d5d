"""Terminal drawing: each tile a small picture of its four paths, markers as
player digits on the port they stand on, and (in colour) every marker's trail
coloured in its player's colour.

A path is drawn as the same letter at both of its ends, each letter next to
the port it stands for (``a`` meets ``a``): unlike lines, letters never cross
or blur in a cell a few characters wide, and they read the same in any
terminal (plain ASCII).  The same pictures show a player's hand, so a human
sees what ``T i rot r c`` will place; the terminal replay uses them too."""
from __future__ import annotations

from typing import Sequence

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
# (row, col) of each port's letter inside the box: just inside the port.
LETTER_AT = ((1, 3), (1, 7), (1, WIDTH - 1), (3, WIDTH - 1), (3, 7), (3, 3), (3, 1), (1, 1))
LETTERS = "abcd"
LEGEND = " tiles: a path joins the two ports marked with the same letter; #tile/rotation"
START_HELP = (" start positions (S p), two per edge cell, clockwise: 0-11 along the top (left to right),\n"
              " 12-23 down the right side, 24-35 along the bottom (right to left), 36-47 up the left side")


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


def tile_picture(tile: int, rotation: int, owners: dict[int, int] | None = None,
                 color: bool = False) -> list[list[str]]:
    """The inside of one cell box (HEIGHT - 1 rows of WIDTH - 1 characters):
    each path's letter at its two ports, ``#tile/rot`` in the middle.
    ``owners`` maps a path (its index in ``pairs``) to the player whose trail
    crossed it, for colour."""
    box = [[" "] * (WIDTH - 1) for _ in range(HEIGHT - 1)]
    label = f"#{tile}/{rotation}"
    start = (WIDTH - 1 - len(label)) // 2
    for k, ch in enumerate(label):
        box[1][start + k] = ch
    for k, pair in enumerate(TILES[tile].pairs(rotation)):
        for port in pair:
            r, c = LETTER_AT[port]
            box[r - 1][c - 1] = _paint(LETTERS[k], (owners or {}).get(k), color)
    return box


def hand_pictures(hand: Sequence[int]) -> list[str]:
    """A hand as tile pictures side by side at rotation 0, each under its
    index (the ``i`` of ``T i rot r c``)."""
    if not hand:
        return []
    border = ("+" + "-" * (WIDTH - 1)) * len(hand) + "+"
    rows = ["".join(f" i={i}: #{tile}".ljust(WIDTH) for i, tile in enumerate(hand)).rstrip(), border]
    pictures = [tile_picture(tile, 0) for tile in hand]
    for r in range(HEIGHT - 1):
        rows.append("".join("|" + "".join(p[r]) for p in pictures) + "|")
    rows.append(border)
    return rows


def render(state: TsuroState, viewer: int | None = None, color: bool = False) -> str:
    """The board and one line per player.  Hands other than ``viewer``'s are
    hidden (None: a spectator's or a replay's view, every hand shown); the
    viewer's own hand is also drawn as pictures."""
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
            pairs = TILES[tile].pairs(rotation)
            owners = {k: trails[(r, c, *pair)] for k, pair in enumerate(pairs) if (r, c, *pair) in trails}
            for dr, line in enumerate(tile_picture(tile, rotation, owners, color)):
                for dc, ch in enumerate(line):
                    canvas[r * HEIGHT + 1 + dr + MARGIN][c * WIDTH + 1 + dc + MARGIN] = ch
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
    lines = _labelled(["".join(line).rstrip() for line in canvas])
    lines.append(LEGEND)
    for p in range(1, state.players + 1):
        out = state.out[p - 1]
        hand = state.hands[p - 1]
        shown = " ".join(map(str, hand)) if viewer in (None, p) else f"{len(hand)} hidden"
        status = f"OUT ({out[1]})" if out else marker_words(state.markers[p - 1])
        mark = ">" if p == state.current else " "
        lines.append(_paint(f"{mark}P{p}: {status:<22} hand: {shown or '-'}", p, color))
    dragon = f"player {state.dragon}" if state.dragon is not None else "nobody"
    lines.append(f" pile: {len(state.pile)} tile(s)   dragon: {dragon}")
    if state.step_kind() == "setup":
        lines.append(START_HELP)
    if viewer is not None and 1 <= viewer <= state.players and state.hands[viewer - 1]:
        lines.append(f" your hand (player {viewer}) at rotation 0; rot turns a tile clockwise:")
        lines += [" " + line for line in hand_pictures(state.hands[viewer - 1])]
        lines += landings(state, viewer)
    return "\n".join(lines) + "\n"


GUTTER = 4  # room left of the board for the row numbers


def _labelled(board: list[str]) -> list[str]:
    """The drawn board with column numbers above and row numbers on the
    left, each at the middle of its cell (the ``r c`` of ``T i rot r c``)."""
    head = [" "] * (GUTTER + MARGIN + WIDTH * geo.SIZE + 2)
    for c in range(geo.SIZE):
        at = GUTTER + MARGIN + c * WIDTH + WIDTH // 2 - 1
        head[at:at + 2] = f"c{c}"
    out = ["".join(head).rstrip()]
    for i, line in enumerate(board):
        r, inside = divmod(i - MARGIN, HEIGHT)
        label = f"r{r}" if 0 <= r < geo.SIZE and inside == HEIGHT // 2 else ""
        out.append(f"{label:>{GUTTER - 1}} {line}".rstrip())
    return out


SIDES = ("top", "top", "right", "right", "bottom", "bottom", "left", "left")


def _spot(facing: geo.Point) -> str:
    """'0 1 left, faces 0 0': the cell a marker stands on, the side it
    stands at, and the cell in front of it (where its next tile goes)."""
    row, col, port = geo.across(facing)
    return f"{row} {col} {SIDES[port]}, faces {facing[0]} {facing[1]}"


def landings(state: TsuroState, viewer: int) -> list[str]:
    """Where the viewer's marker goes with each hand tile and rotation placed
    on the cell in front of it: the effect of a move, not only its text."""
    facing = state.markers[viewer - 1]
    if facing is None or state.out[viewer - 1] is not None or state.step_kind() != "play":
        return []
    row, col = facing[:2]
    if not geo.on_board(row, col) or state.cells[geo.index(row, col)] is not None:
        return []
    lines = [f" placed on row {row} col {col} (in front of your marker), your marker would go to:"]
    for i, tile in enumerate(state.hands[viewer - 1]):
        ends = []
        for rot in range(4):
            result = geo.place(state.cells, state.active_markers(), tile, rot, row, col)
            gone = result.eliminated.get(viewer)
            ends.append(f"rot {rot}: " + (f"OUT ({gone})" if gone else _spot(result.markers[viewer])))
        lines.append(f"   i={i} #{tile}:".ljust(13) + " | ".join(ends))
    return lines
