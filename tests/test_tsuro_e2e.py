"""Tsuro end to end: 2-, 4- and 8-player matches with real player processes
through `referee play`, hidden hands in the players' folders, an ejected
player, and replay verification."""
from __future__ import annotations

import json
from pathlib import Path

import yaml

from conftest import assert_verifies, play_match, referee


def play(out: Path, *players: str, seed: int = 3, extra=()) -> dict:
    proc = referee("play", "tsuro", *[a for p in players for a in ("--player", p)],
                   "--seed", str(seed), "--out", out, "--quiet", *extra)
    assert proc.returncode == 0, proc.stderr
    return yaml.safe_load((out / "result.yaml").read_text())


def log(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]


def hand_lines(text: str) -> dict[int, list[str]]:
    return {int(w[1]): w[2:] for w in (line.split() for line in text.splitlines()) if w[:1] == ["hand"]}


def test_two_players_replay_identically_and_hands_stay_hidden(tmp_path):
    first = play(tmp_path / "a", "builtin:greedy", "builtin:random")
    again = play(tmp_path / "b", "builtin:greedy", "builtin:random")
    records = log(tmp_path / "a")
    assert [(r["applied"], r["hash"]) for r in records] == [(r["applied"], r["hash"]) for r in log(tmp_path / "b")]
    assert (first["final_hash"], first["ranking"]) == (again["final_hash"], again["ranking"])
    assert [r["kind"] for r in records[:2]] == ["setup", "setup"] and records[2]["kind"] == "play"
    assert all(r["verdict"] == "OK" for r in records)
    assert_verifies(tmp_path / "a")
    # the match's own snapshots show every hand; each player's show its own only
    full = hand_lines((tmp_path / "a" / "step_logs" / "step_0.txt").read_text())
    assert all(words and words[0] != "hidden" for words in full.values())
    for seat in (1, 2):
        folder = tmp_path / "a" / "players" / f"p{seat}"
        for snapshot in [folder / "Board.txt", *(folder / "step_logs").iterdir()]:
            for player, words in hand_lines(snapshot.read_text()).items():
                assert (words[:1] == ["hidden"]) == (player != seat), snapshot
        state = json.loads((folder / "state.json").read_text())
        assert "hand" in state and "hands" not in state and "pile_tiles" not in state


def test_four_players_with_a_student_template(tmp_path):
    assert referee("new-player", "tsuro", tmp_path / "student").returncode == 0
    student = f"python3 {tmp_path / 'student' / 'player.py'}"
    result = play(tmp_path / "m", student, "builtin:greedy", "builtin:random", "builtin:random",
                  seed=11, extra=("--variant", "classic"))
    records = log(tmp_path / "m")
    assert all(r["verdict"] == "OK" for r in records)
    assert {r["player"] for r in records} == {1, 2, 3, 4}
    assert sorted(p for group in result["ranking"] for p in group) == [1, 2, 3, 4]
    assert_verifies(tmp_path / "m")


FAULTY = """
import json, sys
state = json.load(open("state.json"))
text = state["legal"][len(state["legal"]) // 2] if state["step_kind"] == "setup" else "T 0 0 9 9"
open("decision.txt", "w").write(text)
"""


def test_eight_players_one_is_ejected_and_the_game_goes_on(tmp_path, make_player):
    ejection(tmp_path, make_player, seats=8, seed=5)


def ejection(tmp_path: Path, make_player, seats: int, seed: int) -> None:
    """Player 2 of ``seats`` plays off the board, is ejected, and the others
    play on (test_portable_runner plays it with 3 seats)."""
    faulty = make_player("faulty", FAULTY)
    players = (["builtin:greedy", faulty] + ["builtin:random", "builtin:greedy"] * 3)[:seats]
    result = play(tmp_path / "m", *players, seed=seed)
    records = log(tmp_path / "m")
    bad = [r for r in records if r["player"] == 2 and r["verdict"] != "OK"]
    assert len(bad) == 1 and bad[0]["verdict"] == "ILLEGAL" and bad[0]["fault"] == "eject"
    assert "off the 6x6 board" in bad[0]["message"]
    events = bad[0]["events"]
    assert {"type": "eliminated", "player": 2, "reason": "ejected"} in events
    assert any(e["type"] == "reshuffle" and e["returned"] == 3 for e in events)
    assert records[-1]["step"] > bad[0]["step"]                 # the others played on
    assert all(r["player"] != 2 for r in records if r["step"] > bad[0]["step"])
    assert result["players"][2]["status"] == "ejected"
    assert sorted(p for group in result["ranking"] for p in group) == list(range(1, seats + 1))
    assert_verifies(tmp_path / "m")


def test_a_forfeit_does_not_rank_players_already_out_with_the_survivors(tmp_path, make_player):
    """Player 1 crashes late, after the rules took someone off the board: the
    win is shared by those still in the game only, and those out rank last."""
    import json
    from conftest import ROOT
    from referee.replay import frames, load

    greedy = ROOT / "players" / "tsuro" / "greedy.py"
    late_crasher = make_player("late", f"""
        import os, sys
        if int(sys.argv[-2]) >= 21:
            raise SystemExit("crash on purpose")
        os.execv(sys.executable, [sys.executable, "-P", {str(greedy)!r}, *sys.argv[-2:]])
    """)
    out = tmp_path / "m"
    result = play_match("tsuro", out, late_crasher, "builtin:random", "builtin:random",
                        "builtin:random", seed=7, extra=("--policy", "forfeit"))
    replay = load(out)
    states = [state for _, state in frames(replay)]
    records = [json.loads(x) for x in (out / "log.jsonl").read_text().splitlines()]
    assert records[-1]["fault"] == "forfeit" and records[-1]["player"] == 1
    still = set(states[-2].in_game())
    assert len(still) < 4, "the case needs a player already out"
    assert set(result["ranking"][0]) == still - {1}
    assert result["ranking"][1] == [1]
    assert set(result["ranking"][-1]) == {1, 2, 3, 4} - still
    assert_verifies(out)


def test_the_shipped_boards_folder_is_a_board_suite(tmp_path):
    """boards/tsuro/ holds start files only: the tile table beside them was
    read as a board (``tiles.txt:7: row 0 has 5 cells``) and listed among
    the shipped boards."""
    from referee import resources

    shipped = resources.boards_dir() / "tsuro"
    for suite in (str(shipped), "boards/tsuro/"):  # the folder, and its name from any folder
        proc = referee("play", "tsuro", "--player", "builtin:random", "--player", "builtin:random",
                       "--games", "2", "--boards", suite, "--seed", "1", "--out", "s", "--replace",
                       "--quiet", cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert "boards: center.txt, empty.txt" in proc.stdout, proc.stdout
    assert resources.shipped_boards("tsuro") == ["center", "empty"]
    proc = referee("validate", "tsuro", "nosuch.txt", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.rstrip().endswith("(shipped tsuro boards: center, empty)")
