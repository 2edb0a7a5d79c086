"""The scripted conversations agree with the gate, the knowledge graph and each other."""

from __future__ import annotations

import collections
import re

import pytest

from lightrag_resolve import should_resolve
from lightrag_resolve.sample import COMPANY_NAME, TURN_CLASSES, load_custom_kg, load_documents, load_items

ITEMS = load_items()
DOCS = load_documents()
KB = load_custom_kg()
ENTITY_TYPE = {e["entity_name"]: e["entity_type"] for e in KB["entities"]}
REFERABLE = {"product", "plan", "module", "course"}
HISTORY_WINDOW = 2  # contract §3: the resolver reads the last two messages by default
REQUIRED = {"id", "lang", "company_name", "history", "query", "turn_class", "relevant", "rewrite"}
OPTIONAL = {"mode", "must_contain", "expect"}

by_id = pytest.mark.parametrize("item", ITEMS, ids=lambda item: item["id"])


def window(item: dict) -> str:
    return "\n".join(message["content"] for message in item["history"][-HISTORY_WINDOW:])


def referable_names_in(text: str) -> set[str]:
    """Products, plans, modules and courses named in ``text``; a course's name hides its product's."""
    named = {name for name, kind in ENTITY_TYPE.items() if kind in REFERABLE and name in text}
    return {name for name in named if not any(name != other and name in other for other in named)}


MINIMUM_PER_CLASS = {"first_turn": 10, "short_reply": 24, "follow_up": 16, "reference": 20}
DISTRACTORS = {f"doc-{n:02d}" for n in range(25, 43)}


def test_there_are_at_least_60_items_with_unique_ids():
    ids = [item["id"] for item in ITEMS]
    assert len(ids) >= 60
    assert len(ids) == len(set(ids))


def test_languages_are_balanced_in_every_turn_class():
    counts = collections.Counter((item["turn_class"], item["lang"]) for item in ITEMS)
    for turn_class in TURN_CLASSES:
        assert counts[(turn_class, "fr")] == counts[(turn_class, "en")] >= 5
        assert counts[(turn_class, "fr")] + counts[(turn_class, "en")] >= MINIMUM_PER_CLASS[turn_class]


def test_follow_ups_keep_and_stay_ambiguous_in_both_languages():
    counts = collections.Counter(
        (item["expect"]["decision"], item["lang"]) for item in ITEMS if item["turn_class"] == "follow_up"
    )
    for decision in ("keep", "ambiguous"):
        assert counts[(decision, "fr")] == counts[(decision, "en")] >= 3


def test_the_first_release_items_are_still_there():
    """Reports and the demo refer to these ids; adding items must not renumber them."""
    ids = {item["id"] for item in ITEMS}
    for lang in ("en", "fr"):
        for kind, count in (("first", 4), ("short", 8), ("ref", 6), ("keep", 4), ("amb", 2)):
            assert {f"{lang}-{kind}-{n:02d}" for n in range(1, count + 1)} <= ids


@by_id
def test_each_item_has_the_documented_shape(item):
    assert REQUIRED <= set(item) <= REQUIRED | OPTIONAL
    assert item["lang"] in {"fr", "en"}
    assert item["company_name"] == COMPANY_NAME
    assert item["turn_class"] in TURN_CLASSES
    assert item.get("mode", "mix") in {"naive", "local", "global", "hybrid", "mix"}
    assert isinstance(item["query"], str) and item["query"].strip()
    assert isinstance(item["rewrite"], str) and item["rewrite"].strip()
    for message in item["history"]:
        assert set(message) == {"role", "content"}
        assert message["role"] in {"user", "assistant"}


@by_id
def test_histories_alternate_and_end_with_the_assistant(item):
    history = item["history"]
    if item["turn_class"] == "first_turn":
        assert history == []
        return
    assert 2 <= len(history) <= 4
    assert [m["role"] for m in history] == ["user", "assistant"] * (len(history) // 2)


@by_id
def test_assistant_turns_are_40_to_120_words(item):
    for message in item["history"]:
        if message["role"] == "assistant":
            assert 40 <= len(message["content"].split()) <= 120


@by_id
def test_turn_class_agrees_with_the_gate(item):
    """short_reply is exactly what contract §4 would resolve; longer follow-ups are not."""
    if item["turn_class"] == "first_turn":
        return
    assert should_resolve(item["query"]) == (item["turn_class"] == "short_reply")


@by_id
def test_a_short_reply_answers_a_question_the_assistant_asked(item):
    if item["turn_class"] == "short_reply":
        assert "?" in item["history"][-1]["content"]


@by_id
def test_relevant_documents_exist_and_hold_the_required_strings(item):
    assert item["relevant"] and len(set(item["relevant"])) == len(item["relevant"])
    assert set(item["relevant"]) <= set(DOCS)
    for needle in item.get("must_contain", []):
        assert any(needle in DOCS[doc] for doc in item["relevant"]), needle


@by_id
def test_expectations_match_the_turn_class(item):
    expect = item.get("expect")
    if item["turn_class"] in {"first_turn", "short_reply"}:
        assert expect is None
    elif item["turn_class"] == "reference":
        assert expect["decision"] == "resolve" and expect["entity"]
    else:
        assert expect["decision"] in {"keep", "ambiguous"} and expect["entity"] is None


@by_id
def test_a_resolved_entity_is_named_in_the_window_and_not_in_the_query(item):
    entity = (item.get("expect") or {}).get("entity")
    if entity is None:
        return
    assert ENTITY_TYPE.get(entity) in REFERABLE
    assert entity != COMPANY_NAME
    assert entity in window(item)
    assert entity.casefold() not in item["query"].casefold()
    assert entity in item["rewrite"]


@by_id
def test_a_reference_names_its_entity_in_the_history_never_in_the_query(item):
    if item["turn_class"] != "reference":
        return
    entity = item["expect"]["entity"]
    assert any(entity in message["content"] for message in item["history"])
    assert entity.casefold() not in item["query"].casefold()


@by_id
def test_a_short_replys_rewrite_names_what_the_reply_is_about(item):
    """The oracle names a product, plan, module, course or sector that the conversation and a
    relevant document both name: the standalone query a careful person would search with."""
    if item["turn_class"] != "short_reply":
        return
    kinds = REFERABLE | {"sector"}
    named = {name for name, kind in ENTITY_TYPE.items() if kind in kinds and name in item["rewrite"]}
    history = " ".join(message["content"] for message in item["history"])
    grounded = {name for name in named if name in history and any(name in DOCS[doc] for doc in item["relevant"])}
    assert grounded, f"the rewrite names none of the conversation's options found in {item['relevant']}"
    assert len(item["rewrite"].split()) > len(item["query"].split())


@by_id
def test_no_short_reply_or_reference_is_answered_by_a_distractor(item):
    if item["turn_class"] in {"short_reply", "reference"}:
        assert not set(item["relevant"]) & DISTRACTORS


@by_id
def test_an_ambiguous_follow_up_has_several_candidates_in_the_window(item):
    if (item.get("expect") or {}).get("decision") == "ambiguous":
        assert len(referable_names_in(item["history"][-1]["content"])) >= 2


@by_id
def test_a_kept_follow_up_names_its_subject_or_asks_about_the_company(item):
    if (item.get("expect") or {}).get("decision") != "keep":
        return
    query = item["query"]
    names_subject = any(name in query for name in ENTITY_TYPE if name != COMPANY_NAME)
    asks_company = re.search(r"\b(you|your|vous|votre|vellinor)\b", query, re.IGNORECASE) is not None
    assert names_subject or asks_company


def test_the_briefed_turns_are_covered():
    queries = {item["query"] for item in ITEMS}
    for query in (
        "Santé",
        "Oui",
        "BTP",
        "Yes, the second one",
        "B1",
        "OK",
        "Si",
        "Which retailers already run it?",
        "Quelles enseignes l'ont déjà installée ?",
        "Is this course also available on weekends?",
        "Combien de bureaux avez-vous ?",
        # bare picks, ordinals, a yes to one offer, part of an option's name
        "Horizon",
        "C1",
        "The first one",
        "La première",
        "Oui, volontiers",
        "Sure, go ahead",
        "Yes please",
        "The analytics one",
        "Celui des SMS",
    ):
        assert query in queries


def test_short_replies_cover_the_four_kinds_in_both_languages():
    """Bare picks, ordinals, a yes to a single offer, and replies naming part of an option."""
    kinds = {
        "ordinal": re.compile(r"\b(first|second|third|premi[eè]re?|deuxi[eè]me|troisi[eè]me)\b", re.IGNORECASE),
        "yes": re.compile(r"^(oui|yes|ok|si|sure|d'accord)\b", re.IGNORECASE),
        "part": re.compile(r"\b(one|celui|celle|plutôt|le week-end)\b", re.IGNORECASE),
    }
    found = collections.defaultdict(set)
    options = {name for name, kind in ENTITY_TYPE.items() if kind in REFERABLE | {"sector", "level", "office"}}
    for item in ITEMS:
        if item["turn_class"] != "short_reply":
            continue
        query = item["query"]
        if re.sub(r"^(l'|le niveau )", "", query, flags=re.IGNORECASE) in options:
            found["pick"].add(item["lang"])
        for kind, pattern in kinds.items():
            if pattern.search(query):
                found[kind].add(item["lang"])
    for kind in ("pick", "ordinal", "yes", "part"):
        assert found[kind] == {"fr", "en"}, kind
