"""``fivedp options``: the arguments of the option listing; the listing itself is report/optiondocs.py's."""

from __future__ import annotations

import argparse
import json
import sys

from ..model.settings import Settings
from ..errors import InputError
from ..report.jsonout import document
from ..report.optiondocs import as_data, markdown, presets_data, text


def cmd_options(args: argparse.Namespace) -> int:
    """``fivedp options``: the registry (with the rules of your own given) as text, JSON or Markdown."""
    from ..engine.userrules import parse_specs

    if args.json and args.markdown:
        raise InputError("give --json or --markdown, not both")
    if args.markdown and args.rule:
        raise InputError("--markdown prints docs/options.md, the built-in options only: leave out --rule")
    mine = Settings().with_rules(parse_specs(args.rule), in_effect=False)
    if args.json:
        json.dump(document("options", options=as_data(mine), presets=presets_data()), sys.stdout, indent=2)
        print()
    elif args.markdown:
        sys.stdout.write(markdown())
    else:
        print(text(settings=mine))
    return 0


def add_options_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("options", help="list every rule option with its values, default, meanings and source")
    p.add_argument("--json", action="store_true", help="print the registry as JSON")
    p.add_argument("--markdown", action="store_true", help="print docs/options.md")
    p.add_argument("--rule", action="append", default=[], metavar="NAME=FILE",
                   help="also list a rule of your own: NAME=FILE.lp (a new option) or NAME=VALUE:FILE.lp (a new "
                        "value; repeatable; docs/rules-of-your-own.md)")
    p.set_defaults(func=cmd_options)


PRESET_HELP = ("a preset, a named bundle of option values (seeds, oliveriver; fivedp options lists them); the options "
               "written in a scenario or given with --option override it")


def add_preset_argument(p: argparse.ArgumentParser, what: str = PRESET_HELP) -> None:
    """``--preset NAME`` on a command that plays or reads rules (checked when the command runs)."""
    p.add_argument("--preset", metavar="NAME", default=None, help=what)
