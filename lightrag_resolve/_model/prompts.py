"""The three resolver prompts (contract §5), short and bilingual by construction.

Instructions go in the system prompt and the conversation in the user prompt, so the instruction part stays identical
across turns (provider prompt caches reuse it). Written in English, which small models follow best, the prompts ask for
answers in the conversation's language.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._languages.text import MAX_PROMPT_PART_CHARS, contains_phrase, prompt_part
from .._turn.conversation import Turn

__all__ = [
    "ANSWER_MAX_HL",
    "ANSWER_MAX_LL",
    "KEYWORD_MAX_TOKENS",
    "ONE_LINE",
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

    ``max_tokens``, ``stop`` and ``compact_json`` go only to LLM functions marked ``supports_output_limits`` (the local
    model); ``stop`` only with free text (a JSON answer may break its lines), ``compact_json`` only under a schema.
    """

    system: str
    user: str
    max_tokens: int | None = None
    stop: tuple[str, ...] = ()
    compact_json: bool = False


ANSWER_MAX_LL = 2
ANSWER_MAX_HL = 2
"""The answer schema's list caps (within the configured ones): LightRAG's extraction, which the answer replaces, mostly
wrote no more on the sample and multilingual evaluation sets (measured: contract §5.4)."""

KEYWORD_MAX_TOKENS = 64
"""The keyword answer's budget: the 8-word ``query`` and 2 + 2 keywords under their schema fit with room to spare."""

REFERENCE_MAX_TOKENS = 64
"""The reference answer's budget: the decision, a name of at most 6 words and an 8-word query as the schema's JSON."""

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

    Names said before the window say where (``Candidates.numbered``). The pick and the accepted offer are evidence the
    code found; the model still decides what the reply means.
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
    """The keyword answer's JSON schema: one-token keys, capped lists (issue 42: on a CPU, time is what is written)."""
    # 40 characters: above the longest keyword LightRAG's extraction wrote on the answers ANSWER_MAX_LL counts.
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


def reference_prompt(turn: Turn, *, max_words: int) -> Prompt:
    """The one call a longer follow-up costs (contract §5.3, §5.9, §7): the check, and the message restated.

    The decision keeps the instructions and examples measured when it was the only question; the restatement (``query``,
    §5.9, §5.10) follows in words only, as asking more first moved decisions (docs/findings.md). No keywords are asked:
    the code builds LightRAG's (issue 42: each written keyword costs CPU time).
    """
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
        f'Then, for a search engine, also give "query": the message as a search query of at most {max_words} words '
        f"that names what it refers to (the name, or the topic the conversation is about), in the conversation's "
        f'language, copying names exactly ("" for KEEP).\nAnswer with JSON: decision, name, query.'
    )
    return Prompt(system=system, user=_conversation(turn, "Message"), max_tokens=REFERENCE_MAX_TOKENS)


def reference_schema(turn: Turn, *, restate_resolved: bool = False) -> dict[str, Any]:
    """The JSON schema of the reference answer: a shape per decision, so the answer ends when nothing more is read.

    A RESOLVE naming a candidate the message does not say ends at its name, which leads the search; a refused name (one
    the message says, a free name), ``restate_resolved``, KEEP and AMBIGUOUS keep ``query`` (contract §5.3, §5.9). The
    shapes share the prompt's keys, order and names: the model's decisions moved with what preceded them (issue 42).
    """
    names = turn.candidates.names
    query = {"type": "string", "maxLength": RESTATEMENT_MAX_CHARS}
    said = [name for name in names if contains_phrase(turn.query, name)]
    if not names or restate_resolved:
        resolve = [_reference_shape(["RESOLVE"], _name(names), query)]
    else:
        unsaid = [name for name in names if name not in said]
        resolve = [_reference_shape(["RESOLVE"], {"type": "string", "enum": [*unsaid, ""]}, None)]
        if said:
            resolve.append(_reference_shape(["RESOLVE"], {"type": "string", "enum": said}, query))
    return {"anyOf": [*resolve, _reference_shape(["KEEP", "AMBIGUOUS"], _name(names), query)]}


def _name(names: tuple[str, ...]) -> dict[str, Any]:
    """The ``name`` field: a candidate (or ""), else any short name, kept if said verbatim (heuristics miss some)."""
    return {"type": "string", "enum": [*names, ""]} if names else {"type": "string", "maxLength": 60}


def _reference_shape(decisions: list[str], name: dict[str, Any], query: dict[str, Any] | None) -> dict[str, Any]:
    """One decision's answer: ``decision``, ``name`` and, where it is read, ``query``; nothing else."""
    properties: dict[str, Any] = {"decision": {"type": "string", "enum": decisions}, "name": name}
    if query is not None:
        properties["query"] = query  # about 8 words: cut to max_query_words anyway, and each one costs a CPU time
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}
