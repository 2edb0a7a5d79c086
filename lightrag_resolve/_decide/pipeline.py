"""One turn, one way: route, look up its names, settle or ask the model once, read the answer, record.

``resolve_turn`` is what ``Resolver.resolve`` calls; ``ResolvingLightRAG``'s entry points take its two halves apart
(``route_turn``, then ``run_path`` with the graph's names and each role's LLM), because a reference in ``naive`` mode is
checked beside a speculative search. The pipeline calls its ``Policy``'s override points; nothing here calls back up.
The span, the log line and the ``on_resolution`` hook see every decision the same way (``_observe.report.reporting``).
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from .._config import LLMFunc
from .._model.call import ModelReply, response_format
from .._model.prompts import keyword_schema
from .._observe.report import reporting
from .._observe.tracing import resolver_span
from .._resolution import Resolution, ResolutionPath
from .._turn.conversation import Turn
from .._turn.graph_names import with_graph_names
from .outcome import reference_outcome, short_reply_outcome
from .policy import Policy
from .route import Route, RouteFacts, checks_first, route, settle

__all__ = ["resolve_turn", "route_turn", "run_path"]


def _facts(policy: Policy, turn: Turn, **switches: Any) -> RouteFacts:
    return RouteFacts(
        turn=turn,
        tuning=policy.tuning,
        max_query_words=policy.config.max_query_words,
        max_resolve_words=policy.config.max_resolve_words,
        gate=policy.should_resolve,
        pointer=policy.points_back,
        prompter=policy.is_prompted,
        **switches,
    )


def route_turn(
    policy: Policy, turn: Turn, *, enabled: bool, caller_keywords: bool, searched_by_lightrag: bool = False
) -> Route:
    """The turn's path, or its untouched outcome when no resolver runs (``route.ROUTE_RULES``, contract §3)."""
    facts = _facts(
        policy, turn, enabled=enabled, caller_keywords=caller_keywords, searched_by_lightrag=searched_by_lightrag
    )
    return route(facts, policy.route_rules)


async def run_path(
    policy: Policy,
    path: ResolutionPath,
    turn: Turn,
    *,
    llm: LLMFunc,
    model: str | None,
    graph: Any = None,
    graph_timeout: float = 0.0,
) -> Resolution:
    """The turn on ``path``, its window's names looked up in ``graph``: settled, or the model asked once; timed."""
    if path not in ("keywords", "text", "reference"):
        raise ValueError(f"no resolver runs on path {path!r}")
    turn = await with_graph_names(turn, graph, timeout=graph_timeout)
    started = time.perf_counter()
    with resolver_span(policy.config, path, turn, llm, model) as span:
        facts = _facts(policy, turn, enabled=True, caller_keywords=False)
        resolution = settle(facts, path, model, policy.shortcuts)
        if resolution is None:
            reply = await _ask(policy, path, turn, llm)
            if path == "reference":
                resolution = reference_outcome(policy, turn, reply, model)
            else:
                resolution = short_reply_outcome(policy, turn, path, reply, model)
        resolution = replace(resolution, elapsed_ms=(time.perf_counter() - started) * 1000)
        span.record(resolution)
    return resolution


async def _ask(policy: Policy, path: ResolutionPath, turn: Turn, llm: LLMFunc) -> ModelReply:
    """The path's one model call: its prompt, the schema a backend may decode under, its timeout."""
    config = policy.config
    if path == "keywords":
        schema = keyword_schema(max_ll=config.max_ll_keywords, max_hl=config.max_hl_keywords)
        fmt = response_format(llm, schema, wanted=config.structured_output, json_fallback=True)
        return await policy.ask("keywords", policy.keyword_prompt, turn, llm, config.timeout, **fmt)
    if path == "text":
        return await policy.ask("text", policy.text_prompt, turn, llm, config.timeout)
    fmt = response_format(llm, policy.reference_schema(turn), wanted=config.structured_output, json_fallback=True)
    # Graph modes: it replaces LightRAG's extraction (no timeout), so a short reply's budget; naive: the check's own.
    timeout = config.timeout if checks_first(turn) else config.reference_timeout
    return await policy.ask("reference", policy.reference_prompt, turn, llm, timeout, **fmt)


async def resolve_turn(
    policy: Policy,
    turn: Turn,
    *,
    enabled: bool,
    caller_keywords: bool,
    llm: LLMFunc,
    model: str | None,
    reference_llm: LLMFunc | None = None,
    reference_model: str | None = None,
    searched_by_lightrag: bool = False,
) -> Resolution:
    """Route and run ``turn``, the check on ``reference_llm`` or ``llm``; reported once; model failures never raise."""
    with reporting(policy.config, turn) as (_, reported):
        path = route_turn(
            policy, turn, enabled=enabled, caller_keywords=caller_keywords, searched_by_lightrag=searched_by_lightrag
        )
        if isinstance(path, Resolution):
            resolution = path
        else:
            reference = path == "reference"
            resolution = await run_path(
                policy,
                path,
                turn,
                llm=(reference_llm or llm) if reference else llm,
                model=(reference_model or model) if reference else model,
            )
        reported(resolution)
    return resolution
