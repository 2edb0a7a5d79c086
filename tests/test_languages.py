"""The language records: every shipped language has every resource, and the analysis reads each one."""

from __future__ import annotations

import dataclasses
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lightrag_resolve._turn.candidates import collect_candidates, option_lists, picked_option
from lightrag_resolve._turn.short_reply import should_resolve
from lightrag_resolve._languages import LANGUAGES, UNITS, Language, detect, language
from lightrag_resolve._languages.pointing import leans_on_conversation, points_back
from lightrag_resolve._turn.reply_context import accepted_offer, is_acceptance, reply_context

CODES = [record.code for record in LANGUAGES]
# Resources a language may leave empty: Chinese has no articles, no capitalised function words and is
# recognised by its script, not by marker words.
MAY_BE_EMPTY = {"zh": {"markers", "definite_articles", "name_stop_words", "name_connectors"}}
# Resources that only some languages' data gave (French elisions, English units, the prompts' labels in English and
# French, Chinese list openers): each says its source when it holds anything.
SOME_LANGUAGES = {
    "list_openers",
    "list_number_words",
    "elisions",
    "units",
    "none_answers",
    "narrating",
    "prompt_labels",
    "answer_labels",
    "query_labels",
}
OPTIONAL = {"object_pronoun", "extra", "question_words", "source"} | SOME_LANGUAGES
NEW_FIELDS = ("name_connectors", "clause_breaks", *sorted(SOME_LANGUAGES))


@pytest.mark.parametrize("code", CODES)
def test_every_shipped_language_has_every_resource(code):
    record = language(code)
    for spec in dataclasses.fields(Language):
        value = getattr(record, spec.name)
        if spec.name in OPTIONAL or spec.name in MAY_BE_EMPTY.get(code, set()) or isinstance(value, bool):
            continue
        assert value, f"{code} lacks {spec.name}"


@pytest.mark.parametrize("code", CODES)
def test_every_phrase_pattern_compiles(code):
    record = language(code)
    for fragments in (record.offering, record.inviting, record.not_pointing, record.elliptical, record.ordinals):
        for fragment in fragments:
            re.compile(fragment)
    re.compile(record.last)


@pytest.mark.parametrize("code", CODES)
def test_word_lists_are_written_in_their_matched_form(code):
    # The analysis lower-cases messages before matching (``word_form``): a capital in a list never matches.
    record = language(code)
    for group in (record.assent, record.pointers, record.set_pointers, record.function_words, record.markers):
        assert all(word == word.lower() for word in group), code


def test_no_marker_word_is_shared_by_two_languages():
    spaced = [record for record in LANGUAGES if record.spaced]
    for index, first in enumerate(spaced):
        for second in spaced[index + 1 :]:
            assert not first.markers & second.markers, (first.code, second.code, first.markers & second.markers)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Which retailers already run it?", "en"),
        ("Quelles enseignes l'ont installée ?", "fr"),
        ("Welche Kunden nutzen es bereits?", "de"),
        ("¿Qué clientes lo usan ya?", "es"),
        ("哪些客户已经在用它了", "zh"),
    ],
)
def test_a_message_is_placed_in_its_language(text, code):
    assert detect(text) is language(code)


@pytest.mark.parametrize("text", ["月額はいくらですか？", "B1", "Santé", "Quanto costa al mese?", "???"])
def test_a_message_the_analysis_cannot_place_has_no_language(text):
    assert detect(text) is None


# ---- short replies: assent, offers, ordinals, option lists ---------------------------------------------------

ASSENTS = {
    "en": ["Yes please", "Sure, go ahead"],
    "fr": ["Oui, volontiers", "D'accord"],
    "de": ["Ja, gerne", "Ja bitte", "Klar"],
    "es": ["Sí, claro", "Vale", "Sí, por favor"],
    "zh": ["好的", "是的", "好的，谢谢", "可以"],
}
OFFERS = {
    "en": "Shall I send you the Kadoro price list?",
    "fr": "Souhaitez-vous recevoir la grille tarifaire de Kadoro ?",
    "de": "Soll ich Ihnen die Preisliste von Kadoro schicken?",
    "es": "¿Quiere que le envíe la lista de precios de Kadoro?",
    "zh": "需要我为您介绍Kadoro的价格吗？",
}


@pytest.mark.parametrize("code", CODES)
def test_a_bare_yes_accepts_the_offer_in_every_language(code):
    for reply in ASSENTS[code]:
        assert is_acceptance(reply), reply
        assert accepted_offer([("assistant", OFFERS[code])], reply) == OFFERS[code], (code, reply)


@pytest.mark.parametrize("code", CODES)
def test_a_yes_to_an_offer_that_names_nothing_carries_the_sentence_before_it(code):
    named = {
        "en": ("We have the Relaya module for that.", "Would you like to know more?"),
        "fr": ("Nous avons le module Relaya pour cela.", "Souhaitez-vous en savoir plus ?"),
        "de": ("Dafür haben wir das Modul Relaya.", "Möchten Sie mehr erfahren?"),
        "es": ("Para eso tenemos el módulo Relaya.", "¿Le gustaría saber más?"),
        "zh": ("我们有Relaya模块。", "需要我为您详细介绍吗？"),
    }[code]
    history = [("assistant", " ".join(named))]
    offer = accepted_offer(history, ASSENTS[code][0])
    assert offer is not None and "Relaya" in offer, (code, offer)
    assert "Relaya" in (reply_context(history, max_words=40, reply=ASSENTS[code][0]) or "")


ORDINAL_REPLIES = {
    "en": ["the second one", "the second"],
    "fr": ["la deuxième", "le second"],
    "de": ["die zweite", "das zweite"],
    "es": ["el segundo", "la segunda"],
    "zh": ["第二个", "第二"],
}
OPTION_QUESTIONS = {
    "en": "Which product interests you: Kadoro, Magazio or Cerclia?",
    "fr": "Quel produit vous intéresse : Kadoro, Magazio ou Cerclia ?",
    "de": "Welches Produkt interessiert Sie: Kadoro, Magazio oder Cerclia?",
    "es": "¿Qué producto le interesa: Kadoro, Magazio o Cerclia?",
    "zh": "您对哪个产品感兴趣：Kadoro、Magazio还是Cerclia？",
}


@pytest.mark.parametrize("code", CODES)
def test_an_ordinal_picks_its_option_in_every_language(code):
    candidates = collect_candidates([("assistant", OPTION_QUESTIONS[code])])
    assert candidates.options == ("Kadoro", "Magazio", "Cerclia"), code
    for reply in ORDINAL_REPLIES[code]:
        assert picked_option(reply, candidates) == "Magazio", (code, reply)


ORDINALS = {
    "en": ["the first one", "the second one", "the third one", "the fourth one"],
    "fr": ["le premier", "la deuxième", "le troisième", "la quatrième"],
    "de": ["der erste", "die zweite", "das dritte", "der vierte"],
    "es": ["el primero", "la segunda", "el tercero", "la cuarta"],
    "zh": ["第一个", "第二个", "第三个", "第四个"],
}


@given(st.sampled_from(CODES), st.permutations(["Kadoro", "Magazio", "Cerclia", "Pivotane"]), st.integers(0, 3))
def test_ordinals_count_in_the_offered_order_in_every_language(code, options, index):
    joined = {
        "en": "{}, {}, {} or {}",
        "fr": "{}, {}, {} ou {}",
        "de": "{}, {}, {} oder {}",
        "es": "{}, {}, {} o {}",
        "zh": "{}、{}、{}还是{}",
    }[code].format(*options)
    question = OPTION_QUESTIONS[code].replace("Kadoro, Magazio or Cerclia", joined)
    for original in (
        "Kadoro, Magazio ou Cerclia",
        "Kadoro, Magazio oder Cerclia",
        "Kadoro, Magazio o Cerclia",
        "Kadoro、Magazio还是Cerclia",
    ):
        question = question.replace(original, joined)
    candidates = collect_candidates([("assistant", question)])
    reply = ORDINALS[code][index]
    assert candidates.options == tuple(options), (code, question)
    assert picked_option(reply, candidates) == options[index], (code, reply)


def test_chinese_option_lists_split_at_every_joining_word():
    assert option_lists("您的公司属于哪个行业：医疗、建筑还是零售？") == [("医疗", "建筑", "零售")]
    assert option_lists("我们提供Kadoro和Magazio。") == [("Kadoro", "Magazio")]


@pytest.mark.parametrize(
    "text",
    [
        "We offer Kadoro, Magazio and Cerclia. Which one interests you?",
        "Wir haben Kadoro, Magazio und Cerclia. Welches interessiert Sie?",
        "Nuestros productos son Kadoro, Magazio y Cerclia. ¿Cuál le interesa?",
        "我们提供Kadoro、Magazio和Cerclia。您对哪个感兴趣？",
    ],
)
def test_options_listed_before_a_bare_which_one_are_counted(text):
    assert collect_candidates([("assistant", text)]).options == ("Kadoro", "Magazio", "Cerclia")


def test_a_german_noun_or_the_formal_sie_is_no_name():
    candidates = collect_candidates([("assistant", "Suchen Sie A1 oder B1? Welche Produkte interessieren Sie?")])
    assert candidates.names == ("A1", "B1")


# ---- the gate and the pointer rule ---------------------------------------------------------------------------


def test_a_long_chinese_request_is_no_short_reply_and_a_short_one_is():
    assert not should_resolve("我想了解一下你们的排班软件的价格和功能")
    assert should_resolve("第二个")


@pytest.mark.parametrize(
    "message",
    [
        "Welche Kunden nutzen es bereits?",
        "¿Qué clientes lo usan ya?",
        "哪些客户已经在用它了",
        "¿Cuánto cuesta al mes?",
        "多少钱",
    ],
)
def test_a_reference_leans_on_the_conversation_in_every_language(message):
    assert leans_on_conversation(message)


@pytest.mark.parametrize(
    "message",
    [
        "Wie viele Mitarbeiter hat Ihr Unternehmen?",
        "¿Cuántos empleados tiene su empresa?",
        "你们公司有多少员工？",
        "Should I bring an umbrella in case it rains today?",
        "Gibt es eine Schulung am Samstag?",
    ],
)
def test_a_self_contained_question_or_a_dummy_subject_stands_alone(message):
    assert not leans_on_conversation(message)
    assert not points_back(message)


def test_units_are_no_names():
    assert {"mm", "kg", "°f", "inches"} <= UNITS


# ---- every word list is data, and says what it was written from ------------------------------------------------


@pytest.mark.parametrize("code", CODES)
@pytest.mark.parametrize("name", NEW_FIELDS)
def test_each_moved_word_list_is_read_from_its_record(code, name):
    import json

    from lightrag_resolve._languages import _DATA

    written = json.loads((_DATA / f"{code}.json").read_text(encoding="utf-8"))[name]
    value = getattr(language(code), name)
    assert value == (frozenset(written.split()) if isinstance(value, frozenset) else tuple(written)), (code, name)


def test_a_moved_word_list_round_trips_through_a_record_file(tmp_path):
    import json

    from lightrag_resolve._languages import _DATA
    from lightrag_resolve._languages.record import load_language

    data = json.loads((_DATA / "fr.json").read_text(encoding="utf-8"))
    data.update(name_connectors="de des", clause_breaks=["mais", "sinon"], units="km", none_answers="rien")
    data["sources"].update(units="A test's units.")
    (tmp_path / "fr.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    record = load_language(tmp_path / "fr.json")
    assert record.name_connectors == frozenset({"de", "des"}) and record.clause_breaks == ("mais", "sinon")
    assert record.units == frozenset({"km"}) and record.none_answers == frozenset({"rien"})
    assert record.sources["units"] == "A test's units."


def test_the_analysis_reads_the_union_of_the_records_word_lists():
    from lightrag_resolve._turn.candidates import _CONNECTORS
    from lightrag_resolve._languages.text import elided_words
    from lightrag_resolve._enforce.answers import is_none_answer

    assert UNITS == frozenset(unit for record in LANGUAGES for unit in record.units)
    assert language("fr").elisions <= elided_words() and {"dell", "un"} <= elided_words()  # Italian: no record
    assert all(word in _CONNECTORS for record in LANGUAGES for word in record.name_connectors)
    assert all(is_none_answer(word) for record in LANGUAGES for word in record.none_answers)


@pytest.mark.parametrize("code", CODES)
def test_every_word_list_says_what_it_was_written_from(code):
    from lightrag_resolve._languages.record import sourced_fields

    record = language(code)
    assert {"markers", "negating", "list_gaps"} & sourced_fields(record)  # the rule covers the word lists
    assert sourced_fields(record) <= set(record.sources), sorted(sourced_fields(record) - set(record.sources))
    for name in sourced_fields(record):
        # Each source says whether its data is also an evaluation set ("… also an evaluation set", "no evaluation
        # item was read", "not from evaluation data").
        assert "evaluation" in record.sources[name], (code, name)


def test_a_word_list_without_a_source_is_refused(tmp_path):
    import json

    from lightrag_resolve._languages import _DATA
    from lightrag_resolve._languages.record import load_language

    data = json.loads((_DATA / "en.json").read_text(encoding="utf-8"))
    del data["sources"]["units"]
    data["sources"]["unitz"] = "A typo."
    (tmp_path / "en.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(
        ValueError, match=r"en.json: fields without a source \['units'\], sources of no field \['unitz'\]"
    ):
        load_language(tmp_path / "en.json")


def test_every_resource_file_is_a_shipped_language(tmp_path):
    from lightrag_resolve._languages import _DATA

    assert sorted(path.stem for path in _DATA.glob("*.json")) == sorted(CODES)


def test_a_resource_file_with_a_missing_or_unknown_field_is_refused(tmp_path):
    import json

    from lightrag_resolve._languages import _DATA
    from lightrag_resolve._languages.record import load_language

    data = json.loads((_DATA / "de.json").read_text(encoding="utf-8"))
    del data["assent"]
    broken = tmp_path / "xx.json"
    broken.write_text(json.dumps({**data, "asent": "ja"}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"xx.json: unknown fields \['asent'\], missing fields \['assent'\]"):
        load_language(broken)
    (tmp_path / "de.json").write_text((_DATA / "de.json").read_text(encoding="utf-8"), encoding="utf-8")
    assert load_language(tmp_path / "de.json") == language("de")


# ---- the one-candidate shortcut needs evidence ----------------------------------------------------------------


def _sole_candidate_turn(query: str, assistant: str):
    from lightrag_resolve import Message, Turn

    return Turn(query=query, history=(Message(role="assistant", content=assistant),), mode="naive")


def test_a_sole_candidate_that_is_a_unit_is_left_to_the_model():
    import asyncio

    from fakes import ScriptedLLM

    from lightrag_resolve import Resolver

    unit = _sole_candidate_turn("How much does it weigh in total?", "Each box weighs 12 KG.")
    assert unit.candidates.names == ("KG",)
    llm = ScriptedLLM(replies={"reference": "KEEP"})
    kept = asyncio.run(Resolver().resolve(unit, llm=llm))
    assert llm.roles() == ["reference"] and kept.fallback_reason == "keep"
    named = _sole_candidate_turn("How much does it weigh in total?", "Each box of Kadoro weighs a lot.")
    llm = ScriptedLLM(replies={"reference": "KEEP"})
    resolved = asyncio.run(Resolver().resolve(named, llm=llm))
    assert llm.roles() == [] and resolved.entity == "Kadoro"  # a name: the shortcut fires with no model call


def test_a_sole_candidate_is_no_shortcut_in_a_language_the_analysis_cannot_place():
    import asyncio

    from fakes import ScriptedLLM

    from lightrag_resolve import Resolver

    turn = _sole_candidate_turn("Quanto costa questo al mese?", "Il nostro terminale si chiama Kadoro.")
    assert detect(turn.query) is None and turn.candidates.names == ("Kadoro",)
    llm = ScriptedLLM(replies={"reference": "AMBIGUOUS"})
    decided = asyncio.run(Resolver().resolve(turn, llm=llm))
    assert llm.roles()[0] == "reference" and decided.entity is None


# ---- a language without a record: the model decides ----------------------------------------------------------


@pytest.mark.parametrize(("mode", "role"), [("naive", "text"), ("mix", "keywords")])
@pytest.mark.parametrize(
    ("question", "reply"),
    [
        ("Quale pacchetto preferisce: Kadoro, Magazio o Cerclia?", "La seconda, grazie"),  # Italian
        ("Welk pakket wilt u: Kadoro, Magazio en Cerclia?", "Het tweede pakket graag"),  # Dutch
    ],
)
def test_a_short_reply_in_a_language_without_a_record_is_the_models(mode, role, question, reply):
    import asyncio

    from fakes import ScriptedLLM, keyword_json

    from lightrag_resolve import Message, Resolver, Turn

    turn = Turn(query=reply, history=(Message(role="assistant", content=question),), mode=mode, context_words=40)
    assert detect(reply) is None and turn.picked is None  # no ordinal of a shipped language claims "seconda"
    for meaning in ("Magazio", "Cerclia"):  # whichever the model reads, its answer decides
        answer = meaning if role == "text" else keyword_json([meaning], ["pacchetto"], query=meaning)
        llm = ScriptedLLM(replies={role: answer})
        resolved = asyncio.run(Resolver().resolve(turn, llm=llm))
        assert llm.roles() == [role] and resolved.fallback_reason is None, (reply, meaning)
        assert resolved.query.startswith(f"{reply} — {meaning}"), resolved.query


def test_a_follow_up_in_a_language_without_a_record_meets_the_check_and_the_model_decides():
    import asyncio

    from fakes import ScriptedLLM

    from lightrag_resolve import Message, Resolver, Turn

    history = (Message(role="assistant", content="Offriamo Kadoro e Magazio."),)
    turn = Turn(query="Funziona anche senza rete?", history=history, mode="naive")
    assert detect(turn.query) is None and points_back(turn.query)  # unplaced: the check runs
    for answer, entity, reason in (("RESOLVE: Magazio", "Magazio", None), ("KEEP", None, "keep")):
        llm = ScriptedLLM(replies={"reference": answer})
        decided = asyncio.run(Resolver().resolve(turn, llm=llm))
        assert llm.roles() == ["reference"] and decided.entity == entity and decided.fallback_reason == reason


def test_the_languages_page_names_every_field_and_every_shipped_language():
    from pathlib import Path

    page = (Path(__file__).parents[1] / "docs" / "languages.md").read_text(encoding="utf-8")
    assert all(f"`{spec.name}`" in page for spec in dataclasses.fields(Language))
    assert all(f"| `{record.code}` |" in page for record in LANGUAGES)
