"""What a short reply answers: the assistant's question, carried into the retrieval text (contract §5.6).

"Santé", "Yes please" or "Oui, la deuxième" mean nothing to a search engine on
their own; they mean something as the answer to the question the assistant
just asked. When the window ends with an assistant message that asks
something, the last words of that message are the reply's context. Finding it
costs no model call, so it also stands when the model fails, times out or
declines, and a reply that answers no question (the visitor narrowing a
topic, as in information-seeking dialogues) gets none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ._text import QUESTION_MARKS, clean_single_line, is_question

__all__ = ["MAX_CONTEXT_CHARS", "follows_question", "reply_context"]

MAX_CONTEXT_CHARS = 400
"""Characters of carried context at most, whatever the word count (a text without spaces has one word)."""

_READ_CHARS = MAX_CONTEXT_CHARS * 8
# A question mark ends a sentence even without a space after it (Chinese, Japanese); other marks need one.
_SENTENCE_END = re.compile("(?<=[" + re.escape("".join(QUESTION_MARKS)) + r"])\s*|(?<=[.!…。！])\s+")


def asks_something(text: str) -> bool:
    """Whether one of the sentences of ``text`` is a question, in any script (``is_question``)."""
    return any(is_question(sentence) for sentence in _SENTENCE_END.split(text))


def _tail(text: str, max_words: int) -> str:
    """The last ``max_words`` words of ``text``, on one line, at most ``MAX_CONTEXT_CHARS`` characters."""
    words = clean_single_line(text).split()[-max_words:]
    line = " ".join(words)
    if len(line) > MAX_CONTEXT_CHARS:
        line = line[-MAX_CONTEXT_CHARS:]
        space = line.find(" ")
        line = line[space + 1 :] if 0 <= space < MAX_CONTEXT_CHARS // 2 else line
    return line.strip()


def _asked(history: Sequence[tuple[str, str]]) -> str | None:
    """The end of the window's last message when the assistant wrote it and asked something in it."""
    if not history:
        return None
    role, content = history[-1]
    if role != "assistant" or not isinstance(content, str):
        return None
    tail = content[-_READ_CHARS:]
    return tail if asks_something(tail) else None


def follows_question(history: Sequence[tuple[str, str]]) -> bool:
    """Whether the window (``(role, content)`` pairs, oldest first) ends with the assistant asking something."""
    return _asked(history) is not None


def reply_context(history: Sequence[tuple[str, str]], *, max_words: int) -> str | None:
    """The context of a reply to ``history`` (``(role, content)`` pairs, oldest first), or ``None``.

    Only the window's last message counts, and only when the assistant wrote
    it and asked something in it: the reply answers that message. The context
    is its last ``max_words`` words (``max_words`` of 0 turns this off). Only
    the end of a huge message is read.
    """
    if max_words < 1:
        return None
    tail = _asked(history)
    if tail is None:
        return None
    return _tail(tail, max_words) or None
