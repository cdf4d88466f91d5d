"""The match folder: match.yaml, board.txt, log.jsonl, step snapshots,
players/<seat>/, result.yaml.

Written so that a killed referee loses at most the step in progress: every
file but the log is replaced atomically, and the log is one JSON line per step,
flushed as soon as the step is decided."""
from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any, Iterator

import yaml

from . import files, seatfiles
from .errors import InputError, not_utf8
from .numbers import shown_value
from .settings import key_line
from .later import NO_SPACE
from .game import Game, GameState


RESERVE_NAME = ".referee-reserve"
RESERVE_BYTES = 1 << 20
"""Disk space the match folder holds back from the start, released when a
write of the referee's own finds the disk full: the log line, the snapshot
and result.yaml of a match whose player filled the disk are still written,
and the match is charged to that player (DISK_LIMIT), never voided."""


def state_hash(game: Game, state: GameState) -> str:
    return hashlib.sha256(files.canonical_json(state.to_json()).encode()).hexdigest()[:16]


def line_hash(line: bytes) -> str:
    """The hash of one log line (without its newline), chained into the next."""
    return hashlib.sha256(line).hexdigest()[:32]


class MatchFolder:
    """Writes a match folder.  ``log.jsonl`` is a hash chain: each line's
    ``prev`` is the hash of the line before (the first line's, of match.yaml),
    and result.yaml names the last line's hash and the step count, so a cut,
    edited or reordered log shows (``replay --verify``)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._log: int | None = None
        self._snapshots: int | None = None  # step_logs/, held (see _write_snapshot)
        self._seats: set[int] = set()
        self.last_hash: str | None = None

    @staticmethod
    def text_hash(text: str) -> str:
        return hashlib.sha256(text.encode()).hexdigest()

    def create(self, match_yaml: dict[str, Any], board_text: str | None) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.write_match_yaml(match_yaml)  # first: it marks the folder as a match folder
        (self.root / "step_logs").mkdir(exist_ok=True)
        (self.root / "players").mkdir(exist_ok=True)
        if board_text is not None:
            files.write_text(self.root / "board.txt", board_text)
        self._reserve()
        self._log = os.open(self.root / "log.jsonl",
                            os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)

    def _reserve(self) -> None:
        """Set :data:`RESERVE_BYTES` aside (really allocated, not a sparse
        file); without the room for it the match goes on without."""
        try:
            fd = os.open(self.root / RESERVE_NAME, os.O_WRONLY | os.O_CREAT | os.O_TRUNC
                         | getattr(os, "O_CLOEXEC", 0), 0o600)
        except OSError:
            return
        try:
            try:
                os.posix_fallocate(fd, 0, RESERVE_BYTES)
            except (AttributeError, OSError):
                block = bytes(65536)
                for _ in range(RESERVE_BYTES // len(block)):
                    os.write(fd, block)
        except OSError:
            os.close(fd)
            self._release()
            return
        os.close(fd)

    def _release(self) -> bool:
        """Give the reserve back; whether there was one."""
        try:
            os.unlink(self.root / RESERVE_NAME)
        except OSError:
            return False
        return True

    def _with_room(self, write, *args: Any) -> Any:
        """``write(*args)``; if the disk is full, again with the reserve released."""
        try:
            return write(*args)
        except OSError as exc:
            if exc.errno not in NO_SPACE or not self._release():
                raise
        return write(*args)

    def write_match_yaml(self, match_yaml: dict[str, Any]) -> None:
        text = files.yaml_text(match_yaml)
        files.write_text(self.root / "match.yaml", text)
        self.last_hash = line_hash(text.encode("utf-8"))

    def keep_inputs(self, paths: dict[str, str]) -> dict[str, str]:
        """Copy input files named by settings into ``inputs/``; returns the
        settings rewritten to those copies, relative to the match folder."""
        kept = {}
        for key, path in paths.items():
            target = self.root / "inputs" / f"{key}-{Path(path).name}"
            target.parent.mkdir(exist_ok=True)
            shutil.copyfile(path, target)
            kept[key] = str(target.relative_to(self.root))
        return kept

    def seat_dir(self, player: int) -> Path:
        """The player's private folder (created with its step_logs/ on first use)."""
        path = self.root / "players" / f"p{player}"
        if player not in self._seats:
            (path / "step_logs").mkdir(parents=True, exist_ok=True)
            self._seats.add(player)
        return path

    def write_snapshot(self, step: int, text: str) -> None:
        self._with_room(self._write_snapshot, f"step_{step}.txt", text.encode("utf-8"))

    def _write_snapshot(self, name: str, data: bytes) -> None:
        """Through ``step_logs/``'s fd, held from the first snapshot on (see
        :func:`files.replace_at`)."""
        folder = self.root / "step_logs"
        if not seatfiles.HELD:  # (Windows: no directory descriptors)
            files.write_bytes(folder / name, data)
            return
        try:
            if self._snapshots is None:
                self._snapshots = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
            files.replace_at(self._snapshots, name, data)
        except OSError as exc:
            exc.filename = str(folder / name)  # (not the temporary name, relative to an fd)
            raise

    def close(self) -> None:
        """Let go of what is held open (the match is over, or failed)."""
        for fd in (self._log, self._snapshots):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._log = self._snapshots = None

    def append_log(self, record: dict[str, Any]) -> None:
        """Append one whole line (see :meth:`_append`), with the reserve
        released if the disk is full."""
        self._with_room(self._append, record)

    def _append(self, record: dict[str, Any]) -> None:
        """Append one whole line, or nothing: a failed or short write (disk
        full) is cut back off before the error goes up."""
        assert self._log is not None
        record["prev"] = self.last_hash
        line = json.dumps(record, separators=(",", ":")).encode("utf-8")
        end = os.lseek(self._log, 0, os.SEEK_END)
        try:
            written = os.write(self._log, line + b"\n")
            if written != len(line) + 1:
                raise OSError(errno.ENOSPC, "short write (disk full?)", str(self.root / "log.jsonl"))
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.ftruncate(self._log, end)
            if exc.filename is None:
                exc.filename = str(self.root / "log.jsonl")
            raise
        self.last_hash = line_hash(line)

    def write_result(self, result: dict[str, Any]) -> None:
        if self._log is not None:  # (step_logs/'s fd stays for close(): after a referee error
            os.close(self._log)    # the worker thread may still be writing a snapshot through it)
            self._log = None
        self._with_room(files.write_yaml, self.root / "result.yaml", result)
        self._release()


def _load_yaml(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("missing (is this a match folder?)", str(path)) from None
    except IsADirectoryError:
        raise InputError("not a file (a directory)", str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", str(path)) from None
    except UnicodeDecodeError as exc:
        raise not_utf8(path, exc) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InputError(f"not valid YAML: {getattr(exc, 'problem', exc)}", str(path),
                         mark.line + 1 if mark else None) from None
    if not isinstance(data, dict):
        raise InputError("expected a mapping at the top level", str(path), 1)
    return data


MATCH_YAML_TYPES: dict[str, tuple[type, ...]] = {
    "game": (str,), "variant": (str, type(None)), "board": (dict, type(None)),
    "players": (list,), "seed": (int,), "key": (str, type(None)), "policy": (str, type(None)),
    "settings": (dict, type(None)), "limits": (dict, type(None)), "initial_hash": (str, type(None)),
}
"""The match.yaml keys that replay, verify and rerun compute with, and the
types they must have: a hand-edited or forged file is one line, not a
traceback from deep inside a replay."""


def read_match_yaml(root: Path) -> dict[str, Any]:
    path = Path(root) / "match.yaml"
    data = _load_yaml(path)
    for key, kinds in MATCH_YAML_TYPES.items():
        if key in data and not _is_a(data[key], kinds):
            raise InputError(f"{key}: expected {_kind_words(kinds)}, got {shown_value(data[key])}",
                             str(path), _top_key_line(path, key))
    players = data.get("players")
    if isinstance(players, list):
        for i, seat in enumerate(players, start=1):
            if not isinstance(seat, dict) or not isinstance(seat.get("name", ""), str):
                raise InputError(f"players: seat {i} is not a mapping with a name and a command",
                                 str(path), _top_key_line(path, "players"))
        if not players:
            raise InputError("players: no seats", str(path), _top_key_line(path, "players"))
    board = data.get("board")
    if isinstance(board, dict) and not _is_a(board.get("file"), (str, type(None))):
        raise InputError(f"board.file: expected a file name, got {shown_value(board.get('file'))}",
                         str(path), _top_key_line(path, "board"))
    return data


def _is_a(value: Any, kinds: tuple[type, ...]) -> bool:
    """isinstance, except that YAML's true/false are not integers."""
    if isinstance(value, bool) and bool not in kinds:
        return False
    return isinstance(value, kinds)


def _kind_words(kinds: tuple[type, ...]) -> str:
    words = {str: "text", int: "an integer", float: "a number", dict: "a mapping", list: "a list",
             bool: "true or false", type(None): "null"}
    named = [words[float if k is int and float in kinds else k] for k in kinds]
    return " or ".join(dict.fromkeys(named))


def _top_key_line(path: Path, key: str) -> int | None:
    """The line of a top-level key in a YAML file we wrote (for the message)."""
    try:
        return key_line(path.read_text(encoding="utf-8"), key)
    except (OSError, UnicodeDecodeError):
        return None


def read_result_yaml(root: Path) -> dict[str, Any] | None:
    path = Path(root) / "result.yaml"
    return _load_yaml(path) if path.exists() else None


REQUIRED_LOG_KEYS = ("step", "player", "verdict", "hash")
_NUMBER = (int, float, type(None))
RECORD_TYPES: dict[str, tuple[type, ...]] = {
    "step": (int,), "player": (int,), "verdict": (str,), "hash": (str,),
    "prev": (str, type(None)), "kind": (str, type(None)), "decision": (str, type(None)),
    "applied": (str, type(None)), "fault": (str, type(None)), "message": (str,),
    "stdout": (str,), "stderr": (str,), "events": (list, type(None)), "scores": (dict, type(None)),
    "notes": (list,), "repaired": (list,), "auto": (bool,), "resigned": (bool,),
    "decision_cut": (bool,), "file_problem": (bool,), "exit": (int, type(None)),
    "orphans_killed": (int, type(None)), "wall_ms": _NUMBER, "cpu_ms": _NUMBER,
    "peak_kb": _NUMBER, "bank_ms": _NUMBER, "grace_ms": _NUMBER, "start_ms": _NUMBER,
}
"""The type of every field the referee writes into a log record: replay,
verify, rerun and the pages compute with them, so a hand-edited line is
refused here, naming its line, instead of failing deep inside them."""


def parse_record(line: bytes | str, path: Path, number: int) -> dict[str, Any] | None:
    """One log line as a record (None for a blank line); an InputError naming
    the file, line and what is wrong for a damaged one."""
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise not_utf8(path, exc, number) from None
    if not line.strip():
        return None
    try:
        record = json.loads(line)
    except ValueError as exc:
        raise InputError(f"not valid JSON: {getattr(exc, 'msg', exc)}", str(path), number,
                         getattr(exc, "colno", None)) from None
    if not isinstance(record, dict):
        raise InputError("expected a JSON object", str(path), number)
    missing = [k for k in REQUIRED_LOG_KEYS if k not in record]
    if missing:
        raise InputError(f"record lacks {', '.join(missing)}", str(path), number)
    for key, kinds in RECORD_TYPES.items():
        if key in record and not _is_a(record[key], kinds):
            raise InputError(f"{key}: expected {_kind_words(kinds)}, got {shown_value(record[key])}",
                             str(path), number)
    for key in ("step", "player"):
        if record[key] < 1:
            raise InputError(f"{key}: expected a number of 1 or more, got {record[key]}", str(path), number)
    if any(not isinstance(e, dict) for e in record.get("events") or ()):
        raise InputError("events: expected a list of mappings", str(path), number)
    return record


def read_log(root: Path) -> Iterator[dict[str, Any]]:
    """The log's records; an InputError naming the line for a damaged one."""
    path = Path(root) / "log.jsonl"
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        raise InputError("missing (is this a match folder?)", str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", str(path)) from None
    with handle:
        try:
            for number, line in enumerate(handle, start=1):
                record = parse_record(line, path, number)
                if record is not None:
                    yield record
        except IsADirectoryError:
            raise InputError("not a file (a directory)", str(path)) from None
