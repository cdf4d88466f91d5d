"""`referee rerun DIR --step K`: the seat's folder rebuilt byte for byte as the
player saw it during the real match, the command run there, judged as the
match loop judges."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ROOT, play_match, read_log, referee, write_player
from referee import replay as replay_mod
from referee.rerun import seat_view

TSURO_RANDOM = ROOT / "players" / "tsuro" / "random.py"


@pytest.fixture(scope="module")
def witnessed_match(tmp_path_factory):
    """A 3-player Tsuro match whose seats 1 and 2 copy every input file they
    are given into ``seen/p<id>/step_<k>/`` before playing like the built-in
    random player; seat 3 crashes at once (ejected: later views say so).
    Played once for the module: the tests only read it (reruns write into
    scratch folders of their own, and a rerun of a copying seat adds a
    ``step_<k>-again`` copy beside the match's)."""
    folder = tmp_path_factory.mktemp("witnessed")
    return witness(folder, lambda name, body: write_player(folder, name, body))


def witness(tmp_path, make_player, extra=()):
    seen = tmp_path / "seen"
    copier = make_player("witness", f"""
        import os, runpy, shutil, sys
        step, me = sys.argv[-2], sys.argv[-1]
        dest = os.path.join({str(seen)!r}, "p" + me, "step_" + step)
        if os.path.exists(dest):  # a rerun of this step: keep both copies
            dest += "-again"
        shutil.copytree(".", dest, ignore=shutil.ignore_patterns("stdout.txt", "stderr.txt", "decision.txt"))
        sys.argv = [{str(TSURO_RANDOM)!r}, step, me]
        runpy.run_path({str(TSURO_RANDOM)!r}, run_name="__main__")
    """)
    crasher = make_player("crasher", "raise SystemExit('no strategy yet')\n")
    out = tmp_path / "match"
    # --sandbox none: the copier writes outside its seat folder, which a
    # sandbox forbids; the views are written by the same code in both modes.
    play_match("tsuro", out, copier, copier, crasher, seed=11, extra=("--sandbox", "none", *extra))
    return out, seen


def files_under(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_rebuilt_folders_are_byte_identical_to_what_each_player_saw(witnessed_match):
    assert_rebuilt_as_seen(*witnessed_match)


def test_with_a_time_bank_state_json_gives_the_time_left_to_the_millisecond(tmp_path, make_player):
    """The log keeps the bank to 0.1 ms, state.json gives it to 1 ms: a value
    on a rounding boundary may come out 1 ms off, everything else is exact."""
    out, seen = witness(tmp_path, make_player, ("--set", "time_bank=30", "--set", "increment=2"))
    assert "time_left" in (seen / "p1" / "step_4" / "state.json").read_text()
    assert_rebuilt_as_seen(out, seen, time_left_ms=1)


def without_time_left(data: bytes) -> tuple[bytes, float | None]:
    view = json.loads(data)
    left = view.pop("time_left", None)
    return json.dumps(view).encode(), left


def assert_rebuilt_as_seen(out: Path, seen: Path, time_left_ms: int = 0) -> None:
    records = read_log(out)
    assert any(r.get("fault") == "eject" for r in records)  # statuses change mid-match
    game_replay = replay_mod.load(out)
    checked = 0
    for record in records:
        if record["player"] == 3 or record.get("auto"):
            continue
        view = seat_view(game_replay, record["step"])
        assert view.player == record["player"]
        saw = files_under(seen / f"p{view.player}" / f"step_{record['step']}")
        rebuilt = {name: text.encode("utf-8") for name, text in view.files.items()}
        if time_left_ms:
            (mine, left), (theirs, was) = (without_time_left(d["state.json"]) for d in (rebuilt, saw))
            assert mine == theirs and abs(left - was) <= time_left_ms / 1000 + 1e-9
            rebuilt["state.json"] = saw["state.json"]
        assert rebuilt == saw, f"step {record['step']}"
        checked += 1
    assert checked >= 6


def test_rerun_command_recreates_the_folder_runs_the_seat_and_agrees_with_the_match(
        witnessed_match, tmp_path):
    out, seen = witnessed_match
    record = next(r for r in read_log(out) if r["player"] == 2 and r["kind"] == "play")
    step = record["step"]
    scratch = tmp_path / "scratch"
    proc = referee("rerun", out, "--step", step, "--scratch", scratch, "--no-color")
    assert proc.returncode == 0, proc.stderr
    # The rerun was witnessed too: it saw the very files the match gave it.
    assert files_under(seen / "p2" / f"step_{step}-again") == files_under(seen / "p2" / f"step_{step}")
    seat = scratch / "players" / "p2"
    assert f"rebuilt in {seat}" in proc.stdout
    assert (seat / "Board.txt").read_bytes() == (seen / "p2" / f"step_{step}" / "Board.txt").read_bytes()
    # Seeded from state.json, the random player decides the same again.
    assert f"decision.txt: {record['decision'].strip()!r}" in proc.stdout
    assert "verdict: OK" in proc.stdout
    assert f"in the match: decision {record['decision'].strip()!r}, verdict OK" in proc.stdout
    assert f"step {step}, player 2 (" in proc.stdout


def test_rerun_of_a_crash_shows_the_traceback_and_a_fixed_program_passes(
        witnessed_match, tmp_path, make_player):
    out, _ = witnessed_match
    crash = next(r for r in read_log(out) if r["player"] == 3)
    proc = referee("rerun", out, "--step", crash["step"], "--scratch", tmp_path / "a")
    assert proc.returncode == 0, proc.stderr
    assert "no strategy yet" in proc.stdout and "verdict: CRASH" in proc.stdout
    fixed = make_player("fixed", "open('decision.txt', 'w').write('S 7\\n')\n")
    proc = referee("rerun", out, "--step", crash["step"], "--player", fixed,
                   "--scratch", tmp_path / "b")
    assert proc.returncode == 0, proc.stderr
    assert "decision.txt: 'S 7'" in proc.stdout and "verdict: OK" in proc.stdout


def test_rerun_names_a_step_out_of_range_in_one_line(witnessed_match):
    out, _ = witnessed_match
    proc = referee("rerun", out, "--step", 999)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "step 999 is out of range" in proc.stderr


def test_rerun_refuses_a_non_empty_scratch_folder(witnessed_match, tmp_path):
    out, _ = witnessed_match
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "keep.txt").write_text("mine")
    proc = referee("rerun", out, "--step", 1, "--scratch", busy)
    assert proc.returncode == 2 and "must be new or empty" in proc.stderr
    assert (busy / "keep.txt").read_text() == "mine"


def test_state_json_splices_the_kept_history_text_exactly_as_json_would_write_it():
    """The match keeps each history entry's JSON as it grows (views.History);
    state.json must come out as the one compact json.dumps of the whole view,
    the same whether the history is kept or a plain list (as rerun gives it)."""
    from referee.core.game import Setup
    from referee.core.runner import Limits
    from referee.core.views import History, MatchFacts, state_view
    from referee.games.tsuro import GAME

    state = GAME.initial_state(Setup("standard", 3, 5))
    facts = MatchFacts(GAME, "standard", 5, ["a", 'b "quoted"', "c\u00e9"], Limits())
    entries = [{"step": k, "player": k % 3 + 1, "decision": f"{k} 1 \"x\"\\"} for k in range(1, 40)]
    kept = History()
    for k in range(len(entries) + 1):
        status = {1: "active", 2: "ejected", 3: "active"}
        text = state_view(facts, state, k + 1, 1, status, kept, {"time_left": 1.5})
        assert text == state_view(facts, state, k + 1, 1, status, entries[:k], {"time_left": 1.5})
        assert text == json.dumps(json.loads(text), separators=(",", ":"))
        view = json.loads(text)
        assert view["history"] == entries[:k] and view["time_left"] == 1.5
        assert list(view)[:11] == ["game", "variant", "step", "step_kind", "you", "seed", "players",
                                   "scores", "limits", "history", "time_left"]
        if k < len(entries):
            kept.append(entries[k])
