"""A match folder followed while the referee writes it: the frames of the
replay page (record and scene per step), read from ``log.jsonl`` as lines
are appended and recomputed from the start position like the replay's, and
the result once ``result.yaml`` is there.

Used by the human's page (``--player human:web``: scenes for that seat's
eyes only) and by ``referee watch`` (everything, as the replay shows)."""
from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from referee.core.errors import InputError
from referee.replay import ReplayError, advance, load

from .replay_page import frame_record, page_data_head, result_summary
from .scenes import scene_module


class LiveFolder:
    """Follows one match folder.  ``viewer`` is the seat whose eyes the
    scenes are for (hidden information of the others removed), or None for
    a spectator who sees everything, as the replay does."""

    def __init__(self, root: Path, viewer: int | None = None) -> None:
        self.root = Path(root)
        self.viewer = viewer
        self.lock = threading.Lock()
        self.replay = None
        self.head: dict[str, Any] | None = None
        self.frames: list[dict[str, Any]] = []
        self.state = None
        self.offset = 0  # bytes of log.jsonl read (whole lines only)
        self.result: dict[str, Any] | None = None
        self.problem: str | None = None

    def poll(self) -> None:
        """Read what was appended since the last call."""
        with self.lock:
            if self.replay is None and not self._start():
                return
            if self.problem is None:
                self._follow()
            if self.result is None and (self.root / "result.yaml").is_file():
                self._follow()  # the last lines were written before the result
                try:
                    fresh = load(self.root)
                except (InputError, OSError, ValueError):
                    return
                names = {p["id"]: p["name"] for p in self.head["players"]}
                self.result = result_summary(fresh.result, names) if fresh.result else None

    def _start(self) -> bool:
        if not (self.root / "match.yaml").is_file():
            return False
        try:
            self.replay = load(self.root)
        except (InputError, OSError, ValueError) as exc:
            self.problem = str(exc)
            return False
        self.head = page_data_head(self.replay)
        self.state = self.replay.initial
        self._add(None, self.state, None)
        return True

    def _follow(self) -> None:
        try:
            with open(self.root / "log.jsonl", "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return
        end = data.rfind(b"\n") + 1  # a line still being written waits for the next poll
        for line in data[:end].splitlines():
            self.offset += len(line) + 1
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                state = advance(self.replay.game, self.state, record)
            except (ValueError, ReplayError, KeyError) as exc:
                self.problem = f"the log stops making sense: {exc}"
                return
            self._add(record, state, self.state)
            self.state = state

    def _add(self, record: dict[str, Any] | None, state, prev) -> None:
        module = scene_module(self.replay.game.name)
        if module is not None:
            scene = module.scene(prev, record, state)
            hide = getattr(module, "for_viewer", None)
            if hide is not None and self.viewer is not None:
                scene = hide(scene, self.viewer)
        else:
            scene = {"text": self.replay.game.render(state, self.viewer, False)}
        self.frames.append({"record": None if record is None else frame_record(record), "scene": scene})

    def since(self, first: int) -> dict[str, Any]:
        """What a page that has ``first`` frames needs: the rest, the result."""
        self.poll()
        with self.lock:
            return {"head": self.head if first == 0 else None, "first": first,
                    "frames": self.frames[first:], "result": self.result,
                    "problem": self.problem, "started": self.replay is not None}
