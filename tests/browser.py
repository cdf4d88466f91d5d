"""Driving Debian's headless Chromium from tests: the DOM after the page's
scripts ran, and screenshots.  Tests that need it skip with the reason when
no browser is installed (`.ci/run` installs one when it runs as root)."""
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


def _run(*args: str) -> str:
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        proc = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def dump_dom(page: Path, fragment: str = "", width: int = 1280) -> "Dom":
    """The page's DOM as serialised after its scripts ran."""
    url = page.resolve().as_uri() + fragment
    return Dom(_run("--virtual-time-budget=3000", f"--window-size={width},900", "--dump-dom", url))


def screenshot(page: Path, png: Path, fragment: str = "", size: str = "1280,900") -> Path:
    _run(f"--screenshot={png}", f"--window-size={size}", "--virtual-time-budget=3000",
         page.resolve().as_uri() + fragment)
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
        for _, element_id in self._open:
            if element_id:
                self.texts[element_id] += data

    def find(self, **attrs: str) -> list[dict[str, str]]:
        """Elements whose attributes include all of ``attrs`` (data_kind -> data-kind)."""
        want = {k.replace("_", "-"): str(v) for k, v in attrs.items()}
        return [a for _, a in self.elements if all(a.get(k) == v for k, v in want.items())]

    def text(self, element_id: str) -> str:
        return " ".join(self.texts.get(element_id, "").split())

    def body(self) -> dict[str, str]:
        return next(a for tag, a in self.elements if tag == "body")
