"""contract §7: in ``naive`` mode, retrieve on the visitor's words while the reference check decides.

On KEEP, AMBIGUOUS or any failure the speculative result is used as is; on RESOLVE it is cancelled and retrieval runs
again on the enriched text. So that no answer is wasted on RESOLVE, the speculative answer call waits behind a gate that
opens only when the check kept the message (``hold_answer``, via the ``RetrievalScope``). Nothing started here outlives
the call that started it. Graph modes run the check first (``_lightrag.retrieval``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Awaitable, Callable, TypeVar

from .._observe.tracing import retrieval_span, start_retrieval_span
from .._resolution import Resolution

__all__ = ["hold_answer", "search_beside_check", "settle"]

logger = logging.getLogger("lightrag_resolve")

T = TypeVar("T")


def hold_answer(
    answer_llm: Callable[..., Awaitable[Any]] | None, gate: asyncio.Event | None
) -> Callable[..., Awaitable[Any]] | None:
    """``answer_llm``, waiting until ``gate`` opens; without a gate returned as is, so other queries pay nothing."""
    if gate is None or answer_llm is None:
        return answer_llm

    async def answer_after_check(*args: Any, **kwargs: Any) -> Any:
        await gate.wait()
        return await answer_llm(*args, **kwargs)

    return answer_after_check


async def settle(*tasks: asyncio.Future[Any] | None) -> None:
    """Cancel what is still running and wait until every task has finished."""
    running = [task for task in tasks if task is not None]
    for task in running:
        if not task.done():
            task.cancel()
    await asyncio.gather(*running, return_exceptions=True)


async def search_beside_check(
    *,
    check: Callable[[], Awaitable[Resolution]],
    speculative: Callable[[asyncio.Event], Awaitable[T]],
    resolved: Callable[[Resolution], Awaitable[T]],
    on_error: Resolution,
    on_decision: Callable[[Resolution], None] = lambda resolution: None,
) -> tuple[Resolution, T]:
    """Run ``check`` beside ``speculative(gate)``; retrieve again only when the check resolved.

    ``gate`` opens once the check kept the message; on a changed resolution the branch is cancelled and
    ``resolved(resolution)`` retrieves. ``on_error`` is the resolution if the check raises; ``on_decision`` hears it
    once known, before the retrieval that follows (which may still fail).
    """
    gate = asyncio.Event()
    traced = start_retrieval_span("speculative")
    outcome = "cancelled"

    async def speculative_branch() -> T:
        with traced.activate():
            return await speculative(gate)

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
        await settle(branch, checking)
        traced.set("outcome", outcome)
        traced.end()
