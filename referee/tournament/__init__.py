"""Tournaments for a whole class: ``referee tournament CONFIG.yaml``.

The package knows no game by name and no process: it plans games (formats,
tables, planner: pure logic), has the core play each one in its own OS process
(runner, worker), remembers every finished game in an append-only journal so
an interrupted tournament resumes, and reports standings (standings, report).
"""
