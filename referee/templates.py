"""``referee new-player``: a student's starting folder, ready to run.

The folder is self-contained, so a student can zip it and hand it in: the
game's template, the SDK copied in beside it (Python: ``referee_sdk/``, C++:
``referee_sdk.hpp``) and a README.md with the exact commands for Linux, macOS
and Windows, written to be run from inside the folder.  The first run works
before any code is changed."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from referee import resources
from referee.core.errors import InputError
from referee.core.registry import get_game

_SOURCES = {"python": ("template.py", "player.py"), "cpp": ("template.cpp", "player.cpp")}

# Per language: the commands for each system, run from inside the folder.
_COMMANDS = {
    "python": [
        ("Linux and macOS", ['referee play {game} --player "python3 player.py" {opponents}']),
        ("Windows", ['referee play {game} --player "py player.py" {opponents}']),
    ],
    "cpp": [
        ("Linux", ["g++ -std=c++14 -O2 -Wall -Wextra -o player player.cpp",
                   "referee play {game} --player ./player {opponents}"]),
        ("macOS", ["clang++ -std=c++14 -O2 -Wall -Wextra -o player player.cpp",
                   "referee play {game} --player ./player {opponents}"]),
        ("Windows (MinGW-w64 g++)", ["g++ -std=c++14 -O2 -Wall -Wextra -o player.exe player.cpp",
                                     "referee play {game} --player player.exe {opponents}"]),
    ],
}

_ABOUT = {
    "python": """Your code goes in `play_games(step)` in `player.py`. `referee_sdk/` is the
student SDK (standard library only): `read_board()`, `read_ckbd(step)`,
`read_state()`, `save_decision(...)`, `player_rng()`. Each step the referee runs
`python3 player.py <step> <player_id>` in a private folder holding `Board.txt`,
`state.json` and `step_logs/step_<k>.txt`; your program writes `decision.txt`.
That folder is not this one: open a file of your own (weights, tables) by this
folder's path, `os.path.join(os.path.dirname(__file__), "weights.txt")`.
""",
    "cpp": """Your code goes in `play_games(step)` in `player.cpp`. `referee_sdk.hpp` is the
one-header SDK: `read_board()`, `read_ckbd(step)`, `read_state()`,
`save_decision(...)`. Each step the referee runs `./player <step> <player_id>`
in a private folder holding `Board.txt`, `state.json` and
`step_logs/step_<k>.txt`; your program writes `decision.txt`.
That folder is not this one: open a file of your own (weights, tables) by this
folder's path, the folder of `argv[0]`.
""",
}

_HAND_IN = {  # what a grader needs, what a zip leaves out, and what PowerShell removes first
    "python": ("`player.py` and `referee_sdk/`", "'*/__pycache__/*' '{name}/step_logs/*'",
               "Get-ChildItem {name} -Recurse -Directory -Filter __pycache__ | Remove-Item -Recurse -Force; "
               "Remove-Item -Recurse -Force -ErrorAction SilentlyContinue {name}\\step_logs; "),
    "cpp": ("`player.cpp` and `referee_sdk.hpp` (not the compiled `player`)",
            "'{name}/player' '{name}/step_logs/*'",
            "Remove-Item -Recurse -Force -ErrorAction SilentlyContinue {name}\\step_logs, {name}\\player.exe, "
            "{name}\\player; "),
}
"""(Compress-Archive has no -x: check-bot's step_logs/, caches and the compiled
program went into the zip; they are removed first, as the zip line leaves them out.)"""

_README = """\
# {title} player ({language})

## Run it

{verb} it against the built-in greedy player, from inside this folder.

{run}To play against it yourself, give `--player human` instead of `--player builtin:greedy`:
you play in a page in your browser where one can open, else here at the terminal
(`human:terminal` always here, `human:web` always the browser).

{about}
## Handing it in

This folder is self-contained: {files}
and `referee-player.yaml` (how graders build and run it) are all a grader
needs. Before you hand it in, run the check graders run first:

    referee check-bot {game} --player .

Then zip it, from the folder above this one:

- Linux, macOS: `zip -r {name}.zip {name} -x {skip}`
- Windows (PowerShell): `{clean}Compress-Archive -Path {name} -DestinationPath {name}.zip`

Rules, file formats and limits: `referee --help`, and the game's page
({rules}).
"""


def write_template(game_name: str, directory: Path, lang: str) -> list[str]:
    """Create ``directory`` with the template, its SDK and README.md;
    returns lines to print."""
    game = get_game(game_name)
    source_name, target_name = _SOURCES[lang]
    folder = game.files("players")
    source = folder / source_name
    sdk = resources.players_dir() / "sdk"
    if not source.is_file():
        raise InputError(f"no {lang} template for {game.name} yet (looked in {folder})")
    directory = Path(directory)
    target = directory / target_name
    from referee.core.files import check_folder
    from referee.grading.submission import MANIFEST, manifest_text

    check_folder(directory, "folder")  # a file there was a FileExistsError traceback
    for path in (target, directory / "README.md", directory / MANIFEST):  # a student's own README.md
        if os.path.lexists(path):                                        # was overwritten
            raise InputError(f"{path} already exists; choose another folder")
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    if lang == "python":
        shutil.copytree(sdk / "python" / "referee_sdk", directory / "referee_sdk",
                        dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    else:
        shutil.copyfile(sdk / "cpp" / "referee_sdk.hpp", directory / "referee_sdk.hpp")
    seats = 2 if 2 in game.player_counts else min(game.player_counts)
    opponents = " ".join(["--player builtin:greedy"] * (seats - 1))
    commands = [(system, [line.format(game=game.name, opponents=opponents) for line in lines])
                for system, lines in _COMMANDS[lang]]
    run = "".join(f"{system}:\n\n" + "".join(f"    {line}\n" for line in lines) + "\n"
                  for system, lines in commands)
    readme = _README.format(
        title=game.title, language="Python" if lang == "python" else "C++14", game=game.name,
        verb="Play" if lang == "python" else "Build and play", run=run, about=_ABOUT[lang],
        files=_HAND_IN[lang][0], skip=_HAND_IN[lang][1].format(name=directory.resolve().name),
        clean=_HAND_IN[lang][2].format(name=directory.resolve().name),
        name=directory.resolve().name, rules=_rules_label(game))
    (directory / "README.md").write_text(readme, encoding="utf-8")
    (directory / MANIFEST).write_text(manifest_text(lang), encoding="utf-8")
    others = " and ".join(system.split(" (")[0] for system, _ in commands[1:])
    return [f"wrote {target}", f"wrote {directory / 'README.md'}",
            f"wrote {directory / MANIFEST} (how graders run it)", "",
            f"cd {directory}, then on {commands[0][0]} (README.md has {others}):",
            *(f"    {line}" for line in commands[0][1])]


def _rules_label(game) -> str:
    """Where the README sends a student for the rules: the referee's docs
    folder for its own games, the file itself for a plugin's."""
    if game.home is None:
        return f"`referee docs {game.name}` prints it"
    return str(game.rules_file())
