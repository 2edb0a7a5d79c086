"""``lightrag-resolve serve-gunicorn``: ``lightrag-gunicorn`` with follow-up resolution.

LightRAG's gunicorn launcher (``--workers N``, preloaded app, shared storage
across workers); every worker serves the resolving instance. Arguments are
``lightrag-gunicorn``'s; the resolver reads ``RESOLVER_*`` variables.
"""

from __future__ import annotations

import argparse

NAME = "serve-gunicorn"
HELP = "run LightRAG's API server under gunicorn (lightrag-gunicorn) with follow-up resolution"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    # No argument is ours: with no prefix character, "--workers" and "--help" reach LightRAG as given.
    parser.prefix_chars = "\0"
    parser.add_argument("server_args", nargs=argparse.REMAINDER, help="lightrag-gunicorn arguments")


def run(args: argparse.Namespace) -> int:
    from ..server._launch import launch

    return launch("gunicorn", args.server_args, "lightrag-resolve serve-gunicorn")
