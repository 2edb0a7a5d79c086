"""The demo's printout: one readable block per turn, then a one-line tally."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from ._turns import Retrieval, TurnReport

__all__ = ["render_summary", "render_turn"]

_WIDTH = 100


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _found(retrieval: Retrieval, relevant: frozenset[str], top: int) -> str:
    if retrieval.error:
        return f"refused by LightRAG: {_clip(retrieval.error, 70)}"
    if not retrieval.documents and not retrieval.entities:
        return "nothing"
    documents = ", ".join(f"{d}{' ✓' if d in relevant else ''}" for d in retrieval.documents[:top]) or "no chunk"
    entities = ", ".join(retrieval.entities[:top]) or "no entity"
    return f"{documents}  | entities: {_clip(entities, 60)}"


def render_turn(report: TurnReport, *, index: int, total: int, top: int = 3) -> str:
    """One turn: the last assistant line, the visitor's words, the decision, and both retrievals."""
    item = report.item
    lines = [f"── {index}/{total} · {item.get('id', '?')} · {item.get('turn_class', '?')} · mode {report.mode} " + "─" * 20]
    history = item.get("history") or []
    if history:
        last = history[-1]
        lines.append(f"  {last['role']:>9}: {_clip(last['content'], _WIDTH - 13)}")
    lines.append(f"  {'visitor':>9}: {item['query']}")
    resolution = report.resolution
    if resolution is not None:
        facts = [f"path={resolution.path}"]
        if resolution.decision:
            facts.append(f"decision={resolution.decision}")
        facts.append(f"fallback={resolution.fallback_reason or '-'}")
        if resolution.carry_reason:
            facts.append(f"carried={resolution.carry_reason}")
        facts.append(f"{resolution.elapsed_ms / 1000:.1f}s")
        lines.append(f"  {'resolved':>9}: " + "  ".join(facts))
        if resolution.ll_keywords:
            lines.append(f"  {'':>9}  ll={list(resolution.ll_keywords)} hl={list(resolution.hl_keywords)}")
        if resolution.query != resolution.original_query:
            lines.append(f"  {'':>9}  retrieval text: {resolution.query!r}")
    relevant = report.relevant
    lines.append(f"  {'without':>9}: ({report.raw.seconds:.1f}s) {_found(report.raw, relevant, top)}")
    lines.append(f"  {'with':>9}: ({report.resolved.seconds:.1f}s) {_found(report.resolved, relevant, top)}")
    if relevant:
        lines.append(f"  {'relevant':>9}: {', '.join(sorted(relevant))}")
    return "\n".join(textwrap.shorten(line, 400) if len(line) > 400 else line for line in lines)


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
