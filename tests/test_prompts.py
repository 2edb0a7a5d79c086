"""The resolver prompts (``_model.prompts``, contract §5): what each shows, the bounds it asks for, the schemas."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lightrag_resolve import Message, OpenDomainResolver, Resolver, ResolverConfig, Turn
from lightrag_resolve._model.parse import ReferenceAnswer, parse_reference_answer
from lightrag_resolve._model.prompts import (
    ANSWER_MAX_HL,
    ANSWER_MAX_LL,
    KEYWORD_MAX_TOKENS,
    ONE_LINE,
    REFERENCE_MAX_TOKENS,
    RESTATEMENT_MAX_CHARS,
    keyword_prompt,
    keyword_schema,
    reference_prompt,
    reference_schema,
    text_max_tokens,
    text_prompt,
)
from strategies import company_names, keyword_caps, plain_or_hostile_text, queries
from tuned import tuned

SHOPS = (
    Message(role="user", content="What do you sell to shops?"),
    Message(role="assistant", content="For shops Helix sells Pulse POS and Orbit CRM, often together. Which one?"),
)
WINDOW_LINES = [
    "Conversation:",
    "Visitor: What do you sell to shops?",
    "Assistant: For shops Helix sells Pulse POS and Orbit CRM, often together. Which one?",
    "",
    "Names in the conversation:",
    "1. Pulse POS",
    "2. Orbit CRM",
    "",
]
"""The window and the numbered candidates, as every prompt's user part starts for ``SHOPS``."""


def _turn(query: str, mode: str = "mix", history: tuple[Message, ...] = SHOPS, company: str | None = "Helix") -> Turn:
    return Turn(query=query, history=history, mode=mode, company_name=company)


GRAPH_MODES = ("local", "global", "hybrid", "mix")


def every_prompt(turn: Turn):
    """Each builder's prompt for ``turn``, at the default bounds."""
    return (
        keyword_prompt(turn, max_ll=5, max_hl=3),
        text_prompt(turn, max_words=8),
        reference_prompt(turn, max_words=8),
    )


def window_turn(texts: list[str], query: str, company: str | None = None) -> Turn:
    history = tuple(Message(role=("user", "assistant")[n % 2], content=text) for n, text in enumerate(texts))
    return Turn(query=query, history=history, mode="mix", company_name=company)


# ---- the bounds each prompt asks for ------------------------------------------------------


def test_the_prompts_carry_their_bounds():
    resolver = Resolver()
    assert resolver.keyword_prompt(_turn("Santé")).max_tokens == KEYWORD_MAX_TOKENS == 64
    assert resolver.keyword_prompt(_turn("Santé")).stop == ()
    text = resolver.text_prompt(_turn("Santé", mode="naive"))
    assert (text.max_tokens, text.stop) == (text_max_tokens(8), ONE_LINE) == (32, ("\n",))
    # The check answers JSON, which may break its lines; it asks for no keywords, in any mode (issue 42).
    for mode in ("naive", "mix"):
        check = resolver.reference_prompt(_turn("Est-ce disponible le week-end ?", mode=mode))
        assert (check.max_tokens, check.stop) == (REFERENCE_MAX_TOKENS, ()) == (64, ())


@pytest.mark.parametrize("words", [1, 4, 8, 30])
def test_a_rewrite_asks_for_its_words_and_gets_three_tokens_a_word_and_a_margin(words):
    prompt = text_prompt(_turn("Santé"), max_words=words)
    assert f"at most {words} words" in prompt.system
    assert prompt.max_tokens == text_max_tokens(words) == 3 * words + 8
    assert prompt.stop == ONE_LINE


@pytest.mark.parametrize("words", [1, 4, 8, 30])
def test_the_checks_restatement_asks_for_the_words_the_resolver_is_configured_with(words):
    assert f"a search query of at most {words} words" in reference_prompt(_turn("Which?"), max_words=words).system
    resolver = Resolver(ResolverConfig(max_query_words=words))
    assert f"a search query of at most {words} words" in resolver.reference_prompt(_turn("Which?")).system


def test_the_keyword_prompt_asks_for_its_caps_as_json():
    prompt = keyword_prompt(_turn("Santé"), max_ll=4, max_hl=2, max_words=6)
    assert "JSON only" in prompt.system
    assert "at most 6 words" in prompt.system
    assert '"terms" at most 2' in prompt.system and '"themes" at most 2' in prompt.system  # the answer's caps
    fewer = keyword_prompt(_turn("Santé"), max_ll=1, max_hl=1, max_words=6)
    assert '"terms" at most 1' in fewer.system and '"themes" at most 1' in fewer.system  # within the configured caps
    assert prompt.stop == ()  # a JSON answer may break its lines


# ---- what each prompt shows -----------------------------------------------------------------------


def test_a_short_reply_is_shown_after_the_window_and_the_numbered_names():
    for prompt in (
        keyword_prompt(_turn("The second one"), max_ll=5, max_hl=3),
        text_prompt(_turn("The second one"), max_words=8),
    ):
        assert prompt.user.splitlines() == [*WINDOW_LINES, "Reply: The second one"]


def test_a_follow_up_is_shown_as_a_message():
    for mode in ("naive", "mix"):
        prompt = Resolver().reference_prompt(_turn("Is it free?", mode=mode))
        assert prompt.user.splitlines() == [*WINDOW_LINES, "Message: Is it free?"]


def test_a_pick_found_in_code_is_shown_under_the_reply():
    for prompt in (
        keyword_prompt(_turn("The second one"), max_ll=5, max_hl=3, pick="Orbit CRM"),
        text_prompt(_turn("The second one"), max_words=8, pick="Orbit CRM"),
    ):
        assert prompt.user.endswith("Reply: The second one\n(The reply picks: Orbit CRM)")


def test_a_window_without_names_shows_no_name_list():
    turn = _turn("Is it\nfree?", history=SHOPS[:1])
    for prompt in every_prompt(turn):
        assert "Names in the conversation" not in prompt.user
        assert prompt.user.splitlines()[-1] in {"Reply: Is it free?", "Message: Is it free?"}


def test_the_company_is_named_only_when_configured():
    for with_company, without in zip(
        every_prompt(_turn("Is it free?")), every_prompt(_turn("Is it free?", company=None))
    ):
        assert " on Helix's website" in with_company.system
        assert "website" not in without.system


def test_each_prompt_asks_for_its_own_answer():
    keyword, text, reference = every_prompt(_turn("Is it free?"))
    assert keyword.system.startswith("You help a search engine understand a short reply")
    assert text.system.startswith("You help a search engine understand a short reply") and "JSON" not in text.system
    assert reference.system.startswith("You check whether a chat message")
    for decision in ("RESOLVE: <name>", "KEEP", "AMBIGUOUS"):
        assert decision in reference.system
    assert reference.system.endswith("Answer with JSON: decision, name, query.")
    assert all("NONE" in prompt.system for prompt in (keyword, text))


# ---- what the check's one answer holds ------------------------------------------------------------


@pytest.mark.parametrize("mode", GRAPH_MODES)
def test_the_check_asks_for_no_keywords_in_any_mode_the_code_builds_lightrags(mode):
    resolver = Resolver(ResolverConfig(max_ll_keywords=4, max_hl_keywords=2))
    system = resolver.reference_prompt(_turn("Is it free?", mode=mode)).system
    assert "keywords" not in system
    assert system == resolver.reference_prompt(_turn("Is it free?", mode="naive")).system


def test_the_check_always_asks_for_the_query_except_for_keep_whatever_the_tuning():
    plain = Resolver().reference_prompt(_turn("Is it free?")).system
    assert 'also give "query": the message as a search query' in plain and '("" for KEEP)' in plain
    # One prompt serves the restatement (§5.9) and the standalone question (§5.10): the switch changes nothing.
    assert tuned(fuse_standalone_question=True).reference_prompt(_turn("Is it free?")).system == plain


def test_the_decision_is_asked_first_as_a_line_and_what_the_search_needs_after_it_in_words_only():
    system = reference_prompt(_turn("Is it free?"), max_words=8).system
    decision, _, search = system.partition('Then, for a search engine, also give "query"')
    assert search and "RESOLVE: <name>" in decision and "keywords" not in decision
    examples = [line.split(" -> ", 1)[1] for line in decision.splitlines() if " -> " in line]
    assert [parse_reference_answer(example) for example in examples] == [
        ReferenceAnswer(decision="resolve", name="Orbit CRM"),
        ReferenceAnswer(decision="keep"),
        ReferenceAnswer(decision="ambiguous"),
    ]
    assert "[" not in system and "{" not in system  # no example keywords: the model copied them into its answers


@given(
    st.lists(plain_or_hostile_text, max_size=3),
    st.lists(plain_or_hostile_text, max_size=3),
    queries,
    queries,
    company_names,
)
def test_the_instructions_depend_only_on_the_company_and_the_bounds_never_on_the_turn(
    first, second, ask, other, company
):
    one, two = window_turn(first, ask, company), window_turn(second, other, company)
    for a, b in zip(every_prompt(one), every_prompt(two)):
        assert a.system == b.system  # provider prompt caches reuse the instruction part


@given(st.lists(plain_or_hostile_text, max_size=3), plain_or_hostile_text)
def test_every_user_prompt_shows_the_window_as_the_model_sees_it_and_ends_with_the_message_on_one_line(texts, query):
    turn = window_turn(texts, query)
    keyword, text, reference = every_prompt(turn)
    for prompt, label in ((keyword, "Reply"), (text, "Reply"), (reference, "Message")):
        assert prompt.user.startswith(f"Conversation:\n{turn.history_text}")
        assert prompt.user.endswith(f"\n\n{label}: {turn.prompt_query}")


# ---- the schemas --------------------------------------------------------------------------------


@given(keyword_caps, keyword_caps)
def test_the_keyword_schema_caps_each_list_at_the_answers_caps_within_the_configured_ones(max_ll, max_hl):
    """Issue 42: keys of one token and lists no longer than LightRAG's extraction writes."""
    schema = keyword_schema(max_ll=max_ll, max_hl=max_hl)
    assert schema["type"] == "object"
    assert schema["required"] == ["query", "terms", "themes"] == list(schema["properties"])
    properties = schema["properties"]
    assert properties["query"] == {"type": "string", "maxLength": RESTATEMENT_MAX_CHARS}
    for name, cap in (("terms", min(max_ll, ANSWER_MAX_LL)), ("themes", min(max_hl, ANSWER_MAX_HL))):
        assert properties[name] == {"type": "array", "items": {"type": "string", "maxLength": 40}, "maxItems": cap}


def _shapes(schema):
    """The reference schema's shapes, RESOLVE's first, KEEP's and AMBIGUOUS's last, each checked closed."""
    assert list(schema) == ["anyOf"]
    for shape in schema["anyOf"]:
        assert shape["type"] == "object" and shape["additionalProperties"] is False
        assert shape["required"] == list(shape["properties"])
    return [shape["properties"] for shape in schema["anyOf"]]


def test_the_reference_schema_ends_a_resolve_at_its_name_and_asks_the_others_for_a_query():
    resolve, other = _shapes(reference_schema(_turn("Is it free?")))
    assert list(resolve) == ["decision", "name"] and list(other) == ["decision", "name", "query"]
    assert resolve["decision"] == {"type": "string", "enum": ["RESOLVE"]}
    assert other["decision"] == {"type": "string", "enum": ["KEEP", "AMBIGUOUS"]}
    assert resolve["name"] == other["name"] == {"type": "string", "enum": ["Pulse POS", "Orbit CRM", ""]}
    assert other["query"] == {"type": "string", "maxLength": RESTATEMENT_MAX_CHARS} and RESTATEMENT_MAX_CHARS == 64


def test_a_resolve_whose_name_may_be_refused_keeps_its_query():
    """The restatement is read when the name is refused: a name the message already says, a free name."""
    ends, restated, other = _shapes(reference_schema(_turn("Does Pulse POS work with it?")))
    assert ends["name"]["enum"] == ["Orbit CRM", ""] and list(ends) == ["decision", "name"]
    assert restated["name"]["enum"] == ["Pulse POS"] and list(restated) == ["decision", "name", "query"]
    assert other["name"]["enum"] == ["Pulse POS", "Orbit CRM", ""]  # together, the same choices as one shape
    # No candidate found in code: the name is free text, accepted only when the conversation said it (§5.3).
    resolve, other = _shapes(reference_schema(_turn("Is it free?", history=SHOPS[:1])))
    assert resolve["name"] == other["name"] == {"type": "string", "maxLength": 60}
    assert list(resolve) == list(other) == ["decision", "name", "query"]


def test_the_open_domain_profile_keeps_a_resolves_query_for_its_standalone_question():
    resolve, other = _shapes(OpenDomainResolver().reference_schema(_turn("Is it free?")))
    assert list(resolve) == list(other) == ["decision", "name", "query"]
    assert _shapes(reference_schema(_turn("Is it free?"), restate_resolved=True)) == [resolve, other]


@pytest.mark.parametrize("mode", ["naive", *GRAPH_MODES])
def test_the_resolvers_reference_schema_is_the_same_in_every_mode(mode):
    schema = Resolver(ResolverConfig(max_ll_keywords=4, max_hl_keywords=2)).reference_schema(
        _turn("Is it free?", mode=mode)
    )
    assert schema == reference_schema(_turn("Is it free?", mode=mode))
    assert "keywords" not in json.dumps(schema)


@given(st.lists(plain_or_hostile_text, max_size=3), company_names)
def test_the_reference_schemas_names_are_exactly_the_turns_candidates_and_the_empty_name(texts, company):
    turn = window_turn(texts, "Is it free?", company)
    *resolve, other = _shapes(reference_schema(turn))
    assert sorted(name for shape in resolve for name in shape["name"].get("enum", [])) == sorted(
        other["name"].get("enum", [])
    )
    name = other["name"]
    if turn.candidates.names:
        assert name["enum"] == [*turn.candidates.names, ""]
    else:
        assert "enum" not in name and name["maxLength"] == 60
