"""The one fallback point (``_decide.route``, contract §6): the visitor's words, and a safe resolution with its reason."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakes import ScriptedLLM
from lightrag_resolve import Message, Resolution, Turn
from lightrag_resolve._enforce import append_context
from lightrag_resolve._decide.route import fall_back, untouched
from strategies import chat_turns, dialogue_turns, failing_model_replies, fallback_reasons, safe_resolutions
from tuned import tuned

TURN = Turn(
    query="Which shops already run it?",
    history=(Message(role="assistant", content="Pulse POS runs in 400 shops."),),
    mode="naive",
)
SAFE = Resolution(
    query="Yes — Shall I send the pricing of Pulse POS?",
    original_query="Yes",
    mode="mix",
    path="keywords",
    context="Shall I send the pricing of Pulse POS?",
    model="small",
    candidates=("Pulse POS",),
)


def test_untouched_is_the_visitors_words_in_their_mode_on_the_given_path():
    kept = untouched(TURN, "reference")
    assert kept == Resolution(query=TURN.query, original_query=TURN.query, mode="naive", path="reference")
    assert not kept.changed and kept.fallback_reason is None


def test_untouched_records_what_the_turn_shows_beside_the_words():
    kept = untouched(TURN, "reference", model="small", raw_output="KEEP", candidates=["Pulse POS"], decision="keep")
    assert (kept.model, kept.raw_output, kept.candidates, kept.decision) == ("small", "KEEP", ("Pulse POS",), "keep")
    assert kept.query == kept.original_query == TURN.query and not kept.changed


def test_untouched_refuses_a_field_a_resolution_does_not_have():
    with pytest.raises(TypeError):
        untouched(TURN, "text", reason="timeout")


WORDS = dataclasses.replace(SAFE, query=SAFE.original_query, context=None)
"""A short reply's safe resolution when the window asks nothing: the visitor's words alone."""


def test_fall_back_on_the_visitors_words_adds_only_the_reason():
    failed = fall_back(WORDS, "timeout")
    assert failed.fallback_reason == "timeout" and failed.carry_reason is None and not failed.changed
    assert dataclasses.replace(failed, fallback_reason=None) == WORDS


def test_fall_back_on_a_carried_question_is_a_carry_not_a_fallback():
    carried = fall_back(SAFE, "timeout")
    assert carried.carry_reason == "timeout" and carried.fallback_reason is None
    assert carried.query == SAFE.query and carried.changed
    assert dataclasses.replace(carried, carry_reason=None) == SAFE


def test_fall_back_records_the_given_fields_and_keeps_the_rest():
    failed = fall_back(WORDS, "unparsable", raw_output="garbled", decision="error", elapsed_ms=12.5)
    assert (failed.fallback_reason, failed.raw_output, failed.decision, failed.elapsed_ms) == (
        "unparsable",
        "garbled",
        "error",
        12.5,
    )
    assert dataclasses.replace(failed, fallback_reason=None, raw_output=None, decision=None, elapsed_ms=0.0) == WORDS


def test_fall_back_does_not_change_the_safe_resolution_it_was_given():
    fall_back(SAFE, "llm_error", model="other")
    assert SAFE.fallback_reason is None and SAFE.carry_reason is None and SAFE.model == "small"


def test_fall_back_cannot_carry_keywords():
    with pytest.raises(ValueError, match="a fallback carries no keywords"):
        fall_back(WORDS, "timeout", ll_keywords=("Pulse POS",), hl_keywords=("retail",))
    with pytest.raises(ValueError, match="a carried short reply has a context, no keywords"):
        fall_back(SAFE, "timeout", ll_keywords=("Pulse POS",), hl_keywords=("retail",))


def test_a_record_with_a_fallback_reason_and_other_words_is_refused():
    with pytest.raises(ValueError, match="a fallback retrieves with the visitor's words exactly"):
        dataclasses.replace(SAFE, fallback_reason="timeout")
    with pytest.raises(ValueError, match="a carried short reply has a context"):
        dataclasses.replace(WORDS, carry_reason="timeout")


@given(safe_resolutions(), fallback_reasons)
def test_a_fallback_reason_means_the_visitors_words_unchanged(safe, reason):
    failed = fall_back(safe, reason)
    assert failed.query == safe.query and failed.original_query == safe.original_query
    assert failed.changed == safe.changed
    if failed.fallback_reason is not None:
        assert failed.query == failed.original_query and not failed.changed and failed.carry_reason is None
    else:
        assert failed.carry_reason == reason and failed.context is not None
    assert dataclasses.replace(failed, fallback_reason=None, carry_reason=None) == safe


@given(chat_turns, fallback_reasons)
def test_an_untouched_turn_falls_back_to_the_visitors_words(turn, reason):
    failed = fall_back(untouched(turn, "text"), reason)
    assert failed.query == failed.original_query == turn.query and not failed.changed


@given(
    dialogue_turns(),
    failing_model_replies,
    st.sampled_from(["keywords", "text", "reference"]),
    st.booleans(),
)
def test_a_fallback_reason_is_the_visitors_words_unchanged_on_every_path(turn, reply, failing_role, every_turn):
    """Whatever the model does on whichever call, ``fallback_reason`` set means retrieval gets the visitor's words.

    One role answers ``reply`` (odd text, the check's format, hostile text or an error); the others answer
    with the same, so each path meets it. A carried short reply keeps its question with ``carry_reason`` instead.
    """
    replies = {role: reply for role in ("keywords", "text", "reference")}
    replies[failing_role] = RuntimeError("model down")
    resolver = tuned(
        resolve_unprompted_replies=every_turn,
        check_every_follow_up=every_turn,
        check_sole_candidate=every_turn,
        fuse_standalone_question=every_turn,
    )
    resolution = asyncio.run(resolver.resolve(turn, llm=ScriptedLLM(replies=replies), model="fake"))
    if resolution.fallback_reason is not None:
        assert resolution.query == resolution.original_query == turn.query
        assert not resolution.changed and resolution.carry_reason is None and not resolution.has_keywords
    if resolution.carry_reason is not None:
        assert resolution.path in {"keywords", "text"} and resolution.context
        assert resolution.query == append_context(turn.query, resolution.context) and resolution.changed
