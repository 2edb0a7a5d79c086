"""``resolver_config_from_env``: every RESOLVER_* rule, as a pure function of a mapping."""

from __future__ import annotations

import pytest
from openai_server import fake_chat_server

from lightrag_resolve import ResolverConfig
from lightrag_resolve.server import ENV_VARIABLES, ResolverEnvError, resolver_config_from_env


def test_no_variables_give_the_library_defaults():
    assert resolver_config_from_env({}) == ResolverConfig()


def test_unrelated_and_blank_variables_are_ignored():
    assert resolver_config_from_env({"PATH": "/bin", "LLM_MODEL": "x", "RESOLVER_TIMEOUT": "  "}) == ResolverConfig()


@pytest.mark.parametrize(("value", "expected"), [("false", False), ("0", False), ("OFF", False), ("yes", True), ("1", True)])
def test_enabled_reads_the_usual_spellings(value, expected):
    assert resolver_config_from_env({"RESOLVER_ENABLED": value}).enabled is expected


def test_every_knob_is_read():
    config = resolver_config_from_env(
        {
            "RESOLVER_COMPANY_NAME": " Helix ",
            "RESOLVER_TIMEOUT": "4.5",
            "RESOLVER_REFERENCE_TIMEOUT": "1",
            "RESOLVER_GRAPH_LOOKUP_TIMEOUT": "2.5",
            "RESOLVER_HISTORY_MESSAGES": "4",
            "RESOLVER_MAX_RESOLVE_WORDS": "3",
            "RESOLVER_MAX_QUERY_WORDS": "6",
            "RESOLVER_MAX_LL_KEYWORDS": "4",
            "RESOLVER_MAX_HL_KEYWORDS": "2",
            "RESOLVER_CAPTURE_CONTENT": "true",
        }
    )
    assert config == ResolverConfig(
        company_name="Helix",
        timeout=4.5,
        reference_timeout=1.0,
        graph_lookup_timeout=2.5,
        history_messages=4,
        max_resolve_words=3,
        max_query_words=6,
        max_ll_keywords=4,
        max_hl_keywords=2,
        capture_content=True,
    )


def test_without_an_endpoint_the_resolver_uses_lightrags_own_llm():
    config = resolver_config_from_env({"RESOLVER_ENABLED": "true"})
    assert config.llm_func is None and config.reference_llm_func is None


def test_a_dedicated_endpoint_becomes_the_resolver_llm_and_the_reference_follows_it():
    config = resolver_config_from_env(
        {"RESOLVER_LLM_BASE_URL": "http://127.0.0.1:8000/v1", "RESOLVER_LLM_MODEL": "qwen2.5-1.5b", "RESOLVER_LLM_API_KEY": "k"}
    )
    llm = config.llm_func
    assert (llm.base_url, llm.model_name, llm.provider_name) == ("http://127.0.0.1:8000/v1", "qwen2.5-1.5b", None)
    assert config.model_name == "qwen2.5-1.5b"
    assert config.reference_llm_func is None  # ResolvingLightRAG then uses the resolver's LLM


def test_the_reference_check_can_have_its_own_endpoint():
    config = resolver_config_from_env(
        {"RESOLVER_REFERENCE_LLM_BASE_URL": "https://llm.example/v1", "RESOLVER_REFERENCE_LLM_MODEL": "small"}
    )
    assert config.llm_func is None
    assert (config.reference_llm_func.base_url, config.reference_llm_func.model_name) == ("https://llm.example/v1", "small")
    assert config.reference_model_name == "small"


async def test_a_dedicated_endpoint_gets_its_own_key_or_none_never_openais(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-lightrags-own")
    with fake_chat_server({"answer": "ok"}) as server:
        endpoint = {"RESOLVER_LLM_BASE_URL": server.base_url, "RESOLVER_LLM_MODEL": "small"}
        await resolver_config_from_env(endpoint).llm_func("hello")
        await resolver_config_from_env({**endpoint, "RESOLVER_LLM_API_KEY": "k"}).llm_func("hello")
    assert [r["authorization"] for r in server.requests] == ["Bearer not-needed", "Bearer k"]
    assert all(r["body"]["temperature"] == 0 for r in server.requests)  # one deterministic call


@pytest.mark.parametrize(
    ("environ", "names"),
    [
        ({"RESOLVER_ENABLED": "maybe"}, "RESOLVER_ENABLED"),
        ({"RESOLVER_TIMEOUT": "soon"}, "RESOLVER_TIMEOUT"),
        ({"RESOLVER_TIMEOUT": "0"}, "RESOLVER_TIMEOUT"),
        ({"RESOLVER_REFERENCE_TIMEOUT": "-2"}, "RESOLVER_REFERENCE_TIMEOUT"),
        ({"RESOLVER_REFERENCE_TIMEOUT": "nan"}, "RESOLVER_REFERENCE_TIMEOUT"),
        ({"RESOLVER_GRAPH_LOOKUP_TIMEOUT": "0"}, "RESOLVER_GRAPH_LOOKUP_TIMEOUT"),
        ({"RESOLVER_HISTORY_MESSAGES": "0"}, "RESOLVER_HISTORY_MESSAGES"),
        ({"RESOLVER_HISTORY_MESSAGES": "2.5"}, "RESOLVER_HISTORY_MESSAGES"),
        ({"RESOLVER_TIMEOUTS": "3"}, "RESOLVER_TIMEOUTS"),
        ({"RESOLVER_LLM_MODEL": "m"}, "RESOLVER_LLM_BASE_URL"),
        ({"RESOLVER_LLM_API_KEY": "k"}, "RESOLVER_LLM_BASE_URL"),
        ({"RESOLVER_LLM_BASE_URL": "http://h/v1"}, "RESOLVER_LLM_MODEL"),
        ({"RESOLVER_LLM_BASE_URL": "localhost:8000", "RESOLVER_LLM_MODEL": "m"}, "RESOLVER_LLM_BASE_URL"),
        ({"RESOLVER_REFERENCE_LLM_MODEL": "m"}, "RESOLVER_REFERENCE_LLM_BASE_URL"),
    ],
)
def test_a_malformed_variable_is_refused_by_name(environ, names):
    with pytest.raises(ResolverEnvError, match=names):
        resolver_config_from_env(environ)


def test_a_measured_alternative_is_no_server_variable():
    # They left the configuration for ResolverTuning (evaluation); a variable still set names the known ones.
    with pytest.raises(ResolverEnvError, match="unknown variable RESOLVER_FUSE_RAW_SEARCH"):
        resolver_config_from_env({"RESOLVER_FUSE_RAW_SEARCH": "true"})


def test_the_documented_variables_are_exactly_the_ones_read():
    assert set(ENV_VARIABLES) == {
        "RESOLVER_ENABLED",
        "RESOLVER_COMPANY_NAME",
        "RESOLVER_CAPTURE_CONTENT",
        "RESOLVER_TIMEOUT",
        "RESOLVER_REFERENCE_TIMEOUT",
        "RESOLVER_GRAPH_LOOKUP_TIMEOUT",
        "RESOLVER_HISTORY_MESSAGES",
        "RESOLVER_MAX_RESOLVE_WORDS",
        "RESOLVER_MAX_QUERY_WORDS",
        "RESOLVER_MAX_LL_KEYWORDS",
        "RESOLVER_MAX_HL_KEYWORDS",
        "RESOLVER_LLM_BASE_URL",
        "RESOLVER_LLM_MODEL",
        "RESOLVER_LLM_API_KEY",
        "RESOLVER_REFERENCE_LLM_BASE_URL",
        "RESOLVER_REFERENCE_LLM_MODEL",
        "RESOLVER_REFERENCE_LLM_API_KEY",
    }


def test_parsing_reads_only_the_mapping_it_is_given(monkeypatch):
    monkeypatch.setenv("RESOLVER_ENABLED", "false")
    assert resolver_config_from_env({}).enabled is True
