"""The ``anythingllm`` arm: the query rewriter of AnythingLLM PR #5171, reimplemented.

The pull request (Mintplex-Labs/anything-llm#5171, closed unmerged) rewrites
a follow-up into a standalone search query before vector search. What is
reproduced here, step for step:

* trigger: the chat has history and the message has at most 12 words;
* context: the last 2 turn-pairs (4 messages), assistant messages cut to
  their first 150 words, ``User:``/``Assistant:`` labels;
* the model answers ``UNCHANGED`` for a message that names its own subject;
* the reply is trimmed, ``<think>…</think>`` blocks are removed and only the
  first line is kept;
* three validation layers, each falling back to the visitor's words:
  1. the reply starts with ``UNCHANGED`` (any case), or is empty;
  2. the reply is the message itself (case-insensitive);
  3. no word longer than 3 characters is shared with the message plus the
     context, and (for scripts without spaces) no character above code 127
     is shared either;
* any error of the model: the visitor's words.

The prompt is written anew from the PR's description of it; the JavaScript
string semantics that matter (whitespace splitting, UTF-16 word lengths) are
kept. The PR sent temperature 0.1; so does this arm unless told otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lightrag_resolve import LLMFunc

__all__ = [
    "AnythingLLMRewriter",
    "Rewrite",
    "clean_reply",
    "context_text",
    "should_rewrite",
    "validate_rewrite",
]

_WHITESPACE = re.compile(r"\s+")
_THINK = re.compile(r"<think>[\s\S]*?</think>")

SYSTEM_PROMPT = (
    "You turn a chat user's latest message into a search query that works without the conversation.\n"
    "By default answer UNCHANGED: the message needs no rewriting.\n"
    "Rewrite only a message that cannot be understood without the conversation, such as:\n"
    '- a pronoun with nothing to point to: "Does it work offline?", "Say more about that"\n'
    '- an incomplete reference: "Yes, the second one", "And on Saturdays?"\n'
    '- a demonstrative: "What does that cost?", "Any others like this?"\n'
    "If the message names its own subject or topic, answer UNCHANGED and nothing else.\n"
    "If it needs rewriting, answer with the rewritten query only (at most 15 words), "
    "carrying the main subject from the conversation, in the user's language."
)


@dataclass(frozen=True, kw_only=True)
class Rewrite:
    """The text to search with and why: ``rewritten`` or the reason the message was kept.

    Reasons: ``first_turn``, ``too_long`` (not triggered), ``unchanged``
    (layer 1, ``UNCHANGED`` or empty), ``verbatim`` (layer 2), ``no_overlap``
    (layer 3) and ``llm_error``.
    """

    text: str
    outcome: str
    raw_output: str | None = None


def _js_length(word: str) -> int:
    """A JavaScript string's ``length``: UTF-16 code units, not code points."""
    return len(word.encode("utf-16-le")) // 2


def should_rewrite(query: str, history: Sequence[Any], *, max_words: int = 12) -> bool:
    """The PR's trigger: some history, and at most ``max_words`` whitespace-separated words."""
    if not history:
        return False
    return len(_WHITESPACE.split(query.strip())) <= max_words


def context_text(history: Sequence[Mapping[str, str]], *, turn_pairs: int = 2, assistant_words: int = 150) -> str:
    """The last ``turn_pairs`` pairs of messages, as the PR shows them to the model."""
    lines = []
    for message in list(history)[-turn_pairs * 2 :]:
        content = message["content"]
        if message["role"] == "assistant":
            words = _WHITESPACE.split(content)
            if len(words) > assistant_words:
                content = " ".join(words[:assistant_words]) + "..."
        speaker = "User" if message["role"] == "user" else "Assistant"
        lines.append(f"{speaker}: {content}")
    return "\n".join(lines)


def clean_reply(reply: Any) -> str:
    """Trimmed, reasoning tags removed, first line only; ``""`` for a non-string reply."""
    if not isinstance(reply, str):
        return ""
    return _THINK.sub("", reply.strip()).split("\n")[0].strip()


def _long_words(text: str) -> list[str]:
    return [word for word in _WHITESPACE.split(text.lower()) if _js_length(word) > 3]


def validate_rewrite(rewritten: str, query: str, history_text: str) -> str | None:
    """The PR's three layers: ``None`` when ``rewritten`` may be used, else the layer's reason."""
    if not rewritten or rewritten.upper().startswith("UNCHANGED"):
        return "unchanged"
    if rewritten.strip().lower() == query.strip().lower():
        return "verbatim"
    context_words = set(_long_words(query + " " + history_text))
    if any(word in context_words for word in _long_words(rewritten)):
        return None
    # Scripts written without spaces (CJK, Thai): shared non-ASCII characters count as overlap.
    context_chars = set(query + history_text)
    if any(ord(char) > 127 and char in context_chars for char in rewritten):
        return None
    return "no_overlap"


@dataclass(frozen=True, kw_only=True)
class AnythingLLMRewriter:
    """The PR's rewriter with its three settings (and the temperature it sent)."""

    max_words: int = 12
    turn_pairs: int = 2
    assistant_words: int = 150
    temperature: float | None = 0.1

    def user_prompt(self, query: str, history_text: str) -> str:
        """The conversation, the latest message, and the cue for the answer."""
        return f"Conversation:\n{history_text}\n\nLatest message: {query}\n\nRewritten query:"

    async def rewrite(
        self, query: str, history: Sequence[Mapping[str, str]], llm: LLMFunc
    ) -> Rewrite:
        """The text the PR would search with for this turn; never raises because of the model."""
        if not history:
            return Rewrite(text=query, outcome="first_turn")
        if not should_rewrite(query, history, max_words=self.max_words):
            return Rewrite(text=query, outcome="too_long")
        history_text = context_text(history, turn_pairs=self.turn_pairs, assistant_words=self.assistant_words)
        kwargs = {} if self.temperature is None else {"temperature": self.temperature}
        try:
            reply = await llm(self.user_prompt(query, history_text), system_prompt=SYSTEM_PROMPT, **kwargs)
        except Exception:  # the PR falls back to the original query on any error
            return Rewrite(text=query, outcome="llm_error")
        rewritten = clean_reply(reply)
        raw = reply if isinstance(reply, str) else None
        rejected = validate_rewrite(rewritten, query, history_text)
        if rejected is not None:
            return Rewrite(text=query, outcome=rejected, raw_output=raw)
        return Rewrite(text=rewritten, outcome="rewritten", raw_output=raw)
