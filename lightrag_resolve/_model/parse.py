"""Reading a model's raw answer into a structure, before any invariant is enforced.

Parsers are tolerant about form (code fences, labels, bold markers, a JSON object inside prose) and strict about
meaning: an answer they cannot read is ``None``, which the resolver records as ``unparsable``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from .._enforce import is_none_answer
from .._languages import LANGUAGES
from .._languages.text import clean_single_line

__all__ = ["KeywordAnswer", "ReferenceAnswer", "parse_keyword_answer", "parse_reference_answer"]

_LL_KEYS = ("terms", "low_level_keywords", "ll_keywords", "low_level", "entities")
_HL_KEYS = ("themes", "high_level_keywords", "hl_keywords", "high_level")
"""The compact keyword answer's keys first (issue 42), then LightRAG's and the ones a model without a schema writes."""
_QUERY_KEYS = ("query", "search_query", "text", "rewrite")
_FENCE = re.compile(r"^```(?:json)?", re.IGNORECASE)
_ANSWER_LABEL = "|".join(label for record in LANGUAGES for label in record.answer_labels)
_REFERENCE = re.compile(
    rf"^(?:(?:{_ANSWER_LABEL})\s*:\s*)?(RESOLVE|KEEP|AMBIGUOUS)\b\s*[:\-–—=]?\s*(.*)$",
    re.IGNORECASE,
)
"""The check's one-line verdict, after a label a record's ``answer_labels`` holds ("Answer:", "Réponse :")."""


@dataclass(frozen=True, kw_only=True)
class KeywordAnswer:
    """The two keyword lists and the resolved search text, as the model gave them (any type; cleaned later).

    ``query_raw`` is ``None`` when the answer has none: the grounded low-level keywords then steer the text side.
    """

    ll_raw: Any
    hl_raw: Any
    query_raw: Any = None


@dataclass(frozen=True, kw_only=True)
class ReferenceAnswer:
    """The reference check's answer: a decision and, for RESOLVE, a name (contract §5.3).

    A JSON answer keeps its ``name`` with any decision (a KEEP naming a candidate said what its decision did not:
    ``_decide.outcome``) and its restatement as given (``restatement_raw``, §5.9); a one-line answer has none.
    Keywords a model writes unasked are ignored (the code builds LightRAG's, §7).
    """

    decision: Literal["resolve", "keep", "ambiguous"]
    name: str | None = None
    restatement_raw: Any = None


def _json_object(text: str) -> dict[str, Any] | None:
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        value = json.loads(text[start : end + 1])
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _first(obj: dict[str, Any], keys: tuple[str, ...]) -> Any:
    return next((obj[key] for key in keys if key in obj), None)


def parse_keyword_answer(output: str) -> KeywordAnswer | None:
    """Both keyword lists from a JSON answer under any known key; empty lists for ``NONE``; ``None`` if unreadable."""
    if is_none_answer(output):
        return KeywordAnswer(ll_raw=[], hl_raw=[])
    obj = _json_object(output)
    if obj is None:
        return None
    if not any(key in obj for key in _LL_KEYS + _HL_KEYS):
        return None
    return KeywordAnswer(ll_raw=_first(obj, _LL_KEYS), hl_raw=_first(obj, _HL_KEYS), query_raw=_first(obj, _QUERY_KEYS))


def parse_reference_answer(output: str) -> ReferenceAnswer | None:
    """The check's JSON answer, or ``RESOLVE: <name>``, ``KEEP`` or ``AMBIGUOUS`` from the first non-empty line.

    Markdown emphasis, code fences and quotes around the answer are ignored; a RESOLVE without a name, a JSON answer
    without a decision, or any other first line is unreadable (``None``).
    """
    obj = _json_object(output) if _FENCE.sub("", output.lstrip()).lstrip().startswith("{") else None
    extra: dict[str, Any] = {}
    if obj is not None:
        decision, name = obj.get("decision"), obj.get("name")
        if not isinstance(decision, str):
            return None
        output = f"{decision}: {name}" if isinstance(name, str) and name.strip() else decision
        extra = {"restatement_raw": _first(obj, _QUERY_KEYS)}
    line = clean_single_line(next((line for line in output.splitlines() if clean_single_line(line)), ""))
    line = line.replace("*", "").replace("`", "").strip().strip("_\"'> ").strip()
    match = _REFERENCE.match(line)
    if match is None:
        return None
    decision = match.group(1).lower()
    if decision != "resolve":
        # A JSON answer's name is kept whatever its decision: it may say what the decision did not (§5.3).
        named = match.group(2).strip().strip("_").strip() if obj is not None else ""
        return ReferenceAnswer(decision=decision, name=named or None, **extra)  # type: ignore[arg-type]
    name = match.group(2).strip().strip("_").strip()
    return ReferenceAnswer(decision="resolve", name=name, **extra) if name else None
