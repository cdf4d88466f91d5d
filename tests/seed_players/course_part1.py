"""A course-style Part 1 module (a test fixture written for the referee's
tests): it trusts the course's Part 1 promise that every PlayerMove has
playerId 1, and crashes in last_move when that is broken."""
from collections import deque

from Model.interface import BOARD_DIM


def init(logger, playerId, numWalls, playerHomes):
    logger.write("part 1 with %d walls" % numWalls)
    return {"closed": set(), "me": playerId}


def last_move(playerData, move):
    if move.playerId != 1:
        raise ValueError("Part 1 reports every move as player 1, got %s" % move)
    (r1, c1), (r2, c2) = move.start, move.end
    if r1 == r2:
        edges = [((r1 - 1, c), (r1, c)) for c in (c1, c1 + 1)]
    else:
        edges = [((r, c1 - 1), (r, c1)) for r in (r1, r1 + 1)]
    for a, b in edges:
        playerData["closed"].update({(a, b), (b, a)})
    return playerData


def get_neighbors(playerData, r, c):
    return [[nr, nc] for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            if 0 <= nr < BOARD_DIM and 0 <= nc < BOARD_DIM and ((r, c), (nr, nc)) not in playerData["closed"]]


def get_shortest_path(playerData, r1, c1, r2, c2):
    previous = {(r1, c1): None}
    queue = deque([(r1, c1)])
    while queue:
        here = queue.popleft()
        if here == (r2, c2):
            path = []
            while here is not None:
                path.append(list(here))
                here = previous[here]
            return path[::-1]
        for square in map(tuple, get_neighbors(playerData, *here)):
            if square not in previous:
                previous[square] = here
                queue.append(square)
    return []
