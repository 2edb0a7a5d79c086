"""LightRAG's own OpenAI binding as the resolver's model, against a fake OpenAI-compatible server on 127.0.0.1.

The binding (``lightrag.llm.openai.openai_complete_if_cache``) retries a failed
request with tenacity, 3 attempts, waiting at least 4 s between them. These
tests pin what docs/lightrag-bindings.md says that means for the resolver: a
healthy server gets one request per resolver call; a failing one is cut by the
resolver's ``timeout`` before a retry starts (the turn reads ``timeout``); and
``retry_with(stop=stop_after_attempt(1))`` gives one request and ``llm_error``.
"""

from __future__ import annotations

import sys
import time
from functools import partial
from pathlib import Path

import pytest
from lightrag import QueryParam
from lightrag.llm.openai import openai_complete_if_cache
from tenacity import stop_after_attempt

sys.path.insert(0, str(Path(__file__).parent))

from fakes import keyword_json
from openai_server import fake_chat_server
from rag_support import offline_rag

from lightrag_resolve import ResolverConfig

HISTORY = [
    {"role": "user", "content": "Do you train teams on the CRM?"},
    {
        "role": "assistant",
        "content": "Yes: the Parcours Cerclia comes at three levels, A1, B1 or C1. Which level suits your team?",
    },
]
ANSWER = keyword_json(["B1", "Parcours Cerclia"], ["CRM training level"])


def _binding(base_url: str, **kwargs):
    """The binding as LightRAG's examples wire it: the model name and the server's address bound once."""
    return partial(openai_complete_if_cache, "served-model", base_url=base_url, api_key="none", **kwargs)


async def _resolve(llm, tmp_path: Path, **config):
    rag = await offline_rag(llm, str(tmp_path), insert=False, resolver=ResolverConfig(**config))
    try:
        return await rag.aresolve("Yes, B1", QueryParam(mode="mix", conversation_history=HISTORY))
    finally:
        await rag.finalize_storages()


async def test_the_binding_as_llm_model_func_resolves_a_short_reply_with_one_request(tmp_path: Path):
    with fake_chat_server({"keywords": ANSWER}) as server:
        resolution = await _resolve(_binding(server.base_url), tmp_path)
    assert resolution.path == "keywords" and resolution.fallback_reason is None
    assert resolution.ll_keywords[0] == "B1" and "Parcours Cerclia" in resolution.ll_keywords
    (request,) = server.requests
    assert request["body"]["model"] == "served-model" and request["body"]["response_format"] == {"type": "json_object"}


async def test_a_failing_server_is_cut_by_the_resolvers_timeout_before_the_binding_retries(tmp_path: Path):
    with fake_chat_server({"keywords": 500}) as server:
        started = time.perf_counter()
        resolution = await _resolve(_binding(server.base_url), tmp_path, timeout=1.0)
        elapsed = time.perf_counter() - started
    assert resolution.carry_reason == "timeout"  # a connection or server error, read as the timeout that cut it
    assert len(server.requests) == 1 and elapsed < 4  # tenacity's first wait (4 s) never ended


async def test_one_attempt_makes_a_failing_server_one_request_and_an_llm_error(tmp_path: Path):
    with fake_chat_server({"keywords": 500}) as server:
        once = openai_complete_if_cache.retry_with(stop=stop_after_attempt(1))  # docs/lightrag-bindings.md
        llm = partial(once, "served-model", base_url=server.base_url, api_key="none")
        resolution = await _resolve(_binding(server.base_url), tmp_path, llm_func=llm, timeout=10.0)
    assert resolution.carry_reason == "llm_error"
    assert len(server.requests) == 1


@pytest.mark.parametrize("status", [500, 429])
async def test_without_a_bound_the_binding_retries_what_the_resolver_never_would(status: int):
    """The binding alone, outside the resolver: three requests for one call (what a long ``timeout`` allows)."""
    with fake_chat_server({"answer": status}) as server:  # a bare prompt reads as an answer request
        llm = _binding(server.base_url).func.retry_with(wait=lambda state: 0)  # tenacity's waits, skipped
        with pytest.raises(Exception):  # noqa: B017  (the binding's own error class is not ours to pin)
            await llm("served-model", "Yes, B1", base_url=server.base_url, api_key="none")
    assert len(server.requests) == 3
