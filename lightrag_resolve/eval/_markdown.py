"""The Markdown report of an evaluation: one table per turn class, then the reference check."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ._summary import ALL_CLASSES, ArmRow, Summary

__all__ = ["render_markdown"]

_CLASS_TITLES = {
    "first_turn": "First turns",
    "short_reply": "Short replies",
    "follow_up": "Longer follow-ups",
    "reference": "References",
    ALL_CLASSES: "All turns (pooled; read with the classes above)",
}


def _num(value: float | None, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.{digits}f}"


def _signed(value: float) -> str:
    return "–" if math.isnan(value) else f"{value:+.2f}"


def _hit(row: ArmRow) -> str:
    if len(row.run_hit_rates) > 1:
        low, high = min(row.run_hit_rates), max(row.run_hit_rates)
        return f"{row.hit_rate:.2f} ({low:.2f}–{high:.2f})"
    return _num(row.hit_rate)


def _versus(row: ArmRow) -> tuple[str, str]:
    comparison = row.versus_raw
    if comparison is None:
        return "(baseline)", ""
    delta = f"{_signed(comparison.mean_difference)} [{_signed(comparison.low)}, {_signed(comparison.high)}]"
    return delta, f"{comparison.wins}/{comparison.losses}/{comparison.ties}"


def _table(rows: list[ArmRow], confidence: float) -> list[str]:
    pct = f"{confidence * 100:g}%"
    lines = [
        f"| arm | items | hit rate (runs) | Δ vs raw [{pct} CI] | W/L/T | recall@k | nDCG@10 | LLM calls | prompt tokens | latency ms | errors |",
        "|---|---:|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        delta, wlt = _versus(row)
        lines.append(
            f"| {row.arm} | {row.items} | {_hit(row)} | {delta} | {wlt} | {_num(row.recall)} | {_num(row.ndcg)} "
            f"| {row.llm_calls:.2f} | {row.prompt_tokens:.0f} | {row.latency_ms:.0f} | {row.errors} |"
        )
    return lines


def _outcomes(summary: Summary) -> list[str]:
    lines = ["## What the rewriting arms did (all turns)", "", "| arm | outcomes (count of turns × runs) |", "|---|---|"]
    for row in summary.rows:
        if row.turn_class == ALL_CLASSES and row.arm not in {"raw", "oracle"}:
            shown = ", ".join(f"{name} {count}" for name, count in sorted(row.outcomes.items()))
            lines.append(f"| {row.arm} | {shown} |")
    return lines + [""]


def _decisions(summary: Summary) -> list[str]:
    if not summary.decisions:
        return []
    lines = [
        "## Reference check against `expect` (resolve arm)",
        "",
        "| turn class | checks | accuracy | expected->got |",
        "|---|---:|---:|---|",
    ]
    for row in summary.decisions:
        confusion = ", ".join(f"{key} {count}" for key, count in row.confusion.items())
        lines.append(f"| {row.turn_class} | {row.checks} | {_num(row.accuracy)} | {confusion} |")
    return lines + ["", "A check is correct when the decision matches and, for `resolve`, the entity too.", ""]


def _seconds(value: Any) -> str:
    return f"{value:g} s" if isinstance(value, (int, float)) and not isinstance(value, bool) else "?"


def _resolver_line(settings: Mapping[str, Any]) -> list[str]:
    resolver = settings.get("resolver")
    if not isinstance(resolver, Mapping):
        return []
    return [
        f"- resolver timeouts (`resolve` arm): {_seconds(resolver.get('timeout'))} for a short reply's resolution, "
        f"{_seconds(resolver.get('reference_timeout'))} for the reference check (a call that runs out "
        "falls back to the visitor's words)"
    ]


def render_markdown(summary: Summary, header: Mapping[str, Any], *, missing: int = 0) -> str:
    """The report: settings, a table per turn class, the arms' outcomes and the decision accuracy.

    ``missing`` counts the item × arm × run turns not run yet: a partial report says so at the top.
    """
    settings = header.get("settings", {})
    lines = [
        f"# Retrieval evaluation: {header.get('dataset_name', 'dataset')}",
        "",
        f"- items: {header.get('items')}, runs: {summary.runs}, arms: {', '.join(summary.arms)}",
        f"- judge: `{header.get('judge')}`" + (f" ({header['judge_model']})" if header.get("judge_model") else ""),
        f"- LLM: `{header.get('llm_model') or 'unnamed'}`, embedding: `{header.get('embedding_model') or 'unnamed'}`",
        f"- knowledge base: `{header.get('kb_kind')}`, default mode `{settings.get('default_mode')}`, "
        f"recall cut-off k={settings.get('k')}",
        *_resolver_line(settings),
        *(["- model calls are replayed: each distinct call is answered once, so with a deterministic model "
           "every run after the first repeats it (the runs are not independent samples), and replayed "
           "calls cost no model time"] if (header.get("config") or {}).get("replay") else []),
        *([f"- **partial**: {missing} item × arm × run turns were not run; rows cover the turns recorded "
           "(an item's hit rate is over the runs it has)"] if missing else []),
        "",
        "Hit rate: the mean over items of each item's hit rate over the runs (in brackets: the lowest and "
        "highest single-run hit rate). Δ vs raw: the mean paired difference in hit rate, with a seeded "
        "bootstrap interval over items. W/L/T: items where the arm scored above, below or level with raw. "
        "LLM calls, prompt tokens and latency are per turn (latency: rewrite plus retrieval).",
        "",
    ]
    for turn_class in summary.turn_classes:
        rows = [row for row in summary.rows if row.turn_class == turn_class]
        if rows:
            lines += [f"## {_CLASS_TITLES.get(turn_class, turn_class)}", "", *_table(rows, summary.confidence), ""]
    lines += _outcomes(summary)
    lines += _decisions(summary)
    return "\n".join(lines).rstrip() + "\n"
