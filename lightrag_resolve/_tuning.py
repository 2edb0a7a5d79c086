"""The resolver's measured design constants; ``ResolverConfig`` holds what a user chooses (models, timeouts, caps).

``--resolver-setting NAME=VALUE`` reaches these fields as the configuration's, ``Resolver(config, tuning=...)`` takes
one, and docs/findings.md says what each measured. The open-domain profile is a policy object of its own
(``OpenDomainResolver``), not a switch here.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

__all__ = ["ResolverTuning"]


@dataclass(frozen=True, kw_only=True)
class ResolverTuning:
    """Measured constants of the resolver; the defaults are what measured best.

    ``history_message_words``: words kept per earlier message. ``reply_context_words``: how many last words of the
    assistant's question (and of the visitor's message before it) a short reply carries into its retrieval text (0
    turns the context off, contract §5.6). ``max_name_words``: the longest name the reference check may add. The
    alternatives that measured as a loss or no gain (the routing's, the no-call shortcuts', retrieval's
    ``fuse_raw_search``, §5.5, and ``answer_on_resolved_text``, §5.11) are the evaluation harness's
    (``lightrag_resolve.eval.Experiment``).
    """

    history_message_words: int = 150
    reply_context_words: int = 40
    max_name_words: int = 6

    def __post_init__(self) -> None:
        for spec in fields(self):
            value = getattr(self, spec.name)
            if spec.type == "bool":
                if not isinstance(value, bool):
                    raise TypeError(f"ResolverTuning.{spec.name} must be a bool, got {value!r}")
            elif isinstance(value, bool) or not isinstance(value, int) or value < _LEAST[spec.name]:
                raise ValueError(f"ResolverTuning.{spec.name} must be an int >= {_LEAST[spec.name]}, got {value!r}")


_LEAST = {"history_message_words": 1, "reply_context_words": 0, "max_name_words": 1}
