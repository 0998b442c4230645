"""The viewer's web application (Flask) and the local server that runs it.

Routes: ``/`` the page (``static/index.html``), ``/static/...`` its scripts and styles,
``/api/index`` the source's tables, ``/api/replay?key=KEY`` one replay (404 for an unknown key,
422 with ``{"error": ...}`` for a path that cannot be replayed or has more than
``bench.view.replay.MAX_MOVES`` moves; networks evaluate under a deadline, ``REPLAY_EVAL_S``), ``/figures/NAME`` a figure of the
run (only the files the source lists). JSON is strict: NaN and infinities are ``null``.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import socket
import sys
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from flask import Flask, Response, abort, request, send_from_directory

from bench.commands.common import json_line
from bench.view.replay import ReplayError
from core.errors import InputError
from core.limits import evaluation_deadline

STATIC = Path(__file__).resolve().parent / "static"
#: seconds the networks of one replay may evaluate (loading included); a network still running
#: then is stopped and listed as unavailable
REPLAY_EVAL_S = 20.0
DEFAULT_HOST = "127.0.0.1"


class Source(Protocol):
    """What a page shows (:mod:`bench.view.sources`)."""

    def index(self) -> dict[str, Any]: ...

    def replay(self, key: str) -> dict[str, Any]: ...


def _json(obj: Any, status: int = 200) -> Response:
    return Response(json_line(obj), status=status, mimetype="application/json")


def create_app(source: Source, figures_dir: Path | None = None) -> Flask:
    """The Flask application serving ``source``; figures are read from ``figures_dir``."""
    app = Flask("bench.view", static_folder=str(STATIC), static_url_path="/static")
    figures_dir = figures_dir.resolve() if figures_dir is not None else None
    app.config["SEND_FILE_MAX_AGE_DEFAULT"] = 0  # a reloaded page gets the current scripts

    @app.get("/")
    def page() -> Response:
        return send_from_directory(STATIC, "index.html")

    @app.get("/api/index")
    def index() -> Response:
        return _json(source.index())

    @app.get("/api/replay")
    def replay() -> Response:
        key = request.args.get("key", "")
        try:
            with evaluation_deadline(REPLAY_EVAL_S):  # a network that never returns is stopped
                return _json(source.replay(key))
        except KeyError:
            return _json({"error": f"no row {key!r} in this view"}, 404)
        except ReplayError as exc:
            return _json({"error": f"{key}: {exc}"}, 422)

    app.config["VIEW_HOSTS"] = set(LOCAL_NAMES)

    @app.before_request
    def check_host() -> None:
        # only the names this server is reached by on this machine (or the --host it binds):
        # a page of another site that resolves its own name to this address gets nothing
        if host_name(request.host) not in app.config["VIEW_HOSTS"]:
            abort(403)

    @app.get("/figures/<name>")
    def figure(name: str) -> Response:
        if figures_dir is None or name not in source.index().get("figures", []):
            abort(404)
        path = figures_dir / name
        try:  # only a regular file inside the folder: no symlink leads out of it
            real = path.resolve(strict=True)
        except (OSError, RuntimeError):
            abort(404)
        if real.parent != figures_dir or not real.is_file():
            abort(404)
        return send_from_directory(figures_dir, real.name)

    return app


#: Host names the viewer always answers (with any port)
LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")


def host_name(host: str) -> str:
    """The name of a ``Host`` header without its port and brackets, lower case."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    if host.count(":") == 1:
        return host.split(":", 1)[0]
    return host


def bound_names(host: str) -> set[str]:
    """The Host names a server bound to ``host`` answers besides :data:`LOCAL_NAMES`: ``host``
    itself, and where it is every interface (``0.0.0.0``, ``::``) this machine's names and
    addresses."""
    names = {host_name(host)}
    try:
        unspecified = ipaddress.ip_address(host_name(host)).is_unspecified
    except ValueError:
        unspecified = False
    if unspecified:
        for name in {socket.gethostname(), socket.getfqdn()}:
            names.add(name.lower())
            try:
                names.update(str(info[4][0]).split("%")[0] for info in socket.getaddrinfo(name, None))
            except (socket.gaierror, UnicodeError):
                pass
    return names


def has_display() -> bool:
    """Whether a system browser can open a window here."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address) only listens on this machine."""
    try:
        infos = socket.getaddrinfo(host, None)
    except (socket.gaierror, UnicodeError):
        return False
    addrs = {info[4][0] for info in infos}
    try:
        return bool(addrs) and all(ipaddress.ip_address(str(a).split("%")[0]).is_loopback
                                   for a in addrs)
    except ValueError:
        return False


def url_of(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def _listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port`` (the family werkzeug picks for ``host``); a bad
    host or a port that cannot be had is a one-line ``InputError``."""
    from werkzeug.serving import select_address_family

    family = select_address_family(host, port)
    try:
        infos = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM, 0, socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise InputError(f"--host: cannot listen on {host!r}: {reason}") from None
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(infos[0][4])
        sock.listen(128)
    except (OSError, OverflowError) as exc:
        sock.close()
        reason = getattr(exc, "strerror", None) or str(exc)
        raise InputError(f"--port: cannot listen on {host}:{port}: {reason}") from None
    return sock


class ViewServer:
    """A threaded local HTTP server for one application (``port`` 0: a free port)."""

    def __init__(self, app: Flask, host: str = DEFAULT_HOST, port: int = 0) -> None:
        from werkzeug.serving import make_server

        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
        sock = _listen(host, port)  # our own socket: werkzeug exits the process on a bind error
        try:
            self.server = make_server(host, port, app, threaded=True, fd=sock.fileno())
        finally:
            sock.close()  # the server holds its own descriptor of it
        self.host = host
        app.config.setdefault("VIEW_HOSTS", set(LOCAL_NAMES)).update(bound_names(host))
        self.port = int(self.server.port)
        self.url = url_of(host, self.port)
        self._thread: threading.Thread | None = None

    def start(self) -> ViewServer:
        """Serve in a background thread (tests, screenshots)."""
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def serve(self) -> None:
        """Serve in this thread until interrupted."""
        self.server.serve_forever()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)


def serve(app: Flask, host: str, port: int, open_browser: bool,
          echo: Callable[[str], Any]) -> None:
    """Run the viewer until Ctrl-C: print its address, warn when it listens beyond this machine,
    open the system browser when asked and a display is there."""
    server = ViewServer(app, host, port)
    if not is_loopback(host):
        echo(f"warning: --host {host}: the viewer listens on a network interface; anyone who "
             f"can reach this machine on port {server.port} can browse it (no authentication)")
    echo(f"viewer at {server.url}  (Ctrl-C to stop)")
    if open_browser:
        if has_display():
            threading.Timer(0.5, webbrowser.open, (server.url,)).start()
        else:
            echo("no display to open a browser on: open the address above")
    try:
        server.serve()
    except KeyboardInterrupt:
        echo("stopped")
    finally:
        server.server.server_close()
