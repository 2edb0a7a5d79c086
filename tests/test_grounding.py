"""Grounding: only names the conversation established reach retrieval (``_grounding``)."""

from __future__ import annotations

import asyncio

from hypothesis import given
from hypothesis import strategies as st

from fakes import ScriptedLLM, keyword_json
from lightrag_resolve import Message, Resolver, Turn
from lightrag_resolve._candidates import Candidates
from lightrag_resolve._enforce import contains_phrase
from lightrag_resolve._enforce import focus_on_pick, ground_keywords, ground_reference_name
from strategies import hostile_text, phrase, plain_or_hostile_text

HISTORY = (
    Message(role="user", content="What do you sell to shops?"),
    Message(role="assistant", content="Shall I send you the pricing of Kadoro, Magazio or Cerclia?"),
)
OPTIONS = Candidates(names=("Kadoro", "Magazio", "Cerclia"), options=("Kadoro", "Magazio", "Cerclia"))


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


def test_a_reference_name_must_be_a_candidate():
    assert ground_reference_name("2", OPTIONS) == "Magazio"
    assert ground_reference_name("magazio", OPTIONS) == "Magazio"
    assert ground_reference_name("Orbit CRM", OPTIONS) is None


@given(st.lists(plain_or_hostile_text, max_size=6), st.sampled_from(["Yes", "the second one", "Cerclia"]))
def test_low_level_keywords_are_always_grounded(proposed, reply):
    turn = Turn(query=reply, history=HISTORY, mode="mix")
    llm = ScriptedLLM(replies={"keywords": keyword_json(proposed, ["pricing"], query=" ".join(proposed))})
    resolution = asyncio.run(Resolver().resolve(turn, llm=llm))
    for keyword in resolution.ll_keywords:
        assert turn.candidates.matching(keyword) is not None or contains_phrase((reply, *turn.message_texts), keyword)
    assert bool(resolution.ll_keywords) == bool(resolution.hl_keywords)
    if resolution.changed:
        assert resolution.query.startswith(f"{reply} — ") or contains_phrase(resolution.query, reply)
    if reply == "the second one" and resolution.ll_keywords:
        assert resolution.ll_keywords[0] == "Magazio"
        assert not any(keyword in {"Kadoro", "Cerclia"} for keyword in resolution.ll_keywords)


@given(st.one_of(phrase, hostile_text, st.sampled_from(["Kadoro", "1", "3", "Cerclia (the CRM)"])))
def test_a_resolved_reference_names_a_candidate(name):
    turn = Turn(query="Which retailers already run it?", history=HISTORY, mode="mix")
    resolution = asyncio.run(Resolver().resolve(turn, llm=ScriptedLLM(replies={"reference": f"RESOLVE: {name}"})))
    if resolution.changed:
        assert resolution.entity is not None and ground_reference_name(resolution.entity, turn.candidates) is not None
        assert resolution.query == f"{resolution.entity} — {turn.query}"
