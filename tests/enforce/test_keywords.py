"""Both lists or neither, capped, grounded, the check's own carried (``_enforce.keywords``, contract §5.2, §5.4, §7)."""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from conversations import OFFER, OPTIONS, RESTATED
from fakes import ScriptedLLM, keyword_json
from lightrag_resolve import Resolution, Resolver, Turn
from lightrag_resolve._languages.text import normalize_for_compare
from lightrag_resolve._languages.text import contains_phrase
from lightrag_resolve._enforce import (
    LightRAGKeywords,
    check_keywords,
    clean_keywords,
    enforce_keywords,
    focus_on_pick,
    ground_keywords,
    is_scaffold,
    keywords_with_name,
    reuse_keywords,
)
from strategies import extracted_keywords, keyword_caps, keyword_field, phrase, plain_or_hostile_text


# ---- keyword resolution (§5.2) ----------------------------------------------------------------------


@given(keyword_field, keyword_field, st.integers(1, 6), st.integers(1, 4))
def test_keywords_are_both_or_neither(ll, hl, max_ll, max_hl):
    outcome = enforce_keywords(ll, hl, max_ll=max_ll, max_hl=max_hl)
    assert bool(outcome.ll_keywords) == bool(outcome.hl_keywords)
    assert (outcome.fallback_reason is None) == bool(outcome.ll_keywords)
    assert len(outcome.ll_keywords) <= max_ll and len(outcome.hl_keywords) <= max_hl
    for keyword in (*outcome.ll_keywords, *outcome.hl_keywords):
        assert isinstance(keyword, str) and keyword == keyword.strip() and keyword
        assert not is_scaffold(keyword)
    for kept in (outcome.ll_keywords, outcome.hl_keywords):
        assert len({k.casefold() for k in kept}) == len(kept)


def test_keyword_cleaning_order_is_pinned():
    # non-strings dropped, stripped, empties and NONE dropped, case-insensitive dedupe, order kept
    assert clean_keywords([" Vitalis ", 3, None, "", "vitalis", "NONE", "Offre  Santé", {"a": 1}]) == [
        "Vitalis",
        "Offre Santé",
    ]
    assert clean_keywords("Vitalis, Offre Santé;santé\nBTP") == ["Vitalis", "Offre Santé", "santé", "BTP"]
    assert clean_keywords(42) == [] and clean_keywords({"k": "v"}) == []


def test_keyword_fallback_reasons():
    assert enforce_keywords([], [], max_ll=5, max_hl=3).fallback_reason == "empty"
    assert enforce_keywords(["Vitalis"], [], max_ll=5, max_hl=3).fallback_reason == "incomplete"
    assert enforce_keywords(None, ["santé"], max_ll=5, max_hl=3).fallback_reason == "incomplete"
    assert enforce_keywords(["The visitor chose Vitalis"], ["santé"], max_ll=5, max_hl=3).fallback_reason == "scaffold"
    caps = enforce_keywords([f"k{i}" for i in range(40)], ["a", "b", "c", "d"], max_ll=5, max_hl=3)
    assert caps.ll_keywords == ("k0", "k1", "k2", "k3", "k4") and caps.hl_keywords == ("a", "b", "c")


# ---- grounding (§5.4) -------------------------------------------------------------------------------


def test_a_keyword_is_kept_when_a_candidate_the_reply_or_the_history_holds_it():
    grounded = ground_keywords(
        ["Kadoro loyalty terminal", "pricing", "Yes", "Orbit CRM"],
        candidates=OPTIONS,
        reply="Yes",
        history=["Shall I send you the pricing?"],
    )
    assert grounded.kept == ("Kadoro loyalty terminal", "pricing", "Yes") and grounded.dropped == ("Orbit CRM",)


def test_the_picked_option_leads_and_the_other_options_go():
    assert focus_on_pick(["Kadoro", "Magazio", "pricing"], pick="Magazio", candidates=OPTIONS) == ("Magazio", "pricing")
    assert focus_on_pick(["pricing"], pick="Magazio", candidates=OPTIONS) == ("Magazio", "pricing")
    assert focus_on_pick(["Magazio stock", "Magazio"], pick="Magazio", candidates=OPTIONS)[0] == "Magazio stock"
    assert focus_on_pick(["Kadoro"], pick=None, candidates=OPTIONS) == ("Kadoro",)


@given(st.lists(plain_or_hostile_text, max_size=6), st.sampled_from(["Yes", "the second one", "Cerclia"]))
def test_low_level_keywords_are_always_grounded(proposed, reply):
    turn = Turn(query=reply, history=OFFER, mode="mix")
    llm = ScriptedLLM(replies={"keywords": keyword_json(proposed, ["pricing"], query=" ".join(proposed))})
    resolution = asyncio.run(Resolver().resolve(turn, llm=llm))
    sources = (reply, *turn.message_texts)
    for keyword in resolution.ll_keywords:
        # a candidate, a phrase of the conversation, or composed of its words (contract §5.4: "Lumora B1")
        words = re.findall(r"[^\W_](?:[\w'’.\-]*[^\W_])?", keyword)
        composed = len(words) > 1 and all(contains_phrase((*sources, *turn.candidates.names), w) for w in words)
        assert turn.candidates.matching(keyword) is not None or contains_phrase(sources, keyword) or composed
    assert bool(resolution.ll_keywords) == bool(resolution.hl_keywords)
    if resolution.changed:
        assert resolution.query.startswith(f"{reply} — ") or contains_phrase(resolution.query, reply)
    if reply == "the second one" and resolution.ll_keywords:
        assert resolution.ll_keywords[0] == "Magazio"
        assert not any(keyword in {"Kadoro", "Cerclia"} for keyword in resolution.ll_keywords)


# ---- LightRAG's keywords reused on a resolved reference (§7) ----------------------------------------


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


def restated_check() -> Resolution:
    """An ambiguous check, restated with a text that names two candidates."""
    return replace(
        RESOLVED,
        query=f"{ASK} — {RESTATED}",
        decision="ambiguous",
        entity=None,
        candidates=("Pulse POS", "Orbit CRM", "Stripe"),
        restatement=RESTATED,
    )


def test_a_restated_reference_reuses_lightrags_keywords_led_by_the_names_it_holds():
    extracted = LightRAGKeywords(hl_keywords=("retail adoption",), ll_keywords=("shops", "Lyon"))
    resolution = restated_check()
    reused = reuse_keywords(resolution, extracted, max_ll=5, max_hl=3)
    assert reused.ll_keywords == ("Pulse POS", "Orbit CRM", "shops", "Lyon")
    assert reused.hl_keywords == ("retail adoption",)
    bare = reuse_keywords(replace(resolution, candidates=()), extracted, max_ll=5, max_hl=3)
    assert bare.ll_keywords == ("shops", "Lyon") and bare.hl_keywords == ("retail adoption",)
    no_hl = LightRAGKeywords(hl_keywords=(), ll_keywords=("shops",))
    assert not reuse_keywords(resolution, no_hl, max_ll=5, max_hl=3).has_keywords  # both lists or none


# ---- the reference check's own keywords (§7, issue 29) -----------------------------------------------

KEPT = Resolution(query=ASK, original_query=ASK, mode="mix", path="reference", decision="keep", fallback_reason="keep")
CHECK_LL, CHECK_HL = ("retailers", "shops"), ("retail",)


def carried(resolution: Resolution, ll=CHECK_LL, hl=CHECK_HL, *, max_ll: int = 5, max_hl: int = 3) -> Resolution:
    return check_keywords(resolution, ll_keywords=ll, hl_keywords=hl, max_ll=max_ll, max_hl=max_hl)


def test_a_kept_ambiguous_or_unnamed_check_carries_its_keywords_and_is_no_longer_a_fallback():
    for reason, decision in (("keep", "keep"), ("ambiguous", "ambiguous"), ("no_candidates", "ambiguous")):
        checked = replace(KEPT, decision=decision, fallback_reason=reason)
        after = carried(checked)
        assert after.fallback_reason is None and after.decision == decision and after.changed
        assert (after.ll_keywords, after.hl_keywords) == (CHECK_LL, CHECK_HL)
        assert after.query == after.original_query == ASK  # the visitor's words, searched with the check's keywords
        assert after == replace(checked, fallback_reason=None, ll_keywords=CHECK_LL, hl_keywords=CHECK_HL)


def test_a_resolved_check_leads_its_keywords_with_the_name():
    after = carried(RESOLVED, ll=("retailers", "Pulse POS", "shops"))
    assert after.ll_keywords == ("Pulse POS", "retailers", "shops") and after.hl_keywords == CHECK_HL
    assert after.query == RESOLVED.query and after.entity == "Pulse POS" and after.fallback_reason is None


def test_a_restated_check_leads_its_keywords_with_the_names_its_restatement_holds():
    restated = restated_check()
    assert carried(restated).ll_keywords == ("Pulse POS", "Orbit CRM", "retailers", "shops")


def test_a_refused_name_a_failed_check_and_other_paths_carry_nothing():
    refused = replace(KEPT, decision="resolve", fallback_reason="rejected:company", rejected_reason="company")
    failures = [
        replace(KEPT, decision="error", fallback_reason=reason) for reason in ("llm_error", "timeout", "unparsable")
    ]
    short_reply = replace(KEPT, path="text", decision=None, fallback_reason="empty")
    for resolution in (refused, *failures, short_reply):
        assert carried(resolution) is resolution  # LightRAG then extracts its own


def test_a_check_whose_keyword_lists_are_not_both_usable_carries_nothing():
    for ll, hl in (((), CHECK_HL), (CHECK_LL, ()), (("NONE", " "), CHECK_HL), (CHECK_LL, ("none",))):
        assert carried(KEPT, ll, hl) is KEPT
    for hl in ((), ("none",)):
        assert carried(RESOLVED, CHECK_LL, hl) is RESOLVED
    # A resolved name is a low-level keyword of its own.
    assert carried(RESOLVED, (), CHECK_HL).ll_keywords == ("Pulse POS",)


def test_keywords_already_on_the_resolution_are_not_replaced():
    held = replace(RESOLVED, ll_keywords=("Pulse POS",), hl_keywords=("terminal",))
    assert carried(held) is held


def test_the_checks_keywords_are_capped_with_the_name_counted():
    after = carried(RESOLVED, ll=("a", "b", "c"), hl=("x", "y", "z"), max_ll=2, max_hl=1)
    assert after.ll_keywords == ("Pulse POS", "a") and after.hl_keywords == ("x",)
    assert carried(KEPT, ll=("a", "b", "c"), hl=("x", "y"), max_ll=2, max_hl=1).ll_keywords == ("a", "b")


@given(
    resolution=st.sampled_from(
        [
            KEPT,
            replace(KEPT, decision="ambiguous", fallback_reason="ambiguous"),
            replace(KEPT, decision="ambiguous", fallback_reason="no_candidates"),
            replace(KEPT, decision="error", fallback_reason="timeout"),
            replace(KEPT, decision="resolve", fallback_reason="rejected:too_long", rejected_reason="too_long"),
            RESOLVED,
        ]
    ),
    ll=extracted_keywords,
    hl=extracted_keywords,
    max_ll=keyword_caps,
    max_hl=keyword_caps,
)
def test_a_checks_keywords_are_both_or_neither_capped_unique_and_never_change_its_text(
    resolution, ll, hl, max_ll, max_hl
):
    after = carried(resolution, ll, hl, max_ll=max_ll, max_hl=max_hl)
    assert after.query == resolution.query and after.decision == resolution.decision
    if after is resolution:
        return
    assert after.has_keywords and after.fallback_reason is None and after.changed
    assert resolution.fallback_reason in (None, "keep", "ambiguous", "no_candidates")
    assert len(after.ll_keywords) <= max_ll and len(after.hl_keywords) <= max_hl
    for keywords in (after.ll_keywords, after.hl_keywords):
        keys = [normalize_for_compare(k) for k in keywords]
        assert all(keys) and len(keys) == len(set(keys))
