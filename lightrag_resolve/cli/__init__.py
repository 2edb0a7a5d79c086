"""The ``lightrag-resolve`` command: a thin client of the public API.

Each sub-command is a module of this package that defines ``NAME``, ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int``; modules are discovered, so
a command is added by adding its module. A command whose optional
dependencies are missing is still listed and says which extra to install.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence
from types import ModuleType

__all__ = ["main"]


def _commands() -> dict[str, ModuleType]:
    found: dict[str, ModuleType] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        found[module.NAME] = module
    return found


def build_parser() -> argparse.ArgumentParser:
    """The parser with every discovered sub-command."""
    parser = argparse.ArgumentParser(
        prog="lightrag-resolve", description="Conversation-aware retrieval for LightRAG."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in _commands().items():
        command = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the process exit code (2 for bad input)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "_run"):
        parser.print_help(sys.stderr)
        return 2
    return int(args._run(args) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
