"""What the model-free analysis knows of each language, as data: one ``Language`` record a language.

The analysis (the gate, candidate names, option picks, the question or offer a reply answers, words that point back) is
written once over these records. Words are matched in ``word_form``; a phrase pattern is a regular-expression fragment,
matched at word boundaries in a script written with spaces and anywhere in one written without them.

Shipped: English and French (written from the bundled sample and the MTRAG cut), German, Spanish and Simplified Chinese
(written from the forms the languages issue lists, with common synonyms; no evaluation item read). A message in a
language without a record, or one ``detect`` cannot place, gets no model-free shortcut: the model decides.

The records are ``data/<code>.json``, read by ``record.load_language``; each word or pattern field names its source in
``sources``. To add a language, copy the file of a similar one (spaced or not, capitalised nouns or not), translate
every field, write its sources, add its code to ``LANGUAGES`` and run ``tests/test_languages.py`` (every resource
there, sourced and read).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from .record import Language, load_language, phrase_pattern
from .text import HAN_CHARS, KANA_CHARS

__all__ = [
    "HAN_CHARS_PER_WORD",
    "LANGUAGES",
    "UNITS",
    "Language",
    "detect",
    "every_language",
    "language",
    "phrase_pattern",
]

HAN_CHARS_PER_WORD = 1.663
"""Han characters in a running word of Chinese, measured (``benchmarks/probes/han_word_length.py``): the gate
counts words in Han text by it, so a long request written without spaces is never a "short reply"."""

_HAN = re.compile(f"[{HAN_CHARS}]")
_KANA = re.compile(f"[{KANA_CHARS}]")
_LATIN_WORD = re.compile(r"[^\W\d_]+(?:['-][^\W\d_]+)*")
_APART = re.compile(r"['-]")


_DATA = Path(__file__).with_name("data")

LANGUAGES: tuple[Language, ...] = tuple(
    load_language(_DATA / f"{code}.json") for code in ("en", "fr", "de", "es", "zh")
)
"""The shipped languages, in the order a tie in ``detect`` is broken."""

_BY_CODE = {record.code: record for record in LANGUAGES}

UNITS = frozenset(unit for record in LANGUAGES for unit in record.units)
"""Every shipped language's ``units``: a window's only "candidate" that is a unit of measure is no name to point at."""


def language(code: str) -> Language:
    """The shipped record of ``code`` (``en``, ``fr``, ``de``, ``es``, ``zh``)."""
    return _BY_CODE[code]


def every_language(
    fragments: Callable[[Language], Sequence[str]], *, whole_words: bool = False, flags: int = 0
) -> re.Pattern[str]:
    """One pattern of every shipped language's ``fragments``, at word boundaries where its words are apart (at both
    ends with ``whole_words``); a language without such phrases adds none: an empty alternative matches everywhere."""
    parts = [
        phrase_pattern(list(phrases), spaced=record.spaced) + (r"\b" if whole_words and record.spaced else "")
        for record in LANGUAGES
        if (phrases := fragments(record))
    ]
    return re.compile("|".join(parts), flags)


def detect(text: str) -> Language | None:
    """The shipped language of ``text``: Chinese for Han, else most markers hit; ``None`` for kana, a tie or no hit."""
    if _KANA.search(text):
        return None
    if _HAN.search(text):
        return _BY_CODE["zh"]
    words = [part for word in _LATIN_WORD.findall(text.lower().replace("\u2019", "'")) for part in _APART.split(word)]
    hits = Counter(record.code for record in LANGUAGES if record.spaced for word in words if word in record.markers)
    if not hits:
        return None
    ranked = hits.most_common()
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return None
    return _BY_CODE[ranked[0][0]]
