"""A fake OpenAI-compatible chat server on 127.0.0.1, named as such.

It answers ``POST /v1/chat/completions`` from a script keyed by prompt role
(the same roles as ``fakes.ScriptedLLM``), reports token usage, and records
every request body, so tests run the real ``openai`` client and adapter
without a network.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from fakes import role_from_prompt_text

USAGE = {"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49}


@dataclass
class FakeChatServer:
    """Script (role -> text, or an int HTTP status to fail with) and the recorded requests."""

    replies: dict[str, Any] = field(default_factory=dict)
    requests: list[dict[str, Any]] = field(default_factory=list)
    base_url: str = ""
    refuse_json_schema: bool = False  # answer 400, as servers without structured output do

    def reply_for(self, body: dict[str, Any]) -> Any:
        messages = body.get("messages", [])
        system = next((m["content"] for m in messages if m.get("role") == "system"), None)
        user = messages[-1]["content"] if messages else ""
        return self.replies.get(role_from_prompt_text(user, system), "NONE")


def _handler(server: FakeChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            server.requests.append({"path": self.path, "body": body, "authorization": self.headers.get("Authorization")})
            reply = server.reply_for(body)
            if server.refuse_json_schema and (body.get("response_format") or {}).get("type") == "json_schema":
                reply = 400
            if isinstance(reply, int):
                status, payload = reply, {"error": {"message": "scripted failure", "type": "server_error"}}
            else:
                status, payload = 200, {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body.get("model", ""),
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}],
                    "usage": USAGE,
                }
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def fake_chat_server(replies: dict[str, Any] | None = None, *, refuse_json_schema: bool = False) -> Iterator[FakeChatServer]:
    """Run the server in a thread for the block; ``base_url`` ends in ``/v1``."""
    script = FakeChatServer(replies=dict(replies or {}), refuse_json_schema=refuse_json_schema)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(script))
    script.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield script
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
