"""The one fallback point (``_fallback``, contract §6): the visitor's words, and a safe resolution with its reason."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given

from lightrag_resolve import Message, Resolution, Turn
from lightrag_resolve._fallback import fall_back, untouched
from strategies import chat_turns, fallback_reasons, safe_resolutions

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


def test_fall_back_adds_only_the_reason():
    failed = fall_back(SAFE, "timeout")
    assert failed.fallback_reason == "timeout"
    assert dataclasses.replace(failed, fallback_reason=None) == SAFE


def test_fall_back_records_the_given_fields_and_keeps_the_rest():
    failed = fall_back(SAFE, "unparsable", raw_output="garbled", decision="error", elapsed_ms=12.5)
    assert (failed.fallback_reason, failed.raw_output, failed.decision, failed.elapsed_ms) == (
        "unparsable",
        "garbled",
        "error",
        12.5,
    )
    assert dataclasses.replace(failed, fallback_reason=None, raw_output=None, decision=None, elapsed_ms=0.0) == SAFE


def test_fall_back_does_not_change_the_safe_resolution_it_was_given():
    fall_back(SAFE, "llm_error", model="other")
    assert SAFE.fallback_reason is None and SAFE.model == "small"


def test_fall_back_cannot_carry_keywords():
    with pytest.raises(ValueError, match="a fallback carries no keywords"):
        fall_back(SAFE, "timeout", ll_keywords=("Pulse POS",), hl_keywords=("retail",))


@given(safe_resolutions(), fallback_reasons)
def test_a_fallback_keeps_the_query_of_any_safe_resolution(safe, reason):
    failed = fall_back(safe, reason)
    assert failed.query == safe.query and failed.original_query == safe.original_query
    assert failed.changed == safe.changed and failed.fallback_reason == reason
    assert dataclasses.replace(failed, fallback_reason=safe.fallback_reason) == safe


@given(chat_turns, fallback_reasons)
def test_an_untouched_turn_falls_back_to_the_visitors_words(turn, reason):
    failed = fall_back(untouched(turn, "text"), reason)
    assert failed.query == failed.original_query == turn.query and not failed.changed
