"""``referee new-game NAME``: a new game as a package of its own, ready to
install with ``pip install -e`` and play at once.

The files come from ``files/`` (each ``*.tmpl``, with ``__game__``,
``__Title__``, ``__Class__``, ``__players__`` and ``__more_greedy__``
replaced, in paths too).  The game they make is deliberately small (players
take numbers from a grid) but complete: rules, codecs, a default board, a
replay scene, random and greedy players, a student template, a rules page and
tests that run the conformance kit, so every later change is checked."""
from __future__ import annotations

import keyword
import os
import re
import shlex
import sys
from pathlib import Path

from referee.core import registry
from referee.core.errors import InputError

FILES = Path(__file__).resolve().parent / "files"
NAME = re.compile(r"[a-z][a-z0-9_]{0,30}")


def check_name(name: str) -> None:
    """A game name is also its Python package's name: a short lowercase
    identifier that shadows nothing."""
    if not NAME.fullmatch(name) or keyword.iskeyword(name):
        raise InputError(f"game name {name!r}: use lowercase letters, digits and _, starting with "
                         "a letter (it is also the Python package's name)")
    if name in sys.stdlib_module_names or name in ("referee", "test", "tests"):
        raise InputError(f"game name {name!r} is the name of a Python module it would shadow; "
                         "choose another")
    if name in registry.entries():
        raise InputError(f"a game called {name!r} is already installed "
                         f"({registry.entries()[name][0].origin()}); choose another name")


def replacements(name: str, players: int) -> dict[str, str]:
    title = " ".join(part.capitalize() for part in name.split("_"))
    return {"__game__": name, "__Title__": title,
            "__Class__": "".join(part.capitalize() for part in name.split("_")),
            "__players__": str(players),
            "__more_greedy__": " --player builtin:greedy" * (players - 2)}


def fill(text: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        text = text.replace(key, value)
    return text


def write_game(name: str, directory: Path | None, players: int) -> list[str]:
    """Write the package for game ``name`` into ``directory`` (default
    ``./NAME``); returns the lines to print."""
    check_name(name)
    if not 2 <= players <= 8:
        raise InputError(f"--players {players}: a new game is for 2 to 8 players")
    directory = Path(directory if directory is not None else name)
    if directory.exists() and any(directory.iterdir()):
        raise InputError(f"{directory} exists and is not empty; choose another folder")
    values = replacements(name, players)
    written = []
    for source in sorted(FILES.rglob("*.tmpl")):
        target = directory / fill(str(source.relative_to(FILES))[: -len(".tmpl")], values)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(fill(source.read_text(encoding="utf-8"), values), encoding="utf-8")
        written.append(target)
    greedy = " --player builtin:greedy" * (players - 1)
    # The `test` extra brings pytest (the game's wheel does not need it to
    # play).  -P: `python -m` puts this folder first on sys.path, and there
    # the project folder NAME/ passes for the package NAME (a namespace
    # package, found before an editable install's import hook looks), so the
    # tests' `from NAME import GAME` failed.
    return [f"wrote {len(written)} files into {directory}/ (README.md says what each is)", "",
            "Install it into the referee's environment, with pytest for its tests, and play:",
            f"    python -m pip install -e {shell_word(f'{directory}[test]')}",
            f"    referee play {name} --player builtin:random{greedy}",
            f"    referee check-game {name}",
            f"    python -P -m pytest {shell_word(str(directory / 'tests'))}"]


def shell_word(text: str) -> str:
    """``text`` as one word the user's shell passes on unchanged: the
    brackets of an extra are a pattern to zsh, and cmd.exe knows no single
    quotes."""
    if os.name == "nt":
        return f'"{text}"' if re.search(r'[\s\[\]&|<>^()"]', text) else text
    return shlex.quote(text)
