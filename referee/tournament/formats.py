"""Tournament formats: which tables play, given the results so far.

Pure logic, no I/O.  A format is asked again and again "which tables can play
now?" with the tables already finished (and their winners); elimination
brackets unfold as winners become known.  Because the answer depends only on
(entrants, seed, results), a resumed tournament takes the same decisions as an
uninterrupted one.

Entrants are ints (indices into the config's entrant list); a format receives
them in seed order, best seed first.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Mapping, Sequence

from referee.core.rng import derived_rng

BYE = -1
"""A phantom entrant filling an elimination bracket up to a power of two.
It loses every match without playing, so its opponent advances."""

FORMATS = ("round_robin", "single_elimination", "double_elimination", "swiss")


@dataclass(frozen=True)
class Table:
    """A group of entrants meeting: a pairing when two.  ``entrants`` is the
    seat order of the table's first game; the games rotate it."""

    id: str
    entrants: tuple[int, ...]


Done = Mapping[str, "int | None"]
"""Finished tables: table id -> winner (None where no winner is needed)."""

Points = Mapping[str, Mapping[int, float]]
"""Finished tables: table id -> each entrant's points over the table's games
(only Swiss needs them: its pairings follow the running score)."""


class RoundRobin:
    """Every group of ``size`` entrants meets once (every pair, for two-player
    games); or, with ``rounds``, that many rounds of tables drawn at random
    from the seed, entrants left over by the division sitting the round out."""

    needs_winner = False

    def __init__(self, seeded: Sequence[int], size: int = 2, rounds: int | None = None,
                 seed: int = 0) -> None:
        if rounds is None:
            groups = itertools.combinations(seeded, size)
            self.tables = [Table(f"rr{n:03d}", group) for n, group in enumerate(groups, 1)]
        else:
            self.tables = []
            sat_out = {e: 0 for e in seeded}
            for r in range(1, rounds + 1):
                order = list(seeded)
                derived_rng(seed, "round", r).shuffle(order)
                # those who sat out least sit out now, so game counts stay even
                resting = set(sorted(order, key=lambda e: sat_out[e])[:len(order) % size])
                for e in resting:
                    sat_out[e] += 1
                playing = [e for e in order if e not in resting]
                for t in range(len(playing) // size):
                    group = tuple(playing[t * size:(t + 1) * size])
                    self.tables.append(Table(f"r{r}t{t + 1}", group))

    def ready(self, done: Done, points: Points | None = None) -> list[Table]:
        return [t for t in self.tables if t.id not in done]

    def finished(self, done: Done, points: Points | None = None) -> bool:
        return all(t.id in done for t in self.tables)

    def expected_tables(self) -> int:
        return len(self.tables)

    def table_ids(self) -> list[str]:
        return [t.id for t in self.tables]

    def placement(self, done: Done) -> dict[int, int] | None:
        """Round robin places come from the standings' points alone."""
        return None

    def bracket_text(self, done: Done, names: Sequence[str],
                     notes: Mapping[str, str] | None = None) -> str | None:
        return None


# ----- elimination brackets --------------------------------------------------

@dataclass(frozen=True)
class Source:
    """Where one side of a bracket match comes from."""

    kind: str        # "seed" | "winner" | "loser"
    ref: int | str   # seed index (0 = top seed) or a match id


@dataclass(frozen=True)
class BracketMatch:
    id: str
    sides: tuple[Source, Source]
    section: str     # heading in the bracket text, e.g. "Winners' round 1"
    eliminates: int  # elimination depth: losers here placed by it (0 = nobody out)
    reset: bool = False  # a grand-final reset, played only if the first final was an upset


def seed_positions(size: int) -> list[int]:
    """Standard bracket order of seeds 1..size (size a power of two), so that
    seed 1 meets seed ``size`` first and the top seeds meet as late as
    possible: 4 -> [1, 4, 2, 3]."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [s for top in order for s in (top, total - top)]
    return order


class Bracket:
    """A single or double elimination bracket over the seeded entrants.

    The bracket is filled up to a power of two with BYEs; a BYE's opponent
    advances without a game, and a BYE dropping into the losers' bracket gives
    the same walk-over there.  Every real entrant but the champion is out
    after ``lives`` losses.
    """

    needs_winner = True

    def __init__(self, seeded: Sequence[int], double: bool) -> None:
        if len(seeded) < 2:
            raise ValueError("an elimination bracket needs at least two entrants")
        self.seeded = tuple(seeded)
        self.double = double
        self.lives = 2 if double else 1
        size = 1
        while size < len(seeded):
            size *= 2
        self.size = size
        self.matches: list[BracketMatch] = []
        self._build()
        self.by_id = {m.id: m for m in self.matches}

    # -- structure
    def _add(self, match_id: str, a: Source, b: Source, section: str, eliminates: int,
             reset: bool = False) -> Source:
        self.matches.append(BracketMatch(match_id, (a, b), section, eliminates, reset))
        return Source("winner", match_id)

    def _build(self) -> None:
        rounds = self.size.bit_length() - 1
        prefix = "W" if self.double else "R"
        heading = "Winners' round" if self.double else "Round"
        positions = seed_positions(self.size)
        sides = [Source("seed", s - 1) for s in positions]
        winners_rounds: list[list[str]] = []
        for r in range(1, rounds + 1):
            ids = [f"{prefix}{r}-{j + 1}" for j in range(len(sides) // 2)]
            depth = 0 if self.double else r
            sides = [self._add(ids[j], sides[2 * j], sides[2 * j + 1], f"{heading} {r}", depth)
                     for j in range(len(ids))]
            winners_rounds.append(ids)
        if not self.double:
            return
        champion = sides[0]
        challenger = self._build_losers(winners_rounds)
        depth = 2 * rounds - 1
        self._add("GF", champion, challenger, "Grand final", depth)
        self._add("GF2", champion, challenger, "Grand final reset", depth + 1, reset=True)

    def _build_losers(self, winners_rounds: list[list[str]]) -> Source:
        """The losers' bracket; returns where its champion comes from.

        Round 1 pairs the first-round losers; then each winners' round drops
        its losers in against the survivors (in reversed order every other
        round, so that two entrants do not meet again at once), and the
        survivors are halved between drops."""
        if len(winners_rounds) == 1:
            return Source("loser", winners_rounds[0][0])
        depth = 0

        def play_round(pairs: list[tuple[Source, Source]]) -> list[Source]:
            nonlocal depth
            depth += 1
            return [self._add(f"L{depth}-{j + 1}", a, b, f"Losers' round {depth}", depth)
                    for j, (a, b) in enumerate(pairs)]

        first = [Source("loser", m) for m in winners_rounds[0]]
        survivors = play_round(list(zip(first[0::2], first[1::2])))
        for r, ids in enumerate(winners_rounds[1:], start=2):
            drops = [Source("loser", m) for m in ids]
            if r % 2 == 0:
                drops.reverse()
            survivors = play_round(list(zip(survivors, drops)))
            if len(survivors) > 1:
                survivors = play_round(list(zip(survivors[0::2], survivors[1::2])))
        return survivors[0]

    # -- resolution
    def sides(self, done: Done) -> dict[str, tuple[int | None, int | None]]:
        """Both sides of every match (an entrant, BYE, or None while unknown),
        resolved in bracket order: a source always names an earlier match."""
        resolved: dict[str, tuple[int | None, int | None]] = {}
        for match in self.matches:
            a, b = match.sides
            resolved[match.id] = (self._designate(a, resolved, done), self._designate(b, resolved, done))
        return resolved

    def _designate(self, source: Source, resolved: Mapping[str, tuple[int | None, int | None]],
                   done: Done) -> int | None:
        if source.kind == "seed":
            index = int(source.ref)
            return self.seeded[index] if index < len(self.seeded) else BYE
        match_id = str(source.ref)
        a, b = resolved[match_id]
        if a is None or b is None:
            return None
        if BYE in (a, b):
            walkover = b if a == BYE else a
            return walkover if source.kind == "winner" else BYE
        winner = done.get(match_id)
        if winner is None:
            return None
        return winner if source.kind == "winner" else (b if winner == a else a)

    def who(self, source: Source, done: Done) -> int | None:
        """The entrant (or BYE) a source designates, None while unknown."""
        return self._designate(source, self.sides(done), done)

    def _wanted(self, match: BracketMatch, done: Done) -> bool:
        """A reset is wanted only if the losers' champion won the first final."""
        if not match.reset:
            return True
        winner = done.get("GF")
        return winner is not None and winner == self.who(self.by_id["GF"].sides[1], done)

    def ready(self, done: Done, points: Points | None = None) -> list[Table]:
        tables = []
        sides = self.sides(done)
        for match in self.matches:
            if match.id in done or not self._wanted(match, done):
                continue
            a, b = sides[match.id]
            if a is not None and b is not None and BYE not in (a, b):
                tables.append(Table(match.id, (a, b)))
        return tables

    def champion(self, done: Done) -> int | None:
        last = self.matches[-1]
        if self.double:
            first_final = self.by_id["GF"]
            if not self._wanted(last, done):
                return done.get(first_final.id)
        return done.get(last.id)

    def finished(self, done: Done, points: Points | None = None) -> bool:
        return self.champion(done) is not None

    def table_ids(self) -> list[str]:
        return [m.id for m in self.matches]

    def expected_tables(self) -> int:
        """Games in the usual case (no reset): every entrant but the champion
        loses ``lives`` times, one loss per played match."""
        return self.lives * (len(self.seeded) - 1)

    def losses(self, done: Done) -> dict[int, list[BracketMatch]]:
        """The played matches each entrant lost, in bracket order."""
        lost: dict[int, list[BracketMatch]] = {e: [] for e in self.seeded}
        sides = self.sides(done)
        for match in self.matches:
            winner = done.get(match.id)
            if winner is None:
                continue
            a, b = sides[match.id]
            lost[b if winner == a else a].append(match)
        return lost

    def placement(self, done: Done) -> dict[int, int]:
        """Final places: later eliminations place better; entrants out at the
        same depth share a place.  Only meaningful once finished."""
        depth = {e: (m[self.lives - 1].eliminates if len(m) >= self.lives else 10 ** 6)
                 for e, m in self.losses(done).items()}
        return {e: 1 + sum(1 for other in depth.values() if other > d) for e, d in depth.items()}

    def bracket_text(self, done: Done, names: Sequence[str],
                     notes: Mapping[str, str] | None = None) -> str:
        """The bracket as text; ``notes`` adds a remark to a match (e.g. how a
        tie was broken)."""
        seed_of = {e: i + 1 for i, e in enumerate(self.seeded)}

        def label(entrant: int | None) -> str:
            if entrant is None:
                return "?"
            if entrant == BYE:
                return "bye"
            return f"{names[entrant]} ({seed_of[entrant]})"

        lines: list[str] = []
        section = None
        sides = self.sides(done)
        for match in self.matches:
            if match.reset and not self._wanted(match, done):
                continue
            if match.section != section:
                section = match.section
                lines.append(f"{section}:" if not lines else f"\n{section}:")
            a, b = sides[match.id]
            if a == b == BYE:
                continue
            if BYE in (a, b):
                result = f"{label(b if a == BYE else a)} (walk-over)"
            else:
                winner = done.get(match.id)
                result = label(winner) if winner is not None else "?"
            note = (notes or {}).get(match.id)
            result += f"  [{note}]" if note else ""
            lines.append(f"  {match.id:<6} {label(a)} vs {label(b)}  ->  {result}")
        champion = self.champion(done)
        lines.append(f"\nChampion: {label(champion) if champion is not None else '?'}")
        return "\n".join(lines) + "\n"


# ----- Swiss --------------------------------------------------------------------

def swiss_default_rounds(entrants: int) -> int:
    """ceil(log2 N) + 2: enough rounds for a clear winner and a sorted middle."""
    return min(math.ceil(math.log2(max(entrants, 2))) + 2, swiss_max_rounds(entrants))


def swiss_max_rounds(entrants: int) -> int:
    """With no pairing repeated, a round robin's worth of rounds at most."""
    return entrants - 1 if entrants % 2 == 0 else entrants


@dataclass(frozen=True)
class SwissRound:
    number: int
    tables: tuple[Table, ...]
    bye: int | None


class Swiss:
    """A Swiss tournament: every round pairs entrants of equal running points,
    never twice the same pairing; with an odd field, the lowest-ranked entrant
    that has not had a bye sits out and scores a won pairing.

    Round 1 pairs the top half of the seeding against the bottom half (1 v
    N/2+1, 2 v N/2+2, ...); later rounds sort by points (then seed) and pair
    from the top, each entrant with the best-placed one it has not met, backing
    up where that would leave someone without a new opponent.  Seats are
    balanced by construction: every pairing plays each board from both seats.
    A round is paired only when the previous one is complete, from the results
    alone, so a resumed tournament pairs the same way.
    """

    needs_winner = False
    SEARCH_BUDGET = 200_000  # pairing attempts before a round is declared unpairable

    def __init__(self, seeded: Sequence[int], rounds: int | None = None, suite_size: int = 1) -> None:
        if len(seeded) < 2:
            raise ValueError("a Swiss tournament needs at least two entrants")
        self.seeded = tuple(seeded)
        self.rank = {e: i for i, e in enumerate(seeded)}
        self.rounds = rounds or swiss_default_rounds(len(seeded))
        self.bye_points = 2.0 * suite_size  # a won pairing: both seats of every board
        self._paired: dict[tuple, SwissRound | None] = {}  # (round, earlier results) -> pairing

    def played(self, done: Done, points: Points | None) -> tuple[list[SwissRound], bool]:
        """The rounds paired so far (the last possibly unfinished), and
        whether the tournament is over (all rounds done, or no new pairing
        exists)."""
        score = {e: 0.0 for e in self.seeded}
        met: dict[int, set[int]] = {e: set() for e in self.seeded}
        had_bye: set[int] = set()
        rounds: list[SwissRound] = []
        history: tuple = ()  # every earlier round's results: with the seeding, they decide the next pairing
        for number in range(1, self.rounds + 1):
            key = (number, history)
            if key not in self._paired:  # the planner asks after every game: pair each round once
                self._paired[key] = self._pair_round(number, score, met, had_bye)
            rnd = self._paired[key]
            if rnd is None:
                return rounds, True
            rounds.append(rnd)
            tables = rnd.tables
            if any(t.id not in done for t in tables):
                return rounds, False
            results = []
            for table in tables:
                a, b = table.entrants
                met[a].add(b)
                met[b].add(a)
                got = (points or {}).get(table.id, {})
                results.append((got.get(a, 0.0), got.get(b, 0.0)))
                for e in table.entrants:
                    score[e] += got.get(e, 0.0)
            history = (*history, tuple(results))
            bye = rnd.bye
            if bye is not None:
                had_bye.add(bye)
                score[bye] += self.bye_points
        return rounds, True

    def _pair_round(self, number: int, score: Mapping[int, float], met: Mapping[int, set[int]],
                    had_bye: set[int]) -> SwissRound | None:
        order = sorted(self.seeded, key=lambda e: (-score[e], self.rank[e]))
        bye = next((e for e in reversed(order) if e not in had_bye), None) if len(order) % 2 else None
        players = [e for e in order if e != bye]
        pairs = self._pair(players, met, first=number == 1)
        if pairs is None:
            return None
        return SwissRound(number, tuple(Table(f"sw{number}-{t}", pair) for t, pair in enumerate(pairs, 1)), bye)

    def _pair(self, players: list[int], met: Mapping[int, set[int]],
              first: bool) -> list[tuple[int, int]] | None:
        if first:
            half = len(players) // 2
            return list(zip(players[:half], players[half:]))
        budget = [self.SEARCH_BUDGET]

        def search(rest: list[int]) -> list[tuple[int, int]] | None:
            if not rest:
                return []
            top, others = rest[0], rest[1:]
            for i, other in enumerate(others):
                budget[0] -= 1
                if budget[0] < 0:
                    return None
                if other in met[top]:
                    continue
                tail = search(others[:i] + others[i + 1:])
                if tail is not None:
                    return [(top, other), *tail]
            return None

        return search(players)

    def ready(self, done: Done, points: Points | None = None) -> list[Table]:
        rounds, over = self.played(done, points)
        if over or not rounds:
            return []
        return [t for t in rounds[-1].tables if t.id not in done]

    def finished(self, done: Done, points: Points | None = None) -> bool:
        return self.played(done, points)[1]

    def expected_tables(self) -> int:
        return self.rounds * (len(self.seeded) // 2)

    def table_ids(self) -> list[str]:
        return [f"sw{r}-{t}" for r in range(1, self.rounds + 1)
                for t in range(1, len(self.seeded) // 2 + 1)]

    def byes(self, done: Done, points: Points | None) -> dict[int, float]:
        """Walk-over points of the byes of completed rounds."""
        result: dict[int, float] = {}
        for rnd in self.played(done, points)[0]:
            if rnd.bye is not None and all(t.id in done for t in rnd.tables):
                result[rnd.bye] = result.get(rnd.bye, 0.0) + self.bye_points
        return result

    def opponents(self, done: Done, points: Points | None) -> dict[int, list[int]]:
        """Whom each entrant met in finished pairings (for Buchholz)."""
        met: dict[int, list[int]] = {e: [] for e in self.seeded}
        for rnd in self.played(done, points)[0]:
            for table in rnd.tables:
                if table.id in done:
                    a, b = table.entrants
                    met[a].append(b)
                    met[b].append(a)
        return met

    def placement(self, done: Done) -> dict[int, int] | None:
        """Places come from the standings (points, Buchholz, rating)."""
        return None

    def bracket_text(self, done: Done, names: Sequence[str],
                     notes: Mapping[str, str] | None = None,
                     points: Points | None = None) -> str:
        """The pairings of every round, e.g. ``sw2-1  ann vs bob  3 : 1``."""
        lines: list[str] = []
        for rnd in self.played(done, points)[0]:
            lines.append(f"{'' if not lines else chr(10)}Round {rnd.number}:")
            for table in rnd.tables:
                a, b = table.entrants
                got = (points or {}).get(table.id)
                result = f"{got.get(a, 0):g} : {got.get(b, 0):g}" if got and table.id in done else "?"
                lines.append(f"  {table.id:<7} {names[a]} vs {names[b]}  {result}")
            if rnd.bye is not None:
                lines.append(f"  bye     {names[rnd.bye]}")
        return "\n".join(lines) + "\n"


def make_format(name: str, seeded: Sequence[int], size: int = 2, rounds: int | None = None,
                seed: int = 0, suite_size: int = 1) -> RoundRobin | Bracket | Swiss:
    if name == "swiss":
        return Swiss(seeded, rounds, suite_size)
    if name == "round_robin":
        return RoundRobin(seeded, size, rounds, seed)
    if name in ("single_elimination", "double_elimination"):
        return Bracket(seeded, double=name == "double_elimination")
    raise ValueError(f"unknown format {name!r}")
