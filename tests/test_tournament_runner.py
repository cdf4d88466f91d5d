"""The tournament runner with a fake match function: scheduling, tie-breaks,
journal, resume and standings, without starting any process."""
from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from referee.core.errors import InputError
from referee.core.rng import derived_rng
from referee.tournament.config import load_config
from referee.tournament.journal import GameJob, GameRecord, Journal
from referee.tournament.runner import Tournament
from referee.tournament.standings import compute_standings, csv_text
from referee.tournament.tables import Decision, decide, extra_jobs, regular_jobs
from referee.tournament.formats import Table


def write_config(folder: Path, entrants: int, fmt: str, **extra) -> Path:
    lines = ["game: cantris", f"format: {fmt}", "seed: 7", "out: out", "entrants:"]
    lines += [f"  - {{name: p{i}, command: 'builtin:random'}}" for i in range(entrants)]
    lines += [f"{key}: {json.dumps(value)}" for key, value in extra.items()]
    path = folder / "class.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


class FakePlay:
    """Deterministic results from the names and the seed: the higher pN
    usually wins, draws happen; scores follow the result.  Counts calls."""

    def __init__(self, fail_after: int | None = None) -> None:
        self.calls: list[str] = []
        self.fail_after = fail_after
        self.lock = threading.Lock()

    def __call__(self, job: GameJob, spec) -> dict:
        with self.lock:
            if self.fail_after is not None and len(self.calls) >= self.fail_after:
                raise RuntimeError("simulated crash of the referee")
            self.calls.append(job.key)
        strength = [int(name[1:]) for name in spec.names]
        rng = derived_rng(spec.seed, *spec.names)
        roll = rng.random()
        if roll < 0.2:
            ranking, winner = [[1, 2]], None
        else:
            best = 1 if (strength[0] >= strength[1]) == (roll < 0.8) else 2
            ranking, winner = [[best], [3 - best]], best
        scores = {str(s): 10.0 + (5 if s == winner else 0) for s in (1, 2)}
        return {"winner": winner, "ranking": ranking, "scores": scores, "reason": "fake",
                "verdicts": {"1": {"OK": 3}, "2": {"OK": 2, "TIMEOUT": int(roll > 0.95)}},
                "steps": 5}


def run(config_path: Path, jobs: int = 1, resume: bool = False, play=None):
    play = play or FakePlay()
    summary = Tournament(load_config(config_path)).run(jobs, resume, play=play, log=io.StringIO(),
                                                       check=lambda *record: None)  # no folders here
    return summary, play


@pytest.mark.parametrize("fmt,entrants", [("round_robin", 5), ("single_elimination", 6),
                                          ("double_elimination", 7)])
def test_resume_after_a_failure_gives_the_same_standings(tmp_path, fmt, entrants):
    whole = tmp_path / "whole"
    broken = tmp_path / "broken"
    whole.mkdir(), broken.mkdir()
    reference, play = run(write_config(whole, entrants, fmt))
    assert reference.plan.finished and reference.failure is None
    assert len(play.calls) == len(set(play.calls)) == reference.games

    config = write_config(broken, entrants, fmt)
    first, crashed = run(config, jobs=2, play=FakePlay(fail_after=5))
    assert first.failure and "simulated crash" in first.failure and not first.plan.finished
    assert 0 < first.games <= 5
    second, resumed = run(config, jobs=3, resume=True)
    assert len(crashed.calls) == first.games
    assert not set(resumed.calls) & set(crashed.calls)  # nothing replayed
    assert second.games == reference.games == first.games + len(resumed.calls)
    outputs = ["standings.csv", "games.csv"] + (["bracket.txt"] if fmt != "round_robin" else [])
    for name in outputs:
        assert (broken / "out" / name).read_text() == (whole / "out" / name).read_text()


def test_starting_over_an_existing_tournament_needs_resume(tmp_path):
    config = write_config(tmp_path, 3, "round_robin")
    run(config)
    with pytest.raises(Exception, match="--resume"):
        run(config)
    summary, play = run(config, resume=True)
    assert play.calls == [] and summary.plan.finished


def test_resume_refuses_a_changed_config(tmp_path):
    config = write_config(tmp_path, 3, "round_robin")
    run(config, play=FakePlay(fail_after=2))
    config.write_text(config.read_text().replace("seed: 7", "seed: 8"))
    with pytest.raises(Exception, match=r"config changed.*seed"):
        run(config, resume=True)


def test_round_robin_games_and_standings(tmp_path):
    summary, play = run(write_config(tmp_path, 4, "round_robin"), jobs=3)
    assert summary.games == 6 * 2  # 6 pairings, one board, both seats
    seats = [tuple(GameRecord.from_json(json.loads(line)).seats)
             for line in (tmp_path / "out" / "journal.jsonl").read_text().splitlines()]
    assert sorted(seats) == sorted([(a, b) for a in range(4) for b in range(4) if a != b])
    rows = summary.standings
    assert sum(r.wins for r in rows) == sum(r.losses for r in rows)
    assert sum(r.points for r in rows) == summary.games
    assert [r.points for r in rows] == sorted((r.points for r in rows), reverse=True)
    assert all(r.games == 6 for r in rows)


def test_elimination_outputs(tmp_path):
    summary, _ = run(write_config(tmp_path, 5, "double_elimination"), jobs=2)
    out = tmp_path / "out"
    bracket = (out / "bracket.txt").read_text()
    assert "Losers' round 1" in bracket and "Champion: p" in bracket
    champion = summary.standings[0]
    assert champion.place == 1 and f"Champion: {champion.name}" in bracket
    md = (out / "standings.md").read_text()
    assert "## Bracket" in md and "](games/W1-2-b1-s1/)" in md
    header = (out / "standings.csv").read_text().splitlines()[0].split(",")
    assert header[:9] == ["place", "name", "seed", "games", "wins", "draws", "losses", "points", "score"]
    assert {"TIMEOUT", "ILLEGAL", "CRASH", "MEMORY_LIMIT"} <= set(header)


def test_board_suite_is_played_from_both_seats(tmp_path):
    boards = tmp_path / "boards"
    boards.mkdir()
    for name, text in (("a.txt", "1 2 3\n2 3 1\n3 1 2\n"), ("b.txt", "3 2 1\n1 3 2\n2 1 3\n")):
        (boards / name).write_text(text)
    (boards / "README.md").write_text("not a board")
    summary, play = run(write_config(tmp_path, 2, "single_elimination", boards="boards"))
    assert sorted(play.calls)[:4] == ["R1-1-b1-s1", "R1-1-b1-s2", "R1-1-b2-s1", "R1-1-b2-s2"]


# ----- tie-break, journal and standings in isolation

def record(job: GameJob, winner: int | None, scores=(0, 0)) -> GameRecord:
    ranking = [[1, 2]] if winner is None else [[winner], [3 - winner]]
    return GameRecord.from_result(job, {"winner": winner, "ranking": ranking,
                                        "scores": {"1": scores[0], "2": scores[1]},
                                        "reason": "", "verdicts": {}, "steps": 1}, "f", 0)


def test_tie_break_points_then_score_then_extra_games_then_seed():
    table, rank = Table("W1-1", (4, 9)), {4: 1, 9: 0}  # entrant 9 is the better seed
    a, b = regular_jobs(table, 1, seed=1)
    assert a.seats == (4, 9) and b.seats == (9, 4) and a.seed == b.seed

    def outcome(done):
        return decide(table, {r.key: r for r in done}, 1, 1, True, rank)

    pending, decision = outcome([record(a, 1)])
    assert pending == [b] and decision is None
    assert outcome([record(a, 1), record(b, 2)])[1] == Decision(4, "points")
    assert outcome([record(a, 1, (9, 3)), record(b, 1, (7, 2))])[1] == Decision(4, "score")
    tied = [record(a, None, (5, 5)), record(b, None, (5, 5))]
    pending, decision = outcome(tied)
    x1, x2 = extra_jobs(table, 1)
    assert decision is None and pending == [x1, x2] and x1.extra and x1.seed != a.seed
    assert outcome(tied + [record(x1, 2), record(x2, 1)])[1] == Decision(9, "extra games")
    assert outcome(tied + [record(x1, 1), record(x2, 1)])[1] == Decision(9, "seed")


def test_points_for_bigger_tables():
    job = GameJob("t", "t", (5, 6, 7, 8), 0, 0)
    r = GameRecord.from_result(job, {"winner": None, "ranking": [[2, 3], [1], [4]], "scores": None,
                                     "reason": "", "verdicts": {}, "steps": 1}, "f", 0)
    assert [r.points(e) for e in (5, 6, 7, 8)] == [1 / 3, 2.5 / 3, 2.5 / 3, 0]
    assert [r.result_of(e) for e in (5, 6, 7, 8)] == ["loss", "draw", "draw", "loss"]
    rows = compute_standings([r], ["a", "b", "c", "d", "e", "f", "g", "h", "i"], [5, 6, 7, 8])
    assert [row.name for row in rows] == ["g", "h", "f", "i"]
    assert [row.place for row in rows] == [1, 1, 3, 4]


def test_journal_cuts_a_torn_line_and_appends_cleanly(tmp_path):
    journal = Journal(tmp_path)
    job = GameJob("R1-1-b1-s1", "R1-1", (0, 1), 0, 3)
    journal.append(record(job, 1))
    with open(journal.path, "ab") as f:
        f.write(b'{"key": "R1-1-b1-s2", "tab')  # killed in the middle of a write
    assert [r.key for r in journal.load()] == ["R1-1-b1-s1"]
    second = GameJob("R1-1-b1-s2", "R1-1", (1, 0), 0, 3)
    journal.append(record(second, 2))
    loaded = journal.load()
    assert [r.key for r in loaded] == ["R1-1-b1-s1", "R1-1-b1-s2"]
    assert loaded[1] == record(second, 2)
    assert csv_text(compute_standings(loaded, ["x", "y"], [0, 1])).splitlines()[1].startswith("1,x,1,2,2,0,0,2")


def _good_line(key: str = "R1-1-b1-s1", **change) -> bytes:
    data = record(GameJob(key, "R1-1", (0, 1), 0, 3), 1).to_json()
    data.update(change)
    return json.dumps(data).encode()


@pytest.mark.parametrize("line,why", [
    (b"not json", "not JSON (Expecting value at column 1)"),
    (b'{"key": "R1-1-b1-s2", "table": }', "not JSON (Expecting value at column 32)"),
    (b"[1, 2]", "expected a JSON object, got [1, 2]"),
    (b'"a record"', "expected a JSON object, got 'a record'"),
    (b'{"key":"junk"}', "'table' is missing"),
    (_good_line(folder=None), "'folder' must be a string, got None"),
    (_good_line(seats="01"), "'seats' must be a list of integers, got '01'"),
    (_good_line(board=True), "'board' must be an integer, got True"),
    (_good_line(seed=1.5), "'seed' must be an integer, got 1.5"),
    (_good_line(extra=0), "'extra' must be true or false, got 0"),
    (_good_line(winner="1"), "'winner' must be an integer or null, got '1'"),
    (_good_line(ranking=[[2], "1"]), "'ranking' must be a list of lists of integers"),
    (_good_line(scores={"one": 1}), "'scores' must be null or an object of player ids and numbers"),
    (_good_line(verdicts={"1": {"OK": "3"}}), "'verdicts' must be an object of player ids and verdict counts"),
    (_good_line(steps=None), "'steps' must be an integer, got None"),
    (_good_line(seconds="0.3"), "'seconds' must be a number, got '0.3'"),
    (_good_line(reason=["\x1b[2J"]), r"'reason' must be a string, got ['\x1b[2J']"),
    (b'{"key": "x\xff"}', "not UTF-8 text (byte 0xff at column 11)"),
    (b"[" * 100_000, "not JSON that can be read (maximum recursion depth exceeded"),
])
def test_a_journal_line_that_is_no_record_is_named_and_counts_for_nothing(tmp_path, line, why):
    # Without the sandbox a player can append to the journal: its line was a
    # KeyError or JSONDecodeError traceback on --resume, or (a value of the
    # wrong type) a record that broke the standings later.
    journal = Journal(tmp_path)
    journal.path.write_bytes(_good_line("R1-1-b1-s1") + b"\n" + line + b"\n" + _good_line("R1-1-b1-s2") + b"\n")
    warnings: list[str] = []
    loaded = journal.load(warnings.append)
    assert [r.key for r in loaded] == ["R1-1-b1-s1", "R1-1-b1-s2"]  # the records around it count
    assert len(warnings) == 1 and "\n" not in warnings[0] and "\x1b" not in warnings[0]
    assert warnings[0].startswith(f"{journal.path}:2: not counted: {why}")
    assert journal.path.read_bytes().count(b"\n") == 3  # the line is kept, as evidence


def test_a_game_recorded_twice_counts_once_and_the_line_that_does_not_count_is_named(tmp_path):
    # A copy of a line (or an older record of a game played again) was
    # dropped without the warning a line that is no record gets.
    journal = Journal(tmp_path)
    first, second = _good_line("R1-1-b1-s1"), _good_line("R1-1-b1-s2")
    replayed = _good_line("R1-1-b1-s2", steps=9)  # its game played again: a new record
    journal.path.write_bytes(b"\n".join([first, second, first, replayed, b"not json"]) + b"\n")
    warnings: list[str] = []
    loaded = journal.load(warnings.append)
    assert [(r.key, r.steps) for r in loaded] == [("R1-1-b1-s1", 1), ("R1-1-b1-s2", 9)]
    assert warnings == [
        f"{journal.path}:2: not counted: game R1-1-b1-s2 is recorded again at line 4, and the later record counts",
        f"{journal.path}:3: not counted: a copy of line 1 (game R1-1-b1-s1 counts once)",
        f"{journal.path}:5: not counted: not JSON (Expecting value at column 1); the game it records, "
        "if any, is played again"]


def test_resume_names_a_copied_journal_line_and_counts_its_game_once(tmp_path):
    config = write_config(tmp_path, 3, "round_robin")
    run(config)
    out = tmp_path / "out"
    standings = (out / "standings.csv").read_text()
    journal = out / "journal.jsonl"
    lines = journal.read_text().splitlines()
    journal.write_text("".join(f"{line}\n" for line in [*lines, lines[1]]))
    log = io.StringIO()
    play = FakePlay()
    summary = Tournament(load_config(config)).run(1, True, play=play, log=log, check=lambda *record: None)
    assert play.calls == [] and summary.plan.finished and summary.games == len(lines)
    assert log.getvalue().splitlines()[0] == (
        f"referee: warning: {journal}:{len(lines) + 1}: not counted: a copy of line 2 "
        f"(game {json.loads(lines[1])['key']} counts once)")
    assert (out / "standings.csv").read_text() == standings


def test_resume_plays_again_the_games_whose_journal_lines_are_no_records(tmp_path):
    config = write_config(tmp_path, 3, "round_robin")
    run(config)
    journal = tmp_path / "out" / "journal.jsonl"
    lines = journal.read_text().splitlines()
    bad = json.loads(lines[2])
    del bad["table"]
    damaged = ["not json", *lines[:2], json.dumps(bad), *lines[3:], '{"key": "junk"}']
    journal.write_text("".join(line + "\n" for line in damaged))
    log = io.StringIO()
    play = FakePlay()
    summary = Tournament(load_config(config)).run(1, True, play=play, log=log, check=lambda *record: None)
    assert play.calls == [bad["key"]] and summary.plan.finished  # that game alone, played again
    warnings = log.getvalue().splitlines()
    assert f"referee: warning: {journal}:1: not counted: not JSON" in warnings[0]
    assert f"referee: warning: {journal}:4: not counted: 'table' is missing" in warnings[1]
    assert f"referee: warning: {journal}:{len(damaged)}: not counted: 'table' is missing" in warnings[2]
    whole = tmp_path / "whole"
    whole.mkdir()
    run(write_config(whole, 3, "round_robin"))
    assert (tmp_path / "out" / "standings.csv").read_text() == (whole / "out" / "standings.csv").read_text()


def test_resume_refuses_an_entrant_program_that_changed_and_names_it(tmp_path):
    # Entrants were compared by their command line only: a program edited
    # between the start and --resume went unnoticed, and the standings
    # combined the games of both versions.
    (tmp_path / "p1.sh").write_text("echo 1\n")
    (tmp_path / "p2.py").write_text("print(2)\n")
    config = write_config(tmp_path, 3, "round_robin")
    config.write_text(config.read_text().replace("{name: p1, command: 'builtin:random'}",
                                                 "{name: p1, command: 'sh ./p1.sh'}")
                      .replace("{name: p2, command: 'builtin:random'}", "{name: p2, command: 'python3 p2.py'}"))
    run(config, play=FakePlay(fail_after=2))
    for change in ("edit", "remove"):
        if change == "edit":
            (tmp_path / "p2.py").write_text("print(3)\n")
        else:
            (tmp_path / "p2.py").write_text("print(2)\n")
            (tmp_path / "p1.sh").unlink()
        play = FakePlay()
        with pytest.raises(InputError) as caught:
            run(config, resume=True, play=play)
        changed = tmp_path / ("p2.py" if change == "edit" else "p1.sh")
        assert str(caught.value) == (f"entrant {changed.stem}'s program changed since this tournament "
                                     f"started ({changed}); restore it, or set another out: folder")
        assert play.calls == []
    (tmp_path / "p1.sh").write_text("echo 1\n")  # the same content again (a new file, a new time)
    summary, play = run(config, resume=True)
    assert summary.plan.finished and len(play.calls) == summary.games - 2
    state = json.loads((tmp_path / "out" / "tournament.json").read_text())
    assert state["programs"] == {"p0": {},  # a built-in: the referee's own
                                 "p1": {str(tmp_path / "p1.sh"): hashlib.sha256(b"echo 1\n").hexdigest()},
                                 "p2": {str(tmp_path / "p2.py"): hashlib.sha256(b"print(2)\n").hexdigest()}}


@pytest.mark.parametrize("state,expected", [
    ("not json\n", r"tournament.json:1:1: not JSON \(Expecting value\); this tournament cannot be resumed"),
    ("[]\n", r"tournament.json: not the state of a tournament \(no 'config' object\)"),
    ('{"config": 3}\n', r"tournament.json: not the state of a tournament"),
    (b"\xff\n", r"tournament.json: not UTF-8 text \(byte 0xff\)"),
])
def test_resume_with_a_damaged_state_file_is_one_line_naming_it(tmp_path, state, expected):
    config = write_config(tmp_path, 3, "round_robin")
    run(config, play=FakePlay(fail_after=2))
    path = tmp_path / "out" / "tournament.json"
    path.write_bytes(state if isinstance(state, bytes) else state.encode())
    play = FakePlay()
    with pytest.raises(InputError, match=expected):
        run(config, resume=True, play=play)
    assert play.calls == []


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc, where no folder can be made")
def test_an_output_folder_that_cannot_be_made_is_one_line_before_any_game(tmp_path):
    config = write_config(tmp_path, 3, "round_robin")
    config.write_text(config.read_text().replace("out: out", "out: /proc/referee-nope"))
    play = FakePlay()
    with pytest.raises(InputError, match=r"^cannot write the results folder /proc/referee-nope: "
                                         r"No such file or directory$"):
        run(config, play=play)
    assert play.calls == []


def test_a_state_file_that_cannot_be_written_leaves_no_folder_behind(tmp_path, monkeypatch):
    # A full disk: the folder made for it is removed, and the error says where.
    import errno

    from referee.tournament import runner

    def full(path, text):
        raise OSError(errno.ENOSPC, "No space left on device", str(path.with_name(".tournament.json.tmp")))

    monkeypatch.setattr(runner.files, "write_text", full)
    play = FakePlay()
    with pytest.raises(InputError) as caught:
        run(write_config(tmp_path, 3, "round_robin"), play=play)
    out = tmp_path / "out"
    assert str(caught.value) == (f"cannot write the results folder {out}: No space left on device "
                                 f"({out / '.tournament.json.tmp'})")
    assert not out.exists() and play.calls == []


def _files(folder: Path) -> dict[str, bytes | None]:
    """Every file and folder under ``folder`` (a file with its bytes)."""
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None
            for p in sorted(folder.rglob("*"))}


def test_a_run_in_a_folder_another_run_holds_is_refused_and_changes_nothing(tmp_path):
    # A --resume started while the tournament still ran removed the game
    # folders the first run was writing (as unfinished), both failed, and
    # both wrote partial standings.  The lock is held here as another
    # referee process holds it: an exclusive flock on the folder's lock file.
    fcntl = pytest.importorskip("fcntl")
    config = write_config(tmp_path, 3, "round_robin")
    run(config, play=FakePlay(fail_after=2))
    out = tmp_path / "out"
    (out / "games" / "rr002-b1-s1").mkdir(parents=True)  # the game the other run is playing
    (out / "games" / "rr002-b1-s1" / "log.jsonl").write_text("{}\n")
    before = _files(out)
    with open(out / ".referee-lock", "w") as other:
        fcntl.flock(other, fcntl.LOCK_EX)
        other.write("4242\n")
        other.flush()
        before[".referee-lock"] = b"4242\n"
        for resume in (True, False):
            play = FakePlay()
            with pytest.raises(InputError) as caught:
                run(config, resume=resume, play=play)
            assert str(caught.value) == (f"another referee is running this tournament in {out} (pid 4242); "
                                         "wait for it to end, or stop it")
            assert play.calls == [] and _files(out) == before
    summary, play = run(config, resume=True)  # once it has ended
    assert summary.plan.finished and len(play.calls) == summary.games - 2
    assert (out / ".referee-lock").read_text() == f"{os.getpid()}\n"


def test_a_new_tournament_another_run_is_starting_is_refused_and_a_killed_run_leaves_no_lock(tmp_path):
    # Two runs of a new tournament at once, the second while the first holds
    # the lock of the folder it made; once the first is killed (-9: no
    # clean-up of its own), the kernel has dropped its lock.
    config = write_config(tmp_path, 3, "round_robin")
    out = tmp_path / "out"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from pathlib import Path; "
         "from referee.tournament.lock import OutputLock; "
         "OutputLock(Path(sys.argv[1]), 'tournament', 'results folder').take(); "
         "print('locked', flush=True); sys.stdin.read()", str(out)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "locked\n"
        play = FakePlay()
        with pytest.raises(InputError, match=rf"^another referee is running this tournament in .* "
                                             rf"\(pid {holder.pid}\); wait for it to end, or stop it$"):
            run(config, play=play)
        assert play.calls == [] and sorted(p.name for p in out.iterdir()) == [".referee-lock"]
    finally:
        holder.kill()
        holder.wait()
    summary, _ = run(config)
    assert summary.plan.finished


HOSTILE = ["\x1b]0;TITLE\x07\x1b[31mred\u202eevil", "<img src=x onerror=alert(1)>|x",
           "a\rb,\"c\"\nd", "``` [x](javascript:alert(1)) *_e_* \\|"]
"""Entrant names a config may give: an escape sequence and a bidi override,
HTML and a table's pipe, a CR, a quote and a line break, a fence and a link."""
UNSAFE = ("\x1b", "\x07", "\u202e", "\r", "\n")


def test_entrant_names_are_shown_escaped_on_the_terminal_and_in_markdown_and_kept_in_csv(tmp_path):
    # The progress line escaped a name; the standings printed at the end,
    # the bracket, standings.md and bracket.txt had it raw (an OSC sequence
    # retitled the terminal, <img onerror> was HTML in standings.md, a '|'
    # split its Markdown row), and a CR in a name made games.csv unreadable.
    import csv

    import yaml

    from referee.tournament.standings import text_table

    path = tmp_path / "class.yaml"
    path.write_text(yaml.safe_dump({"game": "cantris", "format": "single_elimination", "seed": 7, "out": "out",
                                    "entrants": [{"name": n, "command": "builtin:random"} for n in HOSTILE]}))

    def play(job, spec):  # player 1 wins
        return {"winner": 1, "ranking": [[1], [2]], "scores": {"1": 2, "2": 1}, "reason": "fake",
                "verdicts": {}, "steps": 1}

    summary = Tournament(load_config(path)).run(1, False, play=play, log=io.StringIO(),
                                                check=lambda *record: None)
    shown = text_table(summary.standings) + summary.bracket  # what the command prints
    out = tmp_path / "out"
    bracket_txt = (out / "bracket.txt").read_text()
    assert bracket_txt == summary.bracket
    for text in (shown, (out / "standings.md").read_text()):
        assert not any(c in text.replace("\n", "") for c in UNSAFE)
    assert "\\x1b]0;TITLE\\x07\\x1b[31mred\\u202eevil" in shown
    assert len(text_table(summary.standings).splitlines()) == 1 + len(HOSTILE)  # a row each
    md = (out / "standings.md").read_text()
    head, _, rest = md.partition("\n````text\n")  # the bracket's fence, longer than the name's ```
    fenced, _, tail = rest.partition("\n````\n")
    assert summary.bracket.rstrip("\n") == fenced  # text in a code block: shown as it is, never HTML
    outside = head + tail
    assert "<img" not in outside and "&lt;img src=x onerror=alert(1)&gt;\\|x" in outside
    assert "[x](" not in outside.replace("\\[x\\](", "")
    table_rows = [line for line in md.splitlines() if line.startswith("| ")]
    assert len(table_rows) == 1 + len(HOSTILE) + 1 + summary.games  # standings and games, with headers
    for line in table_rows:  # no cell split by a name: the pipes no backslash escapes
        bare = line.replace("\\\\", "").replace("\\|", "")
        assert bare.count("|") == (14 if "| seed |" in line or line[2].isdigit() else 7)  # 13 or 6 cells
    for name in ("standings.csv", "games.csv"):  # names as they are, in valid CSV
        rows = list(csv.reader((out / name).open(newline="")))
        assert len({len(row) for row in rows}) == 1, name
    by_name = {row[1]: row for row in csv.reader((out / "standings.csv").open(newline=""))}
    assert set(HOSTILE) < set(by_name)
    games = list(csv.DictReader((out / "games.csv").open(newline="")))
    assert {g["player1"] for g in games} | {g["player2"] for g in games} == set(HOSTILE)


def test_tables_of_three_rotate_every_seat(tmp_path):
    lines = ["game: tsuro", "players: 3", "seed: 1", "out: out", "entrants:"]
    lines += [f"  - {{name: p{i}, command: 'builtin:random'}}" for i in range(4)]
    (tmp_path / "t.yaml").write_text("\n".join(lines) + "\n")

    def play(job, spec):  # the stronger (higher pN) ranks higher; no scores
        order = sorted(range(1, 4), key=lambda s: -int(spec.names[s - 1][1:]))
        return {"winner": order[0], "ranking": [[s] for s in order], "scores": None,
                "reason": "fake", "verdicts": {}, "steps": 1}

    summary = Tournament(load_config(tmp_path / "t.yaml")).run(2, False, play=play, log=io.StringIO())
    records = Journal(tmp_path / "out").load()
    assert summary.games == len(records) == 4 * 3  # C(4, 3) tables, three rotations each
    seats = {(e, r.seat_of(e)) for r in records for e in r.seats}
    assert seats == {(e, s) for e in range(4) for s in (1, 2, 3)}
    assert [row.name for row in summary.standings] == ["p3", "p2", "p1", "p0"]
    # p2: second (1/2) at the two tables with p3, first at the other; 3 games each
    assert [row.points for row in summary.standings] == [9, 6, 3, 0]


# A persistent player that notes, as it starts, what its seat folder shows
# (a game set up ahead must show no board before its turn), and each step it plays.
SEES_AT_START = """
import os, sys
sys.path.insert(0, {sdk!r})
from referee_sdk import read_board, run, save_decision
MARK = {marks!r} + "/" + str(os.getpid())
with open(MARK, "w") as f:
    f.write(" ".join(sorted(n + ":" + str(os.path.getsize("step_logs/" + n)) for n in os.listdir("step_logs")))
            + "|" + " ".join(sorted(os.listdir("."))) + "|")

def play_games(step):
    with open(MARK, "a") as f:
        f.write(" played")
    board = read_board()
    for r in range(len(board) - 1, -1, -1):
        for c, v in enumerate(board[r]):
            if v:
                save_decision(r, c)
                return

run(play_games)
"""


def _seeing_player(tmp_path: Path) -> tuple[Path, str]:
    """A persistent player that notes, as it starts, what its seat shows
    (SEES_AT_START), in a folder of marks; (that folder, its --player)."""
    import sys
    from conftest import PYTHON_SDK
    from referee.core import seats

    if not seats.available():
        pytest.skip("persistent players need a seat host")
    marks = tmp_path / "marks"
    marks.mkdir()
    program = tmp_path / "sees.py"
    program.write_text(SEES_AT_START.format(sdk=str(PYTHON_SDK), marks=str(marks)))
    return marks, f"persistent:{sys.executable} {program}"


def test_each_game_is_set_up_ahead_by_a_fresh_worker_and_shown_its_board_only_at_its_turn(tmp_path):
    # Each game is played by a fresh worker process with fresh players (as
    # isolated as before), but set up while the game before it plays: its
    # worker builds the folders and starts the seat hosts and persistent
    # players, then waits for its turn.  Until then no board is in the seat
    # folders and nothing is logged; at its turn, the players started ahead
    # are the ones that play.  A game set up and not played is called off.
    from conftest import BOARDS
    from referee.core.match import MatchSpec
    from referee.tournament.runner import WorkerPlay

    marks, player = _seeing_player(tmp_path)
    play = WorkerPlay()

    def game(n: int) -> tuple[GameJob, MatchSpec]:
        return GameJob(f"g{n}", "t", (0, 1), 0, n), MatchSpec(
            "cantris", [player, player], seed=n, sandbox="none",
            board=BOARDS / "cantris" / "6x3-1.txt", out=tmp_path / "games" / f"g{n}")

    def started() -> list[Path]:
        return list(marks.iterdir())

    try:
        assert play.ahead(*game(2)) and play.ahead(*game(3))
        assert not play.ahead(*game(4))  # enough set up: asked again later
        for _ in range(600):  # the players of games 2 and 3 have started (before their turn)
            if len(started()) >= 4:
                break
            threading.Event().wait(0.1)
        assert len(started()) == 4
        for n in (2, 3):
            assert (tmp_path / "games" / f"g{n}" / "match.yaml").is_file()
            assert (tmp_path / "games" / f"g{n}" / "log.jsonl").read_text() == ""  # no step yet
        assert play(*game(1))["steps"] > 0  # not set up ahead: a worker of its own, at once
        # Game 2's turn came once game 1 had played its last step (see the
        # next test); game 3's comes once game 2 has.
        assert (tmp_path / "games" / "g3" / "log.jsonl").read_text() == ""
        assert not play.ahead(*game(4))  # game 2, to go early, still counts among the two set up ahead
        for n in (2, 3):
            result = play(*game(n))
            assert result["verdicts"][1]["OK"] > 0 and result["verdicts"][2]["OK"] > 0
        assert len(started()) == 6  # games 2 and 3 were played by the players started ahead
        assert play.ahead(*game(4))
    finally:
        play.close()
    seen = [p.read_text().split("|") for p in marks.iterdir()]
    played = [s for s in seen if "played" in s[2]]
    assert len(played) == 6  # every player of games 1-3 played, none of game 4
    for logs, files, _ in seen:  # as it started: no snapshot (a reserved one empty), no view
        assert all(n.endswith(":0") for n in logs.split()) and not {"Board.txt", "state.json"} & set(files.split()), seen
    # game 4 was set up and never played: called off, its folder removed, no file left
    assert sorted(p.name for p in (tmp_path / "games").iterdir()) == ["g1", "g2", "g3"]




def test_the_next_game_goes_once_the_game_before_has_played_its_last_step(tmp_path):
    # What a game does after its last step (its result written, its seat
    # hosts reset or closed, its seats' files landed, its worker's exit) does not stand
    # between it and the next game: the first game set up ahead is told to
    # go then, without waiting for the runner to ask for it: game 2 plays
    # to its end here, never asked for.  Named again as a game to set up
    # ahead (the runner does so until it asks for it), it is not set up a
    # second time (a second worker would replace its folder as it plays).
    # A game told to go that the runner never asks for (it stopped) is
    # ended and its folder removed, as a game called off before its turn
    # leaves none.
    from conftest import BOARDS
    from referee.core.match import MatchSpec
    from referee.tournament import forkserver
    from referee.tournament.runner import WorkerPlay

    if not forkserver.available():
        pytest.skip("only a fork server's workers say when their last step is played")

    def game(n: int) -> tuple[GameJob, MatchSpec]:
        return GameJob(f"g{n}", "t", (0, 1), 0, n), MatchSpec(
            "cantris", ["builtin:random", "builtin:random"], seed=n, sandbox="none", replace=True,
            board=BOARDS / "cantris" / "6x3-1.txt", out=tmp_path / "games" / f"g{n}")  # (as a tournament's)

    play = WorkerPlay()
    try:
        assert play.ahead(*game(2))
        assert play(*game(1))["steps"] > 0
        assert play.ahead(*game(2))  # told to go already: not set up again
        for _ in range(600):
            if (tmp_path / "games" / "g2" / "result.yaml").exists():
                break
            threading.Event().wait(0.1)
        assert (tmp_path / "games" / "g2" / "result.yaml").exists()  # played, never asked for
    finally:
        play.close()
    assert sorted(p.name for p in (tmp_path / "games").iterdir()) == ["g1"]


def test_a_game_handed_over_no_longer_counts_among_those_set_up_ahead(tmp_path):
    # The runner hands game 2 (told to go early, once game 1 has played)
    # over from its own thread, then asks to set more up while that call may
    # not have come yet.  Counted as set up ahead until the call came, game 3
    # was set up or not depending on which thread ran first, and when not,
    # game 2 had no game chained to go once it had played: it waited for
    # game 2's worker to exit and for game 3's set-up.  Now the count is the
    # same either way.  (A stub launcher: the policy, no process.)
    from referee.core.match import MatchSpec
    from referee.tournament.runner import WorkerPlay

    class Launcher:
        def __init__(self) -> None:
            self.started, self.chained, self.went = 0, [], []

        def start(self, spec_line: str, errors: Path) -> int:
            self.started += 1
            return self.started

        def go(self, ident: int) -> None:
            self.went.append(ident)

        def after(self, ident: int, following: int) -> None:
            self.chained.append((ident, following))

        def off(self, ident: int) -> None:
            pass

        def close(self) -> None:
            pass

    def game(n: int) -> tuple[GameJob, MatchSpec]:
        return GameJob(f"g{n}", "t", (0, 1), 0, n), MatchSpec(
            "cantris", ["builtin:random", "builtin:random"], seed=n, out=tmp_path / "games" / f"g{n}")

    def staged(thread_first: bool) -> list[str]:
        """The games set up ahead once game 2 is handed over and the runner
        asks for more, game 2's thread calling before or after."""
        play = WorkerPlay()
        launcher = play._launcher = Launcher()
        assert play.ahead(*game(2)) and play.ahead(*game(3)) and not play.ahead(*game(4))
        first = play._worker(*game(1), tmp_path / "e1")  # game 1 goes; 2 is chained to go after it
        play._chain(first)
        assert launcher.chained == [(first, 1)]
        assert not play.ahead(*game(4))  # game 2, to go early, not handed over: still ahead
        assert not play.ahead(*game(4), playing={"g1"})
        play._live.discard(first)  # game 1 recorded; game 2 handed over
        calls = [lambda: play.ahead(*game(4), playing={"g2"}), lambda: play.ahead(*game(5), playing={"g2"})]
        if thread_first:
            play._chain(play._worker(*game(2), tmp_path / "e2"))
            assert launcher.chained[-1] == (1, 2)  # game 3 goes once game 2 has played
        assert [call() for call in calls] == [True, False]  # game 4 set up; 3 and 4 are two
        if not thread_first:
            play._chain(play._worker(*game(2), tmp_path / "e2"))
            assert launcher.chained[-1] == (1, 2)
        return sorted([*play._staged, *play._went])

    assert staged(thread_first=False) == staged(thread_first=True) == ["g3", "g4"]


def test_a_dead_fork_server_fails_its_games_instead_of_hanging_them(tmp_path):
    # The workers are forked from one server process: if it dies (killed by a
    # user, the OOM killer), the games waiting on it fail with a line that
    # says so (a referee failure: --resume plays them again), and a game set
    # up ahead does not outlive it.
    from conftest import BOARDS
    from referee.core.match import MatchSpec
    from referee.tournament import forkserver
    from referee.tournament.runner import GameFailed, WorkerPlay

    if not forkserver.available():
        pytest.skip("no fork server here")
    play = WorkerPlay()
    spec = MatchSpec("cantris", ["builtin:random", "builtin:random"], seed=1, sandbox="none",
                     board=BOARDS / "cantris" / "6x3-1.txt", out=tmp_path / "games" / "g1")
    try:
        assert play.ahead(GameJob("g1", "t", (0, 1), 0, 1), spec)
        play._launcher.proc.kill()
        with pytest.raises(GameFailed, match="fork server ended"):
            play(GameJob("g1", "t", (0, 1), 0, 1), spec)
    finally:
        play.close()


def test_a_game_set_up_ahead_and_interrupted_leaves_nothing(tmp_path):
    # Ctrl-C reaches every process of the terminal's group, the workers of
    # games set up ahead too: such a game played no step, so its folder goes
    # (a game already playing keeps what it logged, as before).
    import os
    import signal
    from conftest import BOARDS
    from referee.core.match import MatchSpec
    from referee.tournament.runner import WorkerPlay

    marks, player = _seeing_player(tmp_path)
    spec = MatchSpec("cantris", [player] * 2, seed=1, sandbox="none",
                     board=BOARDS / "cantris" / "6x3-1.txt", out=tmp_path / "games" / "g1")
    play = WorkerPlay()
    try:
        assert play.ahead(GameJob("g1", "t", (0, 1), 0, 1), spec)
        for _ in range(600):  # both players started: the game's folder is there
            if len(list(marks.iterdir())) == 2:
                break
            threading.Event().wait(0.1)
        player = int(next(marks.iterdir()).name)

        def parent(pid: int) -> int:
            with open(f"/proc/{pid}/stat") as f:
                return int(f.read().rsplit(")", 1)[1].split()[1])

        worker = parent(parent(player))  # player <- its seat host <- the game's worker
        assert (tmp_path / "games" / "g1" / "match.yaml").is_file()
        os.kill(worker, signal.SIGINT)
        for _ in range(600):
            if not (tmp_path / "games" / "g1").exists():
                break
            threading.Event().wait(0.1)
    finally:
        play.close()
    assert not (tmp_path / "games" / "g1").exists()
    assert not [p.name for p in (tmp_path / "games").iterdir()]  # its stderr file went too
    assert not [p for p in marks.iterdir() if "played" in p.read_text()]


def test_a_game_whose_worker_died_of_the_ctrl_c_first_leaves_no_output_file(tmp_path):
    """Ctrl-C reaches the game's worker too: where its death is seen (the
    game failed, its output file kept for the message) before the runner
    sees its own Ctrl-C, the file must still go, since the run was
    interrupted and the game is simply lost; so too when the Ctrl-C comes
    while the runner hands the game over (here it often does: the game
    "fails" at once).  test_tournament_e2e plays the common case for real."""
    import _thread
    import signal
    import time
    from referee.tournament.runner import GameFailed, WorkerPlay

    class DiedFirst(WorkerPlay):
        def ahead(self, job, spec, playing=()):
            return False  # no workers here

        def __call__(self, job, spec):
            errors = self._errors(job, spec)
            errors.write_text("Traceback (most recent call last):\nKeyboardInterrupt\n")
            _thread.interrupt_main()  # the runner's Ctrl-C, seen after this game's failure
            deadline = time.monotonic() + 60
            while not self._stopped and time.monotonic() < deadline:
                time.sleep(0.01)
            raise GameFailed(f"game {job.key}: the referee failed (exit 1): KeyboardInterrupt "
                             f"(full output: {errors})")

    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # (a test runner's may ignore it)
    try:
        summary, _ = run(write_config(tmp_path, 3, "round_robin"), jobs=1, play=DiedFirst())
    finally:
        signal.signal(signal.SIGINT, before)
    assert summary.interrupted and summary.failure is None and summary.games == 0
    assert not [p.name for p in (tmp_path / "out" / "games").iterdir()]

def test_a_finished_game_is_journaled_once_the_next_one_is_started(tmp_path, monkeypatch):
    """The journal's fsync is not between one game and the next: game 1's
    line is written only once game 2 has started (the write waits for that
    start: a runner that wrote first would wait in vain), and at the end
    every game has its line, in the order played."""
    plays: list[str] = []
    second = threading.Event()
    fake = FakePlay()

    def play(job, spec):
        plays.append(job.key)
        if len(plays) == 2:
            second.set()
        return fake(job, spec)

    append = Journal.append

    def append_after_the_next_start(self, record):
        if record.key == plays[0]:
            assert second.wait(10), "game 1 was journaled before game 2 started"
        append(self, record)

    monkeypatch.setattr(Journal, "append", append_after_the_next_start)
    summary, _ = run(write_config(tmp_path, 3, "round_robin"), jobs=1, play=play)
    assert summary.plan.finished and summary.failure is None and len(plays) > 2
    lines = (tmp_path / "out" / "journal.jsonl").read_text().splitlines()
    assert [json.loads(line)["key"] for line in lines] == plays


def test_a_result_yaml_reads_back_as_safe_load_reads_it():
    """The runner reads each game's result.yaml with libyaml's parser where
    PyYAML has it: the data must be what yaml.safe_load gives, for what the
    referee writes, however odd the text in it (a reason naming a player)."""
    import yaml

    from referee.core.files import yaml_text
    from referee.tournament.runner import load_result

    odd = ["plain", "", " lead", "trail ", "a: b", "- x", "#c", "'q'", '"d"', "yes", "no", "null", "~",
           "1e3", "0x1F", "012", "1_000", ".inf", "2024-01-01", "é\u2028ü\x85", "tab\there", "nl\nline",
           "\x07bell", "💥", "x" * 300, "a " * 60, "@at", "%p", "!t", "&a", "*b", "|", ">", "{", "[", ","]
    data = {"game": "cantris", "winner": 1, "ranking": [[1], [2]], "scores": {"1": 45, "2": 10.5},
            "reason": "; ".join(odd), "steps": 9, "players": {i: {"name": n} for i, n in enumerate(odd)},
            "verdicts": {1: {"OK": 5, "LATE": 0}}, "flags": [True, False, None, 0.1, -0.0, 10 ** 20]}
    text = yaml_text(data)
    read = load_result(text)
    assert read == yaml.safe_load(text)
    assert read["flags"] == data["flags"] and read["players"][24] == data["players"][24]


def test_a_lock_on_a_file_removed_meanwhile_is_taken_again_on_the_file_there(tmp_path, monkeypatch):
    """A refused start removes the lock file it made (undo); a run that had
    opened that file just before locked it after its release, a third run
    made and locked a new file of the name, and both ran.  A lock is now
    kept only on the file the name holds."""
    from referee.tournament import lock as lock_mod

    real, raced = lock_mod._try_lock, []

    def racing(fd: int) -> bool:
        if not raced:  # between this run's open and its lock: the file removed and made again
            raced.append(True)
            os.unlink(tmp_path / lock_mod.LOCK_FILE)
            (tmp_path / lock_mod.LOCK_FILE).write_text("")
        return real(fd)

    monkeypatch.setattr(lock_mod, "_try_lock", racing)
    held = lock_mod.OutputLock(tmp_path, "tournament", "results folder")
    held.take()
    assert raced and os.fstat(held.fd).st_ino == os.stat(tmp_path / lock_mod.LOCK_FILE).st_ino
    held.release()
