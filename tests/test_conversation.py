"""One turn as the resolver sees it (``_turn.conversation``): messages, the history window and the conversation."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lightrag_resolve import Message, ResolverConfig, ResolverTuning, Turn
from lightrag_resolve._turn.conversation import CONDENSE_WINDOW, recent_messages
from lightrag_resolve._languages.text import MAX_PROMPT_PART_CHARS
from strategies import hostile_text, messy_history, queries

ASK = "Which retailers already run it?"
SHOPS = (
    Message(role="user", content="What do you sell to shops?"),
    Message(role="assistant", content="For shops Helix sells Pulse POS and Orbit CRM, often together."),
)
TURN = Turn(query=ASK, history=SHOPS, mode="naive", company_name="Helix")
"""A turn built by hand: its conversation is its window."""
OFFER = (
    Message(role="user", content="Which product?"),
    Message(role="assistant", content="Shall I send you the pricing of one of them, Kadoro or Magazio?"),
)


def usable(entry: object) -> bool:
    """Whether ``recent_messages`` keeps a ``conversation_history`` entry, as its docstring states."""
    return (
        isinstance(entry, dict)
        and entry.get("role") in ("user", "assistant")
        and isinstance(entry.get("content"), str)
        and bool(entry["content"].strip())
    )


# ---- Message ---------------------------------------------------------------------


def test_a_message_is_labelled_by_its_author():
    assert Message(role="user", content="Hi").speaker == "Visitor"
    assert Message(role="assistant", content="Hello").speaker == "Assistant"
    assert Message(role="system", content="Be brief").speaker == "System"
    assert Message(role="", content="?").speaker == "Message"


def test_a_message_is_frozen_and_keyword_only():
    message = Message(role="user", content="Hi")
    with pytest.raises(dataclasses.FrozenInstanceError):
        message.content = "changed"  # type: ignore[misc]
    with pytest.raises(TypeError):
        Message("user", "Hi")  # type: ignore[misc]


# ---- recent_messages ---------------------------------------------------------------


def test_history_window_reads_the_last_messages_only():
    raw = [
        {"role": "user", "content": "first"},
        {"role": "system", "content": "ignored"},
        "garbage",
        {"role": "assistant", "content": "   "},
        {"role": "assistant", "content": "second"},
        {"role": "user", "content": "third"},
    ]
    assert [m.content for m in recent_messages(raw, 2)] == ["second", "third"]
    assert recent_messages("not a list", 2) == () and recent_messages(None, 2) == ()


def test_unusable_entries_are_skipped_not_raised_on():
    raw = (
        {"role": "user", "content": "  padded  "},
        {"role": 1, "content": "a role that is no string"},
        {"role": "assistant", "content": ["not", "text"]},
        {"content": "no role"},
        {"role": "assistant"},
        None,
        ("user", "a pair, not a mapping"),
        {"role": "tool", "content": "a tool result"},
        {"role": "assistant", "content": "kept"},
    )
    assert recent_messages(raw, 10) == (
        Message(role="user", content="padded"),
        Message(role="assistant", content="kept"),
    )


@pytest.mark.parametrize("history_value", [b"user: hi", {"role": "user", "content": "hi"}, 42, object()])
def test_a_history_that_is_not_a_list_or_tuple_holds_no_message(history_value):
    assert recent_messages(history_value, 5) == ()


@pytest.mark.parametrize("limit", [0, -1, -20])
def test_a_limit_below_one_keeps_no_message(limit):
    assert recent_messages([{"role": "user", "content": "hi"}], limit) == ()


@given(messy_history, st.integers(1, 14))
def test_recent_messages_are_the_last_usable_entries_stripped_in_order(raw, limit):
    kept = [entry for entry in raw if usable(entry)][-limit:]
    assert recent_messages(raw, limit) == tuple(Message(role=e["role"], content=e["content"].strip()) for e in kept)


# ---- Turn.from_history: the window and the conversation ------------------------------


def test_turn_from_history_windows_and_clips_as_configured():
    config = ResolverConfig(company_name="Helix", history_messages=1)
    raw = [{"role": "user", "content": "a b c d e"}, {"role": "assistant", "content": "one two three four"}, "junk"]
    built = Turn.from_history("Santé", raw, mode="mix", config=config, tuning=ResolverTuning(history_message_words=3))
    assert [m.content for m in built.history] == ["one two three four"]
    assert built.history_text == "Assistant: one two three …"
    assert built.company_name == "Helix" and built.mode == "mix"
    assert Turn.from_history("Santé", None, mode="naive").is_first


def test_the_conversation_is_bounded_and_a_turn_built_by_hand_reads_its_window():
    long = [{"role": "user" if n % 2 == 0 else "assistant", "content": f"message {n}"} for n in range(20)]
    turn = Turn.from_history(ASK, long, mode="naive", config=ResolverConfig(company_name="Helix"))
    assert [message.content for message in turn.conversation] == [f"message {n}" for n in range(12, 20)]
    assert TURN.conversation == () and TURN.conversation_text == TURN.history_text


def test_the_conversation_reads_earlier_turns_than_the_window():
    earlier = [
        {"role": "user", "content": "Do you work with bakeries in Lyon?"},
        {"role": "assistant", "content": "Yes, Maison Poilâne in Lyon is a customer."},
        *(dataclasses.asdict(message) for message in SHOPS),
    ]
    turn = Turn.from_history(ASK, earlier, mode="mix")
    assert turn.history == SHOPS and len(turn.conversation) == 4
    assert "Maison Poilâne" in turn.conversation_text and "Maison Poilâne" not in turn.history_text
    assert turn.conversation_text.splitlines() == [
        "Visitor: Do you work with bakeries in Lyon?",
        "Assistant: Yes, Maison Poilâne in Lyon is a customer.",
        *turn.history_text.splitlines(),
    ]


def test_a_window_longer_than_the_condense_window_is_the_whole_conversation():
    raw = [{"role": "user", "content": f"message {n}"} for n in range(CONDENSE_WINDOW + 6)]
    turn = Turn.from_history(ASK, raw, mode="mix", config=ResolverConfig(history_messages=CONDENSE_WINDOW + 2))
    assert len(turn.history) == CONDENSE_WINDOW + 2 and turn.conversation == turn.history


@given(messy_history, st.integers(1, 12), queries)
def test_the_window_is_the_tail_of_the_conversation_which_is_the_tail_of_the_usable_history(raw, size, query):
    turn = Turn.from_history(query, raw, mode="mix", config=ResolverConfig(history_messages=size))
    assert turn.conversation == recent_messages(raw, max(CONDENSE_WINDOW, size))
    assert turn.history == turn.conversation[len(turn.conversation) - len(turn.history) :]
    assert len(turn.history) == min(size, len(turn.conversation))
    assert turn.is_first == (not turn.conversation)


def test_from_history_clips_the_messages_as_a_turn_built_by_hand_does():
    raw = [{"role": "assistant", "content": " ".join(f"w{n}" for n in range(400))}]
    built = Turn.from_history("Yes", raw, mode="mix")
    by_hand = Turn(query="Yes", history=(Message(role="assistant", content=raw[0]["content"]),), mode="mix")
    assert built.message_texts == by_hand.message_texts
    assert built.message_texts[0].endswith(" …") and len(built.message_texts[0].split()) < 400


def test_the_company_name_comes_from_the_config_stripped():
    assert Turn.from_history(ASK, list(map(dataclasses.asdict, SHOPS)), mode="mix").company_name is None
    config = ResolverConfig(company_name="  Helix  ")
    assert Turn.from_history(ASK, [], mode="mix", config=config).company_name == "Helix"


# ---- what the model sees: clipped, one line each ------------------------------------------


def test_each_message_is_one_line_clipped_to_its_words():
    history = (
        Message(role="user", content="first line\nsecond line"),
        Message(role="assistant", content="one two three four five six"),
    )
    turn = Turn(query="Yes", history=history, mode="mix", message_words=4)
    assert turn.message_texts == ("first line second line", "one two three four …")
    assert turn.history_text == "Visitor: first line second line\nAssistant: one two three four …"


def test_the_visitors_message_is_shown_on_one_line_within_its_character_bound():
    turn = Turn(query="Which one\nis it?", history=SHOPS, mode="mix")
    assert turn.prompt_query == "Which one is it?"
    long = Turn(query="word " * 2_000, history=SHOPS, mode="mix")
    assert len(long.prompt_query) <= MAX_PROMPT_PART_CHARS and long.prompt_query.endswith(" …")


@given(st.lists(hostile_text, max_size=3), hostile_text, st.integers(1, 30))
def test_every_window_line_is_one_clipped_message_with_its_speaker(texts, query, words):
    messages = tuple(Message(role=("user", "assistant")[n % 2], content=text) for n, text in enumerate(texts))
    turn = Turn(query=query, history=messages, mode="mix", message_words=words)
    lines = turn.history_text.split("\n") if messages else []
    assert lines == [f"{m.speaker}: {text}" for m, text in zip(messages, turn.message_texts)]
    for text in turn.message_texts:
        assert "\n" not in text and len(text) <= MAX_PROMPT_PART_CHARS
        assert len(text.removesuffix(" …").split()) <= words
    assert "\n" not in turn.prompt_query and len(turn.prompt_query) <= MAX_PROMPT_PART_CHARS


# ---- candidates, the pick and the question answered, through Turn ---------------------------


def test_the_candidates_are_read_from_the_window_as_clipped_without_the_company():
    said = Turn(query="Yes", history=SHOPS, mode="mix", company_name="Helix")
    assert set(said.candidates.names) == {"Pulse POS", "Orbit CRM"}
    clipped = Turn(
        query="Yes",
        history=(Message(role="assistant", content="We sell many things here and at the very end Zorblat"),),
        mode="mix",
        message_words=5,
    )
    assert clipped.candidates.names == ()  # the name lies past what the model is shown


def test_graph_known_names_in_the_window_are_candidates():
    history = (Message(role="assistant", content="Our loyalty terminal works offline."),)
    assert Turn(query="Yes", history=history, mode="mix").candidates.names == ()
    known = Turn(query="Yes", history=history, mode="mix", known_names=("loyalty terminal",))
    assert known.candidates.names == ("loyalty terminal",)


def test_a_reply_picks_one_option_of_the_question_it_answers():
    assert Turn(query="the second one", history=OFFER, mode="mix").picked == "Magazio"
    assert Turn(query="Kadoro please", history=OFFER, mode="mix").picked == "Kadoro"
    assert Turn(query="Yes please", history=OFFER, mode="mix").picked is None
    assert Turn(query="the second one", history=OFFER[:1], mode="mix").picked is None


def test_a_reply_follows_the_assistants_question_only_when_the_assistant_spoke_last():
    assert Turn(query="Yes please", history=OFFER, mode="mix").follows_question
    visitor_last = (*OFFER, Message(role="user", content="Hm."))
    assert not Turn(query="Yes please", history=visitor_last, mode="mix").follows_question
    assert not Turn(query="Yes please", history=(), mode="mix").follows_question


def test_an_acceptance_carries_the_offer_in_whole_sentences():
    accepting = Turn(query="Yes please", history=OFFER, mode="mix", context_words=5)
    assert accepting.accepted_offer == OFFER[1].content
    # Five words are asked for; the sentence they fall in is carried whole, never cut.
    assert accepting.reply_context == "Shall I send you the pricing of one of them, Kadoro or Magazio?"
    assert Turn(query="the second one", history=OFFER, mode="mix").accepted_offer is None
    assert Turn(query="Yes please", history=OFFER, mode="mix", context_words=0).reply_context is None
    assert Turn(query="Yes please", history=OFFER[:1], mode="mix").reply_context is None
