"""Golden playthroughs, as OpenSpiel keeps them: a seeded random game written
out step by step (decision, the full state as text, events, scores, state
hash), kept in the repository and compared by the tests, so any change in a
game's behaviour shows up as a diff in review.

Regenerate after a deliberate rules change, and review the diff::

    python -m referee.conformance.playthrough tests/playthroughs

(rewrites every ``*.txt`` there from its own header; ``--new GAME PLAYERS
SEED`` adds one).  A playthrough stops after :data:`STEPS` steps, so long
games stay readable.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from referee.core import registry
from referee.core.log import state_hash

from . import playout

STEPS = 40
HEADER = "# playthrough: game={game} players={players} seed={seed} steps={steps}"


def playthrough_text(game_name: str, players: int, seed: int, steps: int = STEPS) -> str:
    """The playthrough of the kit's playout ``seed`` with ``players`` players."""
    game = registry.get_game(game_name)
    run = playout(game, seed, players)
    lines = [HEADER.format(game=game_name, players=players, seed=seed, steps=steps),
             "# written by referee.conformance.playthrough; regenerate, don't edit (see its docstring)",
             f"variant: {run.setup.variant}", "", "step 0 (start)", *_state(game, run.states[0])]
    for k, ((player, decision), state) in enumerate(zip(run.steps, run.states[1:]), 1):
        if k > steps:
            lines += ["", f"... {len(run.steps) - steps} more steps"]
            break
        _, events = run.states[k - 1].apply(player, decision)
        lines += ["", f"step {k}: player {player} decides {str(decision)!r}",
                  "events: " + json.dumps(events, sort_keys=True), *_state(game, state)]
    final = run.states[-1]
    if final.is_terminal() and len(run.steps) <= steps:
        lines += ["", "outcome: " + json.dumps(final.outcome().to_json(), sort_keys=True)]
    return "\n".join(lines) + "\n"


def _state(game, state) -> list[str]:
    scores = state.scores()
    return [f"scores: {json.dumps({str(k): v for k, v in scores.items()} if scores else None)}",
            f"hash: {state_hash(game, state)}", "state:",
            *("  " + line for line in game.board_text(state, None).rstrip("\n").split("\n"))]


def header_of(path: Path) -> dict[str, int | str]:
    """The parameters in a playthrough file's first line."""
    first = path.read_text(encoding="utf-8").split("\n", 1)[0]
    if not first.startswith("# playthrough: "):
        raise ValueError(f"{path}: line 1 is not a playthrough header")
    values = dict(word.split("=", 1) for word in first[len("# playthrough: "):].split())
    return {"game": values["game"], "players": int(values["players"]), "seed": int(values["seed"]),
            "steps": int(values["steps"])}


def regenerate(path: Path) -> None:
    header = header_of(path)
    path.write_text(playthrough_text(str(header["game"]), int(header["players"]),
                                     int(header["seed"]), int(header["steps"])), encoding="utf-8")


def main(argv: list[str]) -> int:
    if len(argv) == 5 and argv[1] == "--new":
        folder, game, players, seed = Path(argv[0]), argv[2], int(argv[3]), int(argv[4])
        path = folder / f"{game}-{players}p-seed{seed}.txt"
        path.write_text(playthrough_text(game, players, seed), encoding="utf-8")
        print(f"wrote {path}")
        return 0
    if len(argv) != 1:
        print("usage: python -m referee.conformance.playthrough DIR [--new GAME PLAYERS SEED]",
              file=sys.stderr)
        return 2
    for path in sorted(Path(argv[0]).glob("*.txt")):
        regenerate(path)
        print(f"rewrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
