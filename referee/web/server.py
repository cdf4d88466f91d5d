"""The small local web server that ``--player human:web`` and ``referee
watch`` share: a Starlette app run by uvicorn in a background thread, bound
to 127.0.0.1 on a port the system picks, every request checked against a
secret token that is only in the URL the referee prints (403 without it).

Starlette and uvicorn are the optional ``web`` extra (``pip install
'referee[web]'``); :func:`require` turns their absence into a one-line
InputError that says so."""
from __future__ import annotations

import secrets
import socket
import sys
import threading
import time
import webbrowser
from pathlib import Path
from typing import Any, Callable

from referee.core.errors import InputError

from . import assets

HOST = "127.0.0.1"  # never another interface: a page that plays moves must not be reachable from others


def require() -> None:
    """InputError unless the web extra is installed."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise InputError("the browser pages need the web extra: pip install 'referee[web]' "
                         "(Starlette and uvicorn)") from None


class LocalServer:
    """``routes`` served on 127.0.0.1:<free port> until :meth:`close`.

    Every route needs the token, as ``?token=`` or the ``X-Token`` header
    (the pages send it with each request)."""

    def __init__(self, routes: list[Any]) -> None:
        require()
        import uvicorn
        from starlette.applications import Starlette
        from starlette.middleware import Middleware

        self.token = secrets.token_urlsafe(18)
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind((HOST, 0))
        self.socket.listen(128)  # a browser that connects before uvicorn is up waits in the backlog
        self.port = self.socket.getsockname()[1]
        app = Starlette(routes=routes, middleware=[Middleware(_TokenCheck, token=self.token)])
        config = uvicorn.Config(app, log_level="error", access_log=False, lifespan="off")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]},
                                       name="referee-web", daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started and self.thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/?token={self.token}"

    def announce(self, what: str, open_browser: bool, out=None, after: str = "") -> None:
        """Print the URL (always: a browser that did not open can be pointed
        at it by hand), and open it unless ``open_browser`` is False."""
        out = out or sys.stdout
        print(f"{what}: {self.url}{after}", file=out, flush=True)
        if open_browser:
            try:
                opened = webbrowser.open(self.url, new=2)
            except Exception:  # no browser here: the printed URL is the way
                opened = False
            if not opened:
                print("no browser could be opened from here: open the address above in one",
                      file=out, flush=True)

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=5)
        self.socket.close()


class _TokenCheck:
    """ASGI middleware: 403 for any HTTP request without the token."""

    def __init__(self, app: Callable, token: str) -> None:
        self.app = app
        self.token = token.encode()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and not self._allowed(scope):
            body = b"403 forbidden: open the URL the referee printed (it holds the token)\n"
            await send({"type": "http.response.start", "status": 403,
                        "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                    (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)

    def _allowed(self, scope) -> bool:
        from urllib.parse import parse_qs

        for name, value in scope.get("headers") or []:
            if name == b"x-token" and secrets.compare_digest(value, self.token):
                return True
        given = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [""])[0]
        return secrets.compare_digest(given.encode(), self.token)


def page(template: str, **context: Any) -> str:
    """A live page: the template with the shared CSS and scripts inlined."""
    return assets.environment().get_template(template).render(
        css=assets.static("replay.css") + assets.static("live.css"),
        common_js=assets.static("svg.js"), **context)


def within(root: Path, relative: str) -> Path | None:
    """``root / relative`` if it stays inside ``root`` (no ``..`` or links
    out of it), else None."""
    try:
        path = (root / relative).resolve()
        path.relative_to(root.resolve())
    except (ValueError, OSError):
        return None
    return path
