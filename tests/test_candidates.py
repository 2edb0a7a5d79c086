"""Candidate names collected in code from the history window (``_turn.candidates``)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lightrag_resolve import Message, Turn
from lightrag_resolve._turn.candidates import (
    MAX_CANDIDATES,
    Candidates,
    collect_candidates,
    name_ngrams,
    option_lists,
    picked_option,
)
from lightrag_resolve._languages.text import contains_phrase
from strategies import plain_or_hostile_text

OFFER = "Shall I send you the pricing of one of them, Kadoro or Magazio?"


def window(*texts: str) -> list[tuple[str, str]]:
    roles = ["user", "assistant"] * len(texts)
    return list(zip(roles[-len(texts) :], texts))


def test_option_lists_are_read_in_the_assistants_order():
    assert option_lists("Which level fits your team best: A1, B1 or C1?") == [("A1", "B1", "C1")]
    assert option_lists("Quatre secteurs : Santé, BTP, Commerce et Industrie.") == [
        ("Santé", "BTP", "Commerce", "Industrie")
    ]
    assert option_lists("Dans quelle ville : Lyon ou Montréal ?") == [("Lyon", "Montréal")]


def test_names_come_from_the_latest_message_first_without_the_company():
    found = collect_candidates(
        window("What does Vellinor sell?", "Vellinor sells the Parcours Cerclia course and API Connect. " + OFFER),
        company_name="Vellinor",
    )
    assert found.names[:2] == ("Kadoro", "Magazio")
    assert {"Parcours Cerclia", "API Connect"} <= set(found.names)
    assert "Vellinor" not in found.names and "Shall" not in found.names
    assert found.options == ("Kadoro", "Magazio")


def test_a_possessive_is_not_part_of_a_name_so_the_company_stays_out():
    found = collect_candidates(
        window(
            "What does Pulse POS do?",
            "Pulse POS is Helix’s loyalty terminal. It reads Kadoro's cards and Stripe payments.",
        ),
        company_name="Helix",
    )
    assert set(found.names) == {"Pulse POS", "Kadoro", "Stripe"}


def test_a_word_that_only_starts_sentences_is_not_a_name():
    found = collect_candidates(window("Tell me more.", "Depending on your field, Pivotane helps. Tell me your sector."))
    assert found.names == ("Pivotane",)


def test_a_function_word_with_a_clitic_is_not_a_name_but_a_name_with_an_apostrophe_is():
    # doc2dial: "I'm" was a dialogue's sole candidate, and the follow-up was searched as "I'm — …".
    found = collect_candidates(window("What if I don't pay?", "Yes, I'm sure. I've read that It's Kadoro's plan."))
    assert found.names == ("Kadoro",)
    assert collect_candidates(window("And them?", "O'Brien Consulting works with us.")).names == ("O'Brien Consulting",)


def test_graph_known_names_and_quoted_terms_are_candidates():
    text = 'Our loyalty terminal runs the "points booster" offer for boutiques alcyne.'
    found = collect_candidates(window(text), known_names=["loyalty terminal", "boutiques alcyne"])
    assert found.names[:2] == ("loyalty terminal", "boutiques alcyne")
    assert "points booster" in found.names


def test_ordinals_and_named_options_pick_one():
    found = collect_candidates(window("Which product?", OFFER))
    assert picked_option("Yes, the second one", found) == "Magazio"
    assert picked_option("La première", found) == "Kadoro"
    assert picked_option("the last", found) == "Magazio"
    assert picked_option("Magazio please", found) == "Magazio"
    assert picked_option("Kadoro and Magazio", found) is None
    assert picked_option("Yes please", found) is None
    assert picked_option("the third one", found) is None


def test_ordinals_count_only_in_the_question_the_reply_answers():
    earlier_list = "Croissance adds Pivotane, Magazio, Tableau360 and SignaFlow. Would you like the details of a plan?"
    assert picked_option("Oui, la deuxième", collect_candidates(window(earlier_list))) is None


def test_the_options_are_those_of_the_question_not_of_a_courtesy_line_after_it():
    question = (
        "Customers on one of our subscription plans also get two free seats per year. "
        "Which plan is your company on: Essentiel, Croissance or Horizon? I can then tell you what applies to you."
    )
    found = collect_candidates(window(question))
    assert found.options == ("Essentiel", "Croissance", "Horizon")
    assert picked_option("The last one", found) == "Horizon"
    # Without a question, the last sentence offers them.
    assert collect_candidates(window("Dites-moi votre secteur : Santé, BTP ou Commerce.")).options == (
        "Santé",
        "BTP",
        "Commerce",
    )


def test_numbers_in_the_prompt_list_stand_for_names():
    found = Candidates(names=("Kadoro", "Magazio"))
    assert found.by_number("2") == "Magazio" and found.by_number("#1") == "Kadoro"
    assert found.by_number("3") is None and found.by_number("Kadoro") is None
    assert found.matching("Kadoro loyalty terminal") == "Kadoro"


@given(st.lists(plain_or_hostile_text, min_size=1, max_size=4), plain_or_hostile_text)
def test_candidates_are_bounded_unique_and_said_in_the_window(texts, company):
    history = tuple(Message(role=role, content=text) for role, text in window(*texts) if text.strip())
    turn = Turn(query="Yes", history=history, mode="mix", company_name=company.strip() or None)
    found = turn.candidates
    assert len(found.names) <= MAX_CANDIDATES
    assert len({name.casefold() for name in found.names}) == len(found.names)
    for name in found.names:
        assert any(contains_phrase(text, name) for text in turn.message_texts)
        assert not (company.strip() and contains_phrase(company, name))
    assert all(contains_phrase(turn.message_texts, option) for option in found.options)


@given(st.lists(plain_or_hostile_text, max_size=6), st.integers(1, 50))
def test_graph_lookups_are_bounded_by_the_window_not_the_graph(texts, limit):
    spans = name_ngrams(texts, limit=limit)
    assert len(spans) <= limit and len(set(spans)) == len(spans)
    assert all(1 <= len(span.split()) <= 4 for span in spans)


def test_a_name_inside_a_longer_mentioned_one_counts_once():
    candidates = Candidates(names=("Parcours Cerclia", "B1", "IBM Cloud", "IBM", "VPC"))
    assert candidates.mentioned_in("Parcours Cerclia B1") == ("Parcours Cerclia", "B1")
    assert candidates.mentioned_in("IBM Cloud VPC costs") == ("IBM Cloud", "VPC")
    assert candidates.mentioned_in("what IBM sells") == ("IBM",)
    assert candidates.mentioned_in("nothing named") == ()


@pytest.mark.parametrize("article", ["l'", "L'", "d'", "l’", "dell'", "qu'"])
def test_a_name_after_an_elided_word_is_collected_whole(article):
    text = f"C'est simple. Nous recommandons {article}Orbit CRM pour vous. Don't worry, aujourd'hui O'Brien arrive."
    names = collect_candidates([("assistant", text)]).names
    assert "Orbit CRM" in names and "O'Brien" in names and "C" not in names  # the elided word is no name
    assert not any("'" in name and name != "O'Brien" for name in names)
