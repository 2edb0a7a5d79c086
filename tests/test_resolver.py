"""The resolver without LightRAG: routing, fallbacks, and invariants under any model output."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fakes import ScriptedLLM, keyword_json, reference_json
from lightrag_resolve import Message, Resolution, Resolver, ResolverConfig, Turn
from lightrag_resolve._turn.conversation import recent_messages
from lightrag_resolve._enforce import append_context, is_prompt_format, is_scaffold
from lightrag_resolve._languages.text import contains_phrase
from lightrag_resolve._languages.text import clean_single_line
from strategies import history, model_output, modes, prompt_format_text, queries
from tuned import tuned

HISTORY = (
    Message(role="user", content="Quelles offres avez-vous ?"),
    Message(
        role="assistant",
        content="Nous avons une offre Santé, une offre BTP et Pulse POS pour le commerce. Quel secteur ?",
    ),
)


def turn(query: str, mode: str = "mix", history=HISTORY, company: str | None = "Helix", context_words: int = 0) -> Turn:
    """A turn; the question's context (contract §5.6) is off unless a test asks for it."""
    return Turn(query=query, history=tuple(history), mode=mode, company_name=company, context_words=context_words)


def run(coro):
    return asyncio.run(coro)


def test_routing_follows_spec_section_3():
    resolver = Resolver()
    assert resolver.route(turn("Santé"), enabled=False).fallback_reason == "disabled"
    assert resolver.route(turn("Santé", history=()), enabled=True).fallback_reason == "first_turn"
    bypass = resolver.route(turn("Santé", mode="bypass"), enabled=True)
    assert bypass.path == "bypass" and bypass.fallback_reason is None and not bypass.changed
    assert resolver.route(turn("Santé", mode="naive"), enabled=True) == "text"
    assert resolver.route(turn("Quelles enseignes l'ont installée ?", mode="naive"), enabled=True) == "reference"
    naive_off = tuned(reference_in_naive=False)
    declined = naive_off.route(turn("Quelles enseignes l'ont installée ?", mode="naive"), enabled=True)
    assert declined.fallback_reason == "gate_declined"
    for mode in ["local", "global", "hybrid", "mix"]:
        assert resolver.route(turn("Santé", mode=mode), enabled=True) == "keywords"
        assert resolver.route(turn("Quelles enseignes l'ont installée ?", mode=mode), enabled=True) == "reference"
    assert resolver.route(turn("Santé"), enabled=True, caller_keywords=True).fallback_reason == "caller_keywords"
    assert resolver.route(turn("Santé", mode="vector"), enabled=True).fallback_reason == "unsupported_mode"


def test_keyword_resolution_adds_the_meaning_to_the_text_and_fills_both_lists():
    reply = keyword_json(["Offre Santé", "Vitalis"], ["santé"], query="offre Santé pour cliniques")
    llm = ScriptedLLM(replies={"keywords": reply})
    resolution = run(Resolver().resolve(turn("Santé"), llm=llm, model="m"))
    # The same checks as a naive-mode rewrite: the company's name joins the text.
    assert (
        resolution.query == "offre Santé pour cliniques Helix" and resolution.path == "keywords" and resolution.changed
    )
    # "Vitalis" is named nowhere in the conversation: dropped, and recorded.
    assert resolution.ll_keywords == ("Offre Santé",) and resolution.hl_keywords == ("santé",)
    assert resolution.dropped_keywords == ("Vitalis",)
    assert resolution.fallback_reason is None and resolution.model == "m" and resolution.elapsed_ms >= 0
    assert llm.calls[0].kwargs == {"response_format": {"type": "json_object"}}
    assert "Quel secteur" in llm.calls[0].prompt and "Reply: Santé" in llm.calls[0].prompt
    names = llm.calls[0].prompt.split("Names in the conversation:\n", 1)[1]
    assert ". Santé\n" in names and ". Pulse POS\n" in names


def test_the_visitors_words_stay_in_front_of_a_meaning_that_does_not_hold_them():
    reply = keyword_json(["Pulse POS"], ["commerce"], query="Pulse POS pour le commerce")
    resolution = run(Resolver().resolve(turn("Oui, le dernier"), llm=ScriptedLLM(replies={"keywords": reply})))
    assert resolution.query == "Oui, le dernier — Pulse POS pour le commerce Helix"
    assert resolution.ll_keywords == ("Pulse POS",)


def test_without_a_usable_text_the_grounded_keywords_steer_the_text():
    reply = keyword_json(["Offre BTP"], ["construction"], query="The visitor wants BTP")
    resolution = run(Resolver().resolve(turn("BTP"), llm=ScriptedLLM(replies={"keywords": reply})))
    assert resolution.query == "Offre BTP" and resolution.ll_keywords == ("Offre BTP",)


def test_keywords_the_conversation_never_named_are_a_fallback():
    reply = keyword_json(["Vitalis", "Orbit CRM"], ["santé"], query="Vitalis")
    resolution = run(Resolver().resolve(turn("Santé"), llm=ScriptedLLM(replies={"keywords": reply})))
    assert resolution.fallback_reason == "ungrounded" and not resolution.changed
    assert resolution.ll_keywords == () and resolution.dropped_keywords == ("Vitalis", "Orbit CRM")


def test_a_picked_option_leads_and_the_other_options_go():
    history = (Message(role="assistant", content="Shall I send the price of Orbit CRM, Pulse POS or Nimbus?"),)
    reply = keyword_json(["Orbit CRM", "Pulse POS", "Nimbus"], ["pricing"], query="Orbit CRM Pulse POS Nimbus price")
    llm = ScriptedLLM(replies={"keywords": reply})
    resolution = run(Resolver().resolve(turn("Yes, the second one", history=history), llm=llm))
    assert resolution.ll_keywords == ("Pulse POS",)
    assert resolution.query == "Yes, the second one — Pulse POS Helix"
    assert "(The reply picks: Pulse POS)" in llm.calls[0].prompt


def test_a_naive_reply_that_picks_an_option_of_the_question_needs_no_model():
    asked = (
        Message(role="user", content="How much is the Pulse POS training?"),
        Message(
            role="assistant",
            content="It depends on the plan. Which plan: Essentiel, Croissance or Horizon? I can then say.",
        ),
    )
    for reply, option in (("Horizon", "Horizon"), ("Yes, the second one", "Croissance")):
        llm = ScriptedLLM(replies={"text": "NONE"})
        resolution = run(Resolver().resolve(turn(reply, "naive", asked, context_words=40), llm=llm))
        assert llm.calls == [] and resolution.fallback_reason is None and resolution.raw_output is None
        assert resolution.query.startswith(f"{reply} — {option} Helix — " if reply != option else f"{option} Helix — ")
        meaning, question = resolution.query.split(" — ")[-2:]
        assert "Essentiel" not in meaning and question == resolution.context  # the question carried whole
        assert resolution.context.endswith("Which plan: Essentiel, Croissance or Horizon? I can then say.")
    # With the switch on, or for a reply that answers no question, the model is asked as before.
    llm = ScriptedLLM(replies={"text": "Horizon plan training price"})
    rewritten = run(
        tuned(company_name="Helix", rewrite_picked_replies=True).resolve(turn("Horizon", "naive", asked), llm=llm)
    )
    assert llm.roles() == ["text"] and "Horizon plan training price" in rewritten.query
    told = (Message(role="assistant", content="We sell Pulse POS and Orbit CRM."),)
    llm = ScriptedLLM(replies={"text": "Pulse POS loyalty terminal"})
    unasked = run(tuned(resolve_unprompted_replies=True).resolve(turn("Pulse POS", "naive", told), llm=llm))
    assert llm.roles() == ["text"] and unasked.fallback_reason is None


def test_a_backend_that_decodes_under_a_schema_gets_the_schema():
    llm = ScriptedLLM(replies={"keywords": keyword_json(["Offre Santé"], ["santé"], query="offre Santé")})
    llm.supports_json_schema = True  # type: ignore[attr-defined]
    run(Resolver().resolve(turn("Santé"), llm=llm))
    response_format = llm.calls[0].kwargs["response_format"]
    assert response_format["type"] == "json_schema"
    schema = response_format["json_schema"]["schema"]
    assert schema["required"] == ["query", "terms", "themes"]  # the compact answer (issue 42)
    assert schema["properties"]["terms"]["maxItems"] == 2  # the answer's cap, within the configured 5
    off = ScriptedLLM(replies={"keywords": keyword_json(["Offre Santé"], ["santé"])})
    run(Resolver(ResolverConfig(structured_output="off")).resolve(turn("Santé"), llm=off))
    assert off.calls[0].kwargs == {}


def test_text_resolution_enforces_company_and_cap():
    llm = ScriptedLLM(replies={"text": "offre santé pour cliniques et hôpitaux en France métropolitaine"})
    resolver = tuned(company_name="Helix", rewrite_picked_replies=True)  # "Santé" picks an option
    resolution = run(resolver.resolve(turn("Santé", mode="naive"), llm=llm))
    assert resolution.query == "offre santé pour cliniques et hôpitaux en Helix"
    assert resolution.original_query == "Santé" and contains_phrase(resolution.query, "Santé")
    assert resolution.path == "text" and resolution.changed and resolution.ll_keywords == ()


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (RuntimeError("provider down"), "llm_error"),
        ("not json at all", "unparsable"),
        ('{"low_level_keywords": ["Vitalis"]}', "incomplete"),
        ('{"low_level_keywords": ["The visitor chose Vitalis"], "high_level_keywords": ["santé"]}', "scaffold"),
        ("NONE", "empty"),
        ('{"low_level_keywords": [], "high_level_keywords": []}', "empty"),
        (lambda call: 42, "unparsable"),
    ],
)
def test_keyword_fallbacks_carry_their_reason_and_no_keywords(reply, reason):
    resolution = run(Resolver().resolve(turn("Santé"), llm=ScriptedLLM(replies={"keywords": reply})))
    assert resolution.fallback_reason == reason
    assert resolution.ll_keywords == () and resolution.hl_keywords == ()
    assert resolution.query == "Santé" and not resolution.changed


def test_a_hanging_model_times_out():
    llm = ScriptedLLM(delays={"keywords": 30})
    config = ResolverConfig(timeout=0.05)
    resolution = run(Resolver(config).resolve(turn("Santé"), llm=llm))
    assert resolution.fallback_reason == "timeout" and not resolution.changed
    assert resolution.elapsed_ms < 5000


def test_reference_check_decisions():
    history = (
        Message(role="user", content="What is Pulse POS?"),
        Message(role="assistant", content="Pulse POS is the Helix loyalty terminal for retailers."),
    )
    ask = "Which retailers already run it?"

    def check(reply):
        llm = ScriptedLLM(replies={"reference": reply})
        resolver = tuned(company_name="Helix", check_sole_candidate=True)  # Pulse POS is the sole candidate
        return run(resolver.resolve(turn(ask, history=history), llm=llm))

    resolved = check("RESOLVE: Pulse POS")
    assert resolved.query == f"Pulse POS — {ask}" and resolved.decision == "resolve" and resolved.entity == "Pulse POS"
    # A one-line answer gives no keywords: the message's own words stand in, led by the name (one call).
    assert (
        resolved.changed and resolved.ll_keywords[:2] == ("Pulse POS", "retailers") and resolved.fallback_reason is None
    )
    assert check("KEEP").decision == "keep" and check("KEEP").entity is None
    assert check("AMBIGUOUS").decision == "ambiguous"
    rejected = check("RESOLVE: Orbit CRM")
    assert rejected.fallback_reason == "rejected:not_in_history" and rejected.rejected_reason == "not_in_history"
    assert rejected.query == ask and not rejected.changed
    assert check("RESOLVE: Helix").rejected_reason == "company"
    assert check("RESOLVE: 1").entity == "Pulse POS"  # a number from the list stands for its name
    lowercase = check("RESOLVE: loyalty terminal")  # in the history, but not a name it established
    assert lowercase.rejected_reason == "not_a_candidate" and not lowercase.changed
    assert check('{"decision": "RESOLVE", "name": "Pulse POS"}').entity == "Pulse POS"
    assert check('{"decision": "KEEP", "name": ""}').decision == "keep"
    garbled = check("It is probably the terminal")
    assert garbled.decision == "error" and garbled.fallback_reason == "unparsable"
    failed = check(TimeoutError("slow"))
    assert failed.decision == "error" and failed.fallback_reason in {"timeout", "llm_error"}


def test_a_window_that_names_one_candidate_is_resolved_to_it_without_a_call():
    history = (
        Message(role="user", content="What is Pulse POS?"),
        Message(role="assistant", content="Pulse POS is the Helix loyalty terminal for retailers."),
    )
    ask = "Which retailers already run it?"
    for mode in ("naive",):  # in graph modes the call replaces LightRAG's: the model decides (issue 40)
        llm = ScriptedLLM(replies={"reference": "KEEP"})
        resolution = run(Resolver(ResolverConfig(company_name="Helix")).resolve(turn(ask, mode, history), llm=llm))
        assert llm.calls == []  # the check could only have proposed Pulse POS
        assert resolution.query == f"Pulse POS — {ask}" and resolution.entity == "Pulse POS"
        assert resolution.decision == "resolve" and resolution.fallback_reason is None and resolution.raw_output is None
        assert resolution.candidates == ("Pulse POS",)
    # The same guards as for a name the model proposed: a message that already names it keeps its words.
    named = "Which retailers run Pulse POS, and since when have they had it?"
    llm = ScriptedLLM(replies={"reference": reference_json("AMBIGUOUS", query="Pulse POS retail customers")})
    kept = run(Resolver(ResolverConfig(company_name="Helix")).resolve(turn(named, "naive", history), llm=llm))
    assert kept.rejected_reason == "already_named" and kept.query == named and llm.calls == []
    # With the switch on, the model decides as before.
    llm = ScriptedLLM(replies={"reference": "KEEP"})
    checked = run(tuned(company_name="Helix", check_sole_candidate=True).resolve(turn(ask, "naive", history), llm=llm))
    assert checked.fallback_reason == "keep" and llm.roles() == ["reference"]
    # A window whose graph lookup failed may hold names the code did not see: its one candidate is checked.
    llm = ScriptedLLM(replies={"reference": "AMBIGUOUS"})
    unlooked = replace(turn(ask, "naive", history), graph_lookup_failed=True)
    doubted = run(Resolver(ResolverConfig(company_name="Helix")).resolve(unlooked, llm=llm))
    assert doubted.decision == "ambiguous" and llm.roles()[0] == "reference"
    # In a graph mode the one candidate is the model's evidence: its KEEP stands.
    llm = ScriptedLLM(replies={"reference": "KEEP"})
    graph = run(Resolver(ResolverConfig(company_name="Helix")).resolve(turn(ask, "mix", history), llm=llm))
    assert llm.roles() == ["reference"] and graph.decision == "keep" and graph.entity is None
    assert "1. Pulse POS" in llm.calls[0].prompt


NOTHING_NAMED = (Message(role="assistant", content="happy to help with anything else you need today."),)
"""A window that names nothing the message could point at."""


@pytest.mark.parametrize("mode", ["naive", "mix"])
def test_a_window_that_names_nothing_is_asked_once_and_restated_from_the_same_answer(mode):
    ask = "Which retailers already run it?"
    answer = reference_json("AMBIGUOUS", query="retailers running the happy help service")
    llm = ScriptedLLM(replies={"reference": answer})
    resolution = run(Resolver().resolve(turn(ask, mode, NOTHING_NAMED), llm=llm))
    assert llm.roles() == ["reference"]  # the check's one call holds the restatement (contract §5.9)
    assert resolution.query == f"{ask} — retailers running the happy help service Helix"
    assert resolution.restatement == "retailers running the happy help service Helix"
    assert resolution.decision == "ambiguous" and resolution.fallback_reason is None
    # Whatever it decides, a window without candidates names nothing: only a KEEP is a KEEP.
    for reply, reason in (("RESOLVE: anything", "no_candidates"), ("AMBIGUOUS", "no_candidates"), ("KEEP", "keep")):
        llm = ScriptedLLM(replies={"reference": reply})
        resolution = run(Resolver().resolve(turn(ask, mode, NOTHING_NAMED), llm=llm))
        assert resolution.decision == ("keep" if reason == "keep" else "ambiguous") and resolution.entity is None
        assert resolution.query == ask and llm.roles() == ["reference"]
        if mode == "naive":
            assert resolution.fallback_reason == reason and not resolution.changed
        else:  # the message's own words are LightRAG's keywords: the turn keeps its one call
            assert resolution.fallback_reason is None and resolution.ll_keywords == ("retailers", "already", "run")


def test_the_reference_timeout_bounds_the_check_beside_naive_modes_search():
    llm = ScriptedLLM(delays={"reference": 30})
    resolver = Resolver(ResolverConfig(reference_timeout=0.05, timeout=60))
    resolution = run(resolver.resolve(turn("Which retailers already run it?", mode="naive"), llm=llm))
    assert resolution.fallback_reason == "timeout" and resolution.decision == "error"


@pytest.mark.parametrize("mode", ["local", "global", "hybrid", "mix"])
def test_in_graph_modes_the_check_replacing_lightrags_extraction_is_bounded_by_the_resolver_timeout(mode):
    slow = ScriptedLLM(replies={"reference": reference_json("KEEP")}, delays={"reference": 0.3})
    patient = Resolver(ResolverConfig(reference_timeout=0.05, timeout=60))
    assert run(patient.resolve(turn("Which retailers already run it?", mode=mode), llm=slow)).decision == "keep"
    hurried = Resolver(ResolverConfig(reference_timeout=60, timeout=0.05))
    resolution = run(hurried.resolve(turn("Which retailers already run it?", mode=mode), llm=slow))
    assert resolution.fallback_reason == "timeout" and resolution.decision == "error"


@given(model_output, queries, modes, history)
@example(":", "0\x1b", "naive", [{"role": "user", "content": "A"}])  # an escape in the words, cleaned in the text
@example("NONE", "Oui", "mix", [{"role": "assistant", "content": "Kadoro ou Magazio ?"}])  # the question stays
@example("RESOLVE:A00000 A0000000000 A000", "\x1b", "local", [{"role": "user", "content": "A00000 A0000000000 A000"}])
@example(":", "OK", "naive", [{"role": "assistant", "content": ":"}])  # the meaning already holds the question
# The check's one JSON answer: a KEEP with its keywords, a KEEP its keywords name, a restatement, a restatement that
# names one candidate.
@example(
    '{"decision": "KEEP", "name": "", "query": "", "low_level_keywords": ["shops"], "high_level_keywords": ["retail"]}',
    "Which retailers already run it in their shops?",
    "mix",
    [{"role": "assistant", "content": "We sell Kadoro and Magazio."}],
)
@example(
    '{"decision": "KEEP", "name": "", "query": "", "low_level_keywords": ["Kadoro"], "high_level_keywords": ["shops"]}',
    "Which retailers already run it in their shops?",
    "mix",
    [{"role": "assistant", "content": "We sell Kadoro and Magazio."}],
)
@example(
    '```json\n{"decision": "AMBIGUOUS", "name": "", "query": "retailers running Kadoro or Magazio"}\n```',
    "Which retailers already run it in their shops?",
    "naive",
    [{"role": "assistant", "content": "We sell Kadoro and Magazio."}],
)
@example(
    '{"decision": "AMBIGUOUS", "query": "retailers running Magazio", "ll_keywords": ["Magazio"], "hl_keywords": ["retail"]}',
    "Which retailers already run it in their shops?",
    "hybrid",
    [{"role": "assistant", "content": "We sell Kadoro and Magazio."}],
)
def test_any_model_output_gives_a_lawful_resolution(output, query, mode, raw_history):
    config = ResolverConfig(company_name="Helix")
    the_turn = Turn(query=query, history=recent_messages(raw_history, 2), mode=mode, company_name="Helix")
    llm = ScriptedLLM(replies={"keywords": output, "text": output, "reference": output})
    resolution = run(Resolver(config).resolve(the_turn, llm=llm))
    assert isinstance(resolution, Resolution)
    assert bool(resolution.ll_keywords) == bool(resolution.hl_keywords)
    assert resolution.original_query == query
    context = resolution.context
    if context is not None:
        # Only a short reply to the assistant's question carries it, at the end of its text, unless the text
        # already holds it (contract §5.6, ``append_context``).
        assert resolution.path in {"keywords", "text"} and the_turn.history[-1].role == "assistant"
        assert resolution.query.endswith(f" — {context}") or contains_phrase(resolution.query, context)
    if resolution.fallback_reason is not None:
        assert resolution.query == query and not resolution.ll_keywords and not resolution.changed
    if resolution.carry_reason is not None:
        assert resolution.query == append_context(query, context) and not resolution.ll_keywords
    if mode in {"bypass"}:
        assert resolution.query == query
    if resolution.path in {"keywords", "text"} and resolution.changed and resolution.carry_reason is None:
        # The visitor's words are never lost: in front of the meaning, or inside it.
        body = resolution.query.removesuffix(f" — {context}") if context else resolution.query
        prefix = f"{clean_single_line(query)} — "
        meaning = body[len(prefix) :] if body.startswith(prefix) else body
        assert body.startswith(prefix) or contains_phrase(meaning, query)
        assert len(meaning.split()) <= config.max_query_words and not is_scaffold(meaning)
        if resolution.path == "text":
            assert contains_phrase(meaning, "Helix")
    if resolution.path == "reference":
        # The check's keywords replace LightRAG's extraction only where LightRAG extracts: the graph modes.
        assert not resolution.has_keywords or mode in {"local", "global", "hybrid", "mix"}
        words = clean_single_line(query)  # one line without control characters (contract §5.3)
        if resolution.query == query:
            # Unchanged, or a KEEP (an AMBIGUOUS) that carries the check's keywords and is no fallback (§7).
            assert resolution.changed == resolution.has_keywords
        elif resolution.restatement is None:
            name = resolution.entity
            assert name and resolution.query == f"{name} — {words}"
            assert contains_phrase(the_turn.message_texts, name) and not contains_phrase(query, name)
        else:  # restated from the same answer (§5.9): the visitor's words stay, the restatement beside them
            assert resolution.query in {
                f"{words} — {resolution.restatement}",
                *(
                    f"{name} — {words}"
                    for name in the_turn.candidates.names
                    if contains_phrase(resolution.restatement, name)
                ),
            }
            assert len(resolution.restatement.split()) <= config.max_query_words + 1  # + the company's name
    if mode == "naive":
        assert resolution.ll_keywords == ()
    if not the_turn.history:
        assert resolution.fallback_reason in {"first_turn", None} and not resolution.changed


@given(st.sampled_from(["local", "global", "hybrid", "mix"]), model_output)
def test_graph_short_replies_never_get_half_a_keyword_query(mode, output):
    resolution = run(Resolver().resolve(turn("Santé", mode=mode), llm=ScriptedLLM(replies={"keywords": output})))
    assert (resolution.ll_keywords == ()) == (resolution.hl_keywords == ())
    assert resolution.query == "Santé"


def test_resolution_refuses_half_a_keyword_query():
    with pytest.raises(ValueError):
        Resolution(query="q", original_query="q", mode="mix", path="keywords", ll_keywords=("a",))


def test_standalone_resolve_reports_to_the_hook():
    seen = []
    resolver = Resolver(ResolverConfig(on_resolution=seen.append))
    resolution = run(resolver.resolve(turn("Santé"), llm=ScriptedLLM(replies={"keywords": keyword_json(["a"], ["b"])})))
    assert seen == [resolution]


FORMAT_HISTORY = (
    Message(role="user", content="What do you sell?"),
    Message(role="assistant", content="We sell Pulse POS and Orbit CRM. Which one interests you?"),
)


@st.composite
def format_answers(draw) -> dict[str, str]:
    """Every resolver prompt answered in a prompt's own format; the JSON answers' ``query`` and keywords too."""
    text = draw(prompt_format_text)
    grounded = draw(st.sampled_from(["Pulse POS", "Orbit CRM"]))
    keywords = draw(st.sampled_from([[grounded], [grounded, text]]))
    return {
        "text": text,
        "keywords": keyword_json(keywords, [draw(st.sampled_from(["pricing", text]))], query=draw(prompt_format_text)),
        # The check's one answer: its restatement (the standalone question too) and its keywords in a prompt's format.
        "reference": reference_json(
            draw(st.sampled_from(["AMBIGUOUS", "RESOLVE", "KEEP"])),
            name=draw(st.sampled_from(["", "Pulse POS"])),
            query=draw(prompt_format_text),
            ll=keywords,
            hl=[draw(st.sampled_from(["pricing", text]))],
        ),
    }


@given(
    format_answers(),
    st.sampled_from(["Maybe", "Santé", "Which retailers already run it?"]),
    st.sampled_from(["naive", "mix"]),
)
def test_nothing_of_a_prompts_own_format_reaches_retrieval(answers, query, mode):
    resolver = tuned(
        company_name="Helix",
        rewrite_picked_replies=True,
        fuse_standalone_question=True,
        check_every_follow_up=True,
        check_sole_candidate=True,
    )
    the_turn = Turn(query=query, history=FORMAT_HISTORY, mode=mode, company_name="Helix")
    resolution = run(resolver.resolve(the_turn, llm=ScriptedLLM(replies=answers)))
    added = resolution.query.removesuffix(f" — {resolution.context}") if resolution.context else resolution.query
    added = added.replace(query, " ")  # what the library wrote around the visitor's words
    for text in (
        added,
        resolution.restatement or "",
        resolution.standalone_question or "",
        *resolution.ll_keywords,
        *resolution.hl_keywords,
    ):
        assert not is_prompt_format(text), text
