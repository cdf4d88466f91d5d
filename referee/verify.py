"""``replay --verify``: check a whole match folder against the rules.

Everything that can be recomputed from the start position, the seed and the
players' raw decisions is recomputed and compared: each applied decision (and
the random policy's substitute), each verdict that depends on legality (OK,
LATE, MALFORMED, ILLEGAL), events, scores, state hashes, the step snapshots,
and result.yaml (winner, ranking, scores, reason, step count, verdict counts).
What cannot be recomputed (timings, exit codes, output) is covered by the
log's hash chain: each line carries the hash of the line before it, the first
line the hash of match.yaml, and result.yaml the hash of the last line.  A
folder without result.yaml is reported as unfinished.

The chain has no secret key: it catches edits, cuts and mix-ups, not a forger
who recomputes every hash (DESIGN.md; docs/protocol.md says so)."""
from __future__ import annotations

import dataclasses
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.core.clock import SeatClock
from referee.core.errors import InputError
from referee.core.humans import HUMAN_SPECS
from referee.core.runner import Limits
from referee.core.game import GameState
from referee.core.log import line_hash, parse_record, state_hash
from referee.core.match import forfeit_outcome
from referee.core.rng import derived_rng, recorded_chance
from referee.core.verdicts import Verdict

HUMAN_COMMANDS = HUMAN_SPECS  # the seats that may resign (match.yaml's command)
from referee.replay import GameReplay, load


@dataclass
class Report:
    ok: bool
    message: str
    steps: int
    unfinished: bool = False


class Mismatch(Exception):
    """The first thing in the folder that does not match its recomputation."""


def _json(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples become lists...)."""
    return json.loads(json.dumps(value))


def _raw_lines(root: Path) -> list[bytes]:
    path = root / "log.jsonl"
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError("missing (is this a match folder?)", str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", str(path)) from None
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    elif lines:
        raise Mismatch(f"log.jsonl: its last line is cut off (no newline after step {len(lines)})")
    return lines


def _records(root: Path, lines: list[bytes]) -> list[dict[str, Any]]:
    """Every line a record (see :func:`parse_record`); a blank line is damage
    here too, since the hash chain counts lines."""
    path = root / "log.jsonl"
    records = []
    for number, line in enumerate(lines, start=1):
        record = parse_record(line, path, number)
        if record is None:
            raise InputError("a blank line (a log line is one JSON record per step)", str(path), number)
        records.append(record)
    return records


def verify_folder(root: Path) -> Report:
    """Check the match folder ``root``; InputError only for a folder that is
    not readable as a match folder at all (a match.yaml that does not load
    is a failed check when the log proves it was edited)."""
    root = Path(root)
    try:
        replay = load(root)
    except InputError as exc:
        if not _match_yaml_changed(root):
            raise
        return Report(False, "step 0: match.yaml was changed after the match was played (the log's "
                             f"first line holds another hash); it does not load either: {exc}", 0)
    try:
        lines = _raw_lines(root)
        records = _records(root, lines)
        return _Checker(replay, records, lines).run()
    except Mismatch as exc:
        return Report(False, str(exc), 0)


def _match_yaml_changed(root: Path) -> bool:
    """Whether the log's first line proves match.yaml changed since: a
    match.yaml that does not load is then a failed verification, as any
    other edit of it is, not a folder that cannot be checked."""
    try:
        with open(root / "log.jsonl", "rb") as log:
            first = json.loads(log.readline())
        return isinstance(first, dict) and first.get("prev") != line_hash((root / "match.yaml").read_bytes())
    except (OSError, ValueError, RecursionError):
        return False


class _Checker:
    def __init__(self, replay: GameReplay, records: list[dict[str, Any]], lines: list[bytes]) -> None:
        self.replay = replay
        self.game = replay.game
        self.records = records
        self.lines = lines
        self.match = replay.match
        self.players = len(replay.match["players"])
        self.policy = str(replay.match.get("policy") or self.game.default_policy(self.players))
        self.seed = recorded_chance(replay.match)
        self.status = {pid: "active" for pid in range(1, self.players + 1)}
        self.clocks = _clocks(replay.match.get("limits"), self.players)
        self.counts = {pid: Counter() for pid in range(1, self.players + 1)}

    def run(self) -> Report:
        game, replay = self.game, self.replay
        state = replay.initial
        expected = self.match.get("initial_hash")
        if expected and state_hash(game, state) != expected:
            raise Mismatch("step 0: the start position does not match match.yaml's initial_hash")
        self._snapshot(0, state)
        prev = line_hash((replay.root / "match.yaml").read_bytes())
        forfeit: tuple[int, Verdict | None] | None = None
        for k, (record, line) in enumerate(zip(self.records, self.lines), start=1):
            if record.get("step") != k:
                raise Mismatch(f"step {k}: the log's record is numbered {record.get('step')} "
                               "(lines removed, added or reordered)")
            if record.get("prev") != prev:
                if k == 1:
                    raise Mismatch("step 0: match.yaml was changed after the match was played "
                                   "(the log's first line holds another hash)")
                raise Mismatch(f"step {k - 1}: log line {k - 1} was changed after it was written, "
                               f"or lines were removed or reordered (step {k}'s chained hash differs)")
            prev = line_hash(line)
            if forfeit is not None:
                raise Mismatch(f"step {k}: the log goes on after player {forfeit[0]} forfeited")
            state, forfeit = self._step(k, record, state)
        last = len(self.records)
        result = self.replay.result
        if result is None:
            return Report(False, f"unfinished after step {last}: there is no result.yaml", last, True)
        if result.get("last_hash") != prev:
            if result.get("steps") != last:
                raise Mismatch(f"result.yaml: {result.get('steps')} steps, the log has {last} "
                               "(steps cut off or added)")
            raise Mismatch(f"step {last}: the last log line was changed after it was written "
                           "(result.yaml's last_hash differs)")
        if not state.is_terminal() and forfeit is None:
            raise Mismatch(f"step {last}: the log ends before the game does")
        self._result(result, state, forfeit, last)
        return Report(True, f"verified {last} steps: every decision, verdict, event, score, "
                            "state hash and snapshot recomputed, the log's hash chain and "
                            "result.yaml match", last)

    # ----- one step
    def _step(self, k: int, record: dict[str, Any], state: GameState):
        game = self.game
        if state.is_terminal():
            raise Mismatch(f"step {k}: the game was already over")
        player = state.current_player()
        if record.get("player") != player:
            raise Mismatch(f"step {k}: the log says player {record.get('player')} moved, "
                           f"but it was player {player}'s turn")
        try:
            verdict = Verdict(record.get("verdict"))
        except ValueError:
            raise Mismatch(f"step {k}: unknown verdict {record.get('verdict')!r}") from None
        self.counts[player][verdict.value] += 1
        self._clock(k, record, player, verdict)
        resigned = bool(record.get("resigned"))
        if verdict is Verdict.RESIGNED and not resigned:
            raise Mismatch(f"step {k}: verdict RESIGNED, but the step is not marked resigned")
        if resigned:
            self._check_resign(k, record, player, verdict)
            decision, fault = None, "forfeit"
        else:
            decision, fault = self._judge(k, record, state, player, verdict)
        forfeit = None
        if decision is not None:
            new_state, events = state.apply(player, decision)
            applied = str(decision)
        elif fault == "eject":
            new_state, events = state.eject(player)
            self.status[player] = "ejected"
            applied = None
        else:
            new_state, events = state, [{"type": "resign" if resigned else "forfeit", "player": player}]
            self.status[player] = "resigned" if resigned else "forfeited"
            forfeit = (player, None if resigned else verdict)
            applied = None
        if record.get("fault") != fault:
            raise Mismatch(f"step {k}: the log says fault {record.get('fault')!r}, the "
                           f"{self.policy} policy gives {fault!r}")
        if record.get("applied") != applied:
            raise Mismatch(f"step {k}: the log applies {record.get('applied')!r}, "
                           f"recomputed {applied!r}")
        if _json(events) != record.get("events"):
            raise Mismatch(f"step {k}: the log's events differ from the recomputed ones")
        scores = new_state.scores()
        if _json(None if scores is None else {str(p): v for p, v in scores.items()}) != record.get("scores"):
            raise Mismatch(f"step {k}: the log's scores differ from the recomputed ones")
        got = state_hash(game, new_state)
        if got != record["hash"]:
            raise Mismatch(f"step {k}: state hash {record['hash']} in the log, {got} recomputed")
        self._snapshot(k, new_state)
        return new_state, forfeit

    def _check_resign(self, k: int, record: dict[str, Any], player: int, verdict: Verdict) -> None:
        """Only a human at the keyboard resigns, and gives no decision doing so."""
        seat = self.replay.match["players"][player - 1]
        if not isinstance(seat, dict) or seat.get("command") not in HUMAN_COMMANDS:
            raise Mismatch(f"step {k}: player {player} resigned, but is not a human at the keyboard")
        # NO_DECISION: how logs before the RESIGNED verdict recorded a resignation
        if verdict not in (Verdict.RESIGNED, Verdict.NO_DECISION) or record.get("decision") is not None:
            raise Mismatch(f"step {k}: a resignation logs no decision and verdict RESIGNED")

    def _clock(self, k: int, record: dict[str, Any], player: int, verdict: Verdict) -> None:
        """The time bank follows from the logged wall times (rounded to 0.1 ms
        in the log, hence the tolerance)."""
        clock = self.clocks.get(player)
        if clock is None or record.get("auto"):
            return
        charge = clock.charge(float(record.get("wall_ms") or 0) / 1000)
        logged = record.get("bank_ms")
        if logged is None or abs(float(logged) - charge.left * 1000) > 0.5:
            raise Mismatch(f"step {k}: the log's time bank ({logged} ms) does not follow from "
                           f"the wall times ({charge.left * 1000:.1f} ms recomputed)")
        if charge.ran_out and verdict is not Verdict.TIMEOUT and charge.left == 0 and \
                float(record.get("wall_ms") or 0) / 1000 - charge.allowed > clock.limits.grace + 0.001:
            raise Mismatch(f"step {k}: the time bank ran out, but the verdict is {verdict.value}")

    def _judge(self, k: int, record: dict[str, Any], state: GameState, player: int,
               verdict: Verdict):
        """(the decision to apply or None, the fault) as the referee must have
        decided them, given the verdict; Mismatch where the verdict itself can
        be recomputed and differs."""
        raw = record.get("decision")
        whole = raw is not None and not record.get("decision_cut")
        if record.get("auto"):
            auto = state.auto_decision()
            if auto is None or verdict is not Verdict.OK:
                raise Mismatch(f"step {k}: an automatic step where the rules allow none")
            return auto, None
        parsed = None
        if whole and not record.get("file_problem"):
            try:
                parsed = self.game.parse_decision(state, raw)
            except Exception:  # noqa: BLE001 - DecisionError, as in the match
                parsed = None
        legal = parsed is not None and state.illegal_reason(parsed) is None
        if verdict.counts:
            if not whole:
                raise Mismatch(f"step {k}: verdict {verdict.value} but the decision is not in the log")
            if parsed is None:
                raise Mismatch(f"step {k}: verdict {verdict.value}, but {raw.strip()[:60]!r} "
                               "does not parse")
            if not legal:
                raise Mismatch(f"step {k}: verdict {verdict.value}, but {raw.strip()[:60]!r} is illegal: "
                               f"{state.illegal_reason(parsed)}")
            return parsed, None
        if verdict is Verdict.MALFORMED and whole and not record.get("file_problem") and parsed is not None:
            raise Mismatch(f"step {k}: verdict MALFORMED, but {raw.strip()[:60]!r} parses")
        if verdict is Verdict.ILLEGAL and whole and (parsed is None or legal):
            why = "does not parse" if parsed is None else "is legal"
            raise Mismatch(f"step {k}: verdict ILLEGAL, but {raw.strip()[:60]!r} {why}")
        if verdict is Verdict.NO_DECISION and raw is not None:
            raise Mismatch(f"step {k}: verdict NO_DECISION, but the log holds a decision")
        return self._fault(k, state, player)

    def _fault(self, k: int, state: GameState, player: int):
        if self.policy == "random":
            legal = list(state.legal_decisions())
            if legal:
                return derived_rng(self.seed, "random-policy", k).choice(legal), "random"
        if self.policy in ("eject", "random"):
            try:
                state.eject(player)
            except NotImplementedError:
                pass
            else:
                return None, "eject"
        return None, "forfeit"

    def _snapshot(self, k: int, state: GameState) -> None:
        path = self.replay.root / "step_logs" / f"step_{k}.txt"
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            if isinstance(exc, FileNotFoundError) and k and k == len(self.records) and self.replay.result is None:
                return  # the referee died between the step's log line and its snapshot
            raise Mismatch(f"step {k}: step_logs/step_{k}.txt is missing or unreadable") from None
        if text != self.game.snapshot_text(state, None):
            raise Mismatch(f"step {k}: step_logs/step_{k}.txt differs from the recomputed board")

    # ----- result.yaml
    def _result(self, result: dict[str, Any], state: GameState, forfeit, last: int) -> None:
        """Every field of result.yaml: recomputed, or copied from match.yaml
        (a swapped name or another game's name is a mismatch too)."""
        keys = set(map(str, result))
        if keys != RESULT_KEYS:
            odd = ", ".join(sorted(keys - RESULT_KEYS)) or "none"
            missing = ", ".join(sorted(RESULT_KEYS - keys)) or "none"
            raise Mismatch(f"result.yaml: unexpected keys ({odd}), missing keys ({missing})")
        match = self.match
        for key in ("game", "variant"):
            if result.get(key) != match.get(key):
                raise Mismatch(f"result.yaml: {key} is {result.get(key)!r}, match.yaml says {match.get(key)!r}")
        outcome = forfeit_outcome(state, self.status, *forfeit) if forfeit else state.outcome()
        want = outcome.to_json()
        for key in ("winner", "ranking", "scores", "reason"):
            if _json(result.get(key)) != _json(want[key]):
                raise Mismatch(f"result.yaml: {key} is {result.get(key)!r}, recomputed {want[key]!r}")
        if result.get("steps") != last:
            raise Mismatch(f"result.yaml: {result.get('steps')} steps, the log has {last}")
        if result.get("final_hash") != state_hash(self.game, state):
            raise Mismatch("result.yaml: final_hash differs from the recomputed final state")
        seats = set(self.status)
        logged = result.get("verdicts")
        if not isinstance(logged, dict) or set(map(_seat, logged)) != seats:
            raise Mismatch("result.yaml: verdicts are not one count per player")
        for pid, counts in self.counts.items():
            theirs = logged.get(pid) or logged.get(str(pid))
            if not isinstance(theirs, dict) or any(v not in VERDICTS or not isinstance(n, int)
                                                   for v, n in theirs.items()) \
                    or {v: n for v, n in theirs.items() if n} != {v: n for v, n in counts.items() if n}:
                raise Mismatch(f"result.yaml: player {pid}'s verdict counts differ from the log's")
        players = result.get("players")
        if not isinstance(players, dict) or set(map(_seat, players)) != seats:
            raise Mismatch("result.yaml: players are not one entry per seat")
        for pid, status in self.status.items():
            entry = players.get(pid) or players.get(str(pid))
            seat = self.match["players"][pid - 1]
            name = seat.get("name") if isinstance(seat, dict) else None
            if not isinstance(entry, dict) or set(entry) != {"name", "status"}:
                raise Mismatch(f"result.yaml: player {pid}'s entry is not a name and a status")
            if entry["name"] != name:
                raise Mismatch(f"result.yaml: player {pid} is named {entry['name']!r}, match.yaml "
                               f"names it {name!r}")
            if entry["status"] != status:
                raise Mismatch(f"result.yaml: player {pid} is {entry.get('status')!r}, the log makes "
                               f"it {status!r}")


RESULT_KEYS = {"game", "variant", "winner", "ranking", "scores", "reason", "steps", "players",
               "verdicts", "final_hash", "last_hash"}
VERDICTS = {v.value for v in Verdict}


def _seat(key: Any) -> int | None:
    """A seat number as YAML may give it (1 or "1")."""
    try:
        return int(key)
    except (TypeError, ValueError):
        return None


def _clocks(limits: Any, players: int) -> dict[int, SeatClock]:
    """A clock per seat when the match had a time bank (match.yaml's limits)."""
    if not isinstance(limits, dict) or limits.get("time_bank") is None:
        return {}
    known = {f.name for f in dataclasses.fields(Limits)}
    try:
        values = Limits(**{k: v for k, v in limits.items() if k in known})
    except TypeError:
        return {}
    return {pid: SeatClock(values) for pid in range(1, players + 1)}
