"""Names the conversation established, collected in code before any model call.

A small model proposes names of its own, so the window's option lists, quoted terms, capitalised runs and graph names
found verbatim are collected first and shown to it numbered; only a name grounded in them, the reply or the history is
accepted (``_enforce.names``). All is pure and bounded by the window's size, never the graph's (``name_ngrams``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from .._facts import Candidates
from .._languages import LANGUAGES, detect, every_language
from .._languages.pointing import points_back
from .._languages.text import (
    CLIP_MARKER,
    HAN_CHARS,
    HAN_RUN,
    answered_sentence,
    contains_phrase,
    split_elisions,
    split_sentences,
    without_possessive,
)
from .picks import picked_option

__all__ = [
    "MAX_CANDIDATES",
    "Candidates",
    "collect_candidates",
    "name_ngrams",
    "option_lists",
    "picked_option",
]

MAX_CANDIDATES = 12
"""At most this many names are shown to the model: a short list is one it reads."""

MAX_NGRAMS = 1000
"""At most this many window n-grams are looked up in the graph (one batch call)."""

_LETTER = rf"(?:(?![{HAN_CHARS}])[^\W_])"
# A token is a Han run or a word of another script: "提供Kadoro和" holds three (evidence: the languages issue's forms;
# other scripts from the first candidate collector, beside the bundled sample).
_TOKEN = re.compile(rf"[{HAN_CHARS}]+|{_LETTER}(?:(?![{HAN_CHARS}])[\w'’\-.])*{_LETTER}|{_LETTER}", re.UNICODE)
_STOP = frozenset(word for record in LANGUAGES for word in record.name_stop_words)
"""Every shipped language's capitalised function words (never a name's ends), for a text in no detected language."""


def _stop_words(text: str) -> frozenset[str]:
    """The capitalised function words of ``text``'s own language ("Los Angeles" keeps "Los"; from the MTRAG cut)."""
    record = detect(text)
    return record.name_stop_words if record is not None and record.name_stop_words else _STOP


_UNRECORDED_CONNECTORS = frozenset({"da", "van", "&"})
"""Name particles of languages with no record ("da", "van") and "&" (first candidate collector, bundled sample)."""
_CONNECTORS = frozenset(word for record in LANGUAGES for word in record.name_connectors) | _UNRECORDED_CONNECTORS
"""What joins the capitalised words of one name ("Bank of America"): every record's ``name_connectors``."""
# What joins the items of an option list, in every shipped language ("A1, B1 or C1", "A1 oder B1", "医疗、建筑").
_LIST_GAPS = frozenset(gap for record in LANGUAGES for gap in record.list_gaps)
_QUOTED = re.compile(
    r"“([^”\n]{2,60})”|«\s*([^»\n]{2,60}?)\s*»|\"([^\"\n]{2,60})\"|‘([^’\n]{2,60})’|„([^“\n]{2,60})“"
    r"|「([^」\n]{1,60})」|《([^》\n]{1,60})》|『([^』\n]{1,60})』"
)
"""A quoted term in each script's marks: « » “ ” from the first candidate collector (bundled sample), „“ 「」 《》 from the
languages issue's forms."""
_SENTENCE_END = re.compile(r"[.!?;:\n«»\"“”()\[\]¿¡]\s*$")
"""What ends a sentence or quotation before a word (English, French, Spanish; the first collector, bundled sample)."""


_HAN_GAPS = re.compile(
    "|".join(sorted((re.escape(gap) for gap in _LIST_GAPS if not gap.isascii()), key=len, reverse=True))
)
_HAN_CLAUSE = re.compile(
    r"[：:；;。？！?!（）()]|" + every_language(lambda record: record.list_openers).pattern  # "包括", "比如"
)
"""Where a clause of Chinese text ends: a punctuation mark, or a word after which a list begins (``list_openers``)."""
_MAX_HAN_OPTION = 8
"""Characters of a Chinese option at most. Evidence: the languages issue's forms (no evaluation item)."""


@dataclass(frozen=True, kw_only=True)
class _Run:
    """A run of name-like tokens in one message: its text and where it lies."""

    text: str
    start: int
    end: int


def _name_like(token: str) -> bool:
    """Capitalised, all capitals, or letters mixed with digits ("A1", "Tableau360"); from the bundled sample's names."""
    first = token[0]
    has_digit = any(char.isdigit() for char in token)
    has_alpha = any(char.isalpha() for char in token)
    return first.isupper() or (has_digit and has_alpha) or (first.isdigit() and len(token) > 1 and has_alpha)


def _sentence_initial(text: str, start: int) -> bool:
    before = text[:start].rstrip()
    return not before or _SENTENCE_END.search(before) is not None


_CLITIC = re.compile(r"['’]")


def _is_filler(token: str, stop: frozenset[str] = _STOP) -> bool:
    """A function word or connector, alone or with a clitic ("I'm"): no name starts or ends with one.

    Evidence: the first candidate collector (bundled sample); the clitic from the doc2dial cut ("I'm" as a candidate).
    """
    word = token.casefold().strip("'’")
    return word in stop or word in _CONNECTORS or _CLITIC.split(word, maxsplit=1)[0] in stop


def _runs(text: str, *, split_at_stop_words: bool = False) -> list[_Run]:
    """Maximal runs of name-like tokens, joined across "de", "of"… when a name follows (bundled sample's names).

    ``split_at_stop_words``: a function word ends a run where every noun is capitalised (German, languages issue).
    """
    text = split_elisions(text)  # "l'Orbit CRM": the name is "Orbit CRM"
    matches = list(_TOKEN.finditer(text))
    stop = _stop_words(text)
    runs: list[_Run] = []
    index = 0
    while index < len(matches):
        if not _name_like(matches[index].group()):
            index += 1
            continue
        last = index
        probe = index + 1
        while probe < len(matches):
            gap = text[matches[probe - 1].end() : matches[probe].start()]
            if gap.strip() not in {"", "-"}:
                break
            token = matches[probe].group()
            if split_at_stop_words and token.casefold() in stop:
                break
            if _name_like(token):
                last = probe
            elif token.casefold() not in _CONNECTORS:
                break
            probe += 1
        # Function words at either end are not part of the name ("The Kadoro" -> "Kadoro").
        first, final = index, last
        while first <= final and _is_filler(matches[first].group(), stop):
            first += 1
        while final >= first and _is_filler(matches[final].group(), stop):
            final -= 1
        if first <= final:
            start, end = matches[first].start(), matches[final].end()
            runs.append(_Run(text=" ".join(text[start:end].split()), start=start, end=end))
        index = last + 1
    return runs


def _plain_word(run: _Run, text: str, texts: Sequence[str]) -> bool:
    """A single capitalised word that only ever starts a sentence ("Depending"): no name (bundled sample, MTRAG cut)."""
    word = run.text
    if " " in word or word.isupper() or any(char.isdigit() for char in word):
        return False
    if not _sentence_initial(text, run.start):
        return False
    pattern = re.compile(r"(?<!\w)" + re.escape(word) + r"(?!\w)")
    return all(_sentence_initial(other, match.start()) for other in texts for match in pattern.finditer(other))


def _han_option_lists(text: str) -> list[tuple[str, ...]]:
    """The option lists of Chinese text: short items joined by "、", "和", "还是"… in a clause (languages issue's forms)."""
    lists: list[tuple[str, ...]] = []
    for clause in _HAN_CLAUSE.split(text):
        items = [item.strip(" ，,") for item in _HAN_GAPS.split(clause)]
        if len(items) >= 2 and all(0 < len(item) <= _MAX_HAN_OPTION for item in items):
            lists.append(tuple(items))
    return lists


def option_lists(text: str) -> list[tuple[str, ...]]:
    """The option lists of one message, in order: runs joined by ",", "or", "oder", "、"… (from the bundled sample)."""
    if HAN_RUN.search(text) and not any(char.isupper() for char in text):
        return _han_option_lists(text)
    record = detect(text)
    split = record is not None and record.capitalises_nouns
    stop = _stop_words(text)
    runs = [run for run in _runs(text, split_at_stop_words=split) if run.text.casefold() not in stop]
    lists: list[tuple[str, ...]] = []
    chain: list[_Run] = []
    for run in runs:
        if chain and text[chain[-1].end : run.start].strip().casefold() in _LIST_GAPS:
            chain.append(run)
            continue
        if len(chain) >= 2:
            lists.append(tuple(item.text for item in chain))
        chain = [run]
    if len(chain) >= 2:
        lists.append(tuple(item.text for item in chain))
    return lists


def _quoted(text: str) -> list[str]:
    """The quoted terms of ``text`` of at most six words (from the first candidate collector, bundled sample)."""
    found = []
    for match in _QUOTED.finditer(text):
        term = " ".join(next(group for group in match.groups() if group).split())
        if term and len(term.split()) <= 6:
            found.append(term)
    return found


def name_ngrams(texts: Iterable[str], *, max_words: int = 4, limit: int = MAX_NGRAMS) -> list[str]:
    """Every 1- to ``max_words``-word span of ``texts``, first seen first, at most ``limit``: one bounded graph lookup.

    Their number depends on the window, not the graph. Evidence: the first candidate collector; Han pieces of 2 to 6
    characters from the languages issue's forms.
    """
    seen: set[str] = set()
    spans: list[str] = []
    for text in texts:
        for run in HAN_RUN.findall(text):  # written without spaces: every 2- to 6-character piece may be a name
            for start in range(len(run)):
                for width in range(2, min(6, len(run) - start) + 1):
                    span = run[start : start + width]
                    if span not in seen:
                        seen.add(span)
                        spans.append(span)
                        if len(spans) >= limit:
                            return spans
        text = split_elisions(text)
        matches = list(_TOKEN.finditer(text))
        tokens = [match.group() for match in matches]
        stop = _stop_words(text)
        for start in range(len(tokens)):
            for width in range(1, max_words + 1):
                if start + width > len(tokens):
                    break
                if width > 1 and text[matches[start + width - 2].end() : matches[start + width - 1].start()].strip():
                    break  # a name does not run across punctuation
                if _is_filler(tokens[start], stop) or _is_filler(tokens[start + width - 1], stop):
                    continue  # no entity name starts or ends with "the", "de", "avec"…
                span = " ".join(text[matches[start].start() : matches[start + width - 1].end()].split())
                if span not in seen:
                    seen.add(span)
                    spans.append(span)
                    if len(spans) >= limit:
                        return spans
    return spans


def collect_candidates(
    messages: Sequence[tuple[str, str]],
    *,
    known_names: Collection[str] = (),
    company_name: str | None = None,
    limit: int = MAX_CANDIDATES,
) -> Candidates:
    """The candidate names of ``(role, text)`` pairs, oldest first, with where each was said (never the company's).

    Latest message first; within one, graph-known names and option items before capitalised runs and quoted terms, each
    in order of appearance. Evidence: the first candidate collector (bundled sample).
    """
    known = {name.casefold(): name for name in known_names}
    texts = [text for _, text in messages]
    names: list[str] = []
    said: list[int] = []
    seen: set[str] = set()
    back = 0

    def add(name: str) -> None:
        name = without_possessive(name)
        key = name.casefold()
        if key in seen or key in _STOP or (company_name and contains_phrase(company_name, name)):
            return
        if not contains_phrase(texts, name):  # "_Á" yields the token "Á", which no message says as a word
            return
        seen.add(key)
        names.append(name)
        said.append(back)

    for _, text in reversed(messages):
        back += 1
        in_graph = [known[span.casefold()] for span in name_ngrams([text]) if span.casefold() in known]
        listed = [item for options in option_lists(text) for item in options]
        record = detect(text)
        nouns_capitalised = record is not None and record.capitalises_nouns
        capitalised = [
            run.text
            for run in _runs(text, split_at_stop_words=nouns_capitalised)
            if not _plain_word(run, text, texts) and not (nouns_capitalised and _common_noun(run.text))
        ]
        for name in [*in_graph, *listed, *capitalised, *_quoted(text)]:
            add(name)
    options: tuple[str, ...] = ()
    for role, text in reversed(messages):
        if role == "assistant":
            options = _answered_options(text)
            break
    return Candidates(names=tuple(names[:limit]), options=options, said=tuple(said[:limit]))


def _answered_options(text: str) -> tuple[str, ...]:
    """The options ordinals count in: the last list of the question a reply answers, none if that question was clipped.

    When the question only points at them ("Which one?"), the last list of the sentence before it. Evidence: the bundled
    sample's questions (a list further back misled a French plan question) and the languages issue's forms.
    """
    answered = answered_sentence(text)
    if text.endswith(CLIP_MARKER) and split_sentences(text)[-1] == answered:
        return ()  # clipped inside the question: its list may go on, and "the last one" would count short
    lists = option_lists(answered)
    if lists:
        return lists[-1]
    if not points_back(answered):
        return ()
    sentences = split_sentences(text)
    position = sentences.index(answered) if answered in sentences else 0
    lists = option_lists(sentences[position - 1]) if position > 0 else []
    return lists[-1] if lists else ()


def _common_noun(name: str) -> bool:
    """One capitalised word with nothing else of a name's shape: in German, a noun ("Produkte"; from German grammar)."""
    return " " not in name and not name.isupper() and not any(char.isdigit() or char.isupper() for char in name[1:])
