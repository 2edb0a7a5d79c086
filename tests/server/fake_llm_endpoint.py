"""A fake OpenAI-compatible endpoint on 127.0.0.1, for LightRAG's real server to call.

Named as a fake: it answers ``/v1/chat/completions`` (plain and streamed) from
a script keyed by prompt role (``fakes.role_from_prompt_text``), and ``/v1/embeddings``
with the real, deterministic hashed-trigram embedding of ``fakes``. It records
every chat call with its role and, when given the candidate process ids, the
one that opened the connection, so tests can tell which gunicorn worker asked.
``delays`` (seconds per role) make it a simulated model for load benchmarks.
"""

from __future__ import annotations

import base64
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from fakes import embed_texts, keyword_json, role_from_prompt_text

Script = Callable[[str, str, str], str]
"""(role, system prompt, last user message) -> the reply text."""


@dataclass
class ChatCall:
    role: str
    model: str
    system: str
    user: str
    messages: list[dict[str, Any]]
    pid: int | None


@dataclass
class FakeLLMEndpoint:
    script: Script
    candidate_pids: frozenset[int] = frozenset()
    delays: dict[str, float] = field(default_factory=dict)
    calls: list[ChatCall] = field(default_factory=list)
    base_url: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def roles(self) -> list[str]:
        with self.lock:
            return [call.role for call in self.calls]


def _client_pid(port: int, candidates: frozenset[int]) -> int | None:
    """Which of ``candidates`` holds the client end of a loopback connection."""
    import psutil

    for pid in candidates:
        try:
            connections = psutil.Process(pid).net_connections(kind="tcp")
        except psutil.Error:
            continue
        if any(conn.laddr and conn.laddr.port == port for conn in connections):
            return pid
    return None


def _handler(endpoint: FakeLLMEndpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def _json(self, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            if self.path.endswith("/embeddings"):
                self._embeddings(body)
            elif self.path.endswith("/chat/completions"):
                self._chat(body)
            else:
                self.send_error(404)

        def _embeddings(self, body: dict[str, Any]) -> None:
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            vectors = embed_texts([str(text) for text in texts])
            as_base64 = body.get("encoding_format") == "base64"
            data = [
                {
                    "object": "embedding",
                    "index": i,
                    "embedding": base64.b64encode(vector.tobytes()).decode() if as_base64 else vector.tolist(),
                }
                for i, vector in enumerate(vectors)
            ]
            usage = {"prompt_tokens": 1, "total_tokens": 1}
            self._json({"object": "list", "data": data, "model": body.get("model", "fake"), "usage": usage})

        def _chat(self, body: dict[str, Any]) -> None:
            messages = body.get("messages", [])
            system = next((m["content"] for m in messages if m.get("role") == "system"), "") or ""
            user = messages[-1]["content"] if messages else ""
            user = user if isinstance(user, str) else json.dumps(user)
            role = role_from_prompt_text(user, system)
            pid = _client_pid(self.client_address[1], endpoint.candidate_pids) if role == "keywords" else None
            with endpoint.lock:
                endpoint.calls.append(
                    ChatCall(role=role, model=body.get("model", ""), system=system, user=user, messages=messages, pid=pid)
                )
            text = endpoint.script(role, system, user)
            if endpoint.delays.get(role):
                time.sleep(endpoint.delays[role])  # one thread per connection: calls overlap as on a real endpoint
            if body.get("stream"):
                self._stream(text)
                return
            self._json(
                {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body.get("model", "fake"),
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                }
            )

        def _stream(self, text: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            for piece in (text[: len(text) // 2], text[len(text) // 2 :]):
                chunk = {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": "fake",
                    "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}],
                }
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            self.close_connection = True

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the default 5 refuses connections when several workers call at once


@contextmanager
def fake_llm_endpoint(script: Script, delays: dict[str, float] | None = None) -> Iterator[FakeLLMEndpoint]:
    """Serve ``script`` on a free loopback port for the duration of the block, each role after its delay."""
    endpoint = FakeLLMEndpoint(script=script, delays=dict(delays or {}))
    server = _Server(("127.0.0.1", 0), _handler(endpoint))
    endpoint.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield endpoint
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


# ---- the script the server tests use -----------------------------------------

TOPIC_KEYWORDS = {
    "German": (["German B1"], ["language courses"]),
    "offre": (["Offre Santé", "Vitalis"], ["health offer"]),  # "Vitalis": a name the conversation never gave
    "Pulse": (["Pulse POS"], ["loyalty terminal"]),
}
"""The resolver's answer, by the first topic word found in the conversation it is shown."""

UNRESOLVABLE = "Tell me a joke."
"""A conversation opener after which the scripted resolver answers NONE."""


def lightrag_keywords(user: str) -> str:
    """LightRAG's own keyword extraction, faked: the visitor's query, whole, as both kinds of keyword."""
    match = re.search(r"User Query:\s*(.+)", user)
    words = (match.group(1) if match else "").strip().strip('"') or "query"
    return keyword_json([words], [words])


def kb_script(role: str, system: str, user: str) -> str:
    """Answers for the tests over ``tests/kb.py``: a resolver that reads the topic, LightRAG's own extraction."""
    if role == "keywords":
        if UNRESOLVABLE in user:
            return "NONE"
        for word, (ll, hl) in TOPIC_KEYWORDS.items():
            if word in user:
                return keyword_json(ll, hl)
        return "NONE"
    if role == "reference":
        return "KEEP"
    if role == "text":
        return "NONE"
    if role == "lightrag_keywords":
        return lightrag_keywords(user)
    return "An answer from the context."
