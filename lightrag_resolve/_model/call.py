"""The one place where a resolver awaits a model."""

from __future__ import annotations

import inspect
import logging
import time
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Literal

from .._bounded_call import call_bounded
from .._observe.tracing import record_model_result
from .prompts import Prompt

__all__ = [
    "ModelReply",
    "ModelRole",
    "ask_model",
    "asking_role",
    "output_limits",
    "response_format",
    "supports_json_schema",
]

logger = logging.getLogger("lightrag_resolve")

ModelRole = Literal["keywords", "text", "reference"]
"""Which resolver question a model call asks: a short reply's keywords or text, or the reference check (whose answer
also restates a follow-up it could not name)."""

# Hook: the LLM function, called with LightRAG's signature, has no argument that says which role asks (asking_role).
_asking: ContextVar[ModelRole | None] = ContextVar("lightrag_resolve_model_role", default=None)


def asking_role() -> ModelRole | None:
    """The resolver role whose model call is running in this context; ``None`` for a call LightRAG makes itself.

    An LLM function can read it to meter or route this library's calls without reading the prompt (the tests do).
    """
    return _asking.get()


@dataclass(frozen=True, kw_only=True)
class ModelReply:
    """The model's text, or why there is none (``llm_error``, ``timeout``, ``unparsable``)."""

    text: str | None
    failure: str | None
    elapsed_ms: float


async def ask_model(
    llm: Callable[..., Awaitable[Any]],
    prompt: Prompt,
    *,
    role: ModelRole,
    timeout: float,
    **kwargs: Any,
) -> ModelReply:
    """Call ``llm`` once for ``role`` (``asking_role`` in the call's task), no retry, bounded by ``timeout`` seconds.

    Every model failure becomes a ``ModelReply`` with a reason, so a resolver never raises into the caller's query: an
    exception, a result that is not text or whose ``str()`` raises, a ``CancelledError`` the model raised itself. Only
    the caller's cancellation propagates (``call_bounded`` tells them apart). At the timeout the call's task is
    cancelled and awaited, so nothing outlives the query; a late answer is dropped and ``timeout`` recorded.
    """
    started = time.perf_counter()

    async def invoke() -> Any:
        _asking.set(role)  # this task's own context copy: nothing outside the call sees it
        result = llm(prompt.user, system_prompt=prompt.system, **kwargs)
        return await result if inspect.isawaitable(result) else result

    failure: str | None = None
    text: str | None = None
    outcome = await call_bounded(invoke, timeout=timeout)
    if outcome.failure == "timeout":
        failure = "timeout"
    elif outcome.failure == "cancelled_itself":
        logger.debug("resolver model call cancelled itself")
        failure = "llm_error"
    elif outcome.failure == "raised":
        logger.debug("resolver model call failed: %r", outcome.error)
        failure = "llm_error"
    else:
        result = outcome.result
        record_model_result(result)
        try:
            text = str(result) if isinstance(result, str) else None
        except Exception as exc:  # a str subclass whose __str__ raises
            logger.debug("reading the resolver model's result raised: %r", exc)
        if text is None:
            failure = "unparsable"
    elapsed = (time.perf_counter() - started) * 1000
    return ModelReply(text=text, failure=failure, elapsed_ms=elapsed)


def supports_json_schema(llm: Any) -> bool:
    """Whether an LLM function says it decodes under a JSON schema (``supports_json_schema = True``)."""
    return _marked(llm, "supports_json_schema")


def output_limits(llm: Any, prompt: Prompt, request: dict[str, Any]) -> dict[str, Any]:
    """The prompt's ``max_tokens``, ``stop`` and ``compact_json`` for an LLM function marked ``supports_output_limits``.

    Hosted APIs differ on them (some reasoning models refuse ``stop``), so an unmarked function gets none. ``stop``
    goes only with a free-text ``request`` (a JSON answer may break its lines), ``compact_json`` only with a schema.
    """
    if not _marked(llm, "supports_output_limits"):
        return {}
    limits: dict[str, Any] = {}
    answer_format = request.get("response_format")
    if prompt.max_tokens is not None:
        limits["max_tokens"] = prompt.max_tokens
    if prompt.stop and answer_format is None:
        limits["stop"] = list(prompt.stop)
    if prompt.compact_json and answer_format is not None and answer_format.get("type") == "json_schema":
        limits["compact_json"] = True
    return limits


def _marked(llm: Any, marker: str) -> bool:
    """Whether ``marker`` is ``True`` on the function or a ``partial``/``__wrapped__`` layer (LightRAG wraps them)."""
    seen = 0
    while llm is not None and seen < 8:
        if getattr(llm, marker, False) is True:
            return True
        llm = getattr(llm, "func", None) or getattr(llm, "__wrapped__", None)
        seen += 1
    return False


def response_format(llm: Any, schema: dict[str, Any], *, wanted: str, json_fallback: bool) -> dict[str, Any]:
    """The ``response_format`` to send: the schema where the backend decodes under one, else JSON mode or nothing.

    ``wanted`` is ``ResolverConfig.structured_output``: ``off`` sends nothing, ``json_schema`` always the schema,
    ``auto`` the schema to LLM functions marked ``supports_json_schema`` and JSON mode (``json_fallback``) to the rest.
    """
    if wanted == "off":
        return {}
    if wanted == "json_schema" or (wanted == "auto" and supports_json_schema(llm)):
        return {"response_format": {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}}
    return {"response_format": {"type": "json_object"}} if json_fallback else {}
