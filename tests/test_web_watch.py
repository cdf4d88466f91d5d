"""`referee watch DIR`: the page is open before the match starts and follows
it to its result; a tournament-like folder lists its games as they finish.
Real `referee` processes, a real headless browser (see test_web_play)."""
from __future__ import annotations

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
WAIT = 120_000


@pytest.fixture
def watch(tmp_path):
    procs: list[subprocess.Popen] = []

    def start(folder: Path) -> str:
        exe = Path(sys.executable).with_name("referee")
        proc = subprocess.Popen([str(exe), "watch", str(folder), "--no-browser"], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs.append(proc)
        found: list[str] = []

        def read() -> None:
            for line in proc.stdout:
                if " at: http://" in line:
                    found.append(line.rsplit(" ", 1)[-1].strip())
                    return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(60)
        assert found, proc.stderr.read() if proc.poll() is not None else "no URL printed"
        return found[0]

    yield start
    for proc in procs:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def page():
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        tab = chromium.new_page(viewport={"width": 1250, "height": 950})
        errors: list[str] = []
        tab.on("pageerror", lambda e: errors.append(str(e)))
        yield tab, errors
        chromium.close()


def test_a_match_page_opened_before_the_match_follows_it_to_the_result(tmp_path, watch, page):
    tab, errors = page
    folder = tmp_path / "live"
    folder.mkdir()
    url = watch(folder)
    tab.goto(url)
    tab.wait_for_selector("body[data-games='0']", timeout=WAIT)  # nothing to show yet
    assert f"No match, series or tournament found in {folder} yet" in tab.text_content("#report")
    play = referee("play", "tsuro", "--player", "builtin:random", "--player", "builtin:random",
                   "--player", "builtin:random", "--seed", 2, "--out", folder, "--quiet")
    assert play.returncode == 0, play.stderr
    tab.wait_for_selector("body[data-finished]", timeout=WAIT)
    steps = len(read_log(folder))
    assert tab.locator("#moves-body tr").count() == steps + 1
    assert "wins" in tab.text_content("#result") or "tie" in tab.text_content("#result") \
        or "draw" in tab.text_content("#result")
    result = yaml.safe_load((folder / "result.yaml").read_text())
    named = 1 if result["winner"] is not None else len(result["ranking"][0]) if len(result["ranking"][0]) > 1 else 0
    assert tab.locator("#result-headline bdi").count() == named  # every name isolated (U+202E in a name)
    assert tab.locator("#details .who bdi").count() == 1
    # a spectator sees every hand, as the replay does
    assert tab.locator("[data-kind=hidden-hand]").count() == 0
    tab.screenshot(path=str(tmp_path / "watch-match.png"))
    assert not errors, errors


def test_a_tournament_folder_lists_its_games_as_they_finish(tmp_path, watch, page):
    tab, errors = page
    root = tmp_path / "tour"
    (root / "games").mkdir(parents=True)
    url = watch(root)
    tab.goto(url)
    tab.wait_for_selector("body[data-games='0']", timeout=WAIT)
    for seed in (1, 2):
        proc = referee("play", "cantris", "--player", "builtin:greedy", "--player", "builtin:random",
                       "--seed", seed, "--out", root / "games" / f"g{seed}", "--quiet")
        assert proc.returncode == 0, proc.stderr
    tab.wait_for_selector("body[data-finished-games='2']", timeout=WAIT)
    assert "wins" in tab.text_content("tr[data-folder='games/g1']")
    assert tab.locator("tr[data-folder='games/g1'] bdi").count() == 3  # both players, the winner: isolated
    tab.screenshot(path=str(tmp_path / "watch-index.png"))
    tab.click("tr[data-folder='games/g2'] a")
    tab.wait_for_selector("body[data-finished]", timeout=WAIT)
    assert tab.locator("#moves-body tr").count() == len(read_log(root / "games" / "g2")) + 1
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(url.split("?")[0] + "api/games", timeout=30)
    assert refused.value.code == 403
    token = url.split("token=")[1]
    with pytest.raises(urllib.error.HTTPError) as outside:  # nothing outside DIR is served
        urllib.request.urlopen(url.split("?")[0] + f"file/../../etc/passwd?token={token}", timeout=30)
    assert outside.value.code == 404
    assert not errors, errors
