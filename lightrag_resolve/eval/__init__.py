"""Retrieval evaluation of conversation-aware arms over LightRAG (SPEC §10).

Installed with the ``eval`` extra (``pip install 'lightrag-resolve[eval]'``).
``load_dataset`` reads items and a knowledge base; the arms, judges and
paired statistics of an evaluation are defined here. The harness uses only
the public API of ``lightrag_resolve``.
"""

from importlib.util import find_spec

_MISSING = [name for name in ("matplotlib", "tqdm") if find_spec(name) is None]
if _MISSING:
    raise ImportError(
        f"lightrag_resolve.eval needs {', '.join(_MISSING)}: install the extra with "
        "pip install 'lightrag-resolve[eval]'"
    )

from ._anythingllm import AnythingLLMRewriter, Rewrite, clean_reply, context_text, should_rewrite, validate_rewrite
from ._arms import ARM_NAMES, AnythingLLMArm, Arm, OracleArm, ProseArm, RawArm, ResolveArm, SearchPlan, build_arms
from ._dataset import Dataset, KnowledgeBase, load_dataset, load_items, load_kb, load_passages
from ._errors import DatasetError, EvalError, ResultsMismatchError
from ._items import TURN_CLASSES, Item, derive_turn_class
from ._judges import GoldJudge, Judge, Judgement, LLMJudge, ndcg_at, parse_verdict, recall_at, sufficiency_prompt
from ._prose import CondenseRewriter, Condensed, clean_condensed
from ._stats import PairedComparison, bootstrap_interval, compare_paired

__all__ = [
    "ARM_NAMES",
    "AnythingLLMArm",
    "AnythingLLMRewriter",
    "Arm",
    "CondenseRewriter",
    "Condensed",
    "Dataset",
    "DatasetError",
    "EvalError",
    "GoldJudge",
    "Item",
    "Judge",
    "Judgement",
    "KnowledgeBase",
    "LLMJudge",
    "OracleArm",
    "PairedComparison",
    "ProseArm",
    "RawArm",
    "ResolveArm",
    "ResultsMismatchError",
    "Rewrite",
    "SearchPlan",
    "TURN_CLASSES",
    "bootstrap_interval",
    "build_arms",
    "clean_condensed",
    "clean_reply",
    "compare_paired",
    "context_text",
    "derive_turn_class",
    "load_dataset",
    "load_items",
    "load_kb",
    "load_passages",
    "ndcg_at",
    "parse_verdict",
    "recall_at",
    "should_rewrite",
    "sufficiency_prompt",
    "validate_rewrite",
]
