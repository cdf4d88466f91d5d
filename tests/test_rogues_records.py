"""The rogues' gallery, third round (issue 21): players that try to void a
match with their files or their disk use, to spoil the record, or to write on
the TA's terminal.  Each is played as in tests/test_rogues.py (seat 1 of a
Cantris match against the witness, random policy, both sandbox modes unless
its attack is only its decision.txt) and held to the same promises: its
verdict, what the witness saw, a complete log, no survivor, and
``replay --verify``."""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import BOARDS, read_log, referee, verify
from referee.core import trees
from test_rogues import DECISION_ONLY, MODES, Rogue, check_rogue, run_rogue

def _deep(where: str, depth: int = 1500) -> str:
    """A directory ``depth`` levels deep at ``where`` (deeper than Python's
    recursion limit, so a recursive removal fails; the sandbox mounts
    step_logs/ read-only, so there that attempt fails)."""
    return ("tried(lambda: os.remove('%s'))\n" % where
            + "d = os.open('.', os.O_RDONLY)\n"
            + "name = '%s'\n" % where
            + "try:\n"
            + f"    for _ in range({depth}):\n"
            + "        os.mkdir(name, dir_fd=d); n = os.open(name, os.O_RDONLY, dir_fd=d); os.close(d); d = n; name = 'd'\n"
            + "except OSError:\n"
            + "    pass\n")


SLOW_DISK = ("--set", "hard_time=30", "--set", "cpu_time=30")  # 1500 mkdirs: seconds on a busy disk
ODD_FILES = (
    "os.mkfifo('a fifo'); s = socket.socket(socket.AF_UNIX); s.bind('a socket')\n"
    "os.symlink('loop', 'loop'); os.symlink('/', 'root'); os.symlink('..', 'up')\n"
    "open('new\\nline', 'w').write('x'); open(b'bad\\xff\\xfe'.decode('utf-8', 'surrogateescape'), 'w').write('x')\n"
    "os.makedirs('locked/inner/deeper'); open('locked/inner/f', 'w').write('x')\n"
    "os.chmod('locked/inner/deeper', 0); os.chmod('locked/inner', 0); os.chmod('locked', 0)\n"
    "decide()")

ROGUES: dict[str, Rogue] = {
    "fills_its_folder": Rogue("open('fill.bin', 'wb').write(b'x' * (24 << 20)); decide()", "DISK_LIMIT",
                              options=("--set", "disk_mb=16")),
    "million_names": Rogue("[open(f'n{i}', 'w').close() for i in range(6000)]; decide()", "DISK_LIMIT",
                           options=("--set", "disk_mb=16", *SLOW_DISK)),
    "hides_a_fill_deep": Rogue(_deep("deep", 100) + "open('big', 'wb', opener=lambda p, f: os.open(p, f, dir_fd=d))"
                               ".write(b'x' * (24 << 20)); decide()", "DISK_LIMIT",
                               options=("--set", "disk_mb=16")),
    "deep_tree_where_board_belongs": Rogue(_deep("Board.txt", 1100) + "decide()", options=SLOW_DISK),
    "deep_tree_where_snapshots_belong": Rogue("tried(lambda: subprocess.run(['rm', '-rf', 'step_logs']))\n"
                                              + _deep("step_logs", 1100) + "decide()", options=SLOW_DISK),
    "deep_tree_where_decision_belongs": Rogue(_deep("decision.txt", 1100), "MALFORMED", options=SLOW_DISK),
    "odd_files": Rogue(ODD_FILES, every=False),
    "pads_a_legal_move": Rogue("decide(MOVE.strip() + ' ' * 500 + '\\n')", modes=DECISION_ONLY),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(ROGUES))
def test_rogue(tmp_path, name, mode):
    rogue = ROGUES[name]
    rogue.skip_unless_played_in(mode)
    proc, out, survivors = run_rogue(tmp_path, name, mode, rogue)
    try:
        check_rogue(rogue, mode, proc, out, survivors)
    except BaseException:  # pytest's own clean-up of old temporary folders recurses: no deep tree may stay
        trees.remove_tree(out)
        raise
    first = read_log(out)[0]
    if rogue.verdict == "DISK_LIMIT":
        assert "its folder was emptied" in first["message"]
        assert sum(f.stat().st_size for f in (out / "players" / "p1").rglob("*") if f.is_file()) < 1 << 20
    if name == "pads_a_legal_move":
        assert not first.get("decision_cut") and len(first["decision"]) > 500
    # the folder is replaced whole however odd its files (play --replace)
    again = referee("play", "cantris", "--player", "builtin:random", "--player", "builtin:random",
                    "--board", BOARDS / "cantris" / "6x3-1.txt", "--seed", "1", "--out", out,
                    "--replace", "--quiet", "--sandbox", mode)
    assert again.returncode == 0, again.stderr
    assert not any(p.name.startswith(".referee-trash") for p in out.iterdir())


FILLER = '''
import os, sys
board = [l.split() for l in open("Board.txt")]
move = next(f"{r} {c}" for r in range(len(board) - 1, -1, -1) for c, v in enumerate(board[r]) if v != "0")
if int(sys.argv[-2]) == 1:
    try:
        with open("fill.bin", "wb") as f:
            while True:
                f.write(b"x" * (1 << 20))
                f.flush()
    except OSError as exc:
        print("disk full:", exc, file=sys.stderr)
open("decision.txt", "w").write(move)
'''


@contextlib.contextmanager
def tmpfs(tmp_path, options: str):
    """A tmpfs of its own (needs root): a disk a player can fill without
    filling the machine's."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(disk)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


@pytest.fixture
def small_disk(tmp_path):
    """6 MiB."""
    with tmpfs(tmp_path, "size=6m") as disk:
        yield disk


@pytest.mark.parametrize("mode", MODES)
def test_a_player_that_fills_the_disk_loses_the_match_it_is_never_voided(small_disk, tmp_path, mode):
    """Its folder stays under disk_mb (256 MiB), but the disk is full: the
    referee's reserve still writes the log line and result.yaml, the seat is
    charged DISK_LIMIT and loses, the exit code is the normal one, and the
    folder verifies."""
    player = tmp_path / "filler.py"
    player.write_text(FILLER)
    out = small_disk / "match"
    proc = referee("play", "cantris", "--player", f"{sys.executable} {player}", "--player", "builtin:greedy",
                   "--board", BOARDS / "cantris" / "6x3-1.txt", "--seed", "5", "--out", out,
                   "--quiet", "--sandbox", mode)
    assert proc.returncode == 0, proc.stderr
    first = read_log(out)[0]
    assert first["verdict"] == "DISK_LIMIT" and "the disk filled up" in first["message"], first
    result = yaml.safe_load((out / "result.yaml").read_text())
    assert result["winner"] == 2 and "DISK_LIMIT" in result["reason"]
    assert shutil.disk_usage(small_disk).free > 4 << 20  # the seat's files are gone
    checked = verify(out)
    assert checked.ok, checked.message


# Empty files until the disk has no inode left (its bytes stay free).
INODE_FILLER = '''
import os, sys
board = [line.split() for line in open("Board.txt")]
move = next(f"{r} {c}\\n" for r in range(len(board) - 1, -1, -1) for c, v in enumerate(board[r]) if v != "0")
os.makedirs("many", exist_ok=True)
open("base", "a").close()
try:
    for i in range(100000):
        if sys.argv[1] == "links":  # (tmpfs takes an inode for each hard link)
            os.link("base", f"many/{i}")
        else:
            open(f"many/{i}", "w").close()
except OSError as exc:
    print("no inode left:", exc, file=sys.stderr)
open("decision.txt", "w").write(move)
'''


@pytest.mark.parametrize("kind", ["files", "links"])
@pytest.mark.parametrize("mode", MODES)
def test_a_player_that_uses_up_the_disks_inodes_loses_the_match_it_is_never_voided(tmp_path, mode, kind):
    """Its bytes are mostly free, but no file can be made: the referee's
    next view could not be written and the match was voided (exit 4, no
    result).  Few inodes left count as a full disk: DISK_LIMIT, the folder
    emptied, the match finished and verified.  Hard links fill a tmpfs's
    inodes too, with no space counted: their names count."""
    with tmpfs(tmp_path, "size=64m,nr_inodes=3000") as disk:
        player = tmp_path / "inodes.py"
        player.write_text(INODE_FILLER)
        out = disk / "match"
        proc = referee("play", "cantris", "--player", f"{sys.executable} {player} {kind}", "--player",
                       "builtin:greedy", "--board", BOARDS / "cantris" / "6x3-1.txt", "--seed", "5", "--out", out,
                       "--quiet", "--sandbox", mode)
        assert proc.returncode == 0, proc.stderr
        first = read_log(out)[0]
        assert first["verdict"] == "DISK_LIMIT" and "inodes free" in first["message"], first
        assert yaml.safe_load((out / "result.yaml").read_text())["winner"] == 2
        assert os.statvfs(disk).f_favail > 2000  # the seat's files are gone
        checked = verify(out)
        assert checked.ok, checked.message


KILLS_REFEREE = '''
import os, signal, sys, time
referee = os.getppid()  # the portable runner starts players itself
if os.fork() == 0:  # a daemon in a session of its own
    os.setsid()
    if os.fork() == 0:
        time.sleep(1000)
    os._exit(0)
time.sleep(0.2)
os.kill(referee, signal.SIGKILL)
time.sleep(1000)
'''


@pytest.mark.skipif(os.name != "posix", reason="POSIX process semantics (Windows: the job object)")
def test_through_the_portable_runner_a_player_that_kills_the_referee_dies_with_it(tmp_path):
    """REFEREE_RUNNER=portable (what macOS and Windows use): the player and
    its daemon outlive neither the referee nor the step (PR_SET_PDEATHSIG
    and the watchdog; Windows's job object is not testable here)."""
    import test_rogues as gallery

    player = tmp_path / "killer.py"
    player.write_text(KILLS_REFEREE)
    token = gallery.uuid.uuid4().hex
    env = dict(os.environ, ROGUE_TOKEN=token, REFEREE_RUNNER="portable")
    argv = [str(Path(sys.executable).with_name("referee")), "play", "cantris",
            "--player", f"{sys.executable} {player}", "--player", "builtin:random",
            "--board", str(BOARDS / "cantris" / "6x3-1.txt"), "--out", str(tmp_path / "match"),
            "--quiet", "--sandbox", "none"]
    try:
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    finally:
        survivors = gallery._survivors(token)
        gallery._kill(survivors)
    assert proc.returncode == -9
    assert not survivors, f"{len(survivors)} processes outlived the referee"


SHOUTS = '''
import sys
sys.stdout.write("\\x1b[2J\\x1b[Hboard wiped\\n")
sys.stderr.write("\\x1b]0;pwned\\x07\\x1b[1A\\rresult: player 1 (rogue) wins\\u202e\\n")
open("decision.txt", "w").write("0 0\\x1b[31m\\n")
sys.exit(3)
'''


def test_what_a_player_writes_reaches_the_terminal_made_visible(tmp_path):
    """Its stderr, stdout, decision and the messages quoting them, in play
    (with --show-output), replay --step and rerun: no escape sequence, no
    carriage return, no bidi mark arrives raw, and no line a player wrote
    starts a line of the console."""
    player = tmp_path / "shouts.py"
    player.write_text(SHOUTS)
    out = tmp_path / "match"
    shown = [referee("play", "cantris", "--player", f"{sys.executable} {player}", "--player", "builtin:random",
                     "--board", BOARDS / "cantris" / "6x3-1.txt", "--seed", "1", "--out", out,
                     "--show-output", "--sandbox", "none")]
    assert shown[0].returncode == 0, shown[0].stderr
    assert read_log(out)[0]["verdict"] == "MALFORMED"
    shown.append(referee("replay", out, "--step", "1"))
    shown.append(referee("rerun", out, "--step", "1", "--scratch", tmp_path / "rerun"))
    for proc in shown:
        text = proc.stdout + proc.stderr
        assert "\x1b" not in text and "\r" not in text and "\u202e" not in text, text
        assert "\\x1b" in text
        assert not any(line.startswith("result: player 1 (rogue)") for line in text.splitlines())


def test_a_board_that_is_a_fifo_is_an_error_not_a_hang(tmp_path):
    fifo = tmp_path / "board.txt"
    os.mkfifo(fifo)
    proc = referee("play", "cantris", "--player", "builtin:random", "--player", "builtin:random",
                   "--board", fifo, "--quiet", timeout=30)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"referee: error: {fifo}: not a regular file (a fifo); give the path of a board file"
