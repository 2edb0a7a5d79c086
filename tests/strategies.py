"""Hypothesis strategies shared by the property tests."""

from __future__ import annotations

import json

from hypothesis import strategies as st

from fakes import FakeOverride
from lightrag_resolve import Message, Resolution, ResolverTuning, Turn
from lightrag_resolve._decide.route import RouteFacts

words = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=12)
"""Up to 12 characters of any kind but surrogates."""
plain_word = st.from_regex(r"[A-Za-zÀ-ÿ][A-Za-zÀ-ÿ0-9'-]{0,10}", fullmatch=True)
"""One Latin word, accents allowed, that starts with a letter."""
phrase = st.lists(plain_word, min_size=1, max_size=6).map(" ".join)
"""One to six plain words separated by spaces."""

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
"""Model output that describes the conversation instead of answering: numbered, "The visitor…", "Based on…"."""

PROMPT_FORMATS = [
    "RESOLVE: {}",
    "**RESOLVE**: {}",
    "Resolve - {}",
    "{} RESOLVE: {}",
    "KEEP",
    "Keep: {}",
    "AMBIGUOUS",
    "{} KEEP",
    "{} AMBIGUOUS",
    "{} NONE",
    "Visitor: {}",
    "{} — Assistant: {}",
    "Conversation: {}",
    "Reply: {}",
    "Message: {}",
    "{} (Visitor : {})",
    '{{"query": "{}"}}',
    '{{"decision": "RESOLVE", "name": "{}"}}',
    "{} low_level_keywords",
]
"""A prompt's own format (``_model.prompts``): the check's verdicts, the labels of the conversation, the JSON keys."""

prompt_format_text = st.builds(lambda form, name: form.replace("{{", "{").replace("}}", "}").replace("{}", name),
                               st.sampled_from(PROMPT_FORMATS), phrase)
"""Model text in a prompt's own format around a phrase: "RESOLVE: Pulse POS", "Visitor: pricing", "KEEP"."""

any_json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=6) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)
"""Any JSON value: scalars, lists and objects nested a few levels."""

keyword_list = st.lists(st.one_of(phrase, st.text(max_size=15), st.integers(), st.none(), scaffold_text), max_size=40)
"""A keyword list as a model may write it: phrases, any text, numbers, nulls and scaffold, up to 40 items."""

keyword_field = st.one_of(keyword_list, st.text(max_size=40), st.none())
"""What a keyword answer's list field may hold: a list, a bare string, or nothing."""


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


@st.composite
def reference_json(draw) -> str:
    """JSON the reference check might return: a decision, a name, a restatement and keywords, well-formed or odd."""
    obj = {}
    if draw(st.integers(0, 9)):  # mostly with a decision, as the schema asks
        obj["decision"] = draw(st.one_of(st.sampled_from(["RESOLVE", "KEEP", "AMBIGUOUS", "resolve", "Keep"]), any_json_value))
    for key, value in (
        ("name", st.one_of(phrase, st.sampled_from(["", "1", "2", "Vitalis"]), any_json_value)),
        ("query", st.one_of(phrase, scaffold_text, st.text(max_size=60), any_json_value)),
        ("low_level_keywords", keyword_field),
        ("high_level_keywords", keyword_field),
    ):
        if draw(st.booleans()):
            obj[key] = draw(value)
    text = json.dumps(obj, ensure_ascii=draw(st.booleans()))
    wrap = draw(st.sampled_from(["{}", "```json\n{}\n```", "```{}```", " {}\n"]))
    return wrap.replace("{}", text)


model_output = st.one_of(
    st.text(max_size=200),
    keyword_json(),
    reference_json(),
    phrase,
    scaffold_text,
    st.sampled_from(["NONE", "none", "", "   ", "KEEP", "AMBIGUOUS", "RESOLVE:", "RESOLVE: Vitalis", "null", "{}", "[]"]),
    st.builds(lambda name, gloss: f"RESOLVE: {name}{gloss}", phrase, st.sampled_from(["", " - the message is about it", " (product)", "."])),
)
"""Anything a model may answer any resolver prompt: free text, keyword JSON, the check's JSON, decisions, scaffold,
NONE."""

roles = st.sampled_from(["user", "assistant"])
"""A chat message's author, as LightRAG's ``conversation_history`` writes it."""
message = st.fixed_dictionaries({"role": roles, "content": st.one_of(phrase, st.text(max_size=80))})
"""One ``conversation_history`` entry: a role and plain or arbitrary text."""
history = st.lists(message, min_size=0, max_size=5)
"""A ``conversation_history`` of up to five entries."""
unusable_entry = st.one_of(
    st.none(),
    st.integers(),
    st.text(max_size=10),
    st.fixed_dictionaries({"role": st.sampled_from(["system", "tool", "", "USER"]), "content": st.text(max_size=20)}),
    st.fixed_dictionaries({"role": roles, "content": st.one_of(st.sampled_from(["", "   ", "\n\t"]), st.none(), st.integers())}),
    st.dictionaries(st.text(max_size=8), st.text(max_size=8), max_size=3),
)
"""A ``conversation_history`` entry the resolver cannot read: no mapping, another role, or no text."""
messy_history = st.lists(st.one_of(message, unusable_entry), max_size=12)
"""A ``conversation_history`` of up to twelve entries, readable or not, in any order."""
queries = st.one_of(phrase, st.text(max_size=60), phrase.map(lambda p: p + " ?"), st.sampled_from(["B1", "OK", "Si", "Santé", "Yes, B1"]))
"""A visitor's message: a phrase, a question, any text, or a short reply."""
modes = st.sampled_from(["local", "global", "hybrid", "mix", "naive", "bypass"])
"""A LightRAG query mode."""
company_names = st.one_of(st.none(), st.sampled_from(["Helix", "Acme Software", "Groupe Étoile SA"]))
"""A configured company name, or none."""

chunk_id_rankings = st.lists(st.sampled_from([f"chunk-{n}" for n in range(12)]), unique=True, max_size=8)
"""A chunk search's ranking: up to eight distinct chunk ids out of twelve, best first."""

extracted_keywords = st.lists(st.one_of(phrase, st.text(max_size=15)), max_size=12).map(tuple)
"""One list of LightRAG's extracted keywords, as a tuple: phrases or any short text."""
keyword_caps = st.integers(min_value=1, max_value=6)
"""A cap on a keyword list (``max_ll_keywords``, ``max_hl_keywords``)."""


# ---- hostile text (issue 13) -----------------------------------------------------

FORMAT_CHARS = ["\u200b", "\u00ad", "\ufeff", "\u2060", "\u200c", "\u200d", "\u200e", "\u202e", "\u2066", "\U000e0001"]
"""Format characters (Unicode category Cf): zero-width space, soft hyphen, BOM, word joiner, bidi controls, a tag."""

CONTROL_CHARS = ["\x00", "\x07", "\x08", "\t", "\n", "\r", "\x0b", "\x0c", "\x1b", "\x7f", "\x85", "\x9b"]
"""Control characters (Unicode category Cc), white-space ones included."""

TERMINAL_ESCAPES = ["\x1b[31m", "\x1b[0m", "\x1b[2J", "\x1b]0;pwned\x07", "\x9b1;31m", "\x1bc"]
"""Terminal escape sequences: colours, clear screen, a window title, a reset."""

lone_surrogate = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
"""One unpaired surrogate code point (Unicode category Cs)."""
invisible = st.one_of(st.sampled_from(FORMAT_CHARS + CONTROL_CHARS + TERMINAL_ESCAPES), lone_surrogate)
"""One character or escape that prints as nothing: format, control, terminal escape or lone surrogate."""

cjk_run = st.text(alphabet=st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF), min_size=1, max_size=400)
"""Chinese without spaces: one "word" however long."""

huge_token = st.builds(lambda ch, n: ch * n, st.sampled_from(["x", "é", "数", "\U0001f600"]), st.integers(2_000, 120_000))
"""One unbroken token of thousands of characters."""


@st.composite
def _salted(draw, base) -> str:
    """``base`` with invisible characters inserted at random places."""
    text = draw(base)
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(invisible) + text[at:]
    return text


hostile_text = st.one_of(
    _salted(phrase),
    _salted(cjk_run),
    st.lists(invisible, min_size=1, max_size=8).map("".join),
    st.text(alphabet=st.characters(blacklist_categories=()), max_size=40),
    huge_token,
)
"""Text an attacker or a broken model may send: invisible, control and surrogate characters, CJK, huge tokens."""


@st.composite
def hostile_model_output(draw) -> str:
    """What a scripted fake model may answer: hostile text as a rewrite, as keywords, as a reference name, or in
    the check's JSON answer (its name, restatement and keywords)."""
    value = draw(hostile_text)
    form = draw(st.sampled_from(["raw", "keywords", "csv", "resolve", "line", "check"]))
    if form == "check":  # the reference check's JSON: hostile text as its name, restatement and keywords
        ll = draw(st.lists(st.one_of(hostile_text, phrase), min_size=1, max_size=3))
        hl = draw(st.lists(st.one_of(hostile_text, phrase), min_size=1, max_size=3))
        answer = {
            "decision": draw(st.sampled_from(["RESOLVE", "KEEP", "AMBIGUOUS"])),
            "name": value,
            "query": f"{draw(phrase)} {value}",
            "low_level_keywords": ll,
            "high_level_keywords": hl,
        }
        return json.dumps(answer, ensure_ascii=draw(st.booleans()))
    if form == "keywords":
        ll = draw(st.lists(hostile_text, min_size=1, max_size=3))
        hl = draw(st.lists(hostile_text, min_size=1, max_size=3))
        return json.dumps({"low_level_keywords": ll, "high_level_keywords": hl}, ensure_ascii=draw(st.booleans()))
    if form == "csv":
        return json.dumps({"low_level_keywords": value, "high_level_keywords": [value]})
    if form == "resolve":
        return f"RESOLVE: {value}"
    if form == "line":
        return f"{value} {draw(phrase)}"
    return value


plain_or_hostile_text = st.one_of(phrase, hostile_text)
"""A message text: plain words or hostile text."""

hostile_history = st.lists(st.fixed_dictionaries({"role": roles, "content": hostile_text}), max_size=3)
"""A ``conversation_history`` of up to three entries whose content is hostile text."""


@st.composite
def hostile_turns(draw) -> tuple[str, list[str], str, str]:
    """A turn against a hostile model: (query, history texts, model reply, mode); the reply may echo the history."""
    history = draw(st.lists(st.one_of(hostile_text, phrase), min_size=1, max_size=3))
    query = draw(st.one_of(hostile_text, phrase, st.sampled_from(["Santé", "B1", "Which retailers already run it?"])))
    words = " ".join(history).split()
    echoed = st.sampled_from(words) if words else phrase
    reply = draw(
        st.one_of(
            hostile_model_output(),
            echoed.map(lambda word: f"RESOLVE: {word}"),  # a name the history holds, invisible characters and all
            # the check's JSON answer whose restatement and keywords echo the history, so they pass its grounding
            st.builds(
                lambda decision, word, query: json.dumps(
                    {"decision": decision, "name": word, "query": f"{query} {word}",
                     "low_level_keywords": [word, query], "high_level_keywords": [word]}
                ),
                st.sampled_from(["RESOLVE", "KEEP", "AMBIGUOUS"]), echoed, st.one_of(phrase, hostile_text),
            ),
            st.sampled_from(TERMINAL_ESCAPES).map(lambda esc: f"{esc}RESOLVE: {words[0] if words else 'x'}"),
        )
    )
    mode = draw(st.sampled_from(["local", "mix", "naive", "global"]))
    return query, history, reply, mode


# ---- routing and fallbacks ---------------------------------------------------------

chat_history = st.lists(st.builds(Message, role=roles, content=phrase), max_size=3).map(tuple)
"""A turn's history window: up to three ``Message`` objects, empty for a first turn."""
any_mode = st.one_of(modes, st.sampled_from(["vector", "", "MIX", "naïve"]))
"""A mode LightRAG knows, or one it does not."""
chat_turns = st.builds(Turn, query=queries, history=chat_history, mode=any_mode)
"""A ``Turn`` in any mode, first or not."""
override_answer = st.one_of(st.booleans(), st.just(RuntimeError("tenant rule failed")))
"""What an override point may do: answer yes or no, or raise."""


@st.composite
def route_facts(draw) -> RouteFacts:
    """The facts of any turn: any switches, gates, pointers and prompters that answer or raise."""
    return RouteFacts(
        turn=draw(chat_turns),
        enabled=draw(st.booleans()),
        caller_keywords=draw(st.booleans()),
        tuning=ResolverTuning(),
        max_query_words=12,
        gate=FakeOverride(draw(override_answer)),
        pointer=FakeOverride(draw(override_answer)),
        prompter=FakeOverride(draw(override_answer)),
        searched_by_lightrag=draw(st.booleans()),
    )


assistant_turn_end = st.one_of(
    phrase.map(lambda p: p + " ?"),
    st.sampled_from(
        [
            "Which sector are you in: Santé, BTP or Retail?",
            "Shall I send you the price of Orbit CRM or Pulse POS?",
            "Pulse POS runs in 400 shops.",
            "Would you like to know which clinics use Pivotane?",
            "Which retailers run RESOLVE: Pulse POS?",
        ]
    ),
    phrase,
)
"""What an assistant's last message may be: a question (often), an offer, a statement, one quoting the check's format."""


@st.composite
def dialogue_turns(draw) -> Turn:
    """A turn after an assistant's message, in any mode: a short reply to it, or a follow-up that points back."""
    earlier = draw(st.lists(st.builds(Message, role=roles, content=phrase), max_size=1))
    last = Message(role="assistant", content=draw(assistant_turn_end))
    query = draw(
        st.one_of(
            queries,
            st.sampled_from(["Santé", "Yes please", "The second one", "OK", "Which retailers already run it?"]),
        )
    )
    return Turn(query=query, history=(*earlier, last), mode=draw(modes), company_name=draw(company_names))


failing_model_replies = st.one_of(
    model_output,
    hostile_model_output(),
    st.sampled_from([RuntimeError("model down"), ValueError("bad request"), TimeoutError("late")]),
)
"""What a failing or hostile model gives any resolver prompt: odd text, the check's format, hostile text, an error."""

fallback_reasons = st.one_of(
    st.sampled_from(["disabled", "first_turn", "gate_declined", "llm_error", "timeout", "keep", "stands_alone"]),
    st.builds(lambda reason: f"rejected:{reason}", st.sampled_from(["company", "not_in_history", "too_long"])),
)
"""A reason a path falls back (contract §6)."""


@st.composite
def safe_resolutions(draw) -> Resolution:
    """A safe resolution a path may build: the visitor's words, or a short reply's text that keeps the question."""
    query = draw(queries)
    kept = draw(st.one_of(st.just(query), phrase.map(lambda question: f"{query} — {question}")))
    return Resolution(
        query=kept,
        original_query=query,
        mode=draw(modes),
        path=draw(st.sampled_from(["keywords", "text", "reference"])),
        context=None if kept == query else kept.removeprefix(f"{query} — "),
        model=draw(st.one_of(st.none(), plain_word)),
        candidates=draw(st.lists(phrase, max_size=3)),
    )
