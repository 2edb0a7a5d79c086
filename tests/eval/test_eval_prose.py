"""The prose arm: the classic condense step, applied to every follow-up."""

from __future__ import annotations

import pytest
from fakes import ScriptedLLM

from lightrag_resolve.eval import CondenseRewriter, clean_condensed
from lightrag_resolve.eval._prose import SYSTEM_PROMPT

HISTORY = [
    {"role": "user", "content": "Tell me about your loyalty terminal."},
    {"role": "assistant", "content": "Pulse POS is our loyalty terminal for shops."},
]


async def test_first_turn_is_searched_as_written_without_a_call() -> None:
    llm = ScriptedLLM()
    result = await CondenseRewriter().rewrite("What is Pulse POS?", [], llm)
    assert (result.text, result.outcome) == ("What is Pulse POS?", "first_turn")
    assert llm.calls == []


async def test_every_follow_up_is_rewritten_even_a_standalone_question() -> None:
    llm = ScriptedLLM(replies={"standalone": "How many offices does Helix have in France?"})
    long_question = "How many offices does Helix have, and in which French cities are they located today?"
    result = await CondenseRewriter().rewrite(long_question, HISTORY, llm)
    assert result.outcome == "rewritten"
    assert result.text == "How many offices does Helix have in France?"
    assert llm.calls[0].system_prompt == SYSTEM_PROMPT


async def test_prompt_shows_the_whole_conversation_by_default() -> None:
    llm = ScriptedLLM(replies={"standalone": "Which retailers run Pulse POS?"})
    history = HISTORY * 3
    await CondenseRewriter().rewrite("Which retailers run it?", history, llm)
    assert llm.calls[0].prompt.count("User: Tell me about your loyalty terminal.") == 3
    assert llm.calls[0].prompt.endswith("Follow-up message: Which retailers run it?\n\nStandalone question:")


async def test_history_window_can_be_limited() -> None:
    llm = ScriptedLLM(replies={"standalone": "Which retailers run Pulse POS?"})
    await CondenseRewriter(history_messages=1).rewrite("Which retailers run it?", HISTORY, llm)
    assert "Tell me about" not in llm.calls[0].prompt


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("Standalone question: Which retailers run Pulse POS?", "Which retailers run Pulse POS?"),
        ('"Which retailers run Pulse POS?"', "Which retailers run Pulse POS?"),
        ("\n\n  Which retailers run Pulse POS?\nSecond line", "Which retailers run Pulse POS?"),
        ("", ""),
        (None, ""),
    ],
)
def test_clean_condensed(reply: object, expected: str) -> None:
    assert clean_condensed(reply) == expected


@pytest.mark.parametrize(("reply", "outcome"), [("", "empty"), ("Which retailers run it?", "same")])
async def test_empty_or_identical_replies_search_the_visitor_words(reply: str, outcome: str) -> None:
    llm = ScriptedLLM(replies={"standalone": reply})
    result = await CondenseRewriter().rewrite("Which retailers run it?", HISTORY, llm)
    assert (result.text, result.outcome) == ("Which retailers run it?", outcome)


async def test_model_error_searches_the_visitor_words() -> None:
    llm = ScriptedLLM(replies={"standalone": TimeoutError()})
    result = await CondenseRewriter().rewrite("Yes", HISTORY, llm)
    assert (result.text, result.outcome) == ("Yes", "llm_error")
