"""The context of a reply (contract §5.6): the assistant's question, carried into a short reply's text."""

from __future__ import annotations

import asyncio

import pytest

from hypothesis import given
from hypothesis import strategies as st

from fakes import ScriptedLLM, keyword_json
from lightrag_resolve import Message, Resolver, ResolverTuning, Turn
from lightrag_resolve._turn.reply_context import (
    MAX_CONTEXT_CHARS,
    accepted_offer,
    asks_something,
    invites_reply,
    is_acceptance,
    is_assent,
    reply_context,
)
from lightrag_resolve._languages.text import answered_sentence, clean_single_line, split_sentences

QUESTION = "We run Kadoro for shops and Pivotane for clinics. Which one should I describe?"
SENTENCES = (
    "We run Kadoro for shops and Pivotane for clinics.",
    "Zentavo entwickelt Software für vier Branchen: Gesundheit, Logistik, Handel und Bildung.",
    "Cada sector tiene su producto principal, Klinora, Ferrovi, Tarvo o Aulira.",
    "Zentavo 有四个附加模块：Avisa、Lumetrik、Firmado 和 Enlace API。",
    "Nous proposons Magazio et Pivotane pour les équipes postées.",
)
QUESTIONS = (
    "Which one should I describe?",
    "In welcher Branche ist Ihr Betrieb tätig?",
    "¿Cuál le interesa?",
    "您想先了解哪一个？",
)


def test_only_a_question_in_the_last_assistant_message_is_context():
    asked = [("user", "What do you sell?"), ("assistant", QUESTION)]
    assert reply_context(asked, max_words=40) == f"What do you sell? {QUESTION}"
    assert reply_context(asked[1:], max_words=40) == QUESTION
    assert reply_context([("user", "Hi"), ("assistant", "We run Kadoro for shops.")], max_words=40) is None
    # The visitor spoke last: the message answers nothing the assistant asked.
    assert reply_context([("assistant", QUESTION), ("user", "Hm.")], max_words=40) is None
    assert reply_context([], max_words=40) is None
    assert reply_context(asked, max_words=0) is None  # switched off


def test_the_visitors_message_before_the_question_leads_the_context():
    asked = [
        ("user", "How much is the Pivotane Bootcamp?"),
        ("assistant", "It costs €420 a day. Which plan is your company on: Essentiel or Horizon?"),
    ]
    assert reply_context(asked, max_words=40, reply="Horizon") == (
        "How much is the Pivotane Bootcamp? It costs €420 a day. Which plan is your company on: Essentiel or Horizon?"
    )
    # Each part keeps its own last words: the visitor's question is not pushed out by a long answer.
    long_answer = " ".join(f"Fact {index} is here." for index in range(300)) + " Which plan?"
    context = reply_context([("user", "How much is the Bootcamp?"), ("assistant", long_answer)], max_words=5)
    assert context == "How much is the Bootcamp? Fact 299 is here. Which plan?"
    # Only a visitor's message counts, and only the one right before the question.
    assert reply_context([("assistant", "Hello."), ("assistant", QUESTION)], max_words=40) == QUESTION
    assert reply_context([("user", "  "), ("assistant", QUESTION)], max_words=40) == QUESTION


def test_an_offer_or_a_request_in_the_last_sentence_invites_a_reply():
    assert invites_reply("Kadoro runs offline. I can send you the installation guide.")
    assert invites_reply("We train on A1, B1 and C1. Let me know which level fits your team.")
    assert invites_reply("Nous couvrons trois secteurs. Dites-moi le vôtre.")
    assert invites_reply("Je peux vous envoyer la grille tarifaire.")
    assert not invites_reply("I can\u2019t say more. Kadoro costs 49 € a month.")  # the offer is not the last sentence
    assert not invites_reply("Kadoro costs 49 € a month. I cannot share the discount grid.")
    assert not invites_reply("Kadoro costs 49 € a month.")


def test_assent_answers_the_last_message_whatever_it_said():
    statement = [("user", "Do you sell POS?"), ("assistant", "Kadoro is our loyalty terminal for shops.")]
    for reply in ("Yes please", "OK", "Sure, go ahead", "Oui, volontiers", "D'accord", "Non merci", "s'il vous plaît"):
        assert is_assent(reply), reply
        assert reply_context(statement, max_words=40, reply=reply) == (
            "Do you sell POS? Kadoro is our loyalty terminal for shops."
        )
    for reply in ("Virtualization", "Yes, the analytics one", "Kadoro", "", "..."):
        assert not is_assent(reply), reply
        assert reply_context(statement, max_words=40, reply=reply) is None
    # Only the assistant's message is answered: the visitor spoke last.
    assert reply_context([*statement, ("user", "Hm.")], max_words=40, reply="OK") is None


def test_a_question_anywhere_in_the_message_counts_in_any_script():
    assert asks_something("Shall I go on? It takes a minute.")
    assert asks_something("Quel secteur vous intéresse ? Santé, BTP, Commerce.")
    assert asks_something("どちらがよろしいですか？詳しく説明します。")
    assert asks_something("هل تريد المزيد؟")
    assert not asks_something("Kadoro costs 49 € a month. It runs offline.")


def test_a_question_mark_inside_a_link_asks_nothing():
    answer = "Update it as the documentation says: <https://cloud.ibm.com/docs/containers?topic=update>. Plan ahead."
    assert not asks_something(answer) and not invites_reply(answer)
    assert reply_context([("user", "How can I update the master?"), ("assistant", answer)], max_words=40) is None
    assert not asks_something("See https://example.com/search?q=kadoro&lang=fr for more.")
    # A question mark before a space, a closing bracket or the end still ends a question.
    assert asks_something("Shall I go on? It takes a minute.") and asks_something("(Did you know?) It works.")


def test_the_context_is_whole_sentences_holding_the_last_words():
    sentences = [f"Sentence {index} has exactly six words." for index in range(12)]
    message = " ".join(sentences) + " Which one?"
    context = reply_context([("assistant", message)], max_words=14)
    # 14 words: "Which one?" (2), two whole sentences (12); the third sentence back holds none of them.
    assert context == " ".join(sentences[-2:]) + " Which one?"
    crossing = reply_context([("assistant", message)], max_words=15)
    assert crossing == " ".join(sentences[-3:]) + " Which one?"  # the 15th word's sentence, whole


def test_a_context_stays_within_a_character_bound():
    long_message = " ".join(f"word{index}" for index in range(500)) + " ?"
    context = reply_context([("assistant", long_message)], max_words=40)
    # One huge sentence: its end, from a word boundary, where the question is.
    assert context is not None and len(context) <= MAX_CONTEXT_CHARS and long_message.endswith(context)
    assert context.split()[0] in long_message.split()
    unbroken = "x" * 100_000 + "?"
    bounded = reply_context([("assistant", unbroken)], max_words=40)
    assert bounded is not None and len(bounded) <= MAX_CONTEXT_CHARS and bounded.endswith("?")
    assert reply_context([("assistant", "Which one?\u200b\x00")], max_words=40) == "Which one?"
    many = " ".join(f"Is option {index} of forty the one you want?" for index in range(40))
    kept = reply_context([("assistant", many)], max_words=400)
    assert kept is not None and len(kept) <= MAX_CONTEXT_CHARS and many.endswith(kept)
    assert kept.startswith("Is option")  # whole sentences dropped from the front, none cut


def _whole_sentences_of(context: str, text: str) -> bool:
    """Whether ``context`` is the last sentences of ``text``, whole, or the end of its one last sentence."""
    sentences = split_sentences(clean_single_line(text))
    suffixes = {" ".join(sentences[-count:]) for count in range(1, len(sentences) + 1)}
    return context in suffixes or (bool(sentences) and sentences[-1].endswith(context))


@given(st.text(max_size=3000), st.integers(min_value=0, max_value=80))
def test_any_message_gives_a_bounded_single_line_of_whole_sentences_or_none(text, words):
    context = reply_context([("assistant", text)], max_words=words)
    assert context is None or (0 < len(context) <= MAX_CONTEXT_CHARS and "\n" not in context)
    assert context is None or _whole_sentences_of(context, text[-8 * MAX_CONTEXT_CHARS :])


@given(
    st.lists(st.sampled_from(SENTENCES), min_size=1, max_size=30),
    st.sampled_from(QUESTIONS),
    st.integers(min_value=1, max_value=80),
)
def test_sentences_in_any_shipped_language_are_carried_whole(sentences, question, words):
    message = " ".join([*sentences, question])
    context = reply_context([("assistant", message)], max_words=words)
    assert context is not None and context.endswith(question)
    assert _whole_sentences_of(context, message)


@given(st.text(max_size=3000), st.text(max_size=3000), st.integers(min_value=0, max_value=80))
def test_with_the_visitors_message_each_part_stays_bounded(asked, text, words):
    context = reply_context([("user", asked), ("assistant", text)], max_words=words)
    alone = reply_context([("assistant", text)], max_words=words)
    assert (context is None) == (alone is None)  # the visitor's message never makes a context on its own
    assert context is None or (context.endswith(alone or "") and "\n" not in context)
    assert context is None or len(context) <= 2 * MAX_CONTEXT_CHARS + 1


@given(
    st.text(max_size=3000),
    st.text(max_size=3000),
    st.sampled_from(["Would you like ", "Souhaitez-vous ", "I can send you "]),
    st.integers(min_value=1, max_value=80),
)
def test_an_accepted_offer_stays_bounded_and_leads_its_context(asked, offer, phrase, words):
    message = f"{phrase}{offer}?" if phrase != "I can send you " else f"{phrase}{offer}."
    history = [("user", asked), ("assistant", message)]
    accepted = accepted_offer(history, "Yes please")
    context = reply_context(history, max_words=words, reply="Yes please")
    assert context is None or ("\n" not in context and len(context) <= 2 * MAX_CONTEXT_CHARS + 1)
    offered = clean_single_line(accepted or "")
    if context is not None and 0 < len(offered) <= MAX_CONTEXT_CHARS:
        led = [" ".join(split_sentences(offered)[-count:]) for count in range(1, len(split_sentences(offered)) + 1)]
        assert any(context.startswith(lead) for lead in led)  # the offer's sentences lead; the visitor's follow


def _turn(query: str, content: str, mode: str = "naive") -> Turn:
    history = (Message(role="user", content="What do you sell?"), Message(role="assistant", content=content))
    return Turn(query=query, history=history, mode=mode, company_name="Helix")


def test_a_resolved_reply_carries_its_meaning_then_the_question():
    llm = ScriptedLLM(replies={"text": "Kadoro loyalty terminal"})
    resolution = asyncio.run(Resolver().resolve(_turn("The first one", QUESTION), llm=llm))
    assert resolution.context == f"What do you sell? {QUESTION}" and resolution.fallback_reason is None
    assert resolution.query == f"The first one — Kadoro loyalty terminal Helix — What do you sell? {QUESTION}"


def test_a_declined_or_failed_reply_is_carried_with_the_question_and_no_fallback_reason():
    cases = (("NONE", "empty", "empty"), (RuntimeError("down"), "llm_error", "llm_error"))
    for reply, in_naive, in_mix in (*cases, ("The visitor means it", "scaffold", "unparsable")):
        llm = ScriptedLLM(replies={"keywords": reply, "text": reply})
        for mode, why in (("naive", in_naive), ("mix", in_mix)):
            resolution = asyncio.run(Resolver().resolve(_turn("Maybe", QUESTION, mode), llm=llm))
            assert resolution.carry_reason == why and resolution.fallback_reason is None
            assert resolution.ll_keywords == () and resolution.path == ("text" if mode == "naive" else "keywords")
            assert resolution.query == f"Maybe — What do you sell? {QUESTION}" and resolution.changed


def test_a_picked_option_is_the_meaning_and_the_question_is_carried_whole():
    content = "Shall I send the price of Orbit CRM, Pulse POS or Nimbus?"
    llm = ScriptedLLM(replies={"keywords": keyword_json(["Pulse POS"], ["pricing"], query="Pulse POS price")})
    resolution = asyncio.run(Resolver().resolve(_turn("The second one", content, "mix"), llm=llm))
    assert resolution.context == f"What do you sell? {content}"  # never words cut out of a sentence
    meaning = resolution.query.split(" — ")[1]
    assert "Pulse POS" in meaning and "Orbit" not in meaning and "Nimbus" not in meaning


def test_no_question_no_context_and_the_config_can_switch_it_off():
    statement = _turn("Kadoro Mini", "We run Kadoro for shops.")  # neither asked, offered nor assented to
    llm = ScriptedLLM(replies={"text": "NONE"})
    assert asyncio.run(Resolver().resolve(statement, llm=llm)).query == "Kadoro Mini"
    off = Turn.from_history(
        "Yes please",
        [{"role": "assistant", "content": QUESTION}],
        mode="naive",
        tuning=ResolverTuning(reply_context_words=0),
    )
    resolution = asyncio.run(Resolver().resolve(off, llm=llm))
    assert resolution.query == "Yes please" and resolution.context is None and not resolution.changed


OFFER = "Pivotane lets staff swap shifts from their phones. Shall I tell you which clinics already use Pivotane?"


def test_a_reply_that_only_agrees_accepts_and_one_that_declines_or_thanks_does_not():
    for reply in (
        "Yes",
        "Yes please",
        "OK",
        "Sure, go ahead",
        "Why not",
        "Oui, volontiers",
        "D'accord, allez-y",
        "Pourquoi pas",
        "s'il vous plaît",
        "Yes, thank you",
    ):
        assert is_acceptance(reply), reply
    for reply in ("No thanks", "Non merci", "Not sure", "Nope", "Thanks", "Merci", "Yes, B1", "Kadoro", "", "..."):
        assert not is_acceptance(reply), reply


_AGREEING = ["yes", "please", "sure", "ok", "oui", "volontiers", "d'accord", "go", "ahead", "thanks", "merci"]


@given(
    st.lists(st.sampled_from(_AGREEING), min_size=1, max_size=4),
    st.sampled_from(["no", "non", "nope", "not"]),
    st.integers(min_value=0, max_value=4),
    st.sampled_from([" ", ", ", "! "]),
)
def test_a_declining_word_anywhere_stops_an_acceptance(words, declining, at, separator):
    agreeing = separator.join(words)
    assert is_acceptance(agreeing) is any(word not in {"thanks", "merci"} for word in words)
    with_decline = separator.join([*words[:at], declining, *words[at:]])
    assert is_assent(with_decline) and not is_acceptance(with_decline)


def test_the_offer_accepted_is_the_last_question_else_an_offering_last_sentence():
    history = [("user", "Can staff swap shifts?"), ("assistant", OFFER)]
    assert accepted_offer(history, "Yes please") == "Shall I tell you which clinics already use Pivotane?"
    courtesy = [("assistant", "Would you like the guide? It takes two minutes to read.")]
    # An offer that names nothing is about the sentence before it, which leads it (issue: the offer's object).
    assert accepted_offer(courtesy, "OK") == "Would you like the guide?"
    offered = [("assistant", "Kadoro runs offline. I can send you the installation guide.")]
    assert accepted_offer(offered, "Oui") == "Kadoro runs offline. I can send you the installation guide."
    named = [("assistant", "Kadoro runs offline. I can send you the Kadoro installation guide.")]
    assert accepted_offer(named, "Oui") == "I can send you the Kadoro installation guide."
    # A yes to a question that asks for a fact states it ("Si": yes, I do); it accepts no offer.
    factual = [
        ("user", "Comment faire signer mes devis ?"),
        ("assistant", "Vous ne créez pas vos devis dans Cerclia ?"),
    ]
    assert (
        accepted_offer(factual, "Si") is None and accepted_offer([("assistant", "Are you on Horizon?")], "Yes") is None
    )
    assert reply_context(factual, max_words=40, reply="Si") == (
        "Comment faire signer mes devis ? Vous ne créez pas vos devis dans Cerclia ?"
    )
    # A statement offers nothing; a decline, a pick or an answer accepts nothing; the visitor spoke last.
    assert accepted_offer([("assistant", "Kadoro is our loyalty terminal.")], "OK") is None
    for reply in ("No thanks", "The second one", "Santé"):
        assert accepted_offer(history, reply) is None, reply
    assert accepted_offer([*history, ("user", "Hm.")], "Yes") is None


def test_an_acceptance_carries_the_offer_alone_and_any_other_reply_the_visitors_message_first():
    history = [("user", "Can staff swap shifts?"), ("assistant", OFFER)]
    offer = "Shall I tell you which clinics already use Pivotane?"
    assert reply_context(history, max_words=40, reply="Yes please") == offer
    assert reply_context(history[1:], max_words=40, reply="Yes please") == offer
    # Any other reply to the same message keeps the visitor's message first and the message's last words.
    assert reply_context(history, max_words=40, reply="Maybe") == f"Can staff swap shifts? {OFFER}"


def test_an_offer_that_names_nothing_is_led_by_the_nearest_sentence_that_names_its_object():
    # Issue 40: the product named two sentences before the offer was cut away with the 400-character window.
    message = "Kadoro runs offline. It syncs every night. Would you like to know the price?"
    history = [("user", "Does it work without internet?"), ("assistant", message)]
    expected = "Kadoro runs offline. Would you like to know the price?"
    assert accepted_offer(history, "Yes please") == expected
    assert reply_context(history, max_words=40, reply="Yes please") == expected
    # No sentence names anything: the sentence just before leads, as before.
    plain = [("assistant", "It runs offline. It syncs every night. Would you like to know more?")]
    assert accepted_offer(plain, "OK") == "It syncs every night. Would you like to know more?"


@pytest.mark.parametrize(("mode", "path"), [("naive", "text"), ("mix", "keywords"), ("local", "keywords")])
def test_an_accepted_offer_is_resolved_by_the_model_with_the_offer_as_evidence(mode, path):
    llm = ScriptedLLM(replies={"text": "Pivotane clinics", "keywords": keyword_json(["Pivotane"], ["clinics"])})
    resolution = asyncio.run(Resolver().resolve(_turn("Yes please", OFFER, mode), llm=llm))
    assert llm.roles() == [path] and resolution.path == path and resolution.fallback_reason is None
    assert "(The reply accepts the offer: Shall I tell you which clinics already use Pivotane?)" in llm.calls[0].prompt
    assert resolution.query.startswith("Yes please — Pivotane")
    assert resolution.query.endswith("— Shall I tell you which clinics already use Pivotane?")
    assert resolution.context == "Shall I tell you which clinics already use Pivotane?"
    # The model failing, the offer is carried: the visitor's words with what they accepted.
    failing = ScriptedLLM(replies={"text": TimeoutError("slow"), "keywords": TimeoutError("slow")})
    failed = asyncio.run(Resolver().resolve(_turn("Yes please", OFFER, mode), llm=failing))
    assert failed.query == "Yes please — Shall I tell you which clinics already use Pivotane?"
    assert failed.carry_reason is not None and failed.ll_keywords == ()


def test_one_sentence_splitter_finds_the_sentence_a_reply_answers():
    courtesy = "Which plan are you on: Essentiel or Horizon? I can then tell you what applies."
    assert answered_sentence(courtesy) == "Which plan are you on: Essentiel or Horizon?"
    assert answered_sentence("Dites-moi votre secteur : Santé ou BTP. Merci.") == "Merci."
    # A link's query string asks nothing; a full-width question mark ends a sentence without a space.
    linked = "See docs/containers?topic=update for the steps. Anything else?"
    assert split_sentences(linked) == ["See docs/containers?topic=update for the steps.", "Anything else?"]
    assert split_sentences("どれですか？Aです。") == ["どれですか？", "Aです。"]
    assert answered_sentence("") == "" and split_sentences("  ") == []


def test_a_meaning_that_names_nothing_the_offer_names_is_refused_and_the_offer_carried():
    # Issue 40: shown the offer, the 1.5B model still wrote the visitor's earlier topic.
    llm = ScriptedLLM(replies={"text": "Orbit CRM contact sync"})
    resolution = asyncio.run(Resolver().resolve(_turn("Yes please", OFFER, "naive"), llm=llm))
    assert resolution.query == "Yes please — Shall I tell you which clinics already use Pivotane?"
    assert resolution.carry_reason == "ungrounded" and resolution.fallback_reason is None
    # A meaning that names what was offered is kept.
    llm = ScriptedLLM(replies={"text": "clinics using Pivotane"})
    kept = asyncio.run(Resolver().resolve(_turn("Yes please", OFFER, "naive"), llm=llm))
    assert kept.query.startswith("Yes please — clinics using Pivotane") and kept.carry_reason is None
