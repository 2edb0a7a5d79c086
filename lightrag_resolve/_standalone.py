"""contract §5.10: a resolved reference's chunk search, fused with a standalone question.

The reference check keeps the visitor's words and adds one name the
conversation established (or a short restatement, §5.9). The classic condense
step says the whole question again in other words. Each finds chunks the
other misses, and the MTRAG task's best system fused the searches of several
reformulations by rank. With ``ResolverConfig.fuse_standalone_question`` a
reference the check changed gets one more model call, the condense prompt the
``prose`` baseline sends on every follow-up, over the last
``CONDENSE_WINDOW`` messages (more than the check reads: a standalone
question must say what earlier turns set up). The question it writes is
checked here, recorded on the ``Resolution``, and the resolved text's vector
chunk search is fused with the question's (``_fusion``). The resolved text
still leads and reaches the answer writer; the question only adds a ranking.
A KEEP, an unchanged turn and a short reply never pay the call.
"""

from __future__ import annotations

from typing import Any

from ._conversation import Turn
from ._enforce import answer_line, is_none_answer, is_scaffold
from ._grounding import unestablished_in
from ._parse import parse_reference_answer
from ._prompts import ONE_LINE, Prompt
from ._text import MAX_QUERY_CHARS, clip_chars

__all__ = ["CONDENSE_SYSTEM_PROMPT", "STANDALONE_MAX_TOKENS", "condense_prompt", "standalone_question"]

CONDENSE_SYSTEM_PROMPT = (
    "Restate the user's follow-up message as one standalone question that someone who has not "
    "read the conversation would understand. Keep the user's language. "
    "Answer with the question alone."
)
"""The condense instruction: the one the ``prose`` baseline arm measures on every follow-up (a test keeps them equal)."""

STANDALONE_MAX_TOKENS = 64
"""The question's budget: a standalone question of about 30 words; a longer one is cut to ``MAX_QUERY_CHARS``."""


def condense_prompt(turn: Turn) -> Prompt:
    """Ask for the follow-up as one standalone question, over the turn's ``conversation`` (``CONDENSE_WINDOW``)."""
    user = f"Conversation:\n{turn.conversation_text}\n\nFollow-up message: {turn.prompt_query}\n\nStandalone question:"
    return Prompt(system=CONDENSE_SYSTEM_PROMPT, user=user, max_tokens=STANDALONE_MAX_TOKENS, stop=ONE_LINE)


def standalone_question(turn: Turn, output: Any) -> str | None:
    """The question to fuse with, or ``None`` when the answer is refused.

    Refused: no text, ``NONE``, a scaffold, an answer in the check's own
    format, the visitor's message itself (nothing to add), and a question
    with a name that neither the messages its prompt showed, the window's
    candidates nor the configured company's name establish. Kept: one line without control or format
    characters, at most ``MAX_QUERY_CHARS`` characters.
    """
    line = clip_chars(answer_line(output), MAX_QUERY_CHARS).strip() if isinstance(output, str) else ""
    if not line or is_none_answer(line) or is_scaffold(line) or parse_reference_answer(line) is not None:
        return None
    if line.casefold() == " ".join(turn.query.split()).casefold():
        return None
    if unestablished_in(turn, line, messages=turn.conversation_texts):
        return None
    return line
