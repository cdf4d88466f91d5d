"""Shared helpers: run the CLI as a user would, and build player programs."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOARDS = ROOT / "boards"


def referee(*args: str, cwd: Path | None = None, timeout: float = 300,
            input: str | None = None) -> subprocess.CompletedProcess:
    """Run the real `referee` command (the installed console script)."""
    exe = Path(sys.executable).with_name("referee")
    return subprocess.run([str(exe), *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, input=input)


@pytest.fixture
def make_player(tmp_path):
    """Write a Python player program; returns the command line to run it."""

    def make(name: str, body: str) -> str:
        path = tmp_path / f"{name}.py"
        path.write_text(textwrap.dedent(body), encoding="utf-8")
        return f"{sys.executable} {path}"

    return make
