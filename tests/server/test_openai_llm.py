"""``OpenAICompatibleLLM``: one chat completion, LightRAG's signature, no retry."""

from __future__ import annotations

import pytest
from fake_llm_endpoint import fake_llm_endpoint

from lightrag_resolve.server import OpenAICompatibleLLM


async def test_it_sends_system_history_and_prompt_and_returns_the_text():
    with fake_llm_endpoint(lambda role, system, user: f"{role}:{user}") as endpoint:
        llm = OpenAICompatibleLLM(base_url=endpoint.base_url, model_name="small")
        history = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]
        text = await llm("Reply: B1", system_prompt="Be brief.", history_messages=history, hashing_kv=object())
    assert text == "answer:Reply: B1"
    (call,) = endpoint.calls
    assert call.model == "small"
    assert [m["role"] for m in call.messages] == ["system", "user", "assistant", "user"]


async def test_a_failing_endpoint_is_called_once():
    def fail(role: str, system: str, user: str) -> str:
        raise RuntimeError("scripted failure")

    with fake_llm_endpoint(fail) as endpoint:
        llm = OpenAICompatibleLLM(base_url=endpoint.base_url, model_name="small")
        with pytest.raises(Exception):
            await llm("hello")
    assert len(endpoint.calls) == 1
