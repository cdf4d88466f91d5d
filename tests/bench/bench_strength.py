"""How strong the built-in ``strong`` players are: win rates, a table, never a test.

Games are played in-process (the players' own ``choose`` functions on the
referee's states, the same code the player programs run), so a hundred games
take minutes and not hours.  Seats alternate (two players) or rotate (Tsuro),
boards cycle through boards/<game>/, seeds are fixed: the same command prints
the same table when strong runs on a node budget (the default here).

  strong vs greedy      every two-player game       (issue: >= 90% wins);
                        Quoridor games open with 4 random pawn moves
  Tsuro 4 players       strong vs three greedy      (issue: >= 60% wins)
  Quoridor vs OpenSpiel strong vs MCTS, random rollouts, 1000 simulations,
                        strong on a time budget equal to MCTS's measured
                        time per move                (issue: >= 70% wins);
                        OpenSpiel's C++ MCTSBot by default (about 0.1 s a
                        move), its Python MCTS with --mcts-impl python

Usage: .venv/bin/python tests/bench/bench_strength.py [--games N] [--nodes N]
       [--mcts-games N] [--mcts-impl cpp|python] [--only GAME] [--by-board]
       (defaults are small, for `make bench`)
"""
from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import time
from pathlib import Path
from typing import Any, Callable

from referee.core.game import Setup
from referee.games import blackhole, cantris, quoridor, tessella, tsuro
from referee.search import Budget

ROOT = Path(__file__).resolve().parents[2]
GAMES = {"cantris": cantris.GAME, "tessella": tessella.GAME, "blackhole": blackhole.GAME,
         "quoridor": quoridor.GAME, "tsuro": tsuro.GAME}
BOARDS = {
    "cantris": ["6x3-1.txt", "6x3-2.txt", "6x3-3.txt", "8x4-1.txt", "8x4-2.txt",
                "8x4-handout.txt", "10x5-1.txt", "10x5-2.txt", "10x5-3.txt"],
    "tessella": ["standard.txt", "close-quarters.txt", "capture-drill.txt"],
    "blackhole": ["standard.txt", "edges.txt", "lanes.txt"],
    "quoridor": ["standard-2p.txt", "pocket.txt", "standard-2p.txt+opening.premoves"],
    "tsuro": ["empty.txt", "center.txt"],
}
NODES = {"cantris": 10000, "tessella": 2000, "blackhole": 4000, "quoridor": 8000, "tsuro": 3000}
"""Node budgets per move worth about half a second of the default 1 s time
budget on the machine this was written on (search nodes/s: Cantris 12-30k,
Tessella 3k, Black Hole 6k, Quoridor 16k then, about 50k since its rules were
made faster; Tsuro counts simulated placements)."""


def load_player(game: str, name: str):
    """players/<game>/<name>.py as a module (it is a script, not a package)."""
    path = ROOT / "players" / game / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"bench_{game}_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tsuro_view(state, player: int) -> dict[str, Any]:
    """What the Tsuro greedy player reads from state.json."""
    view = dict(tsuro.GAME.view_json(state, player))
    view.update(step_kind=state.step_kind(), variant=state.variant, you=player)
    return view


Chooser = Callable[[Any, int, random.Random], Any]


def greedy(game: str) -> Chooser:
    module = load_player(game, "greedy")
    if game == "cantris":
        return lambda state, p, rng: module.best_removal(state.board)
    if game == "quoridor":
        return lambda state, p, rng: module.choose(state)
    if game == "tsuro":
        def tsuro_greedy(state, p, rng):
            view = tsuro_view(state, p)
            cells, markers = tsuro.codec.position_from_view(view)
            if state.step_kind() == "setup":
                return tsuro.decisions.Start(module.best_start(cells, markers))
            results = tsuro.board.outcomes(state.variant, cells, markers, p, state.hands[p - 1])
            legal = set(state.legal_decisions())

            def value(option):
                place, result = option
                return (place in legal, p not in result.eliminated, len(result.trails.get(p, ())),
                        len(set(result.eliminated) - {p}))
            return max(results, key=value)[0] if results else state.legal_decisions()[0]
        return tsuro_greedy
    return lambda state, p, rng: module.choose(state, rng)


def strong(game: str, nodes: int | None, seconds: float | None = None) -> Chooser:
    module = load_player(game, "strong")
    return lambda state, p, rng: module.choose(state, Budget(nodes, seconds), rng)


def initial(game: str, board: str, players: int, seed: int):
    g = GAMES[game]
    board, _, premoves = board.partition("+")
    path = ROOT / "boards" / game / board
    parsed = g.parse_board(path.read_text(), str(path), g.variants[0])
    settings = dict(g.settings)
    if premoves:
        settings["premoves_file"] = str(ROOT / "boards" / game / premoves)
    return g.initial_state(Setup(g.variants[0], players, seed, parsed, settings))


OPENING = {"quoridor": 4}
"""Random pawn moves (seeded) before a Quoridor game: strong and greedy are
both deterministic there, so without them a series would repeat a handful of games."""


def play(game: str, board: str, seats: list[Chooser], seed: int):
    """One game; returns the outcome."""
    state = initial(game, board, len(seats), seed)
    rngs = [random.Random(f"{seed}:{i}") for i in range(len(seats))]
    opening = random.Random(seed)
    for _ in range(OPENING.get(game, 0)):
        pawn = [d for d in state.legal_decisions() if isinstance(d, quoridor.rules.Move)]
        state, _ = state.apply(state.current_player(), opening.choice(pawn))
    while not state.is_terminal():
        p = state.current_player()
        auto = state.auto_decision()
        decision = auto if auto is not None else seats[p - 1](state, p, rngs[p - 1])
        state, _ = state.apply(p, decision)
    return state.outcome()


def series(game: str, hero: Chooser, villain: Chooser, games: int, players: int = 2,
           by_board: dict[str, list[str]] | None = None) -> tuple[int, int, int, list[int]]:
    """(wins, draws, losses, wins per seat) of ``hero`` with seats rotated and
    boards cycled; ``by_board``, if given, collects each board's results
    ("W", "D" or "L") per seat."""
    wins = draws = losses = 0
    by_seat = [0] * players
    boards = BOARDS[game]
    for k in range(games):
        seat = k % players
        seats = [villain] * players
        seats[seat] = hero
        board = boards[(k // players) % len(boards)]
        outcome = play(game, board, seats, seed=1000 + k)
        if outcome.winner == seat + 1:
            wins += 1
            by_seat[seat] += 1
            result = "W"
        elif outcome.winner is None and any(seat + 1 in group for group in outcome.ranking[:1]):
            draws += 1
            result = "D"
        else:
            losses += 1
            result = "L"
        if by_board is not None:
            by_board.setdefault(board, [""] * players)[seat] += result
    return wins, draws, losses, by_seat


def board_rows(by_board: dict[str, list[str]]) -> list[str]:
    """One line per board: won-drawn-lost from each seat."""
    def wdl(results: str) -> str:
        return "-".join(str(results.count(x)) for x in "WDL")
    return [f"  {board:<42}" + "".join(f"{f'seat {i + 1} ' + wdl(r):>18}" for i, r in enumerate(seats))
            for board, seats in by_board.items()]


def row(name: str, wdl: tuple, goal: float, seconds: float) -> str:
    w, d, l = wdl[:3]
    seats = "/".join(map(str, wdl[3])) if len(wdl) > 3 else ""
    n = w + d + l
    return (f"{name:<44}{n:>6}{w:>6}{d:>6}{l:>6}{100 * w / n:>8.0f}%{100 * goal:>7.0f}%{seconds:>9.1f}"
            f"  {seats}")


def mcts_bot(impl: str, game, sims: int, seed: int):
    """OpenSpiel's MCTS bot with random rollouts (one per leaf, UCT c = 2, no
    solver): ``cpp`` is pyspiel's C++ MCTSBot, ``python`` the same algorithm in
    open_spiel.python.algorithms.mcts, about 9 times slower (1.2 s a move
    against 0.14 s on the first moves of a game, on the development machine)."""
    if impl == "cpp":
        import pyspiel
        return pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, seed), 2.0, sims,
                               1000, False, seed, False)
    import numpy as np
    from open_spiel.python.algorithms import mcts
    return mcts.MCTSBot(game, 2, sims, mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed)),
                        random_state=np.random.RandomState(seed), solve=False)


def mcts_row(games: int, sims: int, impl: str = "cpp") -> str:
    """Quoridor 2p: strong against OpenSpiel's MCTS with random rollouts.

    Equal time: strong's time budget for a move is MCTS's mean wall time per
    move so far (before the first game, three MCTS moves on the empty board,
    not counted, give the first estimate).  Both means are printed, so the
    row shows that strong did not get more time than MCTS."""
    try:
        import pyspiel
        sys.path.insert(0, str(ROOT / "tests"))
        from test_quoridor_openspiel import ours
        if impl == "python":
            import numpy  # noqa: F401
            from open_spiel.python.algorithms import mcts  # noqa: F401
    except ImportError:
        return f"{'strong vs OpenSpiel MCTS (not installed)':<44}"
    game = pyspiel.load_game("quoridor", {"players": 2})
    hero_module = load_player("quoridor", "strong")
    spent = {"mcts": 0.0, "moves": 0, "strong": 0.0, "strong_moves": 0}
    warm_up = mcts_bot(impl, game, sims, seed=999)
    for _ in range(3):
        t0 = time.perf_counter()
        warm_up.step(game.new_initial_state())
        spent["mcts"] += time.perf_counter() - t0
        spent["moves"] += 1
    wins = draws = losses = 0
    by_seat = [0, 0]
    started = time.perf_counter()
    for k in range(games):
        seat = k % 2 + 1
        bot = mcts_bot(impl, game, sims, seed=k)
        theirs = game.new_initial_state()
        state = quoridor.rules.QuoridorState.start(2)
        while not state.is_terminal() and not theirs.is_terminal():
            actions = {ours(theirs.action_to_string(a), state): a for a in theirs.legal_actions()}
            t0 = time.perf_counter()
            if state.turn == seat:
                decision = hero_module.choose(state, Budget(None, spent["mcts"] / spent["moves"]))
                spent["strong"] += time.perf_counter() - t0
                spent["strong_moves"] += 1
            else:
                action = bot.step(theirs)
                spent["mcts"] += time.perf_counter() - t0
                spent["moves"] += 1
                decision = next(d for d, a in actions.items() if a == action)
            theirs.apply_action(actions[decision])
            state, _ = state.apply(state.turn, decision)
        if state.winner == seat:
            wins += 1
            by_seat[seat - 1] += 1
        elif state.winner is None:
            draws += 1
        else:
            losses += 1
        print(f"  vs MCTS game {k + 1}/{games}: strong (seat {seat}) {wins}-{draws}-{losses} so far, "
              f"s/move MCTS {spent['mcts'] / spent['moves']:.3f}, strong "
              f"{spent['strong'] / max(1, spent['strong_moves']):.3f}", file=sys.stderr, flush=True)
    per_move = spent["mcts"] / spent["moves"]
    strong_per_move = spent["strong"] / max(1, spent["strong_moves"])
    return row(f"Quoridor 2p vs MCTS-{impl} {sims} sims", (wins, draws, losses, by_seat), 0.70,
               time.perf_counter() - started) + (f"  (s/move: MCTS {per_move:.3f}, strong "
                                                 f"{strong_per_move:.3f})")


def rules_speed(count: int = 150) -> list[str]:
    """Legal-move generation and apply per second for every game, on
    positions sampled from random games (fresh copies: no cached moves)."""
    import dataclasses
    lines = [f"{'rules speed (random positions)':<44}{'legal/s':>12}{'apply/s':>12}"]
    for game, board, players in (("cantris", "8x4-1.txt", 2), ("cantris", "10x5-1.txt", 2),
                                 ("tessella", "standard.txt", 2), ("blackhole", "standard.txt", 2),
                                 ("quoridor", "standard-2p.txt", 2), ("tsuro", "empty.txt", 4)):
        rng = random.Random(7)
        states = []
        while len(states) < count:
            state = initial(game, board, players, rng.randrange(10**6))
            for _ in range(rng.randrange(60)):
                after, _ = state.apply(state.current_player(), rng.choice(list(state.legal_decisions())))
                if after.is_terminal():
                    break
                state = after
            states.append(state)
        moves = [rng.choice(list(s.legal_decisions())) for s in states]

        def best_rate(fn) -> float:
            """Calls per CPU second, the best of five rounds (the machine is shared)."""
            rates = []
            for _ in range(5):
                t0 = time.process_time()
                fn()
                rates.append(count / max(1e-9, time.process_time() - t0))
            return max(rates)

        legal = best_rate(lambda: [dataclasses.replace(s).legal_decisions() for s in states])
        apply = best_rate(lambda: [s.apply(s.current_player(), m) for s, m in zip(states, moves)])
        lines.append(f"{game + ' ' + board:<44}{legal:>12,.0f}{apply:>12,.0f}")
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("positional", nargs="?", help=argparse.SUPPRESS)  # run.py passes its args on
    parser.add_argument("--games", type=int, default=4, help="games per two-player row (issue: 100)")
    parser.add_argument("--tsuro-games", type=int, default=None, help="Tsuro 4-player games (default: --games)")
    parser.add_argument("--mcts-games", type=int, default=1, help="games against OpenSpiel MCTS (issue: 50)")
    parser.add_argument("--mcts-sims", type=int, default=1000)
    parser.add_argument("--mcts-impl", choices=("cpp", "python"), default="cpp",
                        help="OpenSpiel's C++ MCTSBot (default) or its Python MCTS")
    parser.add_argument("--nodes", type=int, default=None,
                        help="strong's node budget per move (default: NODES, per game)")
    parser.add_argument("--only", choices=sorted(GAMES), help="one game only")
    parser.add_argument("--by-board", action="store_true",
                        help="under each strong-vs-greedy row, won-drawn-lost per board and seat")
    args = parser.parse_args(argv)
    if not args.only:
        print("\n".join(rules_speed()), end="\n\n")
    nodes = {game: args.nodes or NODES[game] for game in GAMES}
    print("strong players: nodes per move " + ", ".join(f"{g} {n}" for g, n in nodes.items())
          + "; seats alternated/rotated, boards from boards/")
    print(f"{'match-up':<44}{'games':>6}{'won':>6}{'drawn':>6}{'lost':>6}{'wins':>9}{'goal':>8}{'seconds':>9}  wins by seat")
    for game in ("cantris", "tessella", "blackhole", "quoridor"):
        if (args.only and args.only != game) or not args.games:
            continue
        started = time.perf_counter()
        by_board: dict[str, list[str]] = {}
        wdl = series(game, strong(game, nodes[game]), greedy(game), args.games, by_board=by_board)
        print(row(f"{game} strong vs greedy", wdl, 0.90, time.perf_counter() - started), flush=True)
        if args.by_board:
            print("\n".join(board_rows(by_board)), flush=True)
    if (not args.only or args.only == "tsuro") and args.games:
        started = time.perf_counter()
        wdl = series("tsuro", strong("tsuro", nodes["tsuro"]), greedy("tsuro"), args.games)
        print(row("tsuro strong vs greedy (2 players)", wdl, 0.90, time.perf_counter() - started), flush=True)
    if (not args.only or args.only == "tsuro") and (args.tsuro_games or args.games):
        started = time.perf_counter()
        wdl = series("tsuro", strong("tsuro", nodes["tsuro"]), greedy("tsuro"),
                     args.tsuro_games or args.games, players=4)
        print(row("tsuro strong vs 3 greedy (4 players)", wdl, 0.60, time.perf_counter() - started), flush=True)
    if (not args.only or args.only == "quoridor") and args.mcts_games:
        print(mcts_row(args.mcts_games, args.mcts_sims, args.mcts_impl), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
