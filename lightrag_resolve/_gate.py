"""The gate of contract §4: resolve only what cannot be searched as written."""

from __future__ import annotations

from ._clean_text import is_question, visible

__all__ = ["DEFAULT_MAX_RESOLVE_WORDS", "should_resolve"]

DEFAULT_MAX_RESOLVE_WORDS = 4


def should_resolve(query: str, max_words: int = DEFAULT_MAX_RESOLVE_WORDS) -> bool:
    """Whether ``query`` is a short reply that needs the conversation to mean anything.

    True for a non-empty message of at most ``max_words`` words that is not a
    question. A question that stands on its own is never resolved: a model
    asked to resolve it always invents a frame, and an invented frame is
    worse than none. A question is recognised in any script (``？``, ``؟``,
    ``;`` in Greek, ...: ``_text.is_question``), past trailing spaces,
    closing quotes and invisible characters; words are counted on the
    visible text, so a message of format characters alone is empty.
    """
    if not isinstance(query, str):
        raise TypeError(f"query must be a str, got {type(query).__name__}")
    words = visible(query).split()
    if not words or is_question(query):
        return False
    return len(words) <= max_words
