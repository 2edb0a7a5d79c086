"""contract §7: retrieve on the visitor's words while the reference check decides.

Two branches run at once: the speculative retrieval, and the check. On KEEP,
AMBIGUOUS or any failure the speculative result is used as is; on RESOLVE it
is cancelled and retrieval runs again on the enriched text. An answer written
from the unresolved context would be wasted on RESOLVE, so the speculative
branch's answer call waits behind a gate that opens only when the check kept
the message.

In graph modes LightRAG's keyword extraction for the visitor's words runs as
a task of its own: the speculative retrieval searches with its keywords, and
a RESOLVE reuses them (``_enforce.keywords``) instead of extracting again from
the enriched text. Nothing started here outlives the call that started it.
"""

from __future__ import annotations

import asyncio
import logging
from contextvars import ContextVar
from typing import Any, Awaitable, Callable, TypeVar

from ._resolution import Resolution
from ._tracing import retrieval_span, start_retrieval_span

__all__ = ["call_after", "gate_answer", "one_call_at_a_time", "search_beside_check", "settle"]

logger = logging.getLogger("lightrag_resolve")

T = TypeVar("T")
K = TypeVar("K")

_answer_gate: ContextVar[asyncio.Event | None] = ContextVar("lightrag_resolve_answer_gate", default=None)


def gate_answer(answer_llm: Callable[..., Awaitable[Any]] | None) -> Callable[..., Awaitable[Any]] | None:
    """``answer_llm``, made to wait for the check when called from a speculative branch.

    Outside a speculative branch the function is returned as it is, so every
    other query pays nothing.
    """
    gate = _answer_gate.get()
    if gate is None or answer_llm is None:
        return answer_llm

    async def answer_after_check(*args: Any, **kwargs: Any) -> Any:
        await gate.wait()
        return await answer_llm(*args, **kwargs)

    return answer_after_check


def one_call_at_a_time(llm: Any) -> Any:
    """The model object behind ``llm`` when it serves one call at a time, else ``None``.

    A model says so with ``max_concurrent_calls = 1`` (``LocalLLM`` does), found
    on the function or through ``functools.partial`` and ``__wrapped__`` layers.
    """
    for _ in range(8):
        if llm is None:
            return None
        if getattr(llm, "max_concurrent_calls", None) == 1:
            return llm
        llm = getattr(llm, "func", None) or getattr(llm, "__wrapped__", None)
    return None


def call_after(
    ready: asyncio.Event,
    llm: Callable[..., Awaitable[Any]],
    *,
    timeout: float,
    cost: Callable[[], float | None] = lambda: None,
) -> Callable[..., Awaitable[Any]]:
    """``llm``, whose calls wait until ``ready`` is set, and are not sent when they cannot fit.

    On a model that serves one call at a time the check and LightRAG's keyword
    extraction cannot overlap; the extraction, which every outcome uses, goes
    first. The wait happens inside the check's model call, so it counts
    against the check's ``timeout``: the check never holds a turn longer than
    that from its start (contract §7). When what is left of ``timeout`` is
    less than ``cost()`` (the seconds the extraction just took on the same
    model), the call is not sent: it waits out its timeout instead, so no
    abandoned generation keeps the model busy for the calls after it.
    """

    async def after_ready(*args: Any, **kwargs: Any) -> Any:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        await ready.wait()
        needed = cost()
        if needed is not None and deadline - loop.time() < needed:
            await asyncio.sleep(timeout)  # the caller's timeout ends this wait first
        return await llm(*args, **kwargs)

    after_ready.__wrapped__ = llm  # type: ignore[attr-defined]  # supports_json_schema looks through it
    return after_ready


async def settle(*tasks: asyncio.Future[Any] | None) -> None:
    """Cancel what is still running and wait until every task has finished."""
    running = [task for task in tasks if task is not None]
    for task in running:
        if not task.done():
            task.cancel()
    await asyncio.gather(*running, return_exceptions=True)


async def _quietly(extract: Callable[[], Awaitable[K | None]]) -> K | None:
    """The extraction's keywords; ``None`` when it raised, so LightRAG extracts as it always does."""
    try:
        return await extract()
    except Exception:
        logger.warning("keyword extraction for the speculative search raised; LightRAG extracts its own", exc_info=True)
        return None


def _as_is(resolution: Resolution, keywords: Any) -> Resolution:
    return resolution


async def search_beside_check(
    *,
    check: Callable[[], Awaitable[Resolution]],
    speculative: Callable[[K | None], Awaitable[T]],
    resolved: Callable[[Resolution], Awaitable[T]],
    on_error: Resolution,
    on_decision: Callable[[Resolution], None] = lambda resolution: None,
    extract: Callable[[], Awaitable[K | None]] | None = None,
    reuse: Callable[[Resolution, K], Resolution] = _as_is,
) -> tuple[Resolution, T]:
    """Run ``check`` beside ``speculative(keywords)``; retrieve again only when the check resolved.

    ``extract()``, when given, runs as its own task and returns the keywords
    the speculative search uses (``None``: LightRAG extracts its own);
    ``speculative`` receives them, ``None`` without ``extract``. On RESOLVE
    the extraction is awaited rather than cancelled, and
    ``reuse(resolution, keywords)`` makes the resolution that
    ``resolved(resolution)`` retrieves with, on the enriched text.
    ``on_error`` is the resolution used if the check itself raises.
    ``on_decision`` hears the resolution once it is known, before the
    retrieval that follows (which may still fail).
    """
    gate = asyncio.Event()
    traced = start_retrieval_span("speculative")
    outcome = "cancelled"
    extracting = asyncio.ensure_future(_quietly(extract)) if extract is not None else None

    async def speculative_branch() -> T:
        _answer_gate.set(gate)  # this task's own context: no other query sees it
        with traced.activate():
            # Shielded: cancelling this branch on RESOLVE leaves the extraction running, to be reused.
            keywords = None if extracting is None else await asyncio.shield(extracting)
            return await speculative(keywords)

    branch = asyncio.ensure_future(speculative_branch())
    checking = asyncio.ensure_future(check())
    try:
        try:
            resolution = await checking
        except Exception:
            logger.warning("the reference check raised; using the speculative search", exc_info=True)
            resolution = on_error
        if resolution.changed:
            await settle(branch)
            traced.set("outcome", outcome)
            traced.end()
            keywords = None if extracting is None else await extracting
            if keywords is not None:
                try:
                    resolution = reuse(resolution, keywords)
                except Exception:  # the resolved retrieval then extracts again, as without reuse
                    logger.warning("reusing the speculative keywords raised", exc_info=True)
            on_decision(resolution)
            with retrieval_span("resolved"):
                return resolution, await resolved(resolution)
        on_decision(resolution)
        gate.set()
        try:
            result = await branch
        except Exception as exc:
            outcome = "failed"
            traced.fail(exc)
            raise
        outcome = "used"
        return resolution, result
    finally:
        await settle(branch, checking, extracting)
        traced.set("outcome", outcome)
        traced.end()
