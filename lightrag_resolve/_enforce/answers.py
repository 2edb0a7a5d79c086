"""What a model's text may become: one clean line, never a narration, NONE read as nothing.

The retrieval text always keeps the visitor's words first and what the library adds after them ("<words> — <meaning> —
<context>"), so nothing the visitor typed is lost.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .._languages import LANGUAGES, every_language
from .._languages.text import (
    MAX_QUERY_CHARS,
    clean_single_line,
    clip_chars,
    contains_phrase,
)

__all__ = [
    "QUOTES",
    "answer_line",
    "append_context",
    "append_meaning",
    "enforce_text_query",
    "first_line",
    "is_none_answer",
    "is_prompt_format",
    "is_scaffold",
]


# Narration ("The visitor wants…", "L'utilisateur demande…") is leaked reasoning, not an answer: it never reaches
# retrieval (evidence: the first output checks; the phrases and their sources are the records' ``narrating``).
_SCAFFOLD = every_language(lambda record: record.narrating, whole_words=True, flags=re.IGNORECASE)


# An answer in a prompt's own format (the check's verdicts, the prompts' labels, the JSON keys they ask for) answered
# another question or copied the prompt. A verdict leads with its separator ("RESOLVE: Pulse POS", "Keep -") or is in
# capitals anywhere; "keep" or "resolve" as an ordinary word ("Keep the Horizon plan") is an answer.
_VERDICT_LEAD = re.compile(r"^(?:resolve|keep|ambiguous)\b\s*(?:[:\-–—=]|$)", re.IGNORECASE)
_VERDICT_WORD = re.compile(r"(?<![\w-])(?:RESOLVE|KEEP|AMBIGUOUS|NONE)(?![\w-])")
_PROMPT_LABEL = re.compile(
    r"(?<![\w-])(?:" + "|".join(label for record in LANGUAGES for label in record.prompt_labels) + r")\s*:",
    re.IGNORECASE,
)
_PROMPT_KEY = re.compile(
    r"\b(?:low_level_keywords|high_level_keywords|ll_keywords|hl_keywords)\b"
    r"|[\"'](?:query|decision|name|terms|themes)[\"']\s*:",
    re.IGNORECASE,
)


_NONE_ANSWERS = frozenset(word for record in LANGUAGES for word in record.none_answers) | {"null", "-"}
"""A model's "nothing": every record's ``none_answers``, JSON's ``null`` and a dash. Evidence: the first output
checks, written from the prompts' NONE (no evaluation data recorded)."""


_LABEL = re.compile(
    r"^(?:"
    + "|".join(label for record in LANGUAGES for label in (*record.query_labels, *record.answer_labels))
    + r")\s*:\s*",
    re.IGNORECASE,
)
"""A label before a model's answer ("Query:", "Réponse :"): every record's ``query_labels`` and ``answer_labels``."""


QUOTES = "\"'`“”‘’«» "
_SEPARATORS = ",;:、，；： "
"""What no answer starts or ends with: the local model wrote ``"query":", Bildung"`` (multilingual set, issue 42)."""


def is_none_answer(text: str) -> bool:
    """Whether the model declined (``NONE`` and its equivalents) or said nothing visible."""
    return clean_single_line(text).strip(QUOTES + ".!").casefold() in _NONE_ANSWERS | {""}


def is_scaffold(text: str) -> bool:
    """Whether ``text`` is the model's reasoning or a prompt's own format rather than an answer.

    True when it starts with a digit ("1. The visitor…"), narrates (the records' ``narrating``) or ``is_prompt_format``.
    Every model text that can reach retrieval is held to it. Evidence: the first output checks (no evaluation data
    recorded) and the records.
    """
    stripped = text.strip()
    return stripped[:1].isdigit() or _SCAFFOLD.search(stripped) is not None or is_prompt_format(stripped)


def is_prompt_format(text: str) -> bool:
    """Whether ``text`` carries a prompt's own format: the check's verdict, a label, a JSON key (``_model.prompts``).

    Verdicts leading with a separator or in capitals anywhere (``RESOLVE: <name>``, ``KEEP``, ``AMBIGUOUS``; ``NONE`` in
    capitals), the prompts' labels ("Visitor:"), the answers' JSON keys (``"query":``, ``low_level_keywords``), even
    under Markdown emphasis. Evidence: issue 30's cases (contract §5.1), not evaluation data.
    """
    plain = text.replace("*", "").replace("`", "").strip().strip("_\"'> ").strip()
    return (
        _VERDICT_LEAD.match(plain) is not None
        or _VERDICT_WORD.search(plain) is not None
        or _PROMPT_LABEL.search(plain) is not None
        or _PROMPT_KEY.search(plain) is not None
    )


@dataclass(frozen=True, kw_only=True)
class TextOutcome:
    """A search query to use, or the reason to use the visitor's words."""

    query: str | None
    fallback_reason: str | None


def answer_line(output: str) -> str:
    """A model's answer as one line: its first visible line, cleaned, without a label, quotes or an end separator."""
    return _LABEL.sub("", clean_single_line(first_line(output))).strip(QUOTES).strip(_SEPARATORS).strip(QUOTES)


def first_line(text: str) -> str:
    """The first line with a visible character (a line of NULs or zero-width spaces is empty)."""
    for line in text.splitlines():
        if clean_single_line(line):
            return line.strip()
    return ""


def enforce_text_query(output: Any, *, company_name: str | None, max_words: int) -> TextOutcome:
    """Turn a model's rewrite into a short search query, or refuse it (contract §5.1).

    Order: ``answer_line``; ``NONE``/empty -> ``empty``; a scaffold or prompt format -> ``scaffold``; then capped to
    ``max_words`` words and ``MAX_QUERY_CHARS`` characters, the company name appended inside both caps when missing.
    """
    if not isinstance(output, str):
        return TextOutcome(query=None, fallback_reason="unparsable")
    line = answer_line(output)
    if is_none_answer(line):
        return TextOutcome(query=None, fallback_reason="empty")
    if is_scaffold(line):
        return TextOutcome(query=None, fallback_reason="scaffold")
    query = clip_chars(" ".join(line.split()[:max_words]), MAX_QUERY_CHARS).strip()
    company = clean_single_line(company_name or "")
    if company and not contains_phrase(query, company):
        company_words = company.split()
        words = query.split()[: max(max_words - len(company_words), 0)]
        room = MAX_QUERY_CHARS - len(company) - 1
        head = clip_chars(" ".join(words), room).split() if room > 0 else []
        query = " ".join([*head, *company_words][:max_words])
    if not query:
        return TextOutcome(query=None, fallback_reason="empty")
    return TextOutcome(query=query, fallback_reason=None)


def append_meaning(message: str, meaning: str) -> str:
    """The retrieval text of a resolved short reply: the visitor's words, then what they mean, on one clean line.

    Nothing the visitor typed is lost, and the text-driven parts of retrieval (the vector chunk search, VECTOR chunk
    picking) see the meaning. A meaning that already holds the whole message is used alone.
    """
    message, meaning = clean_single_line(message), clean_single_line(meaning)
    if not meaning:
        return message
    if contains_phrase(meaning, message):
        return meaning
    return f"{message} — {meaning}"


def append_context(text: str, context: str | None) -> str:
    """``text``, then the assistant's question it answers (contract §5.6), unless it already holds it.

    Without a context ``text`` is returned as it is; with one, both go on one clean line as for ``append_meaning``.
    """
    context = clean_single_line(context or "")
    if not context:
        return text
    text = clean_single_line(text)
    if contains_phrase(text, context):
        return text
    return f"{text} — {context}" if text else context
