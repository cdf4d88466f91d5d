"""Scene builders: what one frame of a replay draws.

A game's scene is a module declared in the ``referee.scenes`` entry-point
group under the game's name (the built-in games' are these modules, declared
in setup.cfg; a plugin declares its own).  The module exposes

- ``scene(prev, record, state) -> dict``: the JSON-able data of one frame
  (``prev`` is the state before the step, None for the start position;
  ``record`` is the log line, None for step 0);
- ``SCRIPT``: the path of the JavaScript that draws a frame: it sets
  ``Referee.draw(scene, data, frame) -> {board, info}`` using the helpers of
  static/svg.js (``R.root``, ``R.svg``, ``R.text``...);
- optionally ``page_extras() -> dict``: data sent once per page.

A game without a scene is shown as its terminal drawing, so a new game gets a
working replay page before anyone writes its pictures.

For the page a human plays on (``--player human:web``) a module may also give
``for_viewer(scene, viewer)`` (the scene without the others' hidden
information; a game without hidden information needs none) and
``previews(state, player)`` (what each legal decision would do, keyed by its
text), and ``PLAY_SCRIPT``, the path of the JavaScript that turns mouse
clicks into decision text (it sets ``Referee.play(ctx)``, see
static/play_common.js); without it the human types decisions into the page's
text box.
"""
from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

from referee.core import registry
from referee.core.errors import InputError

STATIC = Path(__file__).resolve().parents[1] / "static"
"""Where the built-in scenes keep their scripts."""


def scene_module(game_name: str) -> ModuleType | None:
    """The scene module of ``game_name``, or None if it declares none; an
    InputError naming the package if the declared one cannot be used."""
    target = registry.scene_target(game_name)
    if target is None:
        return None
    try:
        module = importlib.import_module(target)
    except (Exception, SystemExit) as exc:
        raise InputError(f"the replay scene of {game_name!r} ({target}) failed to load: "
                         f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
                         ) from None
    if not callable(getattr(module, "scene", None)):
        raise InputError(f"the replay scene of {game_name!r} ({target}) has no scene(prev, record, state)")
    return module


def script_text(module: ModuleType, name: str = "SCRIPT") -> str:
    """The drawing script of a scene module (``name``: or its PLAY_SCRIPT),
    or '' when it names none (the page then shows each frame's ``text``, if
    the scene gives one)."""
    path = getattr(module, name, None)
    if not path:
        return ""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read the replay script {path}: {exc.strerror or exc}") from None
