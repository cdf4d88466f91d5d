"""Atomic file writes: a reader (a player, a resumed tournament, a TA's
editor) never sees half a file, and a killed referee never leaves one."""
from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

import yaml


def write_plain(path: Path, text: str) -> None:
    """A plain write, for files nobody reads while they are written (a
    player's inputs are written before it starts; a new snapshot is only
    read once its step is logged)."""
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def write_text(path: Path, text: str) -> None:
    """Replace ``path`` atomically; on any error (disk full) the temporary
    file is removed and the old file, if any, is left as it was."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def yaml_text(data: Any) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def write_yaml(path: Path, data: Any) -> None:
    write_text(path, yaml_text(data))


def canonical_json(data: Any) -> str:
    """The one serialisation used for hashing: key order and spacing fixed."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"))
