"""Quoridor for 1 (practice), 2 or 4 players, with the course engine's module
players.  Rules: shared/rules/quoridor.md; formats: docs/games/quoridor.md."""
from .game import QuoridorGame
from .part1_check import part1_command

GAME = QuoridorGame()
CHECKS = [part1_command]  # mounted under `referee check`
