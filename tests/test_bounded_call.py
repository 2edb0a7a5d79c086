"""One bounded call of code the library does not own (``_bounded_call``): the model's and the graph lookup's."""

from __future__ import annotations

import asyncio

import pytest

from lightrag_resolve._bounded_call import call_bounded


async def answers() -> str:
    return "names"


async def raises() -> str:
    raise RuntimeError("storage down")


async def cancels_itself() -> str:
    raise asyncio.CancelledError()  # a client library cancelling its own inner task


async def hangs() -> str:
    await asyncio.Event().wait()
    return "never"


def raises_before_awaiting() -> asyncio.Future[str]:
    raise KeyError("no such storage")


async def test_a_result_is_handed_back():
    outcome = await call_bounded(answers, timeout=5)
    assert outcome.result == "names" and outcome.failure is None


@pytest.mark.parametrize(
    ("call", "failure"),
    [(raises, "raised"), (raises_before_awaiting, "raised"), (cancels_itself, "cancelled_itself"), (hangs, "timeout")],
)
async def test_every_failure_of_the_call_is_an_outcome_never_an_exception(call, failure):
    before = asyncio.all_tasks()
    outcome = await call_bounded(call, timeout=0.05)
    assert outcome.failure == failure and outcome.result is None
    assert isinstance(outcome.error, Exception) == (failure == "raised")
    assert not [task for task in asyncio.all_tasks() - before if not task.done()]  # nothing outlives the call


async def test_only_the_callers_own_cancellation_propagates_and_it_ends_the_call():
    ended = asyncio.Event()

    async def waits() -> str:
        try:
            await asyncio.Event().wait()
        finally:
            ended.set()
        return "never"

    caller = asyncio.ensure_future(call_bounded(waits, timeout=30))
    await asyncio.sleep(0.01)
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    assert ended.is_set()
