"""The course_team fixture's player data: pawns, walls, and breadth-first
searches over the squares walls do not separate."""
from collections import deque

from Model.interface import BOARD_DIM

GOALS = {1: lambda r, c: r == 0, 2: lambda r, c: r == BOARD_DIM - 1,
         3: lambda r, c: c == BOARD_DIM - 1, 4: lambda r, c: c == 0}


def wall_edges(r1, c1, r2, c2):
    """The two square-to-square steps a wall closes."""
    if r1 == r2:  # horizontal, between rows r1-1 and r1
        return [frozenset({(r1 - 1, c), (r1, c)}) for c in (c1, c1 + 1)]
    return [frozenset({(r, c1 - 1), (r, c1)}) for r in (r1, r1 + 1)]


class TeamData:
    __slots__ = ("logger", "playerId", "pawns", "wallsLeft", "walls", "closed", "turns", "walled")

    def __init__(self, logger, playerId, playerHomes, numWalls):
        self.logger = logger
        self.playerId = playerId
        self.pawns = [tuple(home) if home else False for home in playerHomes]
        self.wallsLeft = [numWalls] * len(playerHomes)
        self.walls = []
        self.closed = set()
        self.turns = 0
        self.walled = False

    def add_wall(self, r1, c1, r2, c2):
        self.walls.append((r1, c1, r2, c2))
        self.closed.update(wall_edges(r1, c1, r2, c2))

    def neighbors(self, r, c, closed=None):
        closed = self.closed if closed is None else closed
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= nr < BOARD_DIM and 0 <= nc < BOARD_DIM and frozenset({(r, c), (nr, nc)}) not in closed:
                yield nr, nc

    def path(self, start, done, closed=None):
        previous = {start: None}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            if done(here):
                path = []
                while here is not None:
                    path.append(list(here))
                    here = previous[here]
                return path[::-1]
            for square in self.neighbors(*here, closed=closed):
                if square not in previous:
                    previous[square] = here
                    queue.append(square)
        return []

    def distances(self, player):
        """Steps to the goal from every square that can reach it."""
        goal = GOALS[player]
        queue = deque((r, c) for r in range(BOARD_DIM) for c in range(BOARD_DIM) if goal(r, c))
        distance = {square: 0 for square in queue}
        while queue:
            here = queue.popleft()
            for square in self.neighbors(*here):
                if square not in distance:
                    distance[square] = distance[here] + 1
                    queue.append(square)
        return distance

    def legal_walls(self):
        """Horizontal walls across rows 2-3 that overlap or cross nothing and
        leave every pawn a way to its goal."""
        found = []
        for r in (2, 3):
            for c in range(BOARD_DIM - 1):
                wall = (r, c, r, c + 2)
                if any(self._clash(wall, other) for other in self.walls):
                    continue
                closed = self.closed | set(wall_edges(*wall))
                if all(self.path(tuple(p), lambda sq, g=GOALS[i + 1]: g(*sq), closed)
                       for i, p in enumerate(self.pawns) if p):
                    found.append(wall)
        return found

    @staticmethod
    def _clash(a, b):
        if set(wall_edges(*a)) & set(wall_edges(*b)):
            return True  # they share a segment
        return (a[0] + a[2], a[1] + a[3]) == (b[0] + b[2], b[1] + b[3])  # same middle: they cross
