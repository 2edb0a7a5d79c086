"""The reference check's one answer through the resolver and on a real LightRAG (``_decide.outcome``, contract §5.3,
§5.9, §7): the restatement and, in graph modes, the keywords come from the same call."""

from __future__ import annotations

import asyncio
import copy
from dataclasses import replace

import pytest
from lightrag import QueryParam

from conversations import RESTATED
from conversations import SHOPS as HISTORY
from conversations import SHOPS_ASK as ASK
from conversations import shops_turn as turn
from fakes import ScriptedLLM, keyword_json, reference_json
from lightrag_resolve import Message, Resolver, ResolverConfig, Turn
from lightrag_resolve._model.parse import ReferenceAnswer
from tuned import tuned

GRAPH_MODES = ("local", "global", "hybrid", "mix")


def run(coro):
    return asyncio.run(coro)


# ---- the restatement comes from the check's answer (contract §5.9) -----------------------------------


def test_an_ambiguous_follow_up_is_restated_from_the_checks_one_answer():
    llm = ScriptedLLM(replies={"reference": reference_json("AMBIGUOUS", query=RESTATED)})
    resolution = run(Resolver().resolve(turn(), llm=llm))
    assert llm.roles() == ["reference"]  # no second call
    assert resolution.query == f"{ASK} — {RESTATED}" and resolution.decision == "ambiguous"
    assert resolution.restatement == RESTATED and resolution.fallback_reason is None and resolution.changed


def test_the_check_shows_the_conversation_and_the_candidates_and_asks_for_the_restatement():
    llm = ScriptedLLM(replies={"reference": reference_json("AMBIGUOUS", query=RESTATED)})
    run(Resolver(ResolverConfig(company_name="Helix")).resolve(turn(company="Helix"), llm=llm))
    (call,) = llm.calls
    assert "Orbit CRM" in call.prompt and ASK in call.prompt and "Helix's website" in call.system_prompt
    assert "a search query of at most 8 words" in call.system_prompt


def test_a_one_line_answer_is_still_read_and_restates_nothing():
    llm = ScriptedLLM(replies={"reference": "AMBIGUOUS"})
    resolution = run(Resolver().resolve(turn(), llm=llm))
    assert llm.roles() == ["reference"] and resolution.fallback_reason == "ambiguous"
    assert resolution.restatement is None and not resolution.changed
    resolved = run(Resolver().resolve(turn(), llm=ScriptedLLM(replies={"reference": "RESOLVE: Pulse POS"})))
    assert resolved.entity == "Pulse POS" and resolved.query == f"Pulse POS — {ASK}"


@pytest.mark.parametrize(
    "reference",
    [
        reference_json("KEEP", query=RESTATED),
        reference_json("RESOLVE", "Pulse POS", query=RESTATED),
        "gibberish",
        '{"name": "", "query": "Lyon shops using Pulse POS or Orbit CRM"}',  # no decision: unreadable
        RuntimeError("down"),
    ],
)
def test_a_named_kept_or_failed_check_is_not_restated(reference):
    llm = ScriptedLLM(replies={"reference": reference})
    resolution = run(Resolver().resolve(turn(), llm=llm))
    assert llm.roles() == ["reference"] and resolution.restatement is None


def test_a_refused_name_the_message_holds_before_its_pronoun_is_not_restated():
    own = "How does Pulse POS sync, and why should shops in Lyon use it?"
    llm = ScriptedLLM(replies={"reference": reference_json("RESOLVE", "Pulse POS", query=RESTATED)})
    resolution = run(Resolver().resolve(turn(own), llm=llm))
    assert resolution.fallback_reason == "rejected:already_named" and resolution.query == own
    assert resolution.restatement is None

    after = "Which shops in Lyon use it next to Pulse POS?"  # the pronoun comes first: it points at the conversation
    llm = ScriptedLLM(replies={"reference": reference_json("RESOLVE", "Pulse POS", query=RESTATED)})
    resolution = run(Resolver().resolve(turn(after), llm=llm))
    assert llm.roles() == ["reference"] and resolution.restatement == RESTATED
    assert resolution.rejected_reason == "already_named" and resolution.fallback_reason is None


SOLE = (
    Message(role="user", content="What is Pulse POS?"),
    Message(role="assistant", content="Pulse POS is the Helix loyalty terminal for retailers."),
)
"""A window whose one candidate leads a follow-up with no model call (contract §5.3)."""


def test_a_sole_candidate_the_message_names_after_its_pointing_word_is_restated():
    after = "Which shops in Lyon use it next to Pulse POS?"
    llm = ScriptedLLM(replies={"reference": reference_json("AMBIGUOUS", query="Lyon shops using Pulse POS")})
    resolver = Resolver(ResolverConfig(company_name="Helix"))
    resolution = run(resolver.resolve(turn(after, history=SOLE, company="Helix"), llm=llm))
    # The sole candidate is refused (already named), so the model's one call decides and restates.
    assert llm.roles() == ["reference"]
    assert resolution.restatement is not None and resolution.fallback_reason is None


@pytest.mark.parametrize(
    "query",
    ["", "NONE", "AMBIGUOUS", "RESOLVE: Pulse POS", "Lyon shops using Zorblax", ["Lyon shops using Pulse POS"], 42],
)
def test_a_refused_or_missing_restatement_leaves_the_checks_outcome(query):
    llm = ScriptedLLM(replies={"reference": f'{{"decision": "AMBIGUOUS", "name": "", "query": {json_value(query)}}}'})
    resolution = run(Resolver().resolve(turn(), llm=llm))
    assert resolution.fallback_reason == "ambiguous" and not resolution.changed and resolution.restatement is None


def json_value(value) -> str:
    import json

    return json.dumps(value)


def test_a_check_that_times_out_is_not_restated():
    llm = ScriptedLLM(replies={"reference": reference_json("AMBIGUOUS", query=RESTATED)}, delays={"reference": 30})
    resolver = Resolver(ResolverConfig(reference_timeout=0.05, timeout=60))
    resolution = run(resolver.resolve(turn(), llm=llm))
    assert resolution.fallback_reason == "timeout" and not resolution.changed and resolution.restatement is None


def test_the_checks_prompt_schema_and_parsers_are_override_points():
    class Shop(Resolver):
        def reference_prompt(self, turn):
            return replace(super().reference_prompt(turn), system="Custom check.")

        def reference_schema(self, turn):
            return {"type": "object", "title": "custom"}

        def parse_reference(self, output):
            decision, _, query = output.partition("|")
            return ReferenceAnswer(decision=decision, restatement_raw=query)

        def parse_text(self, output):
            return output.removeprefix("Query: ")

    llm = ScriptedLLM(replies={"reference": f"ambiguous|Query: {RESTATED}"})
    llm.supports_json_schema = True  # type: ignore[attr-defined]
    resolution = run(Shop().resolve(turn(), llm=llm))
    (call,) = llm.calls
    assert call.system_prompt == "Custom check."
    assert call.kwargs["response_format"]["json_schema"]["schema"] == {"type": "object", "title": "custom"}
    assert resolution.restatement == RESTATED  # the answer's restatement is read with parse_text


def test_the_check_asks_for_its_schema_or_json_mode_or_nothing_as_configured():
    schema = ScriptedLLM(replies={"reference": reference_json("KEEP")})
    schema.supports_json_schema = True  # type: ignore[attr-defined]
    run(Resolver().resolve(turn(mode="mix"), llm=schema))
    sent = schema.calls[0].kwargs["response_format"]
    assert sent["type"] == "json_schema" and sent["json_schema"]["schema"] == Resolver().reference_schema(
        turn(mode="mix")
    )
    assert "keywords" not in str(sent["json_schema"]["schema"])  # the code builds LightRAG's (issue 42)
    unmarked = ScriptedLLM(replies={"reference": reference_json("KEEP")})
    run(Resolver().resolve(turn(), llm=unmarked))
    assert unmarked.calls[0].kwargs == {"response_format": {"type": "json_object"}}  # a JSON answer all the same
    off = ScriptedLLM(replies={"reference": "KEEP"})
    run(Resolver(ResolverConfig(structured_output="off")).resolve(turn(), llm=off))
    assert off.calls[0].kwargs == {}


# ---- in graph modes the code builds LightRAG's keywords from what the check decided (contract §5.3, §7) ----

OWN = ("shops", "Lyon", "already", "use")
"""``ASK``'s content words: what LightRAG's extraction of the message would keep, as the code reads them."""


def keyworded(decision: str, name: str = "", query: str = "", ll=("Zorblax", "Berlin"), hl=("retail adoption",)) -> str:
    """A check's answer with keywords it was not asked for (a model without a schema may write them)."""
    return reference_json(decision, name, query, ll=list(ll), hl=list(hl))


@pytest.mark.parametrize("mode", GRAPH_MODES)
def test_in_graph_modes_a_keep_carries_its_own_words_as_keywords_and_is_no_fallback(mode):
    llm = ScriptedLLM(replies={"reference": reference_json("KEEP")})
    resolution = run(Resolver().resolve(turn(mode=mode), llm=llm))
    assert llm.roles() == ["reference"]
    assert resolution.query == ASK and resolution.decision == "keep" and resolution.fallback_reason is None
    assert resolution.changed  # its keywords replace LightRAG's
    assert (resolution.ll_keywords, resolution.hl_keywords) == (OWN, OWN[:3])


@pytest.mark.parametrize("answer", [keyworded("KEEP"), keyworded("KEEP", ll=("Pulse POS", "Orbit CRM")), "KEEP"])
def test_keywords_the_model_writes_unasked_change_nothing(answer):
    resolution = run(Resolver().resolve(turn(mode="mix"), llm=ScriptedLLM(replies={"reference": answer})))
    assert resolution.decision == "keep" and resolution.query == ASK and resolution.entity is None
    assert (resolution.ll_keywords, resolution.hl_keywords, resolution.dropped_keywords) == (OWN, OWN[:3], ())


@pytest.mark.parametrize(
    "answer", [reference_json("RESOLVE", "Orbit CRM"), '{"decision": "RESOLVE", "name": "Orbit CRM"}']
)
def test_in_graph_modes_a_resolved_name_leads_the_messages_own_words(answer):
    resolution = run(Resolver().resolve(turn(mode="mix"), llm=ScriptedLLM(replies={"reference": answer})))
    assert resolution.query == f"Orbit CRM — {ASK}" and resolution.entity == "Orbit CRM"
    assert resolution.ll_keywords == ("Orbit CRM", *OWN) and resolution.hl_keywords == OWN[:3]


def test_in_graph_modes_a_restated_follow_up_leads_the_keywords_with_the_names_its_restatement_holds():
    llm = ScriptedLLM(replies={"reference": reference_json("AMBIGUOUS", query=RESTATED)})
    resolution = run(Resolver().resolve(turn(mode="hybrid"), llm=llm))
    assert resolution.restatement == RESTATED and resolution.query == f"{ASK} — {RESTATED}"
    assert resolution.ll_keywords == ("Pulse POS", "Orbit CRM", "shops", "Lyon", "already")


def test_a_name_the_message_says_is_one_keyword_as_lightrags_extraction_would_give_it():
    # The multilingual set's zh-keep-04: "Klinora Solo" searched as "Klinora" and "Solo" lost its page.
    asked = "Does Pulse POS print receipts in Lyon?"
    resolution = run(Resolver().resolve(turn(asked, mode="mix"), llm=ScriptedLLM(replies={"reference": "KEEP"})))
    assert resolution.ll_keywords == ("Pulse POS", "print", "receipts", "Lyon")


def test_a_restatements_words_the_conversation_never_said_are_dropped_from_the_low_level_keywords():
    llm = ScriptedLLM(replies={"reference": reference_json("AMBIGUOUS", query="weekend shops in Lyon")})
    resolution = run(Resolver().resolve(turn(mode="mix"), llm=llm))
    assert resolution.restatement == "weekend shops in Lyon" and resolution.ll_keywords == OWN
    assert resolution.dropped_keywords == ("weekend",)  # a low-level keyword the conversation never said (§5.4)


def test_in_graph_modes_an_ambiguous_follow_up_not_restated_carries_its_own_words_and_is_no_fallback():
    for answer in (reference_json("AMBIGUOUS", query="NONE"), reference_json("AMBIGUOUS")):
        resolution = run(Resolver().resolve(turn(mode="mix"), llm=ScriptedLLM(replies={"reference": answer})))
        assert resolution.decision == "ambiguous" and resolution.fallback_reason is None and resolution.changed
        assert resolution.query == ASK and resolution.restatement is None and resolution.ll_keywords == OWN


# ---- a kept follow-up named by its own answer (contract §5.3) ------------------------------------------


@pytest.mark.parametrize("mode", ["naive", "mix"])
def test_a_kept_follow_up_whose_answer_names_one_candidate_it_lacks_is_led_by_that_name(mode):
    llm = ScriptedLLM(replies={"reference": reference_json("KEEP", name="Orbit CRM")})
    resolution = run(Resolver().resolve(turn(mode=mode), llm=llm))
    assert llm.roles() == ["reference"]
    assert resolution.query == f"Orbit CRM — {ASK}" and resolution.entity == "Orbit CRM"
    assert resolution.decision == "resolve" and resolution.fallback_reason is None
    assert resolution.ll_keywords == (("Orbit CRM", *OWN) if mode == "mix" else ())


@pytest.mark.parametrize(
    ("answer", "query"),
    [
        (keyworded("KEEP", ll=("Orbit CRM", "shops")), ASK),  # keywords unasked name nothing
        (reference_json("KEEP", name="Helix"), ASK),  # the company: refused as a proposed name would be
        (reference_json("KEEP", query="Lyon shops using Pulse POS or Orbit CRM"), ASK),  # two names
        (
            keyworded("AMBIGUOUS", query="weekend shops in Lyon", ll=("Orbit CRM",)),
            f"{ASK} — weekend shops in Lyon Helix",
        ),  # restated
    ],
)
def test_an_answer_naming_no_single_acceptable_candidate_leaves_the_check_as_it_decided(answer, query):
    resolver = tuned(company_name="Helix")
    resolution = run(
        resolver.resolve(turn(mode="mix", company="Helix"), llm=ScriptedLLM(replies={"reference": answer}))
    )
    assert resolution.query == query and resolution.entity is None and resolution.decision != "resolve"


def test_a_name_the_message_already_holds_is_not_put_before_it_by_the_answer():
    own = "Which shops in Lyon use Orbit CRM with it?"
    llm = ScriptedLLM(replies={"reference": reference_json("KEEP", name="Orbit CRM")})
    resolution = run(Resolver().resolve(turn(own, mode="mix"), llm=llm))
    assert resolution.query == own and resolution.decision == "keep" and resolution.entity is None


def test_the_built_keywords_are_capped_with_the_name_counted():
    llm = ScriptedLLM(replies={"reference": reference_json("RESOLVE", "Pulse POS")})
    resolution = run(Resolver(ResolverConfig(max_ll_keywords=2, max_hl_keywords=2)).resolve(turn(mode="mix"), llm=llm))
    assert resolution.ll_keywords == ("Pulse POS", "shops") and resolution.hl_keywords == ("shops", "Lyon")


def test_a_message_without_words_of_its_own_leaves_a_keep_to_lightrag():
    resolution = run(Resolver().resolve(turn("Is it?", mode="mix"), llm=ScriptedLLM(replies={"reference": "KEEP"})))
    assert resolution.fallback_reason == "keep" and not resolution.changed and not resolution.has_keywords


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (reference_json("RESOLVE", "Helix"), "rejected:company"),
        (reference_json("RESOLVE", "Berlin Shops"), "rejected:not_in_history"),
        (reference_json("RESOLVE", ""), "unparsable"),
        ('{"name": "Pulse POS", "low_level_keywords": ["Lyon"], "high_level_keywords": ["retail"]}', "unparsable"),
        (RuntimeError("down"), "llm_error"),
    ],
)
def test_a_refused_name_or_a_failed_check_carries_no_keywords(answer, reason):
    resolver = tuned(company_name="Helix")
    resolution = run(
        resolver.resolve(turn(mode="mix", company="Helix"), llm=ScriptedLLM(replies={"reference": answer}))
    )
    assert resolution.fallback_reason == reason and not resolution.has_keywords and not resolution.changed


def test_a_refused_name_whose_message_is_restated_carries_the_keywords_of_the_restatement():
    llm = ScriptedLLM(replies={"reference": reference_json("RESOLVE", "Helix", query="Lyon shops using Orbit CRM")})
    resolution = run(tuned(company_name="Helix").resolve(turn(mode="mix", company="Helix"), llm=llm))
    assert resolution.rejected_reason == "company" and resolution.fallback_reason is None
    assert resolution.query == f"Orbit CRM — {ASK}" and resolution.ll_keywords == ("Orbit CRM", *OWN)


def test_a_window_that_names_nothing_keeps_with_its_own_words_in_graph_modes():
    nothing = (HISTORY[0],)
    llm = ScriptedLLM(replies={"reference": reference_json("KEEP")})
    resolution = run(Resolver().resolve(turn(mode="mix", history=nothing), llm=llm))
    assert resolution.decision == "keep" and resolution.fallback_reason is None and resolution.ll_keywords == OWN
    llm = ScriptedLLM(replies={"reference": reference_json("RESOLVE", "Pulse POS", query="NONE")})
    resolution = run(Resolver().resolve(turn(mode="mix", history=nothing), llm=llm))
    # Nothing named: whatever it decided, the visitor's words and their keywords (contract §5.3).
    assert resolution.decision == "ambiguous" and resolution.entity is None and resolution.query == ASK
    assert resolution.fallback_reason is None and resolution.ll_keywords == OWN


def test_naive_mode_never_carries_keywords_whatever_the_answer_holds():
    for answer in (keyworded("KEEP"), keyworded("RESOLVE", "Pulse POS"), keyworded("AMBIGUOUS", query=RESTATED)):
        resolution = run(Resolver().resolve(turn(mode="naive"), llm=ScriptedLLM(replies={"reference": answer})))
        assert not resolution.has_keywords
    assert resolution.restatement == RESTATED  # the restatement is used in every mode


# ---- on a real LightRAG -----------------------------------------------------------------------------


def extraction(call):
    return keyword_json(["shops", "Lyon"], ["retail adoption"])


async def restated_on_a_real_lightrag(make_rag, mode: str, restatement: str) -> tuple[ScriptedLLM, dict]:
    """One ambiguous follow-up restated as ``restatement`` on a real LightRAG: the model and the resolution record."""
    answer = reference_json("AMBIGUOUS", query=restatement)
    llm = ScriptedLLM(replies={"reference": answer, "lightrag_keywords": extraction})
    rag = await make_rag(llm, resolver=ResolverConfig())
    caller = QueryParam(mode=mode, conversation_history=[m.__dict__ for m in HISTORY], enable_rerank=False)
    before = copy.deepcopy(caller)
    result = await rag.aquery_data(ASK, caller)
    assert caller == before
    return llm, {**result["metadata"]["resolution"], "searched_with": result["metadata"].get("keywords")}


@pytest.mark.parametrize("mode", ["naive", "mix"])
async def test_a_restated_follow_up_costs_one_model_call_on_a_real_lightrag(make_rag, mode):
    llm, resolution = await restated_on_a_real_lightrag(make_rag, mode, RESTATED)
    assert resolution["query"] == f"{ASK} — {RESTATED}" and resolution["restatement"] == RESTATED
    assert llm.roles() == ["reference"]  # neither a restatement call nor LightRAG's extraction
    if mode == "mix":
        assert resolution["ll_keywords"] == ["Pulse POS", "Orbit CRM", "shops", "Lyon", "already"]
        assert resolution["searched_with"]["low_level"] == resolution["ll_keywords"]


@pytest.mark.parametrize("mode", ["naive", "mix"])
async def test_an_ambiguous_check_is_not_led_by_the_one_name_its_restatement_picks_on_a_real_lightrag(make_rag, mode):
    # Issue 40: "How much does it cost?" after two products was led by one of them and lost the other's page.
    picked = "Lyon shops using Orbit CRM"
    llm, resolution = await restated_on_a_real_lightrag(make_rag, mode, picked)
    assert resolution["query"] == ASK and resolution["restatement"] is None
    assert resolution["decision"] == "ambiguous" and resolution["entity"] is None
    assert llm.roles() == ["reference"]
    if mode == "mix":  # the keywords name no candidate: the message's own words
        assert resolution["ll_keywords"] == list(OWN)


def test_a_kept_follow_up_that_names_its_own_subject_is_never_steered_by_the_history():
    # In graph modes every follow-up is checked (issue 40): a KEEP's keywords come from the message alone, and
    # a name in its answer leads only a message that points back.
    standalone = "Do Lyon shops pay by card?"
    answer = reference_json("KEEP", name="Orbit CRM")
    resolution = run(Resolver().resolve(turn(standalone, mode="mix"), llm=ScriptedLLM(replies={"reference": answer})))
    assert resolution.query == standalone and resolution.entity is None and resolution.decision == "keep"
    assert resolution.ll_keywords == ("Lyon", "shops", "pay", "card")


def test_a_kept_follow_up_whose_answer_names_two_candidates_is_led_by_neither():
    answer = reference_json("KEEP", name="Orbit CRM", query="Lyon shops using Pulse POS")
    resolution = run(Resolver().resolve(turn(mode="mix"), llm=ScriptedLLM(replies={"reference": answer})))
    assert resolution.query == ASK and resolution.entity is None and resolution.decision == "keep"


def test_a_name_inside_the_longer_one_the_answer_names_counts_once():
    # The bundled sample's fr-ref-08: "Pivotane Bootcamp" as the name, "Pivotane" among the keywords.
    history = (
        Message(role="user", content="How do I train my planners?"),
        Message(role="assistant", content="Orbit, our planning suite, has a course: the Orbit Academy, in two levels."),
    )
    asked = "In which cities does this course run?"
    answer = reference_json("KEEP", name="Orbit Academy", query="Orbit Academy cities")
    resolution = run(
        Resolver().resolve(turn(asked, mode="mix", history=history), llm=ScriptedLLM(replies={"reference": answer}))
    )
    assert resolution.entity == "Orbit Academy" and resolution.query == f"Orbit Academy — {asked}"


# ---- names the whole conversation made (issue 40, contract §5.3, §5.4) -------------------------------

EARLIER_PRODUCT = (
    Message(role="user", content="Do you have something for bakeries?"),
    Message(role="assistant", content="Yes: Orbit CRM keeps your customer list."),
    Message(role="user", content="Good. And do you have offices in Lyon?"),
    Message(role="assistant", content="We have an office in Lyon and one in Paris."),
)


@pytest.mark.parametrize("mode", ["naive", "mix"])
def test_a_name_said_three_messages_back_is_listed_with_where_and_can_be_named(mode):
    ask = "Which bakeries in Lyon already use it?"
    llm = ScriptedLLM(replies={"reference": reference_json("RESOLVE", "Orbit CRM")})
    t = Turn.from_history(ask, [m.__dict__ for m in EARLIER_PRODUCT], mode=mode)
    assert [m.content for m in t.history] == [m.content for m in EARLIER_PRODUCT[2:]]  # the text window stays short
    resolution = run(Resolver().resolve(t, llm=llm))
    assert "Orbit CRM (said 3 messages back)" in llm.calls[0].prompt
    assert resolution.entity == "Orbit CRM" and resolution.query == f"Orbit CRM — {ask}"


@pytest.mark.parametrize(
    ("said", "ask", "name"),
    [
        # A German brand read as a capitalised noun, and a Chinese name without spaces: the code finds no candidate.
        ("Kadoro ist unser Kundenbindungsterminal für den Handel.", "Welche Händler nutzen es schon?", "Kadoro"),
        ("慧仓储是我们的仓库管理系统。", "哪些零售商已经在用它了", "慧仓储"),
    ],
)
@pytest.mark.parametrize("mode", ["naive", "mix"])
def test_a_name_the_conversation_said_verbatim_is_accepted_where_the_codes_candidates_missed_it(said, ask, name, mode):
    history = (Message(role="user", content="Was bieten Sie an? 你们有什么？"), Message(role="assistant", content=said))
    t = Turn(query=ask, history=history, mode=mode)
    assert name not in t.candidates.names
    llm = ScriptedLLM(replies={"reference": reference_json("RESOLVE", name)})
    resolution = run(Resolver().resolve(t, llm=llm))
    assert resolution.entity == name and resolution.query.startswith(f"{name} — ")
    # Not said in the conversation: refused as before.
    llm = ScriptedLLM(replies={"reference": reference_json("RESOLVE", "Magazio")})
    assert run(Resolver().resolve(t, llm=llm)).entity is None
