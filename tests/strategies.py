"""Hypothesis strategies shared by the property tests."""

from __future__ import annotations

import json

from hypothesis import strategies as st

words = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=12)
plain_word = st.from_regex(r"[A-Za-zÀ-ÿ][A-Za-zÀ-ÿ0-9'-]{0,10}", fullmatch=True)
phrase = st.lists(plain_word, min_size=1, max_size=6).map(" ".join)

scaffold_text = st.sampled_from(
    [
        "1. The visitor wants the health offer",
        "The visitor chose Santé",
        "L'utilisateur demande l'offre santé",
        "le visiteur parle de BTP",
        "Based on the conversation, health",
        "The assistant asked about sectors",
        "2) health offer",
    ]
)

any_json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=6) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)

keyword_list = st.lists(st.one_of(phrase, st.text(max_size=15), st.integers(), st.none(), scaffold_text), max_size=40)


@st.composite
def keyword_json(draw) -> str:
    """JSON the keyword resolver might return: well-formed, half-formed or odd."""
    obj = {}
    if draw(st.booleans()):
        obj[draw(st.sampled_from(["low_level_keywords", "ll_keywords"]))] = draw(st.one_of(keyword_list, any_json_value))
    if draw(st.booleans()):
        obj[draw(st.sampled_from(["high_level_keywords", "hl_keywords"]))] = draw(st.one_of(keyword_list, any_json_value))
    text = json.dumps(obj, ensure_ascii=draw(st.booleans()))
    wrap = draw(st.sampled_from(["{}", "```json\n{}\n```", "Here you go: {}", "{} trailing"]))
    return wrap.replace("{}", text)


model_output = st.one_of(
    st.text(max_size=200),
    keyword_json(),
    phrase,
    scaffold_text,
    st.sampled_from(["NONE", "none", "", "   ", "KEEP", "AMBIGUOUS", "RESOLVE:", "RESOLVE: Vitalis", "null", "{}", "[]"]),
    st.builds(lambda name, gloss: f"RESOLVE: {name}{gloss}", phrase, st.sampled_from(["", " - the message is about it", " (product)", "."])),
)

roles = st.sampled_from(["user", "assistant"])
message = st.fixed_dictionaries({"role": roles, "content": st.one_of(phrase, st.text(max_size=80))})
history = st.lists(message, min_size=0, max_size=5)
queries = st.one_of(phrase, st.text(max_size=60), phrase.map(lambda p: p + " ?"), st.sampled_from(["B1", "OK", "Si", "Santé", "Yes, B1"]))
modes = st.sampled_from(["local", "global", "hybrid", "mix", "naive", "bypass"])
