"""``ResolvingLightRAG`` through LightRAG's own OpenAI binding, against llama.cpp's OpenAI-compatible server.

The server is llama-cpp-python's (``python -m llama_cpp.server``, its ``server``
extra, which the ``local`` extra installs) serving the ``local`` extra's model
on 127.0.0.1 and a free port; the LLM function is
``lightrag.llm.openai.openai_complete_if_cache`` with a ``base_url``, as
docs/lightrag-bindings.md shows. One short reply and one follow-up that points
back, each in ``mix`` and ``naive`` (turns the code cannot settle without the
model): each is resolved by a call that reached
the server and came back, and the requests the server logged equal the calls
the binding was given, so no call was retried. The embedding is the tests'
hashed-trigram fake: what is tested is the model route, not retrieval.

Slow: run with ``pytest -m local_model`` after ``make test-local``'s install.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from lightrag import QueryParam
from lightrag.llm.openai import openai_complete_if_cache

sys.path.insert(0, str(Path(__file__).parent.parent))

from fakes import hashed_trigram_embedding, offline_tokenizer  # noqa: E402
from lightrag_resolve import ResolverConfig, ResolvingLightRAG  # noqa: E402
from lightrag_resolve.sample import COMPANY_NAME, load_custom_kg, load_items  # noqa: E402

pytestmark = pytest.mark.local_model

SERVER_DEPS = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings")
START_TIMEOUT_S = 300.0  # a model load on a busy 2-core machine
MODEL_ALIAS = "local-qwen"
CHAT_REQUEST = '"POST /v1/chat/completions HTTP/1.1" 200'
"""uvicorn's access-log line for one answered chat request."""

# The model takes seconds per call on a CPU (tens on a busy one): these timeouts bound a hang, not latency.
SLOW_CPU = ResolverConfig(company_name=COMPANY_NAME, timeout=300, reference_timeout=300)


@dataclass
class LlamaServer:
    base_url: str
    log: Path

    def chat_requests(self) -> int:
        return self.log.read_text(encoding="utf-8", errors="replace").count(CHAT_REQUEST)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _ready(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    missing = [name for name in SERVER_DEPS if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"llama.cpp's server needs {', '.join(missing)}: bash scripts/install-local.sh (the local extra)")
    from lightrag_resolve.local import QWEN25_CODER_1_5B, assemble_gguf

    model = assemble_gguf(QWEN25_CODER_1_5B)
    port = _free_port()
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", MODEL_ALIAS]
    command += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096"]
    with log.open("w", encoding="utf-8") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True)
    server = LlamaServer(base_url=f"http://127.0.0.1:{port}/v1", log=log)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _ready(server.base_url):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"llama.cpp's server did not start:\n{log.read_text(errors='replace')[-3000:]}")
            time.sleep(1)
        yield server
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


class CountedCalls:
    """The binding as LightRAG calls it, counting the calls it is given (each may retry inside)."""

    def __init__(self, llm: Any) -> None:
        self.llm, self.calls = llm, 0

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return await self.llm(*args, **kwargs)

    def __deepcopy__(self, memo: dict[int, Any]) -> CountedCalls:
        return self


TURNS = [
    ("en-short-02", "mix", "keywords"),  # "The scheduling one" after the training courses of four products
    ("en-short-02", "naive", "text"),
    ("en-ref-04", "mix", "reference"),  # "How much does it cost per site?": a follow-up that points back
    ("en-ref-04", "naive", "reference"),
]
"""Turns that need the model in both modes: no option picked in code, no sole candidate named in code."""


async def test_a_short_reply_and_a_reference_resolve_through_lightrags_openai_binding(
    llama_server: LlamaServer, tmp_path: Path
) -> None:
    binding = partial(openai_complete_if_cache, MODEL_ALIAS, base_url=llama_server.base_url, api_key="none")
    llm = CountedCalls(binding)
    rag = ResolvingLightRAG(
        working_dir=str(tmp_path),
        workspace=f"binding-{uuid.uuid4().hex[:8]}",
        llm_model_func=llm,
        llm_model_name=MODEL_ALIAS,
        embedding_func=hashed_trigram_embedding(),
        tokenizer=offline_tokenizer(),
        enable_llm_cache=False,
        resolver=SLOW_CPU,
    )
    items = {item["id"]: item for item in load_items()}
    seen: list[str] = []
    await rag.initialize_storages()
    try:
        await rag.ainsert_custom_kg(load_custom_kg())
        for item_id, mode, path in TURNS:
            item = items[item_id]
            calls, requests = llm.calls, llama_server.chat_requests()
            param = QueryParam(mode=mode, conversation_history=item["history"], enable_rerank=False)
            retrieved = await rag.aretrieve(item["query"], param)
            resolution = retrieved.resolution
            made, served = llm.calls - calls, llama_server.chat_requests() - requests
            seen.append(
                f"{item_id} {mode}: {resolution.path} {resolution.entity or resolution.ll_keywords} {made} call(s)"
            )
            assert resolution.path == path, seen
            failure = resolution.fallback_reason or resolution.carry_reason
            assert failure not in {"timeout", "llm_error"}, (seen, resolution.raw_output)  # the server answered
            assert made >= 1, seen  # the binding, not a shortcut in code, resolved the turn
            assert served == made, f"{item_id} {mode}: {served} requests for {made} calls: a call was retried"
    finally:
        await rag.finalize_storages()
    print("\n".join(seen))
