"""The anythingllm arm, case by case against the PR's trigger, context and three validation layers."""

from __future__ import annotations

import pytest
from fakes import ScriptedLLM

from lightrag_resolve.eval import AnythingLLMRewriter, clean_reply, context_text, should_rewrite, validate_rewrite
from lightrag_resolve.eval._anythingllm import SYSTEM_PROMPT

HISTORY = [
    {"role": "user", "content": "What German courses do you offer?"},
    {"role": "assistant", "content": "Here are some German courses. Are you looking for A1 or B1?"},
]
CONTEXT = context_text(HISTORY)


# ---- trigger -------------------------------------------------------------

def test_no_history_never_triggers() -> None:
    assert not should_rewrite("Yes, B1", [])


def test_twelve_words_trigger_thirteen_do_not() -> None:
    twelve = " ".join(["word"] * 12)
    assert should_rewrite(twelve, HISTORY)
    assert not should_rewrite(twelve + " more", HISTORY)


def test_word_count_splits_on_runs_of_white_space() -> None:
    assert should_rewrite("  " + "a \t\n " * 12, HISTORY)


# ---- context ---------------------------------------------------------------

def test_context_keeps_the_last_two_turn_pairs_with_labels() -> None:
    history = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i}"} for i in range(6)]
    assert context_text(history) == "User: m2\nAssistant: m3\nUser: m4\nAssistant: m5"


def test_assistant_messages_are_cut_to_150_words_user_messages_are_not() -> None:
    long = " ".join(f"w{i}" for i in range(200))
    text = context_text([{"role": "user", "content": long}, {"role": "assistant", "content": long}])
    user_line, assistant_line = text.split("\n")
    assert user_line == f"User: {long}"
    assert assistant_line == "Assistant: " + " ".join(f"w{i}" for i in range(150)) + "..."


def test_an_assistant_message_of_exactly_150_words_is_kept_whole() -> None:
    words = " ".join(["w"] * 150)
    assert context_text([{"role": "assistant", "content": words}]) == f"Assistant: {words}"


# ---- reply cleaning ----------------------------------------------------------

def test_reply_is_trimmed_to_its_first_line() -> None:
    assert clean_reply("  German courses B1\nBecause the user said B1.") == "German courses B1"


def test_reasoning_tags_are_removed() -> None:
    assert clean_reply("<think>they mean B1</think>German courses B1") == "German courses B1"


def test_reasoning_block_on_its_own_lines_leaves_an_empty_first_line() -> None:
    # The PR removes the tags after trimming, so the newline that followed them
    # becomes the first line: the reply counts as empty and the query is kept.
    assert clean_reply("<think>\nB1\n</think>\nGerman courses B1") == ""


def test_non_string_reply_is_empty() -> None:
    assert clean_reply(None) == ""


# ---- layer 1: UNCHANGED ----------------------------------------------------------

@pytest.mark.parametrize("reply", ["UNCHANGED", "unchanged", "Unchanged.", "UNCHANGED - self-contained", ""])
def test_layer1_unchanged_signal_or_empty_keeps_the_query(reply: str) -> None:
    assert validate_rewrite(reply, "Yes, B1", CONTEXT) == "unchanged"


def test_layer1_only_matches_at_the_start() -> None:
    assert validate_rewrite("German courses B1 UNCHANGED", "Yes, B1", CONTEXT) is None


# ---- layer 2: verbatim -------------------------------------------------------------

def test_layer2_verbatim_copy_keeps_the_query_case_insensitively() -> None:
    assert validate_rewrite("yes, b1", "  Yes, B1 ", CONTEXT) == "verbatim"


# ---- layer 3: content-word overlap ---------------------------------------------------

def test_layer3_accepts_a_rewrite_sharing_a_long_word_with_the_context() -> None:
    assert validate_rewrite("Integration courses German level", "Yes, B1", CONTEXT) is None


def test_layer3_rejects_a_meta_response() -> None:
    assert validate_rewrite("No rewrite needed", "Yes, B1", CONTEXT) == "no_overlap"


def test_layer3_lets_through_a_meta_response_that_shares_a_common_word() -> None:
    # The PR's safety net is lexical: "here" also occurs in the assistant's message.
    assert validate_rewrite("No rewrite needed here", "Yes, B1", CONTEXT) is None


def test_layer3_ignores_words_of_three_characters_or_fewer() -> None:
    # "B1" and "you" occur in the context but are too short to count.
    assert validate_rewrite("B1 for you", "Yes, B1", CONTEXT) == "no_overlap"


def test_layer3_counts_the_visitor_message_as_context() -> None:
    assert validate_rewrite("Weekends schedule", "What about weekends", "") is None


def test_layer3_compares_whole_white_space_tokens_punctuation_included() -> None:
    # The context has "offer?" and "B1?" with their question marks: "offer" does not match.
    assert validate_rewrite("offer", "Yes, B1", CONTEXT) == "no_overlap"


def test_layer3_word_length_is_counted_in_utf16_units_like_javascript() -> None:
    # "𝒜bc" is 3 code points but 4 UTF-16 units, so the PR counts it as a long word.
    assert validate_rewrite("𝒜bc", "tell me 𝒜bc", "") is None


# ---- layer 3, non-Latin fallback -----------------------------------------------------

def test_cjk_rewrite_sharing_characters_with_the_context_is_accepted() -> None:
    history = "User: 你们有德语课程吗？\nAssistant: 我们有A1和B1德语课程。"
    assert validate_rewrite("B1德语课程周末", "B1", history) is None


def test_cjk_rewrite_sharing_no_character_is_rejected() -> None:
    history = "User: 你们有德语课程吗？"
    assert validate_rewrite("无需改写", "好的", history) == "no_overlap"


def test_ascii_characters_do_not_count_in_the_fallback() -> None:
    # Every character of the rewrite occurs in the context, but all are ASCII and all words short.
    assert validate_rewrite("x y", "x", "User: x y") == "no_overlap"


def test_accented_latin_characters_count_in_the_fallback() -> None:
    # No shared word longer than 3 characters, but "é" (code 233) is shared.
    assert validate_rewrite("Été", "Santé", "") is None


# ---- the whole rewriter ---------------------------------------------------------------

async def test_first_turn_and_long_messages_make_no_call() -> None:
    llm = ScriptedLLM()
    rewriter = AnythingLLMRewriter()
    first = await rewriter.rewrite("Yes, B1", [], llm)
    long = await rewriter.rewrite(" ".join(["word"] * 13), HISTORY, llm)
    assert (first.outcome, first.text) == ("first_turn", "Yes, B1")
    assert long.outcome == "too_long"
    assert llm.calls == []


async def test_a_valid_rewrite_is_used() -> None:
    llm = ScriptedLLM(replies={"answer": "German courses B1 integration course\nextra"})
    result = await AnythingLLMRewriter().rewrite("Yes, B1 please", HISTORY, llm)
    assert (result.text, result.outcome) == ("German courses B1 integration course", "rewritten")
    call = llm.calls[0]
    assert call.system_prompt == SYSTEM_PROMPT
    assert call.prompt.endswith("Latest message: Yes, B1 please\n\nRewritten query:")
    assert call.kwargs["temperature"] == 0.1


@pytest.mark.parametrize(
    ("reply", "outcome"),
    [("UNCHANGED", "unchanged"), ("yes, b1 please", "verbatim"), ("The query is already fine", "no_overlap")],
)
async def test_each_layer_falls_back_to_the_visitor_words(reply: str, outcome: str) -> None:
    llm = ScriptedLLM(replies={"answer": reply})
    result = await AnythingLLMRewriter().rewrite("Yes, B1 please", HISTORY, llm)
    assert (result.text, result.outcome) == ("Yes, B1 please", outcome)


async def test_model_error_falls_back_to_the_visitor_words() -> None:
    llm = ScriptedLLM(replies={"answer": RuntimeError("down")})
    result = await AnythingLLMRewriter().rewrite("Yes, B1", HISTORY, llm)
    assert (result.text, result.outcome) == ("Yes, B1", "llm_error")


async def test_temperature_can_be_left_to_the_model() -> None:
    llm = ScriptedLLM(replies={"answer": "German courses B1"})
    await AnythingLLMRewriter(temperature=None).rewrite("Yes, B1", HISTORY, llm)
    assert "temperature" not in llm.calls[0].kwargs
