"""``lightrag-resolve serve --local --sample`` end to end, through the official ``ollama`` client.

The real local models (llama.cpp LLM, e5 embedding, offline tokenizer), the
bundled sample indexed into the working directory at start-up, and no network:
tiktoken's cache is empty and every non-loopback address sits behind a proxy
nobody listens on. A first question, then a short reply with the conversation
so far; the server's log must show the reply resolved. Kept short: ``naive``
mode (one answer call per turn), a small retrieval budget. Slow on a busy CPU:
timeouts are generous.
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import pytest
from harness import CLI, checkout_env, offline_env, require_server_deps, running_server

from lightrag_resolve.local import cache_dir
from lightrag_resolve.sample import load_items

pytestmark = [pytest.mark.local_model, pytest.mark.server]

LLM_TIMEOUT_S = 900
"""LightRAG's per-call LLM timeout for the server: a CPU shared with other jobs answers in minutes."""

FAILED = "No response generated"
"""What LightRAG's chat API answers, with a 200, when the query failed."""


def test_an_ollama_client_chats_with_resolution_on_the_local_models(tmp_path: Path):
    require_server_deps()
    if importlib.util.find_spec("ollama") is None:
        pytest.skip('the official ollama client is missing: pip install -e ".[test]"')
    import ollama

    item = next(item for item in load_items() if item["id"] == "en-short-03")  # "B1" after a Cerclia question
    question = item["history"][0]["content"]
    env = checkout_env(
        {
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
            "LANG": "C.UTF-8",
            "LOG_DIR": str(tmp_path),
            "LIGHTRAG_RESOLVE_CACHE": str(cache_dir()),  # the model file this machine assembled once
            "LLM_TIMEOUT": str(LLM_TIMEOUT_S),
            "TOP_K": "5",
            "CHUNK_TOP_K": "3",
            "MAX_TOTAL_TOKENS": "3000",
            **offline_env(tmp_path),
        }
    )
    with running_server("serve", ["--local", "--sample"], env, tmp_path, launcher=CLI, start_timeout=900) as server:
        assert "bundled sample indexed into" in server.log_tail(400)
        client = ollama.Client(host=server.base_url, timeout=3 * LLM_TIMEOUT_S)
        options = {"num_predict": 32}  # LightRAG's chat API does not pass it on; the local model caps answers at 256

        started = time.monotonic()
        first = client.chat(
            model="lightrag:latest", messages=[{"role": "user", "content": f"/naive {question}"}], options=options
        )
        answer = first.message.content or ""
        first_s = time.monotonic() - started
        assert answer.strip() and answer != FAILED, server.log_tail()

        started = time.monotonic()
        history = [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]
        reply = client.chat(
            model="lightrag:latest",
            messages=[*history, {"role": "user", "content": f"/naive {item['query']}"}],
            options=options,
        )
        reply_s = time.monotonic() - started
        log = server.log_tail(400)
        assert (reply.message.content or "").strip() and reply.message.content != FAILED, log
        assert "resolved turn: path=text mode=naive" in log, log
        assert "Query failed" not in log, log
        print(f"first turn {first_s:.0f} s, resolved reply {reply_s:.0f} s")
