"""What a resolved turn may add to the visitor's words (``_enforce.meanings``): a restatement, a standalone question.

Contract §5.9 (a follow-up the check cannot name is restated) and §5.10 (a standalone question).
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conversations import RESTATED
from conversations import SHOPS as HISTORY
from conversations import SHOPS_ASK as ASK
from conversations import shops_turn as turn
from fakes import ScriptedLLM, reference_json
from lightrag_resolve import Message, Resolution, Turn
from lightrag_resolve._languages.text import MAX_QUERY_CHARS
from lightrag_resolve._languages.text import contains_phrase
from lightrag_resolve._enforce import (
    adds_nothing,
    needs_restatement,
    restated,
    restated_name,
    standalone_question,
    unestablished_names,
)
from strategies import model_output
from test_reference_integration import ASK as TERMINAL_ASK
from test_reference_integration import HISTORY as TERMINAL_HISTORY
from tuned import tuned


CLOUD_HISTORY = (
    Message(role="user", content="Where do I run virtual servers?"),
    Message(role="assistant", content="On IBM Cloud: IBM runs VPC in every region."),
)


def checked(reason: str, decision: str = "ambiguous", **fields) -> Resolution:
    return Resolution(
        query=ASK,
        original_query=ASK,
        mode="naive",
        path="reference",
        fallback_reason=reason,
        decision=decision,
        **fields,
    )


# ---- which outcomes are restated --------------------------------------------------------------------


@pytest.mark.parametrize("reason", ["ambiguous", "no_candidates", "rejected:not_in_history", "rejected:already_named"])
def test_an_outcome_that_names_nothing_is_restated(reason):
    assert needs_restatement(checked(reason))


@pytest.mark.parametrize(
    "reason", ["keep", "stands_alone", "timeout", "llm_error", "unparsable", "gate_declined", None]
)
def test_a_kept_or_failed_check_is_not_restated(reason):
    assert not needs_restatement(checked(reason, decision="keep"))


def test_a_refused_name_the_message_holds_before_its_pronoun_needs_no_restatement():
    own = "How does Pulse POS sync, and why use it?"
    refused = replace(checked("rejected:already_named", decision="resolve"), query=own, original_query=own)
    refused = replace(refused, rejected_reason="already_named")
    assert not needs_restatement(refused, proposed="Pulse POS")
    assert needs_restatement(refused, proposed="Orbit CRM")  # not the message's own: it points elsewhere
    assert needs_restatement(refused)  # the name unknown: restated as before
    elsewhere = replace(refused, rejected_reason="not_in_history", fallback_reason="rejected:not_in_history")
    assert needs_restatement(elsewhere, proposed="Pulse POS")


def test_only_the_reference_path_is_restated():
    assert not needs_restatement(replace(checked("ambiguous"), path="text"))


# ---- what a restatement may be ----------------------------------------------------------------------


def test_an_accepted_restatement_follows_the_visitors_words():
    before = checked("ambiguous", candidates=("Pulse POS", "Orbit CRM"), raw_output="AMBIGUOUS")
    after = restated(before, turn(), RESTATED, max_words=8, max_name_words=6)
    assert after.query == f"{ASK} — {RESTATED}" and after.restatement == RESTATED
    assert after.fallback_reason is None and after.changed
    # The check's own record stays.
    assert after.decision == "ambiguous" and after.raw_output == "AMBIGUOUS" and after.candidates == before.candidates


def test_a_restatement_naming_one_candidate_leads_with_it():
    # It found what "it" means, as a named check would have: the name leads, as in §5.3.
    after = restated(checked("ambiguous"), turn(), "Lyon shops using Orbit CRM", max_words=8, max_name_words=6)
    assert after.query == f"Orbit CRM — {ASK}"
    assert after.restatement == "Lyon shops using Orbit CRM" and after.entity is None


def test_a_restatement_naming_both_candidates_leads_with_neither():
    assert restated_name(RESTATED, turn()) is None


def test_a_restatement_cut_to_make_room_for_the_company_never_leads_with_one_of_the_two_names_it_gave():
    asked = turn(company="Helix")
    assert len(RESTATED.split()) == 8  # the cap: the company's name does not fit beside it
    after = restated(checked("ambiguous"), asked, RESTATED, max_words=8, max_name_words=6)
    assert not after.query.startswith("Pulse POS — ")


def test_a_candidate_inside_a_longer_one_is_the_same_mention():
    asked = turn("And what is the charge for VPC there?", history=CLOUD_HISTORY)
    assert {"IBM Cloud", "IBM"} <= set(asked.candidates.names)
    assert restated_name("IBM Cloud VPC costs", asked) == "IBM Cloud"


def test_a_name_the_message_already_holds_does_not_lead():
    own = "Which shops in Lyon already use Orbit CRM with it?"
    assert restated_name("Lyon shops using Orbit CRM", turn(own)) is None
    assert restated_name("Lyon shops using Pulse POS and Orbit CRM", turn(own)) == "Pulse POS"


_RESTATEMENT_WORDS = ["Helix", "Pulse POS", "Orbit CRM", "IBM Cloud", "IBM", "VPC", "shops in Lyon", "weekends", "or"]


@given(
    st.sampled_from([HISTORY, CLOUD_HISTORY]),
    st.lists(st.sampled_from(_RESTATEMENT_WORDS), min_size=1, max_size=8),
    st.lists(st.sampled_from(_RESTATEMENT_WORDS), max_size=6),
)
def test_the_leading_name_is_the_restatements_only_new_mention(history, restatement_words, message_words):
    restatement, message = " ".join(restatement_words), " ".join([*message_words, "it?"])
    asked = turn(message, history=history)
    name = restated_name(restatement, asked)
    new = [c for c in asked.candidates.names if contains_phrase(restatement, c) and not contains_phrase(message, c)]
    if name is None:
        # Nothing new, or two mentions that are not one inside the other.
        assert not new or any(not contains_phrase(a, b) and not contains_phrase(b, a) for a in new for b in new)
    else:
        assert name in new and all(contains_phrase(name, other) for other in new)


def test_a_refused_name_keeps_its_reason_on_the_record():
    before = checked("rejected:not_in_history", decision="resolve", rejected_reason="not_in_history")
    after = restated(before, turn(), RESTATED, max_words=8, max_name_words=6)
    assert after.rejected_reason == "not_in_history" and after.entity is None and after.changed


def test_the_restatement_is_held_to_the_rewrite_checks():
    assert restated(
        checked("ambiguous"), turn(company="Helix"), RESTATED, max_words=8, max_name_words=6
    ).restatement == (
        "Lyon shops using Pulse POS or Orbit Helix"  # eight words, the company's name inside them
    )
    for refused in ("NONE", "", "   ", "The visitor asks about the shops", None, 42):
        assert restated(checked("ambiguous"), turn(), refused, max_words=8, max_name_words=6) == checked("ambiguous")


@pytest.mark.parametrize("answer", ["AMBIGUOUS", "KEEP", "RESOLVE: Pulse POS", '{"decision": "KEEP", "name": ""}'])
def test_an_answer_in_the_checks_format_is_refused(answer):
    assert restated(checked("ambiguous"), turn(), answer, max_words=8, max_name_words=6) == checked("ambiguous")


@pytest.mark.parametrize(
    "answer",
    [
        ASK,  # the message, word for word
        "which SHOPS in lyon already use it",  # case and punctuation aside
        "shops in Lyon",  # a part of it
        "Lyon shops already use it Helix",  # reordered, with the company's name the checks would append
    ],
)
def test_a_restatement_that_only_repeats_the_message_is_refused(answer):
    assert restated(checked("ambiguous"), turn(company="Helix"), answer, max_words=8, max_name_words=6) == checked(
        "ambiguous"
    )


def test_a_restatement_whose_new_words_the_word_cap_cuts_off_is_refused():
    # The message's seven words, then a name: the cap keeps seven words and appends the company's name.
    restatement = f"{ASK} Pulse POS"
    assert restated(checked("ambiguous"), turn(company="Helix"), restatement, max_words=8, max_name_words=6) == (
        checked("ambiguous")
    )
    assert restated(checked("ambiguous"), turn(company="Helix"), restatement, max_words=12, max_name_words=6).changed


def test_a_restatement_that_adds_one_word_is_kept():
    after = restated(
        checked("ambiguous"), turn(), "Which shops in Lyon already use it on weekends", max_words=8, max_name_words=6
    )
    assert after.changed and after.restatement is not None


def test_a_han_restatement_counts_as_repeating_when_the_message_holds_each_of_its_characters():
    asked = turn("这个课程周末也有吗？")
    assert adds_nothing("这个课程周末也有吗", asked)
    assert not adds_nothing("Pivotane 培训周末也有吗", asked)
    # Han text has no word boundaries: "每月" is "每个月" without its measure word (the multilingual set's zh-keep-04).
    priced = turn("Klinora Solo 每个月多少钱？")
    assert adds_nothing("每月多少钱？", priced) and adds_nothing("Klinora Solo 每月", priced)
    assert not adds_nothing("每年多少钱", priced)


def test_the_configured_company_counts_as_established():
    # The rewrite checks append the company's name; the window need not hold it.
    after = restated(
        checked("ambiguous"), turn(company="Vellinor"), "Pulse POS on weekends", max_words=8, max_name_words=6
    )
    assert after.restatement == "Pulse POS on weekends Vellinor"


def test_a_name_the_conversation_did_not_establish_refuses_the_restatement():
    assert restated(
        checked("ambiguous"), turn(), "shops in Lyon using Stripe Terminal", max_words=8, max_name_words=6
    ) == checked("ambiguous")
    # Capitalised function words and words of the message are not names to check.
    assert restated(
        checked("ambiguous"), turn(), "Which Shops in Lyon use Pulse POS", max_words=8, max_name_words=6
    ).changed


@given(model_output)
def test_any_model_output_keeps_the_visitors_words_whole(output):
    after = restated(checked("ambiguous"), turn(), output, max_words=8, max_name_words=6)
    assert after.original_query == ASK
    name = restated_name(after.restatement, turn()) if after.restatement else None
    if name:
        assert after.query == f"{name} — {ASK}"
    else:
        assert after.query == ASK or after.query.startswith(f"{ASK} — ")
    assert after.changed == (after.restatement is not None)
    assert not after.has_keywords


# ---- the standalone question (§5.10) ----------------------------------------------------------------


TERMINAL = Turn(
    query=TERMINAL_ASK,
    history=tuple(Message(**message) for message in TERMINAL_HISTORY),
    mode="naive",
    company_name="Helix",
)
QUESTION = "Which retailers already run the Pulse POS loyalty terminal?"


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (QUESTION, QUESTION),
        (f"Standalone question: «{QUESTION}»\nSome explanation.", QUESTION),
        (f"\n\n  {QUESTION}  ", QUESTION),
        ("Which Helix retailers run Pulse POS?", "Which Helix retailers run Pulse POS?"),  # the company is established
    ],
)
def test_a_question_made_of_the_conversations_names_is_kept_on_one_line(output, expected):
    assert standalone_question(TERMINAL, output, max_name_words=6) == expected


@pytest.mark.parametrize(
    "output",
    [
        None,
        "",
        "NONE",
        "RESOLVE: Pulse POS",  # the check's own format: the model answered the wrong question
        "KEEP",
        TERMINAL_ASK,  # the visitor's message again adds nothing
        f"  {TERMINAL_ASK.upper()} ",
        "Which retailers in Berlin run the Pulse POS terminal?",  # Berlin: a name the conversation did not establish
        "Follow-up message:",  # the prompt's scaffold
    ],
)
def test_a_question_that_adds_nothing_or_brings_a_new_name_is_refused(output):
    assert standalone_question(TERMINAL, output, max_name_words=6) is None


@given(model_output)
def test_any_answer_gives_one_short_established_line_or_nothing(output):
    question = standalone_question(TERMINAL, output, max_name_words=6)
    if question is None:
        return
    assert question == question.strip() and "\n" not in question and len(question) <= MAX_QUERY_CHARS
    assert question.casefold() != TERMINAL_ASK.casefold()
    known = (*TERMINAL.message_texts, "Helix")
    assert not unestablished_names(question, message=TERMINAL_ASK, history=known, candidates=TERMINAL.candidates)


# ---- a name the check refuses never comes back through the restatement (issue 31, item 6) ------------

LONG_NAME = "Parcours Cerclia Avancé Premium Plus Édition Entreprise"
"""Seven words: more than the check's ``max_name_words`` (6)."""


def long_name_turn(name: str = LONG_NAME) -> Turn:
    history = (
        Message(role="user", content="What do you sell?"),
        Message(role="assistant", content=f"We sell {name} to shops."),
    )
    return Turn(query="Which shops already use it?", history=history, mode="naive")


def test_a_restatement_leading_with_a_name_the_check_refused_is_refused():
    asked = long_name_turn()
    refused = replace(checked("rejected:too_long", decision="resolve"), original_query=asked.query, query=asked.query)
    refused = replace(refused, rejected_reason="too_long")
    assert restated(refused, asked, f"{LONG_NAME} shops", max_words=8, max_name_words=6) == refused
    question = f"Which shops already use {LONG_NAME}?"
    assert standalone_question(asked, question, max_name_words=6) is None
    assert standalone_question(asked, question, max_name_words=7) == question


def test_the_turn_never_retrieves_a_name_its_record_says_was_refused():
    asked = long_name_turn()
    replies = {"reference": reference_json("RESOLVE", LONG_NAME, query=f"{LONG_NAME} shops")}
    resolver = tuned(check_sole_candidate=True)
    resolution = asyncio.run(resolver.resolve(asked, llm=ScriptedLLM(replies=replies)))
    assert resolution.rejected_reason == "too_long" and resolution.query == asked.query
    assert resolution.restatement is None


@given(st.integers(1, 9), st.integers(1, 6), st.sampled_from(["{} shops", "shops using {}", "{}"]))
def test_a_restated_name_obeys_the_checks_word_cap(words, max_name_words, form):
    name = " ".join(f"Zona{chr(ord('a') + index)}" for index in range(words))
    asked = long_name_turn(name)
    after = restated(checked("ambiguous"), asked, form.format(name), max_words=12, max_name_words=max_name_words)
    assert after.changed == (words <= max_name_words)
    if after.changed:
        assert after.query == f"{name} — {asked.query}"
