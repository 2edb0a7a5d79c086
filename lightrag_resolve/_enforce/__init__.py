"""Every invariant of what may reach retrieval, enforced in code on whatever a model returned.

Pure functions, the target of the property tests; they run after any ``Resolver`` override of prompting or parsing, so
an override cannot bypass them. ``answers``: what a model's text may become. ``keywords``: both lists or neither,
capped, grounded, LightRAG's own reused. ``names``: only names the conversation established. ``meanings``: what a
resolved turn may add to the visitor's words (a short reply's meaning, a restatement, a standalone question). The
``Resolution`` constructor holds one more: keywords both or neither.
"""

from __future__ import annotations

from .answers import (
    append_context,
    append_meaning,
    enforce_text_query,
    is_none_answer,
    is_prompt_format,
    is_scaffold,
)
from .keywords import (
    LightRAGKeywords,
    check_keywords,
    clean_keywords,
    enforce_keywords,
    focus_on_pick,
    ground_keywords,
    keywords_with_name,
    reuse_keywords,
)
from .meanings import (
    adds_nothing,
    needs_restatement,
    resolved_meaning,
    restated,
    restated_name,
    standalone_question,
)
from .names import (
    NameOutcome,
    accept_reference_name,
    cut_gloss,
    name_with_message,
    unestablished_names,
)

__all__ = [
    "LightRAGKeywords",
    "check_keywords",
    "NameOutcome",
    "accept_reference_name",
    "append_context",
    "append_meaning",
    "clean_keywords",
    "cut_gloss",
    "enforce_keywords",
    "enforce_text_query",
    "focus_on_pick",
    "ground_keywords",
    "is_none_answer",
    "is_prompt_format",
    "is_scaffold",
    "keywords_with_name",
    "name_with_message",
    "needs_restatement",
    "resolved_meaning",
    "restated",
    "adds_nothing",
    "restated_name",
    "reuse_keywords",
    "standalone_question",
    "unestablished_names",
]
