"""An OpenAI-compatible chat endpoint as an LLM function with LightRAG's signature.

``openai_llm(model)`` returns ``async f(prompt, system_prompt=None, **kwargs) -> str`` for the resolver or LightRAG's
``llm_model_func``: a plain function, which LightRAG's deep copy of its fields on every query copies by reference. Its
HTTP client is made per event loop and process: connections belong to the loop that opened them, and a gunicorn worker
forked after preloading must not share its parent's. It returns a ``CompletionText``: a ``str`` with the reported token
usage, which the resolver's spans record.
"""

from __future__ import annotations

import asyncio
import os
import weakref
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from ._config import LLMFunc

__all__ = ["CompletionText", "Usage", "openai_llm"]

# Forwarded to ``chat.completions.create``; LightRAG's own extras (hashing_kv, enable_cot, stream…) are dropped.
_FORWARDED = frozenset(
    {
        "frequency_penalty",
        "max_completion_tokens",
        "max_tokens",
        "presence_penalty",
        "response_format",
        "seed",
        "stop",
        "temperature",
        "top_p",
    }
)


@dataclass(frozen=True, kw_only=True)
class Usage:
    """Token counts as the endpoint reported them (``None`` when it did not)."""

    input_tokens: int | None
    output_tokens: int | None


class CompletionText(str):
    """The model's text; ``usage`` holds the token counts of the call that produced it."""

    usage: Usage | None

    def __new__(cls, text: str, usage: Usage | None = None) -> CompletionText:
        value = super().__new__(cls, text)
        value.usage = usage
        return value


def _provider(base_url: str | None) -> str | None:
    """``openai`` for OpenAI's own API; unknown (``None``) for another compatible server."""
    if base_url is None:
        return "openai"
    host = urlparse(base_url).hostname or ""
    return "openai" if host == "openai.com" or host.endswith(".openai.com") else None


def _messages(prompt: str, system_prompt: str | None, history: Any) -> list[Any]:
    messages: list[Any] = [{"role": "system", "content": system_prompt}] if system_prompt else []
    if isinstance(history, list):
        messages += [m for m in history if isinstance(m, dict) and "role" in m and "content" in m]
    messages.append({"role": "user", "content": prompt})
    return messages


def _usage(response: Any) -> Usage | None:
    usage = getattr(response, "usage", None)
    if usage is None:
        return None
    return Usage(
        input_tokens=getattr(usage, "prompt_tokens", None), output_tokens=getattr(usage, "completion_tokens", None)
    )


def openai_llm(
    model: str,
    base_url: str | None = None,
    api_key: str | None = None,
    *,
    max_retries: int = 0,
    timeout: float | None = None,
    temperature: float | None = None,
) -> LLMFunc:
    """An LLM function calling ``model`` on an OpenAI-compatible endpoint; ``ValueError`` when OpenAI's API has no key.

    ``base_url`` defaults to ``OPENAI_BASE_URL`` (else OpenAI's API), ``api_key`` to ``OPENAI_API_KEY`` (a custom
    endpoint may run without one). ``max_retries`` is 0 as the resolver's contract is one call, no retry (§5.3); raise
    it for answer generation. ``temperature`` applies to every call that passes none. The function carries
    ``model_name``, ``provider_name`` and ``base_url`` and is marked ``supports_json_schema``: JSON schemas go as
    ``response_format``; once the endpoint answers one with HTTP 400, it and every later one go in JSON mode.
    """
    from openai import AsyncOpenAI, BadRequestError

    if not isinstance(model, str) or not model.strip():
        raise ValueError("a model name is required")
    base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
    api_key = api_key or os.environ.get("OPENAI_API_KEY") or None
    if api_key is None:
        if base_url is None:
            raise ValueError("no API key: set OPENAI_API_KEY, or point OPENAI_BASE_URL at a compatible server")
        api_key = "not-needed"  # local servers (llama.cpp, vLLM, Ollama) ignore it, the client requires one
    schema_refused: list[bool] = []  # set once the endpoint answered a json_schema request with 400
    clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, tuple[int, AsyncOpenAI]] = weakref.WeakKeyDictionary()

    def client() -> AsyncOpenAI:
        loop, pid = asyncio.get_running_loop(), os.getpid()
        made = clients.get(loop)
        if made is None or made[0] != pid:
            made = pid, AsyncOpenAI(api_key=api_key, base_url=base_url, max_retries=max_retries, timeout=timeout)
            clients[loop] = made
        return made[1]

    async def complete(
        prompt: str, system_prompt: str | None = None, history_messages: Any = None, **kwargs: Any
    ) -> str:
        options = {key: value for key, value in kwargs.items() if key in _FORWARDED and value is not None}
        if temperature is not None:
            options.setdefault("temperature", temperature)
        if kwargs.get("keyword_extraction") and "response_format" not in options:
            options["response_format"] = {"type": "json_object"}
        messages = _messages(prompt, system_prompt, history_messages)
        wants_schema = _is_schema(options.get("response_format"))
        if wants_schema and schema_refused:
            options["response_format"] = {"type": "json_object"}
        try:
            response = await client().chat.completions.create(model=model, messages=messages, **options)
        except BadRequestError:
            if not wants_schema or schema_refused:
                raise
            # An endpoint that refuses json_schema gets JSON mode from now on; the prompt still asks for JSON.
            schema_refused.append(True)
            options["response_format"] = {"type": "json_object"}
            response = await client().chat.completions.create(model=model, messages=messages, **options)
        content = response.choices[0].message.content if response.choices else None
        return CompletionText(content or "", _usage(response))

    complete.model_name = model  # type: ignore[attr-defined]
    complete.provider_name = _provider(base_url)  # type: ignore[attr-defined]
    complete.base_url = base_url  # type: ignore[attr-defined]
    complete.supports_json_schema = True  # type: ignore[attr-defined]
    return complete


def _is_schema(response_format: Any) -> bool:
    return isinstance(response_format, dict) and response_format.get("type") == "json_schema"
