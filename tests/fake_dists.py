"""Installed-looking distributions for tests of game plugins, made without pip.

``python -m pip install`` into the test venv would change it for every other
test; a folder holding ``<name>-<version>.dist-info/`` (METADATA and
entry_points.txt) and the package's modules, put on ``sys.path`` or
``PYTHONPATH``, is found by ``importlib.metadata`` exactly like an installed
one, and disappears with the temporary folder."""
from __future__ import annotations

from pathlib import Path


def fake_dist(root: Path, package: str, games: dict[str, str], version: str = "1.0",
              modules: dict[str, str] | None = None) -> Path:
    """Write distribution ``package`` declaring ``games`` (name -> target)
    into ``root`` (the folder to put on the path), with ``modules``
    (relative path -> source); returns ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    info = root / f"{package.replace('-', '_')}-{version}.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n",
                                   encoding="utf-8")
    lines = ["[referee.games]", *(f"{name} = {target}" for name, target in games.items())]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for rel, source in (modules or {}).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    return root


def dist_from_pyproject(root: Path, project: Path) -> list[Path]:
    """What ``pip install -e project`` would make visible, without pip: a
    distribution in ``root`` with the entry points of ``project``'s
    pyproject.toml.  Returns the folders to put on the path."""
    import tomllib

    meta = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    root.mkdir(parents=True, exist_ok=True)
    info = root / f"{meta['name'].replace('-', '_')}-{meta['version']}.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {meta['name']}\n"
                                   f"Version: {meta['version']}\n", encoding="utf-8")
    lines = []
    for group, points in meta.get("entry-points", {}).items():
        lines += [f"[{group}]", *(f"{name} = {target}" for name, target in points.items())]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [root, project]
