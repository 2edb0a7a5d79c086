"""Retrieval beside the reference check in ``naive`` mode (``_lightrag.speculative``, contract §7), on fakes: no LightRAG,
no model.

The branches here are fakes that record what happened to them: started,
cancelled, finished. The assertions read what ``search_beside_check`` returns
and which branch ran to the end. (Graph modes run the check first: there is
nothing beside it, ``tests/test_reference_integration.py``.)
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lightrag_resolve import Resolution
from lightrag_resolve._lightrag.seam import RetrievalScope, _retrieval, retrieving
from lightrag_resolve._lightrag.speculative import hold_answer, search_beside_check, settle
from test_model_call import others_done

ASK = "Which retailers already run it?"
KEPT = Resolution(query=ASK, original_query=ASK, mode="mix", path="reference", decision="keep", fallback_reason="keep")
RESOLVED = Resolution(
    query=f"{ASK} — Pulse POS", original_query=ASK, mode="mix", path="reference", decision="resolve", entity="Pulse POS"
)
FAILED = Resolution(
    query=ASK, original_query=ASK, mode="mix", path="reference", decision="error", fallback_reason="llm_error"
)


@dataclass
class FakeBranches:
    """Fake check and searches for ``search_beside_check``, each scripted and recorded.

    An outcome is a value to return or an exception to raise; a delay is
    slept first. ``events`` records ``(branch, "start" | "end" | "cancelled")``.
    """

    check_outcome: Any = KEPT
    check_delay: float = 0.0
    speculative_delay: float = 0.0
    speculative_error: Exception | None = None
    resolved_error: Exception | None = None
    events: list[tuple[str, str]] = field(default_factory=list)
    decisions: list[Resolution] = field(default_factory=list)

    async def _run(self, name: str, delay: float, outcome: Any) -> Any:
        self.events.append((name, "start"))
        try:
            await asyncio.sleep(delay)
        except asyncio.CancelledError:
            self.events.append((name, "cancelled"))
            raise
        self.events.append((name, "end"))
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    async def check(self) -> Resolution:
        return await self._run("check", self.check_delay, self.check_outcome)

    async def speculative(self, gate: asyncio.Event) -> str:
        return await self._run("speculative", self.speculative_delay, self.speculative_error or "searched")

    async def resolved(self, resolution: Resolution) -> str:
        return await self._run("resolved", 0.0, self.resolved_error or f"retrieved {resolution.query}")

    def ended(self, name: str) -> bool:
        return (name, "end") in self.events

    def cancelled(self, name: str) -> bool:
        return (name, "cancelled") in self.events

    async def search(self) -> tuple[Resolution, str]:
        return await search_beside_check(
            check=self.check,
            speculative=self.speculative,
            resolved=self.resolved,
            on_error=FAILED,
            on_decision=self.decisions.append,
        )


async def fake_answer(*args: Any, **kwargs: Any) -> str:
    return f"answer to {args[0]}"


# ---- search_beside_check: the outcome decides which retrieval is used -------------------------------


async def test_a_kept_message_uses_the_speculative_search_and_never_retrieves_again():
    fake = FakeBranches(check_outcome=KEPT, check_delay=0.01)
    assert await fake.search() == (KEPT, "searched")
    assert not any(name == "resolved" for name, _ in fake.events)
    assert fake.decisions == [KEPT] and others_done()


async def test_a_resolved_message_cancels_the_speculative_search_and_retrieves_on_the_resolution():
    fake = FakeBranches(check_outcome=RESOLVED, check_delay=0.01, speculative_delay=10)
    assert await fake.search() == (RESOLVED, f"retrieved {RESOLVED.query}")
    assert fake.cancelled("speculative") and not fake.ended("speculative")
    assert fake.decisions == [RESOLVED] and others_done()


async def test_the_speculative_search_starts_before_the_check_ends():
    fake = FakeBranches(check_outcome=KEPT, check_delay=0.02)
    await fake.search()
    assert fake.events.index(("speculative", "start")) < fake.events.index(("check", "end"))


@pytest.mark.parametrize("error", [RuntimeError("check down"), ValueError("bad answer")])
async def test_a_check_that_raises_falls_back_to_the_speculative_search(error):
    fake = FakeBranches(check_outcome=error)
    assert await fake.search() == (FAILED, "searched")
    assert fake.decisions == [FAILED] and others_done()


async def test_a_failing_speculative_search_on_a_kept_message_raises_and_leaves_nothing_running():
    fake = FakeBranches(check_outcome=KEPT, speculative_error=RuntimeError("search down"))
    with pytest.raises(RuntimeError, match="search down"):
        await fake.search()
    assert fake.decisions == [KEPT] and others_done()


async def test_a_failing_resolved_retrieval_raises_after_the_decision_was_reported():
    fake = FakeBranches(check_outcome=RESOLVED, resolved_error=RuntimeError("retrieval down"), speculative_delay=10)
    with pytest.raises(RuntimeError, match="retrieval down"):
        await fake.search()
    assert fake.decisions == [RESOLVED] and fake.cancelled("speculative") and others_done()


@pytest.mark.parametrize("moment", [0.0, 0.01])
async def test_cancelling_the_call_cancels_the_check_and_the_search(moment):
    fake = FakeBranches(check_delay=10, speculative_delay=10)
    call = asyncio.ensure_future(fake.search())
    await asyncio.sleep(moment)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert not any(fake.ended(name) for name in ("check", "speculative", "resolved"))
    assert fake.decisions == [] and others_done()


@given(
    check=st.sampled_from([KEPT, RESOLVED, RuntimeError("check down")]),
    speculative_fails=st.booleans(),
    resolved_fails=st.booleans(),
    delays=st.tuples(*[st.sampled_from([0.0, 0.001, 0.003])] * 2),
)
def test_whatever_each_branch_does_the_decision_picks_the_retrieval_and_nothing_outlives_the_call(
    check, speculative_fails, resolved_fails, delays
):
    fake = FakeBranches(
        check_outcome=check,
        check_delay=delays[0],
        speculative_delay=delays[1],
        speculative_error=RuntimeError("search down") if speculative_fails else None,
        resolved_error=RuntimeError("retrieval down") if resolved_fails else None,
    )

    async def scenario() -> tuple[Any, bool]:
        try:
            outcome: Any = await fake.search()
        except RuntimeError as exc:
            outcome = exc
        return outcome, others_done()

    outcome, done = asyncio.run(scenario())
    assert done
    decided = RESOLVED if check is RESOLVED else FAILED if isinstance(check, Exception) else KEPT
    assert fake.decisions == [decided]
    if decided.changed:
        if resolved_fails:
            assert str(outcome) == "retrieval down"
        else:
            assert outcome == (RESOLVED, f"retrieved {RESOLVED.query}")
    else:
        assert not any(name == "resolved" for name, _ in fake.events)
        if speculative_fails:
            assert str(outcome) == "search down"
        else:
            assert outcome == (decided, "searched")


# ---- hold_answer: the speculative branch's answer waits for the check --------------------------------


def test_outside_a_speculative_branch_the_answer_function_is_returned_as_it_is():
    assert hold_answer(fake_answer, None) is fake_answer
    assert hold_answer(None, None) is None


async def test_inside_the_branch_the_answer_is_written_only_after_the_check_kept_the_message():
    fake = FakeBranches(check_outcome=KEPT, check_delay=0.03)
    order: list[str] = []

    async def fake_search_and_answer(gate: asyncio.Event) -> str:
        answer = hold_answer(fake_answer, gate)
        assert answer is not fake_answer
        order.append("searched")
        written = await answer("the context")
        order.append("answered")
        return written

    async def check() -> Resolution:
        outcome = await fake.check()
        order.append("checked")
        return outcome

    result = await search_beside_check(
        check=check, speculative=fake_search_and_answer, resolved=fake.resolved, on_error=FAILED
    )
    assert result == (KEPT, "answer to the context")
    assert order == ["searched", "checked", "answered"]


async def test_on_a_resolved_message_the_gated_answer_is_never_written():
    fake = FakeBranches(check_outcome=RESOLVED, check_delay=0.02)
    written: list[str] = []

    async def fake_search_and_answer(gate: asyncio.Event) -> str:
        written.append(await hold_answer(fake_answer, gate)("the unresolved context"))
        return written[-1]

    result = await search_beside_check(
        check=fake.check, speculative=fake_search_and_answer, resolved=fake.resolved, on_error=FAILED
    )
    assert result == (RESOLVED, f"retrieved {RESOLVED.query}") and written == []
    assert others_done()


def gated_as_lightrag_sees_it(answer_llm: Any) -> Any:
    """``answer_llm`` gated as the seam gates LightRAG's answer LLM here: by this context's ``RetrievalScope``."""
    return hold_answer(answer_llm, _retrieval.get().answer_hold)


async def test_the_gate_is_the_speculative_branchs_alone():
    seen: dict[str, Any] = {}

    async def check() -> Resolution:
        seen["check"] = gated_as_lightrag_sees_it(fake_answer)
        return KEPT

    async def resolved(resolution: Resolution) -> str:
        return "unused"

    async def speculative(gate: asyncio.Event) -> str:
        with retrieving(RetrievalScope(answer_hold=gate)):  # as _reference_search hands the gate to LightRAG
            seen["speculative"] = gated_as_lightrag_sees_it(fake_answer)
        return "searched"

    await search_beside_check(check=check, speculative=speculative, resolved=resolved, on_error=FAILED)
    assert seen["check"] is fake_answer and seen["speculative"] is not fake_answer
    assert gated_as_lightrag_sees_it(fake_answer) is fake_answer  # nothing left set in the caller's context


# ---- settle -------------------------------------------------------------------------------------------


async def test_settle_cancels_what_runs_waits_for_all_and_raises_nothing():
    async def fake_failing() -> None:
        raise RuntimeError("down")

    async def fake_done() -> str:
        return "kept"

    finished = asyncio.ensure_future(fake_done())
    failing = asyncio.ensure_future(fake_failing())
    running = asyncio.ensure_future(asyncio.sleep(10))
    await asyncio.sleep(0)
    assert finished.done() and failing.done() and not running.done()
    await settle(finished, None, failing, running)
    assert finished.result() == "kept"
    assert running.cancelled()
    assert isinstance(failing.exception(), RuntimeError)
    assert others_done()


async def test_settle_with_nothing_to_settle_returns():
    await settle()
    await settle(None, None)
