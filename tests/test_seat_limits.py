"""Whole-seat limits where no control group holds the seat
(``REFEREE_CGROUPS=off`` here; an ordinary user without a delegated group
elsewhere): the seat host measures the seat's processes together, a few
times a second and at the step's end, and kills them all past a limit.

The players never decide and never let go (hogs that hold their memory,
sleepers that never exit), against a wall limit a minute long: without the
fallback each would be a TIMEOUT a minute later, whatever the timing; with
it, the limit's own verdict, in both sandbox modes.  A kept-alive player
that such a limit, or DISK_LIMIT, ends is started again at its next step."""
from __future__ import annotations

import textwrap

import pytest
import yaml

from conftest import read_log
from test_rogues import MODES, PERSISTENT_PRELUDE, PERSISTENT_ROGUE, Rogue, _persistent_match, check_rogue, run_rogue

NO_GROUPS = {"REFEREE_CGROUPS": "off"}
NEVER_DECIDE = "while True: time.sleep(1)\n"

HOGS = Rogue(  # 6 x 100 MiB, each under the per-process limit, 600 MiB together (written: each page costs CPU)
    "for _ in range(6):\n"
    "    if os.fork() == 0:\n"
    "        held = [bytearray(b'x') * (10 << 20) for _ in range(10)]  # written: resident\n"
    "        " + NEVER_DECIDE + NEVER_DECIDE,
    "MEMORY_LIMIT", options=("--set", "memory_mb=256", "--set", "hard_time=60", "--set", "cpu_time=60"))

HIDDEN_HOGS = Rogue(  # the same, each made not dumpable: its smaps_rollup is closed to the host
    HOGS.code.replace("        held = ", "        import ctypes; ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)\n        held = "),
    "MEMORY_LIMIT", options=HOGS.options)

SLEEPERS = Rogue(  # 200 sleepers against a limit of 64: a fork that fails is tried again
    "n = 0\n"
    "while n < 200:\n"
    "    try:\n"
    "        pid = os.fork()\n"
    "    except OSError:\n"
    "        time.sleep(0.01); continue\n"
    "    if pid == 0:\n"
    "        " + NEVER_DECIDE + "    n += 1\n" + NEVER_DECIDE,
    "CRASH", options=("--set", "processes=64", "--set", "hard_time=60", "--set", "cpu_time=60"))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("rogue, says, limit", [(HOGS, "memory limit (256 MiB)", "memory_mb"),
                                                (HIDDEN_HOGS, "memory limit (256 MiB)", "memory_mb"),
                                                (SLEEPERS, "process limit (64 at once)", "processes")],
                         ids=["six_hogs_of_100_mib", "six_hogs_not_dumpable", "two_hundred_sleepers"])
def test_without_control_groups_the_seat_host_holds_the_whole_seat(tmp_path, mode, rogue, says, limit):
    proc, out, survivors = run_rogue(tmp_path, "hog", mode, rogue, env_extra=NO_GROUPS)
    check_rogue(rogue, mode, proc, out, survivors)
    first = read_log(out)[0]
    assert says in first["message"], first  # not the wall limit: that would be a TIMEOUT
    enforced = yaml.safe_load((out / "match.yaml").read_text())["limits_enforced"]
    assert "measured by the seat host" in enforced[limit], enforced


HOGS_AT_FIRST_STEP = PERSISTENT_ROGUE.replace('''    decide()
    print("done", flush=True)
    ATTACK''', '''    ATTACK
    decide()
    print("done", flush=True)''')


@pytest.mark.parametrize("mode", MODES)
def test_a_persistent_players_hogs_are_measured_and_it_starts_again(tmp_path, mode, monkeypatch):
    """The same hogs from a persistent player's first step: MEMORY_LIMIT,
    then it is started again and plays its next steps."""
    assert "ATTACK" in HOGS_AT_FIRST_STEP
    monkeypatch.setenv("REFEREE_CGROUPS", "off")
    attack = "if line.split()[1] == '1':\n" + textwrap.indent(HOGS.code, "    ")
    proc, out, survivors = _persistent_match(tmp_path, mode, attack, *HOGS.options,
                                             template=HOGS_AT_FIRST_STEP)
    assert not survivors and proc.returncode == 0, proc.stderr
    mine = [r for r in read_log(out) if r["player"] == 1]
    assert mine[0]["verdict"] == "MEMORY_LIMIT" and "memory limit (256 MiB)" in mine[0]["message"], mine[0]
    assert len(mine) >= 2 and {r["verdict"] for r in mine[1:]} <= {"OK", "LATE"}, mine


KEEPS_ITS_FILE = PERSISTENT_PRELUDE + '''
LIFE = os.urandom(4).hex()  # which start of the program this is
held = None
for line in sys.stdin:
    if not line.startswith("step"):
        continue
    MOVE = move()
    if line.split()[1] == "1":  # 20 MiB against disk_mb=16, kept open
        held = open("big.bin", "wb")
        held.write(b"x" * (20 << 20))
        held.flush()
    print(f"LIFE {LIFE} {held is not None}", flush=True)
    decide()
    print("done", flush=True)
'''


@pytest.mark.parametrize("mode", MODES)
def test_a_persistent_player_charged_disk_limit_starts_again(tmp_path, mode):
    """DISK_LIMIT empties the seat's folder; a kept-alive player would still
    hold the space of the files it keeps open, so it is ended and started
    again at its next step, as after the faults its host sees."""
    proc, out, survivors = _persistent_match(tmp_path, mode, "", "--set", "disk_mb=16",
                                             template=KEEPS_ITS_FILE)
    assert not survivors and proc.returncode == 0, proc.stderr
    mine = [r for r in read_log(out) if r["player"] == 1]
    assert mine[0]["verdict"] == "DISK_LIMIT", mine[0]
    assert len(mine) >= 2 and {r["verdict"] for r in mine[1:]} <= {"OK", "LATE"}, mine
    first, second = (r["stdout"].split() for r in mine[:2])
    assert first[0] == second[0] == "LIFE" and first[2] == "True"
    assert second[1] != first[1] and second[2] == "False", (first, second)  # a new start, no file held
    assert not (out / "players" / "p1" / "big.bin").exists()


SLEEPERS_AT_START = PERSISTENT_PRELUDE + '''
signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # no zombies, and no wait that looks idle
n = 0
while n < 200:  # before it reads its first step: while the referee waits for it to be ready
    try:
        pid = os.fork()
    except OSError:
        continue
    if pid == 0:  # a daemon (its parent gone, the seat host reaps it once killed)
        os.setsid()
        if os.fork() == 0:
            while True: time.sleep(1)
        os._exit(0)
    n += 1
for line in sys.stdin:
    if line.startswith("step"):
        MOVE = move()
        decide()
        print("done", flush=True)
'''


@pytest.mark.parametrize("mode", MODES)
def test_a_persistent_players_start_up_is_measured_too(tmp_path, mode, monkeypatch):
    """200 sleepers forked while the player starts up, before the match: its
    first step is charged (as its start-up's CPU is), not let through."""
    monkeypatch.setenv("REFEREE_CGROUPS", "off")
    proc, out, survivors = _persistent_match(tmp_path, mode, "", "--set", "processes=64",
                                             "--set", "hard_time=60", template=SLEEPERS_AT_START)
    assert not survivors and proc.returncode == 0, proc.stderr
    first = [r for r in read_log(out) if r["player"] == 1][0]
    assert first["verdict"] == "CRASH" and "process limit (64 at once)" in first["message"], first
