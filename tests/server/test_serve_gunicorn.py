"""``lightrag-resolve serve-gunicorn --workers 2``: every worker resolves, and conversations never mix.

The resolver keeps no per-conversation state: each request carries its own
history, so any worker can serve any turn. Two conversations are interleaved
concurrently until both workers have resolved turns (the fake endpoint tells
which process asked), and every answer must match its own conversation.
"""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fake_llm_endpoint import fake_llm_endpoint, kb_script
from harness import REQUEST_TIMEOUT, insert_kb, require_server_deps, running_server, server_env

pytestmark = pytest.mark.server

CONVERSATIONS = {
    "german": (
        [
            {"role": "user", "content": "Which German courses do you run?"},
            {"role": "assistant", "content": "We teach German A1 and German B1. Which level?"},
        ],
        "B1",
        ["German B1"],
    ),
    "offers": (
        [
            {"role": "user", "content": "Quelles offres avez-vous ?"},
            {"role": "assistant", "content": "Nous avons une offre Santé et une offre BTP. Quel secteur ?"},
        ],
        "Santé",
        ["Offre Santé"],  # the resolver's "Vitalis" is named nowhere in the conversation: dropped
    ),
    "pulse": (
        [
            {"role": "user", "content": "Do you sell anything to shops?"},
            {"role": "assistant", "content": "Pulse POS, our loyalty terminal. Want the details?"},
        ],
        "Yes please",
        ["Pulse POS"],
    ),
}
MAX_ROUNDS = 6


def _ask(base_url: str, name: str) -> tuple[str, int, Any]:
    import httpx

    history, reply, _ = CONVERSATIONS[name]
    # A fresh connection per request, so the kernel may hand it to either worker.
    with httpx.Client(timeout=REQUEST_TIMEOUT, headers={"Connection": "close"}) as client:
        response = client.post(
            f"{base_url}/query/data", json={"query": reply, "mode": "hybrid", "conversation_history": history}
        )
    body = response.json()
    return name, response.status_code, body.get("metadata", {})


def test_two_workers_resolve_interleaved_conversations_without_mixing(tmp_path: Path):
    require_server_deps()
    import psutil

    with fake_llm_endpoint(kb_script) as llm:
        env = server_env(llm.base_url, tmp_path)
        with running_server("serve-gunicorn", ["--workers", "2"], env, tmp_path) as server:
            workers = {child.pid for child in psutil.Process(server.process.pid).children(recursive=True)}
            assert len(workers) >= 2, server.log_tail()
            llm.candidate_pids = frozenset(workers)
            insert_kb(server.base_url)
            turns = [name for name in CONVERSATIONS for _ in range(4)]
            answers: list[tuple[str, int, Any]] = []
            resolving_pids: set[int] = set()
            for _ in range(MAX_ROUNDS):
                random.shuffle(turns)
                with ThreadPoolExecutor(max_workers=len(turns)) as pool:
                    answers.extend(pool.map(lambda name: _ask(server.base_url, name), turns))
                resolving_pids = {call.pid for call in llm.calls if call.role == "keywords" and call.pid}
                if len(resolving_pids & workers) >= 2:
                    break

    assert len(resolving_pids & workers) >= 2, f"only workers {resolving_pids} resolved turns; spread not reached"
    assert resolving_pids <= workers  # only the workers ask the resolver, never the gunicorn master
    # No RESOLVER_LLM_*: the resolver used LightRAG's keyword-role LLM (LLM_MODEL).
    assert {call.model for call in llm.calls if call.role == "keywords"} == {"fake-llm"}
    for name, status, metadata in answers:
        _, _, expected = CONVERSATIONS[name]
        assert status == 200, (name, metadata)
        assert metadata["resolution"]["path"] == "keywords", (name, metadata)
        assert metadata["resolution"]["ll_keywords"] == expected, (name, metadata)
        assert metadata["keywords"]["low_level"] == expected, (name, metadata)
