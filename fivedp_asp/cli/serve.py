"""``fivedp serve``: the game server (``fivedp_asp/serve``), run with uvicorn."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from ..errors import InputError


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
    db = Database(args.db)
    client = None
    if args.client is not None:
        from ..serve.oliveriver import check_client

        client = check_client(args.client)
    app = make_app(db, oliveriver=args.oliveriver, client=client, cors=tuple(args.cors))
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"fivedp serve: games in the {db.describe()}; open http://{shown}:{args.port}/ "
          "(Ctrl-C stops it)", flush=True)
    if client is not None:
        print(f"fivedp serve: their client at http://{shown}:{args.port}/client/", flush=True)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning", access_log=False)
    except OSError as exc:
        raise InputError(f"cannot serve on {args.host}:{args.port}: {exc.strerror or exc}") from None
    return 0


def add_serve_parser(sub) -> None:
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
    p.set_defaults(func=cmd_serve)
