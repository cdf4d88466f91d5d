"""`referee play --games N`: the paired schedule and the SPRT stop as pure
logic, then real series of built-in players through the command line."""
from __future__ import annotations

import csv
import dataclasses
import json
import shutil
import sys
from pathlib import Path

import pytest
import yaml

from referee.tournament.journal import GameRecord
from referee.tournament.ratings import SprtSpec
from referee.tournament.series import SeriesPlanner, make_config, player_names

from conftest import assert_verifies, interruptible, referee

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "boards" / "cantris" / "6x3-1.txt"
OTHER = ROOT / "boards" / "cantris" / "6x3-2.txt"


def config(tmp_path: Path, games: int, sprt: SprtSpec | None = None, players=2, boards=(SMALL, OTHER)):
    commands = ["builtin:greedy", "builtin:random", "builtin:random", "builtin:random"][:players]
    game = "cantris" if players == 2 else "tsuro"
    return make_config(game, commands, boards if players == 2 else (), games, 9, tmp_path / "out",
                       tmp_path, sprt=sprt)


def finished(job, first_points: float) -> GameRecord:
    """A two-player game in which entrant 0 scored ``first_points`` (1, 0.5, 0)."""
    seat0 = job.seats.index(0) + 1
    if first_points == 0.5:
        ranking, winner = [[1, 2]], None
    else:
        winner = seat0 if first_points == 1 else 3 - seat0
        ranking = [[winner], [3 - winner]]
    return GameRecord.from_result(job, {"winner": winner, "ranking": ranking, "scores": None,
                                        "reason": "", "verdicts": {}, "steps": 1}, job.key, 0)


def outcome(folder: Path) -> dict:
    """result.yaml without the hash of the last log line (which covers timings)."""
    result = yaml.safe_load((folder / "result.yaml").read_text())
    result.pop("last_hash", None)
    return result


def test_pairs_swap_seats_on_the_same_board_and_seed(tmp_path):
    planner = SeriesPlanner(config(tmp_path, 6))
    jobs = planner.plan({}).pending
    assert [j.key for j in jobs] == ["p0001-b1-s1", "p0001-b1-s2", "p0002-b2-s1", "p0002-b2-s2",
                                     "p0003-b1-s1", "p0003-b1-s2"]
    assert [j.seats for j in jobs] == [(0, 1), (1, 0)] * 3
    assert [j.board for j in jobs] == [0, 0, 1, 1, 0, 0]  # boards drawn in turn
    seeds = [j.seed for j in jobs]
    assert seeds[0] == seeds[1] and seeds[2] == seeds[3] and len(set(seeds)) == 3
    assert SeriesPlanner(config(tmp_path, 6)).plan({}).pending == jobs  # seeds derive from --seed


def test_odd_game_counts_round_up_to_whole_pairs(tmp_path):
    assert len(SeriesPlanner(config(tmp_path, 5)).plan({}).pending) == 6


def test_series_ends_when_every_pair_is_recorded(tmp_path):
    planner = SeriesPlanner(config(tmp_path, 4))
    jobs = planner.plan({}).pending
    records = {j.key: finished(j, 1) for j in jobs[:3]}
    plan = planner.plan(records)
    assert not plan.finished and [j.key for j in plan.pending] == [jobs[3].key]
    records[jobs[3].key] = finished(jobs[3], 0.5)
    assert planner.plan(records).finished


def test_sprt_decides_on_complete_pairs_in_order(tmp_path):
    spec = SprtSpec(0, 10)
    planner = SeriesPlanner(config(tmp_path, 200, spec))
    jobs = planner.plan({}).pending
    # pairs 2.. split (one win each): evidence of equality, H0 comes
    records = {j.key: finished(j, 1 if j.seats == (0, 1) else 0) for j in jobs[2:40]}
    assert not planner.plan(records).finished  # pair 1 missing: nothing counts yet
    records.update({j.key: finished(j, 1 if j.seats == (0, 1) else 0) for j in jobs[:2]})
    rotations, state = planner.counted(records)
    assert state.decision == "H0" and state.llr <= spec.lower
    assert len(rotations) == state.pairs < 20  # games after the decision are not counted
    assert planner.plan(records).finished and planner.plan(records).pending == []
    # the same results arriving in another order give the same decision
    again = SeriesPlanner(config(tmp_path, 200, spec)).counted(dict(reversed(list(records.items()))))
    assert again[1] == state


def test_sprt_decides_nothing_while_every_pair_was_the_same_game(tmp_path):
    # Two deterministic players on one board: the Elo line said "not
    # measurable: all 5 pairs were the same game" and the SPRT accepted H0
    # after those 5 pairs, stopping the series.
    spec = SprtSpec(0, 10)
    planner = SeriesPlanner(config(tmp_path, 40, spec, boards=(SMALL,)))
    jobs = planner.plan({}).pending
    same = {j.key: finished(j, 1 if j.seats == (0, 1) else 0) for j in jobs}  # player 1 always wins
    rotations, state = planner.counted(same)
    assert state.decision is None and state.same and state.pairs == len(rotations) == 20
    assert state.llr <= spec.lower  # the LLR alone would have said H0
    assert planner.plan(dict(list(same.items())[:10])).pending  # it played on
    # pair 2 another game (longer), with the same score: the test decides as before
    other = SeriesPlanner(config(tmp_path, 40, spec, boards=(SMALL,)))
    differs = dict(same)
    differs[jobs[2].key] = dataclasses.replace(same[jobs[2].key], steps=2)
    _, state = other.counted(differs)
    assert state.decision == "H0" and not state.same and state.pairs == 5


def test_the_summary_says_the_sprt_cannot_measure_what_the_elo_line_cannot(tmp_path):
    import io

    from referee.tournament.series import run_series

    cfg = make_config("cantris", ["builtin:greedy", "builtin:greedy"], (SMALL,), 12, 9, tmp_path / "out",
                      tmp_path, sprt=SprtSpec(0, 10))
    summary = run_series(cfg, 1, play=lambda job, spec: {
        "winner": 1, "ranking": [[1], [2]], "scores": {"1": 5, "2": 3}, "reason": "", "verdicts": {}, "steps": 4},
        log=io.StringIO())
    assert summary.games == 12 and summary.plan.finished  # every game: no decision stopped it
    lines = summary.text.splitlines()
    assert "not measurable: all 6 pairs were the same game" in next(ln for ln in lines if ln.startswith("Elo "))
    sprt = next(ln for ln in lines if ln.startswith("SPRT "))
    assert sprt.startswith("SPRT elo0=0,elo1=10,alpha=0.05,beta=0.05: not measurable: all 6 pairs were the "
                           "same game, no decision"), sprt
    assert "accepted" not in summary.text


def test_names_are_short_and_unique():
    assert player_names(["builtin:greedy", "builtin:greedy", "python3 bot.py"]) == \
        ["greedy", "greedy#2", "python3 bot.py"]


def test_series_through_the_cli_is_reproducible(tmp_path):
    runs = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}"
        proc = referee("play", "cantris", "--player", "builtin:greedy", "--player", "builtin:random",
                       "--games", "4", "--seed", "5", "--boards", str(SMALL), "--boards", str(OTHER),
                       "--jobs", jobs, "--out", out)
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr.count("games  elapsed") == 4  # progress, one line per game off a terminal
        text = proc.stdout
        assert "Series: cantris, 4 games (2 pairs), seed 5, boards: 6x3-1.txt, 6x3-2.txt" in text
        assert "greedy      4" in text and "random      4" in text
        assert "Elo greedy - random:" in text and "over 2 pairs" in text
        assert "verdicts greedy: OK" in text
        games = sorted(p.name for p in (out / "games").iterdir())
        assert games == ["p0001-b1-s1", "p0001-b1-s2", "p0002-b2-s1", "p0002-b2-s2"]
        results = {g: outcome(out / "games" / g) for g in games}
        players = {g: [p["name"] for p in yaml.safe_load((out / "games" / g / "match.yaml")
                                                           .read_text())["players"]] for g in games}
        assert players["p0001-b1-s1"] == ["greedy", "random"] == players["p0001-b1-s2"][::-1]
        assert (out / "summary.txt").read_text() == text
        runs[jobs] = (results, (out / "games.csv").read_text(), text.split("series folder")[0])
    assert runs["1"] == runs["2"]  # same seed, same games, whatever the parallelism
    rows = list(csv.DictReader((tmp_path / "jobs1" / "games.csv").open()))
    assert [r["board"] for r in rows] == ["6x3-1.txt", "6x3-1.txt", "6x3-2.txt", "6x3-2.txt"]
    verified = referee("replay", tmp_path / "jobs1" / "games" / "p0002-b2-s2", "--verify")
    assert verified.returncode == 0, verified.stderr


def test_sprt_stops_the_series_and_names_the_hypothesis(tmp_path):
    out = tmp_path / "s"
    proc = referee("play", "cantris", "--player", "builtin:greedy", "--player", "builtin:random",
                   "--games", "60", "--seed", "2", "--board", str(SMALL), "--jobs", "1",
                   "--sprt", "elo0=0,elo1=10,alpha=0.05,beta=0.05", "--out", out)
    assert proc.returncode == 0, proc.stderr
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("SPRT"))
    assert "H1 accepted: greedy is stronger" in line and "LLR" in line and "bounds [-2.94, 2.94]" in line
    played = len(list((out / "games").iterdir()))
    assert played < 60 and played % 2 == 0


def test_three_player_series_rotates_seats_and_ranks(tmp_path):
    out = tmp_path / "t"
    proc = referee("play", "tsuro", "--player", "builtin:greedy", "--player", "builtin:random",
                   "--player", "builtin:random", "--games", "3", "--seed", "4", "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert "avg rank" in proc.stdout and "rating (95%)" in proc.stdout and "Elo" not in proc.stdout
    seats = [[p["name"] for p in yaml.safe_load((out / "games" / g / "match.yaml").read_text())["players"]]
             for g in ("p0001-b1-s1", "p0001-b1-s2", "p0001-b1-s3")]
    assert seats == [["greedy", "random", "random#2"], ["random", "random#2", "greedy"],
                     ["random#2", "greedy", "random"]]


@pytest.mark.parametrize("args,message", [
    (["--games", "0"], "--games must be at least 1"),
    (["--games", "99999999999"], "--games must be at most 100000"),
    (["--jobs", "2"], "add --games N"),
    (["--games", "2", "--sprt", "elo0=x"], "--sprt: 'elo0=x': 'x' is not a number"),
    (["--games", "2", "--boards", "nowhere/"], "--boards 'nowhere/' names no board file"),
    (["--games", "2", "--player", "builtin:random", "--sprt", "elo1=5"], "--sprt needs a two-player series"),
])
def test_bad_series_options_are_one_line_errors(tmp_path, args, message):
    game = "tsuro" if "--sprt" in args and "elo1=5" in args else "cantris"
    proc = referee("play", game, "--player", "builtin:random", "--player", "builtin:random", *args,
                   "--out", tmp_path / "x", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith("referee: error:") and message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x" / "games").exists()


def test_an_interrupted_series_resumes_with_its_random_seed(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "r"
    args = ["play", "cantris", "--player", "builtin:greedy", "--player", "builtin:random", "--games", "6",
            "--board", str(SMALL), "--jobs", "1", "--out", str(out)]  # no --seed: drawn at random
    exe = Path(sys.executable).with_name("referee")
    proc = subprocess.Popen([str(exe), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=interruptible)
    journal = out / "journal.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if journal.exists() and len(journal.read_text().splitlines()) >= 2:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "--resume" in err
    done = [line for line in journal.read_text().splitlines()]
    assert 2 <= len(done) < 6
    again = referee(*args, "--resume")
    assert again.returncode == 0, again.stderr
    assert "6 games (3 pairs)" in again.stdout
    keys = [yaml.safe_load(line)["key"] for line in journal.read_text().splitlines()]
    assert len(keys) == len(set(keys)) == 6  # nothing played twice
    refused = referee(*args)  # the folder holds a series: not without --resume or --replace
    assert refused.returncode == 2 and "--replace" in refused.stderr


def test_a_resume_clears_what_an_interrupted_run_left_of_a_game(tmp_path):
    # Ctrl-C reaches a worker set up ahead while it removes its called-off
    # game's folder, and the runner kills it half-way: the folder is left
    # without match.yaml, which the game's own --replace refuses (the test
    # above met it on a busy machine).  The resume removes it and plays it.
    out = tmp_path / "r"
    args = ["play", "cantris", "--player", "builtin:greedy", "--player", "builtin:random", "--games", "4",
            "--board", str(SMALL), "--seed", "3", "--jobs", "1", "--out", str(out)]
    assert referee(*args).returncode == 0
    whole = {name: (out / name).read_bytes() for name in ("games.csv", "summary.txt")}
    journal = out / "journal.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    journal.write_text("".join(lines[:-1]))
    game = out / "games" / yaml.safe_load(lines[-1])["key"]
    shutil.rmtree(game)
    (game / "players" / "p1" / "step_logs").mkdir(parents=True)  # what a killed removal left
    (game / "players" / "p1" / "stdout.txt").write_text("")
    again = referee(*args, "--resume")
    assert again.returncode == 0, again.stderr
    assert len(journal.read_text().splitlines()) == 4 and (game / "result.yaml").is_file()
    assert {name: (out / name).read_bytes() for name in whole} == whole
    assert_verifies(game)


TIMINGS = {"wall_ms", "cpu_ms", "peak_kb", "start_ms", "prev", "bank_ms", "grace_ms"}


def _timeless(path: Path):
    """A match folder file as it must come out again: log lines without their
    timings (and the hash chain over them), result.yaml without the last
    line's hash, anything else byte for byte."""
    import json

    if path.name == "log.jsonl":
        return [{k: v for k, v in json.loads(line).items() if k not in TIMINGS}
                for line in path.read_text().splitlines()]
    if path.name == "result.yaml":
        return outcome(path.parent)
    return path.read_bytes()


def test_games_set_up_ahead_log_what_the_same_game_played_alone_logs(tmp_path):
    # A series sets each game up while the one before plays (in a worker
    # forked from a fork server, where there is one): each game's folder is
    # that of the same game played alone, byte for byte but for timings.
    import io

    from referee.core.match import run_match
    from referee.tournament.series import Series

    cfg = make_config("cantris", ["builtin:greedy", "builtin:random"], (SMALL,), 2, 9,
                      tmp_path / "out", tmp_path, sandbox="none")
    series = Series(cfg)
    summary = series.run(1, resume=False, log=io.StringIO())
    assert summary.games == 2 and not summary.failure
    for job in (job for rotation in series.planner.by_rotation for job in rotation):
        spec = series.spec(job)
        played = Path(spec.out)
        spec.out = tmp_path / "alone" / job.key
        run_match(spec)
        names = sorted(str(p.relative_to(spec.out)) for p in Path(spec.out).rglob("*") if p.is_file())
        assert names == sorted(str(p.relative_to(played)) for p in played.rglob("*") if p.is_file())
        for name in names:
            assert _timeless(played / name) == _timeless(Path(spec.out) / name), (job.key, name)


def test_the_summary_shows_names_as_play_shows_them(tmp_path):
    # A name (a command, or a config's names:) reached the terminal raw in
    # the summary: an OSC sequence retitled it, a bidi override reversed
    # the line.  The progress lines escaped it already.
    import io

    from referee.tournament.series import run_series

    evil = "\x1b]0;TITLE\x07\x1b[31mred\u202eevil"
    cfg = make_config("cantris", ["builtin:greedy", "builtin:random"], (SMALL,), 2, 9, tmp_path / "out",
                      tmp_path, names=[evil, "b"])
    summary = run_series(cfg, 1, play=lambda job, spec: {
        "winner": 1, "ranking": [[1], [2]], "scores": None, "reason": "", "verdicts": {}, "steps": 1},
        log=io.StringIO())
    assert not any(c in summary.text for c in ("\x1b", "\x07", "\u202e"))
    assert "verdicts \\x1b]0;TITLE\\x07\\x1b[31mred\\u202eevil: OK 0; faults: none" in summary.text
    assert (tmp_path / "out" / "summary.txt").read_text() == summary.text
    assert {row[3] for row in csv.reader((tmp_path / "out" / "games.csv").open(newline=""))} == \
        {"player1", evil, "b"}  # games.csv keeps the names as they are


def test_a_resume_refuses_a_player_program_that_changed(tmp_path):
    # The series' players were compared by their commands only: a program
    # edited before --resume went unnoticed, and the summary counted games
    # of both versions.
    import io

    from referee.core.errors import InputError
    from referee.tournament.series import run_series

    bot = tmp_path / "slowgreedy.sh"
    bot.write_text("#!/bin/sh\necho 0 > decision.txt\n")
    cfg = make_config("cantris", ["builtin:greedy", "./slowgreedy.sh"], (SMALL,), 6, 9, tmp_path / "out", tmp_path)
    played: list[str] = []

    def play(job, spec):
        if len(played) == 2:
            raise RuntimeError("stopped")
        played.append(job.key)
        return {"winner": 1, "ranking": [[1], [2]], "scores": None, "reason": "", "verdicts": {}, "steps": 1}

    assert run_series(cfg, 1, play=play, log=io.StringIO()).failure
    bot.write_text("#!/bin/sh\necho 1 > decision.txt\n")
    with pytest.raises(InputError) as caught:
        run_series(cfg, 1, play=play, log=io.StringIO(), resume=True)
    assert str(caught.value) == (f"player ./slowgreedy.sh's program changed since this series started ({bot}); "
                                 "restore it, or give another --out folder")
    assert played == ["p0001-b1-s1", "p0001-b1-s2"]


def test_a_series_takes_a_shipped_board_by_its_name_as_a_single_match_does(tmp_path):
    # `--board 6x3-1` played a single match and failed a series with "cannot read".
    out = tmp_path / "s"
    done = referee("play", "cantris", "--board", "6x3-1", "--player", "builtin:random", "--player",
                   "builtin:greedy", "--games", "2", "--seed", "3", "--out", out, "--quiet", "--sandbox", "none")
    assert done.returncode == 0, done.stderr
    assert "boards: 6x3-1.txt" in (out / "summary.txt").read_text()
    wrong = referee("play", "cantris", "--board", "6x3-9", "--player", "builtin:random", "--player",
                    "builtin:greedy", "--games", "2", "--out", tmp_path / "t", "--sandbox", "none")
    assert wrong.returncode != 0 and "Traceback" not in wrong.stderr
    assert "6x3-9: no such file, nor a shipped board of that name (shipped cantris boards:" in wrong.stderr


def test_the_summary_says_why_an_entrant_faulted(tmp_path):
    # "faults: CRASH 4" alone sent a student into the games' logs to learn
    # that the bot never started: the summary quotes its first fault.
    broken = tmp_path / "broken.py"
    broken.write_text("import sys\n1 / 0\n")
    out = tmp_path / "s"
    proc = referee("play", "cantris", "--player", f"{sys.executable} {broken}", "--player", "builtin:random",
                   "--games", "4", "--seed", "5", "--boards", str(SMALL), "--out", out)
    assert proc.returncode == 0, proc.stderr
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("verdicts ") and "broken" in ln)
    assert "; faults: CRASH 4; the first: p0001-b1-s1, step 1, player 1: CRASH: exit status 1 without " \
           "writing decision.txt (stderr: ZeroDivisionError: division by zero at broken.py:2)" in line, line
    assert "the first" not in next(ln for ln in proc.stdout.splitlines() if ln.startswith("verdicts random"))
    assert (out / "summary.txt").read_text() == proc.stdout


def _series(out: Path, *more: str):
    return referee("play", "cantris", "--player", "builtin:greedy", "--player", "builtin:random",
                   "--board", str(SMALL), "--seed", "3", "--jobs", "1", "--sandbox", "none", "--out", out, *more)


def test_a_refused_rerun_speaks_of_the_series_and_its_options(tmp_path):
    # The messages were a tournament's: "the config changed since this
    # tournament started (games); ... set another out: folder", and a rerun
    # was pointed only at --replace, which deletes the series.
    out = tmp_path / "s"
    assert _series(out, "--games", "2").returncode == 0
    changed = _series(out, "--games", "4", "--resume")
    assert changed.returncode == 2
    assert changed.stderr.strip().splitlines() == [
        "referee: error: the options changed since this series started (--games); run it with the ones it "
        "started with, or give another --out folder"]
    again = _series(out, "--games", "2")
    assert again.returncode == 2 and len(again.stderr.strip().splitlines()) == 1
    assert f"output folder {out} already holds a series: add --resume to finish it, or --replace" in again.stderr
    assert _series(out, "--games", "2", "--resume").returncode == 0


def test_a_series_another_run_holds_is_refused_and_nothing_deleted(tmp_path):
    # Two runs in one series folder (a --resume while it still ran, or
    # --replace) removed each other's games.  The running series is stood
    # in for by its lock, held here.
    fcntl = pytest.importorskip("fcntl")
    out = tmp_path / "s"
    assert _series(out, "--games", "2").returncode == 0
    with open(out / ".referee-lock", "w") as running:
        fcntl.flock(running, fcntl.LOCK_EX)
        running.write("4242\n")
        running.flush()
        tree = {p: p.read_bytes() if p.is_file() else None for p in sorted(out.rglob("*"))}
        for more in (["--resume"], ["--replace"], []):
            refused = _series(out, "--games", "2", *more)
            assert refused.returncode == 2, more
            assert refused.stderr.splitlines() == [
                f"referee: error: another referee is running this series in {out} (pid 4242); "
                "wait for it to end, or stop it"]
            assert {p: p.read_bytes() if p.is_file() else None for p in sorted(out.rglob("*"))} == tree
    again = _series(out, "--games", "2", "--replace")  # once it has ended
    assert again.returncode == 0, again.stderr
    assert (out / ".referee-lock").read_text().strip().isdigit() and (out / "summary.txt").is_file()


def test_replace_never_takes_a_tournaments_folder_for_a_series(tmp_path):
    # A tournament's results folder has a tournament.json too: --replace
    # deleted it.
    out = tmp_path / "results"
    out.mkdir()
    (out / "tournament.json").write_text(json.dumps({"config": {"format": "round_robin"}}))
    (out / "journal.jsonl").write_text("{}\n")
    refused = _series(out, "--games", "2", "--replace")
    assert refused.returncode == 2 and "is not a series folder" in refused.stderr
    plain = _series(out, "--games", "2")
    assert plain.returncode == 2 and "holds no series" in plain.stderr and "use --replace" not in plain.stderr
    assert sorted(p.name for p in out.iterdir()) == ["journal.jsonl", "tournament.json"]


def test_a_resume_names_a_journal_line_that_is_no_record_and_plays_its_game_again(tmp_path):
    out = tmp_path / "s"
    assert _series(out, "--games", "4").returncode == 0
    summary = (out / "summary.txt").read_text()
    journal = out / "journal.jsonl"
    lines = journal.read_text().splitlines()
    bad = json.loads(lines[1])
    bad["seats"] = "x"
    journal.write_text("".join(f"{line}\n" for line in [lines[0], json.dumps(bad), *lines[2:], "not json"]))
    again = _series(out, "--games", "4", "--resume")
    assert again.returncode == 0, again.stderr
    assert "Traceback" not in again.stderr
    assert f"referee: warning: {journal}:2: not counted: 'seats' must be a list of integers, got 'x'" in again.stderr
    assert f"referee: warning: {journal}:5: not counted: not JSON (Expecting value at column 1)" in again.stderr
    assert len(again.stderr.split("games  elapsed")) == 2  # one game played again: the one whose line was bad
    assert (out / "summary.txt").read_text() == summary
    assert json.loads(journal.read_text().splitlines()[-1])["key"] == bad["key"]


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc, where no folder can be made")
def test_a_series_folder_that_cannot_be_made_is_one_line_before_any_game(tmp_path):
    proc = _series(Path("/proc/referee-nope"), "--games", "2")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "referee: error: cannot write the series folder /proc/referee-nope: No such file or directory"]


def test_the_series_options_may_come_from_a_config_as_the_docs_say(tmp_path):
    # docs/series.md said they were command-line flags only; the config took them.
    (tmp_path / "b").mkdir()
    for board in (SMALL, OTHER):
        shutil.copy(board, tmp_path / "b")
    (tmp_path / "s.yaml").write_text(
        "game: cantris\nplayers: [builtin:greedy, builtin:random]\ngames: 40\nboards: [b]\nseed: 5\n"
        "jobs: 1\nsprt: elo0=0,elo1=500\nsandbox: none\nout: s\n")
    proc = referee("play", "--config", tmp_path / "s.yaml", cwd=tmp_path / "b")  # paths: the config's folder's
    assert proc.returncode == 0, proc.stderr
    assert "Series: cantris, 2 games (1 pair), seed 5, boards: 6x3-1.txt, 6x3-2.txt" in proc.stdout
    assert "SPRT elo0=0,elo1=500,alpha=0.05,beta=0.05: H1 accepted" in proc.stdout  # it stopped the 40
    assert (tmp_path / "s" / "summary.txt").is_file()
    docs = (ROOT / "docs" / "series.md").read_text()
    assert "flags only" not in docs.replace("--resume` is\na flag only", "")
    for key in ("games", "boards", "sprt", "jobs", "cluster"):
        assert f"`{key}`" in docs, key


@pytest.mark.parametrize("shadow", ["random.py", "yaml.py", "referee/__init__.py"])
def test_a_students_module_in_the_current_folder_does_not_replace_the_referees(tmp_path, shadow):
    """The series' fork server and workers were started as ``python -m``,
    which puts the current folder first on sys.path: a student's own
    ``random.py`` (or ``yaml.py``, or a package being written with
    ``new-game``) there replaced the module inside the referee, and every
    game of the series failed.  They start with ``-P`` now: the current
    folder is the student's, not the referee's."""
    (tmp_path / shadow).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / shadow).write_text("raise SystemExit('SHADOWED-MODULE imported')\n")
    proc = referee("play", "cantris", "--player", "builtin:random", "--player", "builtin:greedy",
                   "--games", "2", "--board", SMALL, "--seed", "1", "--out", tmp_path / "s", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "SHADOWED" not in proc.stdout + proc.stderr
    assert_verifies(next((tmp_path / "s" / "games").iterdir()))
