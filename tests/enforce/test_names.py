"""Only names the conversation established (``_enforce.names``, contract §5.3, §5.4, §5.9)."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conversations import OFFER, OPTIONS, SHOPS, SHOPS_ASK
from fakes import ScriptedLLM, reference_json
from lightrag_resolve import Message, Resolver, Turn
from lightrag_resolve._facts import Candidates
from lightrag_resolve._turn.candidates import collect_candidates
from lightrag_resolve._languages.text import (
    clean_single_line,
    contains_phrase,
    elided_words,
    without_elision,
    without_possessive,
)
from lightrag_resolve._enforce import (
    accept_reference_name,
    cut_gloss,
    name_with_message,
    unestablished_names,
)
from strategies import hostile_text, phrase
from tuned import tuned


# ---- reference names (§5.3) -------------------------------------------------------------------------


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
        "loyalty terminal for retailers and small shops",
        history_text=long_history,
        message="Who runs it?",
        company_name=None,
        max_words=6,
    )
    assert too_long.rejected_reason == "too_long"


@given(
    st.one_of(phrase, st.text(max_size=60)),
    st.text(max_size=200),
    st.one_of(phrase, st.text(max_size=60)),
    st.one_of(st.none(), phrase),
)
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
    outcome = accept_reference_name(
        "Helix's", history_text=history, message="Who runs it?", company_name="Helix", max_words=6
    )
    assert outcome.rejected_reason == "company"


@pytest.mark.parametrize(
    ("name", "bare"),
    [
        ("Helix's", "Helix"),
        ("Vellinor\u2019s", "Vellinor"),
        ("Sales'", "Sales"),
        ("Pulse POS", "Pulse POS"),
        ("O'Neil", "O'Neil"),
        ("'s", "'s"),
        (" Kadoro's ", "Kadoro"),
    ],
)
def test_a_possessive_ending_is_all_that_is_taken_off_a_name(name, bare):
    assert without_possessive(name) == bare


# ---- grounding in the candidates (§5.4) -------------------------------------------------------------


def candidate_for(name: str, candidates: Candidates) -> str | None:
    """The candidate a proposed name stands for, as the check reads it: by list number, else the one it matches."""
    return candidates.by_number(name) or candidates.matching(name)


def test_a_reference_name_must_be_a_candidate():
    assert candidate_for("2", OPTIONS) == "Magazio"
    assert candidate_for("magazio", OPTIONS) == "Magazio"
    assert candidate_for("Orbit CRM", OPTIONS) is None


@given(st.one_of(phrase, hostile_text, st.sampled_from(["Kadoro", "1", "3", "Cerclia (the CRM)"])))
def test_a_resolved_reference_names_a_candidate(name):
    turn = Turn(query="Which retailers already run it?", history=OFFER, mode="mix")
    resolution = asyncio.run(Resolver().resolve(turn, llm=ScriptedLLM(replies={"reference": f"RESOLVE: {name}"})))
    if resolution.changed:
        assert resolution.entity is not None and candidate_for(resolution.entity, turn.candidates) is not None
        assert resolution.query == f"{resolution.entity} — {turn.query}"


# ---- names a text brings that the conversation did not establish (§5.9) -----------------------------


def test_unestablished_names_reads_capitalised_words_only():
    candidates = collect_candidates([(m.role, m.content) for m in SHOPS])
    texts = {"message": SHOPS_ASK, "history": [m.content for m in SHOPS], "candidates": candidates}
    assert unestablished_names("What does Orbit CRM's plan cost", **texts) == ()
    assert unestablished_names("Quelle offre Pulse POS à Lyon", **texts) == ()
    assert unestablished_names("loyalty cards for thanos", **texts) == ()  # lower case: not read as a name
    assert unestablished_names("Thanos and Élodie use Pulse POS", **texts) == ("Thanos", "Élodie")


@given(
    st.lists(
        st.sampled_from("For shops Helix sells Pulse POS and Orbit CRM often together Which Lyon".split()), max_size=8
    )
)
def test_a_text_made_of_the_conversations_words_names_nothing_new(words):
    candidates = collect_candidates([(m.role, m.content) for m in SHOPS])
    assert (
        unestablished_names(
            " ".join(words), message=SHOPS_ASK, history=[m.content for m in SHOPS], candidates=candidates
        )
        == ()
    )


# ---- a name after an elided article is still a name (issue 31, item 5) ------------------------------

BOUTIQUES = (
    Message(role="user", content="Quels produits pour les boutiques ?"),
    Message(role="assistant", content="Pour les boutiques, Helix vend Pulse POS et Orbit CRM."),
)
BOUTIQUES_TEXTS = {
    "message": "Quel est son prix ?",
    "history": [m.content for m in BOUTIQUES],
    "candidates": collect_candidates([(m.role, m.content) for m in BOUTIQUES]),
}
invented = st.from_regex(r"Zq[a-z]{3,8}", fullmatch=True)
"""A capitalised word no conversation here holds."""


@given(
    st.sampled_from(sorted(elided_words())),
    st.sampled_from(["'", "\u2019"]),
    st.sampled_from([str.lower, str.capitalize]),
    invented,
)
def test_an_invented_name_after_any_elision_is_unestablished(elided, apostrophe, case, name):
    for text in (f"prix {case(elided)}{apostrophe}{name} pour boutiques", f"{case(elided)}{apostrophe}{name} ?"):
        assert unestablished_names(text, **BOUTIQUES_TEXTS) == (name,), text
    # The same elision before an established name brings nothing new.
    assert unestablished_names(f"prix {case(elided)}{apostrophe}Orbit CRM", **BOUTIQUES_TEXTS) == ()


@pytest.mark.parametrize(
    ("word", "bare"),
    [
        ("d'Invented", "Invented"),
        ("L\u2019Orbit", "Orbit"),
        ("qu'Helix", "Helix"),
        ("jusqu'Helix", "Helix"),
        ("dell'Orbit", "Orbit"),
        ("un'Azienda", "Azienda"),
        ("l'offre", "offre"),
        ("don't", "don't"),  # English contractions stay whole
        ("O'Brien", "O'Brien"),
        ("aujourd'hui", "aujourd'hui"),
        ("l'", "l'"),
        ("d'42", "d'42"),
    ],
)
def test_only_an_elided_article_pronoun_or_preposition_is_taken_off(word, bare):
    assert without_elision(word) == bare


def test_a_restatement_or_question_inventing_a_name_after_an_elision_is_refused():
    turn = Turn(query="Combien coûte-t-il pour une boutique ?", history=BOUTIQUES, mode="naive")
    replies = {"reference": reference_json("AMBIGUOUS", query="prix d'Zorblax pour boutique")}
    resolution = asyncio.run(Resolver().resolve(turn, llm=ScriptedLLM(replies=replies)))
    assert resolution.restatement is None and not resolution.changed
    resolver = tuned(fuse_standalone_question=True)
    question = "Combien coûte l\u2019Zorblax pour une boutique ?"
    replies = {"reference": reference_json("RESOLVE", "Orbit CRM", query=question)}
    resolution = asyncio.run(resolver.resolve(turn, llm=ScriptedLLM(replies=replies)))
    assert resolution.entity == "Orbit CRM" and resolution.standalone_question is None
