"""How a submitted folder runs.

A student's folder (made by ``referee new-player``) holds a small manifest,
``referee-player.yaml``, that says its language, how it is built and how it
runs, so that no grader has to guess and no student can get it wrong.  A
folder without one is still graded: ``player.py`` runs as Python,
``player.cpp`` is built with the documented command.  The folder is copied
before anything runs (the student's files are never changed, build products
land in the copy), and a Python folder that lacks the SDK copy gets the
bundled one beside ``player.py``, so that ``from referee_sdk import ...``
works exactly as it did on the student's machine.
"""
from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

import yaml

from referee import resources
from referee.core.errors import InputError
from referee.core.settings import load_yaml

if TYPE_CHECKING:
    from referee.core.sandbox import Sandbox

MANIFEST = "referee-player.yaml"
LANGUAGES = ("python", "cpp")
MANIFEST_KEYS = ("language", "build", "run", "persistent")
CPP_BUILD = "g++ -std=c++14 -O2 -o player player.cpp"
"""The documented C++ build (the same line new-player's README gives)."""
DEFAULTS = {"python": {"run": "python3 player.py", "build": None},
            "cpp": {"run": "./player", "build": CPP_BUILD}}
SOURCES = {"python": "player.py", "cpp": "player.cpp"}
BUILD_TIMEOUT = 300.0  # seconds a build may take
MAX_BYTES = 64 * 1024 * 1024  # a bigger submission is refused before it is copied
OUTPUT_KEPT = 4000  # characters of a build's output shown in the grade
SKIPPED = shutil.ignore_patterns("__pycache__", "*.pyc", "step_logs", ".git")


class SubmissionError(Exception):
    """The submission cannot be run at all (a graded failure, never a
    traceback): missing files, a bad manifest, a failed build."""


@dataclass
class Submission:
    """A staged submission, ready to play."""

    folder: Path          # the working copy the program runs from
    language: str
    run: str              # the command, relative to ``folder``
    build: str | None
    persistent: bool = False
    build_output: str = ""
    notes: tuple[str, ...] = ()  # what was decided for the student (said in the grade)
    students: tuple[str, ...] = ()  # the lines (run, build) that are the student's, not the grader's

    @property
    def command(self) -> str:
        """The ``--player`` value, with absolute paths (see make_agent)."""
        from referee.core.players import _absolutize

        if self.run.startswith(("builtin:", "persistent:builtin:")):
            return self.run
        if self.run.startswith("persistent:"):
            return "persistent:" + shlex.join(_absolutize(shlex.split(self.run[11:]), self.folder))
        words = _absolutize(shlex.split(self.run), self.folder)
        text = shlex.join(words)
        return f"persistent:{text}" if self.persistent else text


def manifest_text(language: str) -> str:
    """What ``new-player`` writes beside the template."""
    defaults = DEFAULTS[language]
    lines = ["# How graders run this player (referee grade, referee check-bot).",
             "# Keep it in the folder you hand in; change run: only if you rename player files.",
             f"language: {language}"]
    if defaults["build"]:
        lines.append(f"build: {defaults['build']}")
    lines += [f"run: {defaults['run']}", "persistent: false"]
    return "\n".join(lines) + "\n"


def read_manifest(folder: Path) -> dict[str, Any]:
    """The folder's manifest, checked (an InputError names the line)."""
    path = folder / MANIFEST
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read: {getattr(exc, 'strerror', None) or exc}", str(path)) from None
    try:
        data = load_yaml(text) or {}
    except (yaml.YAMLError, ValueError) as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InputError(f"not valid YAML: {getattr(exc, 'problem', None) or exc}", str(path),
                         mark.line + 1 if mark else None) from None
    return check_manifest(data, str(path), text)


def check_manifest(data: Any, source: str, text: str = "") -> dict[str, Any]:
    """The keys a manifest (or a grading config's ``submission:``) may hold."""
    def line(key: str) -> int | None:
        for number, row in enumerate(text.splitlines(), 1):
            if row.strip().startswith(f"{key}:"):
                return number
        return None

    if not isinstance(data, dict):
        raise InputError("expected a mapping (language:, build:, run:, persistent:)", source)
    for key, value in data.items():
        if key not in MANIFEST_KEYS:
            raise InputError(f"unknown key {key!r}; the keys are: {', '.join(MANIFEST_KEYS)}",
                             source, line(str(key)))
        if key == "persistent" and not isinstance(value, bool):
            raise InputError(f"persistent: expected true or false, got {value!r}", source, line(key))
        if key != "persistent" and value is not None and not (isinstance(value, str) and value.strip()):
            raise InputError(f"{key}: expected a non-empty string, got {value!r}", source, line(key))
    if data.get("language") is not None and data["language"] not in LANGUAGES:
        raise InputError(f"language: {data['language']!r} is not one of: {', '.join(LANGUAGES)}",
                         source, line("language"))
    return dict(data)


ARCHIVES = (".zip", ".tar.gz", ".tgz", ".tar.xz", ".tar.bz2", ".tar", ".7z", ".rar")


def unpacked(path: Path) -> Path | None:
    """The folder an archive unpacks to by the hint below (``x.zip``: ``x``);
    None if ``path`` does not look like an archive."""
    suffix = next((s for s in ARCHIVES if path.name.lower().endswith(s)), None)
    return path.with_name(path.name[:-len(suffix)]) if suffix and len(path.name) > len(suffix) else None


def archive_hint(path: Path) -> str | None:
    """What to do with an archive handed in where a folder belongs (the
    referee does not unpack one); None if ``path`` does not look like one."""
    into = unpacked(path)
    if into is None:
        return None
    text, folder = str(path), str(into)
    suffix = text[len(folder):].lower()
    how = (f"unzip {text} -d {folder}" if suffix == ".zip" else
           f"mkdir {folder} && tar -xf {text} -C {folder}" if ".tar" in suffix or suffix == ".tgz" else
           f"into {folder}")
    return f"is an archive, not a folder: unpack it into a folder of its own ({how}) and grade that"


def inside(path: Path | str, folder: Path | str) -> bool:
    """``path`` is ``folder`` or lies below it (links resolved)."""
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _skipping(results: str) -> Any:
    """copytree's ignore: SKIPPED, and the results folder (real path) where
    it lies inside the folder copied."""
    def ignore(folder: str, names: list[str]) -> set[str]:
        ignored = set(SKIPPED(folder, names))
        if os.path.dirname(results) == os.path.realpath(folder):
            ignored.add(os.path.basename(results))
        return ignored
    return ignore


def find_root(folder: Path, results: str | None = None) -> Path:
    """Where the player is: the folder, or its only subfolder when a zip
    unpacked to ``mybot/player.py`` (the usual way students hand in)."""
    if _looks_like_player(folder):
        return folder
    entries = [p for p in folder.iterdir() if not p.name.startswith((".", "__MACOSX"))
               and os.path.realpath(p) != results]
    if len(entries) == 1 and entries[0].is_dir() and _looks_like_player(entries[0]):
        return entries[0]
    return folder


def _looks_like_player(folder: Path) -> bool:
    return any((folder / name).is_file() for name in (MANIFEST, *SOURCES.values()))


def folder_size(folder: Path, cap: int = MAX_BYTES, results: str | None = None) -> int:
    """Bytes in ``folder`` (links not followed, the ``results`` folder, a
    real path, left out), counting stops past ``cap``."""
    total = 0
    for root, dirs, names in os.walk(folder):
        if results and os.path.dirname(results) == os.path.realpath(root):
            dirs[:] = [d for d in dirs if d != os.path.basename(results)]
        for name in names:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                continue
            if total > cap:
                return total
    return total


def stage(source: Path, work: Path, override: Mapping[str, Any] | None = None) -> Submission:
    """Copy ``source`` to ``work`` and say how it runs; SubmissionError with
    what to fix when it cannot.  ``override`` (the grading config's
    ``submission:``) wins over the folder's manifest, key by key.  The
    results folder (``work``'s parent) is left out where it lies inside
    ``source`` (``--submission .`` with the results in ``./results``), as
    ``step_logs`` is: copying it was a copy into itself without end."""
    source = Path(source)
    if not source.is_dir():
        raise SubmissionError(f"{source}: no such folder (nothing was submitted?)")
    results = os.path.realpath(work.parent)
    if folder_size(source, results=results) > MAX_BYTES:
        raise SubmissionError(f"the submission is over {MAX_BYTES // 2**20} MB; hand in the source files only")
    root = find_root(source, results)
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(root, work, symlinks=True, ignore=_skipping(results))
    notes: list[str] = []
    manifest: dict[str, Any] = {}
    if (work / MANIFEST).is_file():
        try:
            manifest = read_manifest(work)
        except InputError as exc:
            raise SubmissionError(f"{MANIFEST}: {exc.message}"
                                  + (f" (line {exc.line})" if exc.line else "")) from None
    _check_links(work)
    students = tuple(key for key in ("run", "build")  # (a grading config's lines are the TA's)
                     if (override or {}).get(key) is None)
    for key in students:
        if isinstance(manifest.get(key), str):
            _check_line(manifest[key], work, key)
    manifest.update({k: v for k, v in (override or {}).items() if v is not None})
    language = manifest.get("language") or _guess_language(work)
    if language is None:
        found = ", ".join(sorted(p.name for p in work.iterdir())[:12]) or "nothing"
        archives = sorted(p.name for p in source.iterdir() if p.is_file() and unpacked(p) is not None)
        how = f" (unzip {archives[0]})" if archives and archives[0].lower().endswith(".zip") else ""
        unpack = (f"; {archives[0]} is an archive the referee does not unpack: unpack it in the "
                  f"submission's folder{how}" if archives else "")
        raise SubmissionError(f"no player.py or player.cpp (nor {MANIFEST}) in the submission; "
                              f"found: {found}{unpack}")
    defaults = DEFAULTS[language]
    run = manifest.get("run") or defaults["run"]
    build = manifest.get("build", defaults["build"])
    if language == "python" and not (work / "referee_sdk").is_dir():
        shutil.copytree(resources.players_dir() / "sdk" / "python" / "referee_sdk", work / "referee_sdk",
                        ignore=SKIPPED)
        notes.append("no referee_sdk/ folder was handed in: the bundled SDK was used")
    return Submission(work, language, run, build, bool(manifest.get("persistent", False)),
                      notes=tuple(notes), students=students)


def _check_line(line: str, folder: Path, key: str) -> None:
    """SubmissionError if a student's ``run:`` or ``build:`` line names a
    path outside the submission (see :func:`_outside_path`)."""
    outside = _outside_path(line, folder, key == "run")
    if outside:
        raise SubmissionError(f"{MANIFEST}: {key}: names {outside}, outside the submission; "
                              f"a submission's {key} line may name only its own files "
                              "(and programs the grader has installed)")


def _check_links(folder: Path) -> None:
    """SubmissionError for a link in the working copy that leads out of it
    (or nowhere yet): the sandbox shows a program the folders its command
    line names, links followed, so ``run: python3 player.py ./src`` with
    ``src`` a link to the course's folder (handed in, or made by the build)
    was shown that folder; one that led nowhere at staging (``../games``)
    led to the grade's own games once they were played."""
    from referee.core.sandbox import _inside

    top = [Path(os.path.realpath(folder))]
    for where, dirs, names in os.walk(folder):
        for name in dirs + names:
            path = os.path.join(where, name)
            if not os.path.islink(path):
                continue
            if not _inside(Path(os.path.realpath(path)), top) or not os.path.exists(path):
                shown = os.path.relpath(path, folder)
                raise SubmissionError(f"{shown} is a link to {os.readlink(path)}, outside the submission "
                                      "(or to nothing): hand in the files themselves")


def _outside_path(line: str, folder: Path, run: bool) -> str | None:
    """The first path a manifest's ``run:`` or ``build:`` line names outside
    the submission's working copy ``folder``, or None.  The sandbox shows a
    program the folders its command line names (and its program's whole
    installation), so a student's ``run: python3 player.py /srv/grader/key``
    would have been shown the grader's folder.  Each path it names must be
    in the copy or in the system's runtime folders (``/usr/bin/python3``:
    every player sees those anyway), its links followed; a program named
    by a bare word is found on PATH, as the grader's own are."""
    from referee.core import sandbox
    from referee.core.players import _absolutize

    text = line[len("persistent:"):] if run and line.startswith("persistent:") else line
    try:
        words = _absolutize(shlex.split(text), folder)
    except ValueError:
        return None  # said when it runs
    allowed = [Path(os.path.realpath(folder)), Path(os.path.abspath(folder)),
               *(Path(p) for p in sandbox.RUNTIME)]
    for word in words:
        for part in sandbox.word_parts(word):  # (as the sandbox reads it: -cp a:b, --x=/y)
            if not (os.path.isabs(part) or "/" in part):
                continue
            path = os.path.join(folder, part)  # (made absolute as it runs; one not there yet too:
            if not all(sandbox._inside(Path(where), allowed)  # '../games' is the grade's, once played)
                       for where in (os.path.realpath(path), os.path.abspath(path))):
                return part
    return None


def _guess_language(folder: Path) -> str | None:
    for language, name in SOURCES.items():
        if (folder / name).is_file():
            return language
    return None


def build(submission: Submission, timeout: float = BUILD_TIMEOUT, sandbox: "Sandbox | None" = None) -> None:
    """Run the build command in the working copy; SubmissionError with the
    compiler's own words when it fails.  A build is the student's code as
    much as the player is (a manifest's ``build:`` is any command; a
    compiler reads any file an ``#include`` names), so with ``sandbox`` on it
    runs in the sandbox as the player does, its working copy the one folder
    it sees besides the system's (:func:`referee.core.sandbox.wrap_build`),
    with the player's clean environment.  Held to: no file over
    BUILD_DISK_MB (RLIMIT_FSIZE), the copy no bigger than that after it,
    ``timeout`` (its whole session killed), its output kept as a tail (a build that printed 150 MB held it all
    in the referee's memory); a build that fails or goes over leaves no
    copy behind (a build that filled the disk lost the class's grades).
    Then the copy's links and the student's run line are checked again:
    the build may have made a link the line names."""
    if not submission.build:
        return
    try:
        argv = shlex.split(submission.build)
    except ValueError as exc:
        raise SubmissionError(f"cannot read the build command {submission.build!r}: {exc}") from None
    if not argv:
        raise SubmissionError("the build command is empty")
    # Its program as the build sees it, from its own folder: './build.sh' was
    # looked up (and its folder shown to the sandbox) in the grader's.  (Its
    # arguments stay as written: it runs there, and a compiler's messages
    # name the files as the student does.)
    if os.sep in argv[0] and not os.path.isabs(argv[0]):
        argv[0] = os.path.normpath(submission.folder.resolve() / argv[0])
    if shutil.which(argv[0]) is None:
        raise SubmissionError(f"the build needs {argv[0]!r}, which is not installed on the grader")
    env = None
    if sandbox is not None and sandbox.on:
        from referee.core.sandbox import player_environment, wrap_build

        env = player_environment(os.environ, submission.folder.resolve(), True)
        argv = wrap_build(sandbox, submission.folder, argv)
    try:
        _build_and_check(submission, argv, env, timeout)
    except SubmissionError:
        _discard(submission)
        raise


def _build_and_check(submission: Submission, argv: list[str], env: dict | None, timeout: float) -> None:
    """Run the build (see :func:`build`) and check what it left;
    SubmissionError with why if it failed or left what a grade refuses."""
    try:
        code, output = _run_build(argv, submission.folder, env, timeout)
    except subprocess.TimeoutExpired:
        raise SubmissionError(f"the build ({submission.build}) took over {timeout:g} s") from None
    except OSError as exc:
        raise SubmissionError(f"the build ({submission.build}) could not start: {exc.strerror or exc}") from None
    submission.build_output = output.strip()[-OUTPUT_KEPT:]
    if code != 0:
        why = " (a file over the build's disk budget)" if code in (-25, 153) else ""  # SIGXFSZ
        raise SubmissionError(f"the build failed ({submission.build}, exit {code}{why}):\n"
                              + (submission.build_output or "(no output)"))
    from referee.core import trees

    if trees.tree_usage(submission.folder, BUILD_DISK_MB << 20).over:
        raise SubmissionError(f"the build ({submission.build}) left over {BUILD_DISK_MB} MiB in the "
                              "submission's folder")
    _check_links(submission.folder)
    if "run" in submission.students:
        _check_line(submission.run, submission.folder, "run")


BUILD_DISK_MB = 256  # what a build may leave in the working copy (and its largest file)


def _run_build(argv: list[str], folder: Path, env: dict | None, timeout: float) -> tuple[int, str]:
    """Run a build: (its exit status, the tail of its output, stdout and
    stderr together); TimeoutExpired past ``timeout`` (it is killed)."""
    import select
    import time

    limit = BUILD_DISK_MB << 20

    def limits() -> None:  # between fork and exec
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    proc = subprocess.Popen(argv, cwd=folder, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, preexec_fn=limits, start_new_session=True)

    def kill() -> None:  # its whole session (without the sandbox, what it started in the background too)
        import signal

        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()

    assert proc.stdout is not None
    tail = bytearray()
    deadline = time.monotonic() + timeout
    with proc.stdout:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                kill()
                raise subprocess.TimeoutExpired(argv, timeout)
            if not select.select([proc.stdout], [], [], left)[0]:
                continue
            chunk = os.read(proc.stdout.fileno(), 1 << 16)
            if not chunk:
                break
            tail += chunk
            del tail[:-4 * OUTPUT_KEPT]
    try:
        code = proc.wait(max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        kill()
        raise
    return code, tail.decode("utf-8", "replace")


def _discard(submission: Submission) -> None:
    """Remove a working copy whose build failed: what it made is the grader's
    disk (the student's own files are never touched)."""
    shutil.rmtree(submission.folder, ignore_errors=True)
