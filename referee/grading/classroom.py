"""``referee grade CONFIG --submissions DIR``: a whole class.

Every subfolder of DIR is one submission, graded as ``--submission`` would
grade it; ``--jobs N`` grades N at once, one game at a time each.
Each gets its folder under the results folder, with its result file and its
match folders, and ``grades.csv`` lists them all.  A submission is played
again only when its content changed (a hash of its files), the config
changed, or the referee did: a TA can rerun the command after late
submissions arrive and pay only for those.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from referee import __version__
from referee.core import files
from referee.core.runner import usable_cores

from .config import GradingConfig, staff_paths
from .formats import render, to_json
from .gauntlet import GradingError, grade
from .submission import archive_hint, unpacked

STAMP = "grade.json"  # in each submission's results folder: the hash it was graded at


@dataclass
class ClassRow:
    name: str
    score: float
    max_score: float
    tests: dict[str, float]
    status: str  # graded | unchanged | not gradable | error (the grader failed: rerun the class)
    message: str
    sandbox: str = ""  # bwrap, or none (the result file says why)
    rating: float | None = None  # against the reference set; None: it played no game


def folder_hash(folder: Path) -> str:
    """A hash of the folder's files, names and contents (links by target),
    in a fixed order: the same content gives the same hash wherever it is."""
    digest = hashlib.sha256()
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        dirs[:] = [d for d in dirs if d not in ("__pycache__", ".git", "step_logs")]
        for name in sorted(names):
            path = Path(root, name)
            relative = path.relative_to(folder).as_posix()
            digest.update(relative.encode("utf-8", "surrogateescape") + b"\0")
            if path.is_symlink():
                digest.update(b"link:" + os.readlink(path).encode("utf-8", "surrogateescape"))
            elif path.is_file():
                with open(path, "rb") as handle:
                    for block in iter(lambda: handle.read(1 << 20), b""):
                        digest.update(block)
            digest.update(b"\0")
    return digest.hexdigest()


def submissions(folder: Path, results: Path | None = None) -> list[Path]:
    """The subfolders of ``folder``, but for the results folder (which may
    be one of them)."""
    skip = os.path.realpath(results) if results is not None else None
    return sorted(p for p in Path(folder).iterdir() if p.is_dir() and not p.name.startswith(".")
                  and os.path.realpath(p) != skip)


def strays(folder: Path) -> list[Path]:
    """The files of ``folder`` beside the submission folders (hidden ones
    aside): each gets a row that says why it was not graded, an archive
    (a zip handed in as it was downloaded) with how to unpack it, rather
    than being passed over in silence.  An archive already unpacked beside
    it (``x.zip`` and the folder ``x``) is left out: ``x`` is graded."""
    return sorted(p for p in Path(folder).iterdir() if not p.is_dir() and not p.name.startswith(".")
                  and not ((into := unpacked(p)) is not None and into.is_dir()))


def _stray(config: GradingConfig, path: Path) -> tuple[ClassRow, str]:
    archive = archive_hint(path)
    why = (f"{path} {archive}" if archive else
           f"{path} is a file, not a submission folder (each submission is a folder of its own)")
    return (ClassRow(path.name, 0.0, config.total_points, {}, "not gradable", why),
            f"{path.name}: not graded ({why})")


def grade_class(config: GradingConfig, folder: Path, results: Path, fmt: str, jobs: int | None,
                say: Callable[[str], None] = print, play: Any = None) -> list[ClassRow]:
    """Grade every submission in ``folder``, ``jobs`` at once (each playing
    one game at a time, so that ``jobs`` games run at once in all, as
    ``--jobs`` means everywhere); the lines and the CSV come in the
    folder's order whatever finished first, and every grade is what grading
    the submissions one by one gives.  With a cluster (``play``), the games
    go to it and only the compliance checks run here, at most a core each."""
    results.mkdir(parents=True, exist_ok=True)
    setup = config_hash(config)
    found = sorted([*submissions(folder, results), *strays(folder)])
    jobs = jobs or usable_cores()
    at_once = max(1, min(jobs, len(found), usable_cores() if play is not None else jobs))
    per_grade = max(1, jobs // at_once)

    def one(path: Path) -> tuple[ClassRow, str]:
        if not path.is_dir():
            return _stray(config, path)
        return _grade_one(config, path, results / path.name, fmt, setup, per_grade, play)

    rows: list[ClassRow] = []
    with ThreadPoolExecutor(max_workers=at_once) as pool:
        for index, (row, line) in enumerate(pool.map(one, found), 1):
            rows.append(row)
            say(f"[{index}/{len(found)}] {line}")
    files.write_text(results / "grades.csv", class_csv(config, rows))
    return rows


def _grade_one(config: GradingConfig, path: Path, target: Path, fmt: str, setup: str, jobs: int,
               play: Any) -> tuple[ClassRow, str]:
    """One submission of a class: its row and its progress line (graded
    now, or unchanged since the grade in ``target``)."""
    name = path.name
    key = folder_hash(path)
    stamp = _read_stamp(target / STAMP)
    if stamp and stamp.get("hash") == key and stamp.get("config") == setup:
        return (_row(name, stamp["grade"], "unchanged"),
                f"{name}: unchanged, {stamp['grade']['score']:g} / {stamp['grade']['max_score']:g}")
    if target.exists():
        shutil.rmtree(target)
    try:
        result = grade(config, path, target / "work", jobs, play)
    except GradingError as exc:  # the grader's failure, not the student's: no grade, rerun it later
        return ClassRow(name, 0.0, config.total_points, {}, "error", str(exc)), f"{name}: {exc}"
    data = to_json(result)
    files.write_text(target / f"results.{fmt}.json" if fmt != "json" else target / "results.json",
                     render(result, fmt))
    files.write_text(target / STAMP, json.dumps({"hash": key, "config": setup, "grade": data},
                                                indent=1) + "\n")
    return (_row(name, data, "graded" if result.gradable else "not gradable"),
            f"{name}: {result.score:g} / {result.max_score:g}"
            + (f" ({result.message})" if result.message else ""))


def config_hash(config: GradingConfig) -> str:
    """What else decides a grade: the referee's version, the config file,
    its boards and the files its staff programs name (not the whole config
    folder, which may hold the class's submissions and results)."""
    digest = hashlib.sha256(__version__.encode())
    digest.update(config.path.read_bytes())
    for board in config.boards:
        if board is not None:
            digest.update(board.read_bytes())
    for opponent in config.opponents:
        digest.update(opponent.player.encode() + b"\0")
    for _, path in staff_paths(config):  # every player form: persistent:, module:, stacks
        digest.update((folder_hash(path) if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest())
                      .encode())
    return digest.hexdigest()


def _read_stamp(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("grade"), dict) else None


def _row(name: str, data: dict, status: str) -> ClassRow:
    return ClassRow(name, float(data["score"]), float(data["max_score"]),
                    {t["name"]: float(t["score"]) for t in data["tests"]}, status,
                    str(data.get("message", "")), str((data.get("sandbox") or {}).get("kind", "")),
                    (data.get("rating") or {}).get("value"))


def class_csv(config: GradingConfig, rows: list[ClassRow]) -> str:
    tests = [config.compliance_name, *[o.name for o in config.opponents]]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["submission", "score", "max_score", *tests, "rating", "status", "sandbox", "message"])
    for row in rows:
        writer.writerow([row.name, f"{row.score:g}", f"{row.max_score:g}",
                         *[f"{row.tests.get(t, 0.0):g}" for t in tests],
                         "" if row.rating is None else f"{row.rating:.0f}", row.status, row.sandbox,
                         row.message])
    return out.getvalue()
