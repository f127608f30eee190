"""The ``fivedp`` command: argument parsing and printing. Nothing in the package imports it."""

from .commands import main

__all__ = ["main"]
