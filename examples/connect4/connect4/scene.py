"""The HTML replay's frames of Connect Four (declared in pyproject.toml's
``referee.scenes`` entry points): the grid, the piece just dropped and the
winning line; draw.js turns one frame into SVG."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .rules import ConnectFourState

SCRIPT = Path(__file__).resolve().parent / "draw.js"


def scene(prev: ConnectFourState | None, record: dict[str, Any] | None,
          state: ConnectFourState) -> dict[str, Any]:
    out: dict[str, Any] = {"grid": [list(row) for row in state.grid],
                           "line": [list(cell) for cell in state.line], "connect": state.connect}
    for event in (record or {}).get("events") or []:
        if event.get("type") == "drop":
            out["last"] = [event["row"], event["col"]]
    return out
