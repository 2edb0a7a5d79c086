"""Retrieval evaluation of conversation-aware arms over LightRAG (contract §10).

Installed with the ``eval`` extra (``pip install 'lightrag-resolve[eval]'``).
``load_dataset`` reads items and a knowledge base, ``run_eval`` runs every
arm (``raw``, ``resolve``, ``prose``, ``anythingllm``, ``oracle``) on every
item ``runs`` times and writes a Markdown report, a per-item JSON file and a
PNG chart. The harness uses only the public API of ``lightrag_resolve``.
"""

from importlib.util import find_spec

_MISSING = [name for name in ("matplotlib", "tqdm") if find_spec(name) is None]
if _MISSING:
    raise ImportError(
        f"lightrag_resolve.eval needs {', '.join(_MISSING)}: install the extra with "
        "pip install 'lightrag-resolve[eval]'"
    )

from ._alternatives import Experiment, ExperimentRetrieval, experiment_resolver, experiment_retrieval
from ._answers import AnswerOutcome, AnswerSettings, write_answer
from ._anythingllm import AnythingLLMRewriter, Rewrite, clean_reply, context_text, should_rewrite, validate_rewrite
from ._arms import ARM_NAMES, AnythingLLMArm, Arm, OracleArm, ProseArm, RawArm, ResolveArm, SearchPlan, build_arms
from ._chart import render_chart
from ._dataset import Dataset, KnowledgeBase, load_dataset, load_items, load_kb, load_passages
from ._errors import DatasetError, EvalError, ResultsMismatchError
from ._first_k import FirstKRow, relevant_lost_and_gained
from ._items import TURN_CLASSES, Item, derive_turn_class
from ._judges import (
    GoldJudge,
    Judge,
    Judgement,
    LLMJudge,
    contains_all,
    ndcg_at,
    parse_verdict,
    recall_at,
    sufficiency_prompt,
)
from ._markdown import render_markdown
from ._metering import MeteredLLM, Usage
from ._models import Models, ModelUnavailableError, load_local_models, local_models_installed, openai_compatible_llm
from ._prose import Condensed, CondenseRewriter, clean_condensed
from ._results import RESULTS_FORMAT, Record, ResultsStore
from ._runner import EvalConfig, EvalOutcome, resolver_overrides, run_eval, select_items, split_settings
from ._stats import PairedComparison, bootstrap_interval, compare_paired
from ._summary import AnswerRow, ArmRow, DecisionRow, Summary, summarize

__all__ = [
    "ARM_NAMES",
    "AnswerOutcome",
    "AnswerRow",
    "AnswerSettings",
    "AnythingLLMArm",
    "AnythingLLMRewriter",
    "Arm",
    "ArmRow",
    "CondenseRewriter",
    "Condensed",
    "Dataset",
    "DatasetError",
    "DecisionRow",
    "EvalConfig",
    "EvalError",
    "EvalOutcome",
    "Experiment",
    "ExperimentRetrieval",
    "FirstKRow",
    "GoldJudge",
    "Item",
    "Judge",
    "Judgement",
    "KnowledgeBase",
    "LLMJudge",
    "MeteredLLM",
    "ModelUnavailableError",
    "Models",
    "OracleArm",
    "PairedComparison",
    "ProseArm",
    "RESULTS_FORMAT",
    "RawArm",
    "Record",
    "ResolveArm",
    "ResultsMismatchError",
    "ResultsStore",
    "Rewrite",
    "SearchPlan",
    "Summary",
    "TURN_CLASSES",
    "Usage",
    "bootstrap_interval",
    "build_arms",
    "clean_condensed",
    "clean_reply",
    "compare_paired",
    "contains_all",
    "context_text",
    "derive_turn_class",
    "experiment_resolver",
    "experiment_retrieval",
    "load_dataset",
    "load_items",
    "load_kb",
    "load_local_models",
    "load_passages",
    "local_models_installed",
    "ndcg_at",
    "openai_compatible_llm",
    "parse_verdict",
    "recall_at",
    "relevant_lost_and_gained",
    "render_chart",
    "render_markdown",
    "resolver_overrides",
    "run_eval",
    "select_items",
    "should_rewrite",
    "split_settings",
    "sufficiency_prompt",
    "summarize",
    "validate_rewrite",
    "write_answer",
]
