"""Helpers the scene builders share."""
from __future__ import annotations

from typing import Any

from referee.core.registry import get_game


def applied_decision(game_name: str, prev: Any, record: dict[str, Any] | None) -> Any:
    """The decision the referee applied at this step (parsed on the state
    before it), or None for step 0, a fault without a move, or a text that no
    longer parses (the replay then simply draws no arrow)."""
    if prev is None or record is None or not record.get("applied"):
        return None
    try:
        return get_game(game_name).parse_decision(prev, record["applied"])
    except Exception:  # a page must still be written for a damaged log
        return None
