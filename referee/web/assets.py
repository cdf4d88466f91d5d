"""Loading the templates and static files that pages inline, and putting
data into a page safely."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

HERE = Path(__file__).resolve().parent


@lru_cache(maxsize=None)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(HERE / "templates")),
                             autoescape=True, trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined)
    env.filters.update(bdi=isolated, with_names=with_names)
    return env


def isolated(name: Any) -> Markup:
    """A player's or entrant's name in a ``<bdi>`` element (escaped): its
    text, right-to-left or not, cannot reorder the text around it.  A name
    holding U+202E (right-to-left override) turned the rest of its table
    cell around: "wins 32:22" read "22:23 sniw"."""
    return Markup("<bdi>{}</bdi>").format(name)


def with_names(parts: list[str]) -> Markup:
    """Text with names in it, as ``[text, name, text, name, ...]`` (the names
    at odd places), each name isolated (see :func:`isolated`)."""
    return Markup("").join(isolated(part) if i % 2 else part for i, part in enumerate(parts))


@lru_cache(maxsize=None)
def static(name: str) -> str:
    """A file of static/, to inline; '</' is broken up so a script or style
    never ends early."""
    text = (HERE / "static" / name).read_text(encoding="utf-8")
    return script(text) if name.endswith(".js") else text


def script(text: str) -> str:
    """JavaScript to inline in a <script> element ('</' broken up)."""
    return text.replace("</", "<\\/")


def json_for_script(data: Any) -> str:
    """JSON for a <script type="application/json"> block: compact, and with
    '<', '>' and '&' escaped so player output like '</script>' stays text."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
