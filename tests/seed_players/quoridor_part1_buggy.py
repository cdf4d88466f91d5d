"""A Part 1 module whose shortest path ignores walls (test fixture)."""


def init(logger, playerId, numWalls, playerHomes):
    return {"walls": []}


def last_move(playerData, move):
    if not move.move:
        playerData["walls"].append((move.r1, move.c1, move.r2, move.c2))
    return playerData


def get_neighbors(playerData, r, c):
    return [[r + dr, c + dc] for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
            if 0 <= r + dr < 9 and 0 <= c + dc < 9]


def get_shortest_path(playerData, r1, c1, r2, c2):
    path = [(r1, c1)]
    while path[-1] != (r2, c2):
        r, c = path[-1]
        if r != r2:
            r += 1 if r2 > r else -1
        else:
            c += 1 if c2 > c else -1
        path.append((r, c))
    return path
