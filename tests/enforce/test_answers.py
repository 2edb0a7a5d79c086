"""What a model's text may become (``_enforce.answers``, contract §5.1): one clean line, capped, no scaffold."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lightrag_resolve._languages.text import contains_phrase
from lightrag_resolve._enforce import (
    enforce_keywords,
    enforce_text_query,
    is_prompt_format,
    is_scaffold,
)
from strategies import company_names, model_output, phrase, prompt_format_text, scaffold_text


# ---- text resolution (§5.1) -------------------------------------------------------------------------


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
    assert (
        enforce_text_query('Query: "German course B1"\nbecause…', company_name=None, max_words=8).query
        == "German course B1"
    )
    for declined in ["NONE", "none.", "", "   ", "\n\n"]:
        assert enforce_text_query(declined, company_name="Helix", max_words=8).fallback_reason == "empty"
    assert enforce_text_query(None, company_name=None, max_words=8).fallback_reason == "unparsable"
    assert enforce_text_query("3 options were listed", company_name=None, max_words=8).fallback_reason == "scaffold"
    assert (
        enforce_text_query("Le visiteur veut l'offre santé", company_name=None, max_words=8).fallback_reason
        == "scaffold"
    )


@pytest.mark.parametrize("label", ["Question", "Standalone question", "rewritten question", "Search query"])
def test_a_question_label_is_removed_like_a_query_label(label):
    assert enforce_text_query(f"{label}: German course B1", company_name=None, max_words=8).query == "German course B1"


@pytest.mark.parametrize(
    "written", [", Bildung", "Bildung,", "; Bildung", "，Bildung", "Query: , Bildung", '", Bildung"']
)
def test_a_separator_at_either_end_of_an_answer_is_dropped(written):
    # The local model, decoding JSON without blanks, wrote {"query":", Bildung"} (the multilingual set).
    assert enforce_text_query(written, company_name=None, max_words=8).query == "Bildung"


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
    for text in [
        "Offre Santé Helix",
        "German course B1",
        "user manual Vitalis",
        "assistance technique BTP",
        "messagerie Helix",
    ]:
        assert not is_scaffold(text), text


# ---- a prompt's own format (issue 30) -------------------------------------------------------------------


@given(prompt_format_text, company_names)
def test_a_prompts_own_format_is_refused_as_scaffold_is(output, company):
    assert is_prompt_format(output) and is_scaffold(output)
    outcome = enforce_text_query(output, company_name=company, max_words=8)
    assert outcome.query is None and outcome.fallback_reason == "scaffold"


@given(prompt_format_text, phrase)
def test_a_keyword_in_a_prompts_format_discards_the_answer(keyword, other):
    assert enforce_keywords([other, keyword], [other], max_ll=5, max_hl=3).fallback_reason == "scaffold"
    assert enforce_keywords([other], [keyword], max_ll=5, max_hl=3).fallback_reason == "scaffold"


@pytest.mark.parametrize(
    "answer",
    [
        "Keep the Horizon plan",
        "resolve the sync issue in Kadoro",
        "ambiguous pricing terms",
        "None of the plans",
        "visitor badges for events",
        "reply templates in Kadoro",
        "message encryption",
        "Pulse POS price",
        "Nimbus: offline mode",
    ],
)
def test_ordinary_words_of_the_same_spelling_are_answers(answer):
    assert not is_prompt_format(answer)
    assert enforce_text_query(answer, company_name=None, max_words=8).query == answer
