"""``referee new-player``: a student's starting folder, ready to run.

Copies the game's template and the SDK it needs, and writes a short README
with the exact commands, so the first run works before any code is changed."""
from __future__ import annotations

import shutil
from pathlib import Path

from referee.core.errors import InputError
from referee.core.players import players_dir
from referee.games import get_game

_SOURCES = {"python": ("template.py", "player.py"), "cpp": ("template.cpp", "player.cpp")}

_README = {
    "python": """\
{title} player (Python)

Play it against the built-in greedy player:
    referee play {game} --player "python3 {dir}/player.py" {opponents}

Your code goes in play_games(step) in player.py.  referee_sdk/ is the
student SDK (standard library only): read_board(), read_ckbd(step),
read_state(), save_decision(...).  Each step the referee runs
`python3 player.py <step> <player_id>` in a private folder holding Board.txt,
state.json and step_logs/step_<k>.txt; your program writes decision.txt.
""",
    "cpp": """\
{title} player (C++14)

Build and play it against the built-in greedy player:
    g++ -std=c++14 -O2 -Wall -Wextra -o {dir}/player {dir}/player.cpp
    referee play {game} --player {dir}/player {opponents}

Your code goes in play_games(step) in player.cpp.  referee_sdk.hpp is the
one-header SDK: read_board(), read_ckbd(step), read_state(), save_decision(...).
""",
}


def write_template(game_name: str, directory: Path, lang: str) -> list[str]:
    """Create ``directory`` with the template; returns lines to print."""
    game = get_game(game_name)
    source_name, target_name = _SOURCES[lang]
    source = players_dir() / game.name / source_name
    if not source.is_file():
        raise InputError(f"no {lang} template for {game.name} yet")
    directory = Path(directory)
    target = directory / target_name
    if target.exists():
        raise InputError(f"{target} already exists; choose another folder")
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    sdk = players_dir() / "sdk"
    if lang == "python":
        shutil.copytree(sdk / "python" / "referee_sdk", directory / "referee_sdk",
                        dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        shutil.copyfile(sdk / "cpp" / "referee_sdk.hpp", directory / "referee_sdk.hpp")
    seats = 2 if 2 in game.player_counts else min(game.player_counts)
    opponents = " ".join(["--player builtin:greedy"] * (seats - 1))
    readme = _README[lang].format(title=game.title, game=game.name, dir=directory, opponents=opponents)
    (directory / "README.txt").write_text(readme, encoding="utf-8")
    return [f"wrote {target}", f"wrote {directory / 'README.txt'}", "", *readme.splitlines()[2:5]]
