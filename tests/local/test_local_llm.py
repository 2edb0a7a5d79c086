"""LocalLLM's call handling, on a fake chat model that records what it is asked."""

from __future__ import annotations

import asyncio
import copy
import json
import threading
from dataclasses import dataclass, field
from typing import Any

import pytest

from lightrag_resolve.local import LocalLLM, LocalModelError
from lightrag_resolve.local._grammar import compact_json_grammar


@dataclass
class FakeChatModel:
    """A fake ``llama_cpp.Llama``: answers a fixed text and records every request."""

    reply: str = "  Bonjour.  "
    finish_reason: str = "stop"
    delay: float = 0.0
    requests: list[dict[str, Any]] = field(default_factory=list)
    threads: set[str] = field(default_factory=set)
    active: int = 0
    most_active: int = 0
    closed: bool = False

    def create_chat_completion(self, **kwargs: Any) -> dict[str, Any]:
        self.active += 1
        self.most_active = max(self.most_active, self.active)
        self.threads.add(threading.current_thread().name)
        try:
            if self.delay:
                threading.Event().wait(self.delay)
            self.requests.append(kwargs)
            return {
                "choices": [
                    {"message": {"role": "assistant", "content": self.reply}, "finish_reason": self.finish_reason}
                ]
            }
        finally:
            self.active -= 1

    def close(self) -> None:
        self.closed = True


def _llm(fake: FakeChatModel, **kwargs: Any) -> LocalLLM:
    return LocalLLM(fake, model_name="fake-model", **kwargs)


async def test_returns_stripped_text_with_small_greedy_defaults() -> None:
    fake = FakeChatModel()
    assert await _llm(fake)("Salut") == "Bonjour."
    (request,) = fake.requests
    assert request["messages"] == [{"role": "user", "content": "Salut"}]
    assert request["max_tokens"] == 256
    assert request["temperature"] == 0.0
    assert request["repeat_penalty"] == 1.1
    assert request["response_format"] is None
    assert request["stream"] is False


async def test_system_prompt_and_history_come_before_the_prompt() -> None:
    fake = FakeChatModel()
    history = [
        {"role": "user", "content": "Which sectors?"},
        {"role": "assistant", "content": "Santé, BTP, Retail."},
        {"role": "tool", "content": "dropped: not a chat role"},
        {"role": "user", "content": None},
    ]
    await _llm(fake)("Santé", system_prompt="Be brief.", history_messages=history)
    assert [m["role"] for m in fake.requests[0]["messages"]] == ["system", "user", "assistant", "user"]
    assert fake.requests[0]["messages"][-1]["content"] == "Santé"


async def test_lightrag_kwargs_are_accepted_and_ignored() -> None:
    fake = FakeChatModel()
    reply = await _llm(fake)(
        "q", hashing_kv=object(), _priority=5, enable_cot=True, stream=True, timeout=30, unknown="x"
    )
    assert reply == "Bonjour."
    assert fake.requests[0]["stream"] is False  # a stream request gets the whole text


async def test_max_tokens_and_temperature_override_the_defaults() -> None:
    fake = FakeChatModel()
    llm = _llm(fake, max_tokens=64)
    await llm("q")
    await llm("q", max_tokens=12, temperature=0.3, repeat_penalty=1.0)
    await llm("q", max_tokens=None, max_completion_tokens=7)
    assert [(r["max_tokens"], r["temperature"], r["repeat_penalty"]) for r in fake.requests] == [
        (64, 0.0, 1.1),
        (12, 0.3, 1.0),
        (7, 0.0, 1.1),
    ]


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "10"])
async def test_a_bad_max_tokens_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="max_tokens"):
        await _llm(FakeChatModel())("q", max_tokens=bad)


def test_bad_defaults_are_refused_at_construction() -> None:
    with pytest.raises(ValueError, match="temperature"):
        _llm(FakeChatModel(), temperature=-0.1)
    with pytest.raises(ValueError, match="repeat_penalty"):
        _llm(FakeChatModel(), repeat_penalty=0)


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"response_format": {"type": "json_object"}}, {"type": "json_object"}),
        ({"keyword_extraction": True}, {"type": "json_object"}),
        ({"keyword_extraction": False}, None),
        ({"response_format": {"type": "text"}}, None),
    ],
)
async def test_json_requests_map_to_llama_json_mode(kwargs: dict[str, Any], expected: object) -> None:
    fake = FakeChatModel(reply='{"a": 1}')
    await _llm(fake)("q", **kwargs)
    assert fake.requests[0]["response_format"] == expected and "grammar" not in fake.requests[0]


SCHEMA = {
    "type": "object",
    "properties": {"d": {"enum": ["KEEP"]}, "ll": {"type": "array", "items": {"type": "string"}}},
}


@pytest.mark.parametrize(
    "kwargs",
    [
        {"response_format": {"type": "json_schema", "json_schema": {"name": "k", "schema": SCHEMA}}},
        {"response_format": {"type": "json_object", "schema": SCHEMA}, "keyword_extraction": True},
    ],
)
async def test_a_schema_asked_compact_is_decoded_under_its_grammar_without_optional_blanks(
    kwargs: dict[str, Any],
) -> None:
    """Issue 42: every token written costs time on a CPU; the schema's grammar, with no blank after ``:`` or ``,``."""
    grammar = pytest.importorskip("llama_cpp.llama_grammar")
    fake = FakeChatModel(reply='{"d":"KEEP","ll":[]}')
    await _llm(fake)("q", **kwargs, compact_json=True)
    await _llm(fake)("q", **kwargs)  # not asked: the schema as llama-cpp-python decodes it, blanks allowed
    request, spaced = fake.requests
    assert request["response_format"] is None and isinstance(request["grammar"], grammar.LlamaGrammar)
    assert spaced["response_format"]["schema"] == SCHEMA and "grammar" not in spaced
    text = compact_json_grammar(SCHEMA)
    assert 'space ::= ""' in text.splitlines() and 'space ::= " "?' not in text
    assert text.replace('space ::= ""', 'space ::= " "?') == grammar.json_schema_to_gbnf(json.dumps(SCHEMA))


CHECK = {
    "type": "object",
    "properties": {
        "decision": {"enum": ["RESOLVE", "KEEP"]},
        "name": {"enum": ["Orbit CRM", ""]},
        "query": {"type": "string", "maxLength": 8},
        "terms": {"type": "array", "items": {"type": "string", "maxLength": 8}, "maxItems": 2},
    },
    "required": ["decision", "name", "query", "terms"],
}


async def test_a_schema_compact_from_a_property_keeps_the_converters_rules_before_it() -> None:
    """Issue 42: the decision and the name are decoded as without compaction; no blank from ``query`` on."""
    grammar = pytest.importorskip("llama_cpp.llama_grammar")
    converted = grammar.json_schema_to_gbnf(json.dumps(CHECK)).splitlines()
    compact = compact_json_grammar(CHECK, from_property="query").splitlines()
    kept = [line for line in compact if line.startswith(("decision", "name", "space ::="))]
    assert kept == [line for line in converted if line.startswith(("decision", "name", "space ::="))]
    assert 'space ::= " "?' in kept  # the blanks before the restatement stay allowed
    root = next(line for line in compact if line.startswith("root ::="))
    assert root == 'root ::= "{" space decision-kv "," space name-kv "," query-kv "," terms-kv "}"'
    tight = [line for line in compact if line.startswith(("query", "terms"))]
    assert len(tight) == 5 and not any(" space" in line for line in tight), tight
    grammar.LlamaGrammar.from_string("\n".join(compact), verbose=False)  # a grammar llama.cpp reads
    assert compact_json_grammar(CHECK, from_property="decision") == compact_json_grammar(CHECK)
    assert compact_json_grammar(CHECK, from_property="absent").splitlines() == converted  # left as converted
    fake = FakeChatModel(reply='{"decision": "KEEP", "name": "","query":"","terms":[]}')
    schema_format = {"type": "json_schema", "json_schema": {"name": "check", "schema": CHECK}}
    await _llm(fake)("q", response_format=schema_format, compact_json="query")
    for unasked in ("", 1, None):  # neither True nor a property's name: decoded as the converter writes it
        await _llm(fake)("q", response_format=schema_format, compact_json=unasked)
    assert isinstance(fake.requests[0]["grammar"], grammar.LlamaGrammar)
    assert all("grammar" not in request and request["response_format"] for request in fake.requests[1:])


async def test_a_pydantic_response_format_becomes_its_schema() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Keywords(pydantic.BaseModel):
        high_level_keywords: list[str]

    fake = FakeChatModel(reply='{"high_level_keywords": []}')
    await _llm(fake)("q", response_format=Keywords)
    assert fake.requests[0]["response_format"]["schema"]["required"] == ["high_level_keywords"]


async def test_an_unknown_response_format_is_refused() -> None:
    with pytest.raises(ValueError, match="response_format"):
        await _llm(FakeChatModel())("q", response_format={"type": "xml"})


async def test_stop_strings_are_passed_on() -> None:
    fake = FakeChatModel()
    await _llm(fake)("q", stop="\n")
    await _llm(fake)("q", stop=["END", 3])
    assert [r["stop"] for r in fake.requests] == [["\n"], ["END"]]


async def test_calls_run_one_at_a_time_off_the_event_loop() -> None:
    fake = FakeChatModel(delay=0.02)
    llm = _llm(fake)
    replies = await asyncio.gather(*(llm(f"q{i}") for i in range(5)))
    assert replies == ["Bonjour."] * 5
    assert fake.most_active == 1
    assert threading.current_thread().name not in fake.threads


def test_calls_from_different_event_loops_share_the_model() -> None:
    fake = FakeChatModel()
    llm = _llm(fake)
    assert asyncio.run(llm("a")) == asyncio.run(llm("b")) == "Bonjour."


async def test_a_call_cancelled_while_queued_never_runs() -> None:
    fake = FakeChatModel(delay=0.1)
    llm = _llm(fake)
    first = asyncio.ensure_future(llm("first"))
    queued = asyncio.ensure_future(llm("queued"))
    await asyncio.sleep(0.02)
    queued.cancel()
    assert await first == "Bonjour."
    with pytest.raises(asyncio.CancelledError):
        await queued
    await asyncio.sleep(0.15)
    assert [r["messages"][-1]["content"] for r in fake.requests] == ["first"]


async def test_a_reply_cut_at_max_tokens_is_marked_truncated() -> None:
    from lightrag.utils import is_truncated_response

    text = await _llm(FakeChatModel(reply="Il était une", finish_reason="length"))("q", max_tokens=3)
    assert text == "Il était une" and is_truncated_response(text)
    assert not is_truncated_response(await _llm(FakeChatModel())("q"))


async def test_json_cut_at_max_tokens_is_closed_so_it_parses() -> None:
    from lightrag.utils import is_truncated_response

    llm = _llm(FakeChatModel(reply='{"high_level_keywords": ["santé", "modu', finish_reason="length"))
    reply = await llm("q", response_format={"type": "json_object"}, max_tokens=12)
    assert json.loads(reply) == {"high_level_keywords": ["santé", "modu"]}
    assert is_truncated_response(reply)


async def test_model_errors_become_local_model_errors() -> None:
    class ContextOverflow(FakeChatModel):
        def create_chat_completion(self, **kwargs: Any) -> dict[str, Any]:
            raise ValueError("Requested tokens (9000) exceed context window of 8192")

    with pytest.raises(LocalModelError, match="exceed context window"):
        await _llm(ContextOverflow())("q")


async def test_json_text_is_returned_verbatim_when_parseable() -> None:
    fake = FakeChatModel(reply=' {"high_level_keywords": ["Santé"], "low_level_keywords": []}\n')
    reply = await _llm(fake)("q", response_format={"type": "json_object"})
    assert json.loads(reply)["high_level_keywords"] == ["Santé"]


async def test_close_frees_the_model_and_refuses_later_calls() -> None:
    fake = FakeChatModel()
    llm = _llm(fake)
    llm.close()
    assert fake.closed
    with pytest.raises(LocalModelError, match="closed"):
        await llm("q")


def test_deep_copies_share_the_model() -> None:
    # LightRAG deep-copies llm_model_func with its dataclass fields on every query.
    llm = _llm(FakeChatModel())
    assert copy.deepcopy({"f": llm})["f"] is llm
    assert copy.copy(llm) is llm


@pytest.mark.parametrize(
    ("cut", "shown"),
    [
        (
            "Kadoro runs in 40 shops. Training takes two days. The Cerclia cour",
            "Kadoro runs in 40 shops. Training takes two days. …",
        ),
        ("Le parcours dure deux jours et se termine par un exam", "Le parcours dure deux jours et se termine par un …"),
        (
            "Oui. Le parcours Cerclia couvre le CRM, les rapports, les imports et la synchronisation des conta",
            "Oui. Le parcours Cerclia couvre le CRM, les rapports, les imports et la synchronisation des …",
        ),
    ],
)
async def test_with_whole_sentences_a_cut_answer_ends_at_a_whole_sentence_or_word(cut: str, shown: str) -> None:
    from lightrag.utils import TruncatedResponse

    text = await _llm(FakeChatModel(reply=cut, finish_reason="length"), whole_sentences=True)("q")
    assert text == shown and isinstance(text, TruncatedResponse)


async def test_whole_sentences_leave_complete_answers_and_json_alone() -> None:
    done = await _llm(FakeChatModel(reply="Deux jours, puis un exam"), whole_sentences=True)("q")
    assert done == "Deux jours, puis un exam"  # finished by the model, not cut
    cut_json = FakeChatModel(reply='{"low_level_keywords": ["santé", "modu', finish_reason="length")
    text = await _llm(cut_json, whole_sentences=True)("q", response_format={"type": "json_object"})
    assert json.loads(text)["low_level_keywords"][0] == "santé"
