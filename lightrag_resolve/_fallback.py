"""The fallback contract (contract §6), decided in one place.

Every path builds its safe ``Resolution`` first: what retrieval gets when
nothing the model says can be used. Every failure then returns that safe
resolution with its reason (``fall_back``), so no path can fail into anything
else. For most paths the safe resolution is the visitor's words, untouched
(``untouched``), and the failure is a *fallback*: ``fallback_reason`` set,
``changed`` false, LightRAG searching exactly what it would without this
library. A short reply that answers the assistant's question keeps that
question (``_short_replies.safe_short_reply``, contract §5.6): its failure is
a *carry*, an outcome of its own ("<reply> — <question>", found in code),
recorded as ``carry_reason`` with no ``fallback_reason``. That choice is made
here and nowhere else.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ._conversation import Turn
from ._resolution import FallbackReason, Resolution, ResolutionPath

__all__ = ["fall_back", "untouched"]


def untouched(turn: Turn, path: ResolutionPath, **record: Any) -> Resolution:
    """The visitor's words, as LightRAG would search them without this library, on ``path``.

    ``record`` adds what the turn's record shows beside them (the model, its
    raw output, the candidates it was shown, a decision).
    """
    return Resolution(query=turn.query, original_query=turn.query, mode=turn.mode, path=path, **record)


def fall_back(safe: Resolution, reason: FallbackReason, **record: Any) -> Resolution:
    """``safe``, what a path retrieves with when it cannot use the model's answer, with why.

    When ``safe`` is the visitor's words, ``reason`` is the ``fallback_reason``;
    when it is a short reply carrying its question, the turn is carried and
    ``reason`` is its ``carry_reason`` (a fallback never changes the query).
    """
    if safe.changed:
        return replace(safe, carry_reason=reason, **record)
    return replace(safe, fallback_reason=reason, **record)
