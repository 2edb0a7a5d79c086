"""contract §5.11 on a real LightRAG: retrieval searches the resolved text, the answer writer reads the visitor's words."""

from __future__ import annotations

import pytest
from lightrag import QueryParam

from fakes import ScriptedLLM, keyword_json
from lightrag_resolve._lightrag.answer_prompt import AnswerWords, on_visitors_words
from tuned import tuned, tuned_retrieval

ASKED = [
    {"role": "user", "content": "Vous avez quelque chose pour les commerçants ?"},
    {"role": "assistant", "content": "Oui. Vous cherchez un terminal de fidélité comme Pulse POS ?"},
]
OTHER = [
    {"role": "user", "content": "Vous formez les équipes ?"},
    {"role": "assistant", "content": "Oui. Voulez-vous le programme de formation Cerclia ?"},
]
POINTING = [
    {"role": "user", "content": "What do you offer retailers?"},
    {"role": "assistant", "content": "Pulse POS is the Helix loyalty terminal for retailers and shops."},
]
ASK = "Which retailers already run it?"


def param(history, mode="mix", **fields) -> QueryParam:
    return QueryParam(mode=mode, conversation_history=list(history), enable_rerank=False, **fields)


def scripted(**replies) -> ScriptedLLM:
    return ScriptedLLM(
        replies={
            "keywords": keyword_json(["Pulse POS"], ["fidélité"], query="Pulse POS terminal de fidélité"),
            "text": "Pulse POS terminal de fidélité",
            "reference": "RESOLVE: Pulse POS",
            **replies,
        }
    )


def answers(llm: ScriptedLLM):
    return [call for call in llm.calls if call.role == "answer"]


@pytest.mark.parametrize("mode", ["mix", "local", "naive"])
async def test_a_resolved_short_reply_is_answered_on_the_visitors_words_with_the_conversation(make_rag, mode):
    llm = scripted()
    rag = await make_rag(llm)
    answered = await rag.aanswer("Oui", param(ASKED, mode=mode))
    resolution = answered.resolution
    assert resolution.changed and resolution.query != "Oui"  # retrieval searched the resolved text
    (answer,) = answers(llm)
    assert answer.prompt == "Oui"
    assert answer.history_messages == ASKED
    assert "Pulse POS" in (answer.system_prompt or "")  # the context retrieved for the resolved text


async def test_a_resolved_reference_is_answered_on_the_visitors_words(make_rag):
    llm = scripted()
    rag = await make_rag(llm)
    answered = await rag.aanswer(ASK, param(POINTING))
    assert answered.resolution.decision == "resolve" and answered.resolution.query != ASK
    (answer,) = answers(llm)
    assert answer.prompt == ASK


async def test_aquery_streams_the_answer_written_on_the_visitors_words(make_rag):
    llm = scripted()
    rag = await make_rag(llm)
    await rag.aquery("Oui", param(ASKED, stream=True))
    (answer,) = answers(llm)
    assert answer.prompt == "Oui" and answer.kwargs.get("stream") is True


async def test_the_measured_alternative_answers_on_the_retrieved_text(make_rag):
    llm = scripted()
    rag = await make_rag(llm, resolver=tuned(answer_on_resolved_text=True))
    rag.retrieval = tuned_retrieval(answer_on_resolved_text=True)
    answered = await rag.aanswer("Oui", param(ASKED))
    (answer,) = answers(llm)
    assert answer.prompt == answered.resolution.query != "Oui"


async def test_lightrags_answer_cache_never_serves_one_conversation_anothers_answer(make_rag):
    """The same words in two conversations retrieve differently, and neither reads the other's answer.

    LightRAG 1.5.7 bypasses its answer cache for a query with history (every
    resolved turn has one); were it read, its key is ``query``: the retrieved text.
    """
    llm = scripted(
        keywords=lambda call: (
            keyword_json(["Cerclia"], ["formation"], query="programme de formation Cerclia")
            if "Cerclia" in call.prompt
            else keyword_json(["Pulse POS"], ["fidélité"], query="Pulse POS terminal de fidélité")
        ),
        lightrag_keywords=keyword_json(["Cerclia"], ["formation"]),  # an accepted offer is carried with no model call
    )
    rag = await make_rag(llm, enable_llm_cache=True)
    first = await rag.aanswer("Oui", param(ASKED))
    second = await rag.aanswer("Oui", param(OTHER))
    assert first.resolution.query != second.resolution.query
    assert [call.history_messages for call in answers(llm)] == [ASKED, OTHER]


async def test_outside_a_resolved_turn_the_answer_model_is_asked_as_lightrag_asks_it():
    seen: list[str] = []

    async def fake_answer(prompt: str, **kwargs):
        seen.append(prompt)
        return "ok"

    words = AnswerWords(retrieved="Pulse POS — Oui", visitors_words="Oui")
    outside, wrapped = on_visitors_words(fake_answer, None), on_visitors_words(fake_answer, words)
    assert on_visitors_words(None, words) is None
    await outside("Pulse POS — Oui")
    await wrapped("Pulse POS — Oui")
    await wrapped("another prompt")  # only the retrieved text itself is replaced
    await outside("Pulse POS — Oui")
    assert seen == ["Pulse POS — Oui", "Oui", "another prompt", "Pulse POS — Oui"]
