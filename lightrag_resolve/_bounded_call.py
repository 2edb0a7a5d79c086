"""One awaited call of someone else's code (a model, a storage) that cannot raise into the caller's query.

For ``_model.call.ask_model`` and ``_turn.graph_names``: the call's failures, timeout and own ``CancelledError`` (a
client cancelling its inner task) cost the turn what it asked for, never the query; only the caller's cancellation
propagates, cancelling the call. Without ``Task.cancelling`` (absent on 3.10) the call runs in its own task: a
``CancelledError`` out of ``asyncio.wait`` is the caller's, and a task cancelled but not from here cancelled itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

__all__ = ["BoundedOutcome", "CallFailure", "call_bounded"]

T = TypeVar("T")

CallFailure = Literal["timeout", "cancelled_itself", "raised"]
"""Why a bounded call has no result: past its bound, a ``CancelledError`` of its own, or an exception."""


@dataclass(frozen=True, kw_only=True)
class BoundedOutcome(Generic[T]):
    """What a bounded call returned, or why it returned nothing (``error``: the exception it raised)."""

    result: T | None = None
    failure: CallFailure | None = None
    error: Exception | None = None


async def _stop(call: asyncio.Future[Any]) -> None:
    """Cancel the call and wait until it has ended; what it returns is dropped."""
    call.cancel()
    try:
        await asyncio.wait({call})
    finally:
        if call.done() and not call.cancelled():
            call.exception()  # retrieved, so asyncio logs nothing about it


async def call_bounded(call: Callable[[], Awaitable[T]], *, timeout: float) -> BoundedOutcome[T]:
    """Await ``call()`` in its own task for at most ``timeout`` seconds; never raises but the caller's cancellation.

    At the timeout the task is cancelled and awaited, so nothing outlives the query; a call ignoring the cancellation
    only delays the turn, its late result dropped. ``KeyboardInterrupt`` and ``SystemExit`` propagate.
    """

    async def run() -> T:  # inside the task, so a call that raises before it awaits fails like one that awaits
        return await call()

    task = asyncio.ensure_future(run())
    try:
        done, _ = await asyncio.wait({task}, timeout=timeout)
    except asyncio.CancelledError:  # only the caller's own: the call runs in its own task
        await _stop(task)
        raise
    if not done:
        await _stop(task)
        return BoundedOutcome(failure="timeout")
    if task.cancelled():
        return BoundedOutcome(failure="cancelled_itself")
    exc = task.exception()
    if exc is None:
        return BoundedOutcome(result=task.result())
    if not isinstance(exc, Exception):
        raise exc
    return BoundedOutcome(failure="raised", error=exc)
