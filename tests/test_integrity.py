"""The match folder as evidence: ``replay --verify`` catches every kind of
edit a TA could be shown (winner, verdicts, scores, timings, events,
snapshots, cut or reordered logs, an unfinished match), and a disk that fills
up costs one line and no half-written files."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import BOARDS, play_match, referee


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("integrity") / "match"
    play_match("cantris", out, "builtin:greedy", "builtin:random", seed=11,
               board=BOARDS / "cantris" / "8x4-1.txt")
    assert referee("replay", out, "--verify").returncode == 0
    return out


def _lines(folder: Path) -> list[dict]:
    return [json.loads(x) for x in (folder / "log.jsonl").read_text().splitlines()]


def _write_lines(folder: Path, records: list[dict]) -> None:
    (folder / "log.jsonl").write_text("".join(json.dumps(r, separators=(",", ":")) + "\n"
                                              for r in records))


def _edit_record(folder: Path, index: int, **changes) -> None:
    records = _lines(folder)
    records[index].update(changes)
    _write_lines(folder, records)


def _shift_time(folder: Path, index: int, key: str) -> None:
    """A timing of the log moved by half a ms: an edit whatever the time was
    (a fixed value is the logged one now and then, on a quick machine)."""
    records = _lines(folder)
    records[index][key] = round(records[index][key] + 0.5, 1)
    _write_lines(folder, records)


def _edit_result(folder: Path, **changes) -> None:
    data = yaml.safe_load((folder / "result.yaml").read_text())
    data.update(changes)
    (folder / "result.yaml").write_text(yaml.safe_dump(data, sort_keys=False))


def _other_winner(folder: Path):
    winner = yaml.safe_load((folder / "result.yaml").read_text())["winner"]
    return 2 if winner == 1 else 1


EDITS = {
    "result_winner": (lambda f: _edit_result(f, winner=_other_winner(f)), "result.yaml: winner"),
    "result_scores": (lambda f: _edit_result(f, scores={1: 0, 2: 99}), "result.yaml: scores"),
    "result_steps": (lambda f: _edit_result(f, steps=3), "result.yaml"),
    "verdict_ok_to_late": (lambda f: _edit_record(f, 1, verdict="LATE"), "step 2:"),
    "verdict_ok_to_timeout": (lambda f: _edit_record(f, 2, verdict="TIMEOUT"), "step 3:"),
    "scores": (lambda f: _edit_record(f, 0, scores={"1": 99, "2": 0}), "step 1: the log's scores"),
    "events": (lambda f: _edit_record(f, 0, events=[]), "step 1: the log's events"),
    "timing": (lambda f: _shift_time(f, 1, "wall_ms"), "step 2: log line 2 was changed"),
    "last_timing": (lambda f: _shift_time(f, -1, "cpu_ms"), "the last log line was changed"),
    "applied": (lambda f: _edit_record(f, 2, applied="0 0"), "step 3:"),
    "snapshot": (lambda f: (f / "step_logs" / "step_2.txt").write_text("1 1 1 1\n"),
                 "step 2: step_logs/step_2.txt differs"),
    "cut_last_steps": (lambda f: _write_lines(f, _lines(f)[:-2]), "result.yaml"),
    "reordered": (lambda f: _write_lines(f, [_lines(f)[1], _lines(f)[0], *_lines(f)[2:]]), "step 1:"),
    "result_names_swapped": (lambda f: _edit_result(f, players={
        1: {"name": "builtin:random", "status": "active"}, 2: {"name": "builtin:greedy", "status": "active"}}),
        "result.yaml: player 1 is named 'builtin:random'"),
    "result_game": (lambda f: _edit_result(f, game="tsuro"), "result.yaml: game is 'tsuro'"),
    "result_variant": (lambda f: _edit_result(f, variant="other"), "result.yaml: variant"),
    "result_extra_key": (lambda f: _edit_result(f, grade="A+"), "result.yaml: unexpected keys (grade)"),
    "result_no_players": (lambda f: _edit_result(f, players={1: {"name": "builtin:greedy", "status": "active"}}),
                          "result.yaml: players are not one entry per seat"),
    "result_verdict_invented": (lambda f: _edit_result(f, verdicts={1: {"OK": 1, "BRILLIANT": 9}, 2: {}}),
                                "verdict counts differ"),
    "match_seed": (lambda f: (f / "match.yaml").write_text(
        (f / "match.yaml").read_text().replace("seed: 11", "seed: 12")), "match.yaml"),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_verify_catches_an_edited_folder(finished, tmp_path, edit):
    change, message = EDITS[edit]
    copy = tmp_path / "copy"
    shutil.copytree(finished, copy)
    before = {p.relative_to(copy): p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    change(copy)
    assert before != {p.relative_to(copy): p.read_bytes() for p in copy.rglob("*") if p.is_file()}  # an edit
    proc = referee("replay", copy, "--verify")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "FAILED" in proc.stderr and message in proc.stderr, proc.stderr


def test_a_folder_without_result_is_unfinished(finished, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(finished, copy)
    (copy / "result.yaml").unlink()
    proc = referee("replay", copy, "--verify")
    steps = len(_lines(copy))
    assert proc.returncode == 1
    assert proc.stderr.strip() == f"{copy}: UNFINISHED: unfinished after step {steps}: " \
                                  "there is no result.yaml"


def test_an_unfinished_folder_may_lack_only_its_last_snapshot(finished, tmp_path):
    """The referee writes a step's snapshot while the next player runs: killed
    meanwhile, it leaves the step's log line without it.  That is unfinished,
    not tampered with; a missing earlier snapshot still fails."""
    copy = tmp_path / "copy"
    shutil.copytree(finished, copy)
    (copy / "result.yaml").unlink()
    steps = len(_lines(copy))
    (copy / "step_logs" / f"step_{steps}.txt").unlink()
    proc = referee("replay", copy, "--verify")
    assert proc.returncode == 1 and "UNFINISHED" in proc.stderr, proc.stderr
    (copy / "step_logs" / "step_1.txt").unlink()
    proc = referee("replay", copy, "--verify")
    assert proc.returncode == 1 and "FAILED" in proc.stderr and "step_1.txt is missing" in proc.stderr


def test_every_line_chains_to_the_one_before_and_result_names_the_last(finished):
    import hashlib

    raw = (finished / "log.jsonl").read_bytes().split(b"\n")[:-1]
    prev = hashlib.sha256((finished / "match.yaml").read_bytes()).hexdigest()[:32]
    for line in raw:
        assert json.loads(line)["prev"] == prev
        prev = hashlib.sha256(line).hexdigest()[:32]
    result = yaml.safe_load((finished / "result.yaml").read_text())
    assert result["last_hash"] == prev and result["steps"] == len(raw)


FILL_UP = """
import resource, signal, sys
sys.dont_write_bytecode = True  # a .pyc written under the limit would be cut short, for every later run
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past the limit fail with EFBIG
resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))
sys.argv = ["referee", *sys.argv[1:]]
from referee.cli import main
main()
"""


@pytest.mark.parametrize("limit", [1500, 3000])
def test_a_full_disk_costs_one_line_and_no_half_files(tmp_path, limit):
    """With a file-size limit standing in for a full disk, the referee stops
    with exit 4 and one line; the log holds whole lines only; no temporary
    file is left behind."""
    out = tmp_path / "m"
    proc = subprocess.run(
        [sys.executable, "-c", FILL_UP.format(limit=limit), "play", "cantris",
         "--player", "builtin:greedy", "--player", "builtin:random", "--seed", "4",
         "--board", str(BOARDS / "cantris" / "10x5-1.txt"), "--out", str(out), "--quiet",
         "--sandbox", "none", "--pass-env", "PYTHONDONTWRITEBYTECODE"], capture_output=True, text=True,
        timeout=120, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))  # players inherit the limit too
    assert proc.returncode == 4, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len([ln for ln in lines if not ln.startswith("referee: warning")]) == 1
    assert lines[-1].startswith("referee: error: cannot write the match folder")
    assert "Traceback" not in proc.stderr
    log = (out / "log.jsonl").read_bytes() if (out / "log.jsonl").exists() else b""
    assert log == b"" or log.endswith(b"\n")
    for line in log.splitlines():
        json.loads(line)
    leftovers = [p for p in out.rglob("*") if p.name.endswith(".tmp") or "referee-tmp" in p.name]
    assert not leftovers
    if (out / "match.yaml").exists():
        checked = referee("replay", out, "--verify")
        assert checked.returncode == 1 and "unfinished" in checked.stderr


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None,
                    reason="needs unshare to mount a small tmpfs")
def test_a_really_full_tmpfs_costs_one_line(tmp_path):
    """ENOSPC itself: a 48 KiB tmpfs in a private mount namespace."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    referee_exe = Path(sys.executable).with_name("referee")
    script = (f"mount -t tmpfs -o size=48k tmpfs {mnt} && exec {referee_exe} play cantris "
              f"--player builtin:greedy --player builtin:random --seed 4 "
              f"--board {BOARDS / 'cantris' / '10x5-1.txt'} --out {mnt / 'm'} --quiet --sandbox none"
              f" --set output_kb=64")
    filler = f"head -c 40000 /dev/zero > {mnt}/filler; "
    proc = subprocess.run(["unshare", "-m", "sh", "-c", script.replace("&& exec", "&& " + filler + "exec")],
                          capture_output=True, text=True, timeout=120)
    if "mount" in proc.stderr and proc.returncode not in (0, 4):
        pytest.skip(f"cannot mount a tmpfs here: {proc.stderr.strip()[:100]}")
    assert proc.returncode == 4, proc.stderr
    assert "No space left on device" in proc.stderr and "Traceback" not in proc.stderr
