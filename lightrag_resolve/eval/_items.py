"""One evaluation item: a conversation turn and what a good retrieval for it contains.

An item is one JSON object a line::

    {"id", "lang"?, "company_name"?, "mode"?, "history": [{"role", "content"}],
     "query", "turn_class"?, "relevant"?: [document ids], "must_contain"?: [strings],
     "rewrite"?: str, "expect"?: {"decision", "entity"}}

It needs ``relevant`` or ``must_contain`` (or both). Unknown fields are kept
aside in ``extra`` (MTRAG's enrichments, for instance) and otherwise ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lightrag_resolve import should_resolve

from ._errors import EvalError

__all__ = ["DECISIONS", "EVAL_MODES", "TURN_CLASSES", "Item", "ItemError", "derive_turn_class", "parse_item"]

TURN_CLASSES = ("first_turn", "short_reply", "follow_up", "reference")
"""The turn classes of contract §10, in the order reports list them."""

EVAL_MODES = frozenset({"naive", "local", "global", "hybrid", "mix"})
"""LightRAG modes an item may ask for; ``bypass`` retrieves nothing, so it has nothing to judge."""

DECISIONS = frozenset({"resolve", "keep", "ambiguous"})
"""The reference check's verdicts an item can expect (contract §5.3)."""

_ROLES = frozenset({"user", "assistant"})
_KNOWN = frozenset(
    {"id", "lang", "company_name", "mode", "history", "query", "turn_class", "relevant",
     "must_contain", "rewrite", "expect"}
)


class ItemError(EvalError, ValueError):
    """Why one item is malformed; the loader adds the file and line."""


@dataclass(frozen=True, kw_only=True)
class Item:
    """One turn to retrieve for, with its gold standard."""

    id: str
    query: str
    history: tuple[Mapping[str, str], ...]
    turn_class: str
    lang: str | None = None
    company_name: str | None = None
    mode: str | None = None
    relevant: tuple[str, ...] = ()
    must_contain: tuple[str, ...] = ()
    rewrite: str | None = None
    expect_decision: str | None = None
    expect_entity: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def history_list(self) -> list[dict[str, str]]:
        """The history as LightRAG's ``conversation_history`` wants it: a fresh list of dicts."""
        return [{"role": message["role"], "content": message["content"]} for message in self.history]


def derive_turn_class(query: str, history: tuple[Mapping[str, str], ...] | list[Any]) -> str:
    """``first_turn`` without history, ``short_reply`` when the gate passes, else ``follow_up``.

    ``reference`` is never derived: telling a reference from any other
    follow-up needs a person, so datasets that want that class label it.
    """
    if not history:
        return "first_turn"
    return "short_reply" if should_resolve(query) else "follow_up"


def _text(obj: Mapping[str, Any], key: str) -> str | None:
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ItemError(f"{key!r} must be a non-empty string, got {value!r}")
    return value


def _required_text(obj: Mapping[str, Any], key: str) -> str:
    value = _text(obj, key)
    if value is None:
        raise ItemError(f"missing {key!r}")
    return value


def _strings(obj: Mapping[str, Any], key: str) -> tuple[str, ...]:
    value = obj.get(key)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ItemError(f"{key!r} must be a list of non-empty strings")
    return tuple(value)


def _history(obj: Mapping[str, Any]) -> tuple[Mapping[str, str], ...]:
    value = obj.get("history", [])
    if not isinstance(value, list):
        raise ItemError("'history' must be a list of {role, content} objects")
    messages = []
    for index, message in enumerate(value):
        if not isinstance(message, Mapping):
            raise ItemError(f"history[{index}] must be an object")
        role, content = message.get("role"), message.get("content")
        if role not in _ROLES:
            raise ItemError(f"history[{index}].role must be 'user' or 'assistant', got {role!r}")
        if not isinstance(content, str):
            raise ItemError(f"history[{index}].content must be a string")
        messages.append({"role": role, "content": content})
    return tuple(messages)


def _expect(obj: Mapping[str, Any]) -> tuple[str | None, str | None]:
    value = obj.get("expect")
    if value is None:
        return None, None
    if not isinstance(value, Mapping):
        raise ItemError("'expect' must be an object {decision, entity}")
    decision, entity = value.get("decision"), value.get("entity")
    if decision not in DECISIONS:
        raise ItemError(f"expect.decision must be one of {sorted(DECISIONS)}, got {decision!r}")
    if entity is not None and (not isinstance(entity, str) or not entity.strip()):
        raise ItemError("expect.entity must be a non-empty string or null")
    if decision == "resolve" and entity is None:
        raise ItemError("expect.entity is required when expect.decision is 'resolve'")
    return decision, entity


def parse_item(obj: Any) -> Item:
    """Validate one decoded JSON value as an item; raises ``ItemError`` with the reason."""
    if not isinstance(obj, Mapping):
        raise ItemError(f"an item must be a JSON object, got {type(obj).__name__}")
    item_id = _required_text(obj, "id")
    query = _required_text(obj, "query")
    history = _history(obj)
    relevant, must_contain = _strings(obj, "relevant"), _strings(obj, "must_contain")
    if not relevant and not must_contain:
        raise ItemError("an item needs 'relevant' or 'must_contain'")
    mode = _text(obj, "mode")
    if mode is not None and mode not in EVAL_MODES:
        raise ItemError(f"'mode' must be one of {sorted(EVAL_MODES)}, got {mode!r}")
    turn_class = _text(obj, "turn_class") or derive_turn_class(query, history)
    if turn_class not in TURN_CLASSES:
        raise ItemError(f"'turn_class' must be one of {list(TURN_CLASSES)}, got {turn_class!r}")
    if turn_class != "first_turn" and not history:
        raise ItemError(f"a {turn_class!r} item needs a history")
    decision, entity = _expect(obj)
    return Item(
        id=item_id,
        query=query,
        history=history,
        turn_class=turn_class,
        lang=_text(obj, "lang"),
        company_name=_text(obj, "company_name"),
        mode=mode,
        relevant=relevant,
        must_contain=must_contain,
        rewrite=_text(obj, "rewrite"),
        expect_decision=decision,
        expect_entity=entity,
        extra={key: value for key, value in obj.items() if key not in _KNOWN},
    )
