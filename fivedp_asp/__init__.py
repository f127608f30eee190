"""fivedp-asp: an adjudicator for 5D Diplomacy with Multiversal Time Travel, its rules written in
Answer Set Programming (clingo).

The public API is re-exported here from :mod:`fivedp_asp.api` (docs/api.md)::

    import fivedp_asp as fd

    game = fd.new_game()                                   # Spring 1901 on board a0
    game = fd.submit_orders(game, ["A Mun - Boh", "F Kie - Den"], power="Germany").game
    game, report = fd.adjudicate(game)
    for outcome in fd.results(report):
        print(outcome.power, outcome.text, outcome.result, outcome.reason)
    print(fd.board(game, "a1").units)
    print([p.order for p in fd.legal_orders(game, power="Germany")])

Errors: every one derives from ``FivedpError``; ``UsageError`` (a ``TypeError``) for an argument
of the wrong type, ``InputError`` (a ``ValueError``) for a value that cannot be used, ``FileError``
(an ``InputError`` and an ``OSError``) for a file that cannot be read or written,
``AdjudicationError`` for an engine defect (docs/api.md, "Errors").

Everything else in the package is internal and may change between versions.
"""

from __future__ import annotations

from .api import *  # noqa: F403 (the API is the package's public face)
from .api import __all__ as _api_all

__all__ = [*_api_all, "__version__"]


def __getattr__(name: str) -> str:
    """``__version__``, looked up when first asked for: reading the installed packages' metadata is slow,
    and every command would pay for it at start (docs/benchmarks.md)."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        value = version("fivedp-asp")
    except PackageNotFoundError:  # a source checkout that was never installed
        value = "0+unknown"
    globals()["__version__"] = value
    return value
