"""What the latency benchmark's design promises, checked on the counts of a run (``latency.py``).

The LLM calls each system should start per mode, API and turn class; what
each resolution should look like; whether the ``naive`` gate held the
answer behind a slow check; and where each system's time over plain
LightRAG goes (model, retrieval, the rest). A failed check fails the
simulated run; the time split is an observation.
"""

from __future__ import annotations

import statistics
from collections import Counter

from latency_measure import GATED, Key, Results, Sample
from latency_systems import (
    APIS,
    TURN_CLASSES,
    Call,
    Delays,
    TurnClass,
)

from lightrag_resolve import Resolution

CHECKED = ("KEEP", "AMBIGUOUS", "RESOLVE")
"""The classes that meet the reference check: a longer follow-up with a word that points back."""

_GRAPH_CALLS = {
    "plain": {t.name: {"lightrag_keywords": 1} for t in TURN_CLASSES},
    "library": {
        "first turn": {"lightrag_keywords": 1},
        "short reply": {"keywords": 1},  # the resolver's call replaces LightRAG's
        # every follow-up is checked (issue 40): the check's one answer holds LightRAG's keywords, and
        # LightRAG's extraction does not run
        **{name: {"reference": 1} for name in ("stands alone", *CHECKED)},
    },
    "serial": {
        t.name: ({"rewrite": 1, "lightrag_keywords": 1} if t.history else {"lightrag_keywords": 1})
        for t in TURN_CLASSES
    },
}

_NAIVE_CALLS = {
    "plain": {t.name: {} for t in TURN_CLASSES},  # LightRAG's naive search asks no model
    "library": {
        "first turn": {},
        "short reply": {"text": 1},
        "stands alone": {},
        **{name: {"reference": 1} for name in CHECKED},  # the check, beside the speculative search
    },
    "serial": {t.name: ({"rewrite": 1} if t.history else {}) for t in TURN_CLASSES},
}


def expected_calls(mode: str, system: str, turn: str, api: str) -> Counter[str]:
    """The LLM calls, by role, that one turn should start."""
    designed = (_NAIVE_CALLS if mode == "naive" else _GRAPH_CALLS)[system][turn]
    return Counter(designed) + Counter({"answer": 1 if api == "aquery" else 0})


_DECISIONS = {
    "first turn": ("first_turn", None),
    "short reply": ("keywords", None),  # "text" in naive
    "stands alone": ("reference", "keep"),
    "KEEP": ("reference", "keep"),
    "AMBIGUOUS": ("reference", "ambiguous"),
    "RESOLVE": ("reference", "resolve"),
}


def _as_designed(turn: str, mode: str, r: Resolution) -> bool:
    """What the check's one answer should have made of the turn, beyond its path and decision."""
    graph = mode != "naive"
    if turn == "short reply":
        return r.has_keywords == graph
    if turn == "stands alone":  # naive: no check; graph modes: kept, with keywords of its own words (issue 40)
        if graph:
            return r.decision == "keep" and r.ll_keywords == ("offices", "Helix", "France")
        return r.fallback_reason == "stands_alone" and not r.has_keywords
    if turn == "KEEP":  # graph modes: the keywords built from its words replace LightRAG's, no longer a fallback
        if graph:
            return r.fallback_reason is None and r.ll_keywords[:2] == ("offices", "Helix") and bool(r.hl_keywords)
        return r.fallback_reason == "keep" and not r.has_keywords
    if turn == "AMBIGUOUS":  # restated from the answer's "query"; graph modes: its keywords, led by the names
        restated = r.restatement is not None and r.query != r.original_query
        return restated and (r.ll_keywords[:1] == ("Pulse POS",) if graph else not r.has_keywords)
    if turn == "RESOLVE":
        named = r.entity == "Pulse POS" and r.query.startswith("Pulse POS — ")
        return named and (r.ll_keywords[:1] == ("Pulse POS",) if graph else not r.has_keywords)
    return True


def _resolutions(results: Results, mode: str, turn: str) -> list[Resolution | None]:
    return [s.resolution for api in results.settings.apis for s in results.samples[(mode, api, turn, "library")]]


def _call(sample: Sample, role: str) -> Call | None:
    return next((c for c in sample.log if c.role == role), None)


def checks(results: Results) -> list[tuple[bool, str]]:
    """Count-based checks of the design; each is (passed, what was checked and seen)."""
    out: list[tuple[bool, str]] = []

    def add(ok: bool, text: str) -> None:
        out.append((ok, text))

    for (mode, api, turn, system), samples in results.samples.items():
        want = expected_calls(mode, system, turn, api)
        if any(+s.calls != want for s in samples):
            seen = [dict(+s.calls) for s in samples]
            add(False, f"{mode} · {system} · {turn} · {api}: LLM calls by role {seen}, designed {dict(+want)}")
    add(not out, "every turn started exactly the designed LLM calls, by role")

    for mode in results.settings.modes:
        for turn in CHECKED:
            answers = [s.calls["answer"] for s in results.samples[(mode, "aquery", turn, "library")]]
            add(all(n == 1 for n in answers), f"{mode} · {turn} · aquery · library: answer calls per turn {answers}")
        keep = [s.retrievals for api in results.settings.apis for s in results.samples[(mode, api, "KEEP", "library")]]
        add(all(c == 1 for c in keep), f"{mode} · KEEP · library: retrievals per turn {keep} (exactly one)")
        for turn, (path, decision) in _DECISIONS.items():
            if mode == "naive" and turn == "short reply":
                path = "text"
            got = _resolutions(results, mode, turn)
            ok = all(
                r is not None and r.path == path and r.decision == decision and _as_designed(turn, mode, r) for r in got
            )
            seen = sorted(
                {(r.path, r.decision, r.entity, r.fallback_reason, r.ll_keywords[:2]) for r in got if r}, key=str
            )
            add(ok, f"{mode} · {turn} · library: path={path}, decision={decision}, as designed (seen {seen})")

    slow = results.gate_reference_ms
    for name, sample in results.gate.items():
        if sample is None:
            add(True, f"naive · {name}: gate check skipped: a {slow:.0f} ms check would hit its 2 s timeout")
            continue
        answers, retrievals, designed = sample.calls["answer"], sample.retrievals, GATED[name]
        check, answer = _call(sample, "reference"), _call(sample, "answer")
        ended = check.ended_at if check is not None and check.ended_at is not None else None
        reached = ended is not None and bool(sample.queries) and sample.queries[0] < ended
        waited = ended is not None and answer is not None and answer.started_at >= ended
        add(
            answers == 1 and retrievals == designed and reached and waited,
            f"naive · {name} · aquery · library, check slowed to {slow:.0f} ms so the speculative branch reaches "
            f"its answer call first: answer calls {answers}, retrievals {retrievals} (designed 1 and {designed}); "
            f"speculative search before the check's answer: {reached}; answer written after it: {waited}; "
            f"{sample.ms:.0f} ms",
        )
    return out


def median_ms(results: Results, key: Key) -> float:
    return statistics.median(s.ms for s in results.samples[key])


def median_retrieval_ms(results: Results, key: Key) -> float:
    return statistics.median(s.retrieval_ms for s in results.samples[key])


def model_time_over_plain(mode: str, system: str, turn: TurnClass, delays: Delays) -> tuple[float, str]:
    """The simulated model time the design adds to plain LightRAG's critical path, and why."""
    if system == "serial":
        return (delays.resolver_ms, "one rewrite before retrieval") if turn.history else (0.0, "no rewrite")
    if mode == "naive":  # plain LightRAG asks no model before its search
        return {
            "first turn": (0.0, "nothing runs"),
            "short reply": (delays.resolver_ms, "the resolver's text call before the search"),
            "stands alone": (0.0, "no check: no word points back"),
            "KEEP": (delays.reference_ms, "the check, the speculative search under it; the answer waits for it"),
            "AMBIGUOUS": (delays.reference_ms, "the check, then the search on the restated text"),
            "RESOLVE": (delays.reference_ms, "the check, then the search on the resolved text"),
        }[turn.name]
    replaces = "the check's one call replaces LightRAG's extraction"
    return {
        "first turn": (0.0, "nothing runs"),
        "short reply": (delays.resolver_ms - delays.keyword_ms, "the resolver call replaces LightRAG's keyword call"),
        "stands alone": (delays.reference_ms - delays.keyword_ms, replaces),
        "KEEP": (delays.reference_ms - delays.keyword_ms, replaces),
        "AMBIGUOUS": (delays.reference_ms - delays.keyword_ms, replaces),
        "RESOLVE": (delays.reference_ms - delays.keyword_ms, replaces),
    }[turn.name]


def shape(results: Results, tolerance_ms: float = 25) -> list[tuple[bool | None, str]]:
    """Each system's time over plain LightRAG, split into model time, retrieval time and the rest.

    The rest is what orchestration costs; the design predicts it near zero.
    ``tolerance_ms`` is about the run-to-run spread of one turn (event-loop
    scheduling), so "near zero" means "nothing the spread cannot explain".
    Retrieval time is what is left on the critical path (``Sample``): in
    ``naive`` a speculative search that ran under the check shows as less.
    """
    out: list[tuple[bool | None, str]] = []
    for mode in results.settings.modes:
        for api in APIS:
            for turn in TURN_CLASSES:
                plain_key = (mode, api, turn.name, "plain")
                for system in ("library", "serial"):
                    key = (mode, api, turn.name, system)
                    delta = median_ms(results, key) - median_ms(results, plain_key)
                    model, why = model_time_over_plain(mode, system, turn, results.settings.delays)
                    retrieval = median_retrieval_ms(results, key) - median_retrieval_ms(results, plain_key)
                    rest = delta - model - retrieval
                    out.append(
                        (
                            abs(rest) <= tolerance_ms,
                            f"{mode} · {api} · {turn.name} · {system}: {delta:+.0f} ms over plain = model {model:+.0f} "
                            f"({why}) + retrieval {retrieval:+.0f} + rest {rest:+.0f} "
                            f"(predicted |rest| ≤ {tolerance_ms:.0f})",
                        )
                    )
    for mode in results.settings.modes:
        checked = [s for api in APIS for turn in CHECKED for s in results.samples[(mode, api, turn, "library")]]
        extractions = sum(s.calls["lightrag_keywords"] for s in checked)
        cancelled = sum(s.cancelled.total() for s in checked)
        out.append(
            (
                None,
                f"{mode} · KEEP, AMBIGUOUS, RESOLVE · library: {extractions} LightRAG keyword extraction(s) and "
                f"{cancelled} cancelled model call(s) in {len(checked)} checked turns",
            )
        )
    return out
