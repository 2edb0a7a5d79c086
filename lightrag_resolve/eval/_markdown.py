"""The Markdown report of an evaluation: one table per turn class, the first k documents, then the reference check."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ._first_k import FirstKRow
from ._summary import ALL_CLASSES, AnswerRow, ArmRow, Summary

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


def _hit(row: ArmRow | AnswerRow) -> str:
    if len(row.run_hit_rates) > 1:
        low, high = min(row.run_hit_rates), max(row.run_hit_rates)
        return f"{row.hit_rate:.2f} ({low:.2f}–{high:.2f})"
    return _num(row.hit_rate)


def _versus(row: ArmRow | AnswerRow) -> tuple[str, str]:
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


def _counts(row: FirstKRow) -> str:
    """The paired counts of an arm's first-k row; ``raw``'s row is the baseline, as in the class tables."""
    if row.arm == "raw" or row.pairs is None:
        return "(baseline) | | | |"
    return f"{row.pairs} | {row.raw_relevant} | {row.lost} | {row.gained} | {row.items_losing}"


def _first_k(summary: Summary) -> list[str]:
    """Hit@k beside the relevant documents each arm loses and gains against raw among the first k."""
    if not summary.first_k:
        return []
    k = summary.first_k[0].k
    lines = [
        f"## The first {k} documents: relevant documents lost and gained against raw",
        "",
        f"Hit@{k} counts an item as found when any relevant document is among the first {k}, so an arm that "
        "keeps one of the two relevant documents raw found scores what raw scores. Here each arm's first "
        f"{k} documents are paired with raw's, item by item and run by run, over items with `relevant` documents: "
        f"how many relevant documents raw had in its first {k}, how many of them the arm's first {k} lacks (lost), "
        "how many the arm has that raw's lacked (gained), and on how many items the arm lost one in some run. "
        "Counts are sums over item × run pairs.",
        "",
        f"| turn class | arm | items | hit@{k} | pairs | relevant in raw's first {k} "
        f"| relevant lost vs raw, first {k} | relevant gained vs raw, first {k} | items with a loss |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in summary.first_k:
        lines.append(f"| {row.turn_class} | {row.arm} | {row.items} | {_num(row.hit_rate)} | {_counts(row)} |")
    return lines + [""]


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


def _answer_settings(header: Mapping[str, Any]) -> str:
    answers = header.get("answers")
    if not isinstance(answers, Mapping):
        return "settings not recorded"
    return (f"LightRAG `max_total_tokens` {answers.get('max_total_tokens')}, `max_entity_tokens` "
            f"{answers.get('max_entity_tokens')}, `max_relation_tokens` {answers.get('max_relation_tokens')}, "
            f"`top_k` {answers.get('top_k')}, `chunk_top_k` {answers.get('chunk_top_k')}; answers of at most "
            f"{answers.get('max_tokens')} tokens (the query role's `max_tokens`)")


def _answers(summary: Summary, header: Mapping[str, Any]) -> list[str]:
    if not summary.answers:
        return []
    pct = f"{summary.confidence * 100:g}%"
    lines = [
        "## Answers: does the answer contain the needed fact?",
        "",
        f"Each answered turn (items with `must_contain`) was also answered by LightRAG: {_answer_settings(header)}. "
        "The `resolve` arm answers on the resolution it retrieved with. An answer contains the fact when every "
        "`must_contain` string occurs in it (case and spacing aside, as the gold judge reads a context). Beside it, "
        "the same test on the retrieved context (what retrieval hits suggest) and on the smaller context the answer "
        "writer read. A turn LightRAG refused (too short) has no answer: a miss, counted under errors.",
        "",
        f"| turn class | arm | items | answer contains (runs) | Δ vs raw [{pct} CI] | W/L/T | fact in retrieved context "
        "| fact in the answer's context | answer s | answer prompt tokens | errors |",
        "|---|---|---:|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for row in summary.answers:
        delta, wlt = _versus(row)
        lines.append(
            f"| {row.turn_class} | {row.arm} | {row.items} | {_hit(row)} | {delta} | {wlt} | {_num(row.context_rate)} "
            f"| {_num(row.answer_context_rate)} | {row.answer_ms / 1000:.1f} | {row.prompt_tokens:.0f} | {row.errors} |"
        )
    return lines + [""]


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
    lines += _first_k(summary)
    lines += _answers(summary, header)
    lines += _outcomes(summary)
    lines += _decisions(summary)
    return "\n".join(lines).rstrip() + "\n"
