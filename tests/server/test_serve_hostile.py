"""Hostile text over real HTTP (issue 13): the server answers 4xx or the documented fallback, never 500.

One ``lightrag-resolve serve`` for the module, as in ``test_serve_http``, whose
fake LLM endpoint answers the resolver from ``HOSTILE_REPLY`` when a test sets
it (named as what it is: a fake model returning hostile strings).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fake_llm_endpoint import FakeLLMEndpoint, fake_llm_endpoint, kb_script
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import hostile_history, hostile_model_output, hostile_text

from lightrag_resolve._languages.text import MAX_KEYWORD_CHARS, MAX_PROMPT_PART_CHARS, MAX_RAW_OUTPUT_CHARS
from harness import REQUEST_TIMEOUT, RunningServer, insert_kb, require_server_deps, running_server, server_env

pytestmark = pytest.mark.server

GERMAN = [
    {"role": "user", "content": "Which German courses do you run?"},
    {"role": "assistant", "content": "We teach A1 and B1. Which level?"},
]
HOSTILE_REPLY: dict[str, str | None] = {"reply": None}


def invisible_free(text: str) -> bool:
    """No control (Cc), format (Cf) or surrogate (Cs) code point."""
    return all(unicodedata.category(ch) not in ("Cc", "Cf", "Cs") for ch in text)


def hostile_script(role: str, system: str, user: str) -> str:
    """``kb_script``, except that the resolver roles answer ``HOSTILE_REPLY`` when it is set.

    LightRAG's own keyword extraction is answered in plain UTF-8 JSON, not
    ``\\u``-escaped: LightRAG 1.5.7 repairs an answer it cannot parse with
    ``json_repair``, which decodes an escaped surrogate pair (an emoji) into
    two lone surrogates, and then fails in its own embedding call (a 500 of
    LightRAG's, on an unresolved turn, that this library does not cause).
    """
    reply = HOSTILE_REPLY["reply"]
    if reply is not None and role in {"keywords", "text", "reference"}:
        return reply
    text = kb_script(role, system, user)
    if role == "lightrag_keywords":
        return json.dumps(json.loads(text), ensure_ascii=False)
    return text


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeLLMEndpoint]:
    require_server_deps()
    with fake_llm_endpoint(hostile_script) as endpoint:
        yield endpoint


@pytest.fixture(scope="module")
def server(llm: FakeLLMEndpoint, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    workdir: Path = tmp_path_factory.mktemp("serve-hostile")
    with running_server("serve", [], server_env(llm.base_url, workdir), workdir) as running:
        insert_kb(running.base_url)
        yield running


@pytest.fixture(autouse=True)
def _no_hostile_reply() -> Iterator[None]:
    HOSTILE_REPLY["reply"] = None
    yield
    HOSTILE_REPLY["reply"] = None


def post_raw(base_url: str, path: str, body: dict[str, Any]) -> httpx.Response:
    """POST ``body`` as ASCII JSON, so a lone surrogate travels as its ``\\ud800`` escape."""
    return httpx.post(
        f"{base_url}{path}",
        content=json.dumps(body, ensure_ascii=True).encode("ascii"),
        headers={"Content-Type": "application/json"},
        timeout=REQUEST_TIMEOUT,
    )


HOSTILE_QUERIES = {
    "lone surrogate": "B1\ud800",
    "lone surrogate question": "Which \udfff level do you teach?",
    "NUL": "B1\x00",
    "NUL only": "\x00\x00\x00",
    "control characters": "B1\x1b[31m\x07\x08",
    "format characters": "\u200bB1\ufeff\u2060",
    "30,000 characters without spaces": "数" * 30_000,
    "1 MB without spaces": "数" * 1_000_000,  # LightRAG's own body limit: 413
}


@pytest.mark.parametrize("path", ["/query/data", "/query"])
@pytest.mark.parametrize("name", list(HOSTILE_QUERIES))
def test_a_hostile_query_gets_a_4xx_or_an_answer_never_a_500(server: RunningServer, path: str, name: str):
    response = post_raw(server.base_url, path, {"query": HOSTILE_QUERIES[name], "mode": "local", "conversation_history": GERMAN})
    assert response.status_code < 500, (name, response.status_code, response.text[:500])


HOSTILE_HISTORIES = {
    "lone surrogate": [{"role": "user", "content": "Which German courses\ud800 do you run?"}, GERMAN[1]],
    "NUL": [{"role": "user", "content": "German\x00 courses?"}, GERMAN[1]],
    "control characters": [GERMAN[0], {"role": "assistant", "content": "A1\x1b[2J and B1\r\n\x0b. Which level?"}],
    "30,000 characters without spaces": [GERMAN[0], {"role": "assistant", "content": "德语课程" * 7_500}],
    "one 30,000-character token": [GERMAN[0], {"role": "assistant", "content": "German" + "x" * 30_000}],
    "1 MB message": [GERMAN[0], {"role": "assistant", "content": "x" * 1_000_000}],  # LightRAG refuses: 400 or 413
    "1 MB of words": [GERMAN[0], {"role": "assistant", "content": "German " * 150_000}],
}


@pytest.mark.parametrize("path", ["/query/data", "/query"])
@pytest.mark.parametrize("name", list(HOSTILE_HISTORIES))
def test_a_hostile_history_gets_a_4xx_or_an_answer_never_a_500(server: RunningServer, llm: FakeLLMEndpoint, path: str, name: str):
    since = len(llm.calls)
    body = {"query": "B1", "mode": "local", "conversation_history": HOSTILE_HISTORIES[name]}
    response = post_raw(server.base_url, path, body)
    assert response.status_code < 500, (name, response.status_code, response.text[:500])
    for call in llm.calls[since:]:
        if call.role == "keywords":  # every prompt part bounded in characters, whatever the history held
            assert len(call.user) <= len("Conversation:\n\n\nReply: B1") + 2 * (len("Assistant: \n") + MAX_PROMPT_PART_CHARS)
            assert invisible_free(call.user.replace("\n", ""))


HOSTILE_REPLIES = {
    "lone surrogate keyword": json.dumps({"low_level_keywords": ["B1\ud800"], "high_level_keywords": ["\ud800"]}),
    "NUL keyword": json.dumps({"low_level_keywords": ["\x00"], "high_level_keywords": ["German\x00"]}),
    "100 KB keyword": json.dumps({"low_level_keywords": ["k" * 100_000], "high_level_keywords": ["courses"]}),
    "lone surrogate text": "German B1\ud800 \x1b[31m",
    "218 KB output": "{" + "x" * 218_000,
}


@pytest.mark.parametrize("name", list(HOSTILE_REPLIES))
def test_a_hostile_model_answer_becomes_clean_keywords_or_a_fallback(server: RunningServer, name: str):
    HOSTILE_REPLY["reply"] = HOSTILE_REPLIES[name]
    response = post_raw(server.base_url, "/query/data", {"query": "B1", "mode": "local", "conversation_history": GERMAN})
    assert response.status_code in (200, 400), (name, response.status_code, response.text[:500])
    if response.status_code == 200:
        resolution = response.json()["metadata"]["resolution"]
        assert len(resolution["raw_output"] or "") <= MAX_RAW_OUTPUT_CHARS
        for keyword in resolution["ll_keywords"] + resolution["hl_keywords"]:
            assert invisible_free(keyword) and len(keyword) <= MAX_KEYWORD_CHARS


# ---- bounded fuzz: 30 requests ---------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(
    query=st.one_of(hostile_text, st.sampled_from(["B1", "Santé", "Which one is it for?"])),
    history=hostile_history,
    reply=st.one_of(st.none(), hostile_model_output()),
    path=st.sampled_from(["/query/data", "/query"]),
    mode=st.sampled_from(["local", "mix", "naive"]),
)
def test_fuzzed_hostile_requests_never_get_a_500(server: RunningServer, query, history, reply, path, mode):
    HOSTILE_REPLY["reply"] = reply
    body = {"query": query, "mode": mode, "conversation_history": [*GERMAN, *history]}
    response = post_raw(server.base_url, path, body)
    assert response.status_code < 500, (response.status_code, response.text[:500])
    if path == "/query/data" and response.status_code == 200:
        resolution = response.json()["metadata"].get("resolution")
        if resolution and resolution["changed"]:
            assert all(invisible_free(text) for text in [*resolution["ll_keywords"], *resolution["hl_keywords"]])
            if resolution["query"] != resolution["original_query"]:
                assert invisible_free(resolution["query"])
