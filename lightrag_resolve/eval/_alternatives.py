"""The alternatives that measured as no gain, as the ``Resolver`` and ``Retrieval`` policies the harness builds.

The core routes and settles a turn with the rules and shortcuts a
``Resolver`` holds (``Resolver.route_rules``, ``Resolver.shortcuts``, by name); the
alternatives measured against them live here, so the core has no branch for
them. ``Experiment`` is a ``ResolverTuning`` with their switches, which
``--resolver-setting NAME=true`` reaches like any knob,
``experiment_resolver`` the ``Resolver`` they describe and
``experiment_retrieval`` the ``Retrieval`` (``ResolvingLightRAG.retrieval``):

- ``resolve_unprompted_replies``: a ``naive`` short reply that answers no question is resolved by the model
  (contract §5.7; a loss on the sample, issue 26);
- ``check_every_follow_up``: a ``naive`` follow-up without a pointing word is checked too (§5.8);
- ``check_sole_candidate``: a ``naive`` follow-up whose window names one candidate asks the model (§5.3);
- ``rewrite_picked_replies``: a ``naive`` reply that picks an option asks the model (§5.1);
- ``reference_in_naive`` (off): ``naive`` follow-ups are searched as written, without the check;
- ``fuse_raw_search`` (§5.5): a resolved reference's chunk search is fused with the search on the visitor's
  words, reusing the speculative search's chunks (no gain on the sample);
- ``answer_on_resolved_text`` (§5.11): the answer model reads the retrieved text instead of the visitor's
  words (as often right by the fact judge on the sample, more often on the multilingual set, mostly by
  copying the conversation back; worse read blind on both, 9 pairs to 16).

``fuse_standalone_question`` is no alternative of the lab but the open-domain
profile a user chooses (``OpenDomainResolver``, §5.10); the switch builds it,
so its runs are measured by the same name as before.

``restate_references`` is recorded for the results headers of earlier runs;
the restatement (§5.9) is the core's behaviour, and turning it off is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lightrag_resolve import (
    OpenDomainResolver,
    Resolution,
    Resolver,
    ResolverConfig,
    ResolverTuning,
    Retrieval,
    Turn,
)

__all__ = ["Experiment", "ExperimentRetrieval", "experiment_resolver", "experiment_retrieval"]


@dataclass(frozen=True, kw_only=True)
class Experiment(ResolverTuning):
    """``ResolverTuning`` with the harness's routing alternatives; the defaults are the core's behaviour."""

    reference_in_naive: bool = True
    restate_references: bool = True
    resolve_unprompted_replies: bool = False
    check_every_follow_up: bool = False
    check_sole_candidate: bool = False
    rewrite_picked_replies: bool = False
    fuse_raw_search: bool = False
    answer_on_resolved_text: bool = False
    fuse_standalone_question: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.restate_references:
            raise ValueError("restate_references=false is retired: the restatement is the core's behaviour (§5.9)")


def naive_without_check(facts: Any) -> Any:
    """``reference_in_naive`` off: a ``naive`` follow-up is searched as written, no check spent."""
    if facts.graph:
        return None
    turn = facts.turn
    return Resolution(
        query=turn.query, original_query=turn.query, mode=turn.mode, path="text", fallback_reason="gate_declined"
    )


def _without(steps: tuple[Any, ...], *names: str) -> tuple[Any, ...]:
    """``steps`` (a resolver's rules or shortcuts) less those named."""
    return tuple(step for step in steps if step.__name__ not in names)


def experiment_resolver(config: ResolverConfig | None, tuning: ResolverTuning | None) -> Resolver:
    """The ``Resolver`` of ``config`` and ``tuning``, with the routing ``tuning`` describes when it is an ``Experiment``."""
    if not isinstance(tuning, Experiment):
        return Resolver(config, tuning=tuning)
    resolver = (OpenDomainResolver if tuning.fuse_standalone_question else Resolver)(config, tuning=tuning)
    rules = list(_without(resolver.route_rules, *(["stands_alone"] if tuning.check_every_follow_up else [])))
    if not tuning.reference_in_naive:  # before stands_alone, as contract §3 applied it
        names = [rule.__name__ for rule in rules]
        rules.insert(names.index("stands_alone") if "stands_alone" in names else len(rules) - 1, naive_without_check)
    dropped = [
        name
        for name, on in (
            ("unprompted_reply", tuning.resolve_unprompted_replies),
            ("picked_option", tuning.rewrite_picked_replies),
            ("sole_candidate", tuning.check_sole_candidate),
        )
        if on
    ]
    resolver.route_rules = tuple(rules)
    resolver.shortcuts = _without(resolver.shortcuts, *dropped)
    return resolver


@dataclass(frozen=True, kw_only=True)
class ExperimentRetrieval(Retrieval):
    """``Retrieval`` with the harness's retrieval alternatives; both off, it retrieves as the core does."""

    fuse_raw_search: bool = False
    answer_on_resolved_text: bool = False

    def fused_with(self, resolution: Resolution) -> str | None:
        """The standalone question, else (``fuse_raw_search``) the visitor's words."""
        fused = super().fused_with(resolution)
        return fused or (resolution.original_query if self.fuse_raw_search else None)

    def records_speculative_search(self, turn: Turn) -> bool:
        """``fuse_raw_search``: the speculative search's chunks are fused instead of searched again."""
        return self.fuse_raw_search

    def answer_text(self, resolution: Resolution) -> str:
        """``answer_on_resolved_text``: the retrieved text, as before §5.11."""
        return resolution.query if self.answer_on_resolved_text else super().answer_text(resolution)


def experiment_retrieval(tuning: ResolverTuning | None) -> Retrieval:
    """The ``Retrieval`` ``tuning`` describes: the core's default unless an ``Experiment`` turns an alternative on."""
    if not isinstance(tuning, Experiment) or not (tuning.fuse_raw_search or tuning.answer_on_resolved_text):
        return Retrieval()
    return ExperimentRetrieval(
        fuse_raw_search=tuning.fuse_raw_search, answer_on_resolved_text=tuning.answer_on_resolved_text
    )
