"""Whether a longer follow-up points back at the conversation (contract §5.8).

The reference check only helps a message that leans on something the conversation named ("Which retailers run it?");
elsewhere it costs a call while the visitor waits, and a weak model appends a name all the same. So it runs only on a
message holding a pointing word (pronoun, demonstrative, possessive, an elliptical "what about", a word presupposing a
set already named: "other", "lequel", "which is") or a definite article and no name (``unnamed_definite``: "What are
the benefits?"). The word lists are each shipped language's record; a message ``detect`` cannot place is always
checked. Every uncertain case counts as pointing back, so this rule only spares model calls and never adds a name.
Evidence: the bundled sample and the MTRAG cut (docs/findings.md, "Follow-ups that point at nothing"), evaluation sets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from . import HAN_CHARS_PER_WORD, LANGUAGES, Language, detect, phrase_pattern
from .text import HAN_CHARS, HAN_RUN, visible, word_form

__all__ = [
    "content_words",
    "is_function_word",
    "leans_on_conversation",
    "named_before_pointing",
    "points_back",
    "unnamed_definite",
]

_FUNCTION_WORDS = frozenset(
    word
    for record in LANGUAGES
    for group in (record.markers, record.question_words, record.pointers, record.set_pointers, record.function_words)
    for word in group
)
"""Every shipped language's function words: what names nothing, whatever the message's language."""

_ADDRESSING = frozenset(word for record in LANGUAGES for word in record.addressing)
"""Words addressed to the assistant in any shipped language: a message holding one asks about the company."""

# A message with a definite article and at most this many content words, none of them a name, names nothing
# (evidence: the MTRAG cut's short questions, an evaluation set; docs/findings.md).
_MAX_UNNAMED_CONTENT_WORDS = 3
_LATIN_OR_DIGIT = re.compile(r"[A-Za-z0-9]")

_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_LETTERS = re.compile(r"[^\W\d_]+")
_TOKEN = re.compile(r"[^\W_]+(?:['\u2019-][^\W_]+)*")
_PARTS = re.compile(r"['\u2019-]")
_QUOTED = re.compile(r"[\"“”«»]|(?:^|\s)'\w")
_CLAUSE_BREAK = re.compile(r"[,;:.!?¿¡()\[\]«»\"“”，。？！；：]")
"""Punctuation that ends a clause, so an idiom or a pointer is read within one. Evidence: the bundled sample and the
MTRAG cut (evaluation sets); Chinese marks from the languages issue's forms."""


@dataclass(frozen=True)
class _Patterns:
    """One language's phrase patterns, compiled once."""

    not_pointing: re.Pattern[str]
    elliptical: re.Pattern[str]
    object_pronoun: re.Pattern[str] | None
    inversion: re.Pattern[str] | None
    pronominal_which: re.Pattern[str] | None
    formal_address: re.Pattern[str] | None
    addressing_phrase: re.Pattern[str] | None


@cache
def _patterns(record: Language) -> _Patterns:
    def optional(pattern: str | None) -> re.Pattern[str] | None:
        return re.compile(pattern) if pattern else None

    boundary = r"\b" if record.spaced else ""
    return _Patterns(
        not_pointing=re.compile(phrase_pattern(record.not_pointing, spaced=record.spaced) + boundary),
        elliptical=re.compile(r"^\s*" + phrase_pattern(record.elliptical, spaced=False) + boundary),
        object_pronoun=optional(record.object_pronoun),
        inversion=optional(record.extra.get("inversion")),
        pronominal_which=optional(record.extra.get("pronominal_which")),
        formal_address=optional(record.extra.get("formal_address")),
        addressing_phrase=optional(record.extra.get("addressing_phrase")),
    )


def is_function_word(word: str) -> bool:
    """Whether ``word`` is a shipped language's function word ("What", "the"), which names nothing (contract §5.9)."""
    return word_form(word) in _FUNCTION_WORDS


def content_words(message: str) -> tuple[str, ...]:
    """The words of ``message`` that are no function word of a shipped language, in order, each once.

    What a kept follow-up's search is about when every keyword the model gave came from the history; unspaced text is
    split by its record's lexicon. Evidence: issue 40's hidden-set report (keep-type losses on an unseen set).
    """
    text = visible(message)
    record = detect(text)
    words = _unspaced_words(text, record) if record is not None and not record.spaced else _LETTERS.findall(text)
    seen: dict[str, str] = {}
    for word in words:
        if len(word) > 1 and not is_function_word(word):
            seen.setdefault(word.casefold(), word)
    return tuple(seen.values())


_HAN_OR_WORD = re.compile(rf"[{HAN_CHARS}]+|[^\W\d_{HAN_CHARS}]+")


def _unspaced_words(text: str, record: Language) -> list[str]:
    """The words of a text written without spaces: the lexicon's words, each run of characters between them
    ("客户已经" in "哪些客户已经在用它了"), and a word of another script whole ("Tarvo"). Evidence: the
    multilingual set's Chinese follow-ups (an evaluation set), whose kept checks had no words of their own."""
    words: list[str] = []
    for run in _HAN_OR_WORD.findall(text):
        if not HAN_RUN.match(run):
            words.append(run)
            continue
        between = ""
        for piece in record.words(run):
            if len(piece) == 1 and piece not in record.lexicon:
                between += piece
                continue
            words.extend(word for word in (between, piece) if word)
            between = ""
        if between:
            words.append(between)
    return words


def leans_on_conversation(message: str) -> bool:
    """Whether a longer follow-up may need the conversation: a pointing word, or a definite article and no name."""
    return points_back(message) or unnamed_definite(message)


def unnamed_definite(message: str) -> bool:
    """Whether ``message`` asks about "the" something without naming whose ("What are the benefits?").

    True with a definite article, at most three content words, nothing that looks like a name (capital, acronym, digit,
    quote) and no word addressed to the assistant ("you": it asks about the company). Evidence: the MTRAG cut's short
    questions (an evaluation set; docs/findings.md, "A definite article in a short question").
    """
    if not isinstance(message, str):
        raise TypeError(f"message must be a str, got {type(message).__name__}")
    text = visible(message)
    record = detect(text)
    if record is None or _QUOTED.search(text):
        return False  # a language the analysis cannot place: the pointer rule has the model decide
    if not record.spaced:
        return _names_nothing_unspaced(text, record)
    addressing_phrase = _patterns(record).addressing_phrase
    if addressing_phrase is not None and addressing_phrase.search(word_form(text)):
        return False  # "su empresa": the message asks about the company
    content = 0
    definite = record.drops_subject
    for word in _TOKEN.findall(text):
        parts = [part for part in _PARTS.split(word_form(word)) if part]
        definite = definite or parts[0] in record.definite_articles
        if any(char.isdigit() for char in word) or any(part in _ADDRESSING for part in parts):
            return False
        function = is_function_word(word) or all(is_function_word(part) for part in parts)
        if _looks_like_a_name(word, function=function, nouns_capitalised=record.capitalises_nouns):
            return False
        content += not function
    return definite and content <= _MAX_UNNAMED_CONTENT_WORDS


def _names_nothing_unspaced(text: str, record: Language) -> bool:
    """A short question in a language written without spaces that leaves its subject out ("多少钱？").
    Evidence: the languages issue's forms; no evaluation item was read."""
    if _LATIN_OR_DIGIT.search(text):
        return False  # a product name or a number written in Latin letters or digits
    words = record.words(word_form(text))
    if any(word in _ADDRESSING for word in words):
        return False
    named = record.function_words | record.question_words | record.pointers | record.set_pointers
    content = sum(len(word) for word in words if word not in named)
    return content / HAN_CHARS_PER_WORD <= _MAX_UNNAMED_CONTENT_WORDS


def _looks_like_a_name(word: str, *, function: bool, nouns_capitalised: bool = False) -> bool:
    """Whether a part of ``word`` is an acronym ("US", "l'ERP", even "IT") or has a capital and is no function word.

    Where every noun is capitalised (German) only an inner capital counts ("iPhone", "PulsePOS"). Evidence: the MTRAG
    cut's short questions (an evaluation set); German from the languages issue's forms.
    """
    for part in _PARTS.split(word):
        letters = [char for char in part if char.isalpha()]
        if len(letters) >= 2 and all(char.isupper() for char in letters):
            return True
        capitals = part[1:] if nouns_capitalised else part
        if any(char.isupper() for char in capitals) and not (function or is_function_word(part)):
            return True
    return False


def named_before_pointing(message: str, name: str) -> bool:
    """Whether ``message`` names ``name`` before its first pointing word ("How does Kubernetes work and why use it?").

    Then the pronoun takes up the message's own subject: nothing in the conversation restates it (contract §5.9). An
    elliptical opening ("What about…") or an unplaceable pointing word ("l'ont") is never named before. Evidence: the
    MTRAG cut (an evaluation set; docs/findings.md, "Restating what the check cannot name").
    """
    if not isinstance(message, str) or not isinstance(name, str):
        raise TypeError("message and name must be str")
    text = word_form(visible(message))
    record = detect(text)
    wanted = [piece for chunk in _PARTS.split(word_form(visible(name))) for piece in _TOKEN.findall(chunk)]
    if not wanted or record is None or not record.spaced or _patterns(record).elliptical.search(text):
        return False
    pointers = record.pointers | record.set_pointers
    words = [part for word in _TOKEN.findall(text) for part in _PARTS.split(word) if part]
    for position, word in enumerate(words):
        if word in pointers:
            return False
        if words[position : position + len(wanted)] == wanted:
            return any(later in pointers for later in words[position + len(wanted) :])
    return False


def points_back(message: str) -> bool:
    """Whether ``message`` holds a word that may point at something named before; True where ``detect`` places none."""
    if not isinstance(message, str):
        raise TypeError(f"message must be a str, got {type(message).__name__}")
    shown = visible(message)
    record = detect(shown)
    if record is None:
        return True  # a language the analysis cannot place: the model decides
    patterns = _patterns(record)
    if patterns.formal_address is not None:
        shown = patterns.formal_address.sub(" ", shown)
    text = word_form(shown)
    if patterns.addressing_phrase is not None:  # "su empresa": the company, not a thing named before
        text = patterns.addressing_phrase.sub(" ", text)
    if patterns.elliptical.search(text) or (patterns.object_pronoun and patterns.object_pronoun.search(text)):
        return True
    pointers = record.pointers | record.set_pointers
    for clause in _CLAUSE_BREAK.split(patterns.not_pointing.sub(" ", text)):
        if not record.spaced:
            if any(word in pointers for word in record.words(clause)):
                return True
            continue
        words = _WORD.findall(clause)
        for position, word in enumerate(words):
            parts = word.split("-")
            if patterns.inversion is not None and patterns.inversion.match(word) is not None:
                if _inversion_points_back(words[:position], record):
                    return True
                parts = parts[:1]  # "est-il" after a named subject: the pronoun repeats that subject
            if any(part in pointers for part in parts):
                return True
        if patterns.pronominal_which is not None and patterns.pronominal_which.match(" ".join(words)):
            return True
    return False


def _inversion_points_back(before: list[str], record: Language) -> bool:
    """Whether an inverted pronoun stands for something outside the clause (French).

    "Chantio fonctionne-t-il ?" repeats its subject; "Combien coûte-t-il ?" and "Est-il inclus ?" have none before the
    verb, so the pronoun points back. Evidence: the bundled sample (an evaluation set).
    """
    return not before or any(word in record.question_words for word in before)
