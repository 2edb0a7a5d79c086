from hypothesis import given
from hypothesis import strategies as st
import pytest

from lightrag_resolve import should_resolve
from lightrag_resolve._turn.short_reply import word_count
from lightrag_resolve._languages import HAN_CHARS_PER_WORD
from lightrag_resolve._languages.text import QUESTION_MARKS, is_question
from strategies import FORMAT_CHARS, hostile_text


def test_short_replies_pass_the_gate():
    for reply in ["Santé", "Oui", "BTP", "Yes, B1", "Yes, the second one", "  B1  "]:
        assert should_resolve(reply)


def test_questions_and_long_messages_are_declined():
    for message in [
        "",
        "   ",
        "Santé ?",
        "Combien de bureaux avez-vous ?",
        "one two three four five",
        "Which retailers run it?",
    ]:
        assert not should_resolve(message)


def test_word_limit_comes_from_the_argument():
    assert should_resolve("one two three four five six", max_words=6)
    assert not should_resolve("one two three", max_words=2)


def test_non_text_is_a_clear_error():
    import pytest

    with pytest.raises(TypeError, match="query must be a str"):
        should_resolve(None)  # type: ignore[arg-type]


@given(st.one_of(st.text(), hostile_text), st.integers(min_value=1, max_value=10))
def test_gate_passes_exactly_short_non_questions(query, limit):
    words = word_count(query)
    expected = bool(words) and not is_question(query) and words <= limit
    assert should_resolve(query, limit) is expected


@given(st.text(alphabet=st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF), min_size=1, max_size=60))
def test_han_text_counts_its_characters_by_the_measured_word_length(text):
    assert word_count(text) == pytest.approx(len(text) / HAN_CHARS_PER_WORD)
    # A Chinese request longer than the gate's words in characters is never a short reply.
    assert should_resolve(text) is (len(text) / HAN_CHARS_PER_WORD <= 4)


@given(st.lists(st.sampled_from(["B1", "yes", "Santé", "please"]), min_size=1, max_size=8))
def test_spaced_words_count_one_each(words):
    assert word_count(" ".join(words)) == len(words)


def test_a_long_chinese_request_without_a_question_mark_is_no_short_reply():
    assert not should_resolve("我想了解一下你们的排班软件的价格和功能")
    assert not should_resolve("哪些客户已经在用它了")  # a reference written without "？"
    assert should_resolve("医疗") and should_resolve("第二个") and should_resolve("好的，谢谢")


def test_questions_in_any_script_are_declined():
    for question in [
        "哪些诊所已经在用它了？",
        "ما هي الأسعار؟",
        "Τι κοστίζει\u037e",  # the Greek question mark
        "Τι κοστίζει;",  # the same after NFC, an ASCII semicolon in Greek text
        "ኣሎ፧",
        "Ինչպե՞ս",
        "Vraiment⸮",
        "Which one? ",
        "«Lequel ?»",
        '"Which one?"  ',
        "Which one?\u200b",
        "それは何ですか？」",
        "Which one?\ufeff\u2060 ",
    ]:
        assert is_question(question), question
        assert not should_resolve(question), question


def test_a_semicolon_ends_a_question_only_in_greek_text():
    assert not is_question("Santé;") and should_resolve("Santé;")
    assert is_question("Πόσο κοστίζει;") and not should_resolve("Πόσο κοστίζει;")


@given(
    st.text(max_size=20).filter(lambda text: text.strip()),
    st.sampled_from(sorted(QUESTION_MARKS)),
    st.lists(st.sampled_from([" ", "\u3000", '"', "»", "”", "」", ")", *FORMAT_CHARS]), max_size=4).map("".join),
)
def test_a_question_mark_of_any_script_keeps_a_question_a_question(text, mark, tail):
    assert is_question(text + mark + tail)
    assert not should_resolve(text + mark + tail)


@given(st.lists(st.sampled_from(FORMAT_CHARS), min_size=1, max_size=5).map("".join))
def test_format_characters_alone_are_an_empty_message(text):
    assert not should_resolve(text)
