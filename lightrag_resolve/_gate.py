"""The gate of contract §4: resolve only what cannot be searched as written."""

from __future__ import annotations

__all__ = ["DEFAULT_MAX_RESOLVE_WORDS", "should_resolve"]

DEFAULT_MAX_RESOLVE_WORDS = 4


def should_resolve(query: str, max_words: int = DEFAULT_MAX_RESOLVE_WORDS) -> bool:
    """Whether ``query`` is a short reply that needs the conversation to mean anything.

    True for a non-empty message of at most ``max_words`` words that does not
    end with ``?``. A question that stands on its own is never resolved: a
    model asked to resolve it always invents a frame, and an invented frame is
    worse than none.
    """
    if not isinstance(query, str):
        raise TypeError(f"query must be a str, got {type(query).__name__}")
    stripped = query.strip()
    if not stripped or stripped.endswith("?"):
        return False
    return len(stripped.split()) <= max_words
