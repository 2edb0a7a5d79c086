"""The answer writer reads the visitor's words, whatever retrieval searched with (issue 30, contract §5.11).

A resolved turn is retrieved with the resolved text ("Santé — <the assistant's
question>", "Orbit CRM: Which retailers already run it?"), and LightRAG hands
its answer model that same text as the user's message (``kg_query`` and
``naive_query``: ``user_query = query``). The visitor did not type it. While
``answering_with`` is active, in this task's context only, the answer model's
user message is the visitor's words when it is the retrieved text; LightRAG's
answer cache still keys on the retrieved text (``query``), so two
conversations that retrieved differently never share an answer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import wraps
from typing import Any

__all__ = ["answering_with", "on_visitors_words"]


@dataclass(frozen=True)
class _Substitution:
    retrieved: str
    visitors_words: str


_substitution: ContextVar[_Substitution | None] = ContextVar("lightrag_resolve_answer_words", default=None)


@contextmanager
def answering_with(visitors_words: str, *, retrieved: str) -> Iterator[None]:
    """Within this block, an answer asked for ``retrieved`` is written for ``visitors_words`` instead."""
    token = _substitution.set(_Substitution(retrieved=retrieved, visitors_words=visitors_words))
    try:
        yield
    finally:
        _substitution.reset(token)


def on_visitors_words(answer_llm: Callable[..., Awaitable[Any]] | None) -> Callable[..., Awaitable[Any]] | None:
    """``answer_llm``, whose user message is the visitor's words inside ``answering_with``.

    Only the first positional argument (LightRAG's ``user_query``) is replaced,
    and only when it is the retrieved text exactly; the system prompt (the
    retrieved context) and ``history_messages`` (the conversation) pass as they are.
    """
    if answer_llm is None:
        return None

    @wraps(answer_llm)
    async def answer(*args: Any, **kwargs: Any) -> Any:
        substitution = _substitution.get()
        if substitution is not None and args and args[0] == substitution.retrieved:
            args = (substitution.visitors_words, *args[1:])
        return await answer_llm(*args, **kwargs)

    return answer
