"""The rogues' gallery: hostile players, each tried with the bubblewrap
sandbox and without (``--sandbox none``).

Every rogue sits in seat 1 of a Cantris match against a *witness* in seat 2,
under the random policy so the game goes on after a fault.  For each rogue the
test checks: its verdict at step 1; that the witness saw exactly the files the
rules give it at every one of its steps (no forged board, snapshot or planted
decision); a complete log; no process left (every process the match started
carries a token in its environment, and none may be alive afterwards); and
what ``replay --verify`` says.  Expectations differ by mode only where the
sandbox is what stops the attack (``sandbox_only``): those cases document what
a player can still do without it (docs/protocol.md).  A rogue that only
leaves an odd decision.txt in its own folder is played without the sandbox
only: the referee reads that file after the step, through its own handle on
the seat's folder (seatfiles.read_decision), the same in both modes."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

import launcher
from conftest import BOARDS, ROOT, read_log, referee, verify
from referee.core import cgroups, sandbox as sandbox_mod
from referee.replay import frames, load

SANDBOX_OK = sandbox_mod.resolve("auto").on
# What every seat is shown of the referee's own installation (the test run's:
# its venv, its checkout), besides the player's interpreter and program.
REFEREE_SHOWN = sorted({os.path.abspath(sys.prefix), str(ROOT)})
SOCKETS = ROOT / ".rogue-sockets"  # outside /tmp, not shown in the sandbox
SOCKETS.mkdir(exist_ok=True)
os.chmod(SOCKETS, 0o755)
MODES = [pytest.param("bwrap", marks=pytest.mark.skipif(not SANDBOX_OK, reason="bwrap cannot start here")),
         "none"]

PRELUDE = '''
import os, sys, time
STEP, ME = int(sys.argv[-2]), int(sys.argv[-1])
FIRST = STEP == 1

def move():
    board = [line.split() for line in open("Board.txt")]
    for r in range(len(board) - 1, -1, -1):
        for c, v in enumerate(board[r]):
            if v != "0":
                return f"{r} {c}\\n"

MOVE = move()  # chosen before any attack, which may spoil Board.txt

def decide(text=None):
    with open("decision.txt", "w") as f:
        f.write(MOVE if text is None else text)

def referee_pid():
    """The referee: the parent of our seat host (without a sandbox)."""
    host = os.getppid()
    with open(f"/proc/{host}/stat") as f:
        pid = int(f.read().rsplit(")", 1)[1].split()[1])
    if pid <= 1:
        raise LookupError("no referee in sight")
    return pid

def tried(attack):
    """Run an attack; True if it worked."""
    try:
        attack()
        return True
    except Exception:
        return False
'''

WITNESS = PRELUDE + '''
import hashlib
def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]
stale = os.path.lexists("decision.txt")
kinds = [os.path.islink("Board.txt"), os.path.isdir("Board.txt"), os.path.islink("step_logs")]
snaps = ",".join(sha(f"step_logs/step_{k}.txt") for k in range(STEP))
state = open("state.json").read().replace("\\n", " ")  # read by the test (json: ~12 ms of CPU a step here)
print(f"W {STEP} {sha('Board.txt')} {snaps} {int(stale)} {int(any(kinds))} {state}")
decide()
'''


@dataclass
class Rogue:
    code: str
    verdict: str | dict[str, str] = "OK"  # at step 1; per mode where it differs
    verify: str | dict[str, str] = "ok"  # ok | failed | unfinished
    sandbox_only: bool = False
    options: tuple[str, ...] = ()
    check: str | None = None  # a named extra check
    every: bool = False  # attack at each of its steps, not only the first
    ordinary_user: bool = False  # only stopped for non-root players (root may ptrace anything)
    modes: tuple[str, ...] = ("bwrap", "none")  # an attack on the host itself is tried in the sandbox only

    def skip_unless_played_in(self, mode: str) -> None:
        """Skip the test (saying why) if this rogue is not played in ``mode``."""
        if mode in self.modes:
            return
        if self.modes == DECISION_ONLY:
            pytest.skip("what the referee reads after the step, the same in both modes: played without the sandbox only")
        pytest.skip("an attack on the machine itself: tried inside the sandbox only")

    def expect(self, what: str, mode: str) -> str:
        value = getattr(self, what)
        return value[mode] if isinstance(value, dict) else value


# A rogue whose whole attack is the decision.txt it leaves (its content, or
# what it is instead of a file): the referee reads it after the step, outside
# any sandbox, so the second mode would play the same code again.  "none",
# since it runs everywhere (bwrap may not start).
DECISION_ONLY = ("none",)

# The gallery's wall limit is 10 s, far past what a rogue that then decides
# needs on a busy machine (a Python start-up, or a sleep of a second after
# its attack): OK must not turn into TIMEOUT under load.  The rogues that
# must time out keep 2.5 s and stop or sleep for longer than that.
TIMES_OUT = ("--set", "hard_time=2.5")

# A rogue that SIGKILLs its host, then decides only if the host lived through
# it: in the sandbox the host is pid 1 of its namespace, which no signal from
# inside reaches (a second is ample for a death to show).  Without one it
# waits for its host's death and never decides: the step is lost with the
# host, and the referee must end it itself (CRASH, not a TIMEOUT at the hard
# limit).  (It decided a second after the kill: a referee that took longer to
# see its host gone, on a busy machine, found that decision: LATE, not CRASH.)
KILLS_ITS_HOST = (
    "import select\n"
    "host = os.getppid()\n"
    "watch = os.pidfd_open(host)\n"
    "tried(lambda: os.kill(host, signal.SIGKILL))\n"
    "if select.select([watch], [], [], 1 if host == 1 else None)[0]:\n"
    "    time.sleep(1000)\n"
    "decide()")

ROGUES: dict[str, Rogue] = {
    # --- hanging the referee with the decision file
    "fifo_decision": Rogue("os.mkfifo('decision.txt')", "MALFORMED", modes=DECISION_ONLY),
    "symlink_decision_to_passwd": Rogue("os.symlink('/etc/passwd', 'decision.txt')", "MALFORMED",
                                        check="no_passwd", modes=DECISION_ONLY),
    "directory_decision": Rogue("os.makedirs('decision.txt/x')", "MALFORMED", modes=DECISION_ONLY),
    "hardlink_decision_to_log": Rogue(
        "tried(lambda: os.link('../../log.jsonl', 'decision.txt')) or decide()",
        {"bwrap": "OK", "none": "MALFORMED"}),
    "huge_decision": Rogue("decide('1 ' * 600000)", "MALFORMED", modes=DECISION_ONLY),
    "binary_decision": Rogue("open('decision.txt', 'wb').write(b'\\x00\\xff\\xfe\\x80 9 9')",
                             "MALFORMED", modes=DECISION_ONLY),
    "decides_then_sleeps": Rogue("decide(); time.sleep(30)", "TIMEOUT", options=TIMES_OUT),
    # Its decision written with mode 000: root's referee reads it anyway, and
    # an ordinary user's must judge it the same (it owns the file).
    "unreadable_decision": Rogue("os.umask(0o777); decide()"),
    # --- changing the other seat's game
    "forges_other_board": Rogue("tried(lambda: open('../p2/Board.txt', 'w').write('0 0 0\\n' * 6))", every=True),
    "forges_other_snapshot": Rogue(
        "tried(lambda: open('../p2/step_logs/step_0.txt', 'w').write('0 0 0\\n' * 6))", every=True),
    # A hard link made in its own folder is another name for the snapshot:
    # a watch on the other seat's step_logs/ alone would not see a write
    # through it (referee/core/inotify.py).
    "forges_other_snapshot_through_a_link": Rogue(
        "tried(lambda: os.remove('x0'))\n"
        "tried(lambda: os.link('../p2/step_logs/step_0.txt', 'x0'))\n"
        "tried(lambda: open('x0', 'r+b').write(b'9'))", every=True),
    # A write through a shared mapping raises no inotify event (only its
    # mtime tells): the open that must come first is what is watched for.
    "forges_other_snapshot_through_mmap": Rogue(
        "import mmap\n"
        "def forge():\n"
        "    with open('../p2/step_logs/step_0.txt', 'r+b') as f, mmap.mmap(f.fileno(), 0) as m:\n"
        "        m[0] ^= 1\n"
        "tried(forge)", every=True),
    "forges_own_old_snapshot": Rogue(  # written again before each of its steps
        "ok = FIRST or open('step_logs/step_0.txt', 'rb').read(1) != b'#'\n"
        "tried(lambda: open('step_logs/step_0.txt', 'r+b').write(b'#'))\n"
        "decide(None if ok else 'saw its own forgery')", every=True, check="all_ok"),
    "forges_other_state": Rogue("tried(lambda: open('../p2/state.json', 'w').write('{}'))", every=True),
    "plants_other_decision": Rogue("tried(lambda: open('../p2/decision.txt', 'w').write('0 0'))", every=True),
    "other_board_becomes_directory": Rogue(
        "tried(lambda: (os.remove('../p2/Board.txt'), os.makedirs('../p2/Board.txt/x')))", every=True),
    "other_snapshots_become_link": Rogue(
        "tried(lambda: (subprocess.run(['rm', '-rf', '../p2/step_logs']),"
        " os.symlink('../../step_logs', '../p2/step_logs')))", every=True),
    "other_seat_becomes_link": Rogue(
        "tried(lambda: (os.rename('../p2', '../p2-gone'), os.symlink('p1', '../p2')))", every=True),
    # --- destroying the record
    "board_links_to_log": Rogue("os.remove('Board.txt'); os.symlink('../../log.jsonl', 'Board.txt')", every=True),
    "board_hard_links_to_log": Rogue(
        "tried(lambda: (os.remove('Board.txt'), os.link('../../log.jsonl', 'Board.txt')))", every=True),
    "other_snapshots_hard_link_to_log": Rogue(  # the empty one made ahead for the next step too
        "tried(lambda: [(os.remove(f), os.link('../../log.jsonl', f))"
        " for f in __import__('glob').glob('../p2/step_logs/*')])", every=True),
    "state_links_to_board": Rogue("os.remove('state.json'); os.symlink('../../board.txt', 'state.json')", every=True),
    "stdout_links_to_log": Rogue(
        "os.remove('stdout.txt') if os.path.exists('stdout.txt') else None;"
        " os.symlink('../../log.jsonl', 'stdout.txt'); print('x' * 100000)"),
    "snapshots_link_to_match": Rogue(
        "tried(lambda: (subprocess.run(['rm', '-rf', 'step_logs'], stderr=subprocess.DEVNULL),"
        " os.symlink('../../step_logs', 'step_logs')))", every=True),
    "appends_to_log": Rogue("tried(lambda: open('../../log.jsonl', 'a').write(json.dumps("
                            "dict(step=2, player=2, verdict='OK', hash='0')) + '\\n'))",
                            verify={"bwrap": "ok", "none": "failed"}, sandbox_only=True),
    "writes_result_early": Rogue("tried(lambda: open('../../result.yaml', 'w').write('winner: 1\\n'))"),
    "removes_own_permissions": Rogue("decide(); tried(lambda: os.chmod('step_logs', 0)); os.chmod('.', 0)",
                                     every=True),
    # --- the clock
    "stops_referee_and_thinks": Rogue(
        "tried(lambda: os.kill(referee_pid(), signal.SIGSTOP)); time.sleep(4); decide()",
        "TIMEOUT", options=TIMES_OUT),
    "stops_host_resumes_later": Rogue(
        "host = os.getppid()\n"
        "if os.fork() == 0:\n"
        "    os.setsid(); time.sleep(3.5); tried(lambda: os.kill(host, signal.SIGCONT)); os._exit(0)\n"
        "tried(lambda: os.kill(host, signal.SIGSTOP)); decide()",
        {"bwrap": "OK", "none": "TIMEOUT"}, sandbox_only=True, options=TIMES_OUT),
    "kills_its_host": Rogue(KILLS_ITS_HOST, {"bwrap": "OK", "none": "CRASH"}, sandbox_only=True),
    "forges_host_reply": Rogue(  # if taken, the referee reads decision.txt before it is written
        # (a reply line as seathost.encode writes it: marshal, as hex)
        "tried(lambda: os.write(os.open(f'/proc/{os.getppid()}/fd/1', os.O_WRONLY), __import__('marshal').dumps(dict("
        "exit=0, signal=None, timed_out=False, wall=0.0, cpu=0.0, peak_kb=1, start_error=None, killed=0,"
        " stdout_tail='forged', stderr_tail='')).hex().encode() + b'\\n')); time.sleep(0.5); decide()",
        ordinary_user=True),
    "kills_referee": Rogue("tried(lambda: os.kill(referee_pid(), signal.SIGKILL)); decide()",
                           verify={"bwrap": "ok", "none": "unfinished"}, sandbox_only=True),
    # --- escapes
    "setsid_chain_of_150": Rogue(
        "if os.fork() == 0:\n"
        "    for _ in range(150):\n"
        "        if os.fork():\n"
        "            time.sleep(1000)\n"
        "        os.setsid()\n"
        "    time.sleep(1000)\n"
        "time.sleep(0.5); decide()", options=("--set", "hard_time=30")),  # 150 forks: slow when busy
    "double_fork_daemon": Rogue(
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        time.sleep(1000)\n"
        "    os._exit(0)\n"
        "decide()"),
    "spawns_200_sleepers": Rogue(
        "[subprocess.Popen(['sleep', '1000'], start_new_session=True) for _ in range(200)]; decide()",
        options=("--set", "hard_time=30")),  # 200 spawns take seconds on a busy machine
    "sleeper_in_new_session": Rogue(
        "subprocess.Popen(['sh', '-c', 'sleep 1000 & sleep 1000'], start_new_session=True); decide()"),
    # --- resources
    "memory_hog": Rogue("x = bytearray(3 * 1024 ** 3)", "MEMORY_LIMIT"),
    # A wall limit far past the CPU limit: a second of CPU can take many seconds on a busy
    # machine.  (1 s, RLIMIT_CPU's least: the gallery's 2 s would only burn more.)
    "cpu_hog": Rogue("while True: pass", "CPU_LIMIT", options=("--set", "hard_time=60", "--set", "cpu_time=1")),
    "floods_stdout": Rogue("sys.stdout.write('y' * 5_000_000); decide()", check="stdout_capped"),
    "many_files": Rogue("[open(f'f{i}', 'w').close() for i in range(500)]; decide()"),
    "exhausts_file_descriptors": Rogue(
        "fds = []\n"
        "while tried(lambda: fds.append(open('/dev/null'))): pass\n"
        "fds.clear(); decide()"),
    "oversized_file": Rogue("open('big', 'wb').write(b'0' * (80 * 1024 * 1024)); decide()", "CRASH"),
    # --- seeing what the view does not show, reaching out
    "reads_match_log": Rogue("decide('spied' if tried(lambda: open('../../log.jsonl').read()) else None)",
                             {"bwrap": "OK", "none": "MALFORMED"}, sandbox_only=True),
    "reads_other_seat": Rogue("decide('spied' if tried(lambda: os.listdir('../p2')) else None)",
                              {"bwrap": "OK", "none": "MALFORMED"}, sandbox_only=True),
    "uses_the_network": Rogue(
        "decide('online' if tried(lambda: socket.create_connection(('127.0.0.1', int(os.environ['ROGUE_PORT'])), 2)) else None)",
        {"bwrap": "OK", "none": "MALFORMED"}, sandbox_only=True),
    "sees_other_processes": Rogue(
        "def command(pid):\n"  # (a process may end between the listing and the read)
        "    try:\n"
        "        return open(f'/proc/{pid}/cmdline').read()\n"
        "    except OSError:\n"
        "        return ''\n"
        "decide('seen' if any(p.isdigit() and int(p) > 2 and int(p) != os.getpid() and "
        "'referee' in command(p) for p in os.listdir('/proc')) else None)",
        {"bwrap": "OK", "none": "MALFORMED"}, sandbox_only=True),
    # --- privilege inside the sandbox (the referee may well be root)
    "has_no_capabilities": Rogue(
        "caps = open('/proc/self/status').read().split('CapEff:')[1].split()[0]\n"
        "decide('privileged' if int(caps, 16) or os.getuid() != 65534 else None)", modes=("bwrap",)),
    "unmounts_and_remounts": Rogue(  # what root inside a sandbox could do: uncover the match folder
        "import ctypes\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "match = os.path.dirname(os.path.dirname(os.getcwd()))\n"
        "for _ in range(4):\n"
        "    libc.umount2(match.encode(), 2)\n"  # the empty folder that covers it (MNT_DETACH)
        "for point in ('/', os.path.dirname(match)):\n"
        "    libc.mount(b'none', point.encode(), None, 32 | 4096, None)\n"  # MS_REMOUNT|MS_BIND: read-write
        "tried(lambda: open(f'{match}/log.jsonl', 'a').write('{}\\n'))\n"
        "tried(lambda: open(f'{match}/players/p2/Board.txt', 'w').write('0 0 0\\n' * 6))",
        modes=("bwrap",)),
    "writes_a_sysctl": Rogue(
        "value = open('/proc/sys/kernel/printk_ratelimit').read()\n"
        "decide('wrote' if tried(lambda: open('/proc/sys/kernel/printk_ratelimit', 'w').write(value)) else None)",
        modes=("bwrap",)),
    "nests_a_user_namespace": Rogue(
        "import ctypes\n"
        "decide('nested' if ctypes.CDLL(None, use_errno=True).unshare(0x10000000) == 0 else None)",
        modes=("bwrap",)),
    # --- what the view must not show
    # A home, /root, /run and /var show nothing, but for the names on the way
    # to what the seat is shown (the interpreter's installation, the program's
    # folder, the referee's own: under /home/<user> or /root for most people).
    "lists_homes_and_root": Rogue(
        "shown = [os.path.abspath(p) for p in (sys.prefix, sys.base_prefix, os.path.dirname(os.path.abspath(__file__)))]"
        f" + {REFEREE_SHOWN!r}\n"
        "def extra(d):\n"
        "    try:\n"
        "        names = os.listdir(d)\n"
        "    except OSError:\n"
        "        return []\n"
        "    way = {s[len(d) + 1:].split('/')[0] for s in shown if s.startswith(d + '/')}\n"
        "    return [n for n in names if n not in way]\n"
        "home = os.path.dirname(os.environ['ROGUE_HOME_MARK'])\n"
        "seen = {d: names for d in ('/home', '/root', home, '/run', '/var/run', '/var') for names in [extra(d)] if names}\n"
        "print('shown', shown, 'seen', seen, file=sys.stderr)\n"
        "decide('seen' if os.path.lexists(os.environ['ROGUE_HOME_MARK']) or seen else None)",
        {"bwrap": "OK", "none": "MALFORMED"}, sandbox_only=True),
    "sees_host_tmp": Rogue(
        "decide('seen' if os.path.exists(os.environ['ROGUE_TMP_MARK']) else None)",
        {"bwrap": "OK", "none": "MALFORMED"}, sandbox_only=True),
    "connects_to_a_unix_socket": Rogue(
        "decide('connected' if tried(lambda: socket.socket(socket.AF_UNIX).connect(os.environ['ROGUE_SOCKET'])) else None)",
        {"bwrap": "OK", "none": "MALFORMED"}, sandbox_only=True),
    "reads_the_referees_environment": Rogue(  # a TA's token: never handed to a player
        "decide('leaked' if 'REFEREE_TEST_SECRET' in os.environ or 'ROGUE_SECRET' in str(os.environ) else None)"),
    "fills_tmp": Rogue(
        "import tempfile\n"
        "written = 0\n"
        "try:\n"
        "    with tempfile.TemporaryFile() as f:\n"
        "        while written < 40 << 20:\n"
        "            f.write(b'0' * (1 << 20)); f.flush(); written += 1 << 20\n"
        "except OSError:\n"
        "    pass\n"
        "decide('overfilled' if written > 16 << 20 else None)",
        {"bwrap": "OK", "none": "MALFORMED"}, sandbox_only=True, options=("--set", "disk_mb=16")),
    # Its disk use counted in step_logs/ too (not walked while a watch says
    # that it holds only the referee's snapshots): a new file there, and an
    # old snapshot grown.
    "fills_own_snapshots": Rogue(
        "tried(lambda: open('step_logs/big', 'wb').write(b'0' * (20 << 20)))",
        {"bwrap": "OK", "none": "DISK_LIMIT"}, options=("--set", "disk_mb=16")),
    "grows_own_old_snapshot": Rogue(
        "tried(lambda: open('step_logs/step_0.txt', 'ab').write(b'0' * (20 << 20)))",
        {"bwrap": "OK", "none": "DISK_LIMIT"}, options=("--set", "disk_mb=16")),
    "fills_dev_shm": Rogue(
        "written = 0\n"
        "try:\n"
        "    with open(f'/dev/shm/rogue-{os.getpid()}', 'wb') as f:\n"
        "        os.unlink(f.name)\n"
        "        while written < 40 << 20:\n"
        "            f.write(b'0' * (1 << 20)); f.flush(); written += 1 << 20\n"
        "except OSError:\n"
        "    pass\n"
        "decide('overfilled' if written > 16 << 20 else None)",
        {"bwrap": "OK", "none": "MALFORMED"}, sandbox_only=True, options=("--set", "disk_mb=16")),
    # --- whole-seat limits
    "six_children_of_100_mib": Rogue(  # each under memory_mb, together over it
        "go_r, go_w = os.pipe()\n"
        "kids = []\n"
        "for _ in range(6):\n"
        "    ready_r, ready_w = os.pipe()\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        os.close(go_w)\n"
        "        x = bytearray(100 << 20)\n"
        "        for i in range(0, len(x), 4096): x[i] = 1\n"
        "        os.write(ready_w, b'1'); os.read(go_r, 1); os._exit(0)\n"
        "    os.close(ready_w); os.read(ready_r, 1); kids.append(pid)\n"  # allocated, or killed
        "os.close(go_w)\n"
        "[os.waitpid(k, 0) for k in kids]\n"
        "decide()",
        "MEMORY_LIMIT", options=("--set", "memory_mb=256", "--set", "hard_time=30")),
    "forks_until_refused": Rogue(
        "n = 0\n"
        "while n < 1000:\n"
        "    try:\n"
        "        pid = os.fork()\n"
        "    except OSError:\n"
        "        break\n"
        "    if pid == 0:\n"
        "        time.sleep(1000); os._exit(0)\n"
        "    n += 1\n"
        "decide('unbounded' if n >= 64 else None)", options=("--set", "processes=64", "--set", "hard_time=30"),
        # a control group refuses the 65th fork; measured without one, all are killed
        verdict="OK" if cgroups.available() else "CRASH", check="forks_noted"),
    "orphan_workers_ignore_sigxcpu": Rogue(  # their CPU is the seat's, though nobody waits for them
        # (0.75 s each: under the limit alone, together well over it and its 0.1 s grain)
        "done_r, done_w = os.pipe()\n"
        "for _ in range(2):\n"
        "    if os.fork() == 0:\n"
        "        os.setsid()\n"
        "        if os.fork() == 0:\n"
        "            signal.signal(signal.SIGXCPU, signal.SIG_IGN)\n"
        "            while time.process_time() < 0.75: pass\n"
        "            os.write(done_w, b'1'); os._exit(0)\n"
        "        os._exit(0)\n"
        "os.close(done_w)\n"
        "while os.read(done_r, 1): pass\n"
        "decide()", "CPU_LIMIT", options=("--set", "cpu_time=1", "--set", "hard_time=30")),
    "kills_its_host_after_starting_a_daemon": Rogue(  # (killed once the daemon runs, its host's orphan)
        "running_r, running_w = os.pipe()\n"
        "middle = os.fork()\n"
        "if middle == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        os.write(running_w, b'1')\n"
        "        time.sleep(1000)\n"
        "    os._exit(0)\n"
        "os.read(running_r, 1); os.waitpid(middle, 0)\n" + KILLS_ITS_HOST,
        {"bwrap": "OK", "none": "CRASH"}, sandbox_only=True),
}


ON_DEMAND = ("json", "signal", "socket", "subprocess")
"""Modules a player program imports only if its code names them: each is
a few ms of CPU (socket's and subprocess's ~10) at every step of every
match, where most steps of the gallery's hundreds of matches only move."""


def _program(folder: Path, name: str, body: str, python: str = sys.executable) -> str:
    """The command line of a player program (only the standard library: no
    site-packages to set up at each of its steps, ``-I -S``), importing the
    modules of ON_DEMAND its code uses."""
    needed = [module for module in ON_DEMAND if re.search(rf"\b{module}\.", body)]
    path = folder / f"{name}.py"
    path.write_text("".join(f"import {module}\n" for module in needed) + body, encoding="utf-8")
    return f"{python} -I -S {path}"


def _survivors(token: str) -> list[int]:
    """Processes whose environment carries ``token`` (for up to 30 s, as
    SIGKILLed processes take a moment to be reaped, longer on a busy machine)."""
    needle = f"ROGUE_TOKEN={token}".encode()
    deadline = time.monotonic() + 30
    while True:
        alive = []
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    if needle in f.read():
                        with open(f"/proc/{pid}/stat") as s:
                            if s.read().rsplit(")", 1)[1].split()[0] != "Z":
                                alive.append(int(pid))
            except OSError:
                continue
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.1)


def _kill(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def check_witness(out: Path) -> int:
    """The witness saw, at each of its steps, exactly the rules' view; returns
    how many steps it played."""
    replay = load(out)
    states = [state for _, state in frames(replay)]
    lines = [ln.split(maxsplit=6) for ln in (out / "players" / "p2" / "stdout.txt").read_text().splitlines()
             if ln.startswith("W ")]
    for _, step, board, snaps, stale, odd, state_text in lines:
        k = int(step)
        state = json.loads(state_text)
        assert board == _sha(replay.game.board_text(states[k - 1], 2)), f"forged Board.txt at step {k}"
        want = ",".join(_sha(replay.game.snapshot_text(states[j], 2)) for j in range(k))
        assert snaps == want, f"forged snapshot before step {k}"
        assert stale == "0", f"a decision.txt was waiting at step {k}"
        assert odd == "0", f"a link or directory in the witness's folder at step {k}"
        assert (state.get("step"), state.get("you")) == (k, 2), f"forged state.json at step {k}"
    return len(lines)


def names_the_referee(rogue: Rogue) -> bool:
    """An attack on the referee's own process (it signals ``referee_pid()``
    or looks for the referee among the processes): played against the real
    console script, not a fork of tests/launcher.py's warm process."""
    return "referee_pid" in rogue.code or "cmdline" in rogue.code


def run_rogue(tmp_path: Path, name: str, mode: str, rogue: Rogue, python: str = sys.executable,
              prefix: tuple[str, ...] = (), env_extra: dict | None = None):
    """Play the rogue's match (as another user when ``prefix`` says so, with
    the referee installed beside ``python``); (process, folder, survivors)."""
    token = uuid.uuid4().hex
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    # A socket and a file outside the seat a player must not reach: the socket
    # beside the match (not in /tmp, which the sandbox replaces), the file in /tmp.
    unix = socket.socket(socket.AF_UNIX)
    unix_path = Path(tempfile.mkdtemp(dir=SOCKETS)) / "agent.sock"
    unix.bind(str(unix_path))
    unix.listen(8)
    os.chmod(unix_path.parent, 0o755)
    os.chmod(unix_path, 0o777)
    mark = Path(tempfile.mkdtemp(prefix="rogue-mark-", dir="/tmp"))
    os.chmod(mark, 0o755)
    home_mark = Path.home() / f".rogue-home-{token}"
    home_mark.write_text("a file in the home of whoever runs the tests\n")
    env = dict(os.environ, ROGUE_TOKEN=token, ROGUE_PORT=str(listener.getsockname()[1]),
               ROGUE_SOCKET=str(unix_path), ROGUE_TMP_MARK=str(mark), ROGUE_HOME_MARK=str(home_mark),
               REFEREE_TEST_SECRET="ROGUE_SECRET", **(env_extra or {}))
    out = tmp_path / "match"
    board = tmp_path / "board.txt"
    board.write_text((BOARDS / "cantris" / "6x3-1.txt").read_text())
    attack = PRELUDE + ("\nif True:\n" if rogue.every else "\nif FIRST:\n") \
        + textwrap.indent(rogue.code, "    ") + "\nif not os.path.lexists('decision.txt'):\n    decide()\n"
    argv = [*prefix, str(Path(python).with_name("referee")), "play", "cantris",
            "--player", _program(tmp_path, "rogue", attack, python),
            "--player", _program(tmp_path, "witness", WITNESS, python),
            "--board", str(board), "--seed", "5", "--out", str(out),
            "--quiet", "--policy", "random", "--sandbox", mode, "--time-limit", "1",
            *(f"--pass-env={name}" for name in ("ROGUE_TOKEN", "ROGUE_PORT", "ROGUE_SOCKET", "ROGUE_TMP_MARK",
                                                    "ROGUE_HOME_MARK")),
            "--set", "hard_time=10", "--set", "cpu_time=2", *rogue.options]
    try:
        if prefix or python != sys.executable or names_the_referee(rogue):
            proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=240)
        else:  # the referee's start-up is not what this attack tries (tests/launcher.py)
            proc = launcher.run(argv[1:], env=env, timeout=240)
    finally:
        listener.close()
        unix.close()
        shutil.rmtree(unix_path.parent, ignore_errors=True)
        shutil.rmtree(mark, ignore_errors=True)
        home_mark.unlink(missing_ok=True)
        survivors = _survivors(token)
        _kill(survivors)
    return proc, out, survivors


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(ROGUES))
def test_rogue(tmp_path, name, mode):
    rogue = ROGUES[name]
    rogue.skip_unless_played_in(mode)
    if rogue.ordinary_user and os.geteuid() == 0 and mode == "none":
        pytest.skip("root may reach any process (CAP_SYS_PTRACE): test_nonroot plays it as nobody")
    check_rogue(rogue, mode, *run_rogue(tmp_path, name, mode, rogue))


def check_rogue(rogue: Rogue, mode: str, proc, out: Path, survivors: list[int]) -> None:
    """Everything the gallery promises about one rogue's match."""
    assert not survivors, f"{len(survivors)} processes outlived the match"
    expected_verify = rogue.expect("verify", mode)
    checked = verify(out)
    if expected_verify == "unfinished":
        assert proc.returncode != 0 and not (out / "result.yaml").exists()
        assert not checked.ok and checked.unfinished, checked
        return
    assert proc.returncode == 0, proc.stderr
    if expected_verify == "failed":  # the player wrote into the record: verify must catch it
        assert not checked.ok and not checked.unfinished, checked
        return
    records = read_log(out)
    result = yaml.safe_load((out / "result.yaml").read_text())
    assert result["steps"] == len(records) and result["winner"] in (1, 2, None)
    assert [r["step"] for r in records] == list(range(1, len(records) + 1))
    expected = rogue.expect("verdict", mode)
    # LATE is the machine's noise (a loaded CI box), not the rogue's doing.
    allowed = {"OK", "LATE"} if expected == "OK" else {expected}
    assert records[0]["verdict"] in allowed, records[0].get("message")
    assert check_witness(out) >= 1
    assert {r["verdict"] for r in records if r["player"] == 2} <= {"OK", "LATE"}
    assert checked.ok, checked.message
    if rogue.check == "no_passwd":
        assert "root:" not in (out / "log.jsonl").read_text()
    if rogue.check == "forks_noted" and cgroups.available():  # the log says why its forks failed
        assert any("refused: the seat's limit is 64" in n for n in records[0].get("notes", ())), records[0]
    if rogue.check == "all_ok":
        assert {r["verdict"] for r in records if r["player"] == 1} <= {"OK", "LATE"}, records
    if rogue.check == "stdout_capped":
        assert (out / "players" / "p1" / "stdout.txt").stat().st_size < 80 * 1024


def test_the_gallery_is_big_enough():
    assert len(ROGUES) >= 30
    assert sum(r.sandbox_only for r in ROGUES.values()) >= 5


@pytest.mark.parametrize("mode", MODES)
def test_killing_the_referee_leaves_nothing_and_verify_says_unfinished(tmp_path, mode):
    """SIGKILL the referee in the middle of a match: every player process and
    their detached grandchildren die with it, and the folder reads as
    unfinished after the last logged step."""
    token = uuid.uuid4().hex
    slow = _program(tmp_path, "slow", PRELUDE + textwrap.dedent('''
        subprocess.Popen(["sleep", "1000"], start_new_session=True)
        time.sleep(0.4)
        decide()
    '''))
    out = tmp_path / "match"
    env = dict(os.environ, ROGUE_TOKEN=token)
    argv = [str(Path(sys.executable).with_name("referee")), "play", "cantris", "--player", slow,
            "--player", slow, "--board", str(BOARDS / "cantris" / "10x5-1.txt"), "--seed", "2",
            "--out", str(out), "--quiet", "--sandbox", mode, "--pass-env", "ROGUE_TOKEN"]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            log = out / "log.jsonl"
            if log.exists() and log.read_text().count("\n") >= 3:
                break
            time.sleep(0.05)
        proc.kill()
        proc.wait()
    finally:
        survivors = _survivors(token)
        _kill(survivors)
    assert not survivors, f"{len(survivors)} processes outlived the referee"
    steps = len(read_log(out))
    assert steps >= 3
    checked = referee("replay", out, "--verify")
    assert checked.returncode == 1
    assert f"UNFINISHED: unfinished after step {steps}" in checked.stderr


# (no step number on its command line, and no board before its first step)
PERSISTENT_PRELUDE = PRELUDE.replace("STEP, ME = int(sys.argv[-2]), int(sys.argv[-1])", "STEP = ME = 0") \
    .replace("MOVE = move()  #", "MOVE = None  #")
PERSISTENT_ROGUE = PERSISTENT_PRELUDE + '''
for line in sys.stdin:
    if not line.startswith("step"):
        continue
    MOVE = move()
    decide()
    print("done", flush=True)
    ATTACK
'''


def _persistent_match(tmp_path: Path, mode: str, attack: str, *options: str,
                      template: str = PERSISTENT_ROGUE, witness: str = WITNESS):
    """A persistent rogue (``attack`` runs where ``template`` says ATTACK:
    by default after each ``done``) against the witness: (the referee's
    process, the match folder, survivors)."""
    token = uuid.uuid4().hex
    rogue = _program(tmp_path, "rogue", template.replace("ATTACK", textwrap.indent(attack, "    ").strip()))
    out = tmp_path / "match"
    argv = [str(Path(sys.executable).with_name("referee")), "play", "cantris",
            "--player", f"persistent:{rogue}", "--player", _program(tmp_path, "witness", witness),
            "--board", str(BOARDS / "cantris" / "6x3-1.txt"), "--seed", "5", "--out", str(out),
            "--quiet", "--policy", "random", "--sandbox", mode, "--pass-env", "ROGUE_TOKEN", *options]
    try:
        proc = launcher.run(argv[1:], env=dict(os.environ, ROGUE_TOKEN=token), timeout=240)  # no attack on the referee
    finally:
        survivors = _survivors(token)
        _kill(survivors)
    return proc, out, survivors


# The witness, with the span of its step it was awake for on the shared
# CLOCK_MONOTONIC (bwrap makes no time namespace): a ``T start end`` line.
TIMED_WITNESS = WITNESS.replace("import hashlib\n", "import hashlib\nT0 = time.monotonic()\ntime.sleep(0.3)\n", 1) + \
    'print(f"T {T0} {time.monotonic()}")\n'


@pytest.mark.parametrize("mode", MODES)
def test_cpu_hogs_forked_after_done_do_not_run_in_the_opponents_step(tmp_path, mode):
    """CPU hogs, each in its own session, forked one every 20 ms after
    ``done``: the player is frozen (and what it forked killed) before the
    opponent's step starts, so no hog runs while the opponent plays.  Each hog
    logs the time while it runs; the opponent logs its step's span: no hog's
    time may fall in it.  (Unfrozen, the hogs forked meanwhile run through
    the witness's 0.3 s; with the freeze, the player is stopped in its sleep
    and its next request is waiting when it wakes, so it forks none.)"""
    hogs = ("import select\n"
            "for _ in range(96):\n"
            "    time.sleep(0.02)\n"
            "    if select.select([sys.stdin], [], [], 0)[0]:\n"
            "        break\n"
            "    if os.fork() == 0:\n"
            "        os.setsid()\n"
            "        ticks, last = open('ticks.txt', 'a'), 0.0\n"
            "        while True:\n"
            "            now = time.monotonic()\n"
            "            if now - last > 0.01:\n"
            "                ticks.write(f'{now}\\n'); ticks.flush(); last = now")
    proc, out, survivors = _persistent_match(tmp_path, mode, hogs, "--time-limit", "2",
                                             "--set", "hard_time=3", witness=TIMED_WITNESS)
    assert not survivors and proc.returncode == 0, proc.stderr
    records = read_log(out)
    assert check_witness(out) >= 2
    assert {r["verdict"] for r in records if r["player"] == 2} <= {"OK", "LATE"}
    spans = [tuple(map(float, ln.split()[1:])) for ln in (out / "players" / "p2" / "stdout.txt").read_text().splitlines()
             if ln.startswith("T ")]
    assert len(spans) >= 2
    ticks_file = out / "players" / "p1" / "ticks.txt"
    ticks = [float(t) for t in ticks_file.read_text().split()] if ticks_file.exists() else []
    inside = [t for t in ticks for start, end in spans if start <= t <= end]
    assert not inside, f"{len(inside)} of {len(ticks)} hog ticks fell inside the opponent's steps"


@pytest.mark.parametrize("mode", MODES)
def test_stderr_written_between_steps_counts_against_the_cap(tmp_path, mode):
    """What a persistent player writes after ``done`` is cut with its next
    step's output (output_kb), not kept whole (16 MiB got through)."""
    # (2 MiB, a little at a time past this step's cap: the freeze holds the rest
    # to its next step, and the cap counts from where this one ended either way)
    flood = "for _ in range(32): time.sleep(0.02); sys.stderr.write('e' * (1 << 16)); sys.stderr.flush()"
    proc, out, survivors = _persistent_match(tmp_path, mode, flood, "--set", "output_kb=64")
    assert not survivors and proc.returncode == 0, proc.stderr
    steps = len([r for r in read_log(out) if r["player"] == 1])
    assert steps >= 2
    size = (out / "players" / "p1" / "stderr.txt").stat().st_size
    assert size <= (steps + 1) * (64 * 1024 + 200), size
