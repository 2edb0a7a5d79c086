"""A dedicated OpenAI-compatible chat endpoint for the resolver, as an LLM function.

Used when ``RESOLVER_LLM_BASE_URL`` (or ``RESOLVER_REFERENCE_LLM_BASE_URL``)
sends resolution to a small model of its own instead of LightRAG's keyword-role
LLM. One call, no retry: the resolver bounds the call with its own timeout and
falls back on any failure (SPEC §6), so a retry would only spend that budget.
"""

from __future__ import annotations

import asyncio
import weakref
from dataclasses import dataclass, field
from typing import Any

__all__ = ["OpenAICompatibleLLM"]

_BACKSTOP_TIMEOUT = 60.0
"""Seconds the HTTP client itself waits; the resolver's own timeout is shorter."""


@dataclass(frozen=True, kw_only=True)
class OpenAICompatibleLLM:
    """An async LLM function with LightRAG's signature over ``/chat/completions``.

    The ``openai`` client is created lazily, once per event loop: under
    gunicorn every worker is a fork and must not share the parent's sockets.
    """

    base_url: str
    model_name: str
    api_key: str | None = None
    _clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = field(
        default_factory=weakref.WeakKeyDictionary, repr=False, compare=False
    )

    def _client(self) -> Any:
        from openai import AsyncOpenAI

        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = AsyncOpenAI(
                base_url=self.base_url,
                # The client refuses a missing key; local endpoints ignore it.
                api_key=self.api_key or "not-needed",
                max_retries=0,
                timeout=_BACKSTOP_TIMEOUT,
            )
            self._clients[loop] = client
        return client

    async def __call__(
        self,
        prompt: str,
        system_prompt: str | None = None,
        history_messages: list[dict[str, Any]] | None = None,
        **_: Any,
    ) -> str:
        """The model's reply to ``prompt``; LightRAG's extra keyword arguments are ignored."""
        messages: list[dict[str, Any]] = []
        if system_prompt:
            messages.append({"role": "system", "content": system_prompt})
        messages.extend(history_messages or [])
        messages.append({"role": "user", "content": prompt})
        response = await self._client().chat.completions.create(
            model=self.model_name, messages=messages, temperature=0
        )
        return response.choices[0].message.content or ""
