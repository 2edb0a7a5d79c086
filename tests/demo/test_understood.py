"""What the demo shows as understood: the part the resolver added, for each path, never the whole search text."""

from __future__ import annotations

import pytest

from lightrag_resolve import Resolution
from lightrag_resolve.demo import understood

QUESTION = "Which sector are you in: Santé or BTP?"


def _turn(query: str, words: str = "Santé", **fields) -> Resolution:
    fields.setdefault("mode", "mix")
    fields.setdefault("path", "keywords")
    return Resolution(query=query, original_query=words, **fields)


def test_a_resolved_short_reply_shows_its_meaning_and_keywords_not_the_question_it_carries():
    turn = _turn(
        f"Santé — the Pivotane offer for clinics — {QUESTION}",
        context=QUESTION,
        ll_keywords=("Santé", "Pivotane"),
        hl_keywords=("healthcare",),
    )
    shown = understood(turn)
    assert shown == "the meaning “the Pivotane offer for clinics” · keywords: Santé, Pivotane · themes: healthcare"
    assert QUESTION not in shown


def test_a_naive_short_reply_shows_its_meaning_alone():
    assert understood(_turn(f"B1 — the B1 level course — {QUESTION}", "B1", path="text", context=QUESTION)) == (
        "the meaning “the B1 level course”"
    )


def test_a_meaning_that_holds_the_words_is_shown_whole():
    assert understood(_turn(f"Santé offer — {QUESTION}", path="text", context=QUESTION)) == "the meaning “Santé offer”"


def test_a_carried_reply_shows_what_it_answers_and_why_the_meaning_is_missing():
    turn = _turn(f"Santé — {QUESTION}", context=QUESTION, carry_reason="timeout")
    assert understood(turn) == f"answers “{QUESTION}” (no meaning: timeout)"


def test_a_resolved_reference_shows_the_name_and_in_graph_modes_its_keywords():
    turn = _turn(
        "Kadoro — Which retailers already run it?",
        "Which retailers already run it?",
        path="reference",
        decision="resolve",
        entity="Kadoro",
        ll_keywords=("Kadoro", "retailers"),
        hl_keywords=("customers",),
    )
    assert understood(turn) == "the name “Kadoro” · keywords: Kadoro, retailers · themes: customers"


def test_a_restated_follow_up_shows_the_restatement():
    turn = _turn(
        "What are the benefits? — benefits of the Horizon plan",
        "What are the benefits?",
        path="reference",
        mode="naive",
        decision="ambiguous",
        restatement="benefits of the Horizon plan",
    )
    assert understood(turn) == "the meaning “benefits of the Horizon plan”"


def test_a_kept_follow_up_in_a_graph_mode_shows_the_checks_keywords():
    turn = _turn(
        "How many offices?",
        "How many offices?",
        path="reference",
        decision="keep",
        ll_keywords=("offices",),
        hl_keywords=("company",),
    )
    assert understood(turn) == "keywords: offices · themes: company"


@pytest.mark.parametrize(
    ("reason", "why"),
    [
        ("first_turn", "a first turn, nothing to resolve"),
        ("stands_alone", "names its own subject"),
        ("unprompted", "answers no question: the visitor's own topic"),
        ("rejected:company", "the name was refused (company)"),
        ("timeout", "the model gave nothing usable (timeout)"),
    ],
)
def test_words_searched_as_written_say_why(reason: str, why: str):
    assert understood(_turn("Santé", path="reference", fallback_reason=reason)) == f"searched as written: {why}"


def test_bypass_is_searched_as_written():
    assert understood(_turn("Santé", path="bypass", mode="bypass")) == "searched as written: bypass mode"


def test_a_long_meaning_is_cut():
    meaning = "word " * 60
    shown = understood(_turn(f"Santé — {meaning.strip()}", path="text"), limit=40)
    assert len(shown) < 60 and shown.endswith("…”")
