"""A course-engine style Quoridor module (test fixture): BFS paths, moves
along them, never places walls.  Uses a relative import like the starter."""
from collections import deque

from Model.interface import PlayerMove, BOARD_DIM
from .playerData import PlayerData

GOALS = {1: lambda r, c: r == 0, 2: lambda r, c: r == BOARD_DIM - 1,
         3: lambda r, c: c == BOARD_DIM - 1, 4: lambda r, c: c == 0}


def init(logger, playerId, numWalls, playerHomes):
    logger.write(f"init player {playerId} with {numWalls} walls")
    return PlayerData(logger, playerId, playerHomes, numWalls)


def last_move(playerData, move):
    if move.move:
        playerData.locations[move.playerId - 1] = (move.r2, move.c2)
    else:
        playerData.walls.append((move.r1, move.c1, move.r2, move.c2))
        playerData.wallsLeft[move.playerId - 1] -= 1
    playerData.moves += 1
    return playerData


def player_invalidated(playerData, playerId):
    playerData.locations[playerId - 1] = False
    return playerData


def get_neighbors(playerData, r, c):
    return [[r + dr, c + dc] for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
            if playerData.open(r, c, r + dr, c + dc)]


def _bfs(playerData, start, done):
    previous = {start: None}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if done(*here):
            path = []
            while here is not None:
                path.append(here)
                here = previous[here]
            return path[::-1]
        for r, c in get_neighbors(playerData, *here):
            if (r, c) not in previous:
                previous[(r, c)] = here
                queue.append((r, c))
    return []


def get_shortest_path(playerData, r1, c1, r2, c2):
    return _bfs(playerData, (r1, c1), lambda r, c: (r, c) == (r2, c2))


def move(playerData):
    me = playerData.playerId
    here = playerData.locations[me - 1]
    path = _bfs(playerData, tuple(here), GOALS[me])
    target = path[1]
    others = [tuple(p) for i, p in enumerate(playerData.locations) if p and i != me - 1]
    if target in others:  # keep it simple: step aside to any free neighbour
        free = [tuple(n) for n in get_neighbors(playerData, *here) if tuple(n) not in others]
        target = free[0]
    return PlayerMove(me, True, here[0], here[1], target[0], target[1])
