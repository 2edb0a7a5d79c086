from hypothesis import given

from lightrag_resolve._model.parse import KeywordAnswer, ReferenceAnswer, parse_keyword_answer, parse_reference_answer
from strategies import model_output


def test_keyword_answers_in_many_shapes():
    assert parse_keyword_answer(
        '{"low_level_keywords": ["Vitalis"], "high_level_keywords": ["santé"]}'
    ) == KeywordAnswer(ll_raw=["Vitalis"], hl_raw=["santé"])
    fenced = '```json\n{"ll_keywords": ["B1"], "hl_keywords": ["German course"]}\n```'
    assert parse_keyword_answer(fenced) == KeywordAnswer(ll_raw=["B1"], hl_raw=["German course"])
    assert parse_keyword_answer('Sure! {"high_level_keywords": ["x"]} done') == KeywordAnswer(ll_raw=None, hl_raw=["x"])
    assert parse_keyword_answer("NONE") == KeywordAnswer(ll_raw=[], hl_raw=[])
    for unreadable in ["Santé, Vitalis", '{"low_level_keywords": [', "[1, 2]", '{"answer": "x"}', "{}"]:
        assert parse_keyword_answer(unreadable) is None, unreadable


def test_the_compact_keyword_answers_keys_are_read():
    """Issue 42: what a schema-held model writes for a short reply."""
    assert parse_keyword_answer('{"query": "Pulse POS price", "terms": ["Pulse POS"], "themes": ["pricing"]}') == (
        KeywordAnswer(ll_raw=["Pulse POS"], hl_raw=["pricing"], query_raw="Pulse POS price")
    )


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


def test_a_one_line_reference_answer_has_no_restatement():
    for line in ("RESOLVE: Pulse POS", "KEEP", "AMBIGUOUS"):
        assert parse_reference_answer(line).restatement_raw is None


def test_the_checks_json_answer_carries_its_restatement_as_the_model_gave_it_and_ignores_keywords_unasked():
    answer = parse_reference_answer(
        '{"decision": "AMBIGUOUS", "name": "", "query": "Lyon shops using Pulse POS or Orbit CRM",'
        ' "low_level_keywords": ["Lyon", 7], "high_level_keywords": "retail adoption"}'
    )
    assert answer == ReferenceAnswer(decision="ambiguous", restatement_raw="Lyon shops using Pulse POS or Orbit CRM")
    resolve = parse_reference_answer('{"decision": "resolve", "name": "Pulse POS", "query": ""}')
    assert resolve == ReferenceAnswer(decision="resolve", name="Pulse POS", restatement_raw="")
    # A RESOLVE under the schema ends at its name (issue 42).
    assert parse_reference_answer('{"decision": "RESOLVE", "name": "Pulse POS"}') == ReferenceAnswer(
        decision="resolve", name="Pulse POS"
    )


def test_the_checks_json_answer_is_read_inside_a_code_fence():
    for fenced in (
        '```json\n{"decision": "RESOLVE", "name": "Pulse POS", "query": "Lyon shops using Pulse POS"}\n```',
        '```\n{"decision": "RESOLVE", "name": "Pulse POS", "query": "Lyon shops using Pulse POS"}\n```',
        '  ```JSON {"decision": "RESOLVE", "name": "Pulse POS", "query": "Lyon shops using Pulse POS"}```',
    ):
        assert parse_reference_answer(fenced) == ReferenceAnswer(
            decision="resolve", name="Pulse POS", restatement_raw="Lyon shops using Pulse POS"
        ), fenced


def test_a_json_answer_without_a_readable_decision_or_a_resolve_without_a_name_is_unreadable():
    for unreadable in (
        '{"name": "Pulse POS", "query": "Lyon shops"}',
        '{"decision": 1, "name": "Pulse POS"}',
        '{"decision": "MAYBE", "name": "Pulse POS"}',
        '{"decision": "RESOLVE", "name": "", "query": "Lyon shops using Pulse POS"}',
        '{"decision": "RESOLVE", "name": ["Pulse POS"]}',
        '```json\n{"decision": "RESOLVE", "name": "Pulse POS"',  # cut off by the token budget
    ):
        assert parse_reference_answer(unreadable) is None, unreadable


@given(model_output)
def test_parsers_never_raise_on_any_text(output):
    keyword = parse_keyword_answer(output)
    assert keyword is None or isinstance(keyword, KeywordAnswer)
    reference = parse_reference_answer(output)
    assert reference is None or reference.decision in {"resolve", "keep", "ambiguous"}
    if reference is not None and reference.decision == "resolve":
        assert reference.name
