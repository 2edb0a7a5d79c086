"""contract §5.9: a follow-up that points back at something the check could not name is restated."""

from __future__ import annotations

import asyncio
import copy
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lightrag import QueryParam

from fakes import ScriptedLLM, keyword_json
from lightrag_resolve import Message, Resolution, Resolver, ResolverConfig, ResolverTuning, Turn
from lightrag_resolve._candidates import collect_candidates
from lightrag_resolve._enforce import contains_phrase
from lightrag_resolve._enforce import unestablished_names
from lightrag_resolve._enforce import LightRAGKeywords, reuse_keywords
from lightrag_resolve._pointing_words import named_before_pointing
from lightrag_resolve._enforce import needs_restatement, restated, restated_name
from strategies import model_output
from tuned import tuned

HISTORY = (
    Message(role="user", content="What do you sell to shops?"),
    Message(role="assistant", content="For shops Helix sells Pulse POS and Orbit CRM, often together."),
)
ASK = "Which shops in Lyon already use it?"
RESTATED = "Lyon shops using Pulse POS or Orbit CRM"
CLOUD_HISTORY = (
    Message(role="user", content="Where do I run virtual servers?"),
    Message(role="assistant", content="On IBM Cloud: IBM runs VPC in every region."),
)


def turn(query: str = ASK, *, mode: str = "naive", history=HISTORY, company: str | None = None) -> Turn:
    return Turn(query=query, history=tuple(history), mode=mode, company_name=company)


def checked(reason: str, decision: str = "ambiguous", **fields) -> Resolution:
    return Resolution(
        query=ASK,
        original_query=ASK,
        mode="naive",
        path="reference",
        fallback_reason=reason,
        decision=decision,
        **fields,
    )


def run(coro):
    return asyncio.run(coro)


# ---- which outcomes are restated --------------------------------------------------


@pytest.mark.parametrize("reason", ["ambiguous", "no_candidates", "rejected:not_in_history", "rejected:already_named"])
def test_an_outcome_that_names_nothing_is_restated(reason):
    assert needs_restatement(checked(reason))


@pytest.mark.parametrize(
    "reason", ["keep", "stands_alone", "timeout", "llm_error", "unparsable", "gate_declined", None]
)
def test_a_kept_or_failed_check_is_not_restated(reason):
    assert not needs_restatement(checked(reason, decision="keep"))


def test_a_refused_name_the_message_holds_before_its_pronoun_needs_no_restatement():
    own = "How does Pulse POS sync, and why use it?"
    refused = replace(checked("rejected:already_named", decision="resolve"), original_query=own)
    refused = replace(refused, rejected_reason="already_named")
    assert not needs_restatement(refused, proposed="Pulse POS")
    assert needs_restatement(refused, proposed="Orbit CRM")  # not the message's own: it points elsewhere
    assert needs_restatement(refused)  # the name unknown: restated as before
    elsewhere = replace(refused, rejected_reason="not_in_history", fallback_reason="rejected:not_in_history")
    assert needs_restatement(elsewhere, proposed="Pulse POS")


def test_only_the_reference_path_is_restated():
    assert not needs_restatement(replace(checked("ambiguous"), path="text"))


# ---- what a restatement may be -------------------------------------------------------


def test_an_accepted_restatement_follows_the_visitors_words():
    before = checked("ambiguous", candidates=("Pulse POS", "Orbit CRM"), raw_output="AMBIGUOUS")
    after = restated(before, turn(), RESTATED, max_words=8)
    assert after.query == f"{ASK} — {RESTATED}" and after.restatement == RESTATED
    assert after.fallback_reason is None and after.changed
    # The check's own record stays.
    assert after.decision == "ambiguous" and after.raw_output == "AMBIGUOUS" and after.candidates == before.candidates


def test_a_restatement_naming_one_candidate_leads_with_it():
    # It found what "it" means, as a named check would have: the name leads, as in §5.3.
    after = restated(checked("ambiguous"), turn(), "Lyon shops using Orbit CRM", max_words=8)
    assert after.query == f"Orbit CRM — {ASK}"
    assert after.restatement == "Lyon shops using Orbit CRM" and after.entity is None


def test_a_restatement_naming_both_candidates_leads_with_neither():
    assert restated_name(RESTATED, turn()) is None


def test_a_candidate_inside_a_longer_one_is_the_same_mention():
    asked = turn("And what is the charge for VPC there?", history=CLOUD_HISTORY)
    assert {"IBM Cloud", "IBM"} <= set(asked.candidates.names)
    assert restated_name("IBM Cloud VPC costs", asked) == "IBM Cloud"


def test_a_name_the_message_already_holds_does_not_lead():
    own = "Which shops in Lyon already use Orbit CRM with it?"
    assert restated_name("Lyon shops using Orbit CRM", turn(own)) is None
    assert restated_name("Lyon shops using Pulse POS and Orbit CRM", turn(own)) == "Pulse POS"


_RESTATEMENT_WORDS = ["Helix", "Pulse POS", "Orbit CRM", "IBM Cloud", "IBM", "VPC", "shops in Lyon", "weekends", "or"]


@given(
    st.sampled_from([HISTORY, CLOUD_HISTORY]),
    st.lists(st.sampled_from(_RESTATEMENT_WORDS), min_size=1, max_size=8),
    st.lists(st.sampled_from(_RESTATEMENT_WORDS), max_size=6),
)
def test_the_leading_name_is_the_restatements_only_new_mention(history, restatement_words, message_words):
    restatement, message = " ".join(restatement_words), " ".join([*message_words, "it?"])
    asked = turn(message, history=history)
    name = restated_name(restatement, asked)
    new = [c for c in asked.candidates.names if contains_phrase(restatement, c) and not contains_phrase(message, c)]
    if name is None:
        # Nothing new, or two mentions that are not one inside the other.
        assert not new or any(not contains_phrase(a, b) and not contains_phrase(b, a) for a in new for b in new)
    else:
        assert name in new and all(contains_phrase(name, other) for other in new)


def test_a_refused_name_keeps_its_reason_on_the_record():
    before = checked("rejected:not_in_history", decision="resolve", rejected_reason="not_in_history")
    after = restated(before, turn(), RESTATED, max_words=8)
    assert after.rejected_reason == "not_in_history" and after.entity is None and after.changed


def test_the_restatement_is_held_to_the_rewrite_checks():
    assert restated(checked("ambiguous"), turn(company="Helix"), RESTATED, max_words=8).restatement == (
        "Lyon shops using Pulse POS or Orbit Helix"  # eight words, the company's name inside them
    )
    for refused in ("NONE", "", "   ", "The visitor asks about the shops", None, 42):
        assert restated(checked("ambiguous"), turn(), refused, max_words=8) == checked("ambiguous")


@pytest.mark.parametrize("answer", ["AMBIGUOUS", "KEEP", "RESOLVE: Pulse POS", '{"decision": "KEEP", "name": ""}'])
def test_an_answer_in_the_checks_format_is_refused(answer):
    assert restated(checked("ambiguous"), turn(), answer, max_words=8) == checked("ambiguous")


def test_the_configured_company_counts_as_established():
    # The rewrite checks append the company's name; the window need not hold it.
    after = restated(checked("ambiguous"), turn(company="Vellinor"), "Pulse POS on weekends", max_words=8)
    assert after.restatement == "Pulse POS on weekends Vellinor"


def test_a_name_the_conversation_did_not_establish_refuses_the_restatement():
    assert restated(checked("ambiguous"), turn(), "shops in Lyon using Stripe Terminal", max_words=8) == checked(
        "ambiguous"
    )
    # Capitalised function words and words of the message are not names to check.
    assert restated(checked("ambiguous"), turn(), "Which Shops in Lyon use Pulse POS", max_words=8).changed


def test_unestablished_names_reads_capitalised_words_only():
    candidates = collect_candidates([(m.role, m.content) for m in HISTORY])
    texts = {"message": ASK, "history": [m.content for m in HISTORY], "candidates": candidates}
    assert unestablished_names("What does Orbit CRM's plan cost", **texts) == ()
    assert unestablished_names("Quelle offre Pulse POS à Lyon", **texts) == ()
    assert unestablished_names("loyalty cards for thanos", **texts) == ()  # lower case: not read as a name
    assert unestablished_names("Thanos and Élodie use Pulse POS", **texts) == ("Thanos", "Élodie")


@given(
    st.lists(
        st.sampled_from("For shops Helix sells Pulse POS and Orbit CRM often together Which Lyon".split()), max_size=8
    )
)
def test_a_text_made_of_the_conversations_words_names_nothing_new(words):
    candidates = collect_candidates([(m.role, m.content) for m in HISTORY])
    assert (
        unestablished_names(" ".join(words), message=ASK, history=[m.content for m in HISTORY], candidates=candidates)
        == ()
    )


@given(model_output)
def test_any_model_output_keeps_the_visitors_words_whole(output):
    after = restated(checked("ambiguous"), turn(), output, max_words=8)
    assert after.original_query == ASK
    name = restated_name(after.restatement, turn()) if after.restatement else None
    if name:
        assert after.query == f"{name} — {ASK}"
    else:
        assert after.query == ASK or after.query.startswith(f"{ASK} — ")
    assert after.changed == (after.restatement is not None)
    assert not after.has_keywords


# ---- the resolver -----------------------------------------------------------------


def test_an_ambiguous_follow_up_is_restated_after_the_check():
    llm = ScriptedLLM(replies={"reference": "AMBIGUOUS", "restatement": RESTATED})
    resolution = run(Resolver().resolve(turn(), llm=llm))
    assert llm.roles() == ["reference", "restatement"]
    assert resolution.query == f"{ASK} — {RESTATED}" and resolution.decision == "ambiguous"
    assert resolution.restatement == RESTATED and resolution.fallback_reason is None


def test_the_restatement_prompt_shows_the_conversation_and_the_candidates():
    llm = ScriptedLLM(replies={"reference": "AMBIGUOUS", "restatement": RESTATED})
    run(Resolver(ResolverConfig(company_name="Helix")).resolve(turn(company="Helix"), llm=llm))
    call = llm.calls[-1]
    assert "Orbit CRM" in call.prompt and ASK in call.prompt and "Helix's website" in call.system_prompt
    assert "at most 8 words" in call.system_prompt


@pytest.mark.parametrize("reference", ["KEEP", "RESOLVE: Pulse POS", "gibberish", RuntimeError("down")])
def test_a_named_kept_or_failed_check_is_not_restated(reference):
    llm = ScriptedLLM(replies={"reference": reference, "restatement": RESTATED})
    resolution = run(Resolver().resolve(turn(), llm=llm))
    assert "restatement" not in llm.roles() and resolution.restatement is None


@pytest.mark.parametrize(
    ("message", "name", "expected"),
    [
        ("How does Pulse POS work and why should I use it?", "Pulse POS", True),
        ("Pulse POS\u2019s console: is it free?", "Pulse POS", True),
        ("how many seasons does friends have? When did it start?", "Friends", True),
        ("So does that mean I should stick to the Lite plan?", "Lite plan", False),  # "that" points first
        ("Which customers have already connected it to their ERP?", "ERP", False),
        ("What about Pulse POS, is it cheaper?", "Pulse POS", False),  # the opening points before the name
        ("Does Pulse POS sync?", "Pulse POS", False),  # nothing points back after it
        ("Quelles enseignes l'ont installé avec Pulse POS ?", "Pulse POS", False),
        ("How does Pulse work and why use it?", "Pulse POS", False),  # the whole name, not a part of it
    ],
)
def test_named_before_pointing_finds_the_name_ahead_of_the_pronoun(message, name, expected):
    assert named_before_pointing(message, name) is expected


@given(st.text(max_size=120), st.text(max_size=40))
def test_named_before_pointing_is_total(message, name):
    assert isinstance(named_before_pointing(message, name), bool)


def test_a_refused_name_the_message_holds_before_its_pronoun_is_not_restated():
    own = "How does Pulse POS sync, and why should shops in Lyon use it?"
    llm = ScriptedLLM(replies={"reference": "RESOLVE: Pulse POS", "restatement": RESTATED})
    resolution = run(Resolver().resolve(turn(own), llm=llm))
    assert llm.roles() == ["reference"]
    assert resolution.fallback_reason == "rejected:already_named" and resolution.query == own

    after = "Which shops in Lyon use it next to Pulse POS?"  # the pronoun comes first: it points at the conversation
    llm = ScriptedLLM(replies={"reference": "RESOLVE: Pulse POS", "restatement": RESTATED})
    resolution = run(Resolver().resolve(turn(after), llm=llm))
    assert llm.roles() == ["reference", "restatement"] and resolution.restatement == RESTATED


def test_the_switch_turns_the_restatement_off():
    llm = ScriptedLLM(replies={"reference": "AMBIGUOUS", "restatement": RESTATED})
    resolution = run(tuned(restate_references=False).resolve(turn(), llm=llm))
    assert llm.roles() == ["reference"] and resolution.fallback_reason == "ambiguous" and not resolution.changed


def test_a_failing_restatement_leaves_the_checks_outcome():
    for reply in (RuntimeError("down"), "NONE"):
        llm = ScriptedLLM(replies={"reference": "AMBIGUOUS", "restatement": reply})
        resolution = run(Resolver().resolve(turn(), llm=llm))
        assert resolution.fallback_reason == "ambiguous" and not resolution.changed


def test_a_slow_restatement_meets_the_reference_timeout():
    llm = ScriptedLLM(replies={"reference": "AMBIGUOUS", "restatement": RESTATED}, delays={"restatement": 30})
    resolver = Resolver(ResolverConfig(reference_timeout=0.05, timeout=60))
    resolution = run(resolver.resolve(turn(), llm=llm))
    assert resolution.fallback_reason == "ambiguous" and not resolution.changed


def test_the_restatement_prompt_and_parser_are_override_points():
    class Shop(Resolver):
        def restatement_prompt(self, turn):
            return replace(super().restatement_prompt(turn), system="Custom restatement.")

        def parse_text(self, output):
            return output.removeprefix("Query: ")

    llm = ScriptedLLM(replies={"reference": "AMBIGUOUS", "restatement": f"Query: {RESTATED}"})
    resolution = run(Shop().resolve(turn(), llm=llm))
    assert llm.calls[-1].system_prompt == "Custom restatement." and resolution.restatement == RESTATED


def test_restate_references_must_be_a_bool():
    with pytest.raises(TypeError, match="restate_references"):
        ResolverTuning(restate_references="yes")


# ---- keywords in graph modes ----------------------------------------------------------


def test_a_restated_reference_reuses_lightrags_keywords_led_by_the_names_it_holds():
    extracted = LightRAGKeywords(hl_keywords=("retail adoption",), ll_keywords=("shops", "Lyon"))
    resolution = replace(
        checked("ambiguous", candidates=("Pulse POS", "Orbit CRM", "Stripe")),
        query=f"{ASK} — {RESTATED}",
        fallback_reason=None,
        restatement=RESTATED,
    )
    reused = reuse_keywords(resolution, extracted, max_ll=5, max_hl=3)
    assert reused.ll_keywords == ("Pulse POS", "Orbit CRM", "shops", "Lyon")
    assert reused.hl_keywords == ("retail adoption",)
    bare = reuse_keywords(replace(resolution, candidates=()), extracted, max_ll=5, max_hl=3)
    assert bare.ll_keywords == ("shops", "Lyon") and bare.hl_keywords == ("retail adoption",)
    no_hl = LightRAGKeywords(hl_keywords=(), ll_keywords=("shops",))
    assert not reuse_keywords(resolution, no_hl, max_ll=5, max_hl=3).has_keywords  # both lists or none


# ---- on a real LightRAG --------------------------------------------------------------


def extraction(call):
    return keyword_json(["shops", "Lyon"], ["retail adoption"])


async def restated_on_a_real_lightrag(make_rag, mode: str, restatement: str) -> tuple[ScriptedLLM, dict]:
    """One ambiguous follow-up restated as ``restatement`` on a real LightRAG: the model and the resolution record."""
    llm = ScriptedLLM(replies={"reference": "AMBIGUOUS", "restatement": restatement, "lightrag_keywords": extraction})
    rag = await make_rag(llm, resolver=ResolverConfig())
    caller = QueryParam(mode=mode, conversation_history=[m.__dict__ for m in HISTORY], enable_rerank=False)
    before = copy.deepcopy(caller)
    result = await rag.aquery_data(ASK, caller)
    assert caller == before
    return llm, result["metadata"]["resolution"]


@pytest.mark.parametrize("mode", ["naive", "mix"])
async def test_a_restated_follow_up_retrieves_once_more_on_a_real_lightrag(make_rag, mode):
    llm, resolution = await restated_on_a_real_lightrag(make_rag, mode, RESTATED)
    assert resolution["query"] == f"{ASK} — {RESTATED}" and resolution["restatement"] == RESTATED
    if mode == "mix":  # LightRAG's keywords for the visitor's words are reused: no second extraction
        assert llm.roles().count("lightrag_keywords") == 1
        assert resolution["ll_keywords"][:2] == ["Pulse POS", "Orbit CRM"]
    else:
        assert "lightrag_keywords" not in llm.roles()


@pytest.mark.parametrize("mode", ["naive", "mix"])
async def test_a_restatement_that_finds_one_name_retrieves_like_a_named_check_on_a_real_lightrag(make_rag, mode):
    found = "Lyon shops using Orbit CRM"
    llm, resolution = await restated_on_a_real_lightrag(make_rag, mode, found)
    assert resolution["query"] == f"Orbit CRM — {ASK}" and resolution["restatement"] == found
    assert resolution["decision"] == "ambiguous" and resolution["entity"] is None  # the check's own record stays
    if mode == "mix":
        assert llm.roles().count("lightrag_keywords") == 1
        assert resolution["ll_keywords"][0] == "Orbit CRM"
