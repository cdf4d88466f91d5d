"""The module's own state, in the course's usual style: a mutable object
updated by last_move."""
from Model.interface import BOARD_DIM


class PlayerData:
    def __init__(self, logger, playerId, homes, numWalls):
        self.logger = logger
        self.playerId = playerId
        self.locations = list(homes)
        self.walls = []
        self.wallsLeft = [numWalls] * len(homes)
        self.moves = 0

    def open(self, r, c, r2, c2):
        """Whether a step between two adjacent squares crosses no wall."""
        if not (0 <= r2 < BOARD_DIM and 0 <= c2 < BOARD_DIM):
            return False
        for (a, b, a2, b2) in self.walls:
            if a == a2 and r != r2 and a == max(r, r2) and b in (c - 1, c):
                return False
            if b == b2 and c != c2 and b == max(c, c2) and a in (r - 1, r):
                return False
        return True
