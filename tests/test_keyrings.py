"""A player's kernel keys (add_key(2), keyctl(2)) are its seat's alone.

A process inherits its parent's session keyring through fork, exec and every
namespace bwrap makes: the referee's (a login's, a service's: where a TA's
tokens may be) reached both seats, so that each could read the keys there and
one seat could hand the other keys during a match.  Each seat host (and each
process the direct runner starts) now joins a new, empty session keyring.

The referee runs here under a session keyring of the test's own holding a
"TA" key, as under a login; the players are real processes."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from referee.core import sandbox
from referee.core.seathost import KEYCTL

ROOT = Path(__file__).resolve().parents[1]
BOARD = ROOT / "boards" / "cantris" / "6x3-1.txt"

pytestmark = pytest.mark.skipif(KEYCTL is None or not sys.platform.startswith("linux"),
                                reason="kernel keyrings: Linux on x86-64/arm64")

# Seat 1 adds a key to its session keyring at each step; seat 2 looks for it
# and for the TA's, and says what it found; both then play the first cell.
PLAYER = """
import ctypes, os, sys
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
KEYCTL, ADD_KEY = {"x86_64": (250, 248), "aarch64": (219, 217)}[os.uname().machine]
SESSION = ctypes.c_long(-3)

def found(name):
    key = LIBC.syscall(KEYCTL, 10, SESSION, b"user", name, 0)  # KEYCTL_SEARCH
    if key <= 0:
        return None
    buf = ctypes.create_string_buffer(256)
    size = LIBC.syscall(KEYCTL, 11, ctypes.c_long(key), buf, 256)  # KEYCTL_READ
    return buf.raw[:max(size, 0)].decode(errors="replace")

def turn(seat):
    if seat == "1":
        LIBC.syscall(ADD_KEY, b"user", b"seat-key", b"from seat 1", 11, SESSION)
    else:
        print("FOUND", found(b"seat-key"), found(b"ta-token"), file=sys.stderr, flush=True)
    board = [line.split() for line in open("Board.txt")]
    for r in range(len(board) - 1, -1, -1):
        for c, v in enumerate(board[r]):
            if v != "0":
                open("decision.txt", "w").write(f"{r} {c}\\n")
                return

if sys.argv[2] == "persistent":
    for line in sys.stdin:
        turn(sys.argv[1])
        print("done", flush=True)
else:
    turn(sys.argv[1])
"""

# Runs the referee under a session keyring of its own holding the TA's key,
# then says whether a seat's key was left in it.
UNDER_A_LOGIN = """
import ctypes, os, subprocess, sys
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
KEYCTL, ADD_KEY = {"x86_64": (250, 248), "aarch64": (219, 217)}[os.uname().machine]
assert LIBC.syscall(KEYCTL, 1, b"referee-test-login") > 0  # KEYCTL_JOIN_SESSION_KEYRING
assert LIBC.syscall(ADD_KEY, b"user", b"ta-token", b"s3cr3t", 6, ctypes.c_long(-3)) > 0
done = subprocess.run(sys.argv[1:])
left = LIBC.syscall(KEYCTL, 10, ctypes.c_long(-3), b"user", b"seat-key", 0)
print("LEFT" if left > 0 else "CLEAN")
sys.exit(done.returncode)
"""


@pytest.mark.parametrize("mode", ["bwrap", "none", "direct"])
@pytest.mark.parametrize("kind", ["persistent", "spawned"])
def test_a_seat_sees_neither_the_referees_keys_nor_the_other_seats(tmp_path, mode, kind):
    if mode == "direct" and kind == "persistent":
        pytest.skip("the direct runner starts a persistent player afresh every step: the spawned case")
    if mode == "bwrap" and not sandbox.resolve("auto").on:
        pytest.skip("bwrap cannot start here")
    # Names of this test's own: a key of the same name in the machine user's
    # keyrings (which a seat without the sandbox reaches, as its files) is not ours.
    unique = f"{os.getpid()}-{tmp_path.name}".encode().hex()[:24]
    program = tmp_path / "keys.py"
    program.write_text(PLAYER.replace("ta-token", f"ta-token-{unique}").replace("seat-key", f"seat-key-{unique}"))
    login = UNDER_A_LOGIN.replace("ta-token", f"ta-token-{unique}").replace("seat-key", f"seat-key-{unique}")
    prefix = "persistent:" if kind == "persistent" else ""
    out = tmp_path / "match"
    runner = {"REFEREE_RUNNER": "direct"} if mode == "direct" else {}  # the referee forks each step itself
    done = subprocess.run(
        [sys.executable, "-c", login, sys.executable, "-m", "referee", "play", "cantris",
         "--board", str(BOARD), "--sandbox", "none" if mode == "direct" else mode, "--seed", "1", "--out", str(out), "--quiet",
         "--player", f"{prefix}{sys.executable} {program} 1 {kind}",
         "--player", f"{prefix}{sys.executable} {program} 2 {kind}"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), **runner})
    assert done.returncode == 0, done.stderr
    seen = [line for line in (out / "players" / "p2" / "stderr.txt").read_text().splitlines()
            if line.startswith("FOUND")]
    assert seen and all(line == "FOUND None None" for line in seen), seen
    assert done.stdout.splitlines()[-1] == "CLEAN"  # nothing of a seat left in the login's keyring
