from hypothesis import given
from hypothesis import strategies as st

from lightrag_resolve import should_resolve


def test_short_replies_pass_the_gate():
    for reply in ["Santé", "Oui", "BTP", "Yes, B1", "Yes, the second one", "  B1  "]:
        assert should_resolve(reply)


def test_questions_and_long_messages_are_declined():
    for message in ["", "   ", "Santé ?", "Combien de bureaux avez-vous ?", "one two three four five", "Which retailers run it?"]:
        assert not should_resolve(message)


def test_word_limit_comes_from_the_argument():
    assert should_resolve("one two three four five six", max_words=6)
    assert not should_resolve("one two three", max_words=2)


def test_non_text_is_a_clear_error():
    import pytest

    with pytest.raises(TypeError, match="query must be a str"):
        should_resolve(None)  # type: ignore[arg-type]


@given(st.text(), st.integers(min_value=1, max_value=10))
def test_gate_passes_exactly_short_non_questions(query, limit):
    stripped = query.strip()
    expected = bool(stripped) and not stripped.endswith("?") and len(stripped.split()) <= limit
    assert should_resolve(query, limit) is expected
