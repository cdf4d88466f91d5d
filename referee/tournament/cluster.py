"""Games on a Dask distributed cluster: ``--cluster tcp://HOST:PORT``.

Why Dask and not a home-made one: its scheduler already knows which workers
are alive, hands out tasks as workers free up, and re-runs a task whose
worker died; the standard ``dask scheduler`` / ``dask worker`` commands start
it on any machine with Python.  The tournament stays in charge of everything
else: planning, the journal, resume and the reports run where the command
was typed, exactly as in a local run.

One game is one task.  On the worker it plays in the same worker process as
a local game (``python -m referee.tournament.worker``; a process per game
because the player runner kills every orphan of its process) inside a
scratch folder, and returns the whole match folder as a gzipped tar, which
is unpacked into the tournament folder here: no shared filesystem is needed
for the results.  Entrants' programs and the game's file settings must be at
the same paths on every worker (a shared folder, or the class folder copied
to each machine); boards are sent with the task.

A worker killed mid-game loses that game only: the scheduler re-runs the task
on another worker (Dask allows three such losses per task by default,
``distributed.scheduler.allowed-failures``).  The game process on the dead
worker exits by itself when its parent's pipe closes.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import tarfile
import tempfile
import threading
import uuid
from pathlib import Path
from typing import Any

import yaml

from referee.core import trees
from referee.core.errors import InputError
from referee.core.interpreter import PYTHON
from referee.core.match import MatchSpec

from .journal import GameJob
from .runner import GameFailed
from .worker import spec_to_json

FOLDER = "game"


def play_remote(spec_json: str, board_name: str | None, board_text: bytes | None) -> tuple[int, bytes, str]:
    """Runs on a Dask worker: play one game in a scratch folder; return the
    worker's exit status, the match folder as a .tar.gz, and the end of the
    worker's output (for a referee failure)."""
    data: dict[str, Any] = json.loads(spec_json)
    with tempfile.TemporaryDirectory(prefix="referee-game-") as tmp:
        scratch = Path(tmp)
        if board_text is not None:
            board = Path(data["board"])
            same = board.is_file() and hashlib.sha256(board.read_bytes()).digest() == \
                hashlib.sha256(board_text).digest()
            if not same:  # no shared filesystem: play the board that was sent
                local = scratch / "boards" / (board_name or "board.txt")
                local.parent.mkdir()
                local.write_bytes(board_text)
                data["board"] = str(local)
        data["out"] = str(scratch / FOLDER)
        errors = scratch / "worker-output.txt"
        with open(errors, "wb") as err:
            proc = subprocess.Popen([PYTHON, "-P", "-m", "referee.tournament.worker", json.dumps(data)],
                                    stdin=subprocess.PIPE, stdout=err, stderr=subprocess.STDOUT)
            try:
                code = proc.wait()
            finally:
                proc.stdin.close()
        tail = errors.read_text(errors="replace").strip().splitlines()[-1:] or ["no output"]
        return code, pack(scratch / FOLDER), tail[0][:300]


def pack(folder: Path) -> bytes:
    """A match folder as a .tar.gz (empty if the game left no folder)."""
    blob = io.BytesIO()
    with tarfile.open(fileobj=blob, mode="w:gz") as tar:
        if folder.is_dir():
            tar.add(folder, arcname=FOLDER)
    return blob.getvalue()


def unpack(blob: bytes, out: Path) -> None:
    """Replace ``out`` with the folder in ``blob`` (members checked: nothing
    outside the folder, no links or devices)."""
    if os.path.lexists(out) and not trees.remove_tree(out):
        raise GameFailed(f"the old game folder {out} could not be removed")
    out.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tar:
            for member in tar.getmembers():
                parts = Path(member.name).parts
                if not parts or parts[0] != FOLDER or ".." in parts or not (member.isfile() or member.isdir()):
                    raise GameFailed(f"unexpected entry {member.name!r} in a game folder from the cluster")
            tar.extractall(scratch, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
        if (scratch / FOLDER).is_dir():
            (scratch / FOLDER).rename(out)
    finally:
        trees.remove_tree(scratch)


def check_address(address: str) -> None:
    """One line, at once, for an address no scheduler can have (``foo``,
    ``tcp://host``, ``http://h:1``, port 0 or past 65535): Dask's Client
    took it, failed, then hung 30 s closing itself and printed a TimeoutError
    traceback after the error."""
    from distributed.comm.addressing import get_address_host_port, parse_address

    try:
        scheme, _ = parse_address(address)
        host, port = get_address_host_port(address)
    except ValueError as exc:
        problem = str(exc)
    else:
        problem = ("inproc addresses are for one process only" if scheme == "inproc"
                   else "no host" if not host
                   else f"port {port} is not between 1 and 65535" if not 0 < port < 65536 else "")
    if problem:
        raise InputError(f"--cluster {address}: not a scheduler address ({problem}); "
                         "give tcp://HOST:PORT, e.g. tcp://10.0.0.5:8786")


class DaskPlay:
    """The runner's ``play`` function for a cluster: one task per game."""

    def __init__(self, address: str, timeout: float = 15.0) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise InputError("--cluster needs the 'distributed' package: "
                             "pip install 'referee[cluster]'") from None
        check_address(address)
        try:
            self.client = Client(address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise InputError(f"--cluster {address}: cannot reach the Dask scheduler ({exc})") from None
        self._futures: set[Any] = set()
        self._lock = threading.Lock()

    def slots(self) -> int:
        """Games the cluster plays at once: its workers' threads."""
        return max(1, sum(self.client.nthreads().values()))

    def __call__(self, job: GameJob, spec: MatchSpec) -> dict[str, Any]:
        board = Path(spec.board) if spec.board is not None else None
        future = self.client.submit(play_remote, spec_to_json(spec), None if board is None else board.name,
                                    None if board is None else board.read_bytes(),
                                    key=f"referee-{job.key}-{uuid.uuid4().hex[:8]}", pure=False)
        with self._lock:
            self._futures.add(future)
        try:
            code, blob, tail = future.result()
        except Exception as exc:  # KilledWorker after repeated losses, a lost scheduler, ...
            raise GameFailed(f"game {job.key}: the cluster failed to play it: {type(exc).__name__}: {exc}") \
                from exc
        finally:
            with self._lock:
                self._futures.discard(future)
        out = Path(spec.out)
        unpack(blob, out)
        if code != 0:
            raise GameFailed(f"game {job.key}: the referee failed on a cluster worker (exit {code}): "
                             f"{tail} (folder: {out})")
        return yaml.safe_load((out / "result.yaml").read_text(encoding="utf-8"))

    def stop(self) -> None:
        """Cancel the games in flight (the tournament was interrupted)."""
        with self._lock:
            futures = list(self._futures)
        if futures:
            self.client.cancel(futures)

    def close(self) -> None:
        self.client.close()
