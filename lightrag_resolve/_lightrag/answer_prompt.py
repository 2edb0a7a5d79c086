"""The answer writer reads the visitor's words, whatever retrieval searched with (issue 30, contract §5.11).

A resolved turn is retrieved with the resolved text ("Santé — <the assistant's
question>", "Orbit CRM: Which retailers already run it?"), and LightRAG hands
its answer model that same text as the user's message (``kg_query`` and
``naive_query``: ``user_query = query``). The visitor did not type it. Given an
``AnswerWords`` (the retrieval's ``RetrievalScope``, ``_lightrag.seam``), the
answer model's user message is the visitor's words when it is the retrieved
text; LightRAG's answer cache still keys on the retrieved text (``query``), so
two conversations that retrieved differently never share an answer.
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

    Only the first positional argument (LightRAG's ``user_query``) is replaced,
    and only when it is the retrieved text exactly; the system prompt (the
    retrieved context) and ``history_messages`` (the conversation) pass as they
    are. Without ``words`` the function is returned as it is.
    """
    if answer_llm is None or words is None:
        return answer_llm

    @wraps(answer_llm)
    async def answer(*args: Any, **kwargs: Any) -> Any:
        if args and args[0] == words.retrieved:
            args = (words.visitors_words, *args[1:])
        return await answer_llm(*args, **kwargs)

    return answer
