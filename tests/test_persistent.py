"""Persistent players (``persistent:CMD``): started once per match inside the
seat host (and sandbox), told ``step <k>`` on stdin, done when they print
``done``.  Same files, limits, verdicts and logs as a spawned player; a player
that dies, hangs or is killed starts again at its next step."""
from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

import yaml

import pytest

from conftest import BOARDS, PYTHON_SDK, ROOT, assert_verifies, play_match, read_log, referee
from referee.core import seats
from referee.core.later import Later
from referee.core.runner import Limits
from referee.core.sandbox import NONE
from referee.core.seats import SeatHost

pytestmark = pytest.mark.skipif(not seats.available(), reason="persistent players need a seat host")

# A student-style program: the SDK's run() calls play_games(step) in both modes.
COUNTER = f"""
import os, sys, time
sys.path.insert(0, {str(PYTHON_SDK)!r})
from referee_sdk import read_board, run, save_decision
CALLS = 0

def play_games(step):
    global CALLS
    CALLS += 1
    print("call", CALLS, "pid", os.getpid(), "step", step, flush=True)
    {{misbehave}}
    board = read_board()
    for r in range(len(board) - 1, -1, -1):
        for c, v in enumerate(board[r]):
            if v:
                save_decision(r, c)
                {{after}}
                return

{{startup}}
run(play_games)
"""


def _program(make_player, misbehave: str = "pass", after: str = "pass", startup: str = "pass") -> str:
    return make_player("counter", COUNTER.replace("{misbehave}", misbehave).replace("{after}", after)
                       .replace("{startup}", startup))


BURN = "end = time.process_time() + {s}\nwhile time.process_time() < end: pass"
# A CPU limit is tested with a player that burns CPU for ever against a wall
# limit far beyond it: on a busy machine a second of CPU can take many seconds
# of wall time, and then a tight wall limit would give TIMEOUT.
BURN_FOREVER = "while True: pass"


def _calls(record) -> list[tuple[int, int]]:
    lines = [ln.split() for ln in (record.get("stdout") or "").splitlines() if ln.startswith("call")]
    return [(int(w[1]), int(w[3])) for w in lines]


def test_a_persistent_player_keeps_its_memory_and_plays_like_a_spawned_one(tmp_path, make_player):
    program = _program(make_player)
    kept, spawned = tmp_path / "kept", tmp_path / "spawned"
    play_match("cantris", kept, f"persistent:{program}", "builtin:random", seed=4,
               board=BOARDS / "cantris" / "8x4-1.txt")
    play_match("cantris", spawned, program, "builtin:random", seed=4,
               board=BOARDS / "cantris" / "8x4-1.txt")
    mine = [r for r in read_log(kept) if r["player"] == 1]
    calls = [_calls(r)[0] for r in mine]
    assert [c for c, _ in calls] == list(range(1, len(mine) + 1))  # one process, its memory kept
    assert len({pid for _, pid in calls}) == 1
    assert all(_calls(r)[0][0] == 1 for r in read_log(spawned) if r["player"] == 1)
    same = ("step", "player", "decision", "verdict", "applied", "events", "scores", "hash")
    assert [{k: r.get(k) for k in same} for r in read_log(kept)] == \
        [{k: r.get(k) for k in same} for r in read_log(spawned)]
    assert_verifies(kept)


@pytest.mark.parametrize("misbehave, verdict", [
    ("if step == 3: raise SystemExit(1)", "CRASH"),
    ("if step == 3: time.sleep(30)", "TIMEOUT"),
    ("if step == 3: os._exit(0)", "NO_DECISION"),
    ("if step == 3: x = bytearray(3 * 1024 ** 3)", "MEMORY_LIMIT"),
])
def test_a_persistent_player_that_fails_gets_the_verdict_and_starts_again(
        tmp_path, make_player, misbehave, verdict):
    out = tmp_path / "m"
    play_match("cantris", out, f"persistent:{_program(make_player, misbehave)}", "builtin:random",
               seed=4, board=BOARDS / "cantris" / "8x4-1.txt",
               extra=("--policy", "random", "--time-limit", "4", "--set", "hard_time=4"))
    mine = {r["step"]: r for r in read_log(out) if r["player"] == 1}
    assert mine[3]["verdict"] == verdict and mine[3]["fault"] == "random"
    assert _calls(mine[5])[0][0] == 1  # a fresh process at its next step
    assert mine[5]["verdict"] == "OK" and _calls(mine[7])[0][0] == 2
    assert_verifies(out)


def test_garbage_on_stdout_is_output_and_a_second_done_is_not_an_answer(tmp_path, make_player):
    # At step 1 it prints junk and an extra "done"; at step 5 it computes for
    # a while between its two "done"s (the referee must not stop it half-way
    # and take the second for step 7's answer); at steps 3 and 7 it is slow to
    # decide: a referee that took a stale "done" would find no decision.
    misbehave = ("if step == 1: print('garbage \\x01\\x02 line')\n"
                 "    if step in (3, 7): time.sleep(0.5)")
    twice = ("if step in (1, 5): print('done', flush=True)\n"  # then run() prints its own
             "                if step == 5:\n"
             "                    end = time.process_time() + 0.2\n"
             "                    while time.process_time() < end: pass")
    out = tmp_path / "m"
    play_match("cantris", out, f"persistent:{_program(make_player, misbehave, twice)}", "builtin:random",
               seed=4, board=BOARDS / "cantris" / "8x4-1.txt")
    mine = {r["step"]: r for r in read_log(out) if r["player"] == 1}
    assert {r["verdict"] for r in mine.values()} == {"OK"}
    assert "garbage" in (out / "players" / "p1" / "stdout.txt").read_text()


def test_a_persistent_player_that_stops_the_referee_does_not_leave_it_stopped(tmp_path, make_player):
    # Without a sandbox a player can see the referee (its host's parent) and
    # SIGSTOP it; its host wakes the referee again after each reply.
    stopper = ("if step == 3:\n"
               "        import signal\n"
               "        host = os.getppid()\n"
               "        with open(f'/proc/{host}/stat') as f:\n"
               "            os.kill(int(f.read().rsplit(')', 1)[1].split()[1]), signal.SIGSTOP)")
    out = tmp_path / "m"
    proc = referee("play", "cantris", "--player", f"persistent:{_program(make_player, stopper)}",
                   "--player", "builtin:random", "--board", BOARDS / "cantris" / "8x4-1.txt",
                   "--seed", "4", "--out", out, "--quiet", "--sandbox", "none", timeout=60)
    assert proc.returncode == 0, proc.stderr
    mine = {r["step"]: r for r in read_log(out) if r["player"] == 1}
    assert len(mine) > 3 and {r["verdict"] for r in mine.values()} == {"OK"}
    assert_verifies(out)


@pytest.mark.parametrize("direct", ["on", "off"])
def test_a_player_that_closes_its_output_is_not_charged_the_wait_for_it(tmp_path, make_player, monkeypatch,
                                                                         direct):
    # Its output at its end, the host's wait on it was a busy loop until the
    # deadline: ~1.3 s of the host's CPU, in the seat's control group,
    # charged to a player that slept (a CPU limit would have said CPU_LIMIT).
    monkeypatch.setenv("REFEREE_DIRECT_STEPS", direct)
    closer = "if CALLS == 2:\n        os.close(1); time.sleep(30)"
    out = tmp_path / "m"
    play_match("cantris", out, f"persistent:{_program(make_player, closer)}", "builtin:random",
               seed=4, board=BOARDS / "cantris" / "10x5-1.txt",
               extra=("--set", "soft_time=2", "--set", "hard_time=3"))
    second = [r for r in read_log(out) if r["player"] == 1][1]
    assert second["verdict"] == "TIMEOUT" and second["cpu_ms"] < 500, second


def test_a_thread_left_burning_is_frozen_between_steps_and_charged_in_them(tmp_path, make_player):
    # A thread that burns CPU after the step's "done": frozen with its player
    # until the next step, where it burns again; step 3 waits (on the CPU
    # clock, not the wall clock) until it has burnt past the step's budget.
    burner = ("if step == 1:\n"
              "        import threading\n"
              "        def burn():\n"
              "            while True:\n"
              "                pass\n"
              "        threading.Thread(target=burn, daemon=True).start()\n"
              "    if step == 3:\n"
              "        begun = time.process_time()\n"
              "        while time.process_time() < begun + 2.5: time.sleep(0.01)")
    out = tmp_path / "m"
    play_match("cantris", out, f"persistent:{_program(make_player, burner)}", "builtin:random",
               seed=4, board=BOARDS / "cantris" / "8x4-1.txt",
               extra=("--policy", "random", "--set", "cpu_time=1", "--time-limit", "60",
                      "--set", "hard_time=60"))
    mine = [r for r in read_log(out) if r["player"] == 1]
    faulty = [r for r in mine if r["verdict"] != "OK"]
    assert faulty and faulty[0]["verdict"] == "CPU_LIMIT", [r["verdict"] for r in mine]


@pytest.mark.parametrize("sandbox", ["auto", "none"])
def test_cpu_of_a_thread_that_ended_is_charged_to_its_step(tmp_path, make_player, sandbox):
    # Step 3 burns ~0.4 s of CPU in a thread that ends before the step does.
    burner = ("if step == 3:\n"
              "        import threading\n"
              "        def burn():\n"
              "            end = time.process_time() + 0.4\n"
              "            while time.process_time() < end:\n"
              "                pass\n"
              "        worker = threading.Thread(target=burn)\n"
              "        worker.start()\n"
              "        worker.join()")
    out = tmp_path / "m"
    play_match("cantris", out, f"persistent:{_program(make_player, burner)}", "builtin:random",
               seed=4, board=BOARDS / "cantris" / "8x4-1.txt", extra=("--sandbox", sandbox))
    mine = {r["step"]: r for r in read_log(out) if r["player"] == 1}
    assert mine[3]["cpu_ms"] >= 380, mine[3]
    assert mine[5]["cpu_ms"] < 380  # and not charged again


@pytest.mark.parametrize("sandbox", ["auto", "none"])
def test_the_cpu_limit_is_per_step_however_much_cpu_the_player_used_before(
        tmp_path, make_player, sandbox):
    # 0.4 s of CPU a step against a 1 s CPU limit: over the match it uses
    # several times the limit, but no step goes over it.  (The limit's hard
    # value cannot be raised by an unprivileged host, as in the sandbox.)
    out = tmp_path / "m"
    play_match("cantris", out, f"persistent:{_program(make_player, BURN.format(s=0.4).replace(chr(10), chr(10) + '    '))}",
               "builtin:random", seed=4, board=BOARDS / "cantris" / "8x4-1.txt",
               extra=("--sandbox", sandbox, "--set", "cpu_time=1", "--time-limit", "30", "--set", "hard_time=30"))
    mine = [r for r in read_log(out) if r["player"] == 1]
    assert sum(r["cpu_ms"] for r in mine) > 2000, [r["cpu_ms"] for r in mine]
    assert {r["verdict"] for r in mine} <= {"OK", "LATE"}, [r.get("message") for r in mine]


@pytest.mark.parametrize("sandbox", ["auto", "none"])
def test_a_player_behind_a_wrapper_is_kept_whole_and_its_helpers_still_die(tmp_path, make_player, sandbox):
    # `persistent:./run.sh` where run.sh runs python3 as its child (no exec),
    # as npx, uv run or a course's run script do: the shell waits while its
    # child reads the requests.  Both are the player: kept and frozen
    # together (the child used to be killed as a leftover at the first
    # `done`, and the step's answer never came).  Each step it burns 0.3 s of
    # CPU against a 1 s limit (charged per step, over 1 s in all: the child's
    # own CPU limit moves with each step too) and starts a helper that holds
    # the request pipe too: that one dies with its step.
    step_work = "\n    ".join([BURN.format(s=0.3).replace("\n", "\n    "),
                               "global HELPER",
                               "if 'HELPER' in globals(): print('helper', HELPER.poll(), flush=True)",
                               "import subprocess; HELPER = subprocess.Popen(['sleep', '600'])"])
    program = _program(make_player, step_work)
    wrapper = tmp_path / "run.sh"
    wrapper.write_text(f"#!/bin/sh\n{program} \"$@\"\necho wrapper-ended >&2\n")
    wrapper.chmod(0o755)
    out = tmp_path / "m"
    play_match("cantris", out, f"persistent:{wrapper}", "builtin:random", seed=4,
               board=BOARDS / "cantris" / "8x4-1.txt",
               extra=("--sandbox", sandbox, "--set", "cpu_time=1", "--time-limit", "30", "--set", "hard_time=30"))
    mine = [r for r in read_log(out) if r["player"] == 1]
    assert {r["verdict"] for r in mine} <= {"OK", "LATE"}, [r.get("message") for r in mine]
    calls = [_calls(r)[0] for r in mine]
    assert [c for c, _ in calls] == list(range(1, len(mine) + 1)), calls  # one child, its memory kept
    assert len({pid for _, pid in calls}) == 1
    assert all(r["cpu_ms"] >= 280 for r in mine) and sum(r["cpu_ms"] for r in mine) > 1200, \
        [r["cpu_ms"] for r in mine]
    # the helper of the step before was killed at its `done` (SIGKILL), each time
    assert all("helper -9" in r["stdout"] for r in mine[1:]), [r.get("stdout") for r in mine]
    assert "start_ms" in mine[0] and "wrapper-ended" not in (out / "players" / "p1" / "stderr.txt").read_text()
    assert_verifies(out)


def test_a_player_that_ignores_sigxcpu_is_still_held_to_the_cpu_limit(tmp_path, make_player):
    ignore = ("if step == 3:\n"
              "        import signal\n"
              "        signal.signal(signal.SIGXCPU, signal.SIG_IGN)\n"
              "        " + BURN_FOREVER)
    out = tmp_path / "m"
    play_match("cantris", out, f"persistent:{_program(make_player, ignore)}", "builtin:random",
               seed=4, board=BOARDS / "cantris" / "8x4-1.txt",
               # a wall limit far above the CPU limit: on a loaded machine 2.5 s of CPU
               # took over 5 s of wall time, and the step was a TIMEOUT
               extra=("--policy", "random", "--set", "cpu_time=1", "--time-limit", "60", "--set", "hard_time=60"))
    mine = {r["step"]: r for r in read_log(out) if r["player"] == 1}
    assert mine[1]["verdict"] == "OK" and mine[3]["verdict"] == "CPU_LIMIT", mine[3]
    assert mine[5]["verdict"] == "OK"  # started again


@pytest.mark.parametrize("sandbox", ["auto", "none"])
def test_a_kept_alive_player_is_stopped_at_its_cpu_limit_not_a_second_after(tmp_path, make_player, sandbox):
    """RLIMIT_CPU counts a process's whole life in whole seconds: set to the
    first whole second past what it had used and the step's budget, it let
    a player that used 0.1 s before burn 1.9 s of a 1 s limit.  The host's
    own look at its CPU is the limit now (within its polling interval)."""
    out = tmp_path / "m"
    play_match("cantris", out, f"persistent:{_program(make_player, 'if step == 3:' + chr(10) + '        ' + BURN_FOREVER)}",
               "builtin:random", seed=4, board=BOARDS / "cantris" / "8x4-1.txt",
               extra=("--sandbox", sandbox, "--policy", "random", "--set", "cpu_time=1",
                      "--time-limit", "60", "--set", "hard_time=60"))
    mine = {r["step"]: r for r in read_log(out) if r["player"] == 1}
    assert mine[3]["verdict"] == "CPU_LIMIT", mine[3]
    assert 1000 <= mine[3]["cpu_ms"] < 1500, mine[3]


# ----- started before the match's first step


def test_players_start_before_the_match_and_their_start_up_is_not_charged_to_their_first_step(
        tmp_path, make_player):
    # Its start-up burns 0.3 s of CPU: the referee waits for it to settle
    # (start_ms), and its first step is charged neither that CPU nor that wall time.
    program = f"persistent:{_program(make_player, startup=BURN.format(s=0.3))}"
    out = tmp_path / "m"
    play_match("cantris", out, program, program, seed=4, board=BOARDS / "cantris" / "8x4-1.txt")
    records = read_log(out)
    for first in records[:2]:
        assert first["verdict"] == "OK"
        assert first["start_ms"] >= 280 and first["cpu_ms"] < 280, first
        assert first["wall_ms"] < first["start_ms"], first
    assert all("start_ms" not in r for r in records[2:])
    assert all(r["cpu_ms"] < 280 for r in records[2:])
    assert_verifies(out)


def _counters_match(tmp_path, make_player) -> tuple[list[dict], Path]:
    """Two kept-alive counter programs on Cantris 8x4: (its log, its folder),
    every step OK."""
    from referee.core.match import MatchSpec, run_match

    program = f"persistent:{_program(make_player)}"
    out = tmp_path / "m"
    run_match(MatchSpec("cantris", [program, program], board=BOARDS / "cantris" / "8x4-1.txt",
                        seed=4, out=out))
    records = read_log(out)
    assert len(records) > 4 and all(r["verdict"] == "OK" for r in records)
    return records, out


@pytest.mark.parametrize("direct", ["on", "off"])
def test_the_first_step_is_handed_over_as_any_later_one(tmp_path, make_player, monkeypatch, direct):
    # What only the first step had to do is done before its clock starts: the
    # player started and idle (start_ms), the host told the whole environment.
    # No kept-alive player's step hands the referee's own writes to a thread
    # (see core.later): started at step 1's hand-over, the thread that did
    # them held the first reply for 55-60 ms (150+ on a busy machine), and
    # player 1 was LATE at step 1 under --time-limit 0.1 through no fault of
    # its own.  Every step, the first too, has them done as Later.until does.
    # With the player lent to the worker (direct.py, where a control group
    # holds the seat), its ordinary steps, the first one too, are no request
    # to the host at all.
    from referee.core import cgroups

    monkeypatch.setenv("REFEREE_DIRECT_STEPS", direct)
    overlapped: list[object] = []
    requests: list[dict] = []
    run, ask = seats.SeatHost.run, seats.SeatHost._ask

    def recording_run(self, *args, meanwhile=None, **kwargs):
        overlapped.append(meanwhile)
        return run(self, *args, meanwhile=meanwhile, **kwargs)

    def recording_ask(self, request, deadline, meanwhile=None):
        requests.append(marshal.loads(bytes.fromhex(request.decode().strip())))
        return ask(self, request, deadline, meanwhile)

    monkeypatch.setattr(seats.SeatHost, "run", recording_run)
    monkeypatch.setattr(seats.SeatHost, "_ask", recording_ask)
    records, _ = _counters_match(tmp_path, make_player)
    firsts = [next(i for i, r in enumerate(records) if r["player"] == seat) for seat in (1, 2)]
    assert [i for i, r in enumerate(records) if "start_ms" in r] == sorted(firsts)
    assert len(overlapped) == len(records), overlapped
    assert all(getattr(meanwhile, "__func__", None) is Later.until for meanwhile in overlapped), overlapped
    steps = [request for request in requests if request.get("persistent")]
    if direct == "on" and cgroups.available():
        assert steps == [], steps  # every step played by the worker, none through a host
        return
    assert len(steps) == len(records)
    for request in (steps[i] for i in firsts):  # each seat's first step: only what changed
        assert request["persistent"] and "env" not in request, sorted(request)
        assert set(request.get("env_changes", {})) <= {"REFEREE_STEP"}, request


@pytest.mark.parametrize("direct", ["on", "off"])
def test_a_kept_alive_players_step_overlaps_the_referees_writes_until_its_answer_comes(
        tmp_path, make_player, monkeypatch, direct):
    # The writes a step leaves (the match folder's snapshot, the other seats'
    # views, the decision removed: core.later) are done while the next player
    # runs.  On a thread they ran into a kept-alive player's reply (its step is
    # over in ~0.2 ms), and the GIL they held counted in its time; done in
    # line before its step, they were on every step's critical path.  Now the
    # match does them itself while it waits, one at a time, until the answer
    # comes.  This player answers step k only once the match folder's snapshot
    # of step k-1 is there: so that write is done during its step, on the
    # match's own thread, and a line the player prints first (its "call"
    # line) is not taken for its answer.  On the old code the snapshot was
    # there before the step.
    import threading

    from referee.core.log import MatchFolder
    from referee.core.match import MatchSpec, run_match
    from referee.core.players import ProcessAgent

    monkeypatch.setenv("REFEREE_DIRECT_STEPS", direct)
    out = tmp_path / "m"
    waits = ("if step > 1:\n"
             f"        snapshot = {str(out / 'step_logs')!r} + f'/step_{{step - 1}}.txt'\n"
             "        end = time.monotonic() + 20\n"
             "        while not os.path.exists(snapshot) and time.monotonic() < end: time.sleep(0.001)\n"
             "        print('waited', 'found' if os.path.exists(snapshot) else 'not found', flush=True)")
    program = f"persistent:{_program(make_player, misbehave=waits)}"
    stepping: list[int] = []  # the step in progress (0 or 1 of them)
    written: dict[int, tuple[list[int], int]] = {}  # snapshot: (steps in progress, thread)
    decide, write = ProcessAgent.decide, MatchFolder.write_snapshot

    def recording_decide(self, workdir, step, *args):
        stepping.append(step)
        try:
            return decide(self, workdir, step, *args)
        finally:
            stepping.pop()

    def recording_write(self, step, text):
        written[step] = (list(stepping), threading.get_ident())
        return write(self, step, text)

    monkeypatch.setattr(ProcessAgent, "decide", recording_decide)
    monkeypatch.setattr(MatchFolder, "write_snapshot", recording_write)
    run_match(MatchSpec("cantris", [program, program], board=BOARDS / "cantris" / "8x4-1.txt",
                        seed=4, out=out, sandbox="none"))
    records = read_log(out)
    assert len(records) > 4 and all(r["verdict"] == "OK" for r in records), records
    assert all("waited found" in r["stdout"] for r in records[1:]), [r.get("stdout") for r in records]
    main = threading.get_ident()
    for k in range(1, len(records)):
        assert written[k] == ([k + 1], main), (k, written[k])
    assert_verifies(out)


LAZY = ("json", "random")  # what the SDK imports at the first call that needs it (Cantris has no module of its own)


def test_the_sdk_imports_before_a_persistent_players_first_step_what_the_program_names(tmp_path, make_player):
    # A persistent player's start-up is not charged; its first step was: the
    # SDK's lazy imports (json, random, the game's module) cost a built-in's
    # step 1 ~20 ms, ~8x its later steps.  Only what the program names is
    # imported ahead (json alone is ~15 ms a game); a spawned player still
    # pays only for what it calls.
    cold = f"print('cold', sorted(m for m in {LAZY!r} if m not in sys.modules))"
    names_both = "from referee_sdk import player_rng, read_state"
    for mode, startup, expected in (("persistent:", names_both, []), ("persistent:", "pass", sorted(LAZY)),
                                    ("", names_both, sorted(LAZY))):
        program = _program(make_player, misbehave=cold, startup=startup)
        out = tmp_path / f"{mode.rstrip(':') or 'spawned'}-{len(startup)}"
        play_match("cantris", out, mode + program, "builtin:random", seed=4, board=BOARDS / "cantris" / "8x4-1.txt")
        first = next(r for r in read_log(out) if r["player"] == 1)
        assert first["verdict"] == "OK" and f"cold {expected!r}" in first["stdout"], (mode, startup, first)
    # A game with a module of its own (read_board's parser): imported for a
    # program that names read_board, or the SDK module itself.
    env = dict(os.environ, REFEREE_PERSISTENT="1", REFEREE_PLAYER="1", REFEREE_GAME="quoridor")
    # A module of the program's own folder counts; an odd object in sys.modules is passed over.
    (tmp_path / "helper.py").write_text("from referee_sdk import read_state\n")
    odd = ("class Odd:\n __dict__ = property(lambda self: 1 / 0)\n"
           " def __getattr__(self, name): raise RuntimeError(name)\nsys.modules['odd'] = Odd()")
    for imports, expected_modules in (("import referee_sdk; run = referee_sdk.run",
                                       ["json", "random", "referee_sdk.quoridor"]),
                                      ("from referee_sdk import read_board, run", ["referee_sdk.quoridor"]),
                                      (f"import helper; from referee_sdk import run\n{odd}", ["json"])):
        probe = (f"import sys; sys.path.insert(0, sys.argv[1]); {imports}; run(print); "
                 "print(sorted(m for m in sys.modules if m in ('json', 'random') or m.startswith('referee_sdk.')))")
        done = subprocess.run([sys.executable, "-c", probe, str(PYTHON_SDK)], input="", capture_output=True,
                              text=True, env=env, cwd=tmp_path, timeout=60)
        assert done.stdout.strip() == repr(expected_modules), (imports, done)


def test_a_player_that_dies_while_it_starts_gets_the_verdict_at_its_first_step(tmp_path, make_player):
    out = tmp_path / "m"
    play_match("cantris", out, f"persistent:{_program(make_player, startup='raise SystemExit(3)')}",
               "builtin:random", seed=4, board=BOARDS / "cantris" / "8x4-1.txt",
               extra=("--policy", "random"))
    mine = [r for r in read_log(out) if r["player"] == 1]
    assert mine[0]["verdict"] == "CRASH" and mine[0]["exit"] == 3, mine[0]
    assert "start_ms" in mine[0]
    assert len(mine) > 1 and all(r["verdict"] == "CRASH" for r in mine)  # started again, each step


@pytest.mark.parametrize("direct", ["on", "off"])
def test_what_a_player_computes_after_its_done_is_charged_to_its_steps(tmp_path, make_player, monkeypatch,
                                                                      direct):
    # Its step's wall time ends at its ``done`` and its way back to its
    # stdin, not at the ``done`` alone: a player that prints ``done`` and
    # goes on computing gains nothing.  It is frozen SETTLE_S after its
    # ``done`` at the latest (that much is this step's), and the rest of its
    # computation is its next step's (its thaw lets it get back first).
    from referee.core import seathost

    monkeypatch.setenv("REFEREE_DIRECT_STEPS", direct)
    ponder = "\n                ".join(["print('done', flush=True)", "end = time.monotonic() + 0.25",
                                          "while time.monotonic() < end: pass"])
    out = tmp_path / "m"
    play_match("cantris", out, f"persistent:{_program(make_player, after=ponder)}", "builtin:random",
               seed=4, board=BOARDS / "cantris" / "8x4-1.txt")
    mine = [r for r in read_log(out) if r["player"] == 1]
    assert {r["verdict"] for r in mine} == {"OK"}, mine
    assert all(r["wall_ms"] >= seathost.SETTLE_S * 1000 for r in mine), [r["wall_ms"] for r in mine]
    assert all(r["wall_ms"] >= 150 for r in mine[1:]), [r["wall_ms"] for r in mine]


@pytest.mark.parametrize("direct", ["on", "off"])
def test_what_a_player_prints_while_it_starts_is_its_first_steps_output(tmp_path, make_player, monkeypatch,
                                                                       direct):
    # A start-up that crashed (an import that failed) is told at step 1 as a
    # spawned player's crash is, its stderr's last line and where; one that
    # printed and went on has that output in its first step's (capped with
    # it: output is never free).  Before, the first step's output began
    # after the start-up, and the crash said only "exit status 1".
    monkeypatch.setenv("REFEREE_DIRECT_STEPS", direct)
    out = tmp_path / "crashed"
    play_match("cantris", out, f"persistent:{_program(make_player, startup='import no_such_module_anywhere')}",
               "builtin:random", seed=4, board=BOARDS / "cantris" / "8x4-1.txt")
    first = read_log(out)[0]
    assert first["verdict"] == "CRASH", first
    assert "(stderr: ModuleNotFoundError: No module named 'no_such_module_anywhere' at counter.py:" \
        in first["message"], first["message"]
    out = tmp_path / "talked"
    talker = _program(make_player, startup="print('loading', flush=True)")
    play_match("cantris", out, f"persistent:{talker}", "builtin:random", seed=4,
               board=BOARDS / "cantris" / "8x4-1.txt")
    mine = [r for r in read_log(out) if r["player"] == 1]
    assert {r["verdict"] for r in mine} == {"OK"}, mine
    assert mine[0]["stdout"].startswith("loading\ncall 1 "), mine[0]
    assert "loading" not in mine[1]["stdout"], mine[1]
    # A flood while it starts is capped with its first step's output (it
    # was kept whole: 5 MB of stderr, past output_kb).
    out = tmp_path / "flooded"
    flooder = _program(make_player, startup="sys.stderr.write('x' * 300000); sys.stderr.flush()")
    play_match("cantris", out, f"persistent:{flooder}", "builtin:random", seed=4,
               board=BOARDS / "cantris" / "8x4-1.txt")
    assert (out / "players" / "p1" / "stderr.txt").stat().st_size < 70 * 1024
    assert "more bytes of output dropped" in (out / "players" / "p1" / "stderr.txt").read_text()[-200:]


def test_a_start_up_that_does_not_settle_is_waited_for_at_most_the_first_step_limit(
        tmp_path, make_player):
    # A start-up that never ends against a 1 s first step: the referee waits
    # 1 s for it, then asks for the step; still busy, it is a TIMEOUT.  (The
    # upper bound is loose: waiting for the start-up's end would take 30 s.)
    # Only its first start-up spins: started again after the TIMEOUT, it
    # plays (every later start would burn 2 s of CPU to no purpose).
    spin_once = f"if not os.path.exists('spun'):\n    open('spun', 'w').close()\n    {BURN_FOREVER}"
    out = tmp_path / "m"
    play_match("cantris", out, f"persistent:{_program(make_player, startup=spin_once)}",
               "builtin:random", seed=4, board=BOARDS / "cantris" / "8x4-1.txt",
               extra=("--policy", "random", "--time-limit", "1", "--set", "hard_time=1",
                      "--set", "cpu_time=30"))
    first = read_log(out)[0]
    assert first["verdict"] == "TIMEOUT", first
    assert 900 <= first["start_ms"] < 10_000, first


def test_a_tournament_entrant_can_be_persistent(tmp_path):
    config = tmp_path / "t.yaml"
    config.write_text(json.dumps({
        "game": "cantris", "boards": [str(BOARDS / "cantris" / "6x3-1.txt")],
        # (a built-in is kept alive by itself: the spawned one is a plain command)
        "entrants": [{"name": "kept", "command": "builtin:greedy", "persistent": True},
                     {"name": "spawned", "command": f"{sys.executable} {ROOT / 'players' / 'cantris' / 'random.py'}"}],
        "out": str(tmp_path / "out")}))
    proc = referee("tournament", config, "--jobs", "1")
    assert proc.returncode == 0, proc.stderr
    games = sorted((tmp_path / "out").rglob("match.yaml"))
    assert len(games) >= 2  # both seats
    for game in games:
        for player in yaml.safe_load(game.read_text())["players"]:
            assert player.get("persistent", False) == (player["name"] == "kept")


def test_without_a_seat_host_a_kept_alive_program_is_warned_of_and_a_built_in_is_not(
        tmp_path, make_player, monkeypatch):
    # A built-in is kept alive only to save start-ups: started afresh every
    # step it decides the same, so no warning; a program asked to be kept
    # alive would lose what it keeps in memory, and is told.
    monkeypatch.setenv("REFEREE_RUNNER", "direct")
    board = BOARDS / "cantris" / "8x4-1.txt"
    warning = "persistent players are started afresh every step here"
    builtins = referee("play", "cantris", "--player", "builtin:greedy", "--player", "builtin:random",
                       "--board", board, "--out", tmp_path / "a", "--quiet")
    assert builtins.returncode == 0 and warning not in builtins.stderr, builtins.stderr
    kept = referee("play", "cantris", "--player", f"persistent:{_program(make_player)}",
                   "--player", "builtin:random", "--board", board, "--out", tmp_path / "b", "--quiet")
    assert kept.returncode == 0 and warning in kept.stderr, kept.stderr


def test_persistent_needs_a_program(tmp_path):
    proc = referee("play", "cantris", "--player", "persistent:human", "--player", "builtin:random",
                   "--out", tmp_path / "m")
    assert proc.returncode == 2 and "only a program can be persistent" in proc.stderr


@pytest.mark.parametrize("data, expected", [
    (b"", (False, 0, 0)),
    (b"a\nb\n", (False, 4, 4)),
    (b"a\nb", (False, 2, 2)),  # an unfinished line waits for its end
    (b"a\ndone\nrest\n", (True, 2, 7)),
    (b"  done \r\n", (True, 0, 9)),
    (b"undone\ndone!\nx\n", (False, 15, 15)),  # "done" inside other lines is output
    (b"undone\nx\ndone\n", (True, 9, 14)),
    (b"a\ndo", (False, 2, 2)),  # "do" may still become "done"
    (b"a\ndone", (False, 2, 2)),
])
def test_the_host_finds_the_done_line(data, expected):
    """(done?, output before it, where the rest starts), in one pass over
    what the player printed, however many lines a flood has."""
    from referee.core import seathost

    assert seathost._done_line(data) == expected


def test_a_flood_of_lines_then_done_is_read_whole():
    from referee.core import seathost

    flood = b"x\n" * 200_000 + b"done\nnext\n"
    assert seathost._done_line(flood) == (True, 400_000, 400_005)


@pytest.mark.parametrize("sandbox", ["none", "auto"])
def test_a_persistent_player_under_a_low_open_file_limit_plays_every_step(tmp_path, make_player, sandbox):
    # Its host takes the player's open-file limit on itself (so that a
    # player it starts inherits it) and must still open its own files.
    out = tmp_path / "m"
    play_match("cantris", out, f"persistent:{_program(make_player)}", "builtin:random", seed=4,
               board=BOARDS / "cantris" / "8x4-1.txt", extra=("--set", "open_files=26", "--sandbox", sandbox))
    mine = [r for r in read_log(out) if r["player"] == 1]
    assert len(mine) > 3 and all(r["verdict"] == "OK" for r in mine)
    assert [_calls(r)[0][0] for r in mine] == list(range(1, len(mine) + 1))  # one process throughout
    assert_verifies(out)


def test_the_proc_files_a_host_keeps_open_leave_it_descriptors_under_a_low_limit():
    """The host keeps the /proc files a step reads open (read again from
    their start), but it may live under its player's open-file limit (as
    few as HOST_FILES): near that limit it keeps none, so that its output
    files and pipes still open, and every read still answers.  (In a child
    process: the limit is lowered for good.)"""
    program = f"""
import os, resource, sys
sys.path.insert(0, {str(ROOT / "referee" / "core")!r})
import seathost
resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
held = []
while True:
    try:
        held.append(os.open("/dev/null", os.O_RDONLY))
    except OSError:
        break
for _ in range(20):
    os.close(held.pop())  # 20 left free: 44-63
paths = [f"/proc/self/{{name}}" for name in ("stat", "status", "statm", "cmdline", "environ",
                                            "limits", "io", "comm", "wchan", "cgroup")]
for _ in range(3):
    assert all(seathost._proc(path) for path in paths[:4])  # read again: still answers
    assert all(seathost._proc(path) is not None for path in paths)
free = 0
while True:
    try:
        os.open("/dev/null", os.O_RDONLY)
        free += 1
    except OSError:
        break
print(len(seathost._KEPT_FILES), free)
"""
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    kept, free = map(int, done.stdout.split())
    assert 0 < kept <= 8 and kept + free == 20 and free >= 12


KEEPS_TICKING = '''
import sys, threading, time
ticks = 0
def tick():
    global ticks
    while True:
        ticks += 1
        time.sleep(0.001)
threading.Thread(target=tick, daemon=True).start()
for line in sys.stdin:
    open("decision.txt", "w").write(str(ticks))
    print("done", flush=True)
'''


@pytest.mark.skipif(not seats.available(), reason="needs a seat host")
def test_a_persistent_player_is_stopped_from_done_to_its_next_step(tmp_path):
    """Not merely charged for what it does between steps: it does nothing
    (its state is T, stopped, whenever its step is over), and it is woken
    for the next one."""
    seat_dir = tmp_path / "players" / "p1"
    (seat_dir / "step_logs").mkdir(parents=True)
    program = tmp_path / "ticks.py"
    program.write_text(KEEPS_TICKING)
    host = SeatHost(seat_dir, NONE)
    limits = Limits(soft_time=5, hard_time=10)
    try:
        for step in (1, 2, 3):
            run = host.run([sys.executable, str(program)], {"PATH": os.defpath}, limits,
                           seat_dir / "out.txt", seat_dir / "err.txt", persistent_step=step)
            assert run.exit_code == 0 and (seat_dir / "decision.txt").read_text().isdigit()
            players = [int(p) for p in Path(f"/proc/{host.proc.pid}/task/{host.proc.pid}/children")
                       .read_text().split()]
            assert len(players) == 1
            state = Path(f"/proc/{players[0]}/stat").read_text().rsplit(")", 1)[1].split()[0]
            assert state == "T", f"after step {step} the player is {state}, not stopped"
    finally:
        host.close()
