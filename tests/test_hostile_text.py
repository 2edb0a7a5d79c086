"""Hostile text (issue 13): invisible, control and surrogate characters, huge tokens, odd question marks, odd models.

Every model here is a fake (``ScriptedLLM`` or a small function named as one)
that returns what a broken or hostile model would.
"""

from __future__ import annotations

import asyncio
import json
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fakes import ScriptedLLM, keyword_json
from lightrag_resolve._turn.reply_context import MAX_CONTEXT_CHARS
from lightrag_resolve import Message, Resolution, Resolver, Turn
from lightrag_resolve._enforce import accept_reference_name, clean_keywords, enforce_keywords, enforce_text_query
from lightrag_resolve._model.parse import parse_keyword_answer
from lightrag_resolve._model.prompts import Prompt, keyword_prompt, reference_prompt, text_prompt
from lightrag_resolve._languages.text import (
    MAX_KEYWORD_CHARS,
    MAX_NAME_CHARS,
    MAX_PROMPT_PART_CHARS,
    MAX_QUERY_CHARS,
    MAX_RAW_OUTPUT_CHARS,
    clean_single_line,
    clip_chars,
    normalize_for_compare,
    prompt_part,
    recorded_output,
)
from strategies import FORMAT_CHARS, cjk_run, hostile_model_output, hostile_text, hostile_turns, huge_token, phrase
from tuned import tuned

FALLBACKS = {
    "llm_error",
    "timeout",
    "unparsable",
    "incomplete",
    "scaffold",
    "empty",
    "keep",
    "ambiguous",
    "stands_alone",
    "gate_declined",
    "unprompted",
    "ungrounded",
    "no_candidates",
    "first_turn",
    "unsupported_mode",
    "disabled",
    "rejected:not_in_history",
    "rejected:not_a_candidate",
    "rejected:company",
    "rejected:already_named",
    "rejected:too_long",
}
LABEL = len("Assistant: ")


def invisible_free(text: str) -> bool:
    """No control (Cc), format (Cf) or surrogate (Cs) code point: what may reach retrieval."""
    return all(unicodedata.category(ch) not in ("Cc", "Cf", "Cs") for ch in text)


def turn(
    query: str, history: list[str] | tuple[Message, ...], mode: str = "mix", company: str | None = "Acme Software"
) -> Turn:
    messages = tuple(
        m if isinstance(m, Message) else Message(role=("user", "assistant")[i % 2], content=m)
        for i, m in enumerate(history)
    )
    return Turn(query=query, history=messages, mode=mode, company_name=company)


def resolve(t: Turn, reply, resolver: Resolver | None = None) -> tuple[Resolution, ScriptedLLM]:
    llm = ScriptedLLM(replies={"keywords": reply, "text": reply, "reference": reply})
    # The model's answer is what these tests feed: it is asked even where the window names one candidate.
    resolver = resolver or tuned(company_name=t.company_name, check_sole_candidate=True)
    return asyncio.run(resolver.resolve(t, llm=llm, model="fake")), llm


def assert_prompt_bounded(prompt: Prompt) -> None:
    for line in prompt.user.splitlines():
        assert len(line) <= MAX_PROMPT_PART_CHARS + LABEL, len(line)
    assert invisible_free(prompt.user.replace("\n", ""))


# ---- 1. invisible characters and the company / name guards ------------------------


@pytest.mark.parametrize("invisible", ["\u200b", "\u00ad", "\ufeff", "\u2060"])
def test_an_invisible_character_never_makes_the_company_a_new_name(invisible):
    history = ["Who makes Pulse POS?", f"Acme Software{invisible} makes Pulse POS for retailers."]
    resolution, _ = resolve(turn("Which retailers already run it?", history), f"RESOLVE: Acme Software{invisible}")
    assert resolution.fallback_reason == "rejected:company" and resolution.query == "Which retailers already run it?"
    spaced, _ = resolve(turn("Which retailers already run it?", history), f"RESOLVE: Acme{invisible} Software")
    assert spaced.fallback_reason == "rejected:company"


@pytest.mark.parametrize("invisible", ["\u200b", "\u00ad", "\ufeff", "\u2060"])
def test_an_accepted_name_carries_no_invisible_character(invisible):
    history = ["What do you sell?", f"We sell Pul{invisible}se POS to retailers."]
    resolution, _ = resolve(turn("Which retailers already run it?", history), f"RESOLVE: Pulse POS{invisible}")
    assert resolution.entity == "Pulse POS"
    assert resolution.query == "Pulse POS — Which retailers already run it?"
    already, _ = resolve(turn(f"Which of these retailers run Pulse{invisible} POS?", history), "RESOLVE: Pulse POS")
    assert already.fallback_reason == "rejected:already_named"


@given(phrase, st.lists(st.sampled_from(FORMAT_CHARS), min_size=1, max_size=4), st.data())
def test_a_name_compares_equal_whatever_format_characters_it_carries(name, invisibles, data):
    salted = name
    for ch in invisibles:
        at = data.draw(st.integers(0, len(salted)))
        salted = salted[:at] + ch + salted[at:]
    assert normalize_for_compare(salted) == normalize_for_compare(name)
    assert normalize_for_compare("Ｈｅｌｉｘ") == normalize_for_compare("HELIX") == "helix"


# ---- 2. prompt labels are not established names --------------------------------------


@pytest.mark.parametrize("label", ["Assistant", "Visitor", "Conversation", "Message", "Reply"])
def test_a_prompt_label_is_never_an_established_name(label):
    history = ["What do you sell?", "We sell Pulse POS and Orbit CRM."]
    resolution, _ = resolve(turn("Which retailers already run it?", history), f"RESOLVE: {label}")
    assert resolution.fallback_reason == "rejected:not_in_history" and not resolution.changed


def test_a_name_the_messages_said_is_accepted_even_if_it_is_a_label_word():
    history = ["What do you sell?", "Our Assistant module answers your customers."]
    resolution, _ = resolve(turn("Which retailers already run it?", history), "RESOLVE: Assistant module")
    assert resolution.entity == "Assistant module"


def test_a_name_never_matches_across_two_messages():
    t = turn("Which one do retailers run?", ["We sell Pulse", "POS terminals and Orbit CRM."])
    assert t.message_texts == ("We sell Pulse", "POS terminals and Orbit CRM.")
    outcome = accept_reference_name(
        "Pulse POS", history_text=t.message_texts, message=t.query, company_name=None, max_words=6
    )
    assert outcome.rejected_reason == "not_in_history"


# ---- 3. every prompt part is bounded in characters -----------------------------------


@pytest.mark.parametrize(
    "content",
    ["数" * 1_000_000, "x" * 1_000_000, "German " * 150_000, "\x00" * 1_000_000, "\u200b" * 1_000_000],
    ids=["1 MB of CJK", "1 MB token", "1 MB of words", "1 MB of NUL", "1 MB of ZWSP"],
)
def test_every_prompt_part_is_bounded_in_characters(content):
    t = turn(content, ["What do you sell?", content])
    for prompt in (
        keyword_prompt(t, max_ll=5, max_hl=3),
        text_prompt(t, max_words=8),
        reference_prompt(t, max_words=8),
    ):
        assert_prompt_bounded(prompt)
    assert len(t.prompt_query) <= MAX_PROMPT_PART_CHARS
    assert all(len(text) <= MAX_PROMPT_PART_CHARS for text in t.message_texts)


@given(st.lists(hostile_text, min_size=1, max_size=3), hostile_text)
def test_no_prompt_part_exceeds_its_character_bound(history, query):
    t = turn(query, history)
    assert_prompt_bounded(reference_prompt(t, max_words=8))
    assert all(len(prompt_part(text, max_words=150)) <= MAX_PROMPT_PART_CHARS for text in history)


def test_a_clipped_prompt_part_is_marked():
    assert prompt_part("数" * 5_000).endswith(" …") and len(prompt_part("数" * 5_000)) == MAX_PROMPT_PART_CHARS
    assert prompt_part("a b c", max_words=2) == "a b …"
    assert clip_chars("one two three", 9) == "one two" and clip_chars("abcdef", 3) == "abc"


# ---- 5. model output: characters capped, invisible characters dropped -------------------


def test_a_huge_word_from_the_model_is_capped_in_characters():
    outcome = enforce_text_query("x" * 100_000, company_name="Acme Software", max_words=8)
    assert (
        outcome.query is not None and len(outcome.query) <= MAX_QUERY_CHARS and outcome.query.endswith("Acme Software")
    )
    assert len(enforce_text_query("x" * 100_000, company_name=None, max_words=8).query) <= MAX_QUERY_CHARS
    keywords = enforce_keywords(["k" * 100_000], ["theme"], max_ll=5, max_hl=3)
    assert keywords.ll_keywords == ("k" * MAX_KEYWORD_CHARS,)


@pytest.mark.parametrize("output", ["\x00", "\x00" * 50, "\u200b\ufeff", "\ud800", "\x1b[31m\x1b[0m", "\x07\x08\x7f"])
def test_output_of_nothing_but_invisible_characters_is_the_empty_fallback(output):
    assert enforce_text_query(output, company_name="Acme Software", max_words=8).fallback_reason == "empty"
    assert enforce_keywords([output], [output], max_ll=5, max_hl=3).fallback_reason == "empty"
    resolution, _ = resolve(turn("Santé", ["Which sector?", "We work with Santé and BTP."], mode="naive"), output)
    assert resolution.fallback_reason == "empty" and resolution.query == "Santé"


def test_a_leading_line_of_invisible_characters_or_a_bom_does_not_hide_the_answer():
    assert enforce_text_query("\u200b\x00\ncliniques santé", company_name=None, max_words=8).query == "cliniques santé"
    history = ["What do you sell?", "We sell Pulse POS."]
    resolution, _ = resolve(turn("Which retailers already run it?", history), "\ufeffRESOLVE: Pulse POS")
    assert resolution.entity == "Pulse POS"
    keep, _ = resolve(turn("Which retailers already run it?", history), "\u200b\n\ufeffKEEP")
    assert keep.decision == "keep" and keep.entity is None
    assert parse_keyword_answer("NONE\u200b") == parse_keyword_answer("NONE")


def test_terminal_escapes_and_controls_are_dropped_from_queries_keywords_and_names():
    outcome = enforce_text_query("\x1b[31mcliniques\x1b[0m\x00 santé\tBTP", company_name=None, max_words=8)
    assert outcome.query == "cliniques santé BTP"
    assert clean_keywords(["\x1b]0;pwned\x07Vitalis", "B1\ud800", "\ud800", "\x00"]) == ["Vitalis", "B1"]
    history = ["What do you sell?", "We sell Pulse POS."]
    resolution, _ = resolve(turn("Which retailers already run it?", history), "RESOLVE: \x1b[1mPulse POS\x1b[0m")
    assert resolution.entity == "Pulse POS"


def test_a_name_longer_than_its_character_cap_is_too_long():
    name = "P" * (MAX_NAME_CHARS + 1)
    outcome = accept_reference_name(
        name, history_text=[f"We sell {name}."], message="Who runs it?", company_name=None, max_words=6
    )
    assert outcome.rejected_reason == "too_long"


@given(hostile_model_output(), st.sampled_from(["keywords", "text", "reference"]))
def test_no_control_or_format_character_reaches_retrieval(output, path):
    mode = "naive" if path == "text" else "mix"
    query = "Which retailers already run it?" if path == "reference" else "Santé"
    resolution, _ = resolve(turn(query, ["What do you sell?", "Pulse POS, Santé and BTP."], mode=mode), output)
    assert_safe_resolution(resolution)


def assert_safe_resolution(resolution: Resolution) -> None:
    assert resolution.fallback_reason is None or resolution.fallback_reason in FALLBACKS, resolution.fallback_reason
    json.dumps(resolution.to_dict(), ensure_ascii=False).encode("utf-8")  # never raises
    assert resolution.raw_output is None or len(resolution.raw_output) <= MAX_RAW_OUTPUT_CHARS
    if resolution.query != resolution.original_query:  # text this library wrote (the visitor's own words stay theirs)
        assert invisible_free(resolution.query) and resolution.query.strip()
    for keyword in (*resolution.ll_keywords, *resolution.hl_keywords):
        assert invisible_free(keyword) and 0 < len(keyword) <= MAX_KEYWORD_CHARS
    if resolution.path in {"text", "keywords"} and resolution.changed:
        # What this library adds after the visitor's words is bounded; their own words stay whole.
        prefix = f"{clean_single_line(resolution.original_query)} — "
        added = resolution.query[len(prefix) :] if resolution.query.startswith(prefix) else resolution.query
        if resolution.context is not None:  # the carried question: two parts of at most MAX_CONTEXT_CHARS each
            assert len(resolution.context) <= 2 * MAX_CONTEXT_CHARS + 1
            added = added.removesuffix(resolution.context).removesuffix(" — ")
        assert len(added) <= MAX_QUERY_CHARS
    if resolution.entity is not None:
        assert invisible_free(resolution.entity) and len(resolution.entity) <= MAX_NAME_CHARS


@given(st.one_of(hostile_text, huge_token, cjk_run), st.integers(1, MAX_QUERY_CHARS))
def test_a_single_line_value_is_invisible_free_and_within_its_cap(text, cap):
    line = clean_single_line(text, cap)
    assert invisible_free(line) and len(line) <= cap and "\n" not in line and line == line.strip()


# ---- 6. the recorded raw output ------------------------------------------------------


def test_the_raw_output_is_recorded_encodable_bounded_and_marked_as_cut():
    resolution, _ = resolve(turn("Santé", ["Which sector?", "We work with Santé and BTP."]), "{" + "\ud800x" * 109_000)
    assert resolution.fallback_reason == "unparsable"
    assert len(resolution.raw_output) == MAX_RAW_OUTPUT_CHARS and "cut: 218001 characters" in resolution.raw_output
    resolution.raw_output.encode("utf-8")
    json.dumps(resolution.to_dict(), ensure_ascii=False).encode("utf-8")
    assert recorded_output(resolution.raw_output) == resolution.raw_output  # recording twice changes nothing
    short = Resolution(query="q", original_query="q\ud800", mode="mix", path="keywords", raw_output="ok\udfff")
    assert short.raw_output == "ok\ufffd" and short.to_dict()["original_query"] == "q\ufffd"


async def test_aquery_data_survives_a_lone_surrogate_in_the_model_output(make_rag):
    llm = ScriptedLLM(replies={"keywords": keyword_json(["German B1\ud800", "\ud800"], ["language courses\ud800"])})
    rag = await make_rag(llm)
    from lightrag import QueryParam

    history = [
        {"role": "user", "content": "Which German courses?"},
        {"role": "assistant", "content": "German A1 or German B1?"},
    ]
    result = await rag.aquery_data("B1", QueryParam(mode="local", conversation_history=history))
    resolution = result["metadata"]["resolution"]
    assert resolution["ll_keywords"] == ["German B1"] and resolution["hl_keywords"] == ["language courses"]
    json.dumps(result, ensure_ascii=False, default=str).encode("utf-8")


# Sections 7 (a result whose __str__ raises) and 8 (cancellation and late answers) are in test_model_call.py.


# ---- the bounded fuzz: Resolver.resolve against a fake model returning hostile strings -------


@settings(parent=settings.get_profile("fuzz"))
@given(hostile_turns())
def test_fuzz_no_hostile_model_or_message_breaks_the_invariants(case):
    query, history, reply, mode = case
    # Unprompted short replies resolved and every follow-up checked, so that every turn meets the hostile model
    # (contract §5.7, §5.8).
    resolver = tuned(company_name="Helix", resolve_unprompted_replies=True, check_every_follow_up=True)
    resolution, llm = resolve(turn(query, history, mode=mode, company="Helix"), reply, resolver)
    assert_safe_resolution(resolution)
    for call in llm.calls:
        assert_prompt_bounded(Prompt(system=call.system_prompt or "", user=call.prompt))


@given(st.one_of(hostile_text, phrase), st.integers(0, 300), st.sampled_from(["", " …", "…[cut]"]))
def test_clipping_never_exceeds_its_character_bound(text, cap, marker):
    clipped = clip_chars(text, cap, marker)
    assert len(clipped) <= cap
    assert clipped == text or len(text) > cap


@pytest.mark.parametrize("name", ["\x00", "\u200b\ufeff", "\ud800", "\x1b[31m"])
def test_a_reference_name_of_invisible_characters_only_is_resolve_without_a_name(name):
    """Left empty, ``RESOLVE: <invisible>`` reads as ``RESOLVE:`` with no name: unparsable, as SPEC's parser has it."""
    history = ["What do you sell?", "We sell Pulse POS."]
    resolution, _ = resolve(turn("Which retailers already run it?", history), f"RESOLVE: {name}")
    assert resolution.fallback_reason == "unparsable" and resolution.entity is None and not resolution.changed
