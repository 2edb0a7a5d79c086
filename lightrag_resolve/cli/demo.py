"""``lightrag-resolve demo``: watch the resolver work on a real knowledge graph, offline.

Plays scripted conversations from the bundled bilingual sample (every turn
class: first turns, short replies, references, questions that name their
subject, ambiguous references) and prints, turn by turn, what the resolver
understood (the name, the meaning or the keywords) and the documents retrieval
found without and with it, with no other library's log lines unless ``--verbose``. ``--interactive`` lets you type turns.
Runs on the local model of the ``local`` extra, or on any OpenAI-compatible
server with ``--llm-base-url``/``--model`` (or ``OPENAI_BASE_URL``/``OPENAI_MODEL``).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .._errors import LightRAGResolveError
from ..local import LOCAL_RESOLVER_TIMEOUT

NAME = "demo"
HELP = "play scripted conversations over the bundled sample graph, with and without resolution"

# One or two of every turn class, in both languages: a few minutes on the local model on 2 CPUs.
DEFAULT_ITEMS = (
    "fr-first-01",
    "fr-short-02",
    "en-short-04",
    "en-short-03",
    "en-ref-01",
    "fr-ref-01",
    "fr-keep-01",
    "en-amb-01",
)


def _item_count() -> str:
    """How many scripted conversations the bundled sample has, for the help text."""
    try:
        from lightrag_resolve.sample import load_items

        return str(len(load_items()))
    except (ImportError, OSError, ValueError):
        return "all of them"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--all", action="store_true", help=f"play every scripted conversation ({_item_count()}; slow on a CPU)"
    )
    parser.add_argument("--items", help="comma-separated item ids to play instead of the default selection")
    parser.add_argument("--interactive", action="store_true", help="type your own turns after the scripted ones")
    parser.add_argument("--no-script", action="store_true", help="skip the scripted turns (with --interactive)")
    parser.add_argument("--llm-base-url", default=os.environ.get("OPENAI_BASE_URL"), help="an OpenAI-compatible server")
    parser.add_argument("--model", default=os.environ.get("OPENAI_MODEL"), help="the model on that server")
    parser.add_argument("--top", type=int, default=3, help="retrieved documents shown per turn (default 3)")
    parser.add_argument(
        "--timeout",
        type=float,
        help="seconds for each resolver call and the reference check (default: the library's 10 s and 2 s "
        f"on a server, {LOCAL_TIMEOUT:.0f} s on the local model, which needs several seconds per call on a CPU)",
    )
    parser.add_argument(
        "--cache-dir", type=Path, help="where the embedded sample is kept (default ~/.cache/lightrag-resolve)"
    )
    parser.add_argument("--verbose", action="store_true", help="show LightRAG's own log lines")


LOCAL_TIMEOUT = LOCAL_RESOLVER_TIMEOUT


class DemoInputError(LightRAGResolveError, ValueError):
    """An option of the demo command that cannot be honoured."""


def _select(items: list[dict[str, Any]], args: argparse.Namespace) -> list[dict[str, Any]]:
    if args.no_script:
        return []
    if args.all:
        return items
    wanted = [i.strip() for i in args.items.split(",")] if args.items else list(DEFAULT_ITEMS)
    by_id = {item["id"]: item for item in items}
    missing = [i for i in wanted if i not in by_id]
    if missing:
        raise DemoInputError(f"unknown item id(s): {', '.join(missing)} (see lightrag_resolve/sample/items.jsonl)")
    return [by_id[i] for i in wanted]


def _models(args: argparse.Namespace) -> Any:
    from lightrag_resolve.local import load_local_models
    from lightrag_resolve.openai_compat import openai_llm

    if args.llm_base_url or args.model:
        if not args.model:
            raise DemoInputError("--llm-base-url needs --model (or OPENAI_MODEL)")
        try:
            llm = openai_llm(args.model, base_url=args.llm_base_url)
        except ValueError as exc:  # no key for OpenAI's own API
            raise DemoInputError(str(exc)) from exc
        return load_local_models(llm=llm, llm_name=args.model)
    return load_local_models()


async def _interactive(rag: Any, top: int) -> None:
    from lightrag_resolve.demo import play_turn, render_turn

    history: list[dict[str, str]] = []
    print("\nType a visitor message. /assistant TEXT adds an assistant message, /reset clears, /quit ends.")
    loop = asyncio.get_running_loop()
    turn = 0
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line or line.strip() == "/quit":
            return
        text = line.strip()
        if not text:
            continue
        if text == "/reset":
            history.clear()
            print("(history cleared)")
            continue
        if text.startswith("/assistant "):
            history.append({"role": "assistant", "content": text[len("/assistant ") :]})
            continue
        turn += 1
        item = {"id": f"you-{turn}", "turn_class": "typed", "history": list(history), "query": text}
        report = await play_turn(rag, item)
        print(render_turn(report, index=turn, total=turn, top=top))
        if report.resolved.error:
            continue  # LightRAG refused the retrieval (render_turn shows why): there is nothing to answer from
        print("  (writing the answer…)")
        # The turn's own resolution, retrieved the same way (a resolved "B1" included): no second resolver call.
        answered = await rag.aanswer(text, report.param, resolution=report.resolution)
        answer = answered.result.get("llm_response", {}).get("content", "")
        print(f"  assistant: {answer}\n")
        history += [{"role": "user", "content": text}, {"role": "assistant", "content": str(answer)}]


async def _run(args: argparse.Namespace) -> int:
    from lightrag_resolve import ResolverConfig
    from lightrag_resolve.demo import open_sample_index, play_turn, render_summary, render_turn
    from lightrag_resolve.sample import COMPANY_NAME, load_items

    items = _select(load_items(), args)
    models = _models(args)
    local = not (args.llm_base_url or args.model)
    timeout = args.timeout if args.timeout is not None else (LOCAL_TIMEOUT if local else None)
    timeouts = {} if timeout is None else {"timeout": timeout, "reference_timeout": timeout}
    config = ResolverConfig(company_name=COMPANY_NAME, **timeouts)
    print(
        f"Model: {models.llm_name} · embedding: {models.embedding.model_name} · sample company: {COMPANY_NAME} · "
        f"resolver timeouts {config.timeout:.0f} s / reference {config.reference_timeout:.0f} s"
    )
    rag = await open_sample_index(
        llm=models.llm,
        llm_name=models.llm_name,
        embedding=models.embedding,
        tokenizer=models.tokenizer,
        root=args.cache_dir,
        resolver=config,
    )
    try:
        reports = []
        for index, item in enumerate(items, start=1):
            report = await play_turn(rag, item)
            reports.append(report)
            print(render_turn(report, index=index, total=len(items), top=args.top), flush=True)
        if reports:
            print("\n" + render_summary(reports, top=args.top))
        if args.interactive:
            await _interactive(rag, args.top)
    finally:
        await rag.finalize_storages()
    return 0


QUIET_LOGGERS = {"lightrag": logging.ERROR, "nano-vectordb": logging.ERROR, "lightrag_resolve": logging.WARNING}
"""The loggers the demo quiets unless ``--verbose``, and the level it sets.

LightRAG warns on its own stderr handler mid-demo ("low_level_keywords is
empty" when its keyword extraction finds no name in a turn such as "Yes
please"): the demo's without/with lines show that retrieval's outcome, so the
warning only breaks the printout. Errors still show.
"""


@contextmanager
def quiet_logs(verbose: bool) -> Iterator[None]:
    """``QUIET_LOGGERS`` at their levels for the demo's run, restored after (the demo owns them only meanwhile)."""
    if verbose:
        yield
        return
    loggers = {logging.getLogger(name): level for name, level in QUIET_LOGGERS.items()}
    before = {logger: logger.level for logger in loggers}
    for logger, level in loggers.items():
        logger.setLevel(max(level, logger.getEffectiveLevel()))
    try:
        yield
    finally:
        for logger, level in before.items():
            logger.setLevel(level)


def run(args: argparse.Namespace) -> int:
    from lightrag_resolve.local import LocalModelError

    try:
        with quiet_logs(args.verbose):
            return asyncio.run(_run(args))
    except (DemoInputError, LocalModelError) as exc:
        print(f"lightrag-resolve demo: {exc}", file=sys.stderr)
        return 2
