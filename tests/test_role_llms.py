"""Which LLM function each resolver calls and the model name it records (``_lightrag.role_llms``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from lightrag_resolve import ResolverConfig
from lightrag_resolve._lightrag.role_llms import reference_llm, resolver_llm


class FakeLLM:
    """A fake LLM function: records the kwargs of each call and answers with its own name."""

    def __init__(self, name: str, model_name: str | None = None) -> None:
        self.name, self.calls = name, []
        if model_name is not None:
            self.model_name = model_name

    async def __call__(self, prompt: str, **kwargs: Any) -> str:
        self.calls.append(kwargs)
        return self.name


@dataclass
class FakeRag:
    """A fake LightRAG instance with only what ``_lightrag.role_llms`` and ``keyword_role_llm`` read."""

    keyword_func: Any = None
    keyword_kwargs: dict[str, Any] = field(default_factory=lambda: {"temperature": 0.0})
    keyword_model: str | None = None
    llm_model_func: FakeLLM = field(default_factory=lambda: FakeLLM("instance"))
    llm_model_kwargs: dict[str, Any] = field(default_factory=lambda: {"max_tokens": 64})
    llm_model_name: str = "instance-model"
    llm_response_cache: object = field(default_factory=object)

    @property
    def _role_llm_states(self) -> dict[str, Any]:
        return {} if self.keyword_func is None else {"keyword": SimpleNamespace(raw_func=self.keyword_func)}

    def _get_effective_role_llm_kwargs(self, role: str) -> dict[str, Any]:
        assert role == "keyword"
        return self.keyword_kwargs

    def get_llm_role_config(self, role: str) -> dict[str, Any]:
        assert role == "keyword"
        return {} if self.keyword_model is None else {"model": self.keyword_model}


async def answer(llm: Any) -> str:
    return await llm("prompt", system_prompt="system")


# ---- the resolver's LLM ---------------------------------------------------------------------------


def test_a_configured_llm_wins_and_the_instance_is_not_read():
    configured = FakeLLM("configured", model_name="its-model")
    llm, model = resolver_llm(object(), ResolverConfig(llm_func=configured))
    assert llm is configured and model == "its-model"
    _, named = resolver_llm(object(), ResolverConfig(llm_func=configured, model_name="label"))
    assert named == "label"


def test_a_configured_llm_without_a_model_name_records_none():
    bare = FakeLLM("bare")
    assert resolver_llm(object(), ResolverConfig(llm_func=bare)) == (bare, None)


async def test_the_keyword_role_is_called_with_its_kwargs_and_the_instances_cache():
    rag = FakeRag(keyword_func=FakeLLM("keyword"), keyword_kwargs={"temperature": 0.1}, keyword_model="kw-model")
    llm, model = resolver_llm(rag, ResolverConfig())
    assert await answer(llm) == "keyword" and model == "kw-model"
    assert rag.keyword_func.calls == [
        {"system_prompt": "system", "hashing_kv": rag.llm_response_cache, "temperature": 0.1}
    ]
    assert rag.llm_model_func.calls == []


@pytest.mark.parametrize("raw_func", [None, "not callable"])
async def test_without_a_callable_keyword_role_the_instances_llm_is_called(raw_func):
    rag = FakeRag(keyword_func=raw_func)
    llm, model = resolver_llm(rag, ResolverConfig())
    assert await answer(llm) == "instance" and model == "instance-model"
    assert rag.llm_model_func.calls == [
        {"system_prompt": "system", "hashing_kv": rag.llm_response_cache, "max_tokens": 64}
    ]


@pytest.mark.parametrize(
    ("model_name", "keyword_model", "expected"),
    [("label", "kw-model", "label"), (None, "kw-model", "kw-model"), (None, None, "instance-model")],
)
def test_the_model_name_is_the_configured_one_else_the_roles_else_the_instances(model_name, keyword_model, expected):
    rag = FakeRag(keyword_func=FakeLLM("keyword"), keyword_model=keyword_model)
    assert resolver_llm(rag, ResolverConfig(model_name=model_name))[1] == expected


# ---- the reference check's LLM ------------------------------------------------------------------


def test_a_configured_reference_llm_wins_with_its_own_name():
    checker = FakeLLM("checker", model_name="checker-model")
    config = ResolverConfig(llm_func=FakeLLM("configured"), reference_llm_func=checker, model_name="label")
    assert reference_llm(object(), config) == (checker, "checker-model")
    named = ResolverConfig(reference_llm_func=checker, reference_model_name="ref-label")
    assert reference_llm(object(), named) == (checker, "ref-label")
    assert reference_llm(object(), ResolverConfig(reference_llm_func=FakeLLM("bare")))[1] is None


def test_the_reference_check_defaults_to_the_resolvers_llm_and_name():
    configured = FakeLLM("configured", model_name="its-model")
    assert reference_llm(object(), ResolverConfig(llm_func=configured)) == (configured, "its-model")
    relabelled = ResolverConfig(llm_func=configured, reference_model_name="ref-label")
    assert reference_llm(object(), relabelled) == (configured, "ref-label")


async def test_the_reference_check_on_the_keyword_role_keeps_its_kwargs():
    rag = FakeRag(keyword_func=FakeLLM("keyword"), keyword_model="kw-model")
    llm, model = reference_llm(rag, ResolverConfig(reference_model_name="ref-label"))
    assert await answer(llm) == "keyword" and model == "ref-label"
    assert rag.keyword_func.calls[0]["hashing_kv"] is rag.llm_response_cache
    assert reference_llm(rag, ResolverConfig())[1] == "kw-model"
