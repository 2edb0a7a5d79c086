"""Names the conversation established, collected in code before any model call.

A small model asked "what does this reply mean?" proposes names of its own;
the checks then reject them, or worse, accept a near miss. So the resolver
first collects, deterministically, the names the history window holds:
option lists ("A1, B1 or C1", "Kadoro or Magazio"), quoted terms, runs of
capitalised words ("Parcours Cerclia", "API Connect") and, where the
instance has a graph, entity names that occur there verbatim. The model is
shown them as a numbered list, and only a name grounded in them, the reply or
the history is accepted (``_enforce.names``).

Everything here is pure and bounded by the size of the window, never by the
size of the knowledge graph: the graph is asked only about the window's own
n-grams (``name_ngrams``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from ._clean_text import answered_sentence, without_possessive
from ._enforce import contains_phrase

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

_TOKEN = re.compile(r"[^\W_][\w'’\-.]*[^\W_]|[^\W_]", re.UNICODE)
# Capitalised function words: never the start or end of a name.
_STOP = frozenset(
    """
    a an and also are as at be both but by can could do does each every for from have hello hi how i if in is it its
    just may most my no not of on or our shall should so some than that the their them then there these they this
    those to tell us we what when where which who why will with would yes you your
    à au aux avec bonjour ce ces cet cette comment dans de des du elle elles en est et il ils je l la le les leur
    leurs ma mais mes mon nos notre nous on ou oui par pas pour pouvez quand que quel quelle quelles quels qui sa
    se si son sont souhaitez ses sur ta te tes ton tous tout toute toutes un une vos votre vous voulez y
    """.split()
)
_CONNECTORS = frozenset({"de", "du", "des", "d", "of", "for", "la", "le", "les", "l", "del", "da", "von", "van", "&"})
_LIST_GAPS = frozenset({",", "or", "and", "et", "ou", ", or", ", and", ", et", ", ou", "/", "ou bien", "or else"})
_QUOTED = re.compile(r"“([^”\n]{2,60})”|«\s*([^»\n]{2,60}?)\s*»|\"([^\"\n]{2,60})\"|‘([^’\n]{2,60})’")
_SENTENCE_END = re.compile(r"[.!?;:\n«»\"“”()\[\]]\s*$")
_ORDINALS: tuple[tuple[re.Pattern[str], int], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), index)
    for pattern, index in (
        (r"\b(?:first|1st|former|premi[eè]re?|1(?:er|re|ère))\b", 0),
        (r"\b(?:second|2nd|deuxi[eè]me|seconde?|2e|2ème)\b", 1),
        (r"\b(?:third|3rd|troisi[eè]me|3e|3ème)\b", 2),
        (r"\b(?:fourth|4th|quatri[eè]me|4e|4ème)\b", 3),
        (r"\b(?:last|latter|derni[eè]re?)\b", -1),
    )
)
_NUMBERED = re.compile(r"(?:\b(?:number|option|no\.?|n°|numéro)\s*|#)(\d{1,2})\b", re.IGNORECASE)


@dataclass(frozen=True, kw_only=True)
class _Run:
    """A run of name-like tokens in one message: its text and where it lies."""

    text: str
    start: int
    end: int


def _name_like(token: str) -> bool:
    """Capitalised, all capitals, or letters mixed with digits ("A1", "Tableau360")."""
    first = token[0]
    has_digit = any(char.isdigit() for char in token)
    has_alpha = any(char.isalpha() for char in token)
    return first.isupper() or (has_digit and has_alpha) or (first.isdigit() and len(token) > 1 and has_alpha)


def _sentence_initial(text: str, start: int) -> bool:
    before = text[:start].rstrip()
    return not before or _SENTENCE_END.search(before) is not None


def _is_filler(token: str) -> bool:
    word = token.casefold().strip("'’")
    return word in _STOP or word in _CONNECTORS


def _runs(text: str) -> list[_Run]:
    """Maximal runs of name-like tokens, joined across "de", "of"… when a name follows."""
    matches = list(_TOKEN.finditer(text))
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
            if _name_like(token):
                last = probe
            elif token.casefold() not in _CONNECTORS:
                break
            probe += 1
        # Function words at either end are not part of the name ("The Kadoro" -> "Kadoro").
        first, final = index, last
        while first <= final and _is_filler(matches[first].group()):
            first += 1
        while final >= first and _is_filler(matches[final].group()):
            final -= 1
        if first <= final:
            start, end = matches[first].start(), matches[final].end()
            runs.append(_Run(text=" ".join(text[start:end].split()), start=start, end=end))
        index = last + 1
    return runs


def _plain_word(run: _Run, text: str, texts: Sequence[str]) -> bool:
    """A single capitalised word that only ever starts a sentence ("Depending", "Tell"): not a name."""
    word = run.text
    if " " in word or word.isupper() or any(char.isdigit() for char in word):
        return False
    if not _sentence_initial(text, run.start):
        return False
    pattern = re.compile(r"(?<!\w)" + re.escape(word) + r"(?!\w)")
    return all(_sentence_initial(other, match.start()) for other in texts for match in pattern.finditer(other))


def option_lists(text: str) -> list[tuple[str, ...]]:
    """The option lists of one message, in order: runs joined by ",", "or", "et", "ou"…"""
    runs = [run for run in _runs(text) if run.text.casefold() not in _STOP]
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
    found = []
    for match in _QUOTED.finditer(text):
        term = " ".join(next(group for group in match.groups() if group).split())
        if term and len(term.split()) <= 6:
            found.append(term)
    return found


def name_ngrams(texts: Iterable[str], *, max_words: int = 4, limit: int = MAX_NGRAMS) -> list[str]:
    """Every 1- to ``max_words``-word span of ``texts``, as written, first seen first, at most ``limit``.

    These are what a graph is asked about: their number depends on the window,
    not on the graph, so the lookup stays one bounded batch call.
    """
    seen: set[str] = set()
    spans: list[str] = []
    for text in texts:
        matches = list(_TOKEN.finditer(text))
        tokens = [match.group() for match in matches]
        for start in range(len(tokens)):
            for width in range(1, max_words + 1):
                if start + width > len(tokens):
                    break
                if width > 1 and text[matches[start + width - 2].end() : matches[start + width - 1].start()].strip():
                    break  # a name does not run across punctuation
                if _is_filler(tokens[start]) or _is_filler(tokens[start + width - 1]):
                    continue  # no entity name starts or ends with "the", "de", "avec"…
                span = " ".join(text[matches[start].start() : matches[start + width - 1].end()].split())
                if span not in seen:
                    seen.add(span)
                    spans.append(span)
                    if len(spans) >= limit:
                        return spans
    return spans


@dataclass(frozen=True, kw_only=True)
class Candidates:
    """The names a turn may be resolved to, and the options the assistant last offered.

    ``names`` are numbered in the prompts in this order: the latest message
    first. ``options`` is the last option list of the question the reply
    answers (the latest assistant message's last question, else its last
    sentence), in its own order, which ordinals ("the second one") count in.
    """

    names: tuple[str, ...] = ()
    options: tuple[str, ...] = ()

    def numbered(self) -> str:
        """The names as the prompts show them: ``1. Kadoro`` a line."""
        return "\n".join(f"{number}. {name}" for number, name in enumerate(self.names, start=1))

    def by_number(self, text: str) -> str | None:
        """The name a bare list number ("2", "#2", "2.") stands for, if it is one."""
        match = re.fullmatch(r"\s*#?(\d{1,2})\.?\s*", text)
        if match is None:
            return None
        number = int(match.group(1))
        return self.names[number - 1] if 1 <= number <= len(self.names) else None

    def mentioned_in(self, text: str) -> tuple[str, ...]:
        """The names ``text`` mentions, in their order; a name inside a longer one it mentions counts once.

        "Parcours Cerclia B1" mentions "Parcours Cerclia" and "B1"; "IBM Cloud
        VPC" mentions "IBM Cloud" and "VPC", not "IBM" as well.
        """
        held = [name for name in self.names if contains_phrase(text, name)]
        return tuple(name for name in held if not any(other != name and contains_phrase(other, name) for other in held))

    def matching(self, name: str) -> str | None:
        """The candidate ``name`` is, contains or is contained in, when exactly one fits."""
        exact = [candidate for candidate in self.names if candidate.casefold() == name.casefold()]
        if exact:
            return exact[0]
        close = [c for c in self.names if contains_phrase(name, c) or contains_phrase(c, name)]
        return close[0] if len(close) == 1 else None


def collect_candidates(
    messages: Sequence[tuple[str, str]],
    *,
    known_names: Collection[str] = (),
    company_name: str | None = None,
    limit: int = MAX_CANDIDATES,
) -> Candidates:
    """The candidate names of a history window (``(role, text)`` pairs, oldest first).

    Order: the latest message first; within a message, graph-known names and
    option-list items before other capitalised runs and quoted terms, each in
    order of appearance. The company's own name is never a candidate.
    """
    known = {name.casefold(): name for name in known_names}
    texts = [text for _, text in messages]
    names: list[str] = []
    seen: set[str] = set()

    def add(name: str) -> None:
        name = without_possessive(name)
        key = name.casefold()
        if key in seen or key in _STOP or (company_name and contains_phrase(company_name, name)):
            return
        if not contains_phrase(texts, name):  # "_Á" yields the token "Á", which no message says as a word
            return
        seen.add(key)
        names.append(name)

    for _, text in reversed(messages):
        in_graph = [known[span.casefold()] for span in name_ngrams([text]) if span.casefold() in known]
        listed = [item for options in option_lists(text) for item in options]
        capitalised = [run.text for run in _runs(text) if not _plain_word(run, text, texts)]
        for name in [*in_graph, *listed, *capitalised, *_quoted(text)]:
            add(name)
    options: tuple[str, ...] = ()
    for role, text in reversed(messages):
        if role == "assistant":
            # Ordinals count in the question the reply answers (``answered_sentence``).
            lists = option_lists(answered_sentence(text))
            options = lists[-1] if lists else ()
            break
    return Candidates(names=tuple(names[:limit]), options=options)


def picked_option(reply: str, candidates: Candidates) -> str | None:
    """The name a short reply picks: the one candidate it names, else the option its ordinal points at.

    "Yes, B1" names B1; "the second one" and "la deuxième" count in the order of
    the options the assistant's last sentence offered. A reply naming several
    candidates, or an ordinal with no such list, picks none.
    """
    named = candidates.mentioned_in(reply)
    if len(named) == 1:
        return named[0]
    options = candidates.options
    if named or not options:
        return None
    numbered = _NUMBERED.search(reply)
    if numbered is not None:
        index = int(numbered.group(1)) - 1
        return options[index] if 0 <= index < len(options) else None
    hits = {index for pattern, index in _ORDINALS if pattern.search(reply)}
    if len(hits) != 1:
        return None
    index = hits.pop()
    return options[index] if -len(options) <= index < len(options) else None
