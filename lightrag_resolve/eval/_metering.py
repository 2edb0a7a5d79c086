"""Counting the LLM work of each arm: calls, prompt tokens and time, per turn.

``MeteredLLM`` wraps the one LLM function every arm shares (LightRAG's own
keyword extraction included). The harness runs one item×arm at a time and
points the wrapper at that turn's ``Usage`` for the duration, so each call is
charged to the turn that was running when it started. A context variable
would not do: LightRAG runs its LLM calls in long-lived worker tasks that do
not inherit the caller's context.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from lightrag_resolve import LLMFunc

__all__ = ["MeteredLLM", "TokenCounter", "Usage"]


class TokenCounter(Protocol):
    """Anything with LightRAG's ``Tokenizer.encode``."""

    def encode(self, content: str) -> list[int]: ...


@dataclass(kw_only=True)
class Usage:
    """The LLM work charged to one turn of one arm."""

    calls: int = 0
    prompt_tokens: int = 0
    llm_ms: float = 0.0


class MeteredLLM:
    """An LLM function with LightRAG's signature that counts what passes through it."""

    def __init__(self, llm: LLMFunc, tokenizer: TokenCounter) -> None:
        self.llm = llm
        self.__wrapped__ = llm  # lets the resolver see what the wrapped function supports
        self.tokenizer = tokenizer
        self.model_name = getattr(llm, "model_name", None)
        self._usage: Usage | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> MeteredLLM:
        # LightRAG deep-copies its fields (asdict) on every query; like a plain
        # function, the meter must stay one object, or the counts would be lost.
        return self

    @contextmanager
    def charging(self, usage: Usage) -> Iterator[Usage]:
        """Charge every call started inside the block to ``usage``."""
        previous, self._usage = self._usage, usage
        try:
            yield usage
        finally:
            self._usage = previous

    def count_tokens(self, prompt: str, system_prompt: str | None, history_messages: Any) -> int:
        """Tokens of everything the model reads: system prompt, history and prompt."""
        texts = [system_prompt or "", prompt or ""]
        for message in history_messages or []:
            if isinstance(message, dict) and isinstance(message.get("content"), str):
                texts.append(message["content"])
        return sum(len(self.tokenizer.encode(text)) for text in texts if text)

    async def __call__(self, prompt: str, system_prompt: str | None = None, **kwargs: Any) -> Any:
        usage = self._usage
        if usage is not None:
            usage.calls += 1
            usage.prompt_tokens += self.count_tokens(prompt, system_prompt, kwargs.get("history_messages"))
        started = time.perf_counter()
        try:
            return await self.llm(prompt, system_prompt=system_prompt, **kwargs)
        finally:
            if usage is not None:
                usage.llm_ms += (time.perf_counter() - started) * 1000
