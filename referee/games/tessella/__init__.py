"""Tessella: capture four enemy pieces on the octagon-and-square diamond by
firing along lines with a backer behind.  Rules: shared/rules/tessella.md."""
from .game import TessellaGame

GAME = TessellaGame()
