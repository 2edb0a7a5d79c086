"""What a short reply answers: the assistant's question, carried into the retrieval text (contract §5.6).

"Santé", "Yes please" or "Oui, la deuxième" mean nothing to a search engine on
their own; they mean something as the answer to the question the assistant
just asked. When the window ends with an assistant message that invites a
reply, the last words of that message are the reply's context. A message
invites a reply when it asks something, or when its last sentence offers or
requests ("I can send you the guide.", "Dites-moi votre secteur."); and a
reply made only of assent or refusal ("Yes please", "D'accord", "No thanks")
answers the assistant's last message whatever it said. Finding the context
costs no model call, so it also stands when the model fails, times out or
declines, and a reply that answers nothing (the visitor narrowing a topic, as
in information-seeking dialogues) gets none.

The visitor's own message before that question leads the context: the
assistant's question qualifies what the visitor asked ("How much is the
Pivotane Bootcamp?" → "… Which plan is your company on?" → "Horizon"), and
the last words of a long answer often no longer name it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ._text import QUESTION_MARKS, clean_single_line, is_question, visible, word_form

__all__ = ["MAX_CONTEXT_CHARS", "asked_before", "follows_question", "invites_reply", "is_assent", "reply_context"]

MAX_CONTEXT_CHARS = 400
"""Characters of carried context at most, whatever the word count (a text without spaces has one word)."""

_READ_CHARS = MAX_CONTEXT_CHARS * 8
# A question mark ends a sentence even without a space after it (Chinese, Japanese); other marks need one.
# An ASCII "?" with a word, a URL's punctuation or an opening bracket right after it is no sentence end: a
# query string ("docs/containers?topic=…") or a pattern ("(w)w?(?!1)") in a technical answer.
_OTHER_QUESTION_MARKS = re.escape("".join(sorted(QUESTION_MARKS - {"?"})))
_SENTENCE_END = re.compile("(?<=[" + _OTHER_QUESTION_MARKS + r"])\s*|(?<=\?)(?![\w=&%/#+.(-])\s*|(?<=[.!…。！])\s+")


# The words of replies that only agree or decline, English and French ("Yes please", "Sure, go ahead",
# "Oui, volontiers", "Non merci", "Tout à fait"): such a reply answers whatever the assistant said last.
_ASSENT_WORDS = frozenset(
    "yes yeah yep yup sure ok okay alright right fine great perfect please pls thanks thank you no nope nah "
    "go ahead on of course absolutely definitely certainly why not sounds good do it let's lets tell me more "
    "oui ouais si d'accord volontiers bien sûr non merci parfait allez-y vas-y avec plaisir pourquoi pas "
    "certainement tout à fait s'il vous plaît plait svp stp entendu".split()
)
# An offer or a request in the assistant's last sentence invites a reply without a question mark.
_INVITATION = re.compile(
    r"\b(?:let me know|tell me|feel free|if you(?:'d)? (?:like|want|wish)|i can (?!not\b|'t\b)|i could|"
    r"i'd be happy|i would be happy|just say|please (?:choose|pick|select|confirm|specify)|"
    r"dites-moi|indiquez|précisez|je peux|je pourrais|je vous propose|si vous (?:le )?(?:souhaitez|voulez)|"
    r"n'hésitez pas|faites-moi savoir|choisissez)"
)
_SENTENCE_WORD = re.compile(r"[^\W\d_]+(?:['-][^\W\d_]+)*")


def is_assent(reply: str) -> bool:
    """Whether ``reply`` only agrees or declines ("Yes please", "Oui, volontiers", "No thanks")."""
    words = _SENTENCE_WORD.findall(word_form(visible(reply)))
    return bool(words) and all(word in _ASSENT_WORDS for word in words)


def invites_reply(text: str) -> bool:
    """Whether ``text`` asks something (``asks_something``) or its last sentence offers or requests."""
    if asks_something(text):
        return True
    sentences = [s for s in _SENTENCE_END.split(text.strip()) if s.strip()]
    last = word_form(sentences[-1]) if sentences else ""
    return _INVITATION.search(last) is not None


def asks_something(text: str) -> bool:
    """Whether one of the sentences of ``text`` is a question, in any script (``is_question``)."""
    return any(is_question(sentence) for sentence in _SENTENCE_END.split(text))


def _tail(text: str, max_words: int) -> str:
    """The last ``max_words`` words of ``text``, on one line, at most ``MAX_CONTEXT_CHARS`` characters."""
    words = clean_single_line(text).split()[-max_words:]
    line = " ".join(words)
    if len(line) > MAX_CONTEXT_CHARS:
        line = line[-MAX_CONTEXT_CHARS:]
        space = line.find(" ")
        line = line[space + 1 :] if 0 <= space < MAX_CONTEXT_CHARS // 2 else line
    return line.strip()


def _asked(history: Sequence[tuple[str, str]], reply: str) -> str | None:
    """The end of the window's last message when the assistant wrote it and ``reply`` answers it.

    ``reply`` answers it when the message invites a reply (``invites_reply``)
    or when ``reply`` only agrees or declines (``is_assent``).
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

    Only the window's last message counts, and only when the assistant wrote
    it and the reply answers it (``_asked``). The context is its last
    ``max_words`` words (``max_words`` of 0 turns this off), led by the last
    ``max_words`` words of the visitor's message just before it when the
    window holds one (``asked_before``). Only the end of a huge message is
    read, and each part has at most ``MAX_CONTEXT_CHARS`` characters.
    """
    if max_words < 1:
        return None
    tail = _asked(history, reply)
    if tail is None:
        return None
    answered = _tail(tail, max_words)
    if not answered:
        return None
    before = asked_before(history)
    lead = _tail(before[-_READ_CHARS:], max_words) if before else ""
    return f"{lead} {answered}" if lead else answered


def asked_before(history: Sequence[tuple[str, str]]) -> str | None:
    """The visitor's message just before the window's last message, when the visitor wrote it; else ``None``."""
    if len(history) < 2:
        return None
    role, content = history[-2]
    return content if role == "user" and isinstance(content, str) and content.strip() else None
