"""`--player human:web` and `referee watch` without a browser: the page's own
requests made with urllib against a real `referee play` (or `watch`), so the
seat's server, its token and the decision path are tested where no chromium
is installed too."""
from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conftest import read_log, referee

pytest.importorskip("starlette", reason="the web extra (Starlette, uvicorn) is not installed")


def start(tmp_path: Path) -> tuple[subprocess.Popen, str]:
    exe = Path(sys.executable).with_name("referee")
    proc = subprocess.Popen([str(exe), "play", "cantris", "--player", "human:web", "--player",
                             "builtin:random", "--no-browser", "--seed", "3", "--out", str(tmp_path / "m"),
                             "--set", "hard_time=120", "--no-color"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    found: list[str] = []

    def read() -> None:
        for line in proc.stdout:
            if "plays in the browser at: " in line:
                found.append(line.rsplit(" ", 1)[-1].strip())
                break
        for _ in proc.stdout:  # keep the pipe drained
            pass

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + 60
    while not found and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert found, proc.stderr.read()
    return proc, found[0]


def call(url: str, path: str, body: dict | None = None) -> dict:
    base, token = url.split("?token=")
    request = urllib.request.Request(base.rstrip("/") + path, headers={"X-Token": token},
                                     data=None if body is None else json.dumps(body).encode(),
                                     method="GET" if body is None else "POST")
    if body is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.load(answer)


def my_turn(url: str) -> dict:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        data = call(url, "/api/live?since=0")
        if data["turn"] is not None:
            return data
        time.sleep(0.05)
    raise AssertionError("the seat's turn never came")


def test_the_decision_path_of_a_browser_seat(tmp_path):
    proc, url = start(tmp_path)
    try:
        assert url.startswith("http://127.0.0.1:")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(url.split("?")[0] + "api/live", timeout=30)
        assert refused.value.code == 403
        page = urllib.request.urlopen(url, timeout=30).read().decode()
        assert 'id="decision"' in page and 'id="submit"' in page and 'id="resign"' in page

        data = my_turn(url)
        turn = data["turn"]
        assert data["you"] == 1 and turn["step"] == 1 and "0 0" in turn["legal"]
        assert call(url, "/api/decide", {"decision": "9 9"})["ok"]  # taken, then refused
        deadline = time.monotonic() + 60
        while call(url, "/api/live?since=0")["refused"] < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        again = call(url, "/api/live?since=0")
        assert "not accepted" in again["refusal"] and again["turn"]["step"] == 1
        assert call(url, "/api/decide", {"decision": turn["legal"][0]})["ok"]
        while my_turn(url)["turn"]["step"] == 1:
            time.sleep(0.05)
        assert call(url, "/api/decide", {"resign": True})["ok"]
        deadline = time.monotonic() + 60
        while call(url, "/api/live?since=0&ack=result")["result"] is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.wait(timeout=60) == 0, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
    log = read_log(tmp_path / "m")
    assert log[0]["player"] == 1 and log[0]["verdict"] == "OK" and log[0]["applied"] == turn["legal"][0]
    assert log[-1]["verdict"] == "RESIGNED" and log[-1]["player"] == 1
    assert referee("replay", tmp_path / "m", "--verify").returncode == 0


def test_a_decision_that_is_not_text_is_told_so_not_called_empty():
    """{"decision": 5} was refused as "empty decision"; {"resign": "no"} (any
    truthy value) resigned.  The seat's handler, called as the server calls it."""
    import asyncio

    from referee.core.registry import get_game
    from referee.web.seat import WebHumanAgent

    agent = WebHumanAgent(get_game("cantris"), open_browser=False)
    agent.turn = {"step": 1}  # the seat's move

    class Request:
        def __init__(self, body: object) -> None:
            self.body = body

        async def json(self) -> object:
            return self.body

    def answer(body: object) -> tuple[int, dict]:
        response = asyncio.run(agent._decide(Request(body)))
        return response.status_code, json.loads(response.body)

    def refused(error: str) -> tuple[int, dict]:
        return 400, {"ok": False, "error": error}

    assert answer({"decision": 5}) == refused("the decision must be text (a JSON string), not a number")
    assert answer({"decision": ["0 0"]}) == refused("the decision must be text (a JSON string), not a list")
    assert answer({"decision": None}) == refused("the decision must be text (a JSON string), not null")
    assert answer({"decision": " \n"}) == refused("empty decision")
    assert answer({"resign": "no"}) == refused('expected JSON {"decision": TEXT} or {"resign": true}')
    assert answer({"decision": "0 0", "step": "1"}) == refused("step must be the number of the step answered")
    assert agent.answer is None
    assert answer({"decision": "0 0", "step": 1}) == (200, {"ok": True})
    assert agent.answer == ("decision", "0 0")


def test_one_answer_per_turn_and_none_kept_for_the_next(tmp_path, monkeypatch):
    """Two answers sent in the same turn (two tabs, or a request the browser
    sent again) were both taken: the first was played, the second queued and
    played by itself at the seat's next turn (wall_ms 0.3, the page never
    offering it), a resignation too.  Now the first is taken, every other is
    refused with 409 and why, and the next turn waits for an answer of its
    own.  Through the seat's own server (each request its own connection);
    judging the first answer waits for the test, so the others arrive while
    the turn is still open, whatever the machine's speed."""
    from concurrent.futures import Future

    from referee.core.match import MatchSpec, prepare
    from referee.web import seat as seat_mod

    prepared = prepare(MatchSpec(game="cantris", players=["builtin:greedy", "builtin:random"], seed=1,
                                 out=tmp_path / "m"))
    state = prepared.game.initial_state(prepared.setup)
    legal = [str(d) for d in state.legal_decisions()]
    workdir = tmp_path / "m" / "players" / "p1"
    (workdir / "step_logs").mkdir(parents=True)
    gate, check = threading.Event(), seat_mod.check_decision

    def judged_after_the_gate(*args):
        assert gate.wait(60)
        return check(*args)

    monkeypatch.setattr(seat_mod, "check_decision", judged_after_the_gate)
    agent = seat_mod.WebHumanAgent(prepared.game, open_browser=False)
    agent.match_started(tmp_path / "m", 1)
    url = agent.server.url

    def send(body: dict) -> tuple[int, str]:
        try:
            return 200, str(call(url, "/api/decide", body))
        except urllib.error.HTTPError as exc:
            return exc.code, json.load(exc)["error"]

    def asked(step: int) -> None:  # the seat's server says the turn is open
        deadline = time.monotonic() + 60
        while (call(url, "/api/live?since=0")["turn"] or {}).get("step") != step:
            assert time.monotonic() < deadline, "the turn never came"
            time.sleep(0.02)

    def decide(step: int) -> Future:  # the match's side, on a thread of its own
        reply: Future = Future()
        threading.Thread(target=lambda: reply.set_result(agent.decide(workdir, step, 1, state)),
                         daemon=True).start()
        return reply

    try:
        first = decide(1)
        asked(1)
        assert send({"decision": legal[0], "step": 1})[0] == 200
        once = "an answer to step 1 was already sent; only the first counts"
        assert send({"decision": legal[1], "step": 1}) == (409, once)
        assert send({"decision": legal[1]}) == (409, once)
        assert send({"resign": True, "step": 1}) == (409, once)
        gate.set()
        assert first.result(60).text == legal[0] + "\n"
        assert send({"decision": legal[1], "step": 1}) == (409, "it is not your move")

        second = decide(3)
        asked(3)
        assert send({"decision": legal[1], "step": 1}) == (409, "step 1 is not the step being asked (step 3)")
        assert send({"decision": legal[2], "step": 3})[0] == 200
        reply = second.result(60)
        assert reply.text == legal[2] + "\n" and not reply.resigned
    finally:
        gate.set()
        agent.server.close()


def served(**limits):
    """A LocalServer with one page, "ok" to a token holder."""
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    from referee.web.server import LocalServer

    async def page(request):
        return PlainTextResponse("ok")

    return LocalServer([Route("/", page)], **limits)


def idle(port: int, sends: bytes = b"") -> socket.socket:
    """A connection that sends ``sends`` (nothing, half a request line) and no more."""
    conn = socket.create_connection(("127.0.0.1", port), timeout=30)
    conn.sendall(sends)
    return conn


def closed_by_the_server(conn: socket.socket) -> bool:
    """Whether the server closes ``conn`` (what it sent before is read; waits
    up to the connection's 30 s timeout)."""
    try:
        while conn.recv(1000):
            pass
        return True
    except ConnectionResetError:  # closed at once, unread
        return True
    except TimeoutError:
        return False


def test_idle_connections_cannot_shut_the_page_out():
    """Anyone on the machine can connect without the token (it is read with
    the request): 20,000 idle connections, or each half a request line, took
    every file descriptor of the referee and the human's page stopped
    loading.  A server keeps at most max_connections; a new one closes the
    oldest still waiting for its request, so a token holder's request is
    answered while idle ones come and go.  (Connections are accepted in the
    order they were made: which ones are closed is known.)"""
    server = served(max_connections=4, request_timeout=60)
    conns = []
    try:
        conns = [idle(server.port) for _ in range(4)]
        conns += [idle(server.port, b"GET /?tok") for _ in range(4)]
        assert all(closed_by_the_server(c) for c in conns[:4])
        with urllib.request.urlopen(server.url, timeout=30) as answer:
            assert answer.read() == b"ok"
    finally:
        for c in conns:
            c.close()
        server.close()


def test_a_request_never_finished_is_closed():
    """Half a request line, kept open, held its connection (and descriptor)
    for as long as the sender liked: uvicorn times out only a connection
    idle after an answer.  The server closes one that has not sent a whole
    request request_timeout seconds after it opened, or after its last
    answer."""
    server = served(request_timeout=3)  # (long enough that a loaded machine sends 'after' in time)
    try:
        half, after = idle(server.port, b"GET /?token=x HTT"), idle(server.port)
        after.sendall(f"GET /?token={server.token} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        assert after.recv(1000).startswith(b"HTTP/1.1 200")  # answered, and kept alive
        after.sendall(b"GET / HT")  # then half of a second request
        assert closed_by_the_server(half) and closed_by_the_server(after)
    finally:
        server.close()


OUT_OF_FDS = """
import os, resource, sys
sys.path.insert(0, sys.argv[1])
from test_web_api import served

server = served()
spare = 4  # descriptors left: a few connections are accepted, then none
resource.setrlimit(resource.RLIMIT_NOFILE, (len(os.listdir("/proc/self/fd")) + spare,
                                            resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
print(server.url, flush=True)
sys.stdin.read()  # until the test is done
server.close()
"""


def said_within(stream, seconds: float = 60) -> str:
    """The next line of a child's output, or a failure if none comes in
    ``seconds`` (a readline alone would hang the suite)."""
    import select

    assert select.select([stream], [], [], seconds)[0], f"nothing said within {seconds} s"
    return stream.readline()


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts its descriptors in /proc/self/fd")
def test_running_out_of_descriptors_is_said_once_and_the_page_comes_back():
    """When the referee had no descriptor left, asyncio logged a traceback
    for every accept that failed: it tries up to the backlog (uvicorn's 2048)
    in one go and again every second, 164 MB of log in a minute.  It is one
    line, once, and the page is answered again once connections close.  A
    server process whose descriptor limit leaves room for 4 connections."""
    proc = subprocess.Popen([sys.executable, "-c", OUT_OF_FDS, str(Path(__file__).parent)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    conns = []
    try:
        url = said_within(proc.stdout).strip()
        port = int(url.split(":")[2].split("/")[0])
        conns = [idle(port) for _ in range(8)]  # more than it can accept
        said = said_within(proc.stderr)  # written when an accept failed
        assert said == ("referee: warning: the browser page's server cannot accept a connection "
                        "(Too many open files); it accepts again once some close (said once)\n"), said
        for c in conns:
            c.close()
        with urllib.request.urlopen(url, timeout=30) as answer:
            assert answer.read() == b"ok"
        _, rest = proc.communicate("", timeout=60)
    finally:
        for c in conns:
            c.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0 and rest == "", rest[-3000:]


def test_watch_of_a_folder_without_a_match_says_so_until_one_starts(tmp_path):
    """A folder with no match in it was an empty table with no word: a
    student who named the wrong folder could not tell it from a match that
    had not started.  `watch` is meant to wait for one (it may start before
    `play --out DIR`), so it says so, at the terminal and on the page."""
    folder = tmp_path / "live"
    folder.mkdir()
    exe = Path(sys.executable).with_name("referee")
    proc = subprocess.Popen([str(exe), "watch", str(folder), "--no-browser"], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []

    def read() -> None:
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))

    threading.Thread(target=read, daemon=True).start()
    try:
        deadline = time.monotonic() + 60
        while len(lines) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert len(lines) == 2 and " at: http://" in lines[0], (lines, proc.poll())
        url = lines[0].rsplit(" ", 1)[-1]
        assert lines[1].startswith(f"no match, series or tournament found in {folder} yet"), lines
        empty = call(url, "/api/games")
        assert empty["games"] == [] and empty["note"] == lines[1]
        played = referee("play", "cantris", "--player", "builtin:greedy", "--player", "builtin:random",
                         "--seed", 1, "--out", folder / "g1", "--quiet")
        assert played.returncode == 0, played.stderr
        one = call(url, "/api/games")
        assert [g["folder"] for g in one["games"]] == ["g1"] and one["note"] is None
    finally:
        proc.kill()
        proc.wait(timeout=30)


@pytest.mark.parametrize("where, message", [("nowhere", "no such folder"),
                                            ("notes.txt", "is a file, not a folder")])
def test_watch_of_a_folder_that_is_not_there_is_one_line(tmp_path, where, message):
    (tmp_path / "notes.txt").write_text("mine\n")
    proc = referee("watch", where, "--no-browser", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout + proc.stderr
    assert proc.stderr.splitlines() == [f"referee: error: {where}: {message}"], proc.stderr
