"""The code-enforced invariants of contract §5, on whatever a model returns."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lightrag_resolve._enforce import (
    accept_reference_name,
    clean_keywords,
    contains_phrase,
    cut_gloss,
    enforce_keywords,
    enforce_text_query,
    is_scaffold,
    name_with_message,
)
from lightrag_resolve._clean_text import clean_single_line, without_possessive
from strategies import company_names, keyword_field, model_output, phrase, scaffold_text


# ---- text resolution (§5.1) ----------------------------------------------------


@given(model_output, company_names, st.integers(min_value=3, max_value=12))
def test_text_query_respects_word_cap_and_company(output, company, max_words):
    outcome = enforce_text_query(output, company_name=company, max_words=max_words)
    if outcome.query is None:
        assert outcome.fallback_reason in {"empty", "scaffold", "unparsable"}
        return
    assert outcome.fallback_reason is None
    assert 1 <= len(outcome.query.split()) <= max_words
    assert "\n" not in outcome.query
    if company:
        assert contains_phrase(outcome.query, company)
    assert not is_scaffold(outcome.query)


@given(scaffold_text, company_names)
def test_text_query_never_passes_scaffold(output, company):
    outcome = enforce_text_query(output, company_name=company, max_words=8)
    assert outcome.query is None and outcome.fallback_reason == "scaffold"


def test_text_query_examples():
    assert enforce_text_query("offre santé", company_name="Helix", max_words=8).query == "offre santé Helix"
    assert enforce_text_query("Helix offre santé", company_name="Helix", max_words=8).query == "Helix offre santé"
    long = "a b c d e f g h i j k"
    assert enforce_text_query(long, company_name="Helix", max_words=8).query == "a b c d e f g Helix"
    assert enforce_text_query(long, company_name=None, max_words=8).query == "a b c d e f g h"
    assert enforce_text_query('Query: "German course B1"\nbecause…', company_name=None, max_words=8).query == "German course B1"
    for declined in ["NONE", "none.", "", "   ", "\n\n"]:
        assert enforce_text_query(declined, company_name="Helix", max_words=8).fallback_reason == "empty"
    assert enforce_text_query(None, company_name=None, max_words=8).fallback_reason == "unparsable"
    assert enforce_text_query("3 options were listed", company_name=None, max_words=8).fallback_reason == "scaffold"
    assert enforce_text_query("Le visiteur veut l'offre santé", company_name=None, max_words=8).fallback_reason == "scaffold"


@pytest.mark.parametrize("label", ["Question", "Standalone question", "rewritten question", "Search query"])
def test_a_question_label_is_removed_like_a_query_label(label):
    assert enforce_text_query(f"{label}: German course B1", company_name=None, max_words=8).query == "German course B1"


def test_scaffold_detection_in_english_and_french():
    for text in [
        "1. Health",
        "The visitor wants health",
        "the assistant asked",
        "The user is asking about B1",
        "L'assistant a demandé",
        "L’utilisateur choisit BTP",
        "le visiteur répond Santé",
        "Based on the conversation, health",
        "Dans cette conversation, santé",
    ]:
        assert is_scaffold(text), text
    for text in ["Offre Santé Helix", "German course B1", "user manual Vitalis", "assistance technique BTP", "messagerie Helix"]:
        assert not is_scaffold(text), text


# ---- keyword resolution (§5.2) ---------------------------------------------------


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
    assert clean_keywords([" Vitalis ", 3, None, "", "vitalis", "NONE", "Offre  Santé", {"a": 1}]) == ["Vitalis", "Offre Santé"]
    assert clean_keywords("Vitalis, Offre Santé;santé\nBTP") == ["Vitalis", "Offre Santé", "santé", "BTP"]
    assert clean_keywords(42) == [] and clean_keywords({"k": "v"}) == []


def test_keyword_fallback_reasons():
    assert enforce_keywords([], [], max_ll=5, max_hl=3).fallback_reason == "empty"
    assert enforce_keywords(["Vitalis"], [], max_ll=5, max_hl=3).fallback_reason == "incomplete"
    assert enforce_keywords(None, ["santé"], max_ll=5, max_hl=3).fallback_reason == "incomplete"
    assert enforce_keywords(["The visitor chose Vitalis"], ["santé"], max_ll=5, max_hl=3).fallback_reason == "scaffold"
    caps = enforce_keywords([f"k{i}" for i in range(40)], ["a", "b", "c", "d"], max_ll=5, max_hl=3)
    assert caps.ll_keywords == ("k0", "k1", "k2", "k3", "k4") and caps.hl_keywords == ("a", "b", "c")


# ---- reference names (§5.3) ------------------------------------------------------

HISTORY = "Visitor: What do you sell?\nAssistant: Helix sells Pulse POS, a loyalty terminal for retailers."


def test_reference_name_acceptance_examples():
    def accept(name, message="Which retailers already run it?", company="Helix"):
        return accept_reference_name(name, history_text=HISTORY, message=message, company_name=company, max_words=6)

    assert accept("Pulse POS").name == "Pulse POS"
    assert accept("pulse pos").name == "pulse pos"
    assert accept("Pulse POS - the message is about the terminal").name == "Pulse POS"
    assert accept("Pulse POS (loyalty terminal)").name == "Pulse POS"
    assert accept('"Pulse POS".').name == "Pulse POS"
    assert accept("Orbit CRM").rejected_reason == "not_in_history"
    assert accept("Pulse").name == "Pulse"  # a whole word of the history
    assert accept("Puls").rejected_reason == "not_in_history"  # not a whole word
    assert accept("Helix").rejected_reason == "company"
    assert accept("Pulse POS", message="Which retailers run Pulse POS?").rejected_reason == "already_named"
    long_history = HISTORY + " Our loyalty terminal for retailers and small shops."
    too_long = accept_reference_name(
        "loyalty terminal for retailers and small shops", history_text=long_history, message="Who runs it?",
        company_name=None, max_words=6,
    )
    assert too_long.rejected_reason == "too_long"


@given(st.one_of(phrase, st.text(max_size=60)), st.text(max_size=200), st.one_of(phrase, st.text(max_size=60)), st.one_of(st.none(), phrase))
def test_an_accepted_name_is_established_new_short_and_not_the_company(name, history, message, company):
    outcome = accept_reference_name(name, history_text=history, message=message, company_name=company, max_words=6)
    assert (outcome.name is None) != (outcome.rejected_reason is None)
    if outcome.name is not None:
        assert contains_phrase(history, outcome.name)
        assert not contains_phrase(message, outcome.name)
        assert not (company and contains_phrase(company, outcome.name))
        assert 1 <= len(outcome.name.split()) <= 6
        assert name_with_message(message, outcome.name) == f"{outcome.name} — {clean_single_line(message)}"


@given(phrase, st.sampled_from([" - gloss here", " — because", ": explanation", " (note)", ", which is", ". Then"]))
def test_gloss_after_a_name_is_cut(name, gloss):
    assert cut_gloss(name + gloss) == cut_gloss(name)


def test_the_company_in_the_possessive_is_still_the_company():
    history = ["What is Pulse POS?", "Pulse POS is Helix's loyalty terminal."]
    outcome = accept_reference_name("Helix's", history_text=history, message="Who runs it?", company_name="Helix", max_words=6)
    assert outcome.rejected_reason == "company"


@pytest.mark.parametrize(
    ("name", "bare"),
    [("Helix's", "Helix"), ("Vellinor\u2019s", "Vellinor"), ("Sales'", "Sales"), ("Pulse POS", "Pulse POS"),
     ("O'Neil", "O'Neil"), ("'s", "'s"), (" Kadoro's ", "Kadoro")],
)
def test_a_possessive_ending_is_all_that_is_taken_off_a_name(name, bare):
    assert without_possessive(name) == bare
