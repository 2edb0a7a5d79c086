"""``lightrag-resolve serve-gunicorn``: ``lightrag-gunicorn`` with follow-up resolution.

LightRAG's gunicorn launcher (``--workers N``, preloaded app, shared storage
across workers); every worker serves the resolving instance. Arguments are
``lightrag-gunicorn``'s, plus ``--offline-tokenizer``; the resolver reads
``RESOLVER_*`` variables. ``--local`` and ``--sample`` belong to ``serve``:
the in-process model is one process's, and workers would index the sample
concurrently.
"""

from __future__ import annotations

import argparse
import sys

from .serve import FlagError, own_help, split_flags

NAME = "serve-gunicorn"
HELP = "run LightRAG's API server under gunicorn (lightrag-gunicorn) with follow-up resolution"

PROG = "lightrag-resolve serve-gunicorn"
ALLOWED = ("--offline-tokenizer",)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    # No argument is parsed here: with no prefix character, "--workers" and "--help" reach LightRAG as given.
    parser.prefix_chars = "\0"
    parser.add_argument("server_args", nargs=argparse.REMAINDER, help="lightrag-gunicorn arguments")


def run(args: argparse.Namespace) -> int:
    from ..server._launch import launch

    try:
        own, rest = split_flags(args.server_args, ALLOWED)
    except FlagError as exc:
        print(
            f"{PROG}: {exc} is a flag of lightrag-resolve serve (one process); it is not available here",
            file=sys.stderr,
        )
        return 2
    try:
        return launch("gunicorn", rest, PROG, offline_tokenizer="--offline-tokenizer" in own)
    except SystemExit as exc:
        if exc.code == 0 and ("--help" in rest or "-h" in rest):
            print(own_help(ALLOWED))
        raise
