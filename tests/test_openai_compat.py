"""The OpenAI-compatible adapter, against a fake chat server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import copy
import os
import sys
from pathlib import Path

import openai
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

sys.path.insert(0, str(Path(__file__).parent))

from fakes import keyword_json
from openai_server import fake_chat_server

from lightrag_resolve import Message, Resolver, ResolverConfig, Turn
from lightrag_resolve.openai_compat import CompletionText, Usage, openai_llm


@pytest.fixture(autouse=True)
def _no_openai_env(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


async def test_the_adapter_sends_system_history_and_prompt_and_returns_usage():
    with fake_chat_server({"answer": "Bonjour"}) as server:
        llm = openai_llm("tiny-model", base_url=server.base_url, api_key="sk-test")
        history = [{"role": "user", "content": "Salut"}, {"role": "assistant", "content": "Bonjour !"}]
        text = await llm("Et ensuite ?", system_prompt="Be brief.", history_messages=history, hashing_kv=object(), temperature=0)
    assert text == "Bonjour" and isinstance(text, CompletionText)
    assert text.usage == Usage(input_tokens=42, output_tokens=7)
    (request,) = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["authorization"] == "Bearer sk-test"
    body = request["body"]
    assert body["model"] == "tiny-model" and body["temperature"] == 0
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "user"]
    assert body["messages"][-1]["content"] == "Et ensuite ?"
    assert "hashing_kv" not in body


async def test_keyword_extraction_asks_for_json():
    with fake_chat_server({"answer": "{}"}) as server:
        await openai_llm("m", base_url=server.base_url)("extract", keyword_extraction=True)
    assert server.requests[0]["body"]["response_format"] == {"type": "json_object"}


async def test_a_failing_endpoint_is_called_once_then_raises():
    with fake_chat_server({"answer": 503}) as server:
        llm = openai_llm("m", base_url=server.base_url)
        with pytest.raises(openai.APIStatusError):
            await llm("hello")
    assert len(server.requests) == 1  # no retry: the resolver's contract is one call


def test_openai_itself_needs_a_key():
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        openai_llm("gpt-4o-mini")


def test_the_function_names_its_model_and_provider_and_survives_deepcopy():
    official = openai_llm("gpt-4o-mini", api_key="sk-test")
    local = openai_llm("qwen", base_url="http://127.0.0.1:8080/v1")
    assert (official.model_name, official.provider_name) == ("gpt-4o-mini", "openai")  # type: ignore[attr-defined]
    assert (local.model_name, local.provider_name) == ("qwen", None)  # type: ignore[attr-defined]
    assert copy.deepcopy(official) is official  # LightRAG deep-copies its fields on every query


async def test_the_resolver_span_gets_usage_and_model_through_the_adapter():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with fake_chat_server({"keywords": keyword_json(["Offre Santé"], ["santé"])}) as server:
        llm = openai_llm("tiny-model", base_url=server.base_url)
        history = (Message(role="assistant", content="Offre Santé ou offre BTP : quel secteur ?"),)
        turn = Turn(query="Santé", history=history, mode="mix")
        resolution = await Resolver(ResolverConfig(tracer_provider=provider)).resolve(turn, llm=llm, model="tiny-model")
    assert resolution.ll_keywords == ("Offre Santé",)
    assert server.requests[0]["body"]["response_format"]["type"] == "json_schema"
    (span,) = [s for s in exporter.get_finished_spans() if s.name == "lightrag_resolve.keywords"]
    assert span.attributes["gen_ai.usage.input_tokens"] == 42
    assert span.attributes["gen_ai.usage.output_tokens"] == 7
    assert span.attributes["gen_ai.request.model"] == "tiny-model"


async def _ask_twice(llm) -> None:
    await llm("one")
    await llm("two")


def test_each_event_loop_and_each_process_gets_its_own_client(monkeypatch):
    made: list[openai.AsyncOpenAI] = []

    class RecordedClient(openai.AsyncOpenAI):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            made.append(self)

    monkeypatch.setattr(openai, "AsyncOpenAI", RecordedClient)
    with fake_chat_server({"answer": "ok"}) as server:
        llm = openai_llm("m", base_url=server.base_url)
        assert made == []  # created on first use, so a preloading parent opens nothing
        asyncio.run(_ask_twice(llm))
        asyncio.run(_ask_twice(llm))  # a second loop (a forked worker runs its own)
        assert len(made) == 2

        async def after_fork() -> None:
            await llm("parent")
            monkeypatch.setattr(os, "getpid", lambda: -1)  # the same loop, seen from a forked child
            await llm("child")

        asyncio.run(after_fork())
    assert len(made) == 4 and len(server.requests) == 6


async def test_a_default_temperature_yields_to_the_callers():
    with fake_chat_server({"answer": "ok"}) as server:
        llm = openai_llm("m", base_url=server.base_url, temperature=0)
        await llm("default")
        await llm("own", temperature=0.7)
    assert [r["body"]["temperature"] for r in server.requests] == [0, 0.7]


async def test_an_endpoint_without_json_schema_gets_json_mode_from_then_on():
    history = (Message(role="assistant", content="Offre Santé ou offre BTP : quel secteur ?"),)
    turn = Turn(query="Santé", history=history, mode="mix")
    with fake_chat_server({"keywords": keyword_json(["Offre Santé"], ["santé"])}, refuse_json_schema=True) as server:
        llm = openai_llm("tiny-model", base_url=server.base_url)
        first = await Resolver().resolve(turn, llm=llm)
        second = await Resolver().resolve(turn, llm=llm)
    formats = [request["body"]["response_format"]["type"] for request in server.requests]
    assert formats == ["json_schema", "json_object", "json_object"]
    assert first.ll_keywords == second.ll_keywords == ("Offre Santé",)
