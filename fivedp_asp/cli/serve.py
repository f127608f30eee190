"""``fivedp serve``: the game server (``fivedp_asp/serve``), run with uvicorn."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from ..errors import InputError
from ..solver.driver import check_memory_limit, check_time_limit
from .options import add_preset_argument


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn
        from ..serve.app import make_app
        from ..serve.database import Database
    except ImportError as exc:
        raise InputError(f"fivedp serve needs the serve extra (pip install 'fivedp-asp[serve]'): {exc.name} "
                         "is not installed") from None
    if not 0 < args.port < 65536:
        raise InputError(f"--port {args.port}: give a port from 1 to 65535")
    if (args.client is not None or args.cors) and not args.oliveriver:
        raise InputError("--client and --cors serve the community's client: give --oliveriver too")
    if args.preset is not None:
        from ..model.options import preset

        preset(args.preset)  # an unknown name is refused before the server starts
    db = Database(args.db)
    client = None
    if args.client is not None:
        from ..serve.oliveriver import check_client

        client = check_client(args.client)
    if args.solvers < 1:
        raise InputError(f"--solvers {args.solvers}: give at least 1")
    if args.games_per_minute < 0:
        raise InputError(f"--games-per-minute {args.games_per_minute}: give a whole number, 0 for no bound")
    if not 0 < args.idle_timeout <= 3600:
        raise InputError(f"--idle-timeout {args.idle_timeout:g}: give the seconds, more than 0, at most 3600")
    # the log first: a database that cannot be reached at start is told there with its details
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    app = make_app(db, oliveriver=args.oliveriver, client=client, cors=tuple(args.cors),
                   time_limit=check_time_limit(args.time_limit), memory_limit=check_memory_limit(args.memory_limit),
                   solvers=args.solvers, games_per_minute=args.games_per_minute, preset=args.preset, settle=True)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"fivedp serve: games in the {db.describe()}; open http://{shown}:{args.port}/ "
          "(Ctrl-C stops it)", flush=True)
    if client is not None:
        print(f"fivedp serve: their client at http://{shown}:{args.port}/client/", flush=True)
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning", access_log=False,
                    http=idle_protocol(args.idle_timeout), timeout_keep_alive=max(1, int(args.idle_timeout)))
    except OSError as exc:
        raise InputError(f"cannot serve on {args.host}:{args.port}: {exc.strerror or exc}") from None
    return 0


IDLE_TIMEOUT = 15.0


def add_serve_parser(sub) -> None:
    from ..serve.store import GAMES_PER_MINUTE, SERVE_MEMORY_LIMIT, SERVE_TIME_LIMIT, SOLVERS

    p = sub.add_parser("serve", help="serve games to players' browsers and to programs (JSON over HTTP)")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to listen on (default 127.0.0.1; 0.0.0.0 for every network of this machine)")
    p.add_argument("--port", type=int, default=8000, help="the port (default 8000)")
    p.add_argument("--db", default="sqlite:///games.db", metavar="URL",
                   help="where the games live: sqlite:///FILE (default sqlite:///games.db) or postgresql://USER@HOST/DB")
    p.add_argument("--oliveriver", action="store_true",
                   help="serve the routes of the community's client (Oliveriver's 5D Diplomacy): open tables, "
                        "where whoever names a power plays it (docs/server.md)")
    p.add_argument("--client", type=Path, metavar="DIR",
                   help="with --oliveriver: serve their client, built with npx vite build --base=/client/, "
                        "from DIR at /client/")
    p.add_argument("--cors", action="append", default=[], metavar="ORIGIN",
                   help="with --oliveriver: let their client served from ORIGIN (http://localhost:5173, or *) "
                        "call those routes; repeatable")
    p.add_argument("--time-limit", type=float, default=SERVE_TIME_LIMIT, metavar="S",
                   help=f"seconds one solver program may take (default {SERVE_TIME_LIMIT:g}: a shared server; "
                        "the other commands allow 600)")
    p.add_argument("--memory-limit", type=int, default=SERVE_MEMORY_LIMIT, metavar="MIB",
                   help=f"MiB a program with rules of your own may grow by (default {SERVE_MEMORY_LIMIT}; the other "
                        "commands allow 4096)")
    p.add_argument("--solvers", type=int, default=SOLVERS, metavar="N",
                   help=f"solving done at once, one game at a time each; beyond it, work waits its turn (default {SOLVERS})")
    p.add_argument("--games-per-minute", type=int, default=GAMES_PER_MINUTE, metavar="N",
                   help=f"games one address may make in a minute (default {GAMES_PER_MINUTE}; 0: no bound)")
    p.add_argument("--idle-timeout", type=float, default=IDLE_TIMEOUT, metavar="S",
                   help=f"seconds a connection may stay idle, or take to send a request's head, before it is closed "
                        f"(default {IDLE_TIMEOUT:g})")
    add_preset_argument(p, "the preset new games play under the options they give (seeds, oliveriver; fivedp "
                           "options lists them); default: seeds, and oliveriver for games made through their "
                           "client's routes (--oliveriver)")
    p.set_defaults(func=cmd_serve)


def idle_protocol(seconds: float):
    """uvicorn's HTTP/1.1 protocol, which closes a connection that sends no whole request head within
    ``seconds`` of opening or of its last answer (uvicorn alone closes only a connection idle after
    an answer, and waits for ever for a first request)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class IdleTimeout(H11Protocol):
        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._head_timer = self.loop.call_later(seconds, self._no_head)

        def handle_events(self) -> None:
            super().handle_events()
            answering = self.cycle is not None and not self.cycle.response_complete
            if answering and getattr(self, "_head_timer", None) is not None:
                self._head_timer.cancel()  # a request head came: its answer takes what it takes
                self._head_timer = None

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if getattr(self, "_head_timer", None) is not None:
                self._head_timer.cancel()
            self._head_timer = self.loop.call_later(seconds, self._no_head)

        def connection_lost(self, exc) -> None:
            if getattr(self, "_head_timer", None) is not None:
                self._head_timer.cancel()
            super().connection_lost(exc)

        def _no_head(self) -> None:
            self._head_timer = None
            if self.transport.is_closing():
                return
            if self.cycle is not None and not self.cycle.response_complete:
                return  # a request is being answered
            try:
                self.conn.send(h11.ConnectionClosed())
            except h11.LocalProtocolError:
                pass
            self.transport.close()

    return IdleTimeout
