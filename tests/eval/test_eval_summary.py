"""Rows per arm and turn class, the Markdown report and the chart, from known records."""

from __future__ import annotations

from pathlib import Path

from lightrag_resolve.eval import Item, Record, render_chart, render_markdown, summarize

ITEMS = [
    Item(id="s1", query="B1", history=({"role": "user", "content": "x"},), turn_class="short_reply", relevant=("d",)),
    Item(id="s2", query="A1", history=({"role": "user", "content": "x"},), turn_class="short_reply", relevant=("d",)),
    Item(id="r1", query="It?", history=({"role": "user", "content": "x"},), turn_class="reference",
         relevant=("d",), expect_decision="resolve", expect_entity="Pulse POS"),
]


def _record(item: str, arm: str, run: int, hit: bool, **extra: object) -> Record:
    turn_class = next(i.turn_class for i in ITEMS if i.id == item)
    return Record(item=item, arm=arm, run=run, turn_class=turn_class, mode="mix", lang=None, text="t",
                  outcome="raw" if arm == "raw" else "rewritten", hit=hit, gold_hit=hit, retrieved=[], **extra)


RECORDS = [
    # short replies: raw misses both in both runs; resolve hits s1 twice, s2 once.
    _record("s1", "raw", 0, False), _record("s1", "raw", 1, False),
    _record("s2", "raw", 0, False), _record("s2", "raw", 1, False),
    _record("s1", "resolve", 0, True, llm_calls=1, prompt_tokens=100),
    _record("s1", "resolve", 1, True, llm_calls=1, prompt_tokens=100),
    _record("s2", "resolve", 0, True, llm_calls=1, prompt_tokens=100),
    _record("s2", "resolve", 1, False, llm_calls=1, prompt_tokens=100),
    # reference: both hit; the check resolved the right entity once, the wrong one once.
    _record("r1", "raw", 0, True), _record("r1", "raw", 1, True),
    _record("r1", "resolve", 0, True, resolution={"decision": "resolve", "entity": "Pulse POS"}, decision_correct=True),
    _record("r1", "resolve", 1, True, resolution={"decision": "keep"}, decision_correct=False),
]


def test_rows_per_arm_and_turn_class() -> None:
    summary = summarize(RECORDS, ITEMS, ["raw", "resolve"], runs=2, resamples=2000)
    assert summary.turn_classes == ("short_reply", "reference", "all")
    short = summary.row("resolve", "short_reply")
    assert short is not None
    assert short.items == 2 and short.hit_rate == 0.75
    assert short.run_hit_rates == (1.0, 0.5)
    assert short.versus_raw is not None
    assert (short.versus_raw.wins, short.versus_raw.losses, short.versus_raw.ties) == (2, 0, 0)
    assert short.versus_raw.mean_difference == 0.75
    assert short.llm_calls == 1 and short.prompt_tokens == 100
    assert summary.row("raw", "short_reply").versus_raw is None  # type: ignore[union-attr]
    reference = summary.row("resolve", "reference")
    assert reference is not None and reference.versus_raw is not None
    assert reference.versus_raw.ties == 1 and (reference.versus_raw.low, reference.versus_raw.high) == (0.0, 0.0)


def test_decision_accuracy_for_items_with_expect() -> None:
    summary = summarize(RECORDS, ITEMS, ["raw", "resolve"], runs=2, resamples=200)
    by_class = {row.turn_class: row for row in summary.decisions}
    assert set(by_class) == {"reference", "all"}
    assert by_class["reference"].checks == 2 and by_class["reference"].accuracy == 0.5
    assert by_class["reference"].confusion == {"resolve->keep": 1, "resolve->resolve": 1}


def test_records_of_other_runs_arms_or_items_are_left_out() -> None:
    extra = [_record("s1", "raw", 2, True), _record("s1", "prose", 0, True)]
    summary = summarize(RECORDS + extra, ITEMS[:1], ["raw", "resolve"], runs=2, resamples=200)
    assert summary.row("raw", "short_reply").hit_rate == 0.0  # type: ignore[union-attr]
    assert summary.row("prose", "short_reply") is None


def test_markdown_has_a_table_per_class_and_the_decisions(tmp_path: Path) -> None:
    summary = summarize(RECORDS, ITEMS, ["raw", "resolve"], runs=2, resamples=200)
    text = render_markdown(summary, {"dataset_name": "demo", "items": 3, "judge": "gold", "settings": {"k": 5}})
    assert "# Retrieval evaluation: demo" in text
    assert "## Short replies" in text and "## References" in text and "## All turns" in text
    assert "| resolve | 2 | 0.75 (0.50–1.00) | +0.75 [" in text
    assert "| 2/0/0 |" in text
    assert "resolve->keep 1" in text


def test_chart_is_a_png(tmp_path: Path) -> None:
    summary = summarize(RECORDS, ITEMS, ["raw", "resolve"], runs=2, resamples=200)
    path = render_chart(summary, tmp_path / "chart.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
