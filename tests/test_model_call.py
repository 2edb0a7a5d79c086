"""The one place a resolver awaits a model (``_model.call``): bounds, failures, the role tag, what is sent.

Every model here is a fake (``ScriptedLLM`` or a small function named as one).
"""

from __future__ import annotations

import asyncio
import functools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakes import ScriptedLLM, keyword_json
from lightrag_resolve import Message, Prompt, Resolver, ResolverConfig, Turn
from lightrag_resolve._model.call import (
    ask_model,
    asking_role,
    output_limits,
    response_format,
    supports_json_schema,
)

PROMPT = Prompt(system="s", user="u")
ROLES = ("keywords", "text", "reference")
SCHEMA = {"type": "object", "properties": {"query": {"type": "string"}}}
SANTE = Turn(
    query="Santé",
    history=(
        Message(role="user", content="Which sector?"),
        Message(role="assistant", content="We work with Santé and BTP."),
    ),
    mode="mix",
    company_name="Acme Software",
)


def others_done() -> bool:
    """Whether every task but the running one has finished: nothing a call started outlives it."""
    return all(task.done() for task in asyncio.all_tasks() if task is not asyncio.current_task())


async def fake_model_echoing(prompt: str, **kwargs) -> str:
    """A fake model that answers with what it was asked, so the reply shows what ``ask_model`` sent."""
    return f"{kwargs.pop('system_prompt')} | {prompt} | {sorted(kwargs.items())}"


async def fake_model_naming_its_role(prompt: str, **kwargs) -> str:
    """A fake model that answers with the role ``asking_role`` gives inside its call."""
    return str(asking_role())


def marked(**markers: bool):
    """A fake LLM function carrying the given markers (``supports_json_schema``, ``supports_output_limits``)."""

    async def fake_marked_llm(prompt: str, **kwargs) -> str:
        return "NONE"

    for name, value in markers.items():
        setattr(fake_marked_llm, name, value)
    return fake_marked_llm


# ---- what is sent and what comes back ---------------------------------------------------------


async def test_the_user_prompt_goes_positionally_with_the_system_prompt_and_the_extra_arguments():
    reply = await ask_model(
        fake_model_echoing, Prompt(system="sys", user="usr"), role="text", timeout=1.0, max_tokens=7
    )
    assert reply.text == "sys | usr | [('max_tokens', 7)]"
    assert reply.failure is None and reply.elapsed_ms >= 0


async def test_a_plain_function_returning_text_is_answered_like_a_coroutine():
    def fake_sync_model(prompt: str, **kwargs) -> str:
        return "offre Santé"

    reply = await ask_model(fake_sync_model, PROMPT, role="text", timeout=1.0)
    assert (reply.text, reply.failure) == ("offre Santé", None)


async def test_a_str_subclass_is_read_as_its_text():
    class FakeText(str):
        pass

    async def fake_model(prompt: str, **kwargs) -> str:
        return FakeText("Pulse POS")

    reply = await ask_model(fake_model, PROMPT, role="reference", timeout=1.0)
    assert reply.text == "Pulse POS" and type(reply.text) is str


# ---- the role tag -------------------------------------------------------------------------


@pytest.mark.parametrize("role", ROLES)
async def test_the_role_is_visible_inside_the_call_and_nowhere_else(role):
    assert asking_role() is None
    reply = await ask_model(fake_model_naming_its_role, PROMPT, role=role, timeout=1.0)
    assert reply.text == role
    assert asking_role() is None  # not leaked into the caller's context
    assert await fake_model_naming_its_role("u") == "None"  # a call LightRAG makes itself carries no role


async def test_a_scripted_model_answers_by_the_role_the_call_carries():
    llm = ScriptedLLM(replies={"reference": "KEEP", "keywords": "Santé offer"})
    assert (await ask_model(llm, PROMPT, role="reference", timeout=1.0)).text == "KEEP"
    assert (await ask_model(llm, PROMPT, role="keywords", timeout=1.0)).text == "Santé offer"


async def test_concurrent_calls_each_see_their_own_role():
    async def fake_slow_model_naming_its_role(prompt: str, **kwargs) -> str:
        before = asking_role()
        await asyncio.sleep(0.01)
        return f"{before}/{asking_role()}"

    replies = await asyncio.gather(
        *(ask_model(fake_slow_model_naming_its_role, PROMPT, role=role, timeout=1.0) for role in ROLES)
    )
    assert [reply.text for reply in replies] == [f"{role}/{role}" for role in ROLES]


async def test_the_role_is_gone_after_a_call_that_failed():
    async def fake_failing_model(prompt: str, **kwargs) -> str:
        assert asking_role() == "reference"
        raise RuntimeError("down")

    reply = await ask_model(fake_failing_model, PROMPT, role="reference", timeout=1.0)
    assert reply.failure == "llm_error" and asking_role() is None


# ---- failures become reasons -------------------------------------------------------------------


@pytest.mark.parametrize("error", [RuntimeError("down"), ValueError("bad"), TimeoutError(), ConnectionError()])
async def test_an_exception_from_the_model_is_an_llm_error(error):
    reply = await ask_model(ScriptedLLM(replies={"keywords": error}), PROMPT, role="keywords", timeout=1.0)
    assert (reply.text, reply.failure) == (None, "llm_error")


async def test_an_exception_that_is_not_an_error_is_not_hidden():
    class FakeFatal(BaseException):
        """A fake ``BaseException`` that is no ``Exception``: like ``SystemExit``, not the model's failure."""

    async def fake_model(prompt: str, **kwargs) -> str:
        raise FakeFatal()

    with pytest.raises(FakeFatal):
        await ask_model(fake_model, PROMPT, role="keywords", timeout=1.0)


@given(st.one_of(st.none(), st.integers(), st.binary(max_size=8), st.lists(st.text(max_size=5), max_size=3)))
def test_any_result_that_is_not_text_is_unparsable(result):
    async def fake_model(prompt: str, **kwargs):
        return result

    reply = asyncio.run(ask_model(fake_model, PROMPT, role="keywords", timeout=1.0))
    assert (reply.text, reply.failure) == (None, "unparsable")


class ExplodingText(str):
    """A fake model result: a ``str`` whose ``__str__`` raises."""

    def __str__(self) -> str:
        raise RuntimeError("boom")


def test_a_model_result_whose_str_raises_is_a_fallback():
    llm = ScriptedLLM(replies={"keywords": ExplodingText("NONE"), "text": ExplodingText("NONE")})
    resolution = asyncio.run(Resolver().resolve(SANTE, llm=llm, model="fake"))
    assert resolution.fallback_reason in {"unparsable", "llm_error"} and resolution.query == "Santé"


async def test_a_result_whose_str_raises_is_unparsable_in_the_call():
    reply = await ask_model(ScriptedLLM(replies={"text": ExplodingText("x")}), PROMPT, role="text", timeout=1.0)
    assert (reply.text, reply.failure) == (None, "unparsable")


# ---- the timeout and cancellation ---------------------------------------------------------------


async def test_a_model_slower_than_the_timeout_is_cancelled_and_timed_out():
    llm = ScriptedLLM(delays={"keywords": 10})
    reply = await ask_model(llm, PROMPT, role="keywords", timeout=0.05)
    assert (reply.text, reply.failure) == (None, "timeout")
    assert 40 <= reply.elapsed_ms < 5_000
    assert ("cancelled", "keywords") in llm.events and llm.calls == []
    assert others_done()


async def fake_model_cancelling_itself(prompt: str, **kwargs) -> str:
    """A fake client library that cancels its own inner task and lets the CancelledError out."""
    inner = asyncio.ensure_future(asyncio.sleep(10))
    await asyncio.sleep(0)
    inner.cancel()
    await inner
    return "never"


async def fake_model_raising_cancelled(prompt: str, **kwargs) -> str:
    raise asyncio.CancelledError()


@pytest.mark.parametrize("model", [fake_model_cancelling_itself, fake_model_raising_cancelled])
async def test_a_cancellation_raised_by_the_model_is_an_llm_error(model):
    reply = await ask_model(model, PROMPT, role="keywords", timeout=1.0)
    assert reply.failure == "llm_error" and reply.text is None
    resolution = await Resolver().resolve(SANTE, llm=model)
    assert resolution.fallback_reason == "llm_error"


async def test_the_callers_cancellation_still_propagates_and_cancels_the_model():
    seen: list[str] = []

    async def fake_slow_model(prompt: str, **kwargs) -> str:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise
        return "late"

    task = asyncio.ensure_future(ask_model(fake_slow_model, PROMPT, role="keywords", timeout=5.0))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert seen == ["cancelled"]


async def fake_model_ignoring_cancellation(prompt: str, **kwargs) -> str:
    """A fake model that swallows its cancellation and answers anyway, late."""
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        await asyncio.sleep(0.05)
    return keyword_json(["Offre Santé"], ["santé"])


async def test_an_answer_after_the_timeout_is_never_used():
    reply = await ask_model(fake_model_ignoring_cancellation, PROMPT, role="keywords", timeout=0.05)
    assert reply.failure == "timeout" and reply.text is None
    config = ResolverConfig(timeout=0.05)
    resolution = await Resolver(config).resolve(SANTE, llm=fake_model_ignoring_cancellation)
    assert resolution.fallback_reason == "timeout" and not resolution.has_keywords
    others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    assert all(task.done() for task in others)  # the late call was waited for, not left running


# ---- output_limits ------------------------------------------------------------------------------


def test_the_marker_is_found_through_wrappers_and_a_prompt_without_bounds_sends_none():
    llm = marked(supports_json_schema=True, supports_output_limits=True)
    wrapped = functools.partial(llm, _priority=5)
    prompt = Prompt(system="s", user="u", max_tokens=7, stop=("\n",))
    assert output_limits(wrapped, prompt, {}) == {"max_tokens": 7, "stop": ["\n"]}
    assert output_limits(wrapped, prompt, {"response_format": {"type": "json_object"}}) == {"max_tokens": 7}
    assert output_limits(wrapped, Prompt(system="s", user="u"), {}) == {}


@pytest.mark.parametrize("marker", [None, False, 1, "yes"])
def test_only_a_marker_that_is_true_sends_the_bounds(marker):
    llm = marked() if marker is None else marked(supports_output_limits=marker)
    assert output_limits(llm, Prompt(system="s", user="u", max_tokens=7, stop=("\n",)), {}) == {}


def test_a_stop_without_a_budget_is_sent_alone_and_a_json_answer_gets_no_stop():
    llm = marked(supports_output_limits=True)
    one_line = Prompt(system="s", user="u", stop=("\n", "."))
    assert output_limits(llm, one_line, {}) == {"stop": ["\n", "."]}
    assert output_limits(llm, one_line, {"response_format": {"type": "json_schema"}}) == {}
    assert output_limits(llm, one_line, {"response_format": None}) == {"stop": ["\n", "."]}


# ---- response_format and supports_json_schema ------------------------------------------------------


def test_off_sends_no_response_format_whatever_the_backend():
    for llm in (marked(), marked(supports_json_schema=True)):
        assert response_format(llm, SCHEMA, wanted="off", json_fallback=True) == {}


def test_json_schema_sends_the_schema_even_to_an_unmarked_backend():
    sent = response_format(marked(), SCHEMA, wanted="json_schema", json_fallback=False)
    assert sent == {"response_format": {"type": "json_schema", "json_schema": {"name": "answer", "schema": SCHEMA}}}


def test_auto_sends_the_schema_to_a_marked_backend_and_json_mode_or_nothing_to_the_rest():
    schema = {"response_format": {"type": "json_schema", "json_schema": {"name": "answer", "schema": SCHEMA}}}
    assert response_format(marked(supports_json_schema=True), SCHEMA, wanted="auto", json_fallback=False) == schema
    assert response_format(marked(), SCHEMA, wanted="auto", json_fallback=True) == {
        "response_format": {"type": "json_object"}
    }
    assert response_format(marked(), SCHEMA, wanted="auto", json_fallback=False) == {}


def test_the_json_schema_marker_is_found_through_partial_and_wrapped_layers():
    llm = marked(supports_json_schema=True)

    @functools.wraps(llm)
    async def fake_wrapper(prompt: str, **kwargs) -> str:
        return await llm(prompt, **kwargs)

    del fake_wrapper.supports_json_schema  # functools.wraps copied the attribute: keep only __wrapped__
    assert supports_json_schema(llm)
    assert supports_json_schema(functools.partial(llm, hashing_kv=None))
    assert supports_json_schema(fake_wrapper)
    assert supports_json_schema(functools.partial(functools.partial(fake_wrapper), _priority=5))


def test_an_unmarked_or_falsely_marked_function_decodes_under_no_schema():
    assert not supports_json_schema(marked())
    assert not supports_json_schema(marked(supports_json_schema="yes"))
    assert not supports_json_schema(functools.partial(marked(supports_json_schema=False)))
    assert not supports_json_schema(None)
