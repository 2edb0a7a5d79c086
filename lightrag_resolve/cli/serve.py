"""``lightrag-resolve serve``: ``lightrag-server`` with follow-up resolution.

Every argument is LightRAG's (``lightrag-resolve serve --help`` prints its
help); the resolver is configured by ``RESOLVER_*`` environment variables.
"""

from __future__ import annotations

import argparse

NAME = "serve"
HELP = "run LightRAG's API server (lightrag-server) with follow-up resolution; arguments are lightrag-server's"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    # No argument is ours: with no prefix character, "--port" and "--help" reach LightRAG as given.
    parser.prefix_chars = "\0"
    parser.add_argument("server_args", nargs=argparse.REMAINDER, help="lightrag-server arguments")


def run(args: argparse.Namespace) -> int:
    from ..server._launch import launch

    return launch("server", args.server_args, "lightrag-resolve serve")
