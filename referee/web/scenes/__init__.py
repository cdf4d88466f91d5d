"""Per-game scene builders: what one frame of a replay draws.

A module ``scenes/<game>.py`` exposes ``scene(prev, record, state) -> dict``
(``prev`` is the state before the step, None for the start position; ``record``
is the log line, None for step 0) and is paired with ``static/draw_<game>.js``.
A game without a module is shown as its terminal drawing, so a new game gets a
working replay page before anyone writes its pictures.

For the page a human plays on (``--player human:web``) a module may also give
``for_viewer(scene, viewer)`` (the scene without the others' hidden
information; a game without hidden information needs none) and
``previews(state, player)`` (what each legal decision would do, keyed by its
text); ``static/play_<game>.js`` turns mouse clicks into decision text, and
without it the human types decisions into the page's text box.
"""
from __future__ import annotations

import importlib
from types import ModuleType


def scene_module(game_name: str) -> ModuleType | None:
    try:
        return importlib.import_module(f"{__name__}.{game_name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{game_name}":
            raise
        return None
