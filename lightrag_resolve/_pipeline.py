"""One turn, start to end: route, run the resolver the path needs, record and report one ``Resolution``.

Every entry point composes a turn here (``Resolver.resolve``,
``ResolvingLightRAG.aresolve`` and its retrieval entry points), so the span,
the log line and the ``on_resolution`` hook see every decision the same way.
``run_resolver`` is the one place a path's resolver is run, timed and traced.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING

from ._config import LLMFunc
from ._conversation import Turn
from ._references import check_reference
from ._report import report
from ._resolution import Resolution, ResolutionPath
from ._routing import Route
from ._short_replies import resolve_keywords, resolve_text
from ._tracing import QuerySpan, query_span, resolver_span

if TYPE_CHECKING:
    from ._resolver import Resolver

__all__ = ["Decided", "decide_path", "deciding", "resolve_turn", "run_resolver"]

_RESOLVERS = {"keywords": resolve_keywords, "text": resolve_text, "reference": check_reference}

Decided = Callable[[Resolution], None]
"""Called once a turn's resolution is known, before retrieval runs (so a failing retrieval still shows it)."""


async def run_resolver(
    resolver: Resolver, path: ResolutionPath, turn: Turn, *, llm: LLMFunc, model: str | None
) -> Resolution:
    """The resolver of ``path`` (``keywords``, ``text`` or ``reference``) on ``turn``, timed, in its own span."""
    if path not in _RESOLVERS:
        raise ValueError(f"no resolver runs on path {path!r}")
    started = time.perf_counter()
    with resolver_span(resolver.config, path, turn, llm, model) as span:
        resolution = await _RESOLVERS[path](resolver, turn, llm, model=model)
        resolution = replace(resolution, elapsed_ms=(time.perf_counter() - started) * 1000)
        span.record(resolution)
    return resolution


@contextmanager
def deciding(resolver: Resolver, turn: Turn) -> Iterator[tuple[QuerySpan, Decided]]:
    """The turn's query span, and what to call once its resolution is known: the span, the log and the hook."""
    with query_span(resolver.config, turn) as span:

        def decided(resolution: Resolution) -> None:
            span.record(resolution)
            report(resolution, resolver.config)

        yield span, decided


def decide_path(
    resolver: Resolver,
    turn: Turn,
    *,
    enabled: bool,
    caller_keywords: bool,
    refuse: Callable[[ResolutionPath], Resolution | None] = lambda path: None,
) -> Route:
    """The turn's route (``Resolver.route``); ``refuse`` may still turn a path down before any model call.

    ``ResolvingLightRAG`` refuses what LightRAG would refuse as too light to search.
    """
    path = resolver.route(turn, enabled=enabled, caller_keywords=caller_keywords)
    if isinstance(path, Resolution):
        return path
    return refuse(path) or path


async def resolve_turn(
    resolver: Resolver,
    turn: Turn,
    *,
    enabled: bool,
    caller_keywords: bool,
    run: Callable[[ResolutionPath, Turn], Awaitable[Resolution]],
    refuse: Callable[[ResolutionPath], Resolution | None] = lambda path: None,
) -> Resolution:
    """Route ``turn`` and ``run`` its path's resolver; the outcome is recorded and reported once.

    ``run`` is the caller's way to the resolver (its models, its graph lookup).
    """
    with deciding(resolver, turn) as (_, decided):
        path = decide_path(resolver, turn, enabled=enabled, caller_keywords=caller_keywords, refuse=refuse)
        resolution = path if isinstance(path, Resolution) else await run(path, turn)
        decided(resolution)
    return resolution
