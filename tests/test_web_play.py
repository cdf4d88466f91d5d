"""`--player human:web`: whole games played through the page in a real
headless browser (Playwright driving Debian's chromium; nothing is
downloaded), with the mouse in every game and once with the keyboard box,
against builtin:random.  Each match runs as the real `referee` command; its
log must verify.  Screenshots are kept in the test's folder."""
from __future__ import annotations

import json
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml

from conftest import read_log, referee
from browser import CHROMIUM

playwright = pytest.importorskip("playwright.sync_api", reason="the test extra's playwright is not installed")
pytest.importorskip("starlette", reason="the web extra (Starlette, uvicorn) is not installed")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no headless browser: install Debian's chromium "
                                                          "(apt-get install chromium)")

BOARDS = Path(__file__).resolve().parents[1] / "boards"
TURN_WAIT = 60_000  # ms: a step of builtin:random on a loaded machine, with room to spare


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM,
                                     args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                                           "--disable-component-update", "--disable-sync", "--no-first-run"])
        yield chromium
        chromium.close()


class Seat:
    """A `referee play` with player 1 in the browser: its process, URL, page."""

    def __init__(self, browser, tmp_path: Path, game: str, *extra: str, seed: int = 1, init: str | None = None) -> None:
        self.out = tmp_path / "m"
        exe = Path(sys.executable).with_name("referee")
        self.proc = subprocess.Popen(
            [str(exe), "play", game, "--player", "human:web", "--player", "builtin:random",
             "--no-browser", "--seed", str(seed), "--out", str(self.out), "--no-color",
             "--set", "hard_time=120", *extra],  # the bot never TIMEOUTs on a busy machine
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.url = self._url()
        self.page = browser.new_page(viewport={"width": 1250, "height": 950})
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        if init:
            self.page.add_init_script(init)
        self.page.goto(self.url)
        self.shots = tmp_path

    def _url(self) -> str:
        found: list[str] = []
        lines: list[str] = []

        def read() -> None:
            for line in self.proc.stdout:
                lines.append(line)
                if "plays in the browser at: " in line:
                    found.append(line.rsplit(" ", 1)[-1].strip())
                    break

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(60)
        if not found:
            self.proc.kill()
            raise AssertionError("no URL printed: " + "".join(lines) + self.proc.stderr.read())
        # Keep draining stdout so the referee never blocks on a full pipe.
        threading.Thread(target=lambda: [None for _ in self.proc.stdout], daemon=True).start()
        return found[0]

    def next_turn(self) -> int | None:
        """Wait for the human's turn (its step) or the end (None)."""
        # One look in the page, not a wait then a second read: between two
        # reads the page may have moved on (a turn shown, then sent).
        seen = self.page.wait_for_function(
            "document.body.getAttribute('data-turn') || (document.body.hasAttribute('data-finished') && 'end')",
            timeout=TURN_WAIT).json_value()
        return None if seen == "end" else int(seen)

    def choices(self, pieces: str) -> int:
        """How many ``pieces`` the page offers, once it offers something: the
        pieces, or the buttons of a turn with few decisions (a pass)."""
        self.page.wait_for_selector(f"{pieces}, button.choice", timeout=TURN_WAIT)
        return self.page.locator(pieces).count()

    def moved(self, step: int) -> None:
        """Wait until the page has moved on from step ``step``."""
        self.page.wait_for_function(
            f"document.body.getAttribute('data-turn') !== '{step}'", timeout=TURN_WAIT)

    def finish(self, name: str) -> dict:
        self.page.wait_for_selector("body[data-finished]", timeout=TURN_WAIT)
        self.page.screenshot(path=str(self.shots / f"{name}-end.png"))
        assert self.proc.wait(timeout=120) == 0, self.proc.stderr.read()
        assert not self.errors, self.errors
        verify = referee("replay", self.out, "--verify")
        assert verify.returncode == 0, verify.stdout + verify.stderr
        return yaml.safe_load((self.out / "result.yaml").read_text())

    def close(self) -> None:
        self.page.close()
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def seat(browser, tmp_path):
    made: list[Seat] = []

    def start(game: str, *extra: str, seed: int = 1) -> Seat:
        made.append(Seat(browser, tmp_path, game, *extra, seed=seed))
        return made[-1]

    yield start
    for s in made:
        s.close()


def human_records(out: Path) -> list[dict]:
    return [r for r in read_log(out) if r["player"] == 1]


def assert_human_moves_ok(out: Path) -> None:
    mine = human_records(out)
    assert mine and all(r["verdict"] == "OK" for r in mine), mine
    assert all(r["decision"] and r["decision"].strip() == r["applied"] for r in mine)


def test_cantris_by_mouse_with_the_second_removal_on_10x5(seat, tmp_path):
    s = seat("cantris", "--board", str(BOARDS / "cantris" / "10x5-1.txt"))
    steps = []
    while (step := s.next_turn()) is not None:
        if not steps:
            s.page.screenshot(path=str(tmp_path / "cantris-turn.png"))
        s.page.click("[data-kind=pick] >> nth=0")
        steps.append(step)
        s.moved(step)
    result = s.finish("cantris")
    assert result["winner"] in (1, 2, None)
    assert_human_moves_ok(s.out)
    assert any(b == a + 1 for a, b in zip(steps, steps[1:])), steps  # two removals in a row


def test_tessella_by_mouse_piece_then_destination(seat, tmp_path):
    s = seat("tessella", "--board", str(BOARDS / "tessella" / "close-quarters.txt"), "--set", "ply_cap=24")
    shot = tmp_path / "tessella-targets.png"
    while (step := s.next_turn()) is not None:
        if not s.choices("[data-kind=movable]"):
            s.page.click("button.choice")  # a pass, when no piece can move
        else:
            s.page.click("[data-kind=movable] >> nth=0")
            targets = s.page.locator("[data-kind=target]")
            assert targets.count() >= 1  # the legal destinations are shown only once a piece is chosen
            if not shot.exists():  # the first turn's (each later one wrote over it: ~0.3 s of CPU each)
                s.page.screenshot(path=str(shot))
            targets.first.click()
        s.moved(step)
    s.finish("tessella")
    assert_human_moves_ok(s.out)


def test_blackhole_by_mouse_ship_then_where_it_stops(seat, tmp_path):
    # (to a ply cap, as tessella's: every turn is the same two clicks, and
    # the whole game was 88 steps to a threefold repetition)
    s = seat("blackhole", "--set", "ply_cap=24")
    while (step := s.next_turn()) is not None:
        if not s.choices("[data-kind=movable]"):
            s.page.click("button.choice")
        else:
            s.page.click("[data-kind=movable] >> nth=0")
            s.page.locator("[data-kind=target]").first.click()
        s.moved(step)
    s.finish("blackhole")
    assert_human_moves_ok(s.out)


def test_quoridor_by_mouse_squares_and_walls_with_a_preview(seat, tmp_path):
    s = seat("quoridor")
    turns = 0
    while (step := s.next_turn()) is not None:
        assert s.page.locator("[data-kind=own-pawn]").count() == 1
        assert s.page.get_attribute("[data-kind=own-goal]", "data-side") == "top"
        slots = s.page.locator("[data-kind=wall-slot]")
        if turns < 2 and slots.count():
            slot = slots.nth(turns * 7)
            decision = slot.get_attribute("data-decision")
            box = slot.bounding_box()
            horizontal = box["width"] > box["height"]
            at = {"x": 6, "y": box["height"] / 2} if horizontal else {"x": box["width"] / 2, "y": 6}
            slot.hover(position=at)
            assert s.page.get_attribute("[data-kind=wall-preview]", "data-decision") == decision
            s.page.screenshot(path=str(tmp_path / f"quoridor-wall-{turns}.png"))
            slot.click(position=at)
        else:  # towards row 0: the highlighted square nearest the goal
            targets = s.page.locator("[data-kind=target]")
            rows = [int(targets.nth(i).get_attribute("data-r")) for i in range(targets.count())]
            targets.nth(rows.index(min(rows))).click()
        turns += 1
        s.moved(step)
    result = s.finish("quoridor")
    assert_human_moves_ok(s.out)
    walls = [r for r in human_records(s.out) if r["applied"].startswith("W")]
    assert len(walls) == 2
    assert result["winner"] in (1, 2)


# Answers out of order, made certain: while a turn is shown, the answer to
# the page's own poll is held back (once it has come from the referee); when
# the human decides, the poll the page then sends goes out only once the
# referee shows the next turn (or the result), and the held, older answer is
# let through after it.  Every change of data-turn is logged with what the
# board offers at that moment.
OUT_OF_ORDER = """
(() => {
  const real = window.fetch.bind(window);
  let decided = false;
  window.__held = false;
  window.__turns = [];
  const turnNow = () => document.body && document.body.getAttribute("data-turn");
  document.addEventListener("DOMContentLoaded", () => {
    new MutationObserver(() => window.__turns.push(
        [turnNow(), document.querySelectorAll("[data-kind=pick]").length]))
      .observe(document.body, {attributes: true, attributeFilter: ["data-turn"]});
  });
  const until = (ok) => new Promise((done) => {
    const look = () => ok().then((yes) => yes ? done() : setTimeout(look, 20));
    look();
  });
  window.fetch = (url, opts) => {
    const u = String(url);
    if (u.includes("/api/decide")) { decided = true; return real(url, opts); }
    if (!u.includes("/api/live")) return real(url, opts);
    const shown = turnNow();
    if (decided) {  // the poll after a decision: out once the referee has moved on
      decided = false;
      return until(() => real(url, opts).then((r) => r.json()).then(
          (a) => !!a.result || (a.turn && String(a.turn.step) !== shown)))
        .then(() => real(url, opts));
    }
    if (!shown) return real(url, opts);
    return real(url, opts).then((answer) => new Promise((release) => {
      window.__held = true;
      // let through once the page shows what came after it: the next turn, or the end
      const moved = () => (turnNow() && turnNow() !== shown) || document.body.hasAttribute("data-finished");
      until(() => Promise.resolve(moved())).then(() => { window.__held = false; release(answer); });
    }));
  };
})();
"""


def test_an_older_answer_arriving_last_does_not_take_the_turn_back(browser, tmp_path):
    """The loop's poll and the one a decision starts overlap; answered out of
    order, the older answer must not undo the newer (it once took the turn
    back and redrew the board without its controls)."""
    s = Seat(browser, tmp_path, "cantris", "--board", str(BOARDS / "cantris" / "6x3-1.txt"), init=OUT_OF_ORDER)
    try:
        moves = 0
        while (step := s.next_turn()) is not None:
            if moves == 3:  # enough turns shown; the rest of the game would show nothing new
                s.page.click("#resign")
                s.page.click("#resign")
                break
            s.page.wait_for_function("window.__held", timeout=TURN_WAIT)  # an older answer is on its way
            s.page.click("[data-kind=pick] >> nth=0")
            moves += 1
            s.moved(step)
        s.finish("out-of-order")
        turns = s.page.evaluate("window.__turns")
    finally:
        s.close()
    assert moves >= 2
    shown = [t for t, _ in turns if t is not None]
    assert len(shown) >= 3, turns
    assert all(picks > 0 for t, picks in turns if t is not None), turns  # a turn always with its controls
    assert len(shown) == len(set(shown)), turns  # and never taken back, then shown again


def test_tsuro_by_mouse_tile_rotation_preview_and_place(seat, tmp_path):
    s = seat("tsuro", seed=3)
    previews = 0
    while (step := s.next_turn()) is not None:
        if s.page.locator("[data-kind=start]").count():
            s.page.click("[data-kind=start] >> nth=0")
        else:
            s.page.click("[data-kind=hand-choice] >> nth=0")
            s.page.click("#rotate")
            for _ in range(4):
                if s.page.locator("[data-kind=target]").count():
                    break
                s.page.click("#rotate")
            s.page.click("[data-kind=target] >> nth=0")
            assert s.page.locator("[data-kind=preview-tile]").count() == 1
            assert s.page.locator("[data-kind=preview-trail]").count() >= 1  # where the marker goes
            previews += 1
            if previews == 1:
                s.page.screenshot(path=str(tmp_path / "tsuro-preview.png"))
            decision = s.page.get_attribute("#place", "data-decision")
            assert decision.startswith("T ") and decision.split()[2] == "1"  # rotated once
            s.page.click("#place")
        s.moved(step)
    s.finish("tsuro")
    assert previews >= 1
    assert_human_moves_ok(s.out)


def test_cantris_by_keyboard_with_its_time_bank_an_illegal_line_refused_then_resign(seat, tmp_path):
    s = seat("cantris", "--board", str(BOARDS / "cantris" / "6x3-1.txt"), "--set", "time_bank=600")
    step = s.next_turn()
    s.page.wait_for_selector("#clock:has-text('time bank')", timeout=TURN_WAIT)
    assert "s left" in s.page.text_content("#clock")
    s.page.fill("#decision", "9 9")
    with s.page.expect_request("**/api/decide") as sent:  # it names the step it answers (one answer a turn)
        s.page.click("#submit")
    assert sent.value.post_data_json == {"decision": "9 9", "step": step}
    s.page.wait_for_selector("#refusal:not([hidden])", timeout=TURN_WAIT)
    assert "not accepted" in s.page.text_content("#refusal")
    moves = 0
    while step is not None and moves < 3:
        legal = s.page.get_attribute("[data-kind=pick] >> nth=0", "data-decision")
        s.page.fill("#decision", legal)
        s.page.press("#decision", "Enter")
        s.moved(step)
        moves += 1
        step = s.next_turn()
    if step is not None:
        s.page.click("#resign")
        with s.page.expect_request("**/api/decide") as sent:
            s.page.click("#resign")  # the second click confirms
        assert sent.value.post_data_json == {"resign": True, "step": step}
    result = s.finish("cantris-keyboard")
    log = read_log(s.out)
    assert [r["verdict"] for r in human_records(s.out)][:3] == ["OK"] * min(3, moves)
    if step is not None:
        assert log[-1]["verdict"] == "RESIGNED" and result["reason"] == "player 1 resigned"
        assert "player 1 resigned" in s.page.text_content("#result")


def test_the_page_needs_the_token_and_hides_the_others_hand(seat):
    s = seat("tsuro", seed=4)
    s.next_turn()
    base = s.url.split("?")[0]
    for url in (base, base + "?token=wrong", base + "api/live?since=0"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(url, timeout=30)
        assert refused.value.code == 403
    token = s.url.split("token=")[1]
    with urllib.request.urlopen(f"{base}api/live?since=0&token={token}", timeout=30) as answer:
        data = json.load(answer)
    assert data["you"] == 1 and data["turn"]["step"] >= 1
    for frame in data["frames"]:
        hands = frame["scene"]["hands"]
        assert all(tile is None for tile in hands[1])  # player 2's hand: its size only
        assert all(isinstance(tile, int) for tile in hands[0])
    assert s.url.startswith("http://127.0.0.1:")
