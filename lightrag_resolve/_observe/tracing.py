"""OpenTelemetry spans for each turn (contract §9), through the API only.

Span tree of one query::

    lightrag_resolve.resolve                  one per query (parent)
    ├── lightrag_resolve.keywords | .text | .reference   the resolver that ran, if any
    ├── lightrag_resolve.retrieval  branch=speculative   reference path only (contract §7)
    └── lightrag_resolve.retrieval  branch=resolved      only when the check resolved

Without an SDK every call is a no-op. The tracer is looked up at call time (``ResolverConfig.tracer_provider``, else the
global provider), so a provider may be installed any time. Every call into OpenTelemetry is guarded: one that raises is
logged at DEBUG and never reaches the query. Content (the visitor's text, model output, keywords, enriched query) goes
on spans only when ``ResolverConfig.captures_content`` is true; the reference check's accepted entity always does
(contract §9), as a name the knowledge base's own conversation established, filtered on to see why a follow-up resolved.

The provider is the LLM function's ``provider_name``, as the model its ``model_name``; token usage comes from a
``usage`` object or mapping on its ``str`` result (text to LightRAG): ``input_tokens``/``output_tokens`` or OpenAI's
``prompt_tokens``/``completion_tokens``, as ``openai_compat.CompletionText`` does.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import partial
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Status, StatusCode

from .._config import ResolverConfig
from .._resolution import Resolution
from .._turn.conversation import Turn
from .._version import __version__

__all__ = [
    "QuerySpan",
    "query_span",
    "record_model_result",
    "resolver_span",
    "retrieval_span",
    "start_retrieval_span",
]

logger = logging.getLogger("lightrag_resolve")

TRACER_NAME = "lightrag_resolve"
SPAN_RESOLVE = "lightrag_resolve.resolve"
SPAN_RETRIEVAL = "lightrag_resolve.retrieval"

_NS = "lightrag_resolve."
_STANDARD = ("gen_ai.", "error.")


@dataclass(frozen=True)
class _Scope:
    """The tracer and content policy of the query being traced."""

    tracer: trace.Tracer | None
    capture: bool


@dataclass(frozen=True)
class _Traced:
    """What the code a traced query runs reads: its scope, and the resolver span its model call reports to."""

    scope: _Scope | None = None
    model_span: TracedSpan | None = None


_UNTRACED = _Traced()

# Hook: OpenTelemetry: the query's tracer and resolver span, read below Resolver.run/ask (no trace argument there).
_traced: ContextVar[_Traced] = ContextVar("lightrag_resolve_tracing", default=_UNTRACED)


def _tracer(config: ResolverConfig) -> trace.Tracer | None:
    try:
        return trace.get_tracer(TRACER_NAME, __version__, tracer_provider=config.tracer_provider)
    except Exception:
        logger.debug("no tracer: get_tracer raised", exc_info=True)
        return None


def _scope_for(config: ResolverConfig) -> _Scope:
    try:
        capture = bool(config.captures_content)
    except Exception:  # a broken property must not open the door to content
        capture = False
    return _Scope(tracer=_tracer(config), capture=capture)


class TracedSpan:
    """An OpenTelemetry span whose methods swallow errors; ``None`` (not applicable) is not set; ``end`` runs once."""

    def __init__(self, span: trace.Span | None, *, capture: bool) -> None:
        self._span = span
        self._ended = False
        self.capture = capture

    def set(self, key: str, value: Any) -> None:
        """Set one attribute; keys outside ``gen_ai.*`` and ``error.*`` go under ``lightrag_resolve.``."""
        if self._span is None or self._ended or value is None:
            return
        try:
            self._span.set_attribute(key if key.startswith(_STANDARD) else _NS + key, value)
        except Exception:
            logger.debug("set_attribute raised", exc_info=True)

    def content(self, key: str, value: Any) -> None:
        """Set an attribute that holds conversation or model text, only under content capture."""
        if self.capture:
            self.set(key, value)

    def fail(self, exc: BaseException) -> None:
        """Mark the span as failed, naming the exception type but not its message (it may quote text)."""
        if self._span is None:
            return
        try:
            self._span.set_status(Status(StatusCode.ERROR, type(exc).__name__))
            self._span.set_attribute("error.type", type(exc).__qualname__)
        except Exception:
            logger.debug("set_status raised", exc_info=True)

    @contextmanager
    def activate(self) -> Iterator[TracedSpan]:
        """Make this span the current one (parent of spans started inside), without ending it."""
        token = None
        if self._span is not None:
            try:
                token = otel_context.attach(trace.set_span_in_context(self._span))
            except Exception:
                logger.debug("attaching the span context raised", exc_info=True)
        try:
            yield self
        finally:
            if token is not None:
                try:
                    otel_context.detach(token)
                except Exception:
                    logger.debug("detaching the span context raised", exc_info=True)

    def end(self) -> None:
        """End the span (once)."""
        if self._span is None or self._ended:
            return
        self._ended = True
        try:
            self._span.end()
        except Exception:
            logger.debug("ending a span raised", exc_info=True)


def _start(scope: _Scope | None, name: str) -> TracedSpan:
    if scope is None or scope.tracer is None:
        return TracedSpan(None, capture=False)
    try:
        span = scope.tracer.start_span(name, record_exception=False, set_status_on_exception=False)
    except Exception:
        logger.debug("start_span(%r) raised", name, exc_info=True)
        span = None
    return TracedSpan(span, capture=scope.capture)


@contextmanager
def _scoped(scope: _Scope, name: str, *, model: bool = False) -> Iterator[TracedSpan]:
    """Start ``name`` and make it current with ``scope``; with ``model``, the span the model call reports to."""
    span = _start(scope, name)
    model_span = span if model else _traced.get().model_span
    token = _traced.set(_Traced(scope=scope, model_span=model_span))
    try:
        with span.activate():
            yield span
    except BaseException as exc:
        span.fail(exc)
        raise
    finally:
        _traced.reset(token)
        span.end()


def _record_outcome(span: TracedSpan, resolution: Resolution) -> None:
    span.set("mode", resolution.mode)
    span.set("path", resolution.path)
    span.set("changed", resolution.changed)
    span.set("fallback_reason", resolution.fallback_reason)
    span.set("carry_reason", resolution.carry_reason)
    span.set("keywords.ll_count", len(resolution.ll_keywords) or None)
    span.set("keywords.hl_count", len(resolution.hl_keywords) or None)
    span.content("query", resolution.original_query)
    if resolution.query != resolution.original_query:
        span.content("resolved_query", resolution.query)
    if resolution.has_keywords:
        span.content("ll_keywords", list(resolution.ll_keywords))
        span.content("hl_keywords", list(resolution.hl_keywords))


class QuerySpan:
    """The parent span of one query; ``record`` writes the turn's outcome on it."""

    def __init__(self, span: TracedSpan) -> None:
        self._span = span

    def record(self, resolution: Resolution) -> None:
        """Mode, path, ``changed``, fallback reason and decision (content only under capture)."""
        try:
            _record_outcome(self._span, resolution)
            self._span.set("decision", resolution.decision)
        except Exception:
            logger.debug("recording the resolution on the span raised", exc_info=True)


@contextmanager
def query_span(config: ResolverConfig, turn: Turn) -> Iterator[QuerySpan]:
    """Open ``lightrag_resolve.resolve``, current for everything the query does inside."""
    with _scoped(_scope_for(config), SPAN_RESOLVE) as span:
        span.set("mode", turn.mode)
        yield QuerySpan(span)


class ResolverSpan:
    """The span of one resolver; ``record`` writes its model and outcome."""

    def __init__(self, span: TracedSpan) -> None:
        self._span = span

    def record(self, resolution: Resolution) -> None:
        """The outcome, and for a reference check its decision, rejected reason, entity and restated/question flags."""
        span = self._span
        try:
            _record_outcome(span, resolution)
            span.set("gen_ai.request.model", resolution.model)
            span.content("model_output", resolution.raw_output)
            if resolution.path == "reference":
                span.set("decision", resolution.decision)
                span.set("rejected_reason", resolution.rejected_reason)
                span.set("entity", resolution.entity)
                span.set("restated", resolution.restatement is not None)
                span.set("standalone_question", resolution.standalone_question is not None)
        except Exception:
            logger.debug("recording the resolution on the span raised", exc_info=True)


@contextmanager
def resolver_span(config: ResolverConfig, path: str, turn: Turn, llm: Any, model: str | None) -> Iterator[ResolverSpan]:
    """Open ``lightrag_resolve.<path>`` for one resolver run; its model call reports usage to it.

    Inside a query it uses the query's tracer; a resolver run on its own gets one from ``config``.
    """
    scope = _traced.get().scope or _scope_for(config)
    with _scoped(scope, _NS + path, model=True) as span:
        span.set("gen_ai.operation.name", "chat")
        span.set("gen_ai.request.model", model)
        provider = _provider_name(llm)
        if provider:
            span.set("gen_ai.provider.name", provider)
            span.set("gen_ai.system", provider)
        span.set("mode", turn.mode)
        span.set("path", path)
        yield ResolverSpan(span)


def _provider_name(llm: Any) -> str | None:
    """The LLM function's ``provider_name``, looking through ``functools.partial`` wrappers."""
    while isinstance(llm, partial) and getattr(llm, "provider_name", None) is None:
        llm = llm.func
    provider = getattr(llm, "provider_name", None)
    return provider if isinstance(provider, str) and provider else None


def _count(usage: Any, *names: str) -> int | None:
    for name in names:
        value = usage.get(name) if isinstance(usage, Mapping) else getattr(usage, name, None)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    return None


def record_model_result(result: Any) -> None:
    """Record the token usage a model result reports on the running resolver span, if any."""
    span = _traced.get().model_span
    if span is None:
        return
    try:
        usage = getattr(result, "usage", None)
        if usage is None:
            return
        span.set("gen_ai.usage.input_tokens", _count(usage, "input_tokens", "prompt_tokens"))
        span.set("gen_ai.usage.output_tokens", _count(usage, "output_tokens", "completion_tokens"))
    except Exception:
        logger.debug("reading token usage raised", exc_info=True)


def start_retrieval_span(branch: str) -> TracedSpan:
    """Start (not activate) a ``lightrag_resolve.retrieval`` span under the current query; a no-op outside a traced one.

    The caller activates it where the retrieval runs, sets ``outcome`` (``used``, ``cancelled``, ``failed``), ends it.
    """
    span = _start(_traced.get().scope, SPAN_RETRIEVAL)
    span.set("branch", branch)
    return span


@contextmanager
def retrieval_span(branch: str) -> Iterator[TracedSpan]:
    """A retrieval span that is current inside the block: ``used``, or ``cancelled``/``failed``."""
    span = start_retrieval_span(branch)
    try:
        with span.activate():
            yield span
    except BaseException as exc:
        span.set("outcome", "failed" if isinstance(exc, Exception) else "cancelled")
        if isinstance(exc, Exception):
            span.fail(exc)
        raise
    else:
        span.set("outcome", "used")
    finally:
        span.end()
