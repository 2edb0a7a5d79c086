"""The three resolver prompts (contract §5), short and bilingual by construction.

Instructions go in the system prompt and the conversation in the user prompt,
so the instruction part stays identical across turns (provider prompt caches
reuse it). The prompts ask the model to answer in the conversation's
language; they are written in English, which small models follow best.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._languages.text import MAX_PROMPT_PART_CHARS, prompt_part
from .._turn.conversation import Turn

__all__ = [
    "ANSWER_MAX_HL",
    "ANSWER_MAX_LL",
    "KEYWORD_MAX_TOKENS",
    "ONE_LINE",
    "REFERENCE_KEYWORD_TOKENS",
    "REFERENCE_MAX_TOKENS",
    "Prompt",
    "keyword_prompt",
    "keyword_schema",
    "reference_prompt",
    "reference_schema",
    "text_prompt",
]


@dataclass(frozen=True, kw_only=True)
class Prompt:
    """A system prompt and a user prompt for one model call, with the bounds of the answer asked for.

    ``max_tokens``, ``stop`` and ``compact_json`` are sent only to LLM
    functions marked ``supports_output_limits`` (the local model), ``stop``
    only to a call that asks for free text (a JSON answer may break its
    lines), ``compact_json`` only to a call under a schema: ``True`` for JSON
    without blanks between tokens, a property's name for none from that
    property on (what is written before it is decoded as without compaction).
    """

    system: str
    user: str
    max_tokens: int | None = None
    stop: tuple[str, ...] = ()
    compact_json: bool | str = False


ANSWER_MAX_LL = 2
ANSWER_MAX_HL = 2
"""The answer schema's list caps (within the configured ones): LightRAG's extraction, which the answer replaces, wrote
at most 2 of each on 90% and 81% of its 168 answers recorded on the sample and multilingual evaluation sets."""

KEYWORD_MAX_TOKENS = 64
"""The keyword answer's budget: the 8-word ``query`` and 2 + 2 keywords under their schema fit in about 40 tokens."""

REFERENCE_MAX_TOKENS = 64
"""The reference answer's budget without keywords: the decision, a name of at most 6 words and an 8-word query
as the schema's JSON; in graph modes ``REFERENCE_KEYWORD_TOKENS`` more for the keywords."""

REFERENCE_KEYWORD_TOKENS = 96
"""The reference answer's keywords: up to 5 + 3 under LightRAG's key names."""

RESTATEMENT_MAX_CHARS = 64
"""The restatement (``query``) under a schema: about the 8 words asked (``max_query_words``) that are kept."""

ONE_LINE = ("\n",)
"""Where a one-line answer ends; the parsers read the first non-empty line only."""


def text_max_tokens(max_words: int) -> int:
    """The rewrite's budget: three tokens a word and a margin; longer rewrites are cut to ``max_words`` anyway."""
    return 3 * max_words + 8


def _for_company(turn: Turn) -> str:
    return f" on {turn.company_name}'s website" if turn.company_name else ""


def _conversation(turn: Turn, label: str, *, pick: str | None = None, offer: str | None = None) -> str:
    """The user prompt: the window, the numbered candidate names, the message, and what the code read of it.

    Names said before the window say where (``Candidates.numbered``). The
    option the reply picks and the offer it accepts are evidence the code
    found; the model still decides what the reply means.
    """
    parts = [f"Conversation:\n{turn.history_text}"]
    if turn.candidates.names:
        parts.append(f"Names in the conversation:\n{turn.candidates.numbered(window=len(turn.history))}")
    message = f"{label}: {turn.prompt_query}"
    if pick is not None:
        message += f"\n(The reply picks: {pick})"
    if offer is not None:
        message += f"\n(The reply accepts the offer: {prompt_part(offer, max_chars=MAX_PROMPT_PART_CHARS)})"
    parts.append(message)
    return "\n\n".join(parts)


def keyword_prompt(
    turn: Turn, *, max_ll: int, max_hl: int, max_words: int = 8, pick: str | None = None, offer: str | None = None
) -> Prompt:
    """Ask for the reply's meaning as a short search text and graph keywords (contract §5.2)."""
    system = (
        f"You help a search engine understand a short reply in a chat{_for_company(turn)}. "
        "Say what the reply means in this conversation, in the conversation's language, "
        "copying names exactly as written. When the reply picks one of several options, keep only that one.\n"
        f'Answer with JSON only: "query" is a search query of at most {max_words} words, '
        f'"terms" at most {min(max_ll, ANSWER_MAX_LL)} specific names or terms from the conversation, '
        f'"themes" at most {min(max_hl, ANSWER_MAX_HL)} broader themes.\n'
        'Example: after "Shall I send you the price of Orbit CRM or Pulse POS?", the reply '
        '"The second one" gives {"query": "Pulse POS price", "terms": ["Pulse POS", "price"], "themes": ["pricing"]}\n'
        "If the reply cannot be understood from the conversation, answer NONE."
    )
    return Prompt(
        system=system,
        user=_conversation(turn, "Reply", pick=pick, offer=offer),
        max_tokens=KEYWORD_MAX_TOKENS,
        compact_json=True,  # measured as no change to short replies (issue 42); the check's decisions moved
    )


def _words(limit: int, *, max_chars: int) -> dict[str, Any]:
    """A keyword list of at most ``limit`` keywords of at most ``max_chars`` characters each."""
    return {"type": "array", "items": {"type": "string", "maxLength": max_chars}, "maxItems": limit}


def keyword_schema(*, max_ll: int, max_hl: int) -> dict[str, Any]:
    """The keyword answer's JSON schema: keys of one token, capped lists (issue 42: on a CPU, time is what is written)."""
    # LightRAG's extraction wrote keywords of at most 31 characters (median 7) on the answers ANSWER_MAX_LL counts.
    properties = {
        "query": {"type": "string", "maxLength": RESTATEMENT_MAX_CHARS},
        "terms": _words(min(max_ll, ANSWER_MAX_LL), max_chars=40),
        "themes": _words(min(max_hl, ANSWER_MAX_HL), max_chars=40),
    }
    return {"type": "object", "properties": properties, "required": list(properties)}


def text_prompt(turn: Turn, *, max_words: int, pick: str | None = None, offer: str | None = None) -> Prompt:
    """Ask for a short standalone search query for a short reply (contract §5.1)."""
    system = (
        f"You help a search engine understand a short reply in a chat{_for_company(turn)}. "
        f"Rewrite the reply as a search query of at most {max_words} words that says what it "
        "means in this conversation, in the conversation's language, copying names exactly. "
        "When the reply picks one of several options, keep only that one.\n"
        "Answer with the query alone on one line, or NONE if the reply cannot be understood."
    )
    return Prompt(
        system=system,
        user=_conversation(turn, "Reply", pick=pick, offer=offer),
        max_tokens=text_max_tokens(max_words),
        stop=ONE_LINE,
    )


def reference_prompt(
    turn: Turn,
    *,
    max_words: int,
    keywords: tuple[int, int] | None = None,
) -> Prompt:
    """The one call a longer follow-up costs (contract §5.3, §5.9, §7): the check, and what the search needs.

    The decision is asked as it was when it was the call's only question (the
    same instructions and examples, measured on both datasets); what the
    search needs is asked after it, in words only: examples of keywords were
    copied into answers, and asking for them before the decision made the
    model keep messages it used to resolve (docs/findings.md). The JSON
    answer holds the decision, the name (RESOLVE), the message restated as a
    search query (``query``: the restatement of §5.9 when the check names
    nothing or its name is refused, the standalone question of §5.10) and,
    in graph modes (``keywords`` = the low- and high-level caps), the keywords
    LightRAG would otherwise extract in a call of its own.
    """
    fields = ["decision", "name", "query"]
    also = (
        f'Then, for a search engine, also give "query": the message as a search query of at most {max_words} words '
        f"that names what it refers to (the name, or the topic the conversation is about), in the conversation's "
        f'language, copying names exactly ("" for KEEP)'
    )
    if keywords is not None:
        max_ll, max_hl = keywords
        also += (
            f'; "low_level_keywords": at most {max_ll} specific names or terms of the message and of what it '
            f'refers to; "high_level_keywords": at most {max_hl} broader themes'
        )
        fields += ["low_level_keywords", "high_level_keywords"]
    system = (
        f"You check whether a chat message{_for_company(turn)} points at something named "
        "earlier in the conversation without naming it. Decide:\n"
        "RESOLVE: <name> if it refers to exactly one product, plan, module, feature or offer "
        "that the conversation names (copy the name from the numbered list)\n"
        "KEEP if it names its own subject, asks about the company itself, or changes subject\n"
        "AMBIGUOUS if it could mean several things the conversation names, or nothing named\n"
        "Examples:\n"
        '- after "Orbit CRM syncs your contacts.": "Which retailers already run it?" -> RESOLVE: Orbit CRM\n'
        '- "Combien de bureaux avez-vous ?" -> KEEP\n'
        '- after "We sell Orbit CRM and Pulse POS.": "Is it available on weekends?" -> AMBIGUOUS\n'
        f"{also}.\nAnswer with JSON: {', '.join(fields)}."
    )
    budget = REFERENCE_MAX_TOKENS + (REFERENCE_KEYWORD_TOKENS if keywords is not None else 0)
    # Blanks only up to the name: the decision and the name are decoded as without compaction (issue 42).
    return Prompt(system=system, user=_conversation(turn, "Message"), max_tokens=budget, compact_json="query")


def reference_schema(turn: Turn, *, keywords: tuple[int, int] | None = None) -> dict[str, Any]:
    """The JSON schema of the reference answer: the decision, a name that must be a candidate, the restatement,
    and in graph modes LightRAG's two keyword lists at the configured caps."""
    properties: dict[str, Any] = {
        "decision": {"type": "string", "enum": ["RESOLVE", "KEEP", "AMBIGUOUS"]},
        # The candidates when the code found some; else any short name, which the code accepts only when the
        # conversation said it verbatim (its heuristics miss names, e.g. a Chinese one without spaces).
        "name": (
            {"type": "string", "enum": [*turn.candidates.names, ""]}
            if turn.candidates.names
            else {"type": "string", "maxLength": 60}
        ),
        # About 8 words: the restatement is cut to max_query_words anyway, and on a CPU every character the
        # model writes costs time (the one-slot local model wrote 16 words here where none were asked).
        "query": {"type": "string", "maxLength": RESTATEMENT_MAX_CHARS},
    }
    if keywords is not None:
        properties["low_level_keywords"] = _words(keywords[0], max_chars=60)
        properties["high_level_keywords"] = _words(keywords[1], max_chars=60)
    return {"type": "object", "properties": properties, "required": list(properties)}
