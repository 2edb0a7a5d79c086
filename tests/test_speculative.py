"""Retrieval beside the reference check (``_speculative``, contract §7), on fakes: no LightRAG, no model.

The branches here are fakes that record what happened to them: started,
cancelled, finished. The assertions read what ``search_beside_check`` returns
and which branch ran to the end.
"""

from __future__ import annotations

import asyncio
import functools
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakes import ScriptedLLM
from lightrag_resolve import Resolution
from lightrag_resolve._model_call import ask_model, supports_json_schema
from lightrag_resolve._speculative import call_after, gate_answer, one_call_at_a_time, search_beside_check, settle
from test_model_call import PROMPT, others_done

ASK = "Which retailers already run it?"
KEPT = Resolution(query=ASK, original_query=ASK, mode="mix", path="reference", decision="keep", fallback_reason="keep")
RESOLVED = Resolution(
    query=f"{ASK} — Pulse POS", original_query=ASK, mode="mix", path="reference", decision="resolve", entity="Pulse POS"
)
FAILED = Resolution(
    query=ASK, original_query=ASK, mode="mix", path="reference", decision="error", fallback_reason="llm_error"
)
KEYWORDS = ("retail", "retailers")


@dataclass
class FakeBranches:
    """Fake check, searches and extraction for ``search_beside_check``, each scripted and recorded.

    An outcome is a value to return or an exception to raise; a delay is
    slept first. ``events`` records ``(branch, "start" | "end" | "cancelled")``.
    """

    check_outcome: Any = KEPT
    check_delay: float = 0.0
    speculative_delay: float = 0.0
    speculative_error: Exception | None = None
    resolved_error: Exception | None = None
    extract_outcome: Any = KEYWORDS
    extract_delay: float = 0.0
    events: list[tuple[str, str]] = field(default_factory=list)
    decisions: list[Resolution] = field(default_factory=list)
    searched_with: list[Any] = field(default_factory=list)

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

    async def speculative(self, keywords: Any) -> str:
        self.searched_with.append(keywords)
        return await self._run("speculative", self.speculative_delay, self.speculative_error or f"searched {keywords}")

    async def resolved(self, resolution: Resolution) -> str:
        return await self._run("resolved", 0.0, self.resolved_error or f"retrieved {resolution.query}")

    async def extract(self) -> Any:
        return await self._run("extract", self.extract_delay, self.extract_outcome)

    def ended(self, name: str) -> bool:
        return (name, "end") in self.events

    def cancelled(self, name: str) -> bool:
        return (name, "cancelled") in self.events

    async def search(self, *, extract: bool = False, reuse: Any = None) -> tuple[Resolution, str]:
        kwargs: dict[str, Any] = {"extract": self.extract} if extract else {}
        if reuse is not None:
            kwargs["reuse"] = reuse
        return await search_beside_check(
            check=self.check,
            speculative=self.speculative,
            resolved=self.resolved,
            on_error=FAILED,
            on_decision=self.decisions.append,
            **kwargs,
        )


def with_keywords(resolution: Resolution, keywords: tuple[str, ...]) -> Resolution:
    """A fake ``reuse``: the resolution searched with the extracted keywords led by its name."""
    return replace(resolution, ll_keywords=(resolution.entity or "", *keywords), hl_keywords=keywords)


async def fake_answer(*args: Any, **kwargs: Any) -> str:
    return f"answer to {args[0]}"


# ---- search_beside_check: the outcome decides which retrieval is used -------------------------------


async def test_a_kept_message_uses_the_speculative_search_and_never_retrieves_again():
    fake = FakeBranches(check_outcome=KEPT, check_delay=0.01)
    assert await fake.search() == (KEPT, "searched None")
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
    assert await fake.search() == (FAILED, "searched None")
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
async def test_cancelling_the_call_cancels_the_check_the_search_and_the_extraction(moment):
    fake = FakeBranches(check_delay=10, speculative_delay=10, extract_delay=10)
    call = asyncio.ensure_future(fake.search(extract=True))
    await asyncio.sleep(moment)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert not any(fake.ended(name) for name in ("check", "speculative", "extract", "resolved"))
    assert fake.decisions == [] and others_done()


@given(
    check=st.sampled_from([KEPT, RESOLVED, RuntimeError("check down")]),
    speculative_fails=st.booleans(),
    resolved_fails=st.booleans(),
    extract=st.sampled_from([None, KEYWORDS, RuntimeError("extraction down")]),
    delays=st.tuples(*[st.sampled_from([0.0, 0.001, 0.003])] * 3),
)
def test_whatever_each_branch_does_the_decision_picks_the_retrieval_and_nothing_outlives_the_call(
    check, speculative_fails, resolved_fails, extract, delays
):
    fake = FakeBranches(
        check_outcome=check,
        check_delay=delays[0],
        speculative_delay=delays[1],
        extract_delay=delays[2],
        speculative_error=RuntimeError("search down") if speculative_fails else None,
        resolved_error=RuntimeError("retrieval down") if resolved_fails else None,
        extract_outcome=extract,
    )

    async def scenario() -> tuple[Any, bool]:
        try:
            outcome: Any = await fake.search(extract=True, reuse=with_keywords)
        except RuntimeError as exc:
            outcome = exc
        return outcome, others_done()

    outcome, done = asyncio.run(scenario())
    assert done
    decided = RESOLVED if check is RESOLVED else FAILED if isinstance(check, Exception) else KEPT
    expected_keywords = extract if isinstance(extract, tuple) else None
    if decided.changed:
        resolution = with_keywords(RESOLVED, expected_keywords) if expected_keywords else RESOLVED
        assert fake.decisions == [resolution]
        if resolved_fails:
            assert str(outcome) == "retrieval down"
        else:
            assert outcome == (resolution, f"retrieved {resolution.query}")
    else:
        assert fake.decisions == [decided] and not any(name == "resolved" for name, _ in fake.events)
        if speculative_fails:
            assert str(outcome) == "search down"
        else:
            assert outcome == (decided, f"searched {expected_keywords}")
            assert fake.searched_with == [expected_keywords]


# ---- the keyword extraction beside the check ---------------------------------------------------


async def test_the_speculative_search_gets_the_extracted_keywords_and_a_kept_message_reuses_nothing():
    fake = FakeBranches(check_outcome=KEPT)
    reused: list[Any] = []
    result = await fake.search(extract=True, reuse=lambda resolution, keywords: reused.append(keywords))
    assert result == (KEPT, f"searched {KEYWORDS}") and reused == []


async def test_a_resolved_message_awaits_the_extraction_and_retrieves_with_the_reused_keywords():
    fake = FakeBranches(check_outcome=RESOLVED, extract_delay=0.03, speculative_delay=10)
    resolution, result = await fake.search(extract=True, reuse=with_keywords)
    assert resolution == with_keywords(RESOLVED, KEYWORDS) and resolution.has_keywords
    assert result == f"retrieved {resolution.query}" and fake.decisions == [resolution]
    assert fake.ended("extract") and not fake.cancelled("extract")  # the branch was cancelled, not its extraction
    assert fake.searched_with == []  # the branch was cancelled while it waited for the keywords


@pytest.mark.parametrize("extracted", [RuntimeError("extraction down"), None])
async def test_an_extraction_that_fails_or_finds_nothing_leaves_lightrag_to_extract(extracted):
    fake = FakeBranches(check_outcome=KEPT, extract_outcome=extracted)
    assert await fake.search(extract=True, reuse=with_keywords) == (KEPT, "searched None")
    resolved = FakeBranches(check_outcome=RESOLVED, extract_outcome=extracted)
    assert await resolved.search(extract=True, reuse=with_keywords) == (RESOLVED, f"retrieved {RESOLVED.query}")


async def test_a_reuse_that_raises_retrieves_with_the_checks_resolution():
    def failing_reuse(resolution: Resolution, keywords: Any) -> Resolution:
        raise ValueError("cannot reuse")

    fake = FakeBranches(check_outcome=RESOLVED)
    assert await fake.search(extract=True, reuse=failing_reuse) == (RESOLVED, f"retrieved {RESOLVED.query}")
    assert fake.decisions == [RESOLVED]


async def test_without_an_extraction_the_resolution_is_retrieved_as_the_check_made_it():
    fake = FakeBranches(check_outcome=RESOLVED)
    assert await fake.search(reuse=with_keywords) == (RESOLVED, f"retrieved {RESOLVED.query}")


# ---- gate_answer: the speculative branch's answer waits for the check --------------------------------


def test_outside_a_speculative_branch_the_answer_function_is_returned_as_it_is():
    assert gate_answer(fake_answer) is fake_answer
    assert gate_answer(None) is None


async def test_inside_the_branch_the_answer_is_written_only_after_the_check_kept_the_message():
    fake = FakeBranches(check_outcome=KEPT, check_delay=0.03)
    order: list[str] = []

    async def fake_search_and_answer(keywords: Any) -> str:
        answer = gate_answer(fake_answer)
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

    async def fake_search_and_answer(keywords: Any) -> str:
        written.append(await gate_answer(fake_answer)("the unresolved context"))
        return written[-1]

    result = await search_beside_check(
        check=fake.check, speculative=fake_search_and_answer, resolved=fake.resolved, on_error=FAILED
    )
    assert result == (RESOLVED, f"retrieved {RESOLVED.query}") and written == []
    assert others_done()


async def test_the_gate_is_the_speculative_branchs_alone():
    seen: dict[str, Any] = {}

    async def check() -> Resolution:
        seen["check"] = gate_answer(fake_answer)
        return KEPT

    async def resolved(resolution: Resolution) -> str:
        return "unused"

    async def speculative(keywords: Any) -> str:
        seen["speculative"] = gate_answer(fake_answer)
        return "searched"

    await search_beside_check(check=check, speculative=speculative, resolved=resolved, on_error=FAILED)
    assert seen["check"] is fake_answer and seen["speculative"] is not fake_answer
    assert gate_answer(fake_answer) is fake_answer  # nothing left set in the caller's context


# ---- one_call_at_a_time ----------------------------------------------------------------------------


class FakeLocalModel:
    """A fake model object that serves one call at a time, as ``LocalLLM`` says it does."""

    max_concurrent_calls = 1

    async def __call__(self, prompt: str, **kwargs: Any) -> str:
        return "KEEP"


def test_a_model_serving_one_call_at_a_time_is_found_through_its_wrappers():
    model = FakeLocalModel()

    @functools.wraps(model.__call__)
    async def fake_wrapper(prompt: str, **kwargs: Any) -> str:
        return await model(prompt, **kwargs)

    fake_wrapper.__wrapped__ = model  # type: ignore[attr-defined]
    assert one_call_at_a_time(model) is model
    assert one_call_at_a_time(functools.partial(model, hashing_kv=None)) is model
    assert one_call_at_a_time(functools.partial(fake_wrapper, _priority=5)) is model


def test_a_model_that_serves_calls_side_by_side_is_not_one_call_at_a_time():
    class FakeServedModel(FakeLocalModel):
        max_concurrent_calls = 4

    assert one_call_at_a_time(FakeServedModel()) is None
    assert one_call_at_a_time(fake_answer) is None
    assert one_call_at_a_time(functools.partial(fake_answer)) is None
    assert one_call_at_a_time(None) is None


# ---- call_after: the check's call waits for the extraction, within its own timeout -----------------------


async def test_a_call_waits_until_ready_then_is_sent():
    ready = asyncio.Event()
    llm = ScriptedLLM(replies={"reference": "KEEP"})
    call = asyncio.ensure_future(ask_model(call_after(ready, llm, timeout=1.0), PROMPT, role="reference", timeout=1.0))
    await asyncio.sleep(0.02)
    assert llm.started == [] and not call.done()
    ready.set()
    reply = await call
    assert (reply.text, reply.failure) == ("KEEP", None)


async def test_the_wait_counts_against_the_calls_timeout():
    llm = ScriptedLLM(replies={"reference": "KEEP"})
    reply = await ask_model(call_after(asyncio.Event(), llm, timeout=0.05), PROMPT, role="reference", timeout=0.05)
    assert (reply.text, reply.failure) == (None, "timeout") and llm.started == []
    assert others_done()


@pytest.mark.parametrize(("cost", "sent"), [(lambda: 5.0, False), (lambda: 0.0, True), (lambda: None, True)])
async def test_a_call_is_sent_only_when_what_the_extraction_took_fits_in_the_time_left(cost, sent):
    ready = asyncio.Event()
    ready.set()
    llm = ScriptedLLM(replies={"reference": "KEEP"})
    reply = await ask_model(call_after(ready, llm, timeout=0.1, cost=cost), PROMPT, role="reference", timeout=0.1)
    assert (reply.text, reply.failure) == (("KEEP", None) if sent else (None, "timeout"))
    assert llm.started == (["reference"] if sent else [])


def test_the_waiting_call_still_shows_the_models_markers():
    llm = ScriptedLLM()
    llm.supports_json_schema = True  # type: ignore[attr-defined]
    assert supports_json_schema(call_after(asyncio.Event(), llm, timeout=1.0))
    model = FakeLocalModel()
    assert one_call_at_a_time(call_after(asyncio.Event(), model, timeout=1.0)) is model


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
