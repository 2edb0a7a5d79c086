"""The demo's printout: one readable block per turn, then a one-line tally."""

from __future__ import annotations

from collections.abc import Sequence

from .._resolution import Resolution
from ._turns import Retrieval, TurnReport
from ._understood import understood

__all__ = ["render_summary", "render_turn"]

_WIDTH = 100


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _found(retrieval: Retrieval, relevant: frozenset[str], top: int) -> str:
    if retrieval.error:
        return f"refused by LightRAG: {_clip(retrieval.error, 70)}"
    if not retrieval.documents:
        return f"no document  ({retrieval.seconds:.1f} s)"
    documents = ", ".join(f"{d}{' ✓' if d in relevant else ''}" for d in retrieval.documents[:top])
    return f"{documents}  ({retrieval.seconds:.1f} s)"


_ROUTE = {"keywords": "short reply", "text": "short reply", "reference": "reference check"}

_CALL_FAILURES = frozenset({"timeout", "llm_error"})


def _cost(resolution: Resolution) -> str:
    """Which resolver ran and its time, "no model call" where the code settled the turn; "" when none ran."""
    route = _ROUTE.get(resolution.path)
    failure = resolution.carry_reason or resolution.fallback_reason
    called = resolution.raw_output is not None or failure in _CALL_FAILURES
    if route is None or (not called and resolution.fallback_reason is not None):
        return ""  # a first turn, a follow-up that names its own subject...: nothing ran
    return f"  ({route}, {f'{resolution.elapsed_ms / 1000:.1f} s' if called else 'no model call'})"


def render_turn(report: TurnReport, *, index: int, total: int, top: int = 3) -> str:
    """One turn: the last assistant line, the visitor's words, what was understood, and both retrievals.

    "understood" is the part the resolver added (``understood``), never the
    whole retrieval text; ✓ marks a document the sample lists as relevant.
    """
    item = report.item
    lines = [
        f"── {index}/{total} · {item.get('id', '?')} · {item.get('turn_class', '?')} · mode {report.mode} " + "─" * 20
    ]
    history = item.get("history") or []
    if history:
        last = history[-1]
        lines.append(f" {last['role']:>10}: {_clip(last['content'], _WIDTH - 13)}")
    lines.append(f" {'visitor':>10}: {_clip(item['query'], _WIDTH - 13)}")
    resolution = report.resolution
    lines.append(f" {'understood':>10}: {understood(resolution)}{_cost(resolution)}")
    relevant = report.relevant
    lines.append(f" {'without':>10}: {_found(report.raw, relevant, top)}")
    lines.append(f" {'with':>10}: {_found(report.resolved, relevant, top)}")
    if relevant:
        lines.append(f" {'relevant':>10}: {', '.join(sorted(relevant))}")
    return "\n".join(lines)


def _hit(retrieval: Retrieval, relevant: frozenset[str], top: int) -> bool:
    return bool(relevant & set(retrieval.documents[:top]))


def render_summary(reports: Sequence[TurnReport], *, top: int = 3) -> str:
    """How many turns found a relevant document in the top ``top``, without and with resolution."""
    judged = [r for r in reports if r.relevant]
    raw = sum(_hit(r.raw, r.relevant, top) for r in judged)
    resolved = sum(_hit(r.resolved, r.relevant, top) for r in judged)
    changed = sum(1 for r in reports if r.resolution is not None and r.resolution.changed)
    return (
        f"{len(reports)} turns, {changed} resolved. A relevant document in the top {top}: "
        f"{raw}/{len(judged)} without resolution, {resolved}/{len(judged)} with it."
    )
