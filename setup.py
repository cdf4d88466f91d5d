"""Build step for the wheel: ship the top-level ``players/``, ``boards/`` and
``docs/`` folders inside the package as ``referee/_bundled/<name>``.

Why a build step and not a copy in git: the top-level folders are the product
card's layout and the only source of truth; the wheel gets a snapshot of them
taken at build time, so a plain ``pip install .`` or ``pipx install`` of the
wheel has the built-in players, templates, SDKs, boards and game rules.  An
editable install needs none of this: :mod:`referee.resources` finds the
checkout's folders directly.  Everything else is in setup.cfg.
"""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
BUNDLED = ("players", "boards", "docs")
# Build products and editor/OS litter a student's or TA's checkout may hold.
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo", "*.o", "*.obj", "a.out",
                                "*.exe", ".*", "*~")


class BuildWithBundle(build_py):
    """build_py, plus the snapshot of the top-level data folders."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for name in BUNDLED:
            source = ROOT / name
            if not source.is_dir():  # building from an sdist made without it
                raise SystemExit(f"setup.py: {source} is missing; cannot bundle {name}/")
            target = Path(self.build_lib) / "referee" / "_bundled" / name
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(source, target, ignore=IGNORE)


setup(cmdclass={"build_py": BuildWithBundle})
