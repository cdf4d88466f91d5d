"""The Python the referee starts its own helpers with (seat hosts, built-in
and module players, tournament workers, the watchdog).

``sys.executable`` is the path the referee was started by, as typed: run as
``../.venv/bin/python -m referee`` it goes through the folder the command was
typed in, which a seat's sandbox does not show (it shows the installation,
not the way to it), and every sandboxed seat failed to start.  So the folder
is resolved (links and ``..`` followed, as the kernel would) and the name is
kept: a venv's ``python`` is a link to the base interpreter, and only started
by its own name does it find its venv."""
from __future__ import annotations

import os
import sys


def own_python(executable: str = sys.executable) -> str:
    """``executable`` as an absolute path through real folders, its own name kept."""
    if not executable:
        return executable
    folder, name = os.path.split(os.path.abspath(executable))
    return os.path.join(os.path.realpath(folder), name)


PYTHON = own_python()
