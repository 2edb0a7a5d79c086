"""A follow-up that points back at something the check could not name is restated (contract §5.9).

The reference check (contract §5.3) adds one name the conversation
established. A message that points back at something else ("does he have an
infinity gem", "Is it available on weekends?" after two products) gets
AMBIGUOUS, finds no candidate, or proposes a name the code must refuse, and
was then searched with words that lean on a conversation retrieval never
sees. One more model call restates it as a short search query: checked like a
short reply's rewrite (contract §5.1), held to the conversation's names
(``_grounding.unestablished_names``) and added after the visitor's words, so
nothing they typed is lost. A KEEP is never restated: the model judged the
message searchable, and rewriting searchable questions is where the
always-rewrite baselines lose. Nor is a message whose refused name is its
own, written before its pronoun: the model placed the antecedent inside it.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from ._conversation import Turn
from ._enforce import append_meaning, contains_phrase, enforce_text_query, name_with_message
from ._grounding import unestablished_in
from ._parse import parse_reference_answer
from ._pointers import named_before_pointing
from ._resolution import Resolution

__all__ = ["needs_restatement", "restated", "restated_name"]

logger = logging.getLogger("lightrag_resolve")


def needs_restatement(checked: Resolution, *, proposed: str | None = None) -> bool:
    """Whether the check saw the message point back and named nothing: AMBIGUOUS, no candidate, or a refused name.

    A failed check (timeout, model error, unreadable answer) is not restated:
    a second call to a model that just failed would only make the visitor
    wait longer for the same words. Nor is a refused name that the message
    already holds before its pointing word (``proposed``, the name the check
    proposed): "How does IBM Cloud Kubernetes Service work and why should I
    use it?" → "Kubernetes" names its own subject.
    """
    reason = checked.fallback_reason or ""
    if checked.path != "reference" or not (reason in ("ambiguous", "no_candidates") or reason.startswith("rejected:")):
        return False
    if checked.rejected_reason == "already_named" and proposed is not None:
        return not named_before_pointing(checked.original_query, proposed)
    return True


def restated(checked: Resolution, turn: Turn, output: Any, *, max_words: int) -> Resolution:
    """``checked`` retrieving with "<message> — <restatement>", or as it is when the restatement is refused.

    A restatement that names exactly one candidate the message lacks has
    found what the message points at, as a named check would have, and the
    turn retrieves as a named check's does: "<name> — <message>"
    (``restated_name``). The rest of the restatement stays on the record; in
    the text it would bring the company name the rewrite checks append, which
    draws the company's own pages.

    Refused: anything ``enforce_text_query`` refuses (``NONE``, empty, a
    scaffold), an answer in the check's own format (``KEEP``, ``AMBIGUOUS``,
    ``RESOLVE: …``: the model answered the wrong question), and a
    restatement with a name the conversation did not establish (the
    configured company's name, which the checks append, counts as
    established). The check's own record (decision, candidates, the reason a name
    was refused) is kept; only the text and ``restatement`` change.
    """
    if not isinstance(output, str) or parse_reference_answer(output) is not None:
        return checked
    query = enforce_text_query(output, company_name=turn.company_name, max_words=max_words).query
    if query is None:
        return checked
    unknown = unestablished_in(turn, query)
    if unknown:
        logger.debug("restatement refused: %s are not in the conversation", ", ".join(unknown))
        return checked
    name = restated_name(query, turn)
    text = name_with_message(turn.query, name) if name else append_meaning(turn.query, query)
    return replace(checked, query=text, fallback_reason=None, restatement=query)


def restated_name(restatement: str, turn: Turn) -> str | None:
    """The one candidate name the restatement holds and the message does not, or ``None``.

    Only a single such name leads: a restatement naming two candidates
    ("Pulse POS or Orbit CRM on weekends") keeps the ambiguity the check saw,
    and leading with either would pick one for the visitor. A candidate
    inside a longer one it names ("IBM" in "IBM Cloud") is that same mention.
    """
    mentions = [name for name in turn.candidates.mentioned_in(restatement) if not contains_phrase(turn.query, name)]
    return mentions[0] if len(mentions) == 1 else None
