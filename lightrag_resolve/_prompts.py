"""The three resolver prompts (contract §5), short and bilingual by construction.

Instructions go in the system prompt and the conversation in the user prompt,
so the instruction part stays identical across turns (provider prompt caches
reuse it). The prompts ask the model to answer in the conversation's
language; they are written in English, which small models follow best.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._conversation import Turn

__all__ = ["Prompt", "keyword_prompt", "reference_prompt", "text_prompt"]


@dataclass(frozen=True, kw_only=True)
class Prompt:
    """A system prompt and a user prompt for one model call."""

    system: str
    user: str


def _for_company(turn: Turn) -> str:
    return f" on {turn.company_name}'s website" if turn.company_name else ""


def _conversation(turn: Turn, label: str) -> str:
    return f"Conversation:\n{turn.history_text}\n\n{label}: {turn.query.strip()}"


def keyword_prompt(turn: Turn, *, max_ll: int, max_hl: int) -> Prompt:
    """Ask for graph keywords for a short reply (contract §5.2)."""
    system = (
        f"You help a search engine understand a short reply in a chat{_for_company(turn)}. "
        "Give search keywords for what the reply means in this conversation, "
        "in the conversation's language, copying names exactly as written.\n"
        'Answer with JSON only: {"low_level_keywords": [at most '
        f'{max_ll} specific names or terms], "high_level_keywords": [at most {max_hl} broader themes]}}\n'
        "If the reply cannot be understood from the conversation, answer NONE."
    )
    return Prompt(system=system, user=_conversation(turn, "Reply"))


def text_prompt(turn: Turn, *, max_words: int) -> Prompt:
    """Ask for a short standalone search query for a short reply (contract §5.1)."""
    system = (
        f"You help a search engine understand a short reply in a chat{_for_company(turn)}. "
        f"Rewrite the reply as a search query of at most {max_words} words that says what it "
        "means in this conversation, in the conversation's language, copying names exactly.\n"
        "Answer with the query alone on one line, or NONE if the reply cannot be understood."
    )
    return Prompt(system=system, user=_conversation(turn, "Reply"))


def reference_prompt(turn: Turn) -> Prompt:
    """Ask whether a longer message points at one thing the conversation named (contract §5.3)."""
    system = (
        f"You check whether a chat message{_for_company(turn)} points at something named "
        "earlier in the conversation without naming it. Answer with one line:\n"
        "RESOLVE: <name> if it refers to exactly one product, plan, module, feature or offer "
        "that the conversation names (copy the name exactly)\n"
        "KEEP if it names its own subject, asks about the company itself, or changes subject\n"
        "AMBIGUOUS if it could mean several things the conversation names, or nothing named\n"
        "Examples:\n"
        '- after "Orbit CRM syncs your contacts.": "Which retailers already run it?" -> RESOLVE: Orbit CRM\n'
        '- "Combien de bureaux avez-vous ?" -> KEEP\n'
        '- after "We sell Orbit CRM and Pulse POS.": "Is it available on weekends?" -> AMBIGUOUS'
    )
    return Prompt(system=system, user=_conversation(turn, "Message"))
