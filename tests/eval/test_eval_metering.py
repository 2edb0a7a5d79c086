"""Charging LLM calls, prompt tokens and time to the turn that made them."""

from __future__ import annotations

import copy

from fakes import ScriptedLLM, offline_tokenizer

from lightrag_resolve.eval import MeteredLLM, Usage


async def test_calls_inside_the_block_are_charged_to_its_usage() -> None:
    tokenizer = offline_tokenizer()
    metered = MeteredLLM(ScriptedLLM(), tokenizer)
    usage = Usage()
    with metered.charging(usage):
        await metered("hello world", system_prompt="be brief", history_messages=[{"role": "user", "content": "hi"}])
        await metered("again")
    await metered("outside")
    expected = sum(len(tokenizer.encode(t)) for t in ("hello world", "be brief", "hi", "again"))
    assert usage.calls == 2
    assert usage.prompt_tokens == expected
    assert usage.llm_ms >= 0


async def test_the_answer_and_kwargs_pass_through() -> None:
    llm = ScriptedLLM(replies={"answer": "ok"})
    metered = MeteredLLM(llm, offline_tokenizer())
    assert await metered("p", system_prompt=None, temperature=0.1) == "ok"
    assert llm.calls[0].kwargs["temperature"] == 0.1


def test_deep_copies_are_the_same_meter() -> None:
    # LightRAG deep-copies its fields on every query; the counts must survive it.
    metered = MeteredLLM(ScriptedLLM(), offline_tokenizer())
    assert copy.deepcopy({"f": metered})["f"] is metered
