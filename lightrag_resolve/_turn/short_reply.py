"""The gate of contract §4: resolve only what cannot be searched as written."""

from __future__ import annotations

import re

from .._languages import HAN_CHARS_PER_WORD
from .._languages.text import HAN_CHARS, HANGUL_CHARS, KANA_CHARS, is_question, visible

__all__ = ["DEFAULT_MAX_RESOLVE_WORDS", "should_resolve", "word_count"]

DEFAULT_MAX_RESOLVE_WORDS = 4


def should_resolve(query: str, max_words: int = DEFAULT_MAX_RESOLVE_WORDS) -> bool:
    """Whether ``query`` is a short reply that needs the conversation to mean anything.

    True for a non-empty message of at most ``max_words`` visible words (``word_count``) that is no question in any
    script (``is_question``). A question that stands on its own is never resolved: a model asked to resolve it invents a
    frame, worse than none. Evidence: the bundled sample, an evaluation set ("Combien de bureaux avez-vous ?" rewritten
    as office space; contract §4).
    """
    if not isinstance(query, str):
        raise TypeError(f"query must be a str, got {type(query).__name__}")
    words = word_count(query)
    if not words or is_question(query):
        return False
    return words <= max_words


_UNSPACED = re.compile(f"[{KANA_CHARS}{HAN_CHARS}{HANGUL_CHARS}]")
"""Characters of scripts written without spaces between words: Han, kana (and Hangul syllables, counted alike).
Evidence: Han measured (``HAN_CHARS_PER_WORD``); kana and Hangul are counted alike without data of their own."""


def word_count(text: str) -> float:
    """Words in ``text``: space-separated ones, a run without spaces counting ``HAN_CHARS_PER_WORD`` characters a word
    (evidence: jieba's frequency dictionary, ``benchmarks/probes/han_word_length.py``; no evaluation item)."""
    count = 0.0
    for word in visible(text).split():
        unspaced = len(_UNSPACED.findall(word))
        rest = [piece for piece in _UNSPACED.sub(" ", word).split() if any(char.isalnum() for char in piece)]
        count += unspaced / HAN_CHARS_PER_WORD + len(rest) if unspaced else 1
    return count
