"""The answer writer reads the visitor's words, whatever retrieval searched with (issue 30, contract §5.11).

LightRAG hands its answer model the retrieved text as the user's message, which on a resolved turn ("Orbit CRM: Which
retailers already run it?") the visitor did not type. Given an ``AnswerWords`` (from the ``RetrievalScope``), that
message is the visitor's words instead; the answer cache still keys on the retrieved text, so conversations that
retrieved differently never share an answer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

__all__ = ["AnswerWords", "on_visitors_words"]


@dataclass(frozen=True, kw_only=True)
class AnswerWords:
    """An answer asked for ``retrieved`` is written for ``visitors_words`` instead."""

    retrieved: str
    visitors_words: str


def on_visitors_words(
    answer_llm: Callable[..., Awaitable[Any]] | None, words: AnswerWords | None
) -> Callable[..., Awaitable[Any]] | None:
    """``answer_llm``, whose user message is ``words.visitors_words`` where it is ``words.retrieved``.

    Only the first positional argument (LightRAG's ``user_query``) is replaced, when it is exactly the retrieved text;
    the system prompt and ``history_messages`` pass as they are. Without ``words``, ``answer_llm`` is returned as is.
    """
    if answer_llm is None or words is None:
        return answer_llm

    @wraps(answer_llm)
    async def answer(*args: Any, **kwargs: Any) -> Any:
        if args and args[0] == words.retrieved:
            args = (words.visitors_words, *args[1:])
        return await answer_llm(*args, **kwargs)

    return answer
