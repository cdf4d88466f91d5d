"""A course-style Quoridor player package (a test fixture written for the
referee's tests, in the shape of the course's StudentPlayers/<team>/).

It uses every attribute of the course's PlayerMove (playerId, move, start,
end, r1..c2, getCopy, its printed form), BOARD_DIM, logger.write and
logger.error; keeps state in move() (it places exactly one wall per game,
remembered by a flag set in move()); draws from ``random`` (which wall, which
of several equally short steps); and crashes in last_move on purpose when the
wall W 1 0 1 2 is reported, so tests can see a crash charged where it happens.
"""
import random

from Model.interface import BOARD_DIM, PlayerMove

from .board import TeamData

TRIGGER = (1, 0, 1, 2)
"""A wall that makes last_move raise (on purpose)."""


def init(logger, playerId, numWalls, playerHomes):
    logger.write("course_team: player %d of %d, %d walls, board %dx%d"
                 % (playerId, len(playerHomes), numWalls, BOARD_DIM, BOARD_DIM))
    if numWalls <= 0:
        logger.error("course_team: no walls to place")
    return TeamData(logger, playerId, playerHomes, numWalls)


def last_move(playerData, move):
    seen = move.getCopy()
    playerData.logger.write(str(seen))
    if move.move:
        if tuple(playerData.pawns[move.playerId - 1]) != move.start:
            playerData.logger.error("pawn %d was not on %s: %r" % (move.playerId, move.start, move))
        playerData.pawns[move.playerId - 1] = move.end
    else:
        if (move.r1, move.c1, move.r2, move.c2) == TRIGGER:
            raise RuntimeError("last_move crashes on purpose at %s" % move)
        playerData.add_wall(move.r1, move.c1, move.r2, move.c2)
        playerData.wallsLeft[move.playerId - 1] -= 1
    return playerData


def player_invalidated(playerData, playerId):
    playerData.pawns[playerId - 1] = False
    return playerData


def get_neighbors(playerData, r, c):
    return [[nr, nc] for nr, nc in playerData.neighbors(r, c)]


def get_shortest_path(playerData, r1, c1, r2, c2):
    return playerData.path((r1, c1), lambda square: square == (r2, c2))


def move(playerData):
    me = playerData.playerId
    playerData.turns += 1
    if not playerData.walled and playerData.turns >= 2 and playerData.wallsLeft[me - 1] > 0:
        walls = playerData.legal_walls()
        if walls:
            playerData.walled = True  # kept in move(): the next turns race
            return PlayerMove(me, False, *random.choice(walls))
    here = tuple(playerData.pawns[me - 1])
    distance = playerData.distances(me)
    taken = {tuple(p) for p in playerData.pawns if p}
    steps = [sq for sq in playerData.neighbors(*here) if sq not in taken]
    best = [sq for sq in steps if distance.get(sq, 999) < distance.get(here, 999)]
    target = random.choice(best or steps)
    return PlayerMove(me, True, here[0], here[1], target[0], target[1])
