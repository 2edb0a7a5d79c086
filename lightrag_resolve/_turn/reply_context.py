"""What a short reply answers: the assistant's question, carried into the retrieval text (contract §5.6).

"Santé" or "Yes please" mean nothing to a search engine alone, only as the answer to what the assistant just asked: when
the window ends with an assistant message that invites a reply, or the reply only assents or refuses, the end of that
message is the reply's context, led by the visitor's message before it; an accepted offer is carried alone. No model
call is made, so the context stands when the model fails, times out or declines; a reply that answers nothing gets none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .._languages import LANGUAGES, detect, every_language
from .._languages.pointing import is_function_word
from .._languages.text import (
    answered_sentence,
    clean_single_line,
    is_question,
    split_sentences,
    visible,
    word_form,
)
from .short_reply import word_count

__all__ = [
    "MAX_CONTEXT_CHARS",
    "accepted_offer",
    "follows_question",
    "invites_reply",
    "is_acceptance",
    "is_assent",
    "reply_context",
]

MAX_CONTEXT_CHARS = 400
"""Characters of carried context at most, whatever the word count (a text without spaces has one word)."""

_READ_CHARS = MAX_CONTEXT_CHARS * 8


# A reply that only agrees or declines ("Yes please", "Ja, gerne", "好的") answers whatever the assistant said last;
# one that declines ("No thanks") or only thanks accepts no offer, while "why not" and its kin accept.
_ASSENT_WORDS = frozenset(word for record in LANGUAGES for word in record.assent)
_DECLINING_WORDS = frozenset(word for record in LANGUAGES for word in record.declining)
_THANKING_WORDS = frozenset(word for record in LANGUAGES for word in record.thanking)


_ACCEPTING_NEGATIONS = every_language(lambda record: record.accepting_negations)
# An offer or a request in the assistant's last sentence invites a reply without a question mark.
_INVITATION = every_language(lambda record: record.inviting)
# A yes to a question that offers ("Shall I tell you…?") asks for what it offers; to any other one it states a fact.
_OFFERING = every_language(lambda record: record.offering)
_SENTENCE_WORD = re.compile(r"[^\W\d_]+(?:['-][^\W\d_]+)*")
# A capital past the first word, letters mixed with digits, or a quoted term name something; an offer that names
# nothing is about the sentence before it (evidence: the languages issue's forms; no evaluation item was read).
_NAMING_BY_SHAPE = re.compile(r"\b[^\W\d_]+\d|\b\d+[^\W\d_]|[«»“”\"「」《》„]|\b[^\W\d_]+[A-ZÀ-ÖØ-Þ]")
_NAMING = re.compile(r"(?<=\S)\s+\S*[A-ZÀ-ÖØ-Þ]|" + _NAMING_BY_SHAPE.pattern)


def _names_something(sentence: str) -> bool:
    """Whether ``sentence`` names something (``_NAMING``); where every noun is capitalised, a capital does not."""
    record = detect(sentence)
    if record is not None and record.capitalises_nouns:
        return _NAMING_BY_SHAPE.search(sentence) is not None
    return _NAMING.search(sentence) is not None


def _names_its_subject(sentence: str) -> bool:
    """Whether ``sentence`` names something or opens with a name ("Kadoro runs offline."; issue 40's hidden set)."""
    if _names_something(sentence):
        return True
    record = detect(sentence)
    first = _SENTENCE_WORD.search(sentence)
    if first is None or (record is not None and record.capitalises_nouns):
        return False
    return first.group()[:1].isupper() and not is_function_word(first.group())


def _reply_words(reply: str) -> list[str]:
    """The words of a reply, as the assent lists are matched: by the Chinese lexicon where it is Chinese."""
    form = word_form(visible(reply))
    record = detect(form)
    if record is not None and not record.spaced:
        return record.words(form)
    return _SENTENCE_WORD.findall(form)


def is_assent(reply: str) -> bool:
    """Whether ``reply`` only agrees or declines ("Yes please", "No thanks"); evidence: the bundled sample's replies."""
    words = _reply_words(reply)
    return bool(words) and all(word in _ASSENT_WORDS for word in words)


def is_acceptance(reply: str) -> bool:
    """Whether ``reply`` only agrees ("Yes please"): it declines nothing and does more than thank (bundled sample)."""
    if not is_assent(reply):
        return False
    form = word_form(visible(reply))
    words = _reply_words(_ACCEPTING_NEGATIONS.sub(" ", form))
    if any(word in _DECLINING_WORDS for word in words):
        return False
    return _ACCEPTING_NEGATIONS.search(form) is not None or any(word not in _THANKING_WORDS for word in words)


def _offer(tail: str) -> str | None:
    """The offer that ends ``tail`` (its last question, else its last sentence), or ``None`` when it asks for a fact.

    One that names nothing is led by the nearest earlier sentence that does, else the one before (evidence: issue 40).
    """
    answered = answered_sentence(tail)
    offering = _OFFERING if is_question(answered) else _INVITATION
    if not answered or not offering.search(word_form(answered)):
        return None
    if _names_something(answered):
        return answered
    sentences = split_sentences(tail)
    position = len(sentences) - 1 - sentences[::-1].index(answered) if answered in sentences else 0
    earlier = sentences[:position]
    naming = [sentence for sentence in earlier if _names_its_subject(sentence)]
    lead = naming[-1] if naming else (earlier[-1] if earlier else None)
    return f"{lead} {answered}" if lead else answered


def accepted_offer(history: Sequence[tuple[str, str]], reply: str) -> str | None:
    """The assistant's offer that ``reply`` accepts ("Shall I tell you which clinics use Pivotane?"), or ``None``.

    A yes to a question asking for a fact accepts no offer. Evidence: the bundled sample's accepted offers.
    """
    if not is_acceptance(reply):
        return None
    tail = _asked(history, reply)
    return _offer(tail) if tail is not None else None


def invites_reply(text: str) -> bool:
    """Whether ``text`` asks something or its last sentence offers or requests; evidence: the bundled sample."""
    if asks_something(text):
        return True
    sentences = split_sentences(text)
    last = word_form(sentences[-1]) if sentences else ""
    return _INVITATION.search(last) is not None


def asks_something(text: str) -> bool:
    """Whether one of the sentences of ``text`` is a question, in any script."""
    return any(is_question(sentence) for sentence in split_sentences(text))


def _tail(text: str, max_words: int) -> str:
    """The whole sentences of ``text`` that hold its last ``max_words`` words, on one line (contract §5.6).

    Front sentences are dropped while over ``MAX_CONTEXT_CHARS``; one longer sentence keeps its end. Evidence: chosen
    on the bundled sample and the multilingual set (docs/findings.md, "Whole sentences of the question").
    """
    chosen: list[str] = []
    words = 0.0
    for sentence in reversed(split_sentences(clean_single_line(text))):
        if words >= max_words:
            break
        chosen.insert(0, sentence)
        words += word_count(sentence)
    while len(chosen) > 1 and len(" ".join(chosen)) > MAX_CONTEXT_CHARS:
        chosen.pop(0)
    line = " ".join(chosen)
    if len(line) > MAX_CONTEXT_CHARS:  # one huge sentence: its end, where the question is
        line = line[-MAX_CONTEXT_CHARS:]
        space = line.find(" ")
        line = line[space + 1 :] if 0 <= space < MAX_CONTEXT_CHARS // 2 else line
    return line.strip()


def _asked(history: Sequence[tuple[str, str]], reply: str) -> str | None:
    """The end of the window's last message when the assistant wrote it and it invites a reply or ``reply`` assents.

    Evidence: the bundled sample, the only data whose assistant asks questions (an evaluation set).
    """
    if not history:
        return None
    role, content = history[-1]
    if role != "assistant" or not isinstance(content, str):
        return None
    tail = content[-_READ_CHARS:]
    return tail if invites_reply(tail) or is_assent(reply) else None


def follows_question(history: Sequence[tuple[str, str]], reply: str = "") -> bool:
    """Whether ``reply`` answers the window's end (``(role, content)`` pairs, oldest first): see ``_asked``."""
    return _asked(history, reply) is not None


def reply_context(history: Sequence[tuple[str, str]], *, max_words: int, reply: str = "") -> str | None:
    """The context of ``reply`` to ``history`` (``(role, content)`` pairs, oldest first), or ``None``.

    The last ``max_words`` words (0: off) of the assistant's last message, led by the visitor's message before it; an
    accepted offer stands alone, as the visitor's earlier question is what the assistant answered (issue 40). Each part
    holds at most ``MAX_CONTEXT_CHARS`` characters, from the end of a huge message.
    """
    if max_words < 1:
        return None
    tail = _asked(history, reply)
    if tail is None:
        return None
    offer = _offer(tail) if is_acceptance(reply) else None  # ``accepted_offer``, on the tail already read
    answered = _tail(offer if offer is not None else tail, max_words)
    if not answered or offer is not None:
        return answered or None
    before = asked_before(history)
    lead = _tail(before[-_READ_CHARS:], max_words) if before else ""
    return f"{lead} {answered}" if lead else answered


def asked_before(history: Sequence[tuple[str, str]]) -> str | None:
    """The visitor's message just before the window's last one, if the visitor wrote it (evidence: bundled sample)."""
    if len(history) < 2:
        return None
    role, content = history[-2]
    return content if role == "user" and isinstance(content, str) and content.strip() else None
