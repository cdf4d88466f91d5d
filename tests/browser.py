"""Driving Debian's headless Chromium from tests: the DOM after the page's
scripts ran, and screenshots.  Tests that need it skip with the reason when
no browser is installed (`.ci/run` installs one when it runs as root).

One browser per test module, started at the first page and driven through
Playwright (the test extra; nothing is downloaded: it runs Debian's
chromium): a page costs a new tab, not a browser start-up (~1 s of CPU each,
35 of them in test_html_replay alone).  The tabs of one window size share a
browser context (the pages keep nothing in storage; a context of its own was
~0.2 s more of Chromium's CPU per page), and ``dump_dom(..., png=)`` takes
the screenshot of the tab it read (a second load was ~0.7 s).  Without
Playwright each page is a ``chromium --dump-dom`` / ``--screenshot`` run of
its own, as before."""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_browser = pytest.mark.skipif(
    CHROMIUM is None, reason="no headless browser: install Debian's chromium (apt-get install chromium)")

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars")

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # the CLI fallback below
    sync_playwright = None

_shared: list = []  # [playwright, browser] once started
_contexts: dict = {}  # (width, height) -> the browser context of tabs of that size


def shared_browser():
    """This test process's Playwright browser (started on first use, closed
    by close_shared_browser after the test module: Playwright's sync API
    allows one instance at a time, and test_web_play and test_web_watch
    start their own), or None without Playwright."""
    if sync_playwright is None:
        return None
    if not _shared:
        driver = sync_playwright().start()
        _shared.extend([driver, driver.chromium.launch(executable_path=CHROMIUM, args=list(FLAGS[1:]))])
    return _shared[1]


def close_shared_browser() -> None:
    """Stop the shared browser and its driver (tests/conftest.py, at session end)."""
    if _shared:
        driver, browser = _shared
        _shared.clear()
        _contexts.clear()
        browser.close()
        driver.stop()


def _open(url: str, width: int, height: int):
    """A fresh tab of that window size with ``url`` loaded and its scripts
    run (close it when done)."""
    if (width, height) not in _contexts:
        _contexts[width, height] = shared_browser().new_context(viewport={"width": width, "height": height})
    page = _contexts[width, height].new_page()
    page.goto(url, wait_until="load")
    return page


def _run(*args: str) -> str:
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        proc = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def dump_dom(page: Path, fragment: str = "", width: int = 1280, png: Path | None = None) -> "Dom":
    """The page's DOM as serialised after its scripts ran; with ``png``, also
    a screenshot of it (as ``screenshot`` takes, at this width by 900)."""
    url = page.resolve().as_uri() + fragment
    if shared_browser() is None:
        dom = Dom(_run("--virtual-time-budget=3000", f"--window-size={width},900", "--dump-dom", url))
        if png is not None:
            screenshot(page, png, fragment, f"{width},900")
        return dom
    tab = _open(url, width, 900)
    try:
        dom = Dom(tab.content())
        if png is not None:
            tab.screenshot(path=str(png))
            _not_blank(png)
        return dom
    finally:
        tab.close()


def screenshot(page: Path, png: Path, fragment: str = "", size: str = "1280,900") -> Path:
    url = page.resolve().as_uri() + fragment
    if shared_browser() is None:
        _run(f"--screenshot={png}", f"--window-size={size}", "--virtual-time-budget=3000", url)
    else:
        width, height = map(int, size.split(","))
        tab = _open(url, width, height)
        try:
            tab.screenshot(path=str(png))
        finally:
            tab.close()
    return _not_blank(png)


def _not_blank(png: Path) -> Path:
    assert png.stat().st_size > 10_000  # a blank page compresses to far less
    return png


class Dom(HTMLParser):
    """Every element's tag and attributes, and the text inside each element
    that has an id; enough to check what a page drew without a DOM library."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
            "track", "wbr"}

    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=True)
        self.source = source
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.texts: dict[str, str] = {}
        self.chunks: list[tuple[str, tuple[str, ...]]] = []  # every text, with the tags it is inside
        self._open: list[tuple[str, str | None]] = []
        self.feed(source)

    def handle_starttag(self, tag, attrs):
        attributes = {k: v or "" for k, v in attrs}
        self.elements.append((tag, attributes))
        if tag not in self.VOID:
            self._open.append((tag, attributes.get("id")))
            if attributes.get("id"):
                self.texts.setdefault(attributes["id"], "")

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag):
        while self._open:
            name, _ = self._open.pop()
            if name == tag:
                break

    def handle_data(self, data):
        self.chunks.append((data, tuple(tag for tag, _ in self._open)))
        for _, element_id in self._open:
            if element_id:
                self.texts[element_id] += data

    def find(self, **attrs: str) -> list[dict[str, str]]:
        """Elements whose attributes include all of ``attrs`` (data_kind -> data-kind)."""
        want = {k.replace("_", "-"): str(v) for k, v in attrs.items()}
        return [a for _, a in self.elements if all(a.get(k) == v for k, v in want.items())]

    def outside(self, tag: str, text: str) -> list[str]:
        """The texts holding ``text`` that are not inside a ``tag`` element
        (scripts' and styles' own text left out: it is not shown)."""
        return [data for data, tags in self.chunks
                if text in data and tag not in tags and not {"script", "style"} & set(tags)]

    def text(self, element_id: str) -> str:
        return " ".join(self.texts.get(element_id, "").split())

    def body(self) -> dict[str, str]:
        return next(a for tag, a in self.elements if tag == "body")
