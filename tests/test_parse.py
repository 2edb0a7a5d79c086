from hypothesis import given

from lightrag_resolve._parse import KeywordAnswer, ReferenceAnswer, parse_keyword_answer, parse_reference_answer
from strategies import model_output


def test_keyword_answers_in_many_shapes():
    assert parse_keyword_answer('{"low_level_keywords": ["Vitalis"], "high_level_keywords": ["santé"]}') == KeywordAnswer(
        ll_raw=["Vitalis"], hl_raw=["santé"]
    )
    fenced = '```json\n{"ll_keywords": ["B1"], "hl_keywords": ["German course"]}\n```'
    assert parse_keyword_answer(fenced) == KeywordAnswer(ll_raw=["B1"], hl_raw=["German course"])
    assert parse_keyword_answer('Sure! {"high_level_keywords": ["x"]} done') == KeywordAnswer(ll_raw=None, hl_raw=["x"])
    assert parse_keyword_answer("NONE") == KeywordAnswer(ll_raw=[], hl_raw=[])
    for unreadable in ["Santé, Vitalis", '{"low_level_keywords": [', "[1, 2]", '{"answer": "x"}', "{}"]:
        assert parse_keyword_answer(unreadable) is None, unreadable


def test_reference_answers():
    assert parse_reference_answer("RESOLVE: Pulse POS") == ReferenceAnswer(decision="resolve", name="Pulse POS")
    assert parse_reference_answer("**RESOLVE**: Pulse POS\nbecause it was named") == ReferenceAnswer(
        decision="resolve", name="Pulse POS"
    )
    assert parse_reference_answer("resolve - Vitalis") == ReferenceAnswer(decision="resolve", name="Vitalis")
    assert parse_reference_answer("Answer: KEEP") == ReferenceAnswer(decision="keep")
    assert parse_reference_answer("KEEP — it names its subject") == ReferenceAnswer(decision="keep")
    assert parse_reference_answer("\n AMBIGUOUS\n") == ReferenceAnswer(decision="ambiguous")
    for unreadable in ["RESOLVE:", "RESOLVE", "I think it is Pulse POS", "", "KEEPING", "Resolved: x"]:
        assert parse_reference_answer(unreadable) is None, unreadable


@given(model_output)
def test_parsers_never_raise_on_any_text(output):
    keyword = parse_keyword_answer(output)
    assert keyword is None or isinstance(keyword, KeywordAnswer)
    reference = parse_reference_answer(output)
    assert reference is None or reference.decision in {"resolve", "keep", "ambiguous"}
    if reference is not None and reference.decision == "resolve":
        assert reference.name
