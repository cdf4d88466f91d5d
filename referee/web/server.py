"""The small local web server that ``--player human:web`` and ``referee
watch`` share: a Starlette app run by uvicorn in a background thread, bound
to 127.0.0.1 on a port the system picks, every request checked against a
secret token that is only in the URL the referee prints (403 without it).

Starlette and uvicorn are the optional ``web`` extra (``pip install
'referee[web]'``); :func:`require` turns their absence into a one-line
InputError that says so."""
from __future__ import annotations

import errno
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
MAX_CONNECTIONS = 64  # open at once: a browser keeps ~6 to a server; a process may have 1,024 descriptors
REQUEST_TIMEOUT = 10.0  # seconds a connection may take to send a whole request (from its start, or its last answer)
BACKLOG = 128  # connections the system holds before they are accepted, and accepted in one go


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
    (the pages send it with each request).

    The token is only read once a request's headers are in, so anyone on the
    machine can open connections without it.  20,000 idle ones (or each half
    a request line) took every file descriptor of the referee: the human's
    page stopped loading and asyncio logged a traceback for every failed
    accept, ~400,000 in a minute.  So at most ``max_connections`` are kept
    (a new one closes the oldest that is not being answered), one that has
    not sent a whole request ``request_timeout`` seconds after it opened (or
    after its last answer) is closed, and running out of descriptors anyway
    is said in one line, once (see :func:`_guarded_protocol`)."""

    def __init__(self, routes: list[Any], max_connections: int = MAX_CONNECTIONS,
                 request_timeout: float = REQUEST_TIMEOUT) -> None:
        require()
        import uvicorn
        from starlette.applications import Starlette
        from starlette.middleware import Middleware

        self.token = secrets.token_urlsafe(18)
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind((HOST, 0))
        self.socket.listen(BACKLOG)  # a browser that connects before uvicorn is up waits in the backlog
        self.port = self.socket.getsockname()[1]
        app = Starlette(routes=routes, middleware=[Middleware(_TokenCheck, token=self.token)])
        # backlog: uvicorn's default (2048) is also how many accepts asyncio
        # tries in one go, each failing (and logged) when descriptors run out.
        config = uvicorn.Config(app, log_level="error", access_log=False, lifespan="off", backlog=BACKLOG,
                                http=_guarded_protocol(max_connections, request_timeout))
        self.server = _uvicorn_server(config)
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


def _uvicorn_server(config):
    """uvicorn's server, its loop with the exception handler that says
    running out of file descriptors once (:func:`_quiet_accept_errors`)."""
    import asyncio

    import uvicorn

    class Server(uvicorn.Server):
        async def serve(self, sockets=None) -> None:
            asyncio.get_running_loop().set_exception_handler(_quiet_accept_errors())
            await super().serve(sockets=sockets)

    return Server(config)


OUT_OF_RESOURCES = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


def _quiet_accept_errors() -> Callable[[Any, dict], None]:
    """An asyncio exception handler: a connection that cannot be accepted
    for want of file descriptors (or memory) is said in one line, the first
    time only.  asyncio's own handler logged each with its traceback, and it
    tries up to the backlog of accepts in one go and again every second while
    the descriptors are gone: 164 MB of log in a minute under a flood of idle
    connections.  Anything else goes to asyncio's handler as before."""
    said = False

    def handle(loop, context: dict) -> None:
        nonlocal said
        exc = context.get("exception")
        if isinstance(exc, OSError) and exc.errno in OUT_OF_RESOURCES:
            if not said:
                said = True
                print(f"referee: warning: the browser page's server cannot accept a connection "
                      f"({exc.strerror or exc}); it accepts again once some close (said once)",
                      file=sys.stderr, flush=True)
            return
        loop.default_exception_handler(context)

    return handle


def _guarded_protocol(max_connections: int, request_timeout: float) -> type:
    """uvicorn's HTTP protocol (h11), holding a server to ``max_connections``
    open at once and each to a whole request within ``request_timeout``
    seconds (see :class:`LocalServer` for why).

    A connection is *waiting* from when it opens, and again from each
    answer, until a whole request's headers are in; only a waiting one times
    out.  At the cap, a new connection closes the oldest waiting one (a
    browser sends its request as soon as it connects, so a flood of idle
    connections pushes out only each other); if none is waiting, every one
    is being answered and the new one is closed instead."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    waiting: dict[Any, None] = {}  # the waiting connections, oldest first
    alive: set[Any] = set()  # connections kept (not closed by the guard)

    class GuardedH11Protocol(H11Protocol):
        timer = None
        refused = False

        def connection_made(self, transport) -> None:  # type: ignore[override]
            if len(alive) >= max_connections:
                oldest = next(iter(waiting), None)
                if oldest is None:
                    self.refused = True
                    transport.abort()
                    return
                oldest._drop()
            alive.add(self)
            super().connection_made(transport)
            self._wait()

        def connection_lost(self, exc) -> None:
            self._settle()
            alive.discard(self)
            if not self.refused:
                super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self._answering():
                self._settle()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self._answering():  # a pipelined request, already in
                self._settle()
            elif not self.transport.is_closing():
                self._wait()

        def _answering(self) -> bool:
            return self.cycle is not None and not self.cycle.response_complete

        def _wait(self) -> None:
            self._settle()
            waiting[self] = None
            self.timer = self.loop.call_later(request_timeout, self._drop)

        def _settle(self) -> None:
            waiting.pop(self, None)
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None

        def _drop(self) -> None:
            self._settle()
            alive.discard(self)
            if not self.transport.is_closing():
                self.transport.abort()

    return GuardedH11Protocol


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
