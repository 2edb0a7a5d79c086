"""Reusing LightRAG's keywords on a resolved reference (``_keyword_reuse``, contract §7)."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from lightrag_resolve import Resolution
from lightrag_resolve._enforce import clean_keywords
from lightrag_resolve._enforce import LightRAGKeywords, keywords_with_name, reuse_keywords
from lightrag_resolve._clean_text import normalize_for_compare
from strategies import extracted_keywords, keyword_caps, phrase

ASK = "Which retailers already run it?"
RESOLVED = Resolution(
    query=f"{ASK} — Pulse POS",
    original_query=ASK,
    mode="mix",
    path="reference",
    decision="resolve",
    entity="Pulse POS",
)
EXTRACTED = LightRAGKeywords(hl_keywords=("retail", "customers"), ll_keywords=("retailers", "pulse pos", "shops"))


def test_the_name_leads_the_low_level_keywords_and_is_not_repeated():
    ll, hl = keywords_with_name("Pulse POS", EXTRACTED, max_ll=5, max_hl=3)
    assert ll == ("Pulse POS", "retailers", "shops")
    assert hl == ("retail", "customers")


def test_the_library_caps_apply_to_both_lists():
    many = LightRAGKeywords(
        hl_keywords=tuple(f"theme {i}" for i in range(9)), ll_keywords=tuple(f"k{i}" for i in range(9))
    )
    ll, hl = keywords_with_name("Pulse POS", many, max_ll=5, max_hl=3)
    assert ll == ("Pulse POS", "k0", "k1", "k2", "k3") and hl == ("theme 0", "theme 1", "theme 2")


def test_a_resolution_takes_the_reused_keywords():
    reused = reuse_keywords(RESOLVED, EXTRACTED, max_ll=5, max_hl=3)
    assert reused.ll_keywords == ("Pulse POS", "retailers", "shops") and reused.hl_keywords == ("retail", "customers")
    assert reused.query == RESOLVED.query and reused.entity == "Pulse POS" and reused.has_keywords


def test_without_high_level_keywords_nothing_is_reused():
    # Both lists or none (contract §2): LightRAG then extracts from the enriched text, as before.
    only_ll = LightRAGKeywords(hl_keywords=(), ll_keywords=("retailers",))
    assert keywords_with_name("Pulse POS", only_ll, max_ll=5, max_hl=3) is None
    assert reuse_keywords(RESOLVED, only_ll, max_ll=5, max_hl=3) is RESOLVED


def test_only_an_accepted_name_reuses_keywords():
    kept = Resolution(
        query=ASK, original_query=ASK, mode="mix", path="reference", decision="keep", fallback_reason="keep"
    )
    rejected = replace(kept, decision="resolve", fallback_reason="rejected:company", rejected_reason="company")
    for resolution in (kept, rejected):
        assert reuse_keywords(resolution, EXTRACTED, max_ll=5, max_hl=3) is resolution
    assert reuse_keywords(RESOLVED, None, max_ll=5, max_hl=3) is RESOLVED


def test_an_extraction_is_kept_only_as_two_lists_of_text_not_both_empty():
    assert LightRAGKeywords.from_extraction([], []) is None
    assert LightRAGKeywords.from_extraction(["a"], None) is None
    assert LightRAGKeywords.from_extraction(["a"], [3]) is None
    assert LightRAGKeywords.from_extraction(["theme"], []) == LightRAGKeywords(hl_keywords=("theme",), ll_keywords=())


@given(
    name=st.one_of(phrase, st.sampled_from(["NONE", "  ", '"Pulse POS"'])),
    ll=extracted_keywords,
    hl=extracted_keywords,
    max_ll=keyword_caps,
    max_hl=keyword_caps,
)
def test_reused_keywords_start_with_the_name_are_unique_capped_and_both_or_neither(name, ll, hl, max_ll, max_hl):
    lists = keywords_with_name(name, LightRAGKeywords(hl_keywords=hl, ll_keywords=ll), max_ll=max_ll, max_hl=max_hl)
    if lists is None:
        assert not clean_keywords([name]) or not clean_keywords(list(hl))
        return
    reused_ll, reused_hl = lists
    assert reused_ll[0] == clean_keywords([name])[0] and reused_hl
    assert len(reused_ll) <= max_ll and len(reused_hl) <= max_hl
    for keywords in (reused_ll, reused_hl):
        keys = [normalize_for_compare(k) for k in keywords]
        assert len(keys) == len(set(keys))
