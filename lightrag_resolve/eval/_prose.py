"""The ``prose`` arm: the classic condense step, always applied to a follow-up.

Conversational retrieval chains ask a model to restate every follow-up as a
standalone question before searching (LangChain's condense-question prompt is
the best-known form). No gate, no validation: whatever question the model
writes is searched, which is exactly the behaviour contract §4 argues against,
and the reason this arm is measured. Only an empty reply or a model error
falls back to the visitor's words, since there would be nothing to search.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lightrag_resolve import LLMFunc

__all__ = ["CondenseRewriter", "Condensed", "clean_condensed"]

SYSTEM_PROMPT = (
    "Restate the user's follow-up message as one standalone question that someone who has not "
    "read the conversation would understand. Keep the user's language. "
    "Answer with the question alone."
)

_LABEL = re.compile(r"^(?:standalone\s+question|question|rewritten\s+question)\s*:\s*", re.IGNORECASE)
_QUOTES = "\"'`“”‘’«» "


@dataclass(frozen=True, kw_only=True)
class Condensed:
    """The text to search with and its outcome: ``rewritten``, ``same``, ``first_turn``, ``empty`` or ``llm_error``."""

    text: str
    outcome: str
    raw_output: str | None = None


def clean_condensed(reply: Any) -> str:
    """The first non-empty line, without a ``Standalone question:`` label or quotes."""
    if not isinstance(reply, str):
        return ""
    for line in reply.splitlines():
        line = _LABEL.sub("", line.strip()).strip(_QUOTES)
        if line:
            return line
    return ""


@dataclass(frozen=True, kw_only=True)
class CondenseRewriter:
    """Condense every follow-up; ``history_messages=None`` shows the whole conversation."""

    history_messages: int | None = None

    async def rewrite(
        self, query: str, history: Sequence[Mapping[str, str]], llm: LLMFunc
    ) -> Condensed:
        """The standalone question to search with; never raises because of the model."""
        if not history:
            return Condensed(text=query, outcome="first_turn")
        try:
            reply = await llm(self.user_prompt(query, history), system_prompt=SYSTEM_PROMPT)
        except Exception:  # a failed condense step searches the visitor's words
            return Condensed(text=query, outcome="llm_error")
        raw = reply if isinstance(reply, str) else None
        question = clean_condensed(reply)
        if not question:
            return Condensed(text=query, outcome="empty", raw_output=raw)
        if question == query.strip():
            return Condensed(text=query, outcome="same", raw_output=raw)
        return Condensed(text=question, outcome="rewritten", raw_output=raw)

    def user_prompt(self, query: str, history: Sequence[Mapping[str, str]]) -> str:
        """The conversation, then the follow-up, then the cue for the answer."""
        shown = list(history) if self.history_messages is None else list(history)[-self.history_messages :]
        lines = "\n".join(
            f"{'User' if message['role'] == 'user' else 'Assistant'}: {message['content']}" for message in shown
        )
        return f"Conversation:\n{lines}\n\nFollow-up message: {query}\n\nStandalone question:"
