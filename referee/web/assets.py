"""Loading the templates and static files that pages inline, and putting
data into a page safely."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2

HERE = Path(__file__).resolve().parent


@lru_cache(maxsize=None)
def environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(HERE / "templates")),
                              autoescape=True, trim_blocks=True, lstrip_blocks=True,
                              undefined=jinja2.StrictUndefined)


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
