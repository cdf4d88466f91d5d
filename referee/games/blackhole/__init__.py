"""Black Hole Escape: slide your ships onto the black hole to save them;
first to save two wins.  Rules: shared/rules/blackhole.md."""
from .game import BlackHoleGame

GAME = BlackHoleGame()
