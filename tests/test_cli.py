"""The command-line contract: play, replay (--step, --verify, --html, stepping),
validate, new-player, configs; bad input exits 2 with one line."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import BOARDS, ROOT, cantris_cpp_bot, referee


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("match") / "m"
    proc = referee("play", "cantris", "--player", "builtin:greedy", "--player", "builtin:random",
                   "--seed", "5", "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert "result: player" in proc.stdout and "step   1" in proc.stdout
    return out


def test_play_draws_every_step_and_the_result(finished):
    records = (finished / "log.jsonl").read_text().splitlines()
    match = yaml.safe_load((finished / "match.yaml").read_text())
    assert match["seed"] == 5 and match["game"] == "cantris"
    assert [p["name"] for p in match["players"]] == ["builtin:greedy", "builtin:random"]
    assert len(records) == yaml.safe_load((finished / "result.yaml").read_text())["steps"]


def test_replay_step_shows_that_position(finished):
    proc = referee("replay", finished, "--step", "1", "--no-color")
    assert proc.returncode == 0
    first = json.loads((finished / "log.jsonl").read_text().splitlines()[0])
    assert f"step   1  player 1  {first['applied']}" in proc.stdout
    assert proc.stdout.strip().endswith(f"player 1 = {first['scores']['1']}, player 2 = 0")


def test_replay_steps_through_with_next_prev_jump(finished):
    # stdin is not a terminal: the whole game is printed in order.
    proc = referee("replay", finished, "--no-color", input="")
    steps = yaml.safe_load((finished / "result.yaml").read_text())["steps"]
    assert proc.stdout.count("wall ") == steps and "result: winner" in proc.stdout


def test_interactive_replay_commands(finished, monkeypatch, capsys):
    from referee import replay

    loaded = replay.load(finished)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    answers = iter(["n", "", "p", "j 3", "zz", "0", "q"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    replay.interactive(loaded)
    out = capsys.readouterr().out
    shown = [line.rsplit("[", 1)[1].split("/")[0] if line.endswith("]") else "0"
             for line in out.splitlines() if line.endswith("]") or line.startswith("step 0/")]
    # start, next, next (Enter), prev, jump 3, (unknown: a message, no board again), jump 0
    assert shown == ["0", "1", "2", "1", "3", "0"]
    assert "unknown command 'zz'" in out


def test_verify_detects_tampering_and_names_the_step(finished, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(finished, copy)
    lines = (copy / "log.jsonl").read_text().splitlines()
    record = json.loads(lines[2])
    board = yaml.safe_load((copy / "match.yaml").read_text())
    assert board["initial_hash"]
    # Claim a different (legal-looking) move at step 3.
    r, c = map(int, record["applied"].split())
    record["applied"] = f"{r} {(c + 1) % 4}"
    lines[2] = json.dumps(record)
    (copy / "log.jsonl").write_text("\n".join(lines) + "\n")
    proc = referee("replay", copy, "--verify")
    assert proc.returncode == 1
    assert "step 3:" in proc.stderr and "FAILED" in proc.stderr


def test_verify_rejects_a_damaged_log_with_one_line(finished, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(finished, copy)
    with open(copy / "log.jsonl", "a") as f:
        f.write("{not json\n")
    proc = referee("replay", copy, "--verify")
    assert proc.returncode == 2
    n = len((copy / "log.jsonl").read_text().splitlines())
    assert proc.stderr.strip() == f"referee: error: {copy / 'log.jsonl'}:{n}:2: not valid JSON: " \
                                  "Expecting property name enclosed in double quotes"


def test_html_replay_is_one_self_contained_file(finished, tmp_path):
    page = tmp_path / "r.html"
    assert referee("replay", finished, "--html", page).returncode == 0
    text = page.read_text()
    assert "<link" not in text and " src=" not in text  # styles and scripts are inline
    steps = yaml.safe_load((finished / "result.yaml").read_text())["steps"]
    data = json.loads(text.split('<script type="application/json" id="replay-data">')[1].split("</script>")[0])
    assert len(data["frames"]) == steps + 1  # the start position and every step


def test_html_replay_makes_its_folder_and_a_path_it_cannot_write_is_one_line(finished, tmp_path):
    """A missing folder was a FileNotFoundError traceback, a file on the
    way a NotADirectoryError one (after the whole log was read)."""
    page = tmp_path / "new" / "r.html"
    assert referee("replay", finished, "--html", page).returncode == 0 and page.is_file()
    (tmp_path / "notes.txt").write_text("mine\n")
    for target, says in (("notes.txt/r.html", "--html notes.txt/r.html: notes.txt is a file, not a folder"),
                         ("new", "--html new is a folder; name a file")):
        proc = referee("replay", finished, "--html", target, cwd=tmp_path)
        assert proc.returncode == 2 and proc.stderr == f"referee: error: {says}\n", proc.stderr
    assert (tmp_path / "notes.txt").read_text() == "mine\n"


def test_validate_ok_and_warnings(tmp_path):
    assert referee("validate", "cantris", BOARDS / "cantris" / "10x5-1.txt").stdout.endswith(": ok\n")
    board = tmp_path / "b.txt"
    board.write_text("1 1 1 2\n2 3 4 1\n3 4 1 2\n")
    out = referee("validate", "cantris", board).stdout
    assert "warning: 3x4 is not a standard size" in out and "run of 3" in out


@pytest.mark.parametrize("args, message", [
    (("play", "chess", "--player", "x"), "unknown game 'chess'; choose one of: "),
    (("play", "cantris", "--player", "builtin:random"), "cantris is played by 2 players, got 1"),
    (("play", "cantris", "--player", "builtin:nope", "--player", "builtin:random"),
     "no built-in player 'nope' for cantris; choose one of: greedy, random"),
    (("play", "cantris", "--player", "builtin:random", "--player", "builtin:random", "--set", "ply=3"),
     "unknown setting 'ply' for cantris"),
    (("play", "cantris", "--player", "builtin:random", "--player", "builtin:random", "--set", "cpu_time=x"),
     "limit cpu_time: expected a number, got 'x'"),
    (("play", "cantris", "--player", "builtin:random", "--player", "builtin:random", "--board", "nope.txt"),
     "nope.txt: no such file, nor a shipped board of that name (shipped cantris boards: 10x5-1"),
    (("play", "cantris", "--player", "builtin:random", "--player", "builtin:random", "--variant", "big"),
     "unknown variant 'big' for cantris"),
    (("replay", "nowhere", "--verify"), "nowhere: no such match folder"),
    (("validate", "cantris", "nope.txt"), "nope.txt: no such file, nor a shipped board of that name"),
])
def test_bad_usage_exits_2_with_one_line(tmp_path, args, message):
    proc = referee(*args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], lines


def test_config_file_gives_every_option_and_flags_override(tmp_path):
    (tmp_path / "b.txt").write_text((BOARDS / "cantris" / "6x3-2.txt").read_text())
    (tmp_path / "match.yaml").write_text(yaml.safe_dump({
        "players": ["builtin:greedy", "builtin:random"], "board": "b.txt", "seed": 11,
        "out": "m", "time_limit": 5, "limits": {"memory_mb": 512}, "names": ["alice", "bob"]}))
    proc = referee("play", "cantris", "--config", "match.yaml", "--seed", "12", "--quiet", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    match = yaml.safe_load((tmp_path / "m" / "match.yaml").read_text())
    assert match["seed"] == 12 and match["board"]["source"].endswith("b.txt")
    assert match["limits"]["soft_time"] == 5 and match["limits"]["hard_time"] == 10
    assert match["limits"]["memory_mb"] == 512
    assert [p["name"] for p in match["players"]] == ["alice", "bob"]
    (tmp_path / "bad.yaml").write_text("players: [a, b]\nplyers: 3\n")
    proc = referee("play", "cantris", "--config", "bad.yaml", cwd=tmp_path)
    assert proc.returncode == 2 and "bad.yaml:2: unknown key 'plyers'; known keys: " in proc.stderr


def test_existing_output_folder_is_not_overwritten_without_replace(finished):
    proc = referee("play", "cantris", "--player", "builtin:random", "--player", "builtin:random",
                   "--out", finished)
    assert proc.returncode == 2 and "exists and is not empty" in proc.stderr


def test_default_output_folder_is_named_after_game_date_and_seed(tmp_path):
    # The date is the one the referee reads as it starts: the test reads it
    # before and after each run (a run across midnight has either), and a
    # second run the same day takes the first one's name and -2.
    import datetime

    names: list[str] = []
    for _ in range(2):
        before = datetime.date.today().isoformat()
        proc = referee("play", "cantris", "--player", "builtin:random", "--player", "builtin:random",
                       "--seed", "9", "--quiet", cwd=tmp_path)
        after = datetime.date.today().isoformat()
        assert proc.returncode == 0
        new = [p.name for p in (tmp_path / "step_logs").iterdir() if p.name not in names]
        assert len(new) == 1, new
        taken = {names[0] + "-2" if names and names[0] == f"cantris-{day}-9" else f"cantris-{day}-9"
                 for day in (before, after)}
        assert new[0] in taken, (new, taken)
        names.append(new[0])


def test_human_player_is_shown_the_moves_and_asked_again(tmp_path):
    # Player 1 is the human: a garbage line and an illegal cell are refused,
    # then a legal move is played; then Ctrl-D (end of input).
    proc = referee("play", "cantris", "--player", "human", "--player", "builtin:greedy",
                   "--out", tmp_path / "m", "--no-color", input="hello\n0 9\n2 1\n")
    assert proc.returncode == 0, proc.stderr
    assert "legal (32):" in proc.stdout
    assert "not accepted: expected two integers 'r c'" in proc.stdout
    assert "not accepted: cell (0, 9) is off the 8x4 board" in proc.stdout
    records = [json.loads(x) for x in (tmp_path / "m" / "log.jsonl").read_text().splitlines()]
    assert records[0]["applied"] == "2 1" and records[0]["events"][1]["points"] == 3
    assert records[-1]["player"] == 1 and records[-1]["verdict"] == "RESIGNED"


def test_new_player_python_template_runs_unchanged(tmp_path):
    assert referee("new-player", "cantris", "bot", cwd=tmp_path).returncode == 0
    assert (tmp_path / "bot" / "referee_sdk" / "__init__.py").exists()
    proc = referee("play", "cantris", "--player", f"{sys.executable} bot/player.py",
                   "--player", "builtin:greedy", "--out", "m", "--quiet", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    result = yaml.safe_load((tmp_path / "m" / "result.yaml").read_text())
    assert result["verdicts"][1]["OK"] == sum(result["verdicts"][1].values()) > 0
    again = referee("new-player", "cantris", "bot", cwd=tmp_path)
    assert again.returncode == 2 and "already exists" in again.stderr


@pytest.mark.parametrize("lang, junk", [("python", ("step_logs", "__pycache__")),
                                         ("cpp", ("step_logs", "player.exe", "player"))])
def test_a_templates_zip_lines_leave_out_what_a_grader_does_not_need_on_every_system(tmp_path, lang, junk):
    # Compress-Archive has no -x: the PowerShell line zipped check-bot's
    # step_logs/ (every match it played), caches and the compiled program.
    assert referee("new-player", "cantris", "bot", "--lang", lang, cwd=tmp_path).returncode == 0
    lines = (tmp_path / "bot" / "README.md").read_text().splitlines()
    unix = next(line for line in lines if "zip -r" in line)
    windows = next(line for line in lines if "Compress-Archive" in line)
    for name in junk:
        assert name in unix or name == "player.exe", (name, unix)
        assert name in windows.split("Compress-Archive")[0], (name, windows)


def test_python_sdk_reads_and_writes_the_protocol_files(tmp_path, monkeypatch):
    sys.path.insert(0, str(ROOT / "players" / "sdk" / "python"))
    try:
        import referee_sdk
    finally:
        sys.path.pop(0)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("REFEREE_GAME", "cantris")
    (tmp_path / "step_logs").mkdir()
    (tmp_path / "step_logs" / "step_0.txt").write_text("1 2 3\n3 1 2\n")
    (tmp_path / "Board.txt").write_text("0 2 3\n3 1 2\n")
    (tmp_path / "state.json").write_text('{"game": "cantris", "you": 2}')
    assert referee_sdk.read_ckbd(0) == [[1, 2, 3], [3, 1, 2]]
    assert referee_sdk.read_board() == [[0, 2, 3], [3, 1, 2]]
    assert referee_sdk.read_state()["you"] == 2
    view = {"seed": 77, "step": 3, "you": 2}
    assert referee_sdk.player_rng(view).random() == referee_sdk.player_rng(dict(view)).random()
    assert referee_sdk.player_rng(view).random() != referee_sdk.player_rng({**view, "step": 4}).random()
    referee_sdk.save_decision(1, 2)
    assert (tmp_path / "decision.txt").read_text() == "1 2\n"
    calls = []
    monkeypatch.setattr(sys, "argv", ["p.py", "4", "2"])
    referee_sdk.run(lambda step: calls.append(step))
    referee_sdk.run(lambda step, me: calls.append((step, me)))
    assert calls == [4, (4, 2)]


def test_python_m_referee_works():
    proc = subprocess.run([sys.executable, "-m", "referee", "--version"], capture_output=True, text=True)
    assert proc.returncode == 0 and "referee" in proc.stdout


@pytest.mark.skipif(shutil.which("g++") is None, reason="no g++")
def test_new_player_cpp_template_builds_and_plays_as_its_readme_says(tmp_path_factory, tmp_path):
    bot = cantris_cpp_bot(tmp_path_factory)  # new-player, then its README's build command (+ -Werror)
    proc = referee("play", "cantris", "--player", bot / "player", "--player", "builtin:greedy",
                   "--board", BOARDS / "cantris" / "10x5-1.txt", "--out", "m", "--quiet", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    result = yaml.safe_load((tmp_path / "m" / "result.yaml").read_text())
    assert result["verdicts"][1]["OK"] == sum(result["verdicts"][1].values()) > 0


def test_replace_refuses_a_folder_that_is_not_a_match(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "thesis.tex").write_text("precious")
    proc = referee("play", "cantris", "--player", "builtin:random", "--player", "builtin:random",
                   "--out", "notes", "--replace", cwd=tmp_path)
    assert proc.returncode == 2 and "is not a match folder" in proc.stderr
    assert (tmp_path / "notes" / "thesis.tex").read_text() == "precious"


def _damage_line(folder: Path, index: int, old: str, new: str | bytes) -> None:
    """Replace ``old`` by ``new`` in log line ``index`` (0-based), bytes as given."""
    lines = (folder / "log.jsonl").read_bytes().split(b"\n")
    assert old.encode() in lines[index]
    lines[index] = lines[index].replace(old.encode(), new.encode() if isinstance(new, str) else new)
    (folder / "log.jsonl").write_bytes(b"\n".join(lines))


def _damage_yaml(folder: Path, old: str, new: str) -> None:
    text = (folder / "match.yaml").read_text()
    assert old in text
    (folder / "match.yaml").write_text(text.replace(old, new, 1))


FOLDER_DAMAGE = {
    # name: (edit, file and line, message)
    "not_utf8": (lambda f: _damage_line(f, 1, '"step":2', b'"step":2,"x":"\xff"'), "log.jsonl:2:16:",
                 "not UTF-8 text (byte 0xff)"),
    "step_as_text": (lambda f: _damage_line(f, 2, '"step":3', '"step":"3"'), "log.jsonl:3:",
                     "step: expected an integer, got '3'"),
    "player_zero": (lambda f: _damage_line(f, 1, '"player":2', '"player":0'), "log.jsonl:2:",
                    "player: expected a number of 1 or more"),
    "wall_as_text": (lambda f: _damage_line(f, 0, '"wall_ms":', '"wall_ms":"x","w":'), "log.jsonl:1:",
                     "wall_ms: expected a number or null"),
    "decision_as_number": (lambda f: _damage_line(f, 0, '"decision":', '"decision":7,"d":'),
                           "log.jsonl:1:", "decision: expected text or null"),
    "players_not_a_list": (lambda f: _damage_yaml(f, "players:\n", "players: 5\nxplayers:\n"),
                           "match.yaml:", "players: expected a list, got 5"),
    "seed_as_bool": (lambda f: _damage_yaml(f, "\nseed: 5", "\nseed: true"), "match.yaml:",
                     "seed: expected an integer, got True"),
    "unknown_game": (lambda f: _damage_yaml(f, "game: cantris", "game: chess"), "match.yaml:",
                     "game: unknown game 'chess'"),
    "unknown_variant": (lambda f: _damage_yaml(f, "variant: standard", "variant: huge"), "match.yaml:2:",
                        "variant: unknown variant 'huge' for cantris; known: standard"),
    "a_third_seat": (lambda f: _damage_yaml(f, "\nseed:", "\n- id: 3\n  name: me\nseed:"), "match.yaml:7:",
                     "players: 3 seats, but cantris is played by 2"),
}


@pytest.mark.parametrize("damage", sorted(FOLDER_DAMAGE))
@pytest.mark.parametrize("command", [("replay", "--verify"), ("replay", "--step", "1"),
                                     ("rerun", "--step", "1")])
def test_a_damaged_folder_is_one_line_naming_its_file_and_line(finished, tmp_path, damage, command):
    """A hand-edited, forged or half-written log or match.yaml: every command
    that reads the folder says where, in one line, and never computes with it.
    An edited match.yaml fails verification (the log's hash chain proves the
    edit), saying where it does not load."""
    copy = tmp_path / "copy"
    shutil.copytree(finished, copy)
    edit, where, message = FOLDER_DAMAGE[damage]
    edit(copy)
    proc = referee(command[0], copy, *command[1:])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    if command[1] == "--verify" and where.startswith("match.yaml:"):
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert lines[0].startswith(f"{copy}: verification FAILED: step 0: match.yaml was changed after "
                                   f"the match was played"), lines
        assert f"it does not load either: {copy / where}" in lines[0] and message in lines[0], lines
        return
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert lines[0].startswith(f"referee: error: {copy / where}") and message in lines[0], lines


TAMPERED_SETTINGS = {
    # game: (play options, match.yaml's settings as written, as edited, the line edited, message)
    "quoridor": (("--set", "ply_cap=6"), "  ply_cap: 6\n", "  ply_cap: lots\n", 28,
                 "setting ply_cap: expected an integer, got 'lots'"),
    "blackhole": (("--set", "ply_cap=6"), "  ply_cap: 6\n", "  ply_cap: lots\n", 28,
                  "setting ply_cap: expected an integer, got 'lots'"),
    "tessella": (("--set", "ply_cap=6"), "  ply_cap: 6\n", "  ply_cap: [6]\n", 28,
                 "setting ply_cap: expected an integer, got [6]"),
    "cantris": (("--board", "6x3-1"), "settings: {}\n", "settings: {ply_cap: 9}\n", 27,
                "settings: unknown setting 'ply_cap' for cantris (its settings: none)"),
    "tsuro": ((), "settings: {}\n", "settings:\n  ply_cap: 9\n", 28,
              "settings: unknown setting 'ply_cap' for tsuro (its settings: none)"),
}


@pytest.mark.parametrize("game", sorted(TAMPERED_SETTINGS))
def test_edited_settings_in_match_yaml_are_one_line_and_fail_verification(tmp_path, game):
    """match.yaml's settings are held to the rules of ``--set`` before the
    game computes with them: ``ply_cap: lots`` reached the game's int() and
    was a traceback from replay, verify and rerun alike."""
    options, written, edited, line, message = TAMPERED_SETTINGS[game]
    out = tmp_path / "m"
    proc = referee("play", game, "--player", "builtin:random", "--player", "builtin:random", "--seed", "1",
                   "--out", out, "--quiet", *options)
    assert proc.returncode == 0, proc.stderr
    text = (out / "match.yaml").read_text()
    assert written in text, text
    (out / "match.yaml").write_text(text.replace(written, edited, 1))
    where = f"{out / 'match.yaml'}:{line}: {message}"
    proc = referee("replay", out, "--verify")
    assert proc.returncode == 1 and proc.stderr == f"{out}: verification FAILED: step 0: match.yaml was " \
        f"changed after the match was played (the log's first line holds another hash); it does not " \
        f"load either: {where}\n", proc.stdout + proc.stderr
    for command in (("replay", out, "--step", "2"), ("rerun", out, "--step", "2")):
        proc = referee(*command)
        assert proc.returncode == 2 and proc.stderr == f"referee: error: {where}\n", proc.stdout + proc.stderr


@pytest.mark.parametrize("command", [
    ("play", "cantris", "--player", "builtin:greedy", "--player", "builtin:random"),
    ("play", "cantris", "--player", "builtin:greedy", "--player", "builtin:random", "--games", "2"),
    ("check-bot", "cantris", "--player", "builtin:random"),
])
@pytest.mark.parametrize("out", ["notes.txt", "notes.txt/m"])
def test_an_output_folder_that_is_a_file_is_one_line_and_the_file_is_kept(tmp_path, command, out):
    (tmp_path / "notes.txt").write_text("mine\n")
    proc = referee(*command, "--out", out, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"referee: error: output folder {out} ") \
        and "not a folder" in lines[0], lines
    assert (tmp_path / "notes.txt").read_text() == "mine\n"


@pytest.mark.parametrize("text, expected", [
    ("seed: 1\nreplace: 'no'\n", "c.yaml:2: 'replace' must be true or false, got 'no'"),
    ("quiet: maybe\n", "c.yaml:1: 'quiet' must be true or false"),
    ("games: 2.5\n", "c.yaml:1: 'games' must be a whole number of 1 or more, got 2.5"),
    ("games: true\n", "c.yaml:1: 'games' must be a whole number of 1 or more, got True"),
    ("games: abc\n", "c.yaml:1: 'games' must be a whole number"),
    ("games: 2\njobs: -1\n", "c.yaml:2: 'jobs' must be a whole number of 1 or more, got -1"),
    ("board: 5\n", "c.yaml:1: 'board' must be a non-empty string, got 5"),
    ("boards: b.txt\n", "c.yaml:1: 'boards' must be a list of board files"),
    ("policy: lenient\n", "c.yaml:1: 'policy' must be one of forfeit, eject, random"),
    ("seed: 1\ntime_limit: -3\n", "c.yaml:2: time_limit: limit soft_time: must be positive"),
    ("settings: {memory_mb: [1]}\n", "c.yaml:1: settings: limit memory_mb: expected a number"),
    ("variant: big\n", "c.yaml:1: variant: unknown variant 'big' for cantris"),
    ("seed: 1\n\xff: 2\n", "c.yaml:2:1: not UTF-8 text (byte 0xff)"),
    ("seed: 1\nreplace: false\nreplace: true\n", "c.yaml:3: not valid YAML: key 'replace' is given twice"),
    ("names: [a]\n", "c.yaml:1: names: 1 given for 2 players"),  # the file was not named
    ("games: 2\nnames: [a, b, c]\n", "c.yaml:2: names: 3 given for 2 players"),  # an IndexError
    # the same name twice: a series' summary had two rows 'a' and 'Elo a - a'
    ("games: 2\nnames:\n  - a\n  - a\n", "c.yaml:2: names: 'a' is given twice; each seat needs a name of its own"),
    ("names: [me, me]\n", "c.yaml:1: names: 'me' is given twice"),  # one match too, as a tournament's
])
def test_a_play_config_value_of_the_wrong_type_is_one_line_at_its_line(tmp_path, text, expected):
    """Each was computed with as given: a traceback, or worse ('no' was true
    and replaced the folder; 2.5 games were two pairs)."""
    (tmp_path / "c.yaml").write_bytes(text.encode("latin-1"))
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "match.yaml").write_text("game: cantris\n")  # --replace would take it
    proc = referee("play", "cantris", "--player", "builtin:greedy", "--player", "builtin:random",
                   "--config", "c.yaml", "--out", "m", "--quiet", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("referee: error: ") and expected in lines[0], lines
    assert sorted(p.name for p in (tmp_path / "m").iterdir()) == ["match.yaml"]


def test_the_clis_choices_are_the_cores():
    """The CLI names the policies and sandboxes without importing the match
    machinery (its start-up); they must stay the ones the core accepts."""
    from referee import cli
    from referee.core.match import POLICIES
    from referee.tournament.config import SANDBOXES
    assert cli.POLICY_CHOICES == POLICIES and cli.SANDBOX_CHOICES == SANDBOXES


@pytest.mark.parametrize("args, message", [
    (("play", "cantris", "--jobs", "0"), "invalid value for '--jobs': 0 is not in the range x>=1 "
                                         "(see 'referee play --help')"),
    (("play", "cantris", "--policy", "lenient"), "invalid value for '--policy': 'lenient' is not one of"),
    (("play", "cantris", "--bogus"), "no such option '--bogus'"),
    (("play", "cantris", "--seed"), "option '--seed' requires an argument"),
    (("grade",), "missing argument 'CONFIG.yaml' (see 'referee grade --help')"),
    (("grade", "."), "invalid value for 'CONFIG.yaml': File '.' is a directory"),
    (("grade", "g.yaml", "--submission", "x", "--jobs", "-1"), "invalid value for '--jobs'"),
    (("check-bot", "cantris"), "missing option '--player' (see 'referee check-bot --help')"),
    (("autograder", "moodle", "g.yaml", "-o", "x"), "'moodle' is not one of 'gradescope', 'prairielearn'"),
    (("tournament",), "missing argument"),
    (("replay", "m", "--step", "two"), "invalid value for '--step': 'two' is not a valid integer"),
    (("nosuchcommand",), "no such command 'nosuchcommand' (see 'referee --help')"),
    (("--bogus",), "no such option '--bogus'"),
    # an empty text or path: '' was the default variant, '.' as --out, no cluster
    (("play", "cantris", "--variant", ""), "invalid value for '--variant': an empty value"),
    (("play", "cantris", "--out", " "), "invalid value for '--out': an empty value"),
    (("play", "cantris", "--games", "2", "--cluster", ""), "invalid value for '--cluster': an empty value"),
    (("validate", "cantris", "b.txt", "--variant", ""), "invalid value for '--variant': an empty value"),
    (("check-bot", "cantris", "--player", "builtin:random", "--variant", ""), "'--variant': an empty value"),
    (("grade", "g.yaml", "--submission", ""), "invalid value for '--submission': an empty value"),
    (("new-player", "cantris", ""), "invalid value for 'DIRECTORY': an empty value"),
])
def test_a_usage_error_is_one_line_exit_2(tmp_path, args, message):
    """Click's own errors (unknown option, bad value, missing argument) are
    the same one line as every other error: its Usage/Try/Error block was
    three lines and said 'Error:' without the program's name."""
    proc = referee(*args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("referee: error: ") and message in lines[0], lines
    assert proc.stdout == ""


def test_help_is_unchanged_by_the_one_line_usage_errors():
    for args in (("--help",), ("play", "--help"), ("grade", "-h")):
        proc = referee(*args)
        assert proc.returncode == 0 and proc.stdout.startswith("Usage: referee"), proc.stderr
    bare = referee()
    assert bare.stdout.startswith("Usage: referee") or bare.stderr.startswith("Usage: referee")


@pytest.mark.parametrize("where, message", [
    ("notes.txt", "folder notes.txt is a file, not a folder"),
    ("notes.txt/bot", "folder notes.txt/bot is below notes.txt, which is a file"),
    ("repo", "repo/README.md already exists; choose another folder"),
])
def test_new_player_into_a_file_or_over_a_students_files_is_one_line_and_nothing_changes(tmp_path, where,
                                                                                           message):
    """A file was a FileExistsError or NotADirectoryError traceback; a
    folder with a README.md of its own had it overwritten."""
    (tmp_path / "notes.txt").write_text("mine\n")
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "README.md").write_text("my project\n")
    proc = referee("new-player", "cantris", where, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], lines
    assert (tmp_path / "notes.txt").read_text() == "mine\n"
    assert sorted(p.name for p in (tmp_path / "repo").iterdir()) == ["README.md"]
    assert (tmp_path / "repo" / "README.md").read_text() == "my project\n"
