"""``lightrag-resolve serve`` over real HTTP: LightRAG's routes, resolved.

One server for the module (uvicorn, one process) over the knowledge graph of
``tests/kb.py``, its LLM and embeddings served by ``fake_llm_endpoint``. The
resolver here has a dedicated endpoint (``RESOLVER_LLM_*``: the same fake,
its own model name); the gunicorn test uses LightRAG's keyword-role LLM.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_llm_endpoint import FakeLLMEndpoint, fake_llm_endpoint, kb_script
from harness import RunningServer, insert_kb, post, require_server_deps, running_server, server_env

pytestmark = pytest.mark.server

RESOLVER_MODEL = "small-resolver"
GERMAN = [
    {"role": "user", "content": "Which German courses do you run?"},
    {"role": "assistant", "content": "We teach German A1 and German B1. Which level?"},
]
OFFERS = [
    {"role": "user", "content": "Quelles offres avez-vous ?"},
    {"role": "assistant", "content": "Nous avons une offre Santé et une offre BTP. Quel secteur ?"},
]
JOKE = [
    {"role": "user", "content": "Tell me a joke."},
    # No question: a reply to a question would carry it into the text (contract §5.6) and be searched.
    {"role": "assistant", "content": "The chicken crossed the road to get to the other side."},
]


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeLLMEndpoint]:
    require_server_deps()
    with fake_llm_endpoint(kb_script) as endpoint:
        yield endpoint


@pytest.fixture(scope="module")
def server(llm: FakeLLMEndpoint, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    workdir: Path = tmp_path_factory.mktemp("serve")
    env = server_env(
        llm.base_url, workdir, RESOLVER_LLM_BASE_URL=llm.base_url, RESOLVER_LLM_MODEL=RESOLVER_MODEL, RESOLVER_LLM_API_KEY="sk-r"
    )
    with running_server("serve", [], env, workdir) as running:
        insert_kb(running.base_url)
        yield running


def _resolver_calls(llm: FakeLLMEndpoint, since: int) -> list[Any]:
    return [call for call in llm.calls[since:] if call.role == "keywords"]


def _entity_names(body: dict[str, Any]) -> set[str]:
    return {entity["entity_name"] for entity in body["data"]["entities"]}


# ---- resolved ------------------------------------------------------------------


def test_a_short_reply_is_resolved_through_query_data(server: RunningServer, llm: FakeLLMEndpoint):
    since = len(llm.calls)
    response = post(server.base_url, "/query/data", {"query": "B1", "mode": "local", "conversation_history": GERMAN})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "success"
    resolution = body["metadata"]["resolution"]
    assert resolution["path"] == "keywords" and resolution["changed"] is True
    assert resolution["fallback_reason"] is None
    assert resolution["model"] == RESOLVER_MODEL
    # LightRAG's own metadata shows the keywords it actually searched with.
    assert body["metadata"]["keywords"] == {"low_level": ["German B1"], "high_level": ["language courses"]}
    assert "German B1" in _entity_names(body)
    (resolver_call,) = _resolver_calls(llm, since)
    assert "Which German courses do you run?" in resolver_call.user and resolver_call.user.endswith("Reply: B1")
    assert resolver_call.model == RESOLVER_MODEL  # the dedicated endpoint, not LightRAG's LLM_MODEL
    assert [m["role"] for m in resolver_call.messages] == ["system", "user"]
    assert "lightrag_keywords" not in llm.roles()[since:]  # supplied keywords skip LightRAG's extraction


def _answer_calls(llm: FakeLLMEndpoint, since: int) -> list[Any]:
    return [call for call in llm.calls[since:] if call.role == "answer"]


def test_a_resolved_short_reply_gets_an_answer_from_query_and_query_stream(server: RunningServer, llm: FakeLLMEndpoint):
    for path in ("/query", "/query/stream"):
        since = len(llm.calls)
        response = post(server.base_url, path, {"query": "B1", "mode": "mix", "conversation_history": GERMAN})
        assert response.status_code == 200, (path, response.text)
        assert "An answer" in response.text
        # Retrieval searched the resolved text; the answer writer read the visitor's words after the conversation.
        (answer,) = _answer_calls(llm, since)
        assert answer.user == "B1", path
        assert [m["content"] for m in answer.messages[1:-1]] == [m["content"] for m in GERMAN]


def test_the_ollama_chat_resolves_with_the_earlier_messages_of_the_chat(server: RunningServer, llm: FakeLLMEndpoint):
    for stream in (False, True):
        since = len(llm.calls)
        response = post(
            server.base_url,
            "/api/chat",
            {"model": "lightrag:latest", "stream": stream, "messages": [*OFFERS, {"role": "user", "content": "Santé"}]},
        )
        assert response.status_code == 200, response.text
        assert "An answer" in response.text
        (resolver_call,) = _resolver_calls(llm, since)
        assert "Quelles offres avez-vous ?" in resolver_call.user and "\nReply: Santé\n" in resolver_call.user
        (answer,) = _answer_calls(llm, since)
        assert answer.user == "Santé"
        # The answer writer was handed the resolved keywords' context, not LightRAG's own extraction.
        assert "lightrag_keywords" not in llm.roles()[since:]


def test_a_two_letter_reply_reaches_retrieval_in_the_chat_too(server: RunningServer):
    response = post(
        server.base_url,
        "/api/chat",
        {"model": "lightrag:latest", "stream": False, "messages": [*GERMAN, {"role": "user", "content": "B1"}]},
    )
    assert response.status_code == 200, response.text
    assert response.json()["message"]["content"] == "An answer from the context."


# ---- untouched -----------------------------------------------------------------


def test_a_first_turn_is_untouched(server: RunningServer, llm: FakeLLMEndpoint):
    since = len(llm.calls)
    question = "Which German courses do you run?"
    response = post(server.base_url, "/query/data", {"query": question, "mode": "local"})
    assert response.status_code == 200, response.text
    metadata = response.json()["metadata"]
    assert metadata["resolution"]["path"] == "first_turn" and metadata["resolution"]["changed"] is False
    assert metadata["keywords"] == {"low_level": [question], "high_level": [question]}  # LightRAG's own extraction
    assert _resolver_calls(llm, since) == []


def test_a_too_short_first_turn_gets_lightrags_own_refusal(server: RunningServer, llm: FakeLLMEndpoint):
    since = len(llm.calls)
    query = post(server.base_url, "/query", {"query": "B1", "mode": "local"})
    assert query.status_code == 422
    assert query.json()["detail"][0]["input"] == {"query": "B1", "mode": "local"}  # pydantic's own, not ours
    data = post(server.base_url, "/query/data", {"query": "B1"})
    assert data.status_code == 400 and data.json()["status"] == "failure" and "too short" in data.json()["message"]
    chat = post(server.base_url, "/api/chat", {"model": "m", "stream": False, "messages": [{"role": "user", "content": "B1"}]})
    assert chat.status_code == 400 and "too short" in chat.json()["detail"]
    assert llm.calls[since:] == []


def test_an_unresolved_short_reply_gets_lightrags_own_refusal_not_a_500(server: RunningServer, llm: FakeLLMEndpoint):
    since = len(llm.calls)
    # "B2" answers nothing the assistant said (an "OK" would assent to it, contract §5.6).
    query = post(server.base_url, "/query", {"query": "B2", "conversation_history": JOKE})
    assert query.status_code == 422, query.text
    assert query.json()["detail"][0]["type"] == "value_error" and "too short" in query.json()["detail"][0]["msg"]
    data = post(server.base_url, "/query/data", {"query": "B2", "conversation_history": JOKE})
    assert data.status_code == 400 and data.json()["status"] == "failure" and "too short" in data.json()["message"]
    chat = post(server.base_url, "/api/chat", {"model": "m", "stream": False, "messages": [*JOKE, {"role": "user", "content": "B2"}]})
    assert chat.status_code == 400 and "too short" in chat.json()["detail"]
    # A reply to the assistant's statement is unprompted (contract §5.7); in the server's graph mode it gets the
    # resolver's one call (issue 40), whose answer the fake endpoint makes unusable: nothing retrieved or answered.
    assert llm.roles()[since:] == ["keywords"] * 3
    # Each refusal says why the reply was not resolved, in one line.
    for said in (query.json()["detail"][0]["msg"], data.json()["message"], chat.json()["detail"]):
        assert "not resolved against the conversation" in said and "(" in said and "\n" not in said


def test_an_unresolved_short_reply_is_logged_once_at_info_with_its_reason_and_no_traceback(server: RunningServer):
    before = len(server.log_tail(100_000).splitlines())
    for stream in (False, True):
        chat = post(
            server.base_url,
            "/api/chat",
            {"model": "m", "stream": stream, "messages": [*JOKE, {"role": "user", "content": "B2"}]},
        )
        assert chat.status_code == 400, chat.text
    post(server.base_url, "/query/data", {"query": "B2", "conversation_history": JOKE})
    log = "\n".join(server.log_tail(100_000).splitlines()[before:])
    refusals = [line for line in log.splitlines() if "short reply refused as too short" in line]
    assert len(refusals) == 3, log
    assert all(line.startswith("INFO: lightrag_resolve:") and "reason=" in line for line in refusals)
    assert "Traceback" not in log and "Ollama chat error" not in log and "Error processing data query" not in log, log
    assert "B2" not in log  # no visitor text above DEBUG



def test_bypass_is_never_resolved(server: RunningServer, llm: FakeLLMEndpoint):
    since = len(llm.calls)
    response = post(server.base_url, "/query", {"query": "B1", "mode": "bypass", "conversation_history": GERMAN})
    assert response.status_code == 200, response.text
    assert llm.roles()[since:] == ["answer"]


# ---- bad input -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/query", {"query": "Which level?", "mode": "everything"}, 422),
        ("/query/data", {"query": "Which level?", "mode": "everything"}, 400),
        ("/query", {"query": "B1", "conversation_history": "not a list"}, 422),
        ("/query", {"query": "B1", "conversation_history": [{"role": "user"}]}, 422),
        ("/query/data", {"query": "B1", "conversation_history": [{"content": "hi"}]}, 400),
        ("/query/stream", {"query": "B1", "conversation_history": [{"role": "user", "content": 3}]}, 422),
        ("/api/chat", {"model": "m", "messages": [*GERMAN]}, 400),  # the last message is not the user's
        ("/api/chat", {"model": "m", "messages": "B1"}, 400),
    ],
)
def test_bad_input_gets_lightrags_own_4xx(server: RunningServer, path: str, body: dict[str, Any], status: int):
    response = post(server.base_url, path, body)
    assert response.status_code == status, response.text


# ---- no state ------------------------------------------------------------------


def test_the_same_reply_resolves_from_its_own_history_each_time(server: RunningServer):
    """Nothing is remembered between requests: each turn carries the conversation it belongs to."""
    results = []
    for history, reply in ((GERMAN, "B1"), (OFFERS, "B1"), (GERMAN, "B1"), (JOKE, "B1")):
        response = post(server.base_url, "/query/data", {"query": reply, "mode": "local", "conversation_history": history})
        results.append((response.status_code, response.json().get("metadata", {}).get("keywords", {}).get("low_level")))
    assert results == [(200, ["German B1"]), (200, ["Offre Santé"]), (200, ["German B1"]), (400, None)]


def test_with_progress_events_an_unresolved_short_reply_is_refused_inside_the_stream(server: RunningServer):
    """The one place the refusal is not LightRAG's 422: /query/stream has begun its 200 before the core decides.

    LightRAG itself reports every core-side failure of this stream the same way (an ``error`` line).
    """
    body = {"query": "B2", "conversation_history": JOKE, "include_progress": True}
    response = post(server.base_url, "/query/stream", body)
    assert response.status_code == 200
    errors = [line for line in response.text.splitlines() if '"error"' in line]
    assert len(errors) == 1 and "too short" in errors[0]
    resolved = post(server.base_url, "/query/stream", {**body, "query": "B1", "conversation_history": GERMAN})
    assert resolved.status_code == 200 and "An answer" in resolved.text and '"error"' not in resolved.text


def test_the_api_schema_still_builds_and_names_lightrags_request_model(server: RunningServer):
    import httpx

    response = httpx.get(f"{server.base_url}/openapi.json", timeout=30)
    assert response.status_code == 200
    schemas = response.json()["components"]["schemas"]
    assert "QueryRequest" in schemas and "conversation_history" in schemas["QueryRequest"]["properties"]
