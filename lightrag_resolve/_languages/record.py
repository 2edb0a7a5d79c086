"""The shape of a language's resources (``Language``), and how its words are found in a text."""

from __future__ import annotations

import json
import re
from dataclasses import MISSING, dataclass, field, fields
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["Language", "load_language", "phrase_pattern", "sourced_fields"]

_LATIN_WORD = re.compile(r"[^\W\d_]+(?:['-][^\W\d_]+)*")


@dataclass(frozen=True, kw_only=True, repr=False)
class Language:
    """The words and phrases one language gives the analysis; every field is filled for a shipped language.

    ``docs/languages.md`` describes each field and what reads it (a test holds the page to every field).
    """

    code: str
    name: str
    source: str = ""
    """What the record was written from (its data, never the evaluation items)."""
    spaced: bool = True
    capitalises_nouns: bool = False
    drops_subject: bool = False
    markers: frozenset[str] = frozenset()
    assent: frozenset[str]
    declining: frozenset[str]
    thanking: frozenset[str]
    accepting_negations: tuple[str, ...]
    offering: tuple[str, ...]
    inviting: tuple[str, ...]
    pointers: frozenset[str]
    set_pointers: frozenset[str]
    not_pointing: tuple[str, ...]
    elliptical: tuple[str, ...]
    object_pronoun: str | None = None
    function_words: frozenset[str]
    question_words: frozenset[str] = frozenset()
    definite_articles: frozenset[str]
    addressing: frozenset[str]
    name_stop_words: frozenset[str]
    list_gaps: frozenset[str]
    ordinals: tuple[str, str, str, str]
    last: str
    negating: tuple[str, ...]
    name_connectors: frozenset[str]
    clause_breaks: tuple[str, ...]
    list_openers: tuple[str, ...]
    list_number_words: tuple[str, ...]
    elisions: frozenset[str]
    units: frozenset[str]
    none_answers: frozenset[str]
    narrating: tuple[str, ...]
    prompt_labels: tuple[str, ...]
    answer_labels: tuple[str, ...]
    query_labels: tuple[str, ...]
    extra: dict[str, str] = field(default_factory=dict, hash=False, compare=False)
    """Patterns one language's grammar needs and no other's (French inversion, English pronominal "which")."""
    sources: dict[str, str] = field(hash=False, compare=False)
    """What each field was written from and whether that is an evaluation set, keyed by ``sourced_fields``."""

    def __repr__(self) -> str:
        return f"Language({self.code!r})"

    def words(self, text: str) -> list[str]:
        """The words of ``text`` (in ``word_form``) as this language's lists are matched: latin words, or
        for a language written without spaces the lexicon's words found in it, longest first."""
        if self.spaced:
            return _LATIN_WORD.findall(text)
        return _segment(text, self.lexicon)

    @property
    def lexicon(self) -> frozenset[str]:
        """Every single word this record lists."""
        return _lexicon(self)


def phrase_pattern(fragments: tuple[str, ...] | list[str], *, spaced: bool) -> str:
    """One alternation of ``fragments``, at word boundaries where words are written apart."""
    body = "|".join(fragments)
    return rf"\b(?:{body})" if spaced else f"(?:{body})"


@cache
def _lexicon(record: Language) -> frozenset[str]:
    words: set[str] = set()
    for value in (
        record.assent,
        record.declining,
        record.thanking,
        record.pointers,
        record.set_pointers,
        record.function_words,
        record.question_words,
        record.definite_articles,
        record.addressing,
        record.name_stop_words,
        record.list_gaps,
    ):
        words |= set(value)
    return frozenset(words)


def _segment(text: str, lexicon: frozenset[str]) -> list[str]:
    """Greedy longest match of ``lexicon`` words in runs of Han text; other characters one word each."""
    longest = max((len(word) for word in lexicon), default=1)
    found: list[str] = []
    position = 0
    while position < len(text):
        char = text[position]
        if not (char.isalnum()):
            position += 1
            continue
        for width in range(min(longest, len(text) - position), 0, -1):
            piece = text[position : position + width]
            if piece in lexicon or width == 1:
                found.append(piece)
                position += width
                break
    return found


_LIST_FIELDS = frozenset({"list_gaps"})
"""Word sets whose items may hold a space (", or", "ou bien"): lists in the data; other word sets are one string."""


def load_language(path: Path) -> Language:
    """The ``Language`` a JSON resource file describes (``_languages/data/<code>.json``).

    Word sets are one space-separated string (except ``_LIST_FIELDS``), phrase patterns lists of regex fragments;
    ``notes`` is for a reader. A missing or unknown field, a word or pattern field without a ``sources`` entry, or an
    entry naming no field is a ``ValueError`` naming the file: a language has every resource, each with its source.
    """
    data = json.loads(path.read_text(encoding="utf-8"))
    data.pop("notes", None)
    known = {spec.name: spec for spec in fields(Language)}
    unknown = set(data) - set(known)
    missing = {name for name, spec in known.items() if spec.default is MISSING and spec.default_factory is MISSING}
    missing -= set(data)
    if unknown or missing:
        raise ValueError(f"{path.name}: unknown fields {sorted(unknown)}, missing fields {sorted(missing)}")
    values: dict[str, Any] = {}
    for name, value in data.items():
        kind = str(known[name].type)
        if kind.startswith("frozenset"):
            values[name] = frozenset(value if name in _LIST_FIELDS else value.split())
        elif kind.startswith("tuple"):
            values[name] = tuple(value)
        else:
            values[name] = value
    record = Language(**values)
    sources = record.sources
    wanted = sourced_fields(record)
    unsourced = wanted - set(sources)
    unknown = set(sources) - wanted - known.keys()
    if unsourced or unknown or not all(isinstance(text, str) and text.strip() for text in sources.values()):
        raise ValueError(
            f"{path.name}: fields without a source {sorted(unsourced)}, sources of no field {sorted(unknown)}"
        )
    return record


_UNSOURCED = frozenset({"code", "name", "source", "sources", "spaced", "capitalises_nouns", "drops_subject", "extra"})
"""Fields holding no words or patterns (name, overall source, grammar switches) or holding them by key (``extra``)."""


def sourced_fields(record: Language) -> frozenset[str]:
    """The fields of ``record`` that must name their source: each non-empty word set or phrase pattern, and each
    pattern of ``extra`` as ``"extra.<key>"``."""
    names = {spec.name for spec in fields(record) if spec.name not in _UNSOURCED and getattr(record, spec.name)}
    return frozenset(names | {f"extra.{key}" for key in record.extra})
