"""A file-protocol referee for AI board-game assignments."""

__version__ = "0.1.0"
