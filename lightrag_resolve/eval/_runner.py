"""Running an evaluation: every item in every arm, ``runs`` times, judged and recorded.

Items are taken one at a time, all arms of an item back to back within a
run, so the arms are paired per item and a turn's LLM work is charged to the
arm that caused it. The models come in as parameters (an LLM function, an
``EmbeddingFunc``, a tokenizer), so a local model, an OpenAI-compatible
endpoint or a test fake plug in alike.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from lightrag import QueryParam
from lightrag.utils import EmbeddingFunc, Tokenizer

from lightrag_resolve import LLMFunc, Resolution, ResolverConfig, ResolverTuning

from ._alternatives import Experiment
from ._answers import AnswerOutcome, AnswerSettings, write_answer
from ._arms import ARM_NAMES, Arm, SearchPlan, build_arms
from ._chart import render_chart
from ._dataset import Dataset
from ._items import Item
from ._judges import GoldJudge, Judge, Judgement, LLMJudge
from ._markdown import render_markdown
from ._metering import MeteredLLM, Usage
from ._replay import ReplayLLM
from ._results import Record, ResultsStore
from ._session import KnowledgeSession
from ._stats import DEFAULT_RESAMPLES
from ._summary import Summary, summarize

__all__ = ["EvalConfig", "EvalOutcome", "resolver_overrides", "run_eval", "select_items"]



@dataclass(frozen=True, kw_only=True)
class EvalConfig:
    """What to measure and how. ``top_k``/``chunk_top_k`` of ``None`` keep LightRAG's defaults.

    ``resolver`` is the template of the ``resolve`` arm's ``ResolverConfig``
    (timeouts, limits, models); each company's instance gets a copy with its
    ``company_name`` (the template's own is the default for items without
    one). ``None`` uses the library's defaults, whose timeouts (10 s, 2 s for
    the reference check) suit a hosted model, not a small model on a CPU.
    ``tuning`` replaces the resolver's measured constants and alternatives
    (``ResolverTuning``), to measure one of them. ``replay`` answers each distinct model call once (``_replay``): right for
    a model that decodes deterministically, where run 2 then repeats run 1;
    turn it off to sample a model that does not. ``answers`` turns the answer
    step on (``_answers``): each arm's turn of an item with ``must_contain`` is
    also answered by LightRAG under that budget, and the answer judged.
    """

    arms: tuple[str, ...] = ARM_NAMES
    runs: int = 2
    judge: str = "gold"
    k: int = 5
    top_k: int | None = None
    chunk_top_k: int | None = None
    limit: int | None = None
    seed: int = 0
    confidence: float = 0.95
    resamples: int = DEFAULT_RESAMPLES
    resolver: ResolverConfig | None = None
    tuning: ResolverTuning | None = None
    replay: bool = True
    answers: AnswerSettings | None = None

    def __post_init__(self) -> None:
        if self.resolver is not None and not isinstance(self.resolver, ResolverConfig):
            raise TypeError(f"resolver must be a ResolverConfig or None, got {type(self.resolver).__name__}")
        if self.tuning is not None and not isinstance(self.tuning, ResolverTuning):
            raise TypeError(f"tuning must be a ResolverTuning or None, got {type(self.tuning).__name__}")
        if self.answers is not None and not isinstance(self.answers, AnswerSettings):
            raise TypeError(f"answers must be AnswerSettings or None, got {type(self.answers).__name__}")
        if isinstance(self.runs, bool) or not isinstance(self.runs, int) or self.runs < 1:
            raise ValueError(f"runs must be a positive int, got {self.runs!r}")
        if self.judge not in {"gold", "llm"}:
            raise ValueError(f"judge must be 'gold' or 'llm', got {self.judge!r}")
        if self.k < 1:
            raise ValueError(f"k must be positive, got {self.k!r}")
        if self.limit is not None and self.limit < 1:
            raise ValueError(f"limit must be positive, got {self.limit!r}")
        build_arms(self.arms)  # rejects unknown names early


@dataclass(frozen=True, kw_only=True)
class EvalOutcome:
    """Where the report went and what it says."""

    summary: Summary
    """Per arm and turn class: hit rate, paired wins and losses against ``raw``, intervals."""
    records: tuple[Record, ...]
    report_path: Path
    """``report.md``, the tables; ``results_path`` holds every record, ``chart_path`` the chart."""
    missing: int = 0
    """Turns not run (only with ``report_only``): the report is partial."""
    results_path: Path
    chart_path: Path
    ran: int
    """Turns run now; ``skipped``: turns whose records were already there."""
    skipped: int


def resolver_settings(resolver: ResolverConfig | None, tuning: ResolverTuning | None = None) -> dict[str, Any]:
    """The resolver's measurable knobs (timeouts, limits, enabled, the tuning) as the results header records them.

    Callables and per-company fields are left out; ``None`` gives the library's defaults.
    """
    config = resolver if resolver is not None else ResolverConfig()
    settings = {
        spec.name: getattr(config, spec.name)
        for spec in fields(config)
        if spec.name != "company_name" and isinstance(getattr(config, spec.name), (bool, int, float))
        and spec.name not in {"capture_content"}
    }
    tuned = tuning if tuning is not None else Experiment()
    defaults = Experiment()  # a plain ResolverTuning records the alternatives' defaults
    return {**settings, **{spec.name: getattr(tuned, spec.name, getattr(defaults, spec.name)) for spec in fields(Experiment)}}


def split_settings(settings: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Knobs (``resolver_overrides``' result) split into ``ResolverConfig`` and ``Experiment`` arguments."""
    tuning_names = {spec.name for spec in fields(Experiment)}
    config = {name: value for name, value in settings.items() if name not in tuning_names}
    return config, {name: value for name, value in settings.items() if name in tuning_names}


def resolver_overrides(pairs: Sequence[str]) -> dict[str, Any]:
    """``NAME=VALUE`` pairs as resolver knobs (``ResolverConfig`` or ``ResolverTuning``), each read as its type.

    What ``eval_report.py --resolver-setting`` takes. Only the knobs the
    results header records (``resolver_settings``) can be set here.
    ``split_settings`` sorts them into the two objects, which still check the values (a window of 0 messages
    is refused there, not here).
    """
    knobs = {name: type(value) for name, value in resolver_settings(None).items()}
    overrides: dict[str, Any] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        name, text = name.strip(), text.strip()
        if not sep or name not in knobs:
            raise ValueError(f"a resolver setting takes NAME=VALUE with NAME one of {', '.join(sorted(knobs))}, "
                             f"got {pair!r}")
        kind = knobs[name]
        try:
            if kind is bool:
                if text.lower() not in {"true", "false"}:
                    raise ValueError(text)
                overrides[name] = text.lower() == "true"
            else:
                overrides[name] = kind(text)
        except ValueError:
            raise ValueError(f"the resolver setting {name} takes a {kind.__name__}, got {text!r}") from None
    return overrides


def select_items(items: Sequence[Item], limit: int | None, seed: int) -> tuple[Item, ...]:
    """At most ``limit`` items: a seeded sample kept in file order, so a subset mixes the file's parts."""
    if limit is None or limit >= len(items):
        return tuple(items)
    chosen = set(random.Random(seed).sample(range(len(items)), limit))
    return tuple(item for index, item in enumerate(items) if index in chosen)


def _without_resolver(config: EvalConfig) -> EvalConfig:
    # asdict would deep-copy the template's callables; the header records its knobs under settings instead.
    return config if config.resolver is None else replace(config, resolver=None)


@dataclass
class _Context:
    dataset: Dataset
    config: EvalConfig
    session: KnowledgeSession
    llm: MeteredLLM
    judge: Judge
    settings: dict[str, Any] = field(default_factory=dict)


def _param(context: _Context, item: Item) -> QueryParam:
    overrides: dict[str, Any] = {}
    if context.config.top_k is not None:
        overrides["top_k"] = context.config.top_k
    if context.config.chunk_top_k is not None:
        overrides["chunk_top_k"] = context.config.chunk_top_k
    # No rerank function is configured: LightRAG would only warn on every query.
    return QueryParam(
        mode=context.dataset.mode_of(item), conversation_history=item.history_list(), enable_rerank=False, **overrides
    )


def _decision_correct(item: Item, arm: str, resolution: dict[str, Any] | None) -> bool | None:
    if arm != "resolve" or item.expect_decision is None:
        return None
    decision = (resolution or {}).get("decision")
    if decision != item.expect_decision:
        return False
    if decision != "resolve":
        return True
    entity = (resolution or {}).get("entity") or ""
    return entity.casefold().strip() == (item.expect_entity or "").casefold().strip()


async def _run_one(context: _Context, item: Item, arm: Arm, run: int) -> Record:
    rag = await context.session.rag_for(item.company_name)  # opening an instance is not the turn's latency
    usage = Usage()
    started = time.perf_counter()
    error: str | None = None
    result: dict[str, Any] = {}
    resolved: Resolution | None = None
    with context.llm.charging(usage):
        plan = await arm.plan(item, context.llm)
        try:
            retrieved = await rag.aretrieve(plan.text, _param(context, item), resolve=plan.resolve)
        except Exception as exc:  # LightRAG refusing a query ("B1" is too short) is a miss, recorded
            error = f"{type(exc).__name__}: {exc}"
        else:
            result = retrieved.result
            resolved = retrieved.resolution if plan.resolve else None
    latency_ms = (time.perf_counter() - started) * 1000
    resolution = resolved.to_dict() if resolved is not None else None
    data = result.get("data") if isinstance(result.get("data"), dict) else {}
    judgement: Judgement = await context.judge.judge(item, data or {})
    answer = await _answer(context, rag, item, plan, resolved)
    return Record(
        item=item.id,
        arm=arm.name,
        run=run,
        turn_class=item.turn_class,
        mode=context.dataset.mode_of(item),
        lang=item.lang,
        text=plan.text,
        outcome=plan.outcome,
        hit=judgement.hit,
        gold_hit=judgement.gold_hit,
        retrieved=list(judgement.retrieved[:10]),
        recall=judgement.recall,
        ndcg=judgement.ndcg,
        verdict=judgement.verdict,
        raw_output=plan.raw_output,
        resolution=resolution,
        decision_correct=_decision_correct(item, arm.name, resolution),
        llm_calls=usage.calls,
        prompt_tokens=usage.prompt_tokens,
        llm_ms=round(usage.llm_ms, 1),
        latency_ms=round(latency_ms, 1),
        error=error,
        contains=judgement.contains,
        **answer,
    )


async def _answer(
    context: _Context, rag: Any, item: Item, plan: SearchPlan, resolution: Resolution | None
) -> dict[str, Any]:
    """The answer step's fields of the record; none where answers are off or the item is not answered.

    Charged to a ``Usage`` of its own, so the retrieval's calls, tokens and latency stay comparable with a
    run without answers.
    """
    settings = context.config.answers
    if settings is None or not settings.applies_to(item):
        return {}
    usage = Usage()
    started = time.perf_counter()
    with context.llm.charging(usage):
        outcome: AnswerOutcome = await write_answer(
            rag, item, text=plan.text, param=settings.param(_param(context, item)), resolve=plan.resolve,
            resolution=resolution,
        )
    return {
        "answer": outcome.text,
        "answer_hit": outcome.hit,
        "answer_contains": outcome.contains,
        "answer_error": outcome.error,
        "answer_calls": usage.calls,
        "answer_prompt_tokens": usage.prompt_tokens,
        "answer_ms": round((time.perf_counter() - started) * 1000, 1),
    }


def _done(store: ResultsStore, item: Item, arm: str, run: int, answers: AnswerSettings | None) -> bool:
    """Whether the turn is recorded; with answers on, a turn to answer needs its answer too (it is run again)."""
    record = store.records.get((item.id, arm, run))
    if record is None:
        return False
    return answers is None or not answers.applies_to(item) or record.answered


def _progress(total: int, enabled: bool, description: str) -> Any:
    if not enabled or total == 0:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=description, unit="turn")


async def run_eval(
    dataset: Dataset,
    *,
    llm: LLMFunc,
    embedding: EmbeddingFunc,
    tokenizer: Tokenizer,
    out_dir: str | Path,
    config: EvalConfig = EvalConfig(),
    llm_name: str | None = None,
    judge_llm: LLMFunc | None = None,
    judge_model: str | None = None,
    fresh: bool = False,
    progress: bool = True,
    workspace: str | None = None,
    lightrag_kwargs: dict[str, Any] | None = None,
    report_only: bool = False,
) -> EvalOutcome:
    """Evaluate ``dataset`` and write ``report.md``, ``results.json`` and ``chart.png`` to ``out_dir``.

    Records already in ``results.json`` (same dataset, judge, settings and
    models) are kept and not run again. ``judge_llm`` is required for
    ``config.judge == "llm"``. ``report_only`` runs nothing: the report is
    written from the records already there, and says how many turns are missing.
    """
    out = Path(out_dir)
    items = select_items(dataset.items, config.limit, config.seed)
    arms = build_arms(config.arms)
    out.mkdir(parents=True, exist_ok=True)
    answering = ReplayLLM(llm, path=out / "llm-replay.jsonl") if config.replay else llm
    metered = MeteredLLM(answering, tokenizer)
    metered.model_name = llm_name or metered.model_name
    gold = GoldJudge(documents_by_content=dataset.kb.documents_by_content(), document_ids=dataset.kb.document_ids, k=config.k)
    judge: Judge = gold
    if config.judge == "llm":
        if judge_llm is None:
            raise ValueError("the llm judge needs judge_llm")
        judge = LLMJudge(llm=judge_llm, gold_judge=gold)
    settings = {"default_mode": dataset.default_mode, "k": config.k, "top_k": config.top_k,
                "chunk_top_k": config.chunk_top_k, "resolver": resolver_settings(config.resolver, config.tuning)}
    config_record = {name: value for name, value in asdict(_without_resolver(config)).items()
                     if name not in {"resolver", "tuning"}}
    answers = config.answers
    header = {
        "dataset_name": dataset.name,
        "dataset_fingerprint": dataset.fingerprint,
        "items": len(items),
        "kb_kind": dataset.kb.kind,
        "judge": config.judge,
        "judge_model": judge_model if config.judge == "llm" else None,
        "llm_model": metered.model_name,
        "embedding_model": getattr(embedding, "model_name", None),
        "settings": settings,
        "answers": answers.header() if answers is not None else None,
        "config": {**config_record, "arms": [arm.name for arm in arms]},
    }
    store = ResultsStore.open(out / "results.json", header, fresh=fresh, resolver_defaults=resolver_settings(None))
    todo = [(run, item, arm) for run in range(config.runs) for item in items for arm in arms
            if arm.applies_to(item) and not _done(store, item, arm.name, run, answers)]
    skipped = sum(1 for run in range(config.runs) for item in items for arm in arms
                  if arm.applies_to(item)) - len(todo)
    missing = len(todo) if report_only else 0
    if report_only:
        todo = []
    if todo:
        kwargs = dict(lightrag_kwargs or {})
        if answers is not None:
            kwargs.setdefault("role_llm_configs", answers.role_llm_configs())
        session = KnowledgeSession(dataset.kb, working_dir=out / "lightrag", llm=metered, embedding=embedding,
                                   tokenizer=tokenizer, workspace=workspace, lightrag_kwargs=kwargs,
                                   resolver=config.resolver, tuning=config.tuning)
        context = _Context(dataset=dataset, config=config, session=session, llm=metered, judge=judge)
        bar = _progress(len(todo), progress, dataset.name)
        try:
            await session.open()
            for run, item, arm in todo:
                store.add(await _run_one(context, item, arm, run))
                if bar is not None:
                    bar.update(1)
        finally:
            store.save()
            if bar is not None:
                bar.close()
            await session.close()
    store.save()
    records = tuple(store.records.values())
    summary = summarize(records, items, [arm.name for arm in arms], runs=config.runs,
                        confidence=config.confidence, resamples=config.resamples, seed=config.seed, k=config.k)
    report_path = out / "report.md"
    report_path.write_text(render_markdown(summary, store.header, missing=missing), encoding="utf-8")
    chart_path = render_chart(summary, out / "chart.png", title=f"{dataset.name}: hit rate per arm and turn class")
    return EvalOutcome(summary=summary, records=records, report_path=report_path, results_path=out / "results.json",
                       chart_path=chart_path, ran=len(todo), skipped=skipped, missing=missing)
